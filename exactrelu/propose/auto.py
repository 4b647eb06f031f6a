"""``init="auto"``: choose the proposal by measurement, fall back to search on failure.

The choice (thresholds from benchmarks/bench_proposers.py, see docs/proposers.md):

1. Few units (``expected_tries(k) <= search_below``, i.e. k <= 4 by default): the blind search
   needs a handful of random subsets and no training; it is used directly.
2. Otherwise, when m >= k <= d, the order-2 moment tensor (one pass over the data, O(n d^2 k))
   is computed and each of its rows is put through the float screen. Rows that pass are kept.
3. The gradient proposer keeps the screened tensor rows fixed, starts the others from random
   rows (unscreened tensor rows were worse starts than random ones), and trains only until every
   unit passes the screen.
4. Any proposer that raises (rank, dimensions, non-Gaussian data breaking the tensor) is
   skipped; if nothing usable remains, the search proposer is run. The exact step of
   :func:`exactrelu.recover` then confirms every unit and searches for any it still misses.

>>> from exactrelu.instances import planted
>>> inst = planted(d=8, k=5, m=5, n=3000, seed=0)
>>> est = AutoProposer(5, random_state=0).fit(inst.float_inputs(), inst.float_labels())
>>> est.chosen_, int(est.screened_.sum())
('tensor', 5)
"""

from __future__ import annotations

import numpy as np

from ..errors import ExactReluError
from ..network import RELU, Activation
from ._base import Proposer
from .floats import check_activation, screen_units
from ..validation import as_generator, check_flag, check_number, normalize_rows
from .gradient import GradientProposal, GradientSettings, UnitPool, gradient_proposal, offset_pool
from .search import SearchProposer, expected_tries
from .tensor import TensorProposer

__all__ = ["AutoProposer", "propose_auto"]


class AutoProposer(Proposer):
    """Pick a proposer by measurement (see the module docstring); fall back to search.

    Parameters
    ----------
    k, activation, random_state : as for every proposer.
    search_below : use the blind search directly when it expects at most this many tries
        (``expected_tries(4) = 16.7``, ``expected_tries(5) = 36.5``).
    progress : optional callable receiving one-line progress messages (passed to the gradient and search
        proposers; a time limit made a progress callback is checked there).
    offset : the labels may carry an output bias c (passed to the search and gradient proposers; the screen
        works in the span of the labels and the constant vector).

    Attributes
    ----------
    V_ : (k, d) proposal (or fewer rows when only the search ran and found fewer units).
    chosen_ : ``"search"``, ``"tensor"``, ``"tensor+gradient"``, ``"gradient"`` or ``"search (fallback)"``.
    screened_ : (rows,) bool, rows that passed the float screen (all True for search rows).
    failures_ : list of (proposer, message) for the proposers that raised.
    """

    def __init__(self, k: int, *, activation: Activation | str = "relu", random_state=None, search_below: float = 20.0,
                 progress=None, offset: bool = False):
        self.k = k
        self.activation = activation
        self.random_state = random_state
        self.search_below = search_below
        self.progress = progress
        self.offset = offset

    def fit(self, X, y) -> "AutoProposer":
        """Fit to float inputs ``X`` (n x d) and labels ``y`` (n x m, or n for one output); returns self."""
        act = self.activation_ = check_activation(self.activation)
        check_number(self.search_below, "search_below", minimum=0)
        k, X, Y = self._check_fit_data(X, y)
        n, d = X.shape
        self.failures_ = []
        check_flag(self.offset, "offset")
        if expected_tries(k + self.offset) <= self.search_below:
            return self._search(X, Y, "search")
        init = pool = None
        if Y.shape[1] >= k and k <= d:
            try:
                centerd = Y - Y.mean(axis=0) if self.offset else Y  # an output bias drops out of the moments
                T = TensorProposer(k, activation=act, random_state=self.random_state, order=2).fit(X, centerd)
                pool, screens, ok, init = self._screen_tensor(T.V_, X, Y)
                if ok.all():
                    self.V_, self.screened_, self.chosen_ = init, ok, "tensor"
                    return self
                # unscreened tensor rows are poor starts (measured at (50,30,30,50000): 7.4 s from them,
                # 3.3 s from random rows); the screened ones stay fixed in the gradient run
                rng = as_generator(self.random_state, "random_state")
                init = np.where(ok[:, None], init, rng.standard_normal(init.shape))
                init = _hand_over(pool, screens, ok, init)
            except ExactReluError as exc:
                self.failures_.append(("tensor", str(exc)))
                init = pool = None
        try:
            G = self._gradient(X, Y, init, pool)
        except ExactReluError as exc:
            self.failures_.append(("gradient", str(exc)))
            return self._search(X, Y, "search (fallback)")
        self.V_, self.screened_ = G.V, G.screened
        self.chosen_ = "gradient" if init is None else "tensor+gradient"
        return self

    def _screen_tensor(self, V: np.ndarray, X: np.ndarray, Y: np.ndarray) -> tuple[UnitPool, list, np.ndarray,
                                                                                    np.ndarray]:
        """(empty pool, screens, ok, rows): the tensor rows screened at once; rows that pass are re-fitted to their
        kernel vectors (near exact), two rows on one unit count once."""
        k, act = self.k, self.activation_
        pool = offset_pool(X, Y, k, GradientSettings(act.degree, offset=self.offset), Xn=normalize_rows(X))
        screens = screen_units(pool.Q, pool.Xn, V, pool.dim, pool.extra, X=X, degree=act.degree)
        ok = np.array([sc.ok for sc in screens], dtype=bool)
        init = np.array([sc.v if sc.ok else v for sc, v in zip(screens, V)])
        for i in range(k):  # two rows on one unit: only the first counts
            if ok[i] and any(ok[j] and float(init[i] @ init[j]) > 1 - 1e-9 for j in range(i)):
                ok[i] = False
        return pool, screens, ok, init

    def _gradient(self, X, Y, init, pool) -> GradientProposal:
        """The gradient proposer with its default settings, from ``init`` and the ``pool`` of screened units."""
        settings = GradientSettings(self.activation_.degree, offset=self.offset)
        rng = as_generator(self.random_state, "random_state")
        return gradient_proposal(X, Y, self.k, rng, settings, init, self.progress, pool)

    def _search(self, X, Y, label) -> "AutoProposer":
        S = SearchProposer(self.k, activation=self.activation_, random_state=self.random_state,
                           progress=self.progress, offset=self.offset).fit(X, Y)
        self.V_, self.screened_, self.chosen_ = S.V_, np.ones(S.V_.shape[0], dtype=bool), label
        self.n_tries_ = S.n_tries_
        return self


def _hand_over(pool: UnitPool, screens: list, ok: np.ndarray, init: np.ndarray) -> np.ndarray:
    """The screened rows join the gradient's pool (as its own screen of them did before: no second screen);
    the rows left, in order, are its starting weights."""
    done: set = set()
    for i in np.flatnonzero(ok):
        pool.add(screens[i], int(i), done, [])
    return np.delete(init, sorted(done), axis=0)


def propose_auto(inputs, labels, k: int, *, activation: Activation = RELU, random_state=None, **kwargs) -> np.ndarray:
    """Functional form of :class:`AutoProposer`: the proposed V."""
    return AutoProposer(k, activation=activation, random_state=random_state, **kwargs).fit(inputs, labels).V_
