"""Gradient proposer: full-batch L-BFGS with analytic gradients, stopped as soon as it is useful.

The loss is the variable-projection least squares of the network,
``L(V) = min_U |f(X V^T) U^T - Y|_F^2 / |Y|_F^2``: for a given V the output weights U solve a
k x k linear system, and by the envelope theorem the gradient with respect to V is the partial
gradient at that U. Eliminating U removes the badly scaled half of the problem and, in our
measurements, most bad local minima (benchmarks/bench_proposers.py).

Training does not aim at a small loss. Every ``screen_every`` iterations each unit is put
through the float screen of :func:`exactrelu.propose.floats.screen_unit` (the test the exact
step performs, in float); units that pass are kept across restarts, and training stops as soon
as all k have passed. A restart starts from a fresh random V; after ``n_restarts`` the best
proposal so far is returned and ``screened_`` says which units passed.

>>> import numpy as np
>>> from exactrelu.propose.floats import angular_errors
>>> rng = np.random.default_rng(1)
>>> X = rng.standard_normal((2000, 10)); V = rng.standard_normal((3, 10)); U = rng.standard_normal((3, 3))
>>> Y = np.maximum(X @ V.T, 0) @ U.T
>>> est = GradientProposer(3, random_state=0).fit(X, Y)
>>> bool(est.screened_.all()), est.V_.shape, bool(angular_errors(est.V_, V).max() < 0.3)
(True, (3, 10), True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from ..errors import InvalidInput
from ..network import RELU, Activation
from ._base import Proposer
from .selfcheck import error_against_constant, self_check
from .floats import Screen, check_activation, label_basis, screen_units, with_offset
from .projection import FixedUnits, inner_output_weights, loss_and_gradient
from ..validation import as_generator, check_flag, check_integer, check_number, normalize_rows

__all__ = ["GradientProposer", "propose_gradient", "gradient_proposal", "GradientSettings", "GradientProposal",
           "loss_and_gradient", "inner_output_weights", "FixedUnits", "UnitPool", "offset_pool"]


class GradientProposer(Proposer):
    """Propose V (k x d) by variable-projection L-BFGS with early stopping by the float screen.

    Parameters
    ----------
    k : number of hidden units.
    activation : RELU (default) or ``Activation.power(c)``.
    random_state : None, int or ``numpy.random.Generator`` (initial weights of each restart).
    n_restarts : number of random starts at most. Units screened in one start are kept, fixed,
        in the next (deflation): a restart only re-draws the missing units.
    max_iter : L-BFGS iterations per start.
    screen_every : iterations between two float screens.
    patience : a start that screens no new unit for this many iterations is abandoned.
    extra : samples beyond k - 1 that the screen asks to be inactive.
    ridge : Tikhonov term of the inner least squares for U (relative to trace(A^T A) / k).
    init : optional (k, d) starting weights (e.g. a tensor proposal): its rows that pass the
        screen are kept, the others start the first run.
    offset : the labels may carry an output bias c: the inner least squares gets a constant column
        (``Y ~ f(X V^T) U^T + 1 c^T``) and the screen works in the span of the labels and the constant vector.

    Attributes
    ----------
    V_ : (k, d) proposal. U_ : (m, k) the least-squares output weights for V_.
    screened_ : (k,) bool, units that passed the float screen.
    loss_ : relative squared residual of (U_, V_). n_iter_ : L-BFGS iterations in total.
    training_error_ : ``||prediction - labels|| / ||labels - mean||`` on the samples; at 1 or above a
        :class:`~exactrelu.errors.NoBetterThanConstant` warning (:mod:`exactrelu.propose.selfcheck`).
    n_restarts_ : starts used. stopped_early_ : True when every unit passed the screen.
    """

    def __init__(self, k: int, *, activation: Activation | str = "relu", random_state=None, n_restarts: int = 8,
                 max_iter: int = 400, screen_every: int = 5, patience: int = 60, extra: int = 3, ridge: float = 1e-12,
                 init=None, progress=None, offset: bool = False):
        self.k = k
        self.activation = activation
        self.random_state = random_state
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.screen_every = screen_every
        self.patience = patience
        self.extra = extra
        self.ridge = ridge
        self.init = init
        self.progress = progress
        self.offset = offset

    def fit(self, X, y) -> "GradientProposer":
        """Fit to float inputs ``X`` (n x d) and labels ``y`` (n x m, or n for one output); returns self."""
        self.activation_ = check_activation(self.activation)
        for name in ("n_restarts", "max_iter", "screen_every", "patience"):
            check_integer(getattr(self, name), name, minimum=1)
        check_integer(self.extra, "extra", minimum=0)
        check_number(self.ridge, "ridge", minimum=0)
        k, X, Y = self._check_fit_data(X, y)
        check_flag(self.offset, "offset")
        settings = GradientSettings(self.activation_.degree, self.n_restarts, self.max_iter, self.screen_every,
                                    self.patience, self.extra, self.ridge, self.offset)
        rng = as_generator(self.random_state, "random_state")
        out = gradient_proposal(X, Y, k, rng, settings, self.init, self.progress)
        self.V_, self.U_, self.screened_, self.loss_ = out.V, out.U, out.screened, out.loss
        self.n_iter_, self.n_restarts_, self.stopped_early_ = out.n_iter, out.n_restarts, out.stopped_early
        pred = np.maximum(X @ self.V_.T, 0.0) ** self.activation_.degree @ self.U_.T
        if self.offset:  # the output bias fitted beside U by the inner least squares: the mean residual
            pred = pred + (Y - pred).mean(axis=0)
        self.training_error_ = self_check("GradientProposer", error_against_constant(pred, Y),
                                          "another random_state, more n_restarts or max_iter")
        return self


# -- the algorithm: module-level functions that return plain values (STYLE.md 15) -------------

@dataclass(frozen=True)
class GradientSettings:
    """The knobs of :func:`gradient_proposal` (those of :class:`GradientProposer`, validated)."""

    degree: int = 1
    n_restarts: int = 8
    max_iter: int = 400
    screen_every: int = 5
    patience: int = 60
    extra: int = 3
    ridge: float = 1e-12
    offset: bool = False  # an output bias c: a constant column beside the activations


@dataclass(frozen=True)
class GradientProposal:
    """What :func:`gradient_proposal` found: V (k x d), its least-squares U, the screened units, the loss,
    L-BFGS iterations, starts used, and whether every unit passed the screen."""

    V: np.ndarray
    U: np.ndarray
    screened: np.ndarray
    loss: float
    n_iter: int
    n_restarts: int
    stopped_early: bool


class _Stop(Exception):
    pass


class UnitPool:
    """The units that passed the float screen so far: directions ``v`` and kernel vectors ``y`` (unit norm).

    ``Xn`` (the normalized rows of X) may be handed over when the caller has them already. ``dim`` is the
    dimension of the span ``Q`` should have (k, or k + 1 with a constant column for an output bias).
    """

    def __init__(self, Q: np.ndarray, X: np.ndarray, k: int, extra: int, degree: int, Xn: np.ndarray | None = None,
                 dim: int | None = None):
        self.Q, self.X, self.k, self.extra, self.degree = Q, X, k, extra, degree
        self.dim = k if dim is None else dim
        self.Xn = normalize_rows(X) if Xn is None else Xn
        self.v: list[np.ndarray] = []
        self.y: list[np.ndarray] = []

    @property
    def full(self) -> bool:
        return len(self.v) >= self.k

    def absorb(self, V: np.ndarray, done: set, dup: list) -> None:
        """Screen the rows of V not in ``done`` (at once); raise _Stop as soon as the pool holds k units."""
        rows = [i for i in range(len(V)) if i not in done]
        if rows:
            screens = screen_units(self.Q, self.Xn, V[rows], self.dim, self.extra, X=self.X, degree=self.degree)
            for i, s in zip(rows, screens):
                self.add(s, i, done, dup)
        if self.full:
            raise _Stop

    def add(self, s: Screen, i: int, done: set, dup: list) -> None:
        """Take row ``i``'s screen: a passing unit joins (``done``), one found before goes to ``dup``."""
        if not s.ok:
            return
        y = s.activations / np.linalg.norm(s.activations)
        if any(float(y @ z) > 1 - 1e-6 for z in self.y):
            dup.append(i)  # this row found a unit that another row found first
            return
        done.add(i)
        self.y.append(y)
        self.v.append(s.v)

    def absorb_quietly(self, V: np.ndarray, done: set, dup: list) -> None:
        """:meth:`absorb`, ignoring the stop."""
        try:
            self.absorb(V, done, dup)
        except _Stop:
            pass


class _Screening:
    """The L-BFGS callback of one start: screens every ``screen_every`` iterations and stops the start when
    the pool is full, when two rows found one unit, or when no new unit passed for ``patience`` iterations."""

    def __init__(self, pool: UnitPool, kf: int, d: int, settings: GradientSettings, can_screen: bool, progress=None):
        self.pool, self.kf, self.d, self.settings, self.can_screen = pool, kf, d, settings, can_screen
        self.it, self.since, self.size, self.done, self.dup = 0, 0, len(pool.v), set(), []
        self.progress, self.last = progress, time.monotonic()

    def __call__(self, intermediate_result) -> None:
        self.it += 1
        if self.progress is not None and time.monotonic() - self.last >= 0.2:  # a time limit raises here
            self.last = time.monotonic()
            self.progress(f"gradient: step {self.it}, {len(self.pool.v)} of {self.pool.k} units screened")
        every = self.settings.screen_every
        if not self.can_screen or self.it % every:
            return
        try:
            self.pool.absorb(intermediate_result.x.reshape(self.kf, self.d), self.done, self.dup)
        except _Stop:
            raise StopIteration from None
        if self.dup:
            raise StopIteration  # two rows on one unit: keep the units found, re-draw the rest
        if len(self.pool.v) > self.size:
            self.size, self.since = len(self.pool.v), 0
        else:
            self.since += every
            if self.since >= self.settings.patience:
                raise StopIteration  # stalled: restart from fresh weights for the missing units


def gradient_proposal(X: np.ndarray, Y: np.ndarray, k: int, rng: np.random.Generator, settings: GradientSettings,
                      init=None, progress=None, pool: UnitPool | None = None) -> GradientProposal:
    """Variable-projection L-BFGS from random starts, stopped by the float screen (module doc).

    ``X`` (n x d) and ``Y`` (n x m) are checked float arrays; ``init`` optional (k, d) starting weights, or
    (k - units in ``pool``, d) when a ``pool`` of units the caller screened already (on these X, Y) is given;
    ``progress`` gets a message every 0.2 s of L-BFGS steps (a time limit given as a progress callback,
    :func:`exactrelu.deadline.with_deadline`, leaves the optimizer there).

    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((400, 3)); Y = np.maximum(X @ np.array([[1.0, 0, 0], [0, 1.0, 0]]).T, 0)
    >>> out = gradient_proposal(X, Y, 2, np.random.default_rng(0), GradientSettings())
    >>> out.V.shape, bool(out.screened.all())
    ((2, 3), True)
    """
    n, d = X.shape
    ynorm = float(np.sum(Y * Y))
    if ynorm == 0:
        raise InvalidInput("labels are all zero: there is nothing to fit")
    scale = 1.0 / ynorm
    if pool is None:
        pool = offset_pool(X, Y, k, settings)
    can_screen = pool.Q.shape[1] == pool.dim
    xscale = float(np.sqrt(np.mean(np.sum(X * X, axis=1)))) or 1.0
    start = _screened_init(init, pool, k - len(pool.v), d, can_screen)
    best = None  # (loss, V) of the best start
    n_iter = n_restarts = 0
    stopped_early = False
    for _ in range(settings.n_restarts):
        if pool.full:
            stopped_early = True
            break
        n_restarts += 1
        fixed = np.array(pool.v).reshape(-1, d)  # screened units stay fixed (deflation)
        kf = k - fixed.shape[0]
        V0 = _start_weights(start, kf, d, xscale, rng)
        start = None
        screening = _Screening(pool, kf, d, settings, can_screen, progress)
        cache = FixedUnits(X, Y, fixed, settings.degree, settings.offset)  # the fixed rows' products, once per start
        res = minimize(loss_and_gradient, V0.ravel(), args=(X, Y, scale, fixed, settings.degree, settings.ridge, cache),
                       jac=True, method="L-BFGS-B", callback=screening,
                       options={"maxiter": settings.max_iter, "gtol": 1e-14, "ftol": 1e-16})
        n_iter += screening.it
        Vfull = np.vstack([fixed, res.x.reshape(kf, d)])
        if not pool.full and can_screen:
            pool.absorb_quietly(Vfull[fixed.shape[0]:], screening.done, screening.dup)
        loss = float(res.fun)  # the loss at res.x (L-BFGS-B returns the pair it last evaluated)
        if best is None or loss < best[0]:
            best = (loss, Vfull)
        if pool.full:
            stopped_early = True
            break
        if not can_screen and loss < 1e-10:
            break
        if progress is not None:  # one line per start (a time limit raises here too)
            progress(f"gradient: start {n_restarts} of {settings.n_restarts}, {len(pool.v)} of {k} units screened")
    V, screened = _assemble(pool.v, best, k, d)
    U, loss = _final_fit(X, Y, V, settings, scale)
    return GradientProposal(V, U, screened, loss, n_iter, n_restarts, stopped_early)


def offset_pool(X: np.ndarray, Y: np.ndarray, k: int, settings: GradientSettings, Xn=None) -> UnitPool:
    """The empty pool of screened units: the label span of dimension k, or with ``settings.offset`` that of the labels
    and the constant vector (k + 1)."""
    dim = k + settings.offset
    Q = label_basis(with_offset(Y) if settings.offset else Y, dim)
    return UnitPool(Q, X, k, settings.extra, settings.degree, Xn, dim=dim)


def _final_fit(X: np.ndarray, Y: np.ndarray, V: np.ndarray, settings: GradientSettings, scale: float):
    """(U, relative loss) of the proposal V (U without the output bias's column)."""
    P = np.maximum(X @ V.T, 0.0) ** settings.degree
    if settings.offset:
        P = np.hstack([P, np.ones((P.shape[0], 1))])
    U = inner_output_weights(P, Y, settings.ridge)
    R = P @ U.T - Y
    return (U[:, :-1] if settings.offset else U), float(np.sum(R * R)) * scale


def _screened_init(init, pool: UnitPool, k: int, d: int, can_screen: bool) -> np.ndarray | None:
    """The rows of ``init`` (``k`` of them) that did not pass the screen (those that did join the pool), or None."""
    if init is None:
        return None
    start = np.asarray(init, dtype=np.float64)
    if start.shape != (k, d) or not np.all(np.isfinite(start)):
        raise InvalidInput(f"init must be a finite {k} x {d} array, got shape {start.shape}")
    if can_screen:
        done: set = set()
        pool.absorb_quietly(start, done, [])
        start = np.delete(start, sorted(done), axis=0)
    return start


def _start_weights(start: np.ndarray | None, kf: int, d: int, xscale: float, rng: np.random.Generator) -> np.ndarray:
    """kf starting rows: the remaining ``start`` rows when they are as many, else random, scaled to the data."""
    if start is not None and start.shape[0] == kf:
        return start / np.linalg.norm(start, axis=1, keepdims=True).clip(1e-300) * (np.sqrt(d) / xscale)
    V0 = rng.standard_normal((kf, d))
    V0 /= np.linalg.norm(V0, axis=1, keepdims=True) * xscale / np.sqrt(d)
    return V0


def _assemble(pool_v: list, best, k: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """(V, screened): the pool's units first, then the best start's units that are not already there."""
    V = np.empty((k, d))
    screened = np.zeros(k, dtype=bool)
    for i, v in enumerate(pool_v[:k]):
        V[i] = v
        screened[i] = True
    j = len(pool_v[:k])
    if j < k:  # fill with the best start's units that are not already in the pool
        for v in best[1]:
            if j == k:
                break
            u = v / (np.linalg.norm(v) or 1.0)
            if any(float(u @ w) > 0.999 for w in V[:j]):
                continue
            V[j] = u
            j += 1
        for v in best[1][: k - j]:  # pragma: no cover - only when the best start has duplicate units
            V[j] = v / (np.linalg.norm(v) or 1.0)
            j += 1
    return V, screened


def propose_gradient(inputs, labels, k: int, *, activation: Activation = RELU, random_state=None, **kwargs) -> np.ndarray:
    """Functional form of :class:`GradientProposer`: the proposed V (k x d).

    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> X = rng.standard_normal((500, 4)); V = rng.standard_normal((2, 4))
    >>> propose_gradient(X, np.maximum(X @ V.T, 0) @ [[1.0, 2.0], [-1.0, 1.0]], 2, random_state=0).shape
    (2, 4)
    """
    return GradientProposer(k, activation=activation, random_state=random_state, **kwargs).fit(inputs, labels).V_
