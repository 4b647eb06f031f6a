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

import numpy as np
from scipy.optimize import minimize

from ..errors import InvalidInput
from ..network import RELU, Activation
from ._base import Proposer
from .floats import (as_generator, check_activation, check_int, check_number, label_basis, normalised_rows,
                      screen_unit)

__all__ = ["GradientProposer", "propose_gradient"]


class _Stop(Exception):
    pass


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

    Attributes
    ----------
    V_ : (k, d) proposal. U_ : (m, k) the least-squares output weights for V_.
    screened_ : (k,) bool, units that passed the float screen.
    loss_ : relative squared residual of (U_, V_). n_iter_ : L-BFGS iterations in total.
    n_restarts_ : starts used. stopped_early_ : True when every unit passed the screen.
    """

    def __init__(self, k: int, *, activation: Activation | str = "relu", random_state=None, n_restarts: int = 8,
                 max_iter: int = 400, screen_every: int = 5, patience: int = 60, extra: int = 3, ridge: float = 1e-12,
                 init=None):
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

    # -- the objective ---------------------------------------------------------------------

    def _inner_U(self, A: np.ndarray, Y: np.ndarray) -> np.ndarray:
        G = A.T @ A
        lam = self.ridge * max(np.trace(G) / G.shape[0], 1e-300)
        try:
            return np.linalg.solve(G + lam * np.eye(G.shape[0]), A.T @ Y).T
        except np.linalg.LinAlgError:  # pragma: no cover - the ridge keeps G + lam I regular
            return np.linalg.lstsq(A, Y, rcond=None)[0].T

    def _loss_grad(self, theta: np.ndarray, X: np.ndarray, Y: np.ndarray, scale: float, fixed: np.ndarray):
        d = X.shape[1]
        kf = fixed.shape[0]
        V = np.vstack([fixed, theta.reshape(-1, d)]) if kf else theta.reshape(-1, d)
        H = X @ V.T
        c = self.activation_.degree
        P = np.maximum(H, 0.0)
        A = P if c == 1 else P**c
        U = self._inner_U(A, Y)
        R = A @ U.T - Y
        loss = float(np.sum(R * R)) * scale
        dA = (R @ U) * (2.0 * scale)
        dH = dA * (H > 0) if c == 1 else dA * (c * P ** (c - 1))
        return loss, (dH[:, kf:].T @ X).ravel()

    # -- fitting ---------------------------------------------------------------------------

    def fit(self, X, y) -> "GradientProposer":
        """Fit to float inputs ``X`` (n x d) and labels ``y`` (n x m, or n for one output); returns self."""
        self.activation_ = check_activation(self.activation)
        for name in ("n_restarts", "max_iter", "screen_every", "patience"):
            check_int(name, getattr(self, name), 1)
        check_int("extra", self.extra, 0)
        check_number("ridge", self.ridge, strict=False)
        k, X, Y = self._check_fit_data(X, y)
        rng = as_generator(self.random_state)
        n, d = X.shape
        ynorm = float(np.sum(Y * Y))
        if ynorm == 0:
            raise InvalidInput("labels are all zero: there is nothing to fit")
        scale = 1.0 / ynorm
        Q = label_basis(Y, k)
        can_screen = Q.shape[1] == k
        Xn = normalised_rows(X)
        xscale = float(np.sqrt(np.mean(np.sum(X * X, axis=1)))) or 1.0

        pool_v: list[np.ndarray] = []  # screened unit directions, unit norm
        pool_y: list[np.ndarray] = []  # their normalised kernel vectors (for de-duplication)
        best = None  # (loss, V) of the best start
        self.n_iter_ = 0
        self.n_restarts_ = 0
        self.stopped_early_ = False

        def absorb(V: np.ndarray, done: set, dup: list) -> None:
            for i, v in enumerate(V):
                if i in done:
                    continue
                s = screen_unit(Q, Xn, v, k, self.extra, X=X, degree=self.activation_.degree)
                if not s.ok:
                    continue
                y = s.activations / np.linalg.norm(s.activations)
                if any(float(y @ z) > 1 - 1e-6 for z in pool_y):
                    dup.append(i)  # this row found a unit that another row found first
                    continue
                done.add(i)
                pool_y.append(y)
                pool_v.append(s.v)
            if len(pool_v) >= k:
                raise _Stop

        start = None
        if self.init is not None:
            start = np.asarray(self.init, dtype=np.float64)
            if start.shape != (k, d) or not np.all(np.isfinite(start)):
                raise InvalidInput(f"init must be a finite {k} x {d} array, got shape {start.shape}")
            if can_screen:
                done: set = set()
                try:
                    absorb(start, done, [])
                except _Stop:
                    pass
                start = np.delete(start, sorted(done), axis=0)
        for _ in range(self.n_restarts):
            if len(pool_v) >= k:
                self.stopped_early_ = True
                break
            self.n_restarts_ += 1
            fixed = np.array(pool_v).reshape(-1, d)  # screened units stay fixed (deflation)
            kf = k - fixed.shape[0]
            if start is not None and start.shape[0] == kf:
                V0 = start / np.linalg.norm(start, axis=1, keepdims=True).clip(1e-300) * (np.sqrt(d) / xscale)
            else:
                V0 = rng.standard_normal((kf, d))
                V0 /= np.linalg.norm(V0, axis=1, keepdims=True) * xscale / np.sqrt(d)
            start = None
            state = {"it": 0, "since": 0, "pool": len(pool_v), "done": set(), "dup": []}

            def callback(intermediate_result):
                state["it"] += 1
                if not can_screen or state["it"] % self.screen_every:
                    return
                try:
                    absorb(intermediate_result.x.reshape(kf, d), state["done"], state["dup"])
                except _Stop:
                    raise StopIteration from None
                if state["dup"]:
                    raise StopIteration  # two rows on one unit: keep the units found, re-draw the rest
                if len(pool_v) > state["pool"]:
                    state["pool"], state["since"] = len(pool_v), 0
                else:
                    state["since"] += self.screen_every
                    if state["since"] >= self.patience:
                        raise StopIteration  # stalled: restart from fresh weights for the missing units

            res = minimize(self._loss_grad, V0.ravel(), args=(X, Y, scale, fixed), jac=True, method="L-BFGS-B",
                           callback=callback, options={"maxiter": self.max_iter, "gtol": 1e-14, "ftol": 1e-16})
            self.n_iter_ += state["it"]
            Vfull = np.vstack([fixed, res.x.reshape(kf, d)])
            if len(pool_v) < k and can_screen:
                try:
                    absorb(Vfull[fixed.shape[0]:], state["done"], state["dup"])
                except _Stop:
                    pass
            loss = float(self._loss_grad(res.x, X, Y, scale, fixed)[0])
            if best is None or loss < best[0]:
                best = (loss, Vfull)
            if len(pool_v) >= k:
                self.stopped_early_ = True
                break
            if not can_screen and loss < 1e-10:
                break

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
        self.V_ = V
        P = np.maximum(X @ V.T, 0.0) ** self.activation_.degree
        self.U_ = self._inner_U(P, Y)
        R = P @ self.U_.T - Y
        self.loss_ = float(np.sum(R * R)) * scale
        self.screened_ = screened
        return self


def propose_gradient(inputs, labels, k: int, *, activation: Activation = RELU, random_state=None, **kwargs) -> np.ndarray:
    """Functional form of :class:`GradientProposer`: the proposed V (k x d).

    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> X = rng.standard_normal((500, 4)); V = rng.standard_normal((2, 4))
    >>> propose_gradient(X, np.maximum(X @ V.T, 0) @ [[1.0, 2.0], [-1.0, 1.0]], 2, random_state=0).shape
    (2, 4)
    """
    return GradientProposer(k, activation=activation, random_state=random_state, **kwargs).fit(inputs, labels).V_
