"""Blind Las Vegas search for the units' inactive sets: no initializer needed.

A random (k-1)-subset Z of samples is inactive for a given unit with probability about
2^-(k-1) on Gaussian data; if moreover the other units restricted to Z have rank k-1 (measured:
in 40-50% of such subsets for k = 2..4, exactrelu.theorems.uniqueness_lemma), the vector of the
row span of the labels that vanishes on Z is that unit's row of f(V X), which is non-negative with
about n/2 zeros. Each try is screened
in floating point (an SVD of a (k-1) x k matrix and one pass over n entries); promising
candidates become a float estimate of the unit's weights (least squares on its support) that
the exact step confirms or refuses. Expected tries: about 2^(k-1) H_k, so this proposer is
meant for k up to about 12 (measured tries are within a small factor of that estimate); larger
k needs the gradient or tensor proposers.

>>> from exactrelu.instances import planted
>>> inst = planted(d=4, k=2, m=2, n=200, seed=3)
>>> prop = SearchProposer(2, random_state=0).fit(inst.float_inputs(), inst.float_labels())
>>> prop.V_.shape, prop.n_found_
((2, 4), 2)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidInput, ProposalFailed
from ..network import RELU, Activation
from ..progress import rate_eta
from ._base import Proposer
from .floats import check_activation, row_norms, with_offset
from ..validation import as_generator, check_flag, check_integer, check_number, normalize_rows

# normalize_rows lives in propose.floats (the one float-utilities module) and is re-exported here for old imports
__all__ = ["SearchProposer", "propose_search", "search_supports", "weights_on_supports", "SearchResult", "expected_tries",
           "normalize_rows"]


def expected_tries(k: int) -> float:
    """About 2^(k-1) H_k random subsets are needed to meet every unit once (coupon collector)."""
    return 2.0 ** (k - 1) * sum(1.0 / i for i in range(1, k + 1))


class SearchProposer(Proposer):
    """Propose V by random search over (k-1)-subsets of samples, screened in floating point.

    Parameters
    ----------
    k : number of hidden units.
    activation : the activation (ReLU or rectified power), used to turn supports into weights.
    random_state : seed or ``numpy.random.Generator``.
    max_tries : give up after this many subsets (default: 40 x the expected number, at least 2000).
    tol : relative tolerance of the float screening (it only proposes; the exact step decides).
    exclude : boolean masks (n,) of units already known; the search looks for the others.
    progress : optional callable receiving one-line progress messages.
    offset : the labels may carry an output bias c: the search runs in the span of the labels and the
        constant vector (k + 1 dimensions, subsets of k samples; :func:`~exactrelu.propose.floats.with_offset`).

    Attributes
    ----------
    V_ : (k, d) array of proposed weights (one row per distinct unit found).
    supports_ : list of boolean masks (n,), the float supports found.
    n_tries_ : subsets tried.  n_found_ : distinct units found.
    """

    def __init__(self, k: int, *, activation: Activation | str = "relu", random_state=None, max_tries: int | None = None,
                 tol: float = 1e-7, exclude=None, progress=None, offset: bool = False):
        self.k = k
        self.activation = activation
        self.random_state = random_state
        self.max_tries = max_tries
        self.tol = tol
        self.exclude = exclude
        self.progress = progress
        self.offset = offset

    def fit(self, X, y) -> "SearchProposer":
        """Fit to float inputs ``X`` (n x d) and labels ``y`` (n x m, or n for one output); returns self."""
        self.activation_ = check_activation(self.activation)
        max_tries = check_integer(self.max_tries, "max_tries", minimum=1, none_ok=True)
        check_number(self.tol, "tol", minimum=0, strict=True)
        if self.progress is not None and not callable(self.progress):
            raise InvalidInput(f"progress must be None or a callable, got {self.progress!r}")
        k, X, Y = self._check_fit_data(X, y)
        check_flag(self.offset, "offset")
        dim = k + self.offset
        if self.offset:
            Y = with_offset(Y)
        n = X.shape[0]
        exclude = [np.asarray(mask, dtype=bool) for mask in (self.exclude if self.exclude is not None else [])]
        if any(mask.shape != (n,) for mask in exclude):
            raise InvalidInput(f"exclude must be a list of boolean masks of length n = {n}")
        rng = as_generator(self.random_state, "random_state")
        max_tries = max_tries or max(2000, int(40 * expected_tries(dim)))
        found = search_supports(Y, k, rng, max_tries, self.tol, exclude, self.progress, dim=dim)
        self.n_tries_ = found.tries
        self.supports_ = found.supports
        self.n_found_ = len(found.supports)
        if not found.supports:
            raise ProposalFailed(
                f"search found no unit in {found.tries} tries: no vector of the labels' row span vanishing on a random "
                f"{dim - 1}-subset of samples was non-negative; the labels may be noisy or rounded, or not from {k} "
                "units", evidence={"tries": found.tries})
        self.V_ = weights_on_supports(X, found, self.activation_.degree, rng)
        return self


# -- the algorithm: module-level functions that return plain values (STYLE.md 15) -------------

@dataclass(frozen=True)
class SearchResult:
    """The units :func:`search_supports` found: their float supports (boolean masks, n), their
    activation vectors in the row-normalized label span, the label row norms, and the subsets tried."""

    supports: list
    activations: list
    row_norms: np.ndarray
    tries: int


def search_supports(Y: np.ndarray, k: int, rng: np.random.Generator, max_tries: int, tol: float = 1e-7,
                    exclude: list | None = None, progress=None, dim: int | None = None) -> SearchResult:
    """Random (dim-1)-subsets of samples, screened in float, until k units (with ``exclude``) are found or
    ``max_tries`` subsets were tried; the result may hold fewer units than asked (none, even).

    ``dim`` is the dimension of the label span searched (default k; k + 1 for labels with a constant column
    standing for an output bias, which is in the span but is no unit: it never vanishes).
    Raises ProposalFailed when the labels have numerical rank below dim.

    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 3)); Y = np.maximum(X @ np.array([[1.0, 0, 0], [0, 1.0, 0]]).T, 0)
    >>> len(search_supports(Y, 2, rng, 2000).supports)
    2
    """
    # Positive rescaling of samples keeps every sign pattern: normalize rows for conditioning.
    Yn = normalize_rows(Y)
    ynorm = row_norms(Y)
    Q, s, _ = np.linalg.svd(Yn, full_matrices=False)
    dim = k if dim is None else dim
    if s.size < dim or s[dim - 1] <= s[0] * 1e-10:
        raise ProposalFailed(f"the labels have numerical rank below {dim}; the row-span search needs rank {dim}",
                             evidence={"singular_values": s[: dim + 1].tolist()})
    Q = Q[:, :dim]
    n = Y.shape[0]
    found: list[np.ndarray] = list(exclude or [])
    n_excluded = len(found)
    ys: list[np.ndarray] = []
    tries, t0 = 0, time.monotonic()
    while len(found) < k and tries < max_tries:
        tries += 1
        if progress is not None and tries % 500 == 0:
            pace = rate_eta(tries, expected_tries(dim), time.monotonic() - t0)
            progress(f"search: {tries} subsets tried (expect ~{expected_tries(dim):.3g}; {pace}), "
                     f"{len(found) - n_excluded} new units of {k - n_excluded} found")
        y = _candidate(Q, n, dim, rng, tol)
        if y is None:
            continue
        mask = y > tol
        if mask.sum() < 1 or any(np.array_equal(mask, f) for f in found):
            continue
        if any(np.all(f <= mask) for f in found):
            continue  # contains a known support: a positive combination of units, not a unit
        smaller = [i for i, f in enumerate(found) if i >= n_excluded and np.all(mask <= f)]
        for i in reversed(smaller):  # a known candidate was such a combination: drop it
            del found[i], ys[i - n_excluded]
        found.append(mask)
        ys.append(y)
    return SearchResult(found[n_excluded:], ys, ynorm, tries)


def _candidate(Q: np.ndarray, n: int, k: int, rng: np.random.Generator, tol: float) -> np.ndarray | None:
    """The vector of the label span Q vanishing on a random (k-1)-subset of samples, scaled to max 1 and
    oriented to a positive sum, when it has no clearly negative entry; else None."""
    if k == 1:
        y = Q[:, 0].copy()
    else:
        Z = rng.choice(n, size=k - 1, replace=False)
        _, sz, vt = np.linalg.svd(Q[Z, :])
        if sz[-1] < 1e-9 * sz[0]:
            return None  # Z is inactive for two units: the kernel mixes them
        y = Q @ vt[-1]
    scale = np.abs(y).max()
    if scale == 0:
        return None
    y /= scale
    if y.sum() < 0:
        y = -y
    if y.min() < -tol:
        return None  # entries of both signs: some sample of Z was active
    return y


def weights_on_supports(X: np.ndarray, found: SearchResult, degree: int, rng: np.random.Generator) -> np.ndarray:
    """A rough V (one row per unit found): least squares of each unit's activations on its support."""
    d = X.shape[1]
    V = np.zeros((len(found.activations), d))
    for i, (mask, y) in enumerate(zip(found.supports, found.activations)):
        idx = np.flatnonzero(mask)
        if len(idx) > 8 * d:  # a rough proposal: a few times d equations suffice
            idx = rng.choice(idx, size=8 * d, replace=False)
        # y lives in the span of the row-normalized labels: undo the per-sample scaling 1/|Y_j|
        t = y[idx] * found.row_norms[idx]
        target = t if degree == 1 else t ** (1.0 / degree)
        V[i], *_ = np.linalg.lstsq(X[idx], target, rcond=None)
    return V


def propose_search(inputs, labels, k: int, *, activation: Activation = RELU, random_state=None, **kw) -> np.ndarray:
    """Functional form of :class:`SearchProposer`: return the proposed V (rows = units found)."""
    return SearchProposer(k, activation=activation, random_state=random_state, **kw).fit(inputs, labels).V_
