"""Refinement to the noise floor: Levenberg-Marquardt on (U, V, b) jointly.

With the activation pattern fixed the model ``f(X V^T + b) U^T`` is linear in U and, for the
ReLU, linear in (V, b): the Gauss-Newton matrix J^T J is the exact second-order model of the loss
up to the bilinear U-V coupling. It is never formed from J (n m rows): with
``x~ = (x, 1)`` (p = d or d + 1 entries), ``H = f(Z)``, ``S = f'(Z)``, ``W_j = S_j (x) x~_j``,

* U-U block: ``I_m (x) H^T H``;  U-V block: ``U_rl (H^T W)[i, (l, q)]``;
* V-V block: ``(W^T W) * ((U^T U) (x) 1_{p x p})``; gradient: ``R^T H`` and ``((R U) * S)^T x~``,

accumulated over blocks of samples, O(n (k p)^2) per step. An output bias c is the output weights of a
constant column of H (``H~ = [H, 1]``, ``U~ = [U, c]``): the U blocks take H~, the V blocks the k units
only. Marquardt damping ``lambda diag``
handles the scaling gauge (each unit's (V_i, b_i) can be scaled, U's column rescaled) and dead
units. Large n: first converge on a random subset, then finish on all samples.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((3000, 4)); V = rng.standard_normal((2, 4)); U = rng.standard_normal((3, 2))
>>> E = 0.05 * rng.standard_normal((3000, 3)); Y = np.maximum(X @ V.T, 0) @ U.T + E
>>> start = Start(U + 0.1, V + 0.1 * rng.standard_normal((2, 4)))
>>> out = refine(X, Y, start)
>>> bool(np.linalg.norm(hidden(X, out.V, None, 1) @ out.U.T - Y) <= np.linalg.norm(E))
True
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ._model import Start, hidden, normalize

__all__ = ["refine"]

_BLOCK = 16384  # samples per block (memory O(block * k p))
_SUBSET = 50000  # samples of the first, cheaper stage when n is much larger


def refine(X: np.ndarray, Y: np.ndarray, start: Start, *, degree: int = 1, bias: bool = False, max_iter: int = 100,
           tol: float = 1e-12, rng: np.random.Generator | None = None,
           progress: Callable[[str], None] | None = None, offset: bool = False) -> Start:
    """Levenberg-Marquardt from ``start``; returns the refined Start (``info["iterations"]`` etc.).

    ``bias=True`` fits hidden biases (from ``start.b``, or zero), ``offset=True`` an output bias (from
    ``start.c``, or zero). Stops when an accepted step lowers the loss by less than ``tol`` relative, or after
    ``max_iter`` steps.
    """
    b = start.b if start.b is not None else (np.zeros(start.V.shape[0]) if bias else None)
    c = start.c if start.c is not None else (np.zeros(start.U.shape[0]) if offset else None)
    cur = normalize(Start(start.U.copy(), start.V.copy(), None if b is None else b.copy(), dict(start.info),
                          None if c is None else c.copy()), degree)
    n = X.shape[0]
    iters = 0
    if n > 4 * _SUBSET:
        idx = (rng or np.random.default_rng(0)).choice(n, _SUBSET, replace=False)
        cur, iters = _lm(X[idx], Y[idx], cur, degree, max_iter, tol * 1e3, progress, "refine (subset)")
    cur, more = _lm(X, Y, cur, degree, max_iter, tol, progress, "refine")
    cur.info = {**start.info, "iterations": iters + more}
    return cur


def _lm(X, Y, cur: Start, degree, max_iter, tol, progress, label) -> tuple[Start, int]:
    loss = _loss(X, Y, cur, degree)
    lam, it, calm = 1e-3, 0, 0
    while it < max_iter and loss > 0:
        it += 1
        A, g = _normal_equations(X, Y, cur, degree)
        diag = np.diag(A).copy()
        damp = np.maximum(diag, 1e-12 * (diag.max() or 1.0))
        accepted = False
        for _ in range(12):
            try:
                step = np.linalg.solve(A + lam * np.diag(damp), -g)
            except np.linalg.LinAlgError:
                lam *= 10
                continue
            trial = _apply(cur, step, degree)
            new = _loss(X, Y, trial, degree)
            if new < loss:
                accepted = True
                lam = max(lam / 3, 1e-12)
                break
            lam *= 4
        if not accepted:
            break
        gain = (loss - new) / loss
        cur, loss = trial, new
        if progress is not None:
            progress(f"{label}: step {it}, loss {loss:.6g}")
        calm = calm + 1 if gain < tol else 0
        if calm >= 2:
            break
    return cur, it


def _loss(X, Y, s: Start, degree) -> float:
    total = 0.0
    for j in range(0, X.shape[0], _BLOCK):
        R = hidden(X[j:j + _BLOCK], s.V, s.b, degree) @ s.U.T - Y[j:j + _BLOCK]
        if s.c is not None:
            R += s.c
        total += float(np.einsum("ij,ij->", R, R))
    return total


def _apply(s: Start, step: np.ndarray, degree) -> Start:
    m, k = s.U.shape
    d = s.V.shape[1]
    p = d + (s.b is not None)
    kc = k + (s.c is not None)  # columns of U~ = [U, c]
    Uc = step[: m * kc].reshape(m, kc)
    U = s.U + Uc[:, :k]
    c = None if s.c is None else s.c + Uc[:, k]
    VB = np.hstack([s.V, s.b[:, None]]) if s.b is not None else s.V
    VB = VB + step[m * kc:].reshape(k, p)
    return normalize(Start(U, VB[:, :d], VB[:, d] if s.b is not None else None, s.info, c), degree)


def _normal_equations(X, Y, s: Start, degree) -> tuple[np.ndarray, np.ndarray]:
    """``J^T J`` and ``J^T r`` over parameters (U~ = [U, c] row-major, then (V_i, b_i) unit by unit)."""
    m, k = s.U.shape
    d = s.V.shape[1]
    p = d + (s.b is not None)
    kc = k + (s.c is not None)
    HH, HW = np.zeros((kc, kc)), np.zeros((kc, k * p))
    WW, gU, gV = np.zeros((k * p, k * p)), np.zeros((m, kc)), np.zeros((k, p))
    for j in range(0, X.shape[0], _BLOCK):
        Xb = X[j:j + _BLOCK]
        Xt = np.hstack([Xb, np.ones((Xb.shape[0], 1))]) if s.b is not None else Xb
        Z = Xb @ s.V.T + (s.b if s.b is not None else 0.0)
        P = np.maximum(Z, 0.0)
        H = P if degree == 1 else P**degree
        S = (Z > 0).astype(np.float64) if degree == 1 else degree * P ** (degree - 1)
        R = H @ s.U.T - Y[j:j + _BLOCK]
        if s.c is not None:
            R += s.c
            H = np.hstack([H, np.ones((H.shape[0], 1))])  # H~: the output bias's constant column
        W = (S[:, :, None] * Xt[:, None, :]).reshape(Xb.shape[0], k * p)
        HH += H.T @ H
        HW += H.T @ W
        WW += W.T @ W
        gU += R.T @ H
        gV += ((R @ s.U) * S).T @ Xt
    G = s.U.T @ s.U
    nu = m * kc
    A = np.zeros((nu + k * p, nu + k * p))
    A[:nu, :nu] = np.kron(np.eye(m), HH)
    # cross block: row (r, i), column (l, q) -> U[r, l] * HW[i, (l, q)] (i over the columns of H~, l over units)
    cross = (s.U[:, None, :, None] * HW.reshape(kc, k, p)[None, :, :, :]).reshape(nu, k * p)
    A[:nu, nu:] = cross
    A[nu:, :nu] = cross.T
    A[nu:, nu:] = WW * np.kron(G, np.ones((p, p)))
    return A, np.concatenate([gU.ravel(), gV.ravel()])
