"""The paper's second stage: units with large |b| replaced by a linear function, i.e. two ReLU units.

A unit relu(u . x + beta) with beta >> 0 is the linear function u . x + beta except with
probability Phi(-beta); with beta << 0 it is zero except with probability Phi(beta). Neither can
be told apart from those functions with fewer than about 1 / Phi(-|beta|) samples, and their
Hermite coefficients alpha g_t(beta) (t >= 2) are of the order phi(beta): below the sampling noise.
After the well-conditioned units are recovered, the residual ``r = y - sum_good`` is therefore
close to an affine function on the bulk of the distribution. Truncated least squares (samples with
|z| <= radius, where the linear approximation of the large units is accurate) fits
``r ~ w . x + c``, and ``w . x + c = relu(w . x + c) - relu(-w . x - c)`` adds at most two units: a
network with at most k + 2 units and a small L2 error (measured in benchmarks/bench_hermite.py).

>>> rng = np.random.default_rng(0)
>>> Z = rng.standard_normal((20000, 3)); r = Z @ [1.0, -2.0, 0.5] + 7.0
>>> V, b, a = linear_units(Z, r)
>>> bool(np.allclose(np.maximum(Z @ V.T + b, 0) @ a, r))
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["linear_units", "affine_fit"]


def affine_fit(Z: np.ndarray, r: np.ndarray, radius: float | None = None) -> tuple[np.ndarray, float]:
    """Least squares ``r ~ Z w + c`` on the samples with ``|z| <= radius`` (default sqrt(d) + 2; all if too few)."""
    n, d = Z.shape
    radius = np.sqrt(d) + 2.0 if radius is None else radius
    keep = np.linalg.norm(Z, axis=1) <= radius
    if keep.sum() < 4 * (d + 1):
        keep = np.ones(n, dtype=bool)
    A = np.concatenate([Z[keep], np.ones((int(keep.sum()), 1))], axis=1)
    sol = np.linalg.lstsq(A, r[keep], rcond=None)[0]
    return sol[:d], float(sol[d])


def linear_units(Z: np.ndarray, r: np.ndarray, radius: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Units (V rows unit norm, b, a) computing the truncated affine fit of ``r``: two units, or one constant unit.

    ``w . x + c = |w| relu(v . x + c/|w|) - |w| relu(-v . x - c/|w|)`` with v = w / |w|; when w is
    zero (up to rounding) the constant c is the unit with V = 0, b = 1, a = c.
    """
    w, c = affine_fit(Z, r, radius)
    rho = float(np.linalg.norm(w))
    d = Z.shape[1]
    if rho <= 1e-9 * abs(c):  # no linear part beyond rounding: a constant
        return np.zeros((1, d)), np.array([1.0]), np.array([c])
    v = w / rho
    return np.stack([v, -v]), np.array([c / rho, -c / rho]), np.array([rho, -rho])
