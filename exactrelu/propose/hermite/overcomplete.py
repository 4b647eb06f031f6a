"""Overcomplete biased networks (l = 2, k > d, smoothed rows): the lifted Hermite algorithm, small d.

With more units than dimensions the rows u_i cannot be independent, but their lifts
vec(u_i u_i^T) in R^(d^2) can be (generically up to k = d (d + 1) / 2; the paper's smoothed
setting). The tensors of orders 4, 5, 6 seen as d^2 x d^2 matrices are then all of the form
``A diag(.) A^T`` with A = [vec(u_i u_i^T)]:

    f_4                 = sum_i lam4_i vec_i vec_i^T,             lam_t = alpha_i g_t(beta_i)
    f_5(., ., ., ., e_j) = sum_i lam5_i u_ij vec_i vec_i^T,
    f_6(., ..., e_j, e_l) = sum_i lam6_i u_ij u_il vec_i vec_i^T.

In the k-dimensional range of these matrices they are exactly the slice tensors of
:mod:`.hermite_decompose`, so the same pencil + ALS polish finds the lifted units; each
vec_i reshaped is +-u_i u_i^T (its top eigenvector is u_i). g_4, g_5, g_6 are phi(b) times
He_2, He_3, He_4 at -b, which have no common root (consecutive Hermite polynomials interlace:
the paper's argument), so random combinations of the slices never lose a unit. Algorithm 2 then
reads (alpha_i, beta_i) from (lam2, ..., lam6) (f_2 and f_3 coefficients by least squares on the
found units: orders 4-6 alone cannot tell b = 0 from b = +-sqrt(3)), and the signs come from f_0, f_1 by enumeration
(k > d: several choices may fit; the survivors are listed).

The estimators form the full d^t tensors (t <= 6) from raw moments ``E[y x^(x)r]`` and the
pairings of the Hermite tensor, O(n d^6) work: a small-d demonstration (d <= 8), as measured in
benchmarks/bench_hermite.py.

>>> from exactrelu.propose.hermite.estimators import population_tensor
>>> rng = np.random.default_rng(0)
>>> U = rng.standard_normal((5, 3)); U /= np.linalg.norm(U, axis=1, keepdims=True)
>>> alpha, beta = np.array([1.0, -1.0, 2.0, 1.5, -0.5]), np.array([0.0, 1.0, -1.0, 0.5, 0.3])
>>> T = {t: population_tensor(t, U, alpha, beta) for t in range(7)}
>>> res = decompose_overcomplete(T, 5, rng)
>>> bool(np.abs(np.abs(res.U @ U.T).max(axis=1) - 1).max() < 1e-8), np.allclose(np.sort(res.beta), np.sort(beta))
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ...errors import AssumptionViolated, InvalidInput
from ..floats import check_data
from ...validation import as_generator, check_k
from ..selfcheck import error_against_constant, self_check
from .decompose import decompose
from .estimators import whitening
from .params import fit_bias
from .signs import resolve_signs

__all__ = ["OvercompleteResult", "hermite_tensors", "decompose_overcomplete", "fit_overcomplete"]

_LETTERS = "abcdefgh"


@dataclass
class OvercompleteResult:
    """Unit rows U (k x d, whitened, oriented), alpha, beta, the sign survivors and the decomposition residual."""

    U: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    survivors: list
    residual: float
    #: ``||prediction - labels|| / ||labels - mean||`` on the samples (``fit_overcomplete``; None for tensors alone)
    training_error: float | None = None


def _matchings(t: int, j: int):
    """All sets of j disjoint pairs of positions 0..t-1."""
    if j == 0:
        yield []
        return
    for first in combinations(range(t), 2):
        for rest in _matchings(t, j - 1):
            pairs = [first] + rest
            flat = [p for q in pairs for p in q]
            if len(set(flat)) == len(flat) and all(pairs[i] < pairs[i + 1] for i in range(len(pairs) - 1)):
                yield pairs


def _hermite_from_raw(S: dict[int, np.ndarray], t: int, d: int) -> np.ndarray:
    """E[y He_t(x)] = sum_j (-1)^j sum over j-pairings of (I per pair) (x) S_{t-2j} on the other positions."""
    I = np.eye(d)
    out = np.array(S[t], copy=True)
    for j in range(1, t // 2 + 1):
        for pairs in _matchings(t, j):
            paired = {p for q in pairs for p in q}
            rest = "".join(_LETTERS[p] for p in range(t) if p not in paired)
            ops = [S[t - 2 * j]] + [I] * j
            spec = ",".join([rest] + [_LETTERS[a] + _LETTERS[b] for a, b in pairs])
            out += (-1) ** j * np.einsum(f"{spec}->{_LETTERS[:t]}", *ops)
    return out


def _raw_moments(Z, y, orders, chunk):
    n, d = Z.shape
    S = {r: np.zeros((d,) * r) for r in orders}
    for s0 in range(0, n, chunk):
        Zb, yb = Z[s0:s0 + chunk], y[s0:s0 + chunk]
        P = {0: np.ones((len(yb), 1)), 1: Zb}
        P[2] = (Zb[:, :, None] * Zb[:, None, :]).reshape(len(yb), -1)
        P[3] = (P[2][:, :, None] * Zb[:, None, :]).reshape(len(yb), -1)
        for r in orders:
            a, b = (r + 1) // 2, r // 2  # S_r = P_a^T diag(y) P_b
            S[r] += ((P[a] * yb[:, None]).T @ P[b]).reshape((d,) * r)
    return {r: v / n for r, v in S.items()}


def _cubic_part(Z, T):
    """The degree <= 3 Hermite part of y at the samples: sum_t <f_t, He_t(z)> / t!, t <= 3 (T symmetric)."""
    quad = np.einsum("ia,ab,ib->i", Z, T[2], Z, optimize=True) - float(np.trace(T[2]))
    cube = np.einsum("abc,ia,ib,ic->i", T[3], Z, Z, Z, optimize=True) - 3 * np.einsum("aac,ic->i", T[3], Z)
    return float(T[0]) + Z @ T[1] + quad / 2 + cube / 6


def hermite_tensors(Z: np.ndarray, y: np.ndarray, chunk: int = 4096) -> tuple[dict[int, np.ndarray], dict[int, float]]:
    """{t: E[y He_t(z)]} for t = 0..6 as full d^t arrays from whitened samples Z (small d only), and noise levels.

    Two passes: orders <= 3 first; then orders 4..6 of y minus its degree <= 3 Hermite part (still
    unbiased: lower degrees are orthogonal to He_t; most of the variance goes). The noise level of
    order t is the root mean entry variance sqrt(E[y'^2 |z|^(2t)] / (d^t n)).
    """
    n, d = Z.shape
    S = _raw_moments(Z, y, range(4), chunk)
    T = {t: _hermite_from_raw(S, t, d) if t >= 2 else S[t] for t in range(4)}
    yr = y - _cubic_part(Z, T)
    S.update(_raw_moments(Z, yr, range(7), chunk))
    T.update({t: _hermite_from_raw(S, t, d) for t in (4, 5, 6)})
    r2 = np.sum(Z * Z, axis=1)
    noise = {t: float(np.sqrt(np.mean((y if t < 4 else yr) ** 2 * r2**t) / d**t / n)) for t in (2, 3, 4, 5, 6)}
    return T, noise


def decompose_overcomplete(T: dict[int, np.ndarray], k: int, rng: np.random.Generator, noise: float = 1e-12,
                           n_draws: int = 16, scales: dict[int, float] | None = None) -> OvercompleteResult:
    """Lifted decomposition of f_4, f_5, f_6 (full arrays in ``T``, whitened), Algorithm 2 and signs.

    ``scales``: the noise level of each order (slices are divided by it, so that each entry counts
    by its precision); ``noise``: the standard error of f_1's entries, for the sign survivors.
    """
    sc = scales or {4: 1.0, 5: 1.0, 6: 1.0}
    d = T[1].shape[0]
    D = d * d
    if k > d * (d + 1) // 2:
        raise AssumptionViolated(f"the lifted units vec(u u^T) span at most d (d + 1) / 2 = {d * (d + 1) // 2} "
                                 f"dimensions; k = {k}", evidence={"k": k, "d": d})
    F4 = T[4].reshape(D, D) / sc[4]
    F5 = T[5].reshape(D, D, d) / sc[5]
    F6 = T[6].reshape(D, D, d, d) / sc[6]
    a, c = rng.standard_normal(d), rng.standard_normal(d)
    Q, sv, _ = np.linalg.svd(np.concatenate([F4, F5 @ a, (F6 @ c) @ a], axis=1), full_matrices=False)
    Q = Q[:, :k]
    slices = [np.einsum("ai,abs,bj->ijs", Q, F.reshape(D, D, -1), Q) for F in (F4[:, :, None], F5, F6)]
    Tl = np.concatenate(slices, axis=2)  # k x k x (1 + d + d^2)
    dec = decompose(Tl, k, rng, n_draws=n_draws)
    Uo = np.empty((k, d))
    for i in range(k):
        M = (Q @ dec.B[:, i]).reshape(d, d)
        w, E = np.linalg.eigh((M + M.T) / 2)
        Uo[i] = E[:, np.argmax(np.abs(w))]
    lam4 = dec.C[0] * sc[4]
    lam5 = np.einsum("ji,ij->i", dec.C[1:1 + d], Uo) * sc[5]
    lam6 = np.einsum("ji,ji->i", dec.C[1 + d:], np.einsum("ij,il->jli", Uo, Uo).reshape(d * d, k)) * sc[6]
    lam2, lam3 = _low_coefficients(T, Uo)
    s2, s3 = sc.get(2, noise), sc.get(3, noise)
    alpha, beta = fit_bias([lam2, lam3, lam4, lam5, lam6], (s2, s3, sc[4], sc[5], sc[6]), (2, 3, 4, 5, 6))
    choice = resolve_signs(Uo, alpha, beta, float(T[0]), T[1], noise)
    return OvercompleteResult(Uo * choice.signs[:, None], alpha, beta * choice.signs, choice.survivors, dec.residual)


def _low_coefficients(T, Uo):
    """Least-squares coefficients of f_2 on u_i u_i^T and of f_3 on u_i^(x)3 (independent for k <= d (d + 1) / 2)."""
    k, d = Uo.shape
    G2 = np.einsum("ia,ib->abi", Uo, Uo).reshape(d * d, k)
    G3 = np.einsum("ia,ib,ic->abci", Uo, Uo, Uo).reshape(d**3, k)
    return (np.linalg.lstsq(G2, T[2].ravel(), rcond=None)[0], np.linalg.lstsq(G3, T[3].ravel(), rcond=None)[0])


def fit_overcomplete(inputs, labels, k: int, *, random_state=None) -> OvercompleteResult:
    """Estimate the tensors from Gaussian samples (one output) and decompose them; rows mapped back to the inputs.

    Returns unit rows ``U`` in input coordinates with ``alpha``, ``beta`` rescaled accordingly.
    """
    k = check_k(k)
    X, Y = check_data(inputs, labels, k)
    if Y.shape[1] != 1:
        raise InvalidInput(f"the overcomplete demonstration learns one output; got m = {Y.shape[1]}")
    n, d = X.shape
    if d > 8:
        raise InvalidInput(f"the overcomplete estimators form d^6 tensors: d <= 8, got d = {d}")
    _, Linv = whitening(X)
    Z = X @ Linv.T
    T, scales = hermite_tensors(Z, Y[:, 0])
    rng = as_generator(random_state, "random_state")
    res = decompose_overcomplete(T, k, rng, noise=float(np.sqrt(np.mean(Y**2) / n)),
                                 scales=scales)
    W = res.U @ Linv
    rho = np.linalg.norm(W, axis=1)
    V, alpha, beta = W / rho[:, None], res.alpha * rho, res.beta / rho
    error = self_check("fit_overcomplete", error_against_constant(np.maximum(X @ V.T + beta, 0.0) @ alpha, Y[:, 0]),
                       "another random_state, or more samples")
    return OvercompleteResult(V, alpha, beta, res.survivors, res.residual, error)
