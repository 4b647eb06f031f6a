"""Where the rows of an instance come from, a block at a time, for the fast checker and for the reference.

A matrix (the inputs or the labels) is one of:

* a 2-D float64 NumPy array (the library's float data, handed over as it is held: no copy, no text);
* the rows of an .npz member as the reference's reader opens them (``trusted/npz.py``: :class:`NpzRows`), read here
  as raw bytes a block at a time (float64, float32, and int64 / int32 whose values float64 holds exactly);
* a sequence of rows (a JSON file's, or the library's text of an exact matrix): rows of canonical text are read by
  :func:`~.numbers.from_text`, rows of Python floats as a float64 array;
* a sequence of rows that also has ``dyadic_block(a, b)``, giving the numerators of rows a..b-1 (row-major Python
  integers p) and one s with every entry ``p / 2^s`` (the library's exact dyadic matrices): read by
  :func:`~.numbers.from_integers`, which writes their text.

:func:`block` gives the numbers and the rows' text of rows a..b-1, or None when the fast checker does not read them
(the reference then reads those rows: :func:`reference_view` is the instance as the reference takes it).

>>> import numpy as np
>>> nums, texts = block(np.array([[0.25, 3.0], [1.0, -0.5]]), 1, 2)
>>> texts
[b'1 -1/2']
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence

import numpy as np

from ..trusted.common import UnreadableInput, limit
from ..trusted.npz import NpzRows
from .numbers import Numbers, from_floats, from_integers, from_text

__all__ = ["block", "reference_view", "ArrayRows"]

_NPZ_DTYPES = {"d": "f8", "f": "f4", "q": "i8", "i": "i4"}


class ArrayRows(Sequence):
    """The rows of a 2-D array as lists of Python numbers when sliced (what the reference reads from an .npz).

    >>> ArrayRows(np.array([[0.5, 1.0]]))[0:1]
    [[0.5, 1.0]]
    """

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __len__(self) -> int:
        return self.array.shape[0]

    def __getitem__(self, key):
        return self.array[key].tolist()


def reference_view(instance: dict) -> dict:
    """The instance with its float64 arrays as :class:`ArrayRows`: what the reference checker slices."""
    return {**instance, **{name: ArrayRows(instance[name]) for name in ("inputs", "labels")
                           if isinstance(instance[name], np.ndarray)}}


def block(matrix, a: int, b: int) -> tuple[Numbers, list[bytes]] | None:
    """(numbers, text of each row) of rows a..b-1 of a matrix, or None when the fast checker does not read them."""
    if isinstance(matrix, np.ndarray):
        return _from_array(matrix[a:b]) if matrix.ndim == 2 else None
    if isinstance(matrix, NpzRows):
        return _from_npz(matrix, a, b)
    if hasattr(matrix, "dyadic_block"):
        ints, shift = matrix.dyadic_block(a, b)
        return from_integers(ints, shift, (b - a, len(ints) // (b - a)))
    rows = matrix[a:b]
    if not rows or not isinstance(rows[0], list) or not rows[0]:
        return None
    if type(rows[0][0]) is float:
        return _from_floats(rows)
    try:
        texts = [" ".join(row).encode("ascii") for row in rows]
    except (TypeError, UnicodeEncodeError):  # an entry that is not a string, or not ASCII
        return None
    numbers = from_text(texts, len(rows[0]), limit("digits"))  # longer: the reference reads (and may refuse) it
    return None if numbers is None else (numbers, texts)


def _from_array(x: np.ndarray):
    if x.dtype == np.float64 or x.dtype == np.float32:
        return from_floats(np.asarray(x, dtype=np.float64))
    if x.dtype.kind == "i" and ((x >= -2**53) & (x <= 2**53)).all():  # every such integer is a float64
        return from_floats(x.astype(np.float64))
    return None


def _from_floats(rows: list):
    """Rows of Python floats (an .npz member in Fortran order, read whole by the reference's reader)."""
    if any(len(row) != len(rows[0]) or set(map(type, row)) != {float} for row in rows):
        return None
    return from_floats(np.array(rows, dtype=np.float64))


def _from_npz(rows: NpzRows, a: int, b: int):
    """Rows a..b-1 of a C-order .npz member, from its bytes (the reference's reader finds and checks the member)."""
    count = (b - a) * rows.cols
    try:
        data = rows._bytes(rows.start + a * rows.cols * rows.size, count * rows.size)
    except (UnreadableInput, zipfile.BadZipFile, NotImplementedError, EOFError, OSError, ValueError):
        return None  # the reference reads the rows again and names what is wrong
    if len(data) != count * rows.size:
        return None
    dtype = np.dtype(rows.fmt[0] + _NPZ_DTYPES[rows.fmt[1]])
    return _from_array(np.frombuffer(data, dtype=dtype).reshape(b - a, rows.cols))
