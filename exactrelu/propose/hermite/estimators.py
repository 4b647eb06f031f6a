"""Hermite coefficient tensors of a function of Gaussian inputs, estimated from samples.

For x ~ N(0, I_d) and labels y = f(x), the t-th (probabilists', unnormalized) Hermite coefficient
tensor is ``f_t = E[y He_t(x)]`` with He_0 = 1, He_1(x) = x, He_2(x) = x x^T - I,
``He_3(x)_abc = x_a x_b x_c - (delta_ab x_c + delta_ac x_b + delta_bc x_a)`` and He_4 as in
:func:`he4_correction`. For the biased network ``f(x) = sum_i a_i relu(w_i . x + b_i)`` with unit
rows ``u_i = w_i / |w_i|``, ``alpha_i = a_i |w_i|`` and ``beta_i = b_i / |w_i|`` (positive
homogeneity),

    f_t = sum_i alpha_i g_t(beta_i) u_i^(x)t,   g_0 = phi + b Phi, g_1 = Phi, g_t(b) = phi(b) He_{t-2}(-b)

(:func:`hermite_coefficient`; proved in ``exactrelu.theorems.biased_relu_hermite``). No d^t
array is formed for t >= 3: :func:`contraction` gives ``f_t(., ., v_1, ..., v_{t-2})`` (a d x d
matrix) in O(n d^2) work, and :func:`projected_tensor` gives the k^t tensor of ``f_t`` restricted
to a k-dimensional span (O(n k^t)). Before an order-t estimate the degree < t Hermite part of y
(estimated from the same samples) is subtracted: every polynomial of degree < t is orthogonal to
He_t, so the estimate stays unbiased (up to O(1/n)) and much of its variance goes.

Inputs N(0, Sigma) are handled by :func:`whitening` (x -> L^-1 x with Sigma = L L^T estimated).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((200000, 3)); u = np.array([0.6, 0.8, 0.0])
>>> y = np.maximum(X @ u + 0.5, 0)
>>> f1 = low_order(X, y).f1
>>> bool(np.allclose(f1, hermite_coefficient(1, 0.5) * u, atol=0.01))
True
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from math import pi, sqrt

import numpy as np
from numpy.polynomial import hermite_e
from scipy.special import ndtr

from ...errors import AssumptionViolated, GaussianityWarning, InvalidInput  # GaussianityWarning: re-exported

__all__ = [
    "GaussianityWarning",
    "LowOrder",
    "hermite_coefficient",
    "low_order",
    "contraction",
    "projected_tensor",
    "population_tensor",
    "whitening",
    "check_gaussian",
    "he4_correction",
]

_CHUNK = 32768  # samples per block (memory O(chunk * max(d, k^2)))


def hermite_coefficient(t: int, b) -> np.ndarray:
    """``g_t(b) = E[relu(z + b) He_t(z)]``, z ~ N(0, 1) (vectorized over ``b``).

    >>> [round(float(hermite_coefficient(t, 0.0)), 6) + 0.0 for t in range(5)]
    [0.398942, 0.5, 0.398942, 0.0, -0.398942]
    >>> abs(float(hermite_coefficient(4, 1.0))), abs(float(hermite_coefficient(3, 0.0)))
    (0.0, 0.0)
    """
    b = np.asarray(b, dtype=np.float64)
    phi = np.exp(-b * b / 2) / sqrt(2 * pi)
    if t == 0:
        return phi + b * ndtr(b)
    if t == 1:
        return ndtr(b)
    coef = np.zeros(t - 1)
    coef[-1] = 1.0
    return phi * hermite_e.hermeval(-b, coef)


@dataclass
class LowOrder:
    """Estimated f_0 (scalar), f_1 (d), f_2 (d x d) and E[y^2] of one label column (whitened inputs)."""

    f0: float
    f1: np.ndarray
    f2: np.ndarray
    second: float
    n: int

    def degree2_part(self, X: np.ndarray) -> np.ndarray:
        """The degree <= 2 Hermite part of y at the rows of ``X``: f0 + f1.x + <f2, x x^T - I>/2."""
        quad = np.einsum("ia,ab,ib->i", X, self.f2, X, optimize=True)
        return self.f0 + X @ self.f1 + 0.5 * (quad - float(np.trace(self.f2)))


def low_order(X: np.ndarray, y: np.ndarray) -> LowOrder:
    """f_0 = E[y], f_1 = E[y x], f_2 = E[y (x x^T - I)] from samples (O(n d^2)).

    >>> rng = np.random.default_rng(1)
    >>> X = rng.standard_normal((100000, 2)); lo = low_order(X, np.maximum(X[:, 0], 0))
    >>> round(lo.f0, 2), round(float(lo.f2[0, 0]), 2)
    (0.4, 0.4)
    """
    n, d = X.shape
    y = np.asarray(y, dtype=np.float64).reshape(n)
    S = np.zeros((d, d))
    for s0 in range(0, n, _CHUNK):
        Xb = X[s0:s0 + _CHUNK]
        S += (Xb * y[s0:s0 + _CHUNK, None]).T @ Xb
    f0 = float(y.mean())
    f2 = S / n - f0 * np.eye(d)
    return LowOrder(f0, (y @ X) / n, (f2 + f2.T) / 2, float(y @ y) / n, n)


def contraction(X: np.ndarray, y: np.ndarray, t: int, vectors: list[np.ndarray]) -> np.ndarray:
    """``E[y He_t(x)](., ., v_1, ..., v_{t-2})`` as a d x d matrix, t in {2, 3, 4}, in O(n d^2).

    The Hermite tensor contracted with t - 2 vectors is expanded by hand (He_3: s x x^T - s I -
    v x^T - x v^T with s = v.x; He_4: the same with two vectors), so no d^t array appears.

    >>> rng = np.random.default_rng(2)
    >>> X = rng.standard_normal((200000, 3)); u = np.array([1.0, 0, 0])
    >>> M = contraction(X, np.maximum(X @ u + 1.0, 0), 3, [u])
    >>> bool(abs(M[0, 0] - float(hermite_coefficient(3, 1.0))) < 0.02)
    True
    """
    n, d = X.shape
    if len(vectors) != t - 2 or t not in (2, 3, 4):
        raise InvalidInput("contraction needs t in {2, 3, 4} and t - 2 vectors")
    y = np.asarray(y, dtype=np.float64).reshape(n)
    I = np.eye(d)
    out = np.zeros((d, d))
    for s0 in range(0, n, _CHUNK):
        Xb, yb = X[s0:s0 + _CHUNK], y[s0:s0 + _CHUNK]
        if t == 2:
            out += (Xb * yb[:, None]).T @ Xb - yb.sum() * I
        elif t == 3:
            v = vectors[0]
            s = Xb @ v
            ys = yb * s
            xv = (yb @ Xb)[:, None] * v[None, :]
            out += (Xb * ys[:, None]).T @ Xb - ys.sum() * I - xv - xv.T
        else:
            v, w = vectors
            s, r = Xb @ v, Xb @ w
            ysr = yb * s * r
            # He4(x)(., ., v, w) = x x^T (sr - v.w) - I (sr - v.w) - (v x^T + x v^T) r - (w x^T + x w^T) s
            #                      + v w^T + w v^T
            c = ysr - yb * float(v @ w)
            out += (Xb * c[:, None]).T @ Xb - c.sum() * I
            a = (yb * r) @ Xb
            bb = (yb * s) @ Xb
            out -= np.outer(v, a) + np.outer(a, v) + np.outer(w, bb) + np.outer(bb, w)
            out += yb.sum() * (np.outer(v, w) + np.outer(w, v))
    out /= n
    return (out + out.T) / 2


def he4_correction(S2: np.ndarray, S0: float) -> np.ndarray:
    """Given S4 = E[y z^(x)4], S2 = E[y z z^T], S0 = E[y]: E[y He_4(z)] = S4 - sym6(I (x) S2) + S0 sym3(I (x) I).

    Returns the correction ``- sym6(I (x) S2) + S0 sym3(I (x) I)`` (k^4) to add to S4.
    """
    k = S2.shape[0]
    I = np.eye(k)
    corr = (np.einsum("ab,cd->abcd", I, S2) + np.einsum("ac,bd->abcd", I, S2) + np.einsum("ad,bc->abcd", I, S2)
            + np.einsum("bc,ad->abcd", I, S2) + np.einsum("bd,ac->abcd", I, S2) + np.einsum("cd,ab->abcd", I, S2))
    dd = np.einsum("ab,cd->abcd", I, I) + np.einsum("ac,bd->abcd", I, I) + np.einsum("ad,bc->abcd", I, I)
    return -corr + S0 * dd


def projected_tensor(Z: np.ndarray, y: np.ndarray, t: int) -> np.ndarray:
    """``E[y He_t(z)]`` for the k-dimensional samples ``Z`` (n x k, z ~ N(0, I_k)), t in {3, 4}: a k^t array.

    With Z = X P for P (d x k) with orthonormal columns this is f_t(P, ..., P), the order-t Hermite
    tensor restricted to the span of P. Work O(n k^t), memory O(chunk k^2).

    >>> rng = np.random.default_rng(3)
    >>> Z = rng.standard_normal((200000, 2))
    >>> T = projected_tensor(Z, np.maximum(Z[:, 0] - 1.0, 0), 3)
    >>> bool(abs(T[0, 0, 0] - float(hermite_coefficient(3, -1.0))) < 0.02), T.shape
    (True, (2, 2, 2))
    """
    n, k = Z.shape
    y = np.asarray(y, dtype=np.float64).reshape(n)
    I = np.eye(k)
    S1 = (y @ Z) / n
    S2 = np.zeros((k, k))
    S0 = float(y.mean())
    if t == 3:
        S3 = np.zeros((k, k * k))
        for s0 in range(0, n, _CHUNK):
            Zb, yb = Z[s0:s0 + _CHUNK], y[s0:s0 + _CHUNK]
            Z2 = (Zb[:, :, None] * Zb[:, None, :]).reshape(-1, k * k)
            S3 += (Zb * yb[:, None]).T @ Z2
        T = (S3 / n).reshape(k, k, k)
        T = T - (np.einsum("ab,c->abc", I, S1) + np.einsum("ac,b->abc", I, S1) + np.einsum("bc,a->abc", I, S1))
        return T
    if t != 4:
        raise InvalidInput("projected_tensor needs t in {3, 4}")
    S4 = np.zeros((k * k, k * k))
    for s0 in range(0, n, _CHUNK):
        Zb, yb = Z[s0:s0 + _CHUNK], y[s0:s0 + _CHUNK]
        Z2 = (Zb[:, :, None] * Zb[:, None, :]).reshape(-1, k * k)
        S4 += (Z2 * yb[:, None]).T @ Z2
        S2 += (Zb * yb[:, None]).T @ Zb
    return (S4 / n).reshape(k, k, k, k) + he4_correction(S2 / n, S0)


def population_tensor(t: int, U: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """The exact f_t = sum_i alpha_i g_t(beta_i) u_i^(x)t for unit rows ``U`` (k x d), as a d^t array (small d only).

    >>> U = np.eye(2); T = population_tensor(2, U, np.array([1.0, 2.0]), np.array([0.0, 0.0]))
    >>> bool(np.allclose(T, np.diag([1.0, 2.0]) / np.sqrt(2 * np.pi)))
    True
    """
    U = np.asarray(U, dtype=np.float64)
    lam = np.asarray(alpha, dtype=np.float64) * hermite_coefficient(t, beta)
    if t == 0:
        return np.asarray(lam.sum())
    letters = "abcdefgh"[:t]
    spec = ",".join(f"i{c}" for c in letters)
    return np.einsum(f"i,{spec}->{letters}", lam, *([U] * t))


def whitening(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(L, Linv)`` with L L^T the empirical second moment of ``X``; whitened inputs are ``X @ Linv.T``.

    A row w of the whitened problem is ``w @ Linv`` in the input coordinates (w . z = (Linv^T w) . x).
    """
    n, d = X.shape
    S = (X.T @ X) / n
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        raise AssumptionViolated("the inputs' second moment is singular: they do not span R^d",
                                 evidence={"d": d}, suggestion="init='search' or a lower-dimensional input") from None
    return L, np.linalg.inv(L)


def check_gaussian(Z: np.ndarray, z_score: float = 6.0) -> dict:
    """Warn (:class:`GaussianityWarning`) when whitened inputs are visibly not N(0, I).

    Tests the mean, the third and the fourth moment of every coordinate and of a few random
    directions against their Gaussian values (0, 0, 3) with standard errors sqrt(1/n),
    sqrt(15/n), sqrt(96/n). Returns the largest z-scores; never raises.

    >>> rng = np.random.default_rng(4)
    >>> check_gaussian(rng.standard_normal((5000, 3)))["gaussian"]
    True
    """
    n, d = Z.shape
    rng = np.random.default_rng(0)
    D = np.concatenate([np.eye(d), rng.standard_normal((d, 4))], axis=1)
    D /= np.linalg.norm(D, axis=0)
    P = Z @ D
    zs = {"mean": float(np.abs(P.mean(axis=0)).max() * sqrt(n)),
          "skewness": float(np.abs((P**3).mean(axis=0)).max() / sqrt(15 / n)),
          "kurtosis": float(np.abs((P**4).mean(axis=0) - 3).max() / sqrt(96 / n))}
    ok = max(zs.values()) <= z_score
    if not ok:
        worst = max(zs, key=zs.get)
        warnings.warn(f"the inputs do not look Gaussian ({worst} off by {zs[worst]:.0f} standard errors after "
                      "whitening): the Hermite-tensor guarantees do not apply", GaussianityWarning, stacklevel=3)
    return {"gaussian": ok, **zs}

