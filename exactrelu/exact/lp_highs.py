"""The float proposal of the exact LP and its exact confirmation: HiGHS proposes, FLINT proves.

:func:`highs_propose` asks HiGHS (zero objective, dual simplex) for a basis or a dual ray; nothing it says is
trusted. :func:`confirm_point` re-solves a proposed basis exactly (its active rows and the free columns kept at
zero, completed to a square non-singular system) and checks the point against every constraint;
:func:`confirm_ray` re-solves a dual ray on its support (the left kernel of the support rows, or the exact
simplex on them when the kernel is larger than a line) and checks the Farkas vector. See
:mod:`exactrelu.exact.lp` for how the front door uses them.
"""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass, field

import flint
import numpy as np

from .linalg import PRIMES, independent_rows
from .lp_simplex import exact_simplex
from .lp_system import LPSystem, check_farkas, check_point, point_from_fmpq, primitive

__all__ = ["Proposal", "highs_propose", "confirm_point", "confirm_ray", "left_kernel", "float_rows", "scale_rows",
           "new_highs", "feasibility_lp"]

@dataclass
class Proposal:
    status: str  # "feasible" | "infeasible" | "unknown"
    active_rows: list[int] = field(default_factory=list)  # nonbasic rows (at a bound)
    zero_cols: list[int] = field(default_factory=list)  # nonbasic columns (free, held at 0)
    tight_rows: list[int] = field(default_factory=list)  # rows with a tiny float slack
    ray: np.ndarray | None = None


def scale_rows(A: np.ndarray, b: np.ndarray) -> None:
    """Divide each row of ``A x <= b`` (or ``= b``) by its largest magnitude, ``b`` included, in place: the float
    system HiGHS is given (a zero row stays as it is)."""
    scale = np.maximum(np.abs(A).max(axis=1), np.abs(b))
    scale[scale == 0] = 1.0
    A /= scale[:, None]
    b /= scale


def float_rows(S: LPSystem) -> tuple[np.ndarray, np.ndarray] | None:
    try:
        if S.floats is not None:  # the user's float64 matrices (rows scaled by 1 / scale)
            A = S.floats.copy()
            sc = [S.scale_eq] * S.m_eq + [S.scale_ub] * S.m_ub
            b = np.array([int(v) / s for v, s in zip(S.rz.entries(), sc)], dtype=np.float64)
        else:
            A = np.array([int(x) for x in S.Mz.entries()], dtype=np.float64).reshape(S.m, S.n)
            b = np.array([int(x) for x in S.rz.entries()], dtype=np.float64)
    except OverflowError:
        return None
    scale_rows(A, b)
    if not (np.isfinite(A).all() and np.isfinite(b).all()):
        return None
    return A, b


_QUIET = False


def new_highs():
    """A silent ``highspy.Highs``; the first one prints a banner on C-level stdout, hidden here."""
    global _QUIET
    import highspy

    if _QUIET:
        h = highspy.Highs()
    else:
        sys.stdout.flush()
        saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 1)
            h = highspy.Highs()
            try:
                ctypes.CDLL(None).fflush(None)
            except (OSError, AttributeError):  # pragma: no cover - platforms without a C library handle
                pass
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(devnull)
        _QUIET = True
    h.setOptionValue("output_flag", False)
    return h


def feasibility_lp(A: np.ndarray, lower: np.ndarray, upper: np.ndarray):
    """The HiGHS model of ``{x : lower <= A x <= upper}`` (free variables, zero cost; ``A`` dense, passed row-wise).

    >>> lp = feasibility_lp(np.array([[1.0, 0.0], [1.0, -1.0]]), np.array([-np.inf, 0.0]), np.array([1.0, 0.0]))
    >>> lp.num_row_, lp.num_col_, list(lp.a_matrix_.index_)
    (2, 2, [0, 0, 1])
    """
    import highspy

    m, n = A.shape
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.zeros(n)
    lp.col_lower_ = np.full(n, -inf)
    lp.col_upper_ = np.full(n, inf)
    lp.row_lower_, lp.row_upper_ = lower, upper
    nz = A != 0
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(nz.sum(axis=1))]).astype(np.int32)
    lp.a_matrix_.index_ = np.nonzero(nz)[1].astype(np.int32)
    lp.a_matrix_.value_ = A[nz]
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    return lp


def highs_propose(S: LPSystem, presolve: bool) -> Proposal:
    """Ask HiGHS (zero objective, simplex) for a basis or a dual ray. Never trusted."""
    try:
        import highspy
    except ImportError:  # pragma: no cover - highspy is a runtime dependency
        return Proposal("unknown")
    fl = float_rows(S)
    if fl is None:
        return Proposal("unknown")
    A, b = fl
    m, n = A.shape
    inf = highspy.kHighsInf
    h = new_highs()
    h.setOptionValue("presolve", "on" if presolve else "off")
    h.setOptionValue("solver", "simplex")
    left = S.deadline.remaining() if S.deadline is not None else None
    if left is not None:  # HiGHS stops at what is left of the caller's time limit ("unknown": the simplex then raises)
        h.setOptionValue("time_limit", max(left, 1e-3))
    lo = np.full(m, -inf)
    lo[: S.m_eq] = b[: S.m_eq]
    h.passModel(feasibility_lp(A, lo, b.copy()))
    h.run()
    st = h.getModelStatus()
    if st == highspy.HighsModelStatus.kOptimal:
        basis = h.getBasis()
        B = highspy.HighsBasisStatus.kBasic
        rows = [i for i, s in enumerate(basis.row_status) if s != B] if basis.valid else []
        cols = [j for j, s in enumerate(basis.col_status) if s != B] if basis.valid else []
        x = np.asarray(h.getSolution().col_value, dtype=np.float64)
        slack = np.abs(A @ x - b)
        tight = [int(i) for i in np.argsort(slack)[: max(n, 1)] if slack[i] <= 1e-9 or i < S.m_eq]
        return Proposal("feasible", rows, cols, tight)
    if st == highspy.HighsModelStatus.kInfeasible:
        _, has, ray = h.getDualRay()
        return Proposal("infeasible", ray=np.asarray(ray, dtype=np.float64) if has else None)
    return Proposal("unknown")


def confirm_point(S: LPSystem, equations: list[int], zero_cols: list[int]) -> tuple[list[int], int] | None:
    """Solve the chosen rows (as equations) plus ``x_j = 0`` for ``zero_cols``, completed to a square
    non-singular system by unit rows; return the point if it satisfies every constraint exactly."""
    n = S.n
    cand = S.rows(equations) + [[int(j == c) for j in range(n)] for c in zero_cols]
    rhs = [S.r[i] for i in equations] + [0] * len(zero_cols)
    cand += [[int(j == c) for j in range(n)] for c in range(n)]
    rhs += [0] * n
    C = flint.fmpz_mat(len(cand), n, [x for row in cand for x in row])
    pick = independent_rows(C, PRIMES[0])
    if len(pick) != n:  # pragma: no cover - unit rows always complete the rank
        return None
    Msq = flint.fmpz_mat([cand[i] for i in pick])
    try:
        X = Msq.solve(flint.fmpz_mat([[rhs[i]] for i in pick]))
    except ZeroDivisionError:  # singular over Q though not modulo p: cannot happen; be safe
        return None
    num, den = point_from_fmpq(X)
    return (num, den) if check_point(S, num, den) else None


def left_kernel(S: LPSystem, rows: list[int]) -> list[list[int]]:
    """Primitive integer basis of ``{y : y^T M_rows = 0}``."""
    T = flint.fmpz_mat(len(rows), S.n, [x for row in S.rows(rows) for x in row]).transpose()
    N, nullity = T.nullspace()
    return [primitive([int(N[i, c]) for i in range(len(rows))]) for c in range(int(nullity))]


def confirm_ray(S: LPSystem, ray: np.ndarray | None) -> list[int] | None:
    """An exact Farkas vector on the support of a float dual ray, or None."""
    if ray is None or not np.isfinite(ray).all() or not np.abs(ray).max() > 0:
        return None
    support = [int(i) for i in np.nonzero(np.abs(ray) > 1e-9 * np.abs(ray).max())[0]]
    if len(support) > 4 * (S.n + 1):
        return None
    kernel = left_kernel(S, support)
    if len(kernel) == 1:
        yS = kernel[0]
        if sum(v * S.r[i] for v, i in zip(yS, support)) > 0:
            yS = [-v for v in yS]
        y = [0] * S.m
        for v, i in zip(yS, support):
            y[i] = v
        if check_farkas(S, y):
            return y
    if not kernel:
        return None
    # the support rows form an infeasible subsystem if the ray is right: decide it exactly
    sub = LPSystem.from_rows(S.n, sum(1 for i in support if i < S.m_eq), S.rows(support), [S.r[i] for i in support])
    status, w = exact_simplex(sub, S.deadline)
    if status != "infeasible":
        return None
    y = [0] * S.m
    for v, i in zip(w, support):
        y[i] = v
    return y if check_farkas(S, y) else None
