"""The exact LP's system in integer form, read from the user's blocks, and the exact checks of its witnesses.

:func:`build_system` reads ``A_eq, b_eq, A_ub, b_ub`` (any matrix form :class:`~exactrelu.exact.matrix.QMatrix`
accepts, every malformed input refused with :class:`~exactrelu.errors.InvalidInput`) into one
:class:`LPSystem` ``M x (=, <=) r`` over the integers; :func:`check_point` and :func:`check_farkas` verify a
candidate point or Farkas vector exactly. Used by :mod:`exactrelu.exact.lp` (the front door), the HiGHS
proposal (:mod:`.lp_highs`) and the exact simplex (:mod:`.lp_simplex`).

>>> S = build_system([[1, 1]], [1], [[-1, 0]], [0], None)
>>> (S.n, S.m_eq, S.m_ub), check_point(S, [1, 0], 1), check_farkas(S, [1, 1])
((2, 1, 1), True, False)
"""

from __future__ import annotations

import math

import flint
import numpy as np

from ..errors import InvalidInput
from ..validation import check_nonnegative_integer
from .matrix import QMatrix
from .rationals import to_fraction

__all__ = ["LPSystem", "build_system", "check_point", "check_farkas", "point_from_fmpq", "primitive"]


class LPSystem:
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
        self.deadline = None  # the caller's Deadline (exactrelu.deadline), set by feasible(time_limit=...)
        self._rows: list[list[int]] | None = None
        self._r: list[int] | None = None

    @classmethod
    def from_rows(cls, n: int, m_eq: int, rows: list[list[int]], rhs: list[int]) -> "LPSystem":
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


def build_system(A_eq, b_eq, A_ub, b_ub, nvars) -> LPSystem:
    Ae, be = _block(A_eq, b_eq, "eq")
    Au, bu = _block(A_ub, b_ub, "ub")
    widths = {X.shape[1] for X in (Ae, Au) if X is not None}
    if nvars is not None:
        widths.add(check_nonnegative_integer(nvars, "nvars"))
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
    return LPSystem(n, me, mu, Mz, rz, se, su, (Ae, be, Au, bu), floats)


# -- exact checks -------------------------------------------------------------------------------

def check_point(S: LPSystem, num: list[int], den: int) -> bool:
    """Every constraint holds at ``x = num / den`` (den > 0), exactly."""
    if S.n == 0:
        res = [-x for x in S.r]
    else:
        res = (S.Mz * flint.fmpz_mat(S.n, 1, num) - S.rz * den).entries()
    me = S.m_eq
    return all(v == 0 for v in res[:me]) and all(v <= 0 for v in res[me:])


def check_farkas(S: LPSystem, y: list[int]) -> bool:
    """``y`` (one integer per row) is a Farkas vector of the integer system."""
    if any(v < 0 for v in y[S.m_eq:]):
        return False
    Y = flint.fmpz_mat(1, S.m, y)
    if (Y * S.rz)[0, 0] >= 0:
        return False
    return S.n == 0 or (Y * S.Mz).is_zero()


def point_from_fmpq(X: flint.fmpq_mat) -> tuple[list[int], int]:
    num, den = X.numer_denom()
    return [int(num[i, 0]) for i in range(num.nrows())], int(den)


def primitive(v: list[int]) -> list[int]:
    g = 0
    for x in v:
        g = math.gcd(g, x)
    return [x // g for x in v] if g > 1 else list(v)
