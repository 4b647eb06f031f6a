"""Data views shared by the exact routes: rows on demand, exact products, float views, augmented inputs.

Nothing here decides anything: these are ways to read the exact instance cheaply (rows of an
``fmpz_mat`` rebuilt from the float64 source, products ``V @ X.T`` by int64 limbs) and the float
views the proposers see. The routes do the deciding, exactly.

>>> from exactrelu.instances import planted
>>> inst = planted(d=2, k=1, m=1, n=3, seed=0)
>>> aug = augmented(inst)
>>> aug.d, [row[-1] for row in aug.inputs.to_fractions()]
(3, [Fraction(1, 1), Fraction(1, 1), Fraction(1, 1)])
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import fmpz_mat_from_scaled, int_times_dyadic, rectified_int_times_dyadic
from ..validation import check_k  # re-exported for one release: the one check of ``k`` lives there
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import Activation

__all__ = ["RowView", "InputProducts", "stack_rows", "as_instance", "check_k", "float_view", "augmented", "with_ones",
           "ones_row"]


class RowView:
    """Rows of an fmpz_mat as lists of integers, read on demand (a full tolist() of X costs ~0.1 s per 10^6 entries).

    With ``floats`` (the float64 array the matrix was converted from, exactly ``M / 2**shift``) a row is
    rebuilt from the floats: scaling by a power of two is exact, and ~50x cheaper than indexing FLINT.
    """

    def __init__(self, M: "flint.fmpz_mat | QMatrix"):
        self.Q = M if isinstance(M, QMatrix) else None
        self._M = None if isinstance(M, QMatrix) else M
        self.c = M.shape[1] if isinstance(M, QMatrix) else M.ncols()
        self.floats, self.shift = None, 0
        src = self.Q.float_source if self.Q is not None else None
        if src is not None and src[2] <= 104 and src[1] <= 1074:
            self.floats, self.shift = src[0], src[1]  # every scaled entry is an exact integer below 2**104

    @property
    def M(self) -> flint.fmpz_mat:
        if self._M is None:
            self._M = self.Q.num
        return self._M

    def __getitem__(self, i: int) -> list:
        if self.floats is not None:
            return [int(v) for v in np.ldexp(self.floats[i], self.shift).tolist()]
        M = self.M
        return [M[i, j] for j in range(self.c)]

    def matrix(self, idx: list[int]) -> flint.fmpz_mat:
        """The rows ``idx`` as an fmpz_mat."""
        if self.floats is not None:
            return fmpz_mat_from_scaled(np.ldexp(self.floats[idx], self.shift))
        return flint.fmpz_mat([self[i] for i in idx])


class InputProducts:
    """Exact products ``V @ Xnum.T`` (V small integers), from the float64 source by int64 limbs when it
    exists (no d x n FLINT conversion), else with FLINT."""

    def __init__(self, X: QMatrix):
        self.X, self._T = X, None

    def times(self, V: list[list[int]]) -> flint.fmpz_mat:
        src = self.X.float_source
        if src is not None:
            P = int_times_dyadic(V, *src)
            if P is not None:
                return P
        if self._T is None:
            self._T = self.X.num.transpose()
        return flint.fmpz_mat(V) * self._T

    def rectified(self, V: list[list[int]], act: Activation) -> flint.fmpz_mat:
        """``f(V @ Xnum.T)`` exactly; for ReLU from the float64 source, the sign read on exact limbs (no per-entry
        Python work), else :meth:`Activation.apply_fmpz_mat` of :meth:`times`.

        >>> X = QMatrix.from_numpy(np.array([[1.0, 2.0], [-3.0, 0.5]]), lazy=True)
        >>> InputProducts(X).rectified([[2, -1], [0, 1]], Activation.relu()).tolist()
        [[0, 0], [4, 1]]
        """
        src = self.X.float_source
        if src is not None and act.degree == 1:
            P = rectified_int_times_dyadic(V, *src)
            if P is not None:
                return P
        return act.apply_fmpz_mat(self.times(V))


def stack_rows(rows: list[tuple[flint.fmpz_mat, int, int]], n: int) -> flint.fmpz_mat:
    """The matrix whose i-th row is sign_i * M_i[row_i], by selection products (no per-entry Python work).

    ``sign_i`` may be any integer multiplier. Every row of one matrix, in order, with multiplier 1 is that matrix.

    >>> M = flint.fmpz_mat([[1, 2], [3, 4]])
    >>> stack_rows([(M, 0, 1), (M, 1, 1)], 2) is M, stack_rows([(M, 1, -2)], 2).tolist()
    (True, [[-6, -8]])
    """
    if rows and all(M is rows[0][0] and r == i and sg == 1 for i, (M, r, sg) in enumerate(rows)) \
            and rows[0][0].nrows() == len(rows):
        return rows[0][0]
    out = None
    groups: dict[int, tuple[flint.fmpz_mat, list]] = {}
    for i, (M, r, sg) in enumerate(rows):
        groups.setdefault(id(M), (M, []))[1].append((i, r, sg))
    for M, items in groups.values():
        sel = [[0] * M.nrows() for _ in rows]
        for i, r, sg in items:
            sel[i][r] = sg
        part = flint.fmpz_mat(sel) * M
        out = part if out is None else out + part
    return out if out is not None else flint.fmpz_mat(0, n)


def as_instance(inputs, labels, activation: Activation | None) -> Instance:
    """An Instance from an Instance, or from inputs and labels (arrays, nested rationals)."""
    if isinstance(inputs, Instance):
        if labels is not None:
            raise InvalidInput("pass either an Instance or inputs and labels, not both")
        return inputs
    if labels is None:
        raise InvalidInput("labels are required")
    return Instance.from_arrays(inputs, labels, activation=activation)




def float_view(inst: Instance, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Float inputs and labels for the proposers (never for claims).

    If the data are too large or small for float64 arithmetic, every sample is rescaled by a power
    of two s_j (inputs by s_j, labels by s_j**c): f is positively homogeneous of degree c, so the
    rescaled data come from the same network (for biased networks this holds for the inputs
    augmented by the constant coordinate, which :func:`augmented` adds before this is called).
    """
    Xf, Yf = inst.float_inputs(), inst.float_labels()

    def tame(a):
        nz = np.abs(a[a != 0])
        return np.all(np.isfinite(a)) and (nz.size == 0 or (nz.max() < 1e150 and nz.min() > 1e-150))

    if tame(Xf) and tame(Yf):
        return Xf, Yf
    dx, dy = int(inst.inputs.den), int(inst.labels.den)
    Xs, Ys = [], []
    for xr, yr in zip(inst.inputs.num.tolist(), inst.labels.num.tolist()):
        e = max((int(v).bit_length() for v in xr), default=0) - dx.bit_length()
        sx, sy = Fraction(1, 2**e) if e > 0 else Fraction(2**-e), Fraction(1, 2 ** (c * e)) if e > 0 else Fraction(2 ** (-c * e))
        Xs.append([float(Fraction(int(v), dx) * sx) for v in xr])
        Ys.append([float(Fraction(int(v), dy) * sy) for v in yr])
    return np.array(Xs), np.array(Ys)


def augmented(inst: Instance) -> Instance:
    """The instance with a constant input coordinate 1 appended: ``f(V x + b) = f([V b] [x; 1])``.

    Exact: float64 inputs stay float64 (appending 1.0 is exact), rational inputs get the column
    ``den`` over their common denominator. The labels are shared, not copied.
    """
    src = inst.inputs.float_source  # set only when the float64 array is exactly the inputs
    if src is not None:
        src = src[0]
        Xa = np.hstack([src, np.ones((src.shape[0], 1))])
        Xq = QMatrix.from_numpy(Xa, name="inputs", lazy=True)
        return Instance(Xq, inst.labels, inst.activation, None, Xa, inst.labels_float, dict(inst.meta))
    X = inst.inputs
    n, d = X.shape
    den = int(X.den)
    vals = X.num.entries()
    flat = [v for j in range(n) for v in (*vals[j * d:(j + 1) * d], den)]
    Xq = QMatrix(flint.fmpz_mat(n, d + 1, flat), den)
    return Instance(Xq, inst.labels, inst.activation, None, None, inst.labels_float, dict(inst.meta))


def with_ones(Y: QMatrix) -> QMatrix:
    """``[Y | 1]``: the matrix with a column of ones appended, exactly (two FLINT products, no loop over entries).

    The labels of a network with an output bias c satisfy ``[labels | 1] = [H | 1] [[U^T, 0], [c^T, 1]]``
    (H = f(inputs V^T + b)): the constant column joins the hidden units' span (docs/recovery.md).

    >>> with_ones(QMatrix.from_rows([["1/2", 3], [0, "-1/4"]])).to_strings()
    [['1/2', '3', '1'], ['0', '-1/4', '1']]
    """
    n, m = Y.shape
    den = int(Y.den)
    keep = flint.fmpz_mat(m, m + 1, [int(i == j) for i in range(m) for j in range(m + 1)])
    last = flint.fmpz_mat(1, m + 1, [0] * m + [den])
    return QMatrix(Y.num * keep + flint.fmpz_mat(n, 1, [1] * n) * last, den)


def ones_row(A: flint.fmpz_mat, value: int = 1) -> flint.fmpz_mat:
    """``[A; value 1^T]``: an integer matrix (m x n) with a constant row appended.

    >>> ones_row(flint.fmpz_mat([[1, 2, 3]]), 5).tolist()
    [[1, 2, 3], [5, 5, 5]]
    """
    m, n = A.nrows(), A.ncols()
    keep = flint.fmpz_mat(m + 1, m, [int(i == j) for i in range(m + 1) for j in range(m)])
    return keep * A + flint.fmpz_mat(m + 1, 1, [0] * m + [value]) * flint.fmpz_mat(1, n, [1] * n)
