"""The exact simplex of the LP: phase 1 over the rationals (FLINT ``fmpq``), Bland's rule, on the Farkas system.

Used by :func:`exactrelu.exact.lp.feasible` when the float proposal does not verify (or with
``method="exact"``), and by :func:`exactrelu.exact.lp_highs.confirm_ray` on the support of a dual ray. It always
decides; its answer is checked exactly by the caller.
"""

from __future__ import annotations

import math
from typing import Any

import flint

from ..deadline import Deadline
from ..errors import ExactReluError
from .lp_system import LPSystem, primitive

__all__ = ["exact_simplex"]

def exact_simplex(S: LPSystem, deadline: Deadline | None = None) -> tuple[str, Any]:
    """Phase 1 of the simplex method, exact (``fmpq``), Bland's rule, on the Farkas system

    ``sum_i y_i (M_i, r_i) = (0, ..., 0, -1)``, ``y_i >= 0`` for inequality rows
    (an equation row i contributes two columns, ``+y_i`` and ``-y_i``), with one artificial
    variable per row (``n + 1`` rows). Phase 1 ends with artificial sum ``w``:

    * ``w == 0``: the basic solution is a Farkas vector: return ``("infeasible", y)``;
    * ``w > 0``: the final duals ``u`` satisfy ``u^T col_j <= 0`` for every column and
      ``u_t = w > 0`` on the last row, so ``x = u_x / u_t`` is a feasible point:
      return ``("feasible", (num, den))``.

    Bland's rule makes it terminate; both answers are verified exactly by the caller. ``deadline`` (a
    :class:`~exactrelu.deadline.Deadline`) is checked before every pivot: past it,
    :class:`~exactrelu.errors.TimeLimitExceeded`.

    >>> from exactrelu.exact.lp_system import build_system
    >>> exact_simplex(build_system(None, None, [[1], [-1]], [-1, 0], None))
    ('infeasible', [1, 1])
    >>> exact_simplex(build_system([[2]], [1], None, None, None))
    ('feasible', ([1], 2))
    """
    tab = _Tableau(S)
    pivots = 0
    while True:
        if deadline is not None:
            deadline.check(lambda: f"{pivots} pivots of the exact simplex ({S.m} constraints, {S.n} variables)")
        enter = next((j for j in range(tab.width) if tab.d[j] < 0), None)
        if enter is None:
            break
        tab.pivot(tab.leaving(enter), enter)
        pivots += 1
    return tab.answer()


class _Tableau:
    """The phase-1 tableau of :func:`exact_simplex`: ``n + 1`` rows, the reduced costs ``d`` and the basis."""

    def __init__(self, S: LPSystem):
        n, m = S.n, S.m
        M, r = S.M, S.r
        self.n, self.m = n, m
        # columns: (row index, sign); the last tableau row is negated so that its rhs is +1
        self.cols = cols = [(i, 1) for i in range(m)] + [(i, -1) for i in range(S.m_eq)]
        self.N = N = len(cols)
        zero, one = _ZERO, _ONE
        T: list[list[flint.fmpq]] = []
        for j in range(n):
            T.append([flint.fmpq(s * M[i][j]) for i, s in cols] + [one if t == j else zero for t in range(n + 1)]
                     + [zero])
        T.append([flint.fmpq(-s * r[i]) for i, s in cols] + [one if t == n else zero for t in range(n + 1)] + [one])
        self.T = T
        self.width = width = N + n + 1
        self.basis = [N + t for t in range(n + 1)]
        # reduced costs of phase 1 (cost 1 on artificials): d_j = c_j - sum_rows T[row][j]
        d = [(one if j >= N else zero) - sum((T[t][j] for t in range(n + 1)), zero) for j in range(width)]
        d.append(-sum((T[t][width] for t in range(n + 1)), zero))  # minus the objective value
        self.d = d

    def leaving(self, enter: int) -> int:
        """The row that leaves (minimum ratio, ties by the smallest basic index: Bland's rule)."""
        T, width, basis = self.T, self.width, self.basis
        best = None
        for t in range(self.n + 1):
            a = T[t][enter]
            if a > 0:
                ratio = T[t][width] / a
                if best is None or ratio < best[0] or (ratio == best[0] and basis[t] < basis[best[1]]):
                    best = (ratio, t)
        if best is None:  # pragma: no cover - phase 1 is bounded below by 0
            raise ExactReluError("internal error: unbounded phase 1 in the exact simplex")
        return best[1]

    def pivot(self, p: int, enter: int) -> None:
        T = self.T
        prow = T[p]
        piv = prow[enter]
        if piv != _ONE:
            inv = _ONE / piv
            prow = T[p] = [v * inv if v else v for v in prow]
        nzp = [j for j, v in enumerate(prow) if v]
        for t in range(self.n + 1):
            if t != p:
                f = T[t][enter]
                if f:
                    row = T[t]
                    for j in nzp:
                        row[j] -= f * prow[j]
        d = self.d
        f = d[enter]
        for j in nzp:
            d[j] -= f * prow[j]
        self.basis[p] = enter

    def answer(self) -> tuple[str, Any]:
        """A Farkas vector (artificial sum 0) or the feasible point read from the final duals."""
        n, N, width, d = self.n, self.N, self.width, self.d
        if d[width] == 0:
            y = [_ZERO] * self.m
            for t, b in enumerate(self.basis):
                if b < N:
                    i, s = self.cols[b]
                    y[i] += s * self.T[t][width]
            den = math.lcm(*(int(v.q) for v in y)) if y else 1
            return "infeasible", primitive([int(v.p) * (den // int(v.q)) for v in y])
        # duals: d_j = c_j - u^T col_j on the artificial column of row t gives u_t = 1 - d
        u = [_ONE - d[N + t] for t in range(n + 1)]
        ut = u[n]
        x = [v / ut for v in u[:n]]
        den = math.lcm(*(int(v.q) for v in x)) if x else 1
        return "feasible", ([int(v.p) * (den // int(v.q)) for v in x], den)


_ZERO, _ONE = flint.fmpq(0), flint.fmpq(1)
