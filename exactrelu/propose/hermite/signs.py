"""Signs of biased units: which orientations (w_i, b_i) or (-w_i, -b_i) the data allow.

Orders t >= 2 of the Hermite expansion cannot see the orientation of a unit:
``g_t(-b) (-u)^(x)t = g_t(b) u^(x)t``. Orders 0 and 1 can: flipping the units of a set S changes
the network by the affine function ``sum_{i in S} a_i (w_i . x + b_i)`` (relu(t) - relu(-t) = t),
whose Hermite coefficients are exactly its constant and linear parts. Hence (proved in
``exactrelu.theorems.sign_identifiability``):

* a sign choice matches f_0 and f_1 iff ``sum_{i in S} a_i (w_i, b_i) = 0``, iff it computes the
  same function as the original network, everywhere;
* when the w_i are linearly independent (full rank) and every a_i != 0, only S = {} does:
  exactly one sign choice survives.

:func:`resolve_signs` makes the float choice from estimated f_0, f_1 and lists the float
survivors (tolerance-based, not certified); :func:`equivalent_flips` lists, exactly, the flips
of a rational network that keep its function, and :func:`flip_units` builds them, so that the
survivors can be shown to compute the same function on the data with ``evaluate_exact``.

>>> from exactrelu.network import Network
>>> net = Network.from_rows([[1, 1, -1]], [[1, 0], [0, 1], [1, 1]], b=[1, 1, 2])
>>> equivalent_flips(net)
[(), (0, 1, 2)]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np

from ...errors import InvalidInput
from ...exact.linalg import exact_rank
from ...exact.matrix import QMatrix
from ...network import Network
from .estimators import hermite_coefficient

__all__ = ["SignChoice", "resolve_signs", "equivalent_flips", "flip_units"]

MAX_ENUMERATED = 16  # flips enumerated explicitly up to this many units (2^16 subsets, vectorized)


@dataclass
class SignChoice:
    """The chosen signs (k,), a per-unit margin, the float survivors (sign vectors) and their distances."""

    signs: np.ndarray
    margin: np.ndarray
    survivors: list[np.ndarray]
    distances: list[float]


def _predicted(U, alpha, beta, s):
    """f_0 and f_1 of the network with unit i flipped where s_i = -1 (U rows unit, alpha/beta as estimated)."""
    sb = s * beta
    f1 = (alpha * hermite_coefficient(1, sb) * s) @ U
    f0 = float(np.sum(alpha * hermite_coefficient(0, sb)))
    return f0, f1


def resolve_signs(U: np.ndarray, alpha: np.ndarray, beta: np.ndarray, f0: float | None, f1: np.ndarray,
                  noise: float, z: float = 4.0) -> SignChoice:
    """Choose the orientation of each unit (rows ``U`` k x d, unit norm) from estimated f_0 and f_1 (f_1 alone when
    ``f0`` is None: an output bias makes f_0 a free constant).

    Full rank (k <= d, independent rows): the coefficients c of f_1 on the rows are unique, and
    ``c_i = alpha_i Phi(beta_i)`` (kept) or ``-alpha_i Phi(-beta_i)`` (flipped): they differ by
    alpha_i, the margin. Otherwise every choice is scored by its f_0, f_1 residual. Survivors: the
    flips S of the chosen network whose affine change ``sum_S alpha_i (u_i, beta_i)`` has norm
    below ``z * noise * sqrt(d + 1)`` (``noise``: standard error of an entry of f_1); they compute
    nearly the same function. Not certified: see :func:`equivalent_flips` for the exact statement.

    >>> U = np.eye(2); alpha = np.array([1.0, -2.0]); beta = np.array([0.5, -1.0])
    >>> f0, f1 = _predicted(U, alpha, beta, np.array([1.0, -1.0]))
    >>> resolve_signs(U, alpha, beta, f0, f1, 1e-3).signs.tolist()
    [1.0, -1.0]
    """
    k, d = U.shape
    if k <= d and np.linalg.matrix_rank(U) == k:
        c = np.linalg.lstsq(U.T, f1, rcond=None)[0]
        keep = alpha * hermite_coefficient(1, beta)
        flip = -alpha * hermite_coefficient(1, -beta)
        signs = np.where(np.abs(c - keep) <= np.abs(c - flip), 1.0, -1.0)
        margin = np.abs(np.abs(c - flip) - np.abs(c - keep)) / (np.abs(alpha) + 1e-300)
    else:
        if k > MAX_ENUMERATED:
            raise InvalidInput(f"sign enumeration over 2^{k} choices is too large (k <= {MAX_ENUMERATED})")
        S = 1.0 - 2.0 * ((np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1)
        scores = np.empty(len(S))
        for j, s in enumerate(S):
            p0, p1 = _predicted(U, alpha, beta, s)
            scores[j] = float(np.sum((p1 - f1) ** 2) + (0.0 if f0 is None else (p0 - f0) ** 2))
        best = int(np.argmin(scores))
        signs = S[best]
        margin = np.full(k, np.nan)
    return SignChoice(signs, margin, *_survivors(U * signs[:, None], alpha, beta * signs, noise, z))


def _survivors(U, alpha, beta, noise, z):
    k, d = U.shape
    tol = z * noise * np.sqrt(d + 1)
    rows = alpha[:, None] * np.concatenate([U, beta[:, None]], axis=1)  # k x (d + 1)
    if k > MAX_ENUMERATED:
        return [np.ones(k)], [0.0]
    masks = ((np.arange(2**k)[:, None] >> np.arange(k)[None, :]) & 1).astype(np.float64)
    dist = np.linalg.norm(masks @ rows, axis=1)
    keep = np.flatnonzero(dist <= tol)
    keep = keep[np.argsort(dist[keep], kind="stable")]
    return [1.0 - 2.0 * masks[j] for j in keep], [float(dist[j]) for j in keep]


def _unit_rows(network: Network) -> list[list[Fraction]]:
    if network.m != 1:
        raise InvalidInput(f"sign flips are stated for one output (the model a^T relu(W^T x + b)); m = {network.m}")
    a = network.U.to_fractions()[0]
    b = network.b_fractions()
    return [[a[i] * x for x in row] + [a[i] * b[i]] for i, row in enumerate(network.V.to_fractions())]


def equivalent_flips(network: Network, max_units: int = 20) -> list[tuple[int, ...]]:
    """Every set S of live units whose flip keeps the function of a one-output network, exactly.

    S qualifies iff ``sum_{i in S} a_i (w_i, b_i) = 0`` over Q. Units with a_i = 0 or w_i = 0 are
    left out (flipping a dead unit trivially keeps the function; a constant unit cannot be
    flipped into itself). If the live rows a_i (w_i, b_i) are independent (exact rank), only the
    empty set qualifies, with no enumeration; otherwise subsets are enumerated (at most
    ``max_units`` live units). Sorted by size, then lexicographically.
    """
    rows = _unit_rows(network)
    V = network.V.to_fractions()
    live = [i for i, r in enumerate(rows) if any(x != 0 for x in r) and any(x != 0 for x in V[i])]
    if not live:
        return [()]
    M = QMatrix.from_fractions([x for i in live for x in rows[i]], len(live), len(rows[0]))
    if exact_rank(M.num) == len(live):
        return [()]
    if len(live) > max_units:
        raise InvalidInput(f"{len(live)} dependent live units: enumerating 2^{len(live)} flips is too large "
                           f"(max_units = {max_units})")
    out: list[tuple[int, ...]] = [()]
    for size in range(1, len(live) + 1):
        for S in combinations(live, size):
            if all(sum((rows[i][j] for i in S), Fraction(0)) == 0 for j in range(len(rows[0]))):
                out.append(S)
    return out


def flip_units(network: Network, S) -> Network:
    """The network with (w_i, b_i) -> (-w_i, -b_i) for i in ``S`` (output weights unchanged).

    >>> net = Network.from_rows([[1, 1]], [[1, 0], [0, 1]], b=[1, -1])
    >>> flip_units(net, [1]).b_fractions()
    [Fraction(1, 1), Fraction(1, 1)]
    """
    S = set(int(i) for i in S)
    if any(i < 0 or i >= network.k for i in S):
        raise InvalidInput(f"flip indices must lie in 0..{network.k - 1}, got {sorted(S)}")
    V = [[-x for x in row] if i in S else row for i, row in enumerate(network.V.to_fractions())]
    b = [-x if i in S else x for i, x in enumerate(network.b_fractions())]
    return Network.from_rows(network.U.to_fractions(), V, network.activation, b=b)
