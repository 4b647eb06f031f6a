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

from ...errors import InvalidInput
from ...limits import limit

__all__ = ["parse_rational_strings", "parse_rational_bytes", "rows_of"]

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
    return parse_rational_bytes(data, nrows, ncols)


def parse_rational_bytes(data: bytes, nrows: int, ncols: int):
    """As :func:`parse_rational_strings`, for the entries already joined by ``,`` into ASCII bytes (the instance
    reader joins the rows of a JSON array at once: :mod:`exactrelu.io.instance_file`).

    >>> parse_rational_bytes(b"1/2,-3", 1, 2)
    array([[ 0.5, -3. ]])
    >>> parse_rational_bytes(b"1/2,-3", 1, 3) is None  # two entries, not three
    True
    """
    if not data or nrows * ncols < 1:
        return None
    if data.translate(None, b"0123456789/,-"):
        return None  # characters beyond -?[0-9/]
    b = np.frombuffer(data, dtype=np.uint8)
    flat = data.replace(b"/", b",")  # the tokens, for the bulk integer parser
    bounds = np.flatnonzero(np.frombuffer(flat, dtype=np.uint8) == 44)  # every token ends at one (or at the end)
    is_slash = b[bounds] == 47
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
    commas = bounds[~is_slash]
    entries = nrows * ncols
    if len(commas) + 1 != entries:
        return None
    has_den = np.zeros(entries, dtype=bool)
    slashes = bounds[is_slash]
    has_den[np.searchsorted(commas, slashes)] = True  # the entry of each '/'
    if len(slashes) != int(has_den.sum()):
        return None  # two '/' in one entry: "1/2/3"
    count = len(bounds) + 1
    starts, lengths = token_starts, lengths
    long = np.flatnonzero(lengths > 18)
    tokens = _tokens(flat, count, long, starts, lengths)
    if tokens is None:
        return None
    first = np.arange(entries) + np.cumsum(has_den) - has_den  # each entry's numerator among the tokens
    return _matrix(tokens, long, first, has_den, nrows, ncols)


def _tokens(data: bytes, count: int, long: np.ndarray, starts: np.ndarray, lengths: np.ndarray):
    """The ``count`` integers of ``data`` (digit strings with an optional '-', separated by ','), or None when
    one is malformed ("", "-", "1-2", "1/2/3"): ``(values, long_values)``, an int64 array of every token of at most
    18 characters (parsed in C; 0 at the others) and the Python ints of the longer ones (at the indices ``long``).

    The long tokens are few in float data (the denominators of entries below about 2**-8 in magnitude: 2**60 has
    19 digits), so they are read one by one (each distinct one once) and the others in bulk with them blanked out.
    """
    long_values: list[int] = []
    if len(long):
        cache: dict[bytes, int] = {}
        pieces, at = [], 0
        try:
            for a, n in zip(starts[long].tolist(), lengths[long].tolist()):
                text = data[a:a + n]
                value = cache.get(text)
                if value is None:
                    value = cache[text] = int(text)
                long_values.append(value)
                pieces += (data[at:a], b"0")  # the long token becomes "0", a placeholder the bulk parser reads
                at = a + n
        except ValueError:
            return None
        pieces.append(data[at:])
        data = b"".join(pieces)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy warns (and stops) at a token it cannot read
        try:
            values = np.fromstring(data, dtype=np.int64, sep=",")
        except (ValueError, DeprecationWarning):
            return None
    return (values, long_values) if len(values) == count else None


def _dyadic(nums: np.ndarray, exps: np.ndarray, nrows: int, ncols: int):
    """``nums * 2**-exps`` as float64, when every entry is exactly a float64 (checked: no overflow, no rounding
    into the subnormals, no underflow); else None."""
    nf = nums.astype(np.float64)
    with np.errstate(over="ignore", under="ignore"):
        floats = np.ldexp(nf, -exps)
        back = np.ldexp(floats, exps)
    if np.isfinite(floats).all() and np.array_equal(back, nf):  # 3/2**1075 rounds to 2**-1073: refused here
        return floats.reshape(nrows, ncols)
    return None


def _matrix(tokens, long: np.ndarray, first: np.ndarray, has_den: np.ndarray, nrows: int, ncols: int):
    values, long_values = tokens
    if len(values) == 2 * len(first):  # every entry 'p/q' (float data): numerators and denominators alternate
        nums, dens = values[0::2], values[1::2]
    else:
        nums = values[first]
        dens = np.ones(len(first), dtype=np.int64)
        dens[has_den] = values[first[has_den] + 1]
    if not len(long):
        if dens.min() <= 0:
            return None  # a zero or negative denominator: the general path names it
        if not (dens & (dens - 1)).any() and np.abs(nums).max() < 2**53:  # powers of two: float64 exactly?
            exps = np.log2(dens.astype(np.float64)).astype(np.int64)  # exact: powers of two below 2**60
            floats = _dyadic(nums, exps, nrows, ncols)
            if floats is not None:
                return floats
        distinct = np.unique(dens)  # a sort: only for denominators other than powers of two
        den = math.lcm(*distinct.tolist())
        if den <= _INT64 and int(np.abs(nums).max()) * int(den // distinct.min()) <= _INT64:
            scaled = nums * (den // dens)  # every scaled numerator fits int64: one vectorised product
            return flint.fmpz_mat(nrows, ncols, scaled.tolist()), den
    else:
        is_long = np.zeros(len(values), dtype=bool)
        is_long[long] = True
        den_at = np.minimum(first + 1, len(values) - 1)  # each entry's denominator among the tokens (if it has one)
        long_den = has_den & is_long[den_at]
        short_dens = dens[~long_den]
        if (not is_long[first].any() and (short_dens > 0).all() and not (short_dens & (short_dens - 1)).any()
                and np.abs(nums).max() < 2**53 and all(d > 0 and d & (d - 1) == 0 for d in set(long_values))):
            # float data: only denominators are long, and every denominator is a power of two
            exps = np.zeros(len(first), dtype=np.int64)
            exps[~long_den] = np.log2(dens[~long_den].astype(np.float64)).astype(np.int64)
            where = dict(zip(long.tolist(), long_values))
            exps[long_den] = [where[t].bit_length() - 1 for t in den_at[long_den].tolist()]
            floats = _dyadic(nums, exps, nrows, ncols)
            if floats is not None:
                return floats
    tokens = values.astype(object)  # Python ints: vectorised indexing and products, exact
    if len(long):
        tokens[long] = long_values
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
        floats = _dyadic(nums.astype(np.int64), exps, nrows, ncols)
        if floats is not None:
            return floats
    den = math.lcm(*distinct)
    factor = {d: den // d for d in distinct}
    scale = np.array(list(map(factor.__getitem__, dens)), dtype=object) if len(distinct) > 1 else factor[dens[0]]
    scaled = nums * scale
    return flint.fmpz_mat(nrows, ncols, scaled.tolist()), den


def rows_of(a, name: str) -> list[list]:
    """``a`` as a list of rows (lists), or InvalidInput: a matrix is a list of rows, each a list of numbers.

    >>> rows_of([1, 1], "A_eq")
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
            raise InvalidInput(f"{name} must be a list of rows (each a list of numbers); "
                               f"row {i} is {type(r).__name__}") from None
    return out
