"""Matrices of rational strings read fast: the JSON instance's ``"p/q"`` and ``"p"`` entries without a Fraction each.

:meth:`QMatrix.from_rows` reads any entry (decimals, ``+``, spaces, JSON integers) through
:func:`~exactrelu.exact.rationals.to_fraction`, about 7 us an entry. Instance files written by this project hold
only canonical strings ``-?[0-9]+(/[0-9]+)?``; :func:`parse_rational_strings` reads those in bulk: the entries
joined, checked and parsed in C (``numpy.fromstring`` with a separator, for integers of at most 18 digits;
``int`` over the pieces otherwise), the common denominator taken over the distinct denominators only. When
every entry is a float64 (a dyadic rational with a numerator below 2**53, as the inputs of float data are), the
result is the float64 array itself, converted to FLINT on first use as for an ``.npz``; otherwise int64 or
Python-integer numerators go to FLINT over the common denominator. 0.1-0.3 us an entry (benchmarks/bench_read.py).

It accepts exactly what :func:`~exactrelu.exact.rationals.to_fraction` accepts among such strings, with the same
values, and answers None (the caller then takes the entry-by-entry path, which also gives the precise error)
for anything else: another character, an empty part, a zero or negative denominator, more digits than the
``digits`` limit allows.

>>> parse_rational_strings(["1/2", "-3", "5/4", "0"], 2, 2)  # dyadic: the float64 array it is
array([[ 0.5 , -3.  ],
       [ 1.25,  0.  ]])
>>> num, den = parse_rational_strings(["1/3", "2"], 1, 2)
>>> num.tolist(), den
([[1, 6]], 3)
>>> parse_rational_strings(["0.5"], 1, 1) is None  # a decimal: the general path reads it
True
"""

from __future__ import annotations

import math
import warnings

import flint
import numpy as np

from ..limits import limit

__all__ = ["parse_rational_strings"]

_INT64 = 2**63 - 1


def parse_rational_strings(flat: list, nrows: int, ncols: int):
    """The exact values of ``nrows * ncols`` canonical rational strings (row-major): a float64 array (every entry
    a float64, exactly), or ``(numerators as fmpz_mat, common denominator)``; or None (see the module doc).
    :meth:`QMatrix.from_rows` builds the matrix from either."""
    if len(flat) != nrows * ncols or not flat:
        return None
    try:
        data = ",".join(flat).encode("ascii")  # TypeError: not all strings; UnicodeEncodeError: not ASCII
    except (TypeError, UnicodeEncodeError):
        return None
    if data.translate(None, b"0123456789/,-"):
        return None  # characters beyond -?[0-9/]
    b = np.frombuffer(data, dtype=np.uint8)
    slash = b == 47
    bounds = np.flatnonzero((b == 44) | slash)  # every token ends at one of these (or at the end)
    lengths = np.diff(bounds, prepend=-1, append=len(b)) - 1
    token_starts = np.concatenate(([0], bounds + 1))
    minus = np.flatnonzero(b == 45)
    signed = np.searchsorted(token_starts, minus)  # the token each '-' would start
    if lengths.min() < 1 or (len(minus) and (signed >= len(token_starts)).any()):
        return None  # an empty token: "", "1/", "/2"
    if len(minus) and ((token_starts[signed] != minus).any() or (lengths[signed] < 2).any()):
        return None  # a '-' inside a token ("1-2"), or alone ("-")
    longest = int(lengths.max())
    if longest > limit("digits"):
        return None  # long integers: the digit limit applies entry by entry
    commas = np.flatnonzero(b == 44)
    if len(commas) + 1 != len(flat):
        return None
    has_den = np.zeros(len(flat), dtype=bool)
    has_den[np.searchsorted(commas, np.flatnonzero(slash))] = True  # the entry of each '/'

    if int(slash.sum()) != int(has_den.sum()):
        return None  # two '/' in one entry: "1/2/3"
    count = len(bounds) + 1
    tokens = _tokens(data.replace(b"/", b","), count, longest)
    if tokens is None:
        return None
    first = np.arange(len(flat)) + np.cumsum(has_den) - has_den  # each entry's numerator among the tokens
    return _matrix(tokens, first, has_den, nrows, ncols)


def _tokens(data: bytes, count: int, longest: int):
    """The ``count`` integers of ``data`` (digit strings with an optional '-', separated by ','), or None when
    one is malformed ("", "-", "1-2", "1/2/3"): an int64 array when every one has at most 18 characters (parsed
    in C), else a list of Python ints."""
    if longest <= 18:  # |value| < 10**18: int64 holds every token, so NumPy's parser cannot overflow
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # NumPy warns (and stops) at a token it cannot read
            try:
                values = np.fromstring(data, dtype=np.int64, sep=",")
            except (ValueError, DeprecationWarning):
                return None
        return values if len(values) == count else None
    try:
        values = list(map(int, data.split(b",")))
    except ValueError:
        return None
    return values if len(values) == count else None


def _matrix(tokens, first: np.ndarray, has_den: np.ndarray, nrows: int, ncols: int):
    values = tokens if isinstance(tokens, np.ndarray) else None
    if values is not None:
        nums = values[first]
        dens = np.ones(len(first), dtype=np.int64)
        dens[has_den] = values[first[has_den] + 1]
        if dens.min() <= 0:
            return None  # a zero or negative denominator: the general path names it
        distinct = np.unique(dens)
        if not (distinct & (distinct - 1)).any() and np.abs(nums).max() < 2**53:  # powers of two: float64 exactly
            floats = np.ldexp(nums.astype(np.float64), -np.log2(dens.astype(np.float64)).astype(np.int64))
            return floats.reshape(nrows, ncols)
        den = math.lcm(*distinct.tolist())
        if den <= _INT64 and int(np.abs(nums).max()) * int(den // distinct.min()) <= _INT64:
            scaled = nums * (den // dens)  # every scaled numerator fits int64: one vectorised product
            return flint.fmpz_mat(nrows, ncols, scaled.tolist()), den
    tokens = np.array(tokens, dtype=object)  # Python ints: vectorised indexing and products, exact
    nums = tokens[first]
    dens = np.ones(len(first), dtype=object)
    dens[has_den] = tokens[first[has_den] + 1]
    dens = dens.tolist()
    distinct = set(dens)
    if min(distinct) <= 0:
        return None
    if all(d & (d - 1) == 0 for d in distinct) and max(abs(int(nums.max())), abs(int(nums.min()))) < 2**53:
        shift = {d: d.bit_length() - 1 for d in distinct}  # float64 inputs: dyadic, with a 53-bit numerator
        exps = np.fromiter(map(shift.__getitem__, dens), dtype=np.int64, count=len(dens))
        floats = np.ldexp(nums.astype(np.float64), -exps)
        if np.isfinite(floats).all() and (floats != 0).sum() == (nums != 0).sum():  # no overflow, no underflow
            return floats.reshape(nrows, ncols)
    den = math.lcm(*distinct)
    factor = {d: den // d for d in distinct}
    scale = np.array(list(map(factor.__getitem__, dens)), dtype=object) if len(distinct) > 1 else factor[dens[0]]
    scaled = nums * scale
    return flint.fmpz_mat(nrows, ncols, scaled.tolist()), den
