"""Exact rational matrices as one integer matrix over one common denominator.

A :class:`QMatrix` is ``num / den`` with ``num`` a FLINT ``fmpz_mat`` and ``den`` a
positive integer. Measured on this machine (``benchmarks/bench_conversion.py`` and
earlier measurements of exact linear algebra in FLINT): integer matrices with one common scale were
1.3-2.5x faster than ``fmpq_mat`` on products and solves, so the exact paths use them.

Float64 arrays are converted exactly: every finite double is ``M * 2**e``; one common power
of two turns the whole array into integers. When the integers fit in 104 bits (Gaussian
data: about 76) each entry is split into two 52-bit halves that NumPy computes exactly and
FLINT combines (about 0.3 us per entry); otherwise a per-entry path with Python integers
is taken (extreme magnitudes such as 1e-300 next to 1e+300).

>>> import numpy as np
>>> Q = QMatrix.from_numpy(np.array([[0.5, -1.25], [3.0, 0.0]]))
>>> Q.den, Q.num.tolist()
(4, [[2, -5], [12, 0]])
>>> Q.to_fractions()[0]
[Fraction(1, 2), Fraction(-5, 4)]
>>> (Q @ QMatrix.identity(2)) == Q
True
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Iterable, Sequence

import flint
import numpy as np

from ..errors import InvalidInput
from ..limits import limit, over
from .codecs.float64 import (as_float_array, convert_scaled, dyadic_scale, exact_float64, float_or_inf,
                             float_row_texts, float_strings, fmpz_mat_from_int64, fmpz_mat_from_scaled,
                             int_times_dyadic, tensor_array)
from .codecs.int_text import dyadic_row_texts
from .codecs.text import parse_rational_strings
from .rationals import RationalLike, format_rational, to_fraction

# the float64 conversions live in exact/codecs/float64.py and are re-exported here (their old home)
__all__ = ["QMatrix", "as_float_array", "float_strings", "fmpz_mat_from_scaled", "int_times_dyadic", "dyadic_scale"]


class QMatrix:
    """An exact rational matrix ``num / den`` (``num``: ``fmpz_mat``, ``den``: positive int).

    A QMatrix made with ``from_numpy(a, lazy=True)`` keeps the float64 array and builds ``num`` on
    first use; code that can work from the floats exactly (``float_source``) never pays for it.
    """

    __slots__ = ("_num", "den", "_float", "_shift", "_bits")

    def __init__(self, num: flint.fmpz_mat | None, den: int = 1):
        if int(den) <= 0:
            raise InvalidInput("QMatrix denominator must be positive")
        self._num, self.den = num, den
        self._float, self._shift, self._bits = None, 0, 0

    @property
    def num(self) -> flint.fmpz_mat:
        if self._num is None:
            self._num = convert_scaled(self._float, self._shift, self._bits)
        return self._num

    @property
    def float_source(self) -> tuple[np.ndarray, int, int] | None:
        """``(floats, shift, bits)`` when the matrix is exactly ``floats * 2**shift / den`` with integers
        below ``2**bits`` (it was made from a float64 array), else None."""
        return None if self._float is None else (self._float, self._shift, self._bits)

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_numpy(cls, a, *, name: str = "array", lazy: bool = False) -> "QMatrix":
        """Exact conversion of a float64 (or integer) array; NaN and infinities raise InvalidInput.

        With ``lazy=True`` a float64 array is validated and scaled now, converted to FLINT on first use.
        """
        raw = np.asarray(tensor_array(a))
        if raw.dtype.name == "bfloat16":  # ml_dtypes (ONNX): the top half of a float32, widened exactly
            raw = raw.astype(np.float32)
        if raw.dtype.kind in "iu" and raw.ndim == 2:
            if raw.size and np.abs(raw.astype(object)).max() >= 2**63:
                return cls.from_rows(raw.tolist())
            return cls(fmpz_mat_from_int64(raw.astype(np.int64)), 1)
        if raw.dtype == object or raw.dtype.kind in "US":
            return cls.from_rows(raw.tolist(), name=name)
        if raw.dtype.kind not in "fc":
            raise InvalidInput(f"{name} has dtype {raw.dtype}; expected numbers")
        fit = exact_float64(raw, name)
        if fit is None:  # long doubles beyond float64: each one is still a dyadic rational, converted exactly
            if raw.ndim != 2:
                raise InvalidInput(f"{name} must be 2-dimensional, got shape {raw.shape}")
            return cls.from_rows([list(row) for row in raw], name=name)
        arr = as_float_array(fit, name=name)
        shift, bits = dyadic_scale(arr)
        out = cls(None, 1 << shift)
        out._float, out._shift, out._bits = arr, shift, bits
        if not lazy:
            out.num  # noqa: B018 - convert now
        return out

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[RationalLike]], *, name: str = "matrix") -> "QMatrix":
        """Exact conversion of a nested sequence of rationals (ints, floats, Fractions, strings)."""
        rows = _rows_of(rows, name)
        if not rows:
            raise InvalidInput(f"{name} has no rows")
        ncols = len(rows[0])
        for i, r in enumerate(rows):
            if len(r) != ncols:
                raise InvalidInput(f"{name}: row {i} has {len(r)} entries, row 0 has {ncols}")
        flat = list(itertools.chain.from_iterable(rows))
        fast = parse_rational_strings(flat, len(rows), ncols)  # canonical "p/q" strings in bulk (exact/codecs/text.py)
        if isinstance(fast, np.ndarray):
            return cls.from_numpy(fast, lazy=True)  # every entry a float64: kept as such, as for an .npz
        if fast is not None:
            return cls(*fast)
        fr = [to_fraction(x) for x in flat]
        return cls.from_fractions(fr, len(rows), ncols, name=name)

    @classmethod
    def from_fractions(cls, flat: Sequence[Fraction], nrows: int, ncols: int, *, name: str = "matrix") -> "QMatrix":
        """Build from a row-major flat list of Fractions over their least common denominator.

        Distinct large denominators multiply: a common denominator over the limit ``intermediate`` (decimal
        digits) is refused as soon as it is reached (30 distinct 4,300-digit denominators make 129,000 digits).
        """
        den, cap = 1, limit("intermediate") * 3322 // 1000 + 1
        for f in flat:
            if den % f.denominator:
                den = den * f.denominator // math.gcd(den, f.denominator)
                if den.bit_length() > cap:
                    raise over("intermediate", f"the common denominator of {name} (over {cap * 30103 // 100000:,} digits)")
        return cls(flint.fmpz_mat(nrows, ncols, [f.numerator * (den // f.denominator) for f in flat]), den)

    @classmethod
    def from_fmpq_mat(cls, m: flint.fmpq_mat) -> "QMatrix":
        """Exact conversion from FLINT's ``fmpq_mat``."""
        num, den = m.numer_denom()
        return cls(num, int(den))

    @classmethod
    def identity(cls, n: int) -> "QMatrix":
        return cls(flint.fmpz_mat(n, n, [int(i == j) for i in range(n) for j in range(n)]), 1)

    @classmethod
    def coerce(cls, a, *, name: str = "matrix") -> "QMatrix":
        """Accept a QMatrix, a NumPy array, an ``fmpz_mat``/``fmpq_mat`` or nested rows."""
        if isinstance(a, QMatrix):
            return a
        if isinstance(a, flint.fmpz_mat):
            return cls(a, 1)
        if isinstance(a, flint.fmpq_mat):
            return cls.from_fmpq_mat(a)
        if isinstance(a, np.ndarray) or tensor_array(a) is not a:  # arrays and PyTorch tensors
            return cls.from_numpy(a, name=name)
        rows = _rows_of(a, name)
        # Python floats with small integers: the fast float64 path, which is exact for them (not for
        # integers beyond 2**53, long doubles or anything else: those go entry by entry, exactly)
        if rows and all(type(x) is float or (type(x) is int and abs(x) <= 2**53) for r in rows for x in r):
            if any(type(x) is float for r in rows for x in r):
                return cls.from_numpy(np.asarray(rows, dtype=np.float64), name=name)
        return cls.from_rows(rows, name=name)

    # -- shape and access --------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        if self._num is None:
            return tuple(self._float.shape)
        return (self.num.nrows(), self.num.ncols())

    def transpose(self) -> "QMatrix":
        return QMatrix(self.num.transpose(), self.den)

    @property
    def T(self) -> "QMatrix":
        return self.transpose()

    def to_fractions(self) -> list[list[Fraction]]:
        """Rows of Fractions in lowest terms."""
        d = int(self.den)
        return [[Fraction(int(x), d) for x in row] for row in self.num.tolist()]

    def to_strings(self) -> list[list[str]]:
        """Rows of canonical rational strings (``"p/q"`` in lowest terms, or ``"p"``)."""
        if self._float is not None:
            return float_strings(self._float)
        d = int(self.den)
        if d & (d - 1) == 0:  # an integer or dyadic matrix: NumPy writes the text (exact/codecs/int_text.py)
            return _split(dyadic_row_texts(list(map(int, self.num.entries())), self.shape, d.bit_length() - 1),
                          self.shape[1])
        gcd = math.gcd
        out = []
        for row in self.num.tolist():
            r = []
            for x in row:
                x = int(x)
                g = gcd(x, d)
                r.append(str(x // g) if g == d else f"{x // g}/{d // g}")
            out.append(r)
        return out

    def row_strings(self, start: int, stop: int) -> list[list[str]]:
        """:meth:`to_strings` of rows ``start <= i < stop`` only (a block of a matrix too large to write whole).

        >>> QMatrix.from_rows([[1, 2], ["1/2", 3], [4, "-5/6"]]).row_strings(1, 3)
        [['1/2', '3'], ['4', '-5/6']]
        """
        if self._float is not None:
            return float_strings(self._float[start:stop])
        num, c = self.num, self.num.ncols()
        d = int(self.den)
        if d & (d - 1) == 0:
            return _split(self._dyadic_row_texts(start, stop), c)
        block = flint.fmpz_mat(stop - start, c, [num[i, j] for i in range(start, stop) for j in range(c)])
        return QMatrix(block, self.den).to_strings()

    def _dyadic_row_texts(self, start: int, stop: int) -> list[str]:
        num, c, d = self.num, self.num.ncols(), int(self.den)
        flat = [int(num[i, j]) for i in range(start, stop) for j in range(c)]
        return dyadic_row_texts(flat, (stop - start, c), d.bit_length() - 1)

    def row_texts(self, start: int, stop: int) -> list[str]:
        """The rows ``start <= i < stop`` of :meth:`to_strings`, each joined by single spaces (the instance text's
        rows; from a float64 source without a string per entry).

        >>> QMatrix.from_rows([[1, 2], ["1/2", 3], [4, "-5/6"]]).row_texts(1, 3)
        ['1/2 3', '4 -5/6']
        """
        if self._float is not None:
            return float_row_texts(self._float[start:stop])
        d = int(self.den)
        if d & (d - 1) == 0:
            return self._dyadic_row_texts(start, stop)
        return [" ".join(row) for row in self.row_strings(start, stop)]

    def to_fmpq_mat(self) -> flint.fmpq_mat:
        return flint.fmpq_mat(self.num) / int(self.den)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """``np.asarray(M)``: the 2-D object array of its exact Fractions (nothing rounded); ``np.asarray(M,
        dtype=float)`` asks for the nearest float64 values instead (as :meth:`to_float`).

        >>> np.asarray(QMatrix.from_rows([["1/3", 2]]))
        array([[Fraction(1, 3), Fraction(2, 1)]], dtype=object)
        >>> np.asarray(QMatrix.from_rows([["1/2", 2]]), dtype=float)
        array([[0.5, 2. ]])
        """
        if dtype is not None and np.dtype(dtype).kind == "f":
            return self.to_float().astype(dtype)
        r, c = self.shape
        out = np.empty((r, c), dtype=object)
        for i, row in enumerate(self.to_fractions()):
            out[i, :] = row
        return out if dtype is None else out.astype(dtype)

    def to_float(self) -> np.ndarray:
        """Nearest float64 array (for proposals and display only; never for exact claims)."""
        if self._float is not None:
            return self._float  # exactly the values
        r, c = self.shape
        d = int(self.den)
        try:
            vals = np.array(list(map(float, self.num.entries())), dtype=np.float64)
            if d & (d - 1) == 0:
                out = np.ldexp(vals, -(d.bit_length() - 1))
            else:
                out = vals / float(d)
            if np.all(np.isfinite(out)):
                return out.reshape(r, c)
        except OverflowError:
            pass
        return np.array([float_or_inf(Fraction(int(x), d)) for x in self.num.entries()], dtype=np.float64).reshape(r, c)

    def take_columns(self, idx: Iterable[int]) -> "QMatrix":
        idx = list(idx)
        rows = self.num.tolist()
        return QMatrix(flint.fmpz_mat([[row[j] for j in idx] for row in rows]) if idx else flint.fmpz_mat(len(rows), 0), self.den)

    def take_rows(self, idx: Iterable[int]) -> "QMatrix":
        idx = list(idx)
        rows = self.num.tolist()
        c = self.num.ncols()
        return QMatrix(flint.fmpz_mat(len(idx), c, [x for i in idx for x in rows[i]]), self.den)

    # -- arithmetic ------------------------------------------------------------------------
    def __matmul__(self, other: "QMatrix") -> "QMatrix":
        if self.shape[1] != other.shape[0]:
            raise InvalidInput(f"shape mismatch in product: {self.shape} @ {other.shape}")
        return QMatrix(self.num * other.num, int(self.den) * int(other.den))

    def __eq__(self, other) -> bool:
        if not isinstance(other, QMatrix):
            return NotImplemented
        if self.shape != other.shape:
            return False
        return self.num * int(other.den) == other.num * int(self.den)

    def __hash__(self):  # pragma: no cover - QMatrix is used as a value, not a key
        raise TypeError("QMatrix is unhashable")

    def reduced(self) -> "QMatrix":
        """The same matrix with ``den`` divided by the gcd of all entries and ``den``."""
        g = int(self.den)
        for x in self.num.entries():
            if g == 1:
                break
            g = math.gcd(g, int(x))
        if g == 1:
            return self
        return QMatrix(flint.fmpz_mat(self.num.nrows(), self.num.ncols(), [int(x) // g for x in self.num.entries()]), int(self.den) // g)

    def _entry_string(self, i: int, j: int) -> str:
        if self._num is None:
            p, q = float(self._float[i, j]).as_integer_ratio()
        else:
            p, q = int(self._num[i, j]), int(self.den)
        return format_rational(Fraction(p, q))

    def __repr__(self) -> str:
        """The entries as exact rationals, like NumPy: large (and empty) matrices also show their shape.

        Reads only the entries it shows (a lazy float matrix is not converted), and shortens an
        entry of more than 40 characters to its first and last digits.

        >>> QMatrix.from_rows([[1, "1/2"], [-3, 0]])
        QMatrix([[1, 1/2], [-3, 0]])
        >>> QMatrix.identity(9)  # doctest: +NORMALIZE_WHITESPACE
        QMatrix([[1, 0, 0, ..., 0, 0, 0], [0, 1, 0, ..., 0, 0, 0], [0, 0, 1, ..., 0, 0, 0], ...,
                 [0, 0, 0, ..., 1, 0, 0], [0, 0, 0, ..., 0, 1, 0], [0, 0, 0, ..., 0, 0, 1]], shape=(9, 9))
        >>> QMatrix.from_rows([[10**50 + 1]])
        QMatrix([[10000000000000000...(51 digits)...00000000000000001]])
        """
        r, c = self.shape
        edge, limit = 3, 6

        def picks(size: int) -> list[int | None]:
            return list(range(size)) if size <= limit else [*range(edge), None, *range(size - edge, size)]

        def entry(i: int, j: int) -> str:
            text = self._entry_string(i, j)
            if len(text) <= 40:
                return text
            return f"{text[:17]}...({sum(ch.isdigit() for ch in text)} digits)...{text[-17:]}"

        rows = []
        for i in picks(r):
            if i is None:
                rows.append("...")
                continue
            rows.append("[" + ", ".join("..." if j is None else entry(i, j) for j in picks(c)) + "]")
        body = "[" + ", ".join(rows) + "]"
        small = 0 < r <= limit and 0 < c <= limit
        return f"QMatrix({body})" if small else f"QMatrix({body}, shape=({r}, {c}))"


def _split(texts: list[str], ncols: int) -> list[list[str]]:
    """Row texts back into rows of strings (a row of no columns is empty, not [""])."""
    return [t.split(" ") for t in texts] if ncols else [[] for _ in texts]


def _rows_of(a, name: str) -> list[list]:
    """``a`` as a list of rows (lists), or InvalidInput: a matrix is a list of rows, each a list of numbers.

    >>> _rows_of([1, 1], "A_eq")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: A_eq must be a list of rows (each a list of numbers); row 0 is int
    """
    if isinstance(a, (str, bytes, dict)):
        raise InvalidInput(f"{name} must be a list of rows (each a list of numbers), got {type(a).__name__}")
    if type(a) is list and set(map(type, a)) == {list}:
        return a  # a list of lists already (what JSON gives): no copy of a million-entry matrix
    try:
        rows = list(a)
    except TypeError:
        raise InvalidInput(f"{name} must be a list of rows (each a list of numbers), got {type(a).__name__}") from None
    out = []
    for i, r in enumerate(rows):
        if isinstance(r, (str, bytes, dict)):
            raise InvalidInput(f"{name} must be a list of rows (each a list of numbers); row {i} is {type(r).__name__}")
        try:
            out.append(list(r))
        except TypeError:
            raise InvalidInput(f"{name} must be a list of rows (each a list of numbers); row {i} is {type(r).__name__}") from None
    return out
