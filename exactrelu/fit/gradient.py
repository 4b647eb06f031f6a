"""Gradient baseline: what a practitioner runs, L-BFGS on the squared loss from random weights.

All parameters (U, V and, with ``bias``, b) are trained jointly by SciPy's L-BFGS-B from
``n_restarts`` random starts (rows of V of norm about 1 / input scale, U small); the start with
the smallest loss is kept. No assumption on the inputs' distribution or on m, k, d, hence the
fallback of ``method="auto"``; like any local method it can end in a bad local minimum, which the
restarts make rarer, not impossible. With ``offset`` an output bias c is trained too (started at the labels' mean).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((2000, 3)); V = rng.standard_normal((2, 3)); U = rng.standard_normal((2, 2))
>>> Y = np.maximum(X @ V.T, 0) @ U.T + 0.01 * rng.standard_normal((2000, 2))
>>> start = gradient_start(X, Y, 2, activation=None, rng=rng)
>>> bool(np.linalg.norm(hidden(X, start.V, None, 1) @ start.U.T - Y) < 0.05 * np.linalg.norm(Y))
True
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import minimize

from ..network import RELU, Activation
from ._model import Start, hidden  # noqa: F401 - hidden is used by the doctest

__all__ = ["gradient_start"]


def _unpack(theta, m, k, d, bias, offset=False):
    U = theta[: m * k].reshape(m, k)
    V = theta[m * k: m * k + k * d].reshape(k, d)
    end = m * k + k * d + (k if bias else 0)
    b = theta[m * k + k * d:end] if bias else None
    c = theta[end:end + m] if offset else None
    return U, V, b, c


def _loss_grad(theta, X, Y, m, k, d, bias, degree, scale, offset=False):
    U, V, b, c = _unpack(theta, m, k, d, bias, offset)
    Z = X @ V.T + (b if bias else 0.0)
    P = np.maximum(Z, 0.0)
    H = P if degree == 1 else P**degree
    R = H @ U.T - Y + (c if offset else 0.0)
    S = (Z > 0).astype(np.float64) if degree == 1 else degree * P ** (degree - 1)
    D = (R @ U) * S  # n x k: d loss / d pre-activation (halved)
    g = [2 * (R.T @ H).ravel(), 2 * (D.T @ X).ravel()] + ([2 * D.sum(axis=0)] if bias else []) + \
        ([2 * R.sum(axis=0)] if offset else [])
    return float(np.einsum("ij,ij->", R, R)) * scale, np.concatenate(g) * scale


def _every_step(progress, r: int, n_restarts: int, interval: float = 0.2):
    """An L-BFGS callback giving ``progress`` a message at most every ``interval`` seconds.

    A time limit reaches inside the optimizer this way: with a deadline, ``progress`` raises
    TimeLimitExceeded (:func:`exactrelu.deadline.with_deadline`), which leaves ``minimize`` at once.
    """
    state = {"step": 0, "last": time.monotonic()}

    def callback(*_):
        state["step"] += 1
        now = time.monotonic()
        if now - state["last"] >= interval:
            state["last"] = now
            progress(f"gradient: restart {r + 1} of {n_restarts}, step {state['step']}")

    return callback


def gradient_start(X: np.ndarray, Y: np.ndarray, k: int, *, activation: Activation | None, rng: np.random.Generator,
                   bias: bool = False, progress=None, n_restarts: int = 4, max_iter: int = 1000,
                   offset: bool = False) -> Start:
    """Best of ``n_restarts`` L-BFGS runs from random weights (module docstring)."""
    act = activation or RELU
    n, d = X.shape
    m = Y.shape[1]
    scale = 1.0 / max(float(np.einsum("ij,ij->", Y, Y)), 1e-300)
    xs = float(np.sqrt(np.mean(np.einsum("ij,ij->i", X, X)))) or 1.0
    ys = float(np.sqrt(np.mean(Y * Y))) or 1.0
    best = None
    for r in range(n_restarts):
        V0 = rng.standard_normal((k, d)) * (np.sqrt(d) / xs) / np.sqrt(d)
        U0 = rng.standard_normal((m, k)) * ys / np.sqrt(k)
        b0 = [np.zeros(k)] if bias else []
        c0 = [Y.mean(axis=0)] if offset else []
        theta = np.concatenate([U0.ravel(), V0.ravel()] + b0 + c0)
        res = minimize(_loss_grad, theta, args=(X, Y, m, k, d, bias, act.degree, scale, offset), jac=True,
                       method="L-BFGS-B",
                       options={"maxiter": max_iter, "gtol": 1e-12, "ftol": 1e-15},
                       callback=None if progress is None else _every_step(progress, r, n_restarts))
        if progress is not None:
            progress(f"gradient: restart {r + 1} of {n_restarts}, loss {res.fun:.4g}")
        if best is None or res.fun < best.fun:
            best = res
    U, V, b, c = _unpack(best.x, m, k, d, bias, offset)
    return Start(U, V, b, {"restarts": n_restarts, "loss": float(best.fun)}, c)
