"""Float consensus of the sparse-corruption route: which samples satisfy one linear relation ``t = Z beta``.

The route (:mod:`exactrelu.recover.sparse_corruption`) needs, for each output r, the samples whose entries
on the base outputs R0 and on r are all clean: there ``y_r = beta_r . y[R0]`` holds exactly. This module only
*proposes* them, in floating point; the route then solves beta exactly on k of them and counts exactly where
it holds, so nothing certified rests on a tolerance here. Two proposers:

1. **RANSAC** over random k-subsets of samples. With inlier fraction w, a pick is all-inlier with probability
   ``w^k``; the number of picks for a miss probability below ``1e-6`` is ``log(1e-6) / log(1 - w^k)``,
   computed in log space (:func:`tries_needed`: ``w^k`` underflows to 0 at k = 10 and w = 0.03, where the
   formula of 0.1 divided by ``log(1.0) = 0``).
2. **Least absolute deviations** (:func:`lad`): minimize ``sum_j |Z_j beta - t_j|``, one LP solved by HiGHS.
   Sparse gross errors do not move the L1 fit while enough samples are inliers, so its residual vanishes on
   them. It replaces RANSAC when ``w^k`` is so small that RANSAC would need more than :data:`MAX_TRIES`
   picks (k = 10 at 10% corruption: w = 0.9^11, about 1.5 million picks).

>>> rng = np.random.default_rng(0)
>>> Z = rng.standard_normal((200, 3)); t = Z @ [1.0, -2.0, 0.5]
>>> t[:60] += rng.standard_normal(60)  # 30% of the samples grossly wrong
>>> inl = consensus(Z, t, 3, rng)
>>> sorted(inl.tolist()) == list(range(60, 200))
True
>>> tries_needed(0.5, 3), tries_needed(0.9 ** 11, 10) > MAX_TRIES, tries_needed(1e-40, 10)
(104, True, inf)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["consensus", "lad", "tries_needed", "spread", "MAX_TRIES", "RELATIVE"]

#: RANSAC picks at most; beyond, least absolute deviations proposes the relation
MAX_TRIES = 5000
#: a sample agrees with a float relation when its residual is at most this, relative to 1 + |beta|_1
RELATIVE = 1e-9


def tries_needed(w: float, k: int, miss: float = 1e-6) -> float:
    """RANSAC picks of k samples needed so that no all-inlier pick has probability below ``miss``.

    ``log(miss) / log(1 - w^k)``, in log space: ``inf`` when ``w^k`` underflows (or w = 0), 1 when w = 1.
    """
    if w <= 0:
        return math.inf
    log_wk = k * math.log(w)  # log(w^k): finite for any w > 0
    if log_wk >= 0:
        return 1
    q = math.log1p(-math.exp(log_wk))  # log(1 - w^k) < 0, or 0 when w^k underflows
    tries = math.log(miss) / q if q < 0 else math.inf
    return int(tries) + 1 if tries < 1e18 else math.inf


def spread(Z: np.ndarray, k: int) -> bool:
    """The rows of Z span k dimensions, well above rounding (a consensus from the whole span, not a part).

    >>> bool(spread(np.eye(3), 3)), bool(spread(np.ones((5, 2)), 2))
    (True, False)
    """
    sv = np.linalg.svd(Z[: 4 * k + 200], compute_uv=False) if len(Z) >= k else np.zeros(1)
    return len(sv) >= k and sv[k - 1] > 1e-6 * sv[0]


def _inliers(Z: np.ndarray, t: np.ndarray, beta: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.abs(Z @ beta - t) <= RELATIVE * (1.0 + np.abs(beta).sum()))


def consensus(Z: np.ndarray, t: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of the samples that agree with the relation most samples (spanning k dimensions) agree with.

    RANSAC with the adaptive number of picks of :func:`tries_needed`; when that number passes
    :data:`MAX_TRIES`, the least-absolute-deviations fit proposes too, and the larger spreading consensus wins.
    """
    n = len(Z)
    best, tries, need = np.zeros(0, dtype=int), 0, 50
    while tries < min(need, MAX_TRIES) and n >= k:
        tries += 1
        pick = rng.choice(n, size=k, replace=False)
        if np.linalg.cond(Z[pick]) > 1e8:
            continue  # samples from a lower-dimensional part of the span (fewer active units): no information
        inl = _inliers(Z, t, np.linalg.solve(Z[pick], t[pick]))
        if len(inl) > len(best) and spread(Z[inl], k):
            best = inl
            need = tries_needed(len(best) / n, k)
    if n >= k and (need > tries or len(best) < 2 * k):  # RANSAC not confident within MAX_TRIES: ask the L1 fit
        beta = lad(Z, t)
        if beta is not None:
            inl = _inliers(Z, t, beta)
            if len(inl) > len(best) and spread(Z[inl], k):
                best = inl
    return best


def lad(Z: np.ndarray, t: np.ndarray) -> np.ndarray | None:
    """The least-absolute-deviations fit ``argmin_beta sum_j |Z_j beta - t_j|`` (HiGHS), or None.

    Variables ``(beta, s)``, ``-s <= Z beta - t <= s``, minimize ``sum s``; a float proposal only.
    """
    import scipy.sparse as sp
    from scipy.optimize import linprog

    n, k = Z.shape
    eye = sp.eye(n, format="csr")
    Zs = sp.csr_matrix(Z)
    A = sp.vstack([sp.hstack([Zs, -eye]), sp.hstack([-Zs, -eye])], format="csr")
    res = linprog(np.r_[np.zeros(k), np.ones(n)], A_ub=A, b_ub=np.r_[t, -t],
                  bounds=[(None, None)] * k + [(0, None)] * n, method="highs-ds")
    if res.status != 0 or res.x is None or not np.isfinite(res.x[:k]).all():
        return None
    return np.asarray(res.x[:k], dtype=np.float64)
