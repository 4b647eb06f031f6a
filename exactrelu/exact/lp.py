"""Exact linear-programming feasibility with certificates.

Decide, over the rationals, whether ``{x : A_eq x = b_eq, A_ub x <= b_ub}`` (x free) is
empty, and prove the answer:

* **feasible**: a rational point satisfying every constraint exactly;
* **infeasible**: a Farkas vector ``(y_eq, y_ub)`` with ``y_ub >= 0``,
  ``y_eq^T A_eq + y_ub^T A_ub = 0`` and ``y_eq^T b_eq + y_ub^T b_ub < 0``
  (adding the constraints with these weights gives ``0 <= negative``).

Float proposes, exact disposes (docs/design.md). The methods, tried in order:

1. ``"highs"``: HiGHS (dual simplex, presolve off: faster on our LPs) proposes a basis or a dual ray. A
   feasible basis is re-solved exactly (its active rows and the free columns it keeps at
   zero form a square system, solved in FLINT) and the point is checked against every
   constraint. A dual ray is re-solved exactly on its support (the left kernel of the
   support rows, or a small exact LP on them when the kernel is larger than a line).
   Rounding the float point itself was measured to verify in 2 cases of 23: it is never used.
2. ``"highs-presolve"``: the same with presolve, when the first proposal does not verify
   (HiGHS' presolve was once seen to call a feasible system infeasible: the exact check
   catches such answers whichever path gives them).
3. ``"exact-simplex"``: our own rational simplex (Bland's rule, FLINT ``fmpq``) on the
   Farkas system ``{y : y^T [A | b] = (0, -1), y_ub >= 0}`` -- only ``nvars + 1`` rows, so it
   suits systems with many constraints and few variables (pattern LPs: samples x dimension).
   Phase 1 either finds a Farkas vector or ends with duals that *are* a feasible point.
   It always decides; its answer is checked exactly like the others.

Whatever path decides, the returned witness has been verified exactly here;
:func:`exactrelu.certificates.claims.lp.lp_certificate` writes it into the JSON envelope (claims
``lp-feasible`` and ``lp-infeasible``) that the independent stdlib checker verifies again.

>>> res = feasible(A_ub=[[1, 1], [-1, 0], [0, -1]], b_ub=[1, 0, 0])
>>> res.status, all(v >= 0 for v in res.point), sum(res.point) <= 1
('feasible', True, True)
>>> res = feasible(A_eq=[[1, 1]], b_eq=[3], A_ub=[[1, 0], [0, 1]], b_ub=[1, 1])
>>> res.status, res.farkas
('infeasible', ([Fraction(-1, 1)], [Fraction(1, 1), Fraction(1, 1)]))
"""

from __future__ import annotations

import ctypes
import math
import os
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import flint
import numpy as np

from ..errors import ExactReluError, InvalidInput
from .linalg import PRIMES, independent_rows
from .matrix import QMatrix
from .rationals import to_fraction

__all__ = ["feasible", "LPResult", "METHODS"]

#: Methods accepted by :func:`feasible`: ``"auto"`` (HiGHS proposals, then the exact simplex)
#: or ``"exact"`` (the exact simplex only, no floating point at all).
METHODS = ("auto", "exact")

# -- the system in exact integer form -------------------------------------------------------

class _System:
    """``M x (=, <=) r`` with integer ``M`` (m x n, FLINT): the first ``m_eq`` rows are equations.

    Row block ``eq`` (``ub``) is the user's block multiplied by the positive integer
    ``scale_eq`` (``scale_ub``), so Farkas vectors carry over after multiplying by the scale.
    ``floats`` optionally holds the user's float64 blocks (for the float proposal only).
    """

    def __init__(self, n: int, m_eq: int, m_ub: int, Mz: flint.fmpz_mat, rz: flint.fmpz_mat,
                 scale_eq: int = 1, scale_ub: int = 1, user: tuple = (), floats: tuple | None = None):
        self.n, self.m_eq, self.m_ub = n, m_eq, m_ub
        self.Mz, self.rz = Mz, rz
        self.scale_eq, self.scale_ub = scale_eq, scale_ub
        self.user, self.floats = user, floats
        self._rows: list[list[int]] | None = None
        self._r: list[int] | None = None

    @classmethod
    def from_rows(cls, n: int, m_eq: int, rows: list[list[int]], rhs: list[int]) -> "_System":
        m = len(rows)
        return cls(n, m_eq, m - m_eq, flint.fmpz_mat(m, n, [x for row in rows for x in row]), flint.fmpz_mat(m, 1, rhs))

    @property
    def m(self) -> int:
        return self.m_eq + self.m_ub

    @property
    def M(self) -> list[list[int]]:
        if self._rows is None:
            self._rows = [[int(x) for x in row] for row in self.Mz.tolist()]
        return self._rows

    def rows(self, idx) -> list[list[int]]:
        """The integer rows ``idx`` (without converting the whole matrix)."""
        if self._rows is not None:
            return [self._rows[i] for i in idx]
        Mz, n = self.Mz, self.n
        return [[int(Mz[i, j]) for j in range(n)] for i in idx]

    @property
    def r(self) -> list[int]:
        if self._r is None:
            self._r = [int(x) for x in self.rz.entries()]
        return self._r


def _column(b, rows: int, name: str) -> QMatrix:
    if b is None:
        raise InvalidInput(f"{name} is missing: give the right-hand side with its matrix")
    if isinstance(b, np.ndarray) and b.ndim == 1:
        b = b[:, None]
    if isinstance(b, (QMatrix, flint.fmpz_mat, flint.fmpq_mat, np.ndarray)):
        B = QMatrix.coerce(b, name=name)
    else:
        if isinstance(b, (str, bytes, dict)):
            raise InvalidInput(f"{name} must be a list of numbers, got {type(b).__name__}")
        try:
            items = list(b)
        except TypeError:
            raise InvalidInput(f"{name} must be a list of numbers, got {type(b).__name__}") from None
        if items and all(isinstance(x, (list, tuple)) for x in items):
            B = QMatrix.coerce(items, name=name)
        else:
            B = QMatrix.from_fractions([to_fraction(x) for x in items], len(items), 1) if items else None
            if B is None:
                if rows:
                    raise InvalidInput(f"{name} has 0 entries, its matrix has {rows} rows")
                return QMatrix(flint.fmpz_mat(0, 1), 1)
    if B.shape[1] != 1 and B.shape[0] == 1:
        B = B.T
    if B.shape != (rows, 1):
        raise InvalidInput(f"{name} must have {rows} entries (one per row of its matrix), got shape {B.shape}")
    return B


def _empty(x) -> bool:
    if x is None:
        return True
    if isinstance(x, QMatrix):
        return x.shape[0] == 0
    if isinstance(x, (flint.fmpz_mat, flint.fmpq_mat)):
        return x.nrows() == 0
    if isinstance(x, np.ndarray):
        return x.shape[0] == 0 if x.ndim else False
    try:
        return len(list(x)) == 0
    except TypeError:
        raise InvalidInput(f"expected a matrix or a list of rows, got {type(x).__name__}") from None


def _block(A, b, name: str) -> tuple[QMatrix | None, QMatrix | None]:
    if _empty(A):
        if not _empty(b):
            raise InvalidInput(f"b_{name} has entries but A_{name} has no rows")
        return None, None
    Aq = QMatrix.coerce(A, name=f"A_{name}")
    return Aq, _column(b, Aq.shape[0], f"b_{name}")


def _integer_rows(A: QMatrix, b: QMatrix) -> tuple[flint.fmpz_mat, flint.fmpz_mat, int]:
    """``[A | b]`` times ``A.den * b.den``: integer matrix, right-hand side and the scale."""
    da, db = int(A.den), int(b.den)
    return (A.num * db if db != 1 else A.num), (b.num * da if da != 1 else b.num), da * db


def _floats(X) -> np.ndarray | None:
    return X if isinstance(X, np.ndarray) and X.dtype == np.float64 else None


def _system(A_eq, b_eq, A_ub, b_ub, nvars) -> _System:
    Ae, be = _block(A_eq, b_eq, "eq")
    Au, bu = _block(A_ub, b_ub, "ub")
    widths = {X.shape[1] for X in (Ae, Au) if X is not None}
    if nvars is not None:
        if isinstance(nvars, bool) or not isinstance(nvars, (int, np.integer)) or nvars < 0:
            raise InvalidInput(f"nvars must be a non-negative integer, got {nvars!r}")
        widths.add(int(nvars))
    if not widths:
        raise InvalidInput("no constraints and no nvars: the number of variables is unknown")
    if len(widths) > 1:
        raise InvalidInput(f"the matrices and nvars disagree on the number of variables: {sorted(widths)}")
    n = widths.pop()
    blocks = []
    se = su = 1
    if Ae is not None:
        Me, re_, se = _integer_rows(Ae, be)
        blocks.append((Me, re_))
    if Au is not None:
        Mu, ru, su = _integer_rows(Au, bu)
        blocks.append((Mu, ru))
    me = Ae.shape[0] if Ae is not None else 0
    mu = Au.shape[0] if Au is not None else 0
    if len(blocks) == 2:
        Mz = flint.fmpz_mat(me + mu, n, blocks[0][0].entries() + blocks[1][0].entries())
        rz = flint.fmpz_mat(me + mu, 1, blocks[0][1].entries() + blocks[1][1].entries())
    elif blocks:
        Mz, rz = blocks[0]
    else:
        Mz, rz = flint.fmpz_mat(0, n), flint.fmpz_mat(0, 1)
    floats = None
    fl = [_floats(A) for A, Q in ((A_eq, Ae), (A_ub, Au)) if Q is not None]
    if fl and all(f is not None for f in fl):
        floats = np.vstack(fl)
    return _System(n, me, mu, Mz, rz, se, su, (Ae, be, Au, bu), floats)


# -- exact checks -------------------------------------------------------------------------------

def _check_point(S: _System, num: list[int], den: int) -> bool:
    """Every constraint holds at ``x = num / den`` (den > 0), exactly."""
    if S.n == 0:
        res = [-x for x in S.r]
    else:
        res = (S.Mz * flint.fmpz_mat(S.n, 1, num) - S.rz * den).entries()
    me = S.m_eq
    return all(v == 0 for v in res[:me]) and all(v <= 0 for v in res[me:])


def _check_farkas(S: _System, y: list[int]) -> bool:
    """``y`` (one integer per row) is a Farkas vector of the integer system."""
    if any(v < 0 for v in y[S.m_eq:]):
        return False
    Y = flint.fmpz_mat(1, S.m, y)
    if (Y * S.rz)[0, 0] >= 0:
        return False
    return S.n == 0 or (Y * S.Mz).is_zero()


def _point_from_fmpq(X: flint.fmpq_mat) -> tuple[list[int], int]:
    num, den = X.numer_denom()
    return [int(num[i, 0]) for i in range(num.nrows())], int(den)


def _primitive(v: list[int]) -> list[int]:
    g = 0
    for x in v:
        g = math.gcd(g, x)
    return [x // g for x in v] if g > 1 else list(v)


# -- HiGHS proposals -----------------------------------------------------------------------------

@dataclass
class _Proposal:
    status: str  # "feasible" | "infeasible" | "unknown"
    active_rows: list[int] = field(default_factory=list)  # nonbasic rows (at a bound)
    zero_cols: list[int] = field(default_factory=list)  # nonbasic columns (free, held at 0)
    tight_rows: list[int] = field(default_factory=list)  # rows with a tiny float slack
    ray: np.ndarray | None = None


def _float_rows(S: _System) -> tuple[np.ndarray, np.ndarray] | None:
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
    scale = np.maximum(np.abs(A).max(axis=1), np.abs(b))
    scale[scale == 0] = 1.0
    A /= scale[:, None]
    b /= scale
    if not (np.isfinite(A).all() and np.isfinite(b).all()):
        return None
    return A, b


_QUIET = False


def _new_highs():
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


def _highs_propose(S: _System, presolve: bool) -> _Proposal:
    """Ask HiGHS (zero objective, simplex) for a basis or a dual ray. Never trusted."""
    try:
        import highspy
    except ImportError:  # pragma: no cover - highspy is a runtime dependency
        return _Proposal("unknown")
    fl = _float_rows(S)
    if fl is None:
        return _Proposal("unknown")
    A, b = fl
    m, n = A.shape
    inf = highspy.kHighsInf
    h = _new_highs()
    h.setOptionValue("presolve", "on" if presolve else "off")
    h.setOptionValue("solver", "simplex")
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.zeros(n)
    lp.col_lower_ = np.full(n, -inf)
    lp.col_upper_ = np.full(n, inf)
    lo = np.full(m, -inf)
    lo[: S.m_eq] = b[: S.m_eq]
    lp.row_lower_, lp.row_upper_ = lo, b.copy()
    nz = A != 0
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(nz.sum(axis=1))]).astype(np.int32)
    lp.a_matrix_.index_ = np.nonzero(nz)[1].astype(np.int32)
    lp.a_matrix_.value_ = A[nz]
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    h.passModel(lp)
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
        return _Proposal("feasible", rows, cols, tight)
    if st == highspy.HighsModelStatus.kInfeasible:
        _, has, ray = h.getDualRay()
        return _Proposal("infeasible", ray=np.asarray(ray, dtype=np.float64) if has else None)
    return _Proposal("unknown")


def _confirm_point(S: _System, equations: list[int], zero_cols: list[int]) -> tuple[list[int], int] | None:
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
    num, den = _point_from_fmpq(X)
    return (num, den) if _check_point(S, num, den) else None


def _left_kernel(S: _System, rows: list[int]) -> list[list[int]]:
    """Primitive integer basis of ``{y : y^T M_rows = 0}``."""
    T = flint.fmpz_mat(len(rows), S.n, [x for row in S.rows(rows) for x in row]).transpose()
    N, nullity = T.nullspace()
    return [_primitive([int(N[i, c]) for i in range(len(rows))]) for c in range(int(nullity))]


def _confirm_ray(S: _System, ray: np.ndarray | None) -> list[int] | None:
    """An exact Farkas vector on the support of a float dual ray, or None."""
    if ray is None or not np.isfinite(ray).all() or not np.abs(ray).max() > 0:
        return None
    support = [int(i) for i in np.nonzero(np.abs(ray) > 1e-9 * np.abs(ray).max())[0]]
    if len(support) > 4 * (S.n + 1):
        return None
    kernel = _left_kernel(S, support)
    if len(kernel) == 1:
        yS = kernel[0]
        if sum(v * S.r[i] for v, i in zip(yS, support)) > 0:
            yS = [-v for v in yS]
        y = [0] * S.m
        for v, i in zip(yS, support):
            y[i] = v
        if _check_farkas(S, y):
            return y
    if not kernel:
        return None
    # the support rows form an infeasible subsystem if the ray is right: decide it exactly
    sub = _System.from_rows(S.n, sum(1 for i in support if i < S.m_eq), S.rows(support), [S.r[i] for i in support])
    status, w = _exact_simplex(sub)
    if status != "infeasible":
        return None
    y = [0] * S.m
    for v, i in zip(w, support):
        y[i] = v
    return y if _check_farkas(S, y) else None


# -- exact simplex on the Farkas system -----------------------------------------------------------

def _exact_simplex(S: _System) -> tuple[str, Any]:
    """Phase 1 of the simplex method, exact (``fmpq``), Bland's rule, on the Farkas system

    ``sum_i y_i (M_i, r_i) = (0, ..., 0, -1)``, ``y_i >= 0`` for inequality rows
    (an equation row i contributes two columns, ``+y_i`` and ``-y_i``), with one artificial
    variable per row (``n + 1`` rows). Phase 1 ends with artificial sum ``w``:

    * ``w == 0``: the basic solution is a Farkas vector: return ``("infeasible", y)``;
    * ``w > 0``: the final duals ``u`` satisfy ``u^T col_j <= 0`` for every column and
      ``u_t = w > 0`` on the last row, so ``x = u_x / u_t`` is a feasible point:
      return ``("feasible", (num, den))``.

    Bland's rule makes it terminate; both answers are verified exactly by the caller.
    """
    n, m = S.n, S.m
    M, r = S.M, S.r
    # columns: (row index, sign); the last tableau row is negated so that its rhs is +1
    cols = [(i, 1) for i in range(m)] + [(i, -1) for i in range(S.m_eq)]
    N = len(cols)
    zero, one = flint.fmpq(0), flint.fmpq(1)
    T: list[list[flint.fmpq]] = []
    for j in range(n):
        T.append([flint.fmpq(s * M[i][j]) for i, s in cols] + [one if t == j else zero for t in range(n + 1)] + [zero])
    T.append([flint.fmpq(-s * r[i]) for i, s in cols] + [one if t == n else zero for t in range(n + 1)] + [one])
    width = N + n + 1
    basis = [N + t for t in range(n + 1)]
    # reduced costs of phase 1 (cost 1 on artificials): d_j = c_j - sum_rows T[row][j]
    d = [(one if j >= N else zero) - sum((T[t][j] for t in range(n + 1)), zero) for j in range(width)]
    d.append(-sum((T[t][width] for t in range(n + 1)), zero))  # minus the objective value
    while True:
        enter = next((j for j in range(width) if d[j] < 0), None)
        if enter is None:
            break
        best = None
        for t in range(n + 1):
            a = T[t][enter]
            if a > 0:
                ratio = T[t][width] / a
                if best is None or ratio < best[0] or (ratio == best[0] and basis[t] < basis[best[1]]):
                    best = (ratio, t)
        if best is None:  # pragma: no cover - phase 1 is bounded below by 0
            raise ExactReluError("internal error: unbounded phase 1 in the exact simplex")
        p = best[1]
        prow = T[p]
        piv = prow[enter]
        if piv != one:
            inv = one / piv
            prow = T[p] = [v * inv if v else v for v in prow]
        nzp = [j for j, v in enumerate(prow) if v]
        for t in range(n + 1):
            if t != p:
                f = T[t][enter]
                if f:
                    row = T[t]
                    for j in nzp:
                        row[j] -= f * prow[j]
        f = d[enter]
        for j in nzp:
            d[j] -= f * prow[j]
        basis[p] = enter
    w = -d[width]
    if w == 0:
        y = [zero] * m
        for t, b in enumerate(basis):
            if b < N:
                i, s = cols[b]
                y[i] += s * T[t][width]
        den = math.lcm(*(int(v.q) for v in y)) if y else 1
        return "infeasible", _primitive([int(v.p) * (den // int(v.q)) for v in y])
    # duals: d_j = c_j - u^T col_j on the artificial column of row t gives u_t = 1 - d
    u = [one - d[N + t] for t in range(n + 1)]
    ut = u[n]
    x = [v / ut for v in u[:n]]
    den = math.lcm(*(int(v.q) for v in x)) if x else 1
    return "feasible", ([int(v.p) * (den // int(v.q)) for v in x], den)


# -- the public function ----------------------------------------------------------------------------

@dataclass
class LPResult:
    """The exact answer of :func:`feasible`, with its witness.

    Attributes
    ----------
    status : ``"feasible"`` or ``"infeasible"`` (never undecided).
    point : a point satisfying every constraint exactly (feasible), else None.
    farkas : ``(y_eq, y_ub)`` (infeasible), else None: ``y_ub >= 0``,
        ``y_eq^T A_eq + y_ub^T A_ub = 0``, ``y_eq^T b_eq + y_ub^T b_ub < 0``.
    method : which path decided: ``"trivial"``, ``"highs"``, ``"highs-presolve"``,
        ``"exact-simplex"``.
    """

    status: str
    point: list[Fraction] | None
    farkas: tuple[list[Fraction], list[Fraction]] | None
    method: str
    nvars: int
    system: tuple = field(repr=False, default=())


def _feasible_result(S: _System, num: list[int], den: int, method: str) -> LPResult:
    return LPResult("feasible", [Fraction(v, den) for v in num], None, method, S.n, S.user)


def _infeasible_result(S: _System, y: list[int], method: str) -> LPResult:
    ye = [v * S.scale_eq for v in y[: S.m_eq]]
    yu = [v * S.scale_ub for v in y[S.m_eq:]]
    g = 0
    for v in ye + yu:
        g = math.gcd(g, v)
    return LPResult("infeasible", None, ([Fraction(v // g) for v in ye], [Fraction(v // g) for v in yu]), method, S.n, S.user)


def _decide_trivial(S: _System) -> LPResult | None:
    if S.m == 0:
        return _feasible_result(S, [0] * S.n, 1, "trivial")
    if S.n == 0:
        for i, b in enumerate(S.r):
            if (b != 0) if i < S.m_eq else (b < 0):
                y = [0] * S.m
                y[i] = -1 if (i < S.m_eq and b > 0) else 1
                return _infeasible_result(S, y, "trivial")
        return _feasible_result(S, [], 1, "trivial")
    return None


#: the float proposer (a module attribute so tests can replace it by a liar)
_propose: Callable[[_System, bool], _Proposal] = _highs_propose


def feasible(A_eq=None, b_eq=None, A_ub=None, b_ub=None, *, nvars: int | None = None, method: str = "auto") -> LPResult:
    """Decide exactly whether ``{x : A_eq x = b_eq, A_ub x <= b_ub}`` has a point (x free).

    Parameters
    ----------
    A_eq, A_ub : QMatrix, FLINT ``fmpz_mat``/``fmpq_mat``, NumPy array (floats taken exactly)
        or nested lists of rationals (ints, Fractions, strings such as ``"2/3"``); may be None.
    b_eq, b_ub : one entry per row: a 1-D list or array, an ``m x 1`` matrix, or None with its matrix.
    nvars : number of variables; needed only when no matrix is given.
    method : ``"auto"`` (HiGHS proposes, FLINT proves, exact simplex as the last resort) or
        ``"exact"`` (the exact simplex only).

    Returns
    -------
    LPResult
        ``status`` is ``"feasible"`` (with ``point``) or ``"infeasible"`` (with ``farkas``);
        the witness was verified exactly before returning.

    Raises
    ------
    InvalidInput
        Malformed or inconsistent shapes, non-finite numbers, unknown method.

    Examples
    --------
    >>> feasible(A_eq=[["1/2", 1]], b_eq=[1], A_ub=[[-1, 0]], b_ub=[0]).status
    'feasible'
    >>> feasible(A_ub=[[1], [-1]], b_ub=[-1, 0]).farkas
    ([], [Fraction(1, 1), Fraction(1, 1)])
    >>> feasible(nvars=3).point
    [Fraction(0, 1), Fraction(0, 1), Fraction(0, 1)]
    """
    if method not in METHODS:
        raise InvalidInput(f"unknown LP method {method!r}; choose from {METHODS}")
    S = _system(A_eq, b_eq, A_ub, b_ub, nvars)
    res = _decide_trivial(S)
    if res is not None:
        return res
    if method == "auto":
        # without presolve first: 17 ms against 48 ms on pattern LPs at n = 1000 (benchmarks/bench_lp.py),
        # and HiGHS' presolve was once seen to call a feasible system infeasible; presolve is the retry
        for presolve, name in ((False, "highs"), (True, "highs-presolve")):
            prop = _propose(S, presolve)
            if prop.status == "feasible":
                pt = _confirm_point(S, prop.active_rows, prop.zero_cols)
                if pt is None and prop.tight_rows:
                    pt = _confirm_point(S, prop.tight_rows, [])
                if pt is not None:
                    return _feasible_result(S, *pt, name)
            elif prop.status == "infeasible":
                y = _confirm_ray(S, prop.ray)
                if y is not None:
                    return _infeasible_result(S, y, name)
    status, w = _exact_simplex(S)
    if status == "feasible" and _check_point(S, *w):
        return _feasible_result(S, *w, "exact-simplex")
    if status == "infeasible" and _check_farkas(S, w):
        return _infeasible_result(S, w, "exact-simplex")
    raise ExactReluError(  # pragma: no cover - the exact simplex is exact; this guards against bugs
        "internal error: the exact simplex produced a witness that does not verify; please report this system"
    )
