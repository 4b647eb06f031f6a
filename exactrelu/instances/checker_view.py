"""The instance as the independent checker reads it: rows of canonical text, or rows of floats, made a block at a
time for large instances.

:func:`checker_instance` gives :func:`exactrelu.certificates.envelope.verify` (and the tests) the ``{"inputs",
"labels", "activation"}`` the checker takes; :class:`StringRows` and :class:`FloatRows` are the row adapters that make
a matrix's rows only when the checker slices them (nothing cached), so that an instance too large to keep its text
(:data:`STREAM_ENTRIES`) is hashed and checked block by block.

>>> from exactrelu.instances import planted
>>> data = checker_instance(planted(d=3, k=2, m=2, n=40, seed=1))
>>> len(data["inputs"]), data["activation"]
(40, {'name': 'relu'})
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

from .. import parallel
from .instance import Instance

__all__ = ["STREAM_ENTRIES", "BlockRows", "StringRows", "FloatRows", "DyadicRows", "streamed", "checker_instance",
           "fast_instance"]

#: Instances of more entries n (d + m) than this are written and checked in blocks of rows of text (never the
#: whole text at once, which takes about 100 bytes per entry); smaller ones keep their text (cached, read twice).
STREAM_ENTRIES = 4_000_000


class BlockRows(Sequence):
    """Rows of a matrix made block by block when sliced (nothing cached): :meth:`block` gives rows start..stop-1."""

    def __init__(self, matrix) -> None:
        self.matrix = matrix

    def __len__(self) -> int:
        return self.matrix.shape[0]

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            if step != 1:
                raise ValueError(f"{type(self).__name__} slices have step 1")
            return self.block(start, max(start, stop))
        i = range(len(self))[key]
        return self.block(i, i + 1)[0]

    @abstractmethod
    def block(self, start: int, stop: int) -> list:
        """Rows ``start <= i < stop``."""


class StringRows(BlockRows):
    """The canonical rational strings of a matrix's rows, made block by block when sliced (nothing cached).

    >>> from exactrelu.exact import QMatrix
    >>> rows = StringRows(QMatrix.from_rows([[1, "1/2"], [3, 4]]))
    >>> len(rows), rows[1], rows[0:1]
    (2, ['3', '4'], [['1', '1/2']])
    """

    def block(self, start: int, stop: int) -> list:
        return self.matrix.row_strings(start, stop)


class DyadicRows(StringRows):
    """The rows of an exact matrix ``num / 2^s`` for the fast checker: :meth:`dyadic_block` gives a block's numerators
    (Python integers, row-major) and s, from FLINT's entries taken once here, before any worker is forked (their
    text is made by the checker); sliced, the rows' canonical strings, as :class:`StringRows` (for the reference).

    >>> from exactrelu.exact import QMatrix
    >>> rows = DyadicRows(QMatrix.from_rows([["1/2", 3], [4, "-5/4"]]))
    >>> rows.dyadic_block(1, 2), rows[0]
    (([16, -5], 2), ['1/2', '3'])
    """

    def __init__(self, matrix) -> None:
        super().__init__(matrix)
        self.shift = int(matrix.den).bit_length() - 1
        self.entries = matrix.num.entries()

    def dyadic_block(self, start: int, stop: int) -> tuple[list[int], int]:
        c = self.matrix.shape[1]
        return list(map(int, self.entries[start * c:stop * c])), self.shift


class FloatRows(BlockRows):
    """The rows of a float64 array as lists of Python floats, made block by block when sliced: what the checker
    reads from an .npz instance (it makes the canonical text of each float itself, ``float.as_integer_ratio``).

    >>> import numpy as np
    >>> rows = FloatRows(np.array([[0.5, -0.0], [3.0, 2.0**-1074]]))
    >>> len(rows), rows[0], rows[1:2]
    (2, [0.5, -0.0], [[3.0, 5e-324]])
    """

    def block(self, start: int, stop: int) -> list:
        return self.matrix[start:stop].tolist()


def streamed(instance: Instance) -> bool:
    """Whether ``instance`` is too large to keep its text (:data:`STREAM_ENTRIES`) and none is cached: its text is
    then made a block of rows at a time, for the hash and for the check."""
    return instance.n * (instance.d + instance.m) > STREAM_ENTRIES and "_input_strings" not in instance._cache


def checker_instance(instance: Instance) -> dict:
    """The instance as the checker reads it: rows of canonical rational strings (a JSON file's), or rows of floats
    (an .npz file's) for a matrix of float64 values, whose text the checker then makes itself.

    An instance too large to keep its text (:data:`STREAM_ENTRIES`) or large enough to be checked on workers
    (:data:`exactrelu.parallel.PARALLEL_CHECK_ENTRIES`; its hash may have been made ahead, in a child) gets rows
    made a block at a time, by the workers that check them: its float64 matrices as floats (:class:`FloatRows`; the
    checker reads a row of floats in about 60% of the time it takes to read its text back, so even cached text is
    not used), its exact ones as text (:class:`StringRows`, or the cached text). A small one gets its text, made
    once and cached.
    """
    entries = instance.n * (instance.d + instance.m)
    lazy = entries > STREAM_ENTRIES or entries >= parallel.PARALLEL_CHECK_ENTRIES

    def rows(matrix, key, strings):
        floats = matrix.float_source if lazy else None  # float64 values: the checker makes their text itself
        if floats is not None:  # (as from an .npz), faster than reading text back even when the text is cached
            return FloatRows(floats[0])
        return strings() if key in instance._cache or not lazy else StringRows(matrix)

    return {
        "inputs": rows(instance.inputs, "_input_strings", instance.input_strings),
        "labels": rows(instance.labels, "_label_strings", instance.label_strings),
        "activation": instance.activation.to_json() if instance.activation else None,
    }


def fast_instance(instance: Instance) -> dict:
    """The instance as the fast checker (:mod:`exactrelu.certificates.fast`) reads it: a matrix of float64 values as
    the array the library holds (no copy, no text), an exact one as its cached text, or as :class:`DyadicRows` (its
    integers over a power of two), or as rows of canonical text made a block at a time (:class:`StringRows`).

    >>> from exactrelu.instances import planted
    >>> data = fast_instance(planted(d=3, k=2, m=2, n=40, seed=1))
    >>> type(data["inputs"]).__name__, type(data["labels"]).__name__
    ('ndarray', 'DyadicRows')
    """
    def rows(matrix, key, strings):
        floats = matrix.float_source
        if floats is not None:
            return floats[0]
        if key in instance._cache:
            return strings()
        den = int(matrix.den)
        return DyadicRows(matrix) if den & (den - 1) == 0 else StringRows(matrix) if streamed(instance) else strings()

    return {
        "inputs": rows(instance.inputs, "_input_strings", instance.input_strings),
        "labels": rows(instance.labels, "_label_strings", instance.label_strings),
        "activation": instance.activation.to_json() if instance.activation else None,
    }
