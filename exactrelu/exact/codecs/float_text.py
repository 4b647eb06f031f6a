"""Canonical rational text of float64 arrays, made by NumPy: every finite double is ``M 2^e`` (M odd, |M| < 2^53),
so its text is ``[-]|M 2^max(e,0)|`` and, when e < 0, ``"/" + str(2^-e)``: integers below 2^63 and one of 1,075
denominators. The digits of each integer come from a table of the 10,000 four-digit groups; the pieces of every entry
are laid out in a padded byte array and the valid bytes compressed into one text (a boolean mask keeps them in order).
Only integers of 2^63 or more (doubles beyond 9.2e18 with e > 0) are written by Python, one by one.

Byte for byte the text of ``str(fractions.Fraction(x))`` (tests/exact/test_float_text.py).

>>> import numpy as np
>>> float_strings(np.array([[0.5, -3.0, 0.1], [-0.0, 2.0**70, 5e-324]]))[0]
['1/2', '-3', '3602879701896397/36028797018963968']
>>> float_row_texts(np.array([[0.5, -3.0], [6.0, -0.25]]))
['1/2 -3', '6 -1/4']
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["float_strings", "float_row_texts", "assemble_text", "digit_groups"]

#: bytes of the padded layout per block (the block's rows are cut so that it stays about this size)
BLOCK_BYTES = 1 << 23
_DIGITS = 20  # five groups of four digits: every integer below 2^63 < 10^19
_POW10 = np.array([10**i for i in range(1, 20)], dtype=np.uint64)


def float_strings(a: np.ndarray) -> list[list[str]]:
    """Canonical rational strings of a float64 array, row by row (exact; ``str(Fraction(x))`` for every entry).

    >>> float_strings(np.array([[0.5, -3.0, 0.1]]))
    [['1/2', '-3', '3602879701896397/36028797018963968']]
    """
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or not a.size or not np.isfinite(a).all():
        return [[_float_string(x) for x in row] for row in a.tolist()]
    rows = [row.split(" ") for row in _texts(a)]
    for i, j in zip(*np.nonzero(_big(a))):  # integers of 2^63 or more: Python writes them
        rows[i][j] = _float_string(float(a[i, j]))
    return rows


def float_row_texts(a: np.ndarray) -> list[str]:
    """The rows of :func:`float_strings` joined by single spaces (what the instance text holds), without a string
    object per entry.

    >>> float_row_texts(np.array([[1.0, 2.0**64]]))
    ['1 18446744073709551616']
    """
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or not a.size or not np.isfinite(a).all() or _big(a).any():
        return [" ".join(row) for row in float_strings(a)]
    return _texts(a)


def _float_string(x: float) -> str:
    p, q = x.as_integer_ratio()
    return str(p) if q == 1 else f"{p}/{q}"


def _big(a: np.ndarray) -> np.ndarray:
    """Entries whose integer part needs 64 bits or more (|x| >= 2^63): written one by one."""
    return np.abs(a) >= 2.0**63


def _texts(a: np.ndarray) -> list[str]:
    """Row texts of a finite 2-D array (entries of 2^63 or more hold a placeholder "0")."""
    rows_per_block = max(1, BLOCK_BYTES // (a.shape[1] * (_DIGITS + 24)))
    out: list[str] = []
    for start in range(0, a.shape[0], rows_per_block):
        text = _block_text(a[start:start + rows_per_block])
        out.extend(text.split("\n")[:-1])
    return out


def _block_text(a: np.ndarray) -> str:
    """The text of a block of rows: entries separated by " ", each row ended by "\\n".

    Laid out in four-byte words, one row of words per entry: a sign word ("-" or nothing), the numerator's decimal
    groups of four digits (from :func:`_group_words`: a group with no non-zero group before it has its leading zeros
    blank, and the last group of such a number writes 0 as "0"), ``"/" + str(2^t)`` as one item of words, a
    separator word; every blank byte (0) is then deleted (``bytearray.translate``), which keeps the rest in order.
    """
    mag, neg, den = _parts(a)
    ng = -(-int(np.searchsorted(_POW10, mag.max(initial=0), side="right") + 1) // 4)
    lengths = _denominators()[1]
    wd = -(-int(lengths[den].max(initial=0)) // 4)
    buf = bytearray(4 * mag.size * (ng + wd + 2))
    field = np.frombuffer(buf, dtype=np.uint32).reshape(mag.size, ng + wd + 2)
    field[:, 0] = np.where(neg, _word(b"-"), np.uint32(0))
    words, rest = _group_words(), mag
    for g in range(ng - 1, -1, -1):  # group g of ng, the most significant first
        rest, group = np.divmod(rest, np.uint64(10_000)) if g else (None, rest)
        # 0: four digits; 1: no non-zero group before (mag < 10^(4 (ng - g))), leading zeros blank; 2: the same
        # for the last group, where a lone 0 is "0"
        lead = mag < np.uint64(10 ** (4 * (ng - g))) if g else np.ones(mag.shape, dtype=bool)
        field[:, 1 + g] = words[group.astype(np.intp) + 10_000 * (lead.astype(np.intp) << (g == ng - 1))]
    if wd:
        field[:, 1 + ng:1 + ng + wd] = _denominator_words(wd)[den].view(np.uint32).reshape(mag.size, wd)
    field[:, -1] = _word(b" ")
    field.reshape(a.shape[0], a.shape[1], -1)[:, -1, -1] = _word(b"\n")  # the last entry of a row ends its line
    del field  # (the buffer's export ends; the text is read from it)
    return buf.translate(None, b"\0").decode("ascii")


def _word(char: bytes) -> np.uint32:
    """The four-byte word of one character and three blanks."""
    return np.frombuffer(char + bytes(3), dtype=np.uint32)[0]


@functools.cache
def _group_words() -> np.ndarray:
    """Three tables of 10,000 four-byte words: 0000 ... 9999; the same with leading zeros blank (0: four blanks);
    and that with 0 written "0"."""
    text = "".join(["%04d" % i for i in range(10_000)] + ["%4s" % (i or "") for i in range(10_000)]
                   + ["%4d" % i for i in range(10_000)])
    return np.frombuffer(text.replace(" ", "\0").encode("ascii"), dtype=np.uint32)


@functools.cache
def _denominator_words(words: int) -> np.ndarray:
    """``"/" + str(2^t)`` (t <= 1074) padded with blanks to ``words`` four-byte words, one item (4 ``words`` bytes)
    per t."""
    table, lengths = _denominators()
    out = np.zeros((table.shape[0], 4 * words), dtype=np.uint8)
    for t in range(table.shape[0]):
        w = min(int(lengths[t]), 4 * words)
        out[t, :w] = table[t, :w]
    return out.view(f"V{4 * words}").reshape(-1)


def assemble_text(digits: np.ndarray, ndig: np.ndarray, neg: np.ndarray, table: np.ndarray, lengths: np.ndarray,
                  den: np.ndarray, shape: tuple[int, int]) -> str:
    """The text of ``shape`` entries (row-major): entry i is ``"-"`` if ``neg[i]``, the last ``ndig[i]`` of its
    ``digits[i]`` (ASCII, right-aligned), the first ``lengths[den[i]]`` bytes of ``table[den[i]]``, then " " (or
    "\\n" at the end of a row; ``table`` rows hold at least one byte more than their length, a space).

    Entry i is laid out in a row of ``field``: its digits right-aligned after one spare byte (for the "-"), then
    its denominator and the separator; ``keep`` (one gather from a table of patterns) marks the bytes from the
    first character to the separator, and ``field[keep]`` is the text, in order.

    >>> digits = np.frombuffer(b"0012" b"0305", dtype=np.uint8).reshape(2, 4)
    >>> table = np.frombuffer(b"    " b"/2  ", dtype=np.uint8).reshape(2, 4)
    >>> assemble_text(digits, np.array([2, 3]), np.array([True, False]), table, np.array([0, 2]), np.array([1, 0]),
    ...               (1, 2))
    '-12/2 305\\n'
    """
    nd = digits.shape[1]
    width = int(lengths[den].max()) + 1  # the denominator and the separator
    start = nd + 1 - ndig - neg  # where the entry's text starts in its row of the layout
    field = np.empty((den.size, nd + 1 + width), dtype=np.uint8)
    field[:, 1:nd + 1] = digits
    field[:, nd + 1:] = table[den, :width]
    flat = field.reshape(-1)
    row_start = np.arange(den.size) * field.shape[1]
    flat[(row_start + start)[neg]] = ord("-")
    ends = (row_start + nd + 1 + lengths[den]).reshape(shape)[:, -1]
    flat[ends] = ord("\n")  # the last entry of each row ends its line
    keep = _patterns(nd, width)[start * (width + 1) + lengths[den]]
    return field[keep].tobytes().decode("ascii")


def _parts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(|numerator| as uint64, negative?, t of the denominator 2^t), flat, of a finite 2-D array: ``a = M 2^e``
    with M odd (or 0) and |M| < 2^53, so the numerator is ``M 2^max(e, 0)`` and t = max(-e, 0). Entries of 2^63
    or more get 0 (their text is written by Python)."""
    mant, ex = np.frexp(a.ravel())
    M = (mant * 2.0**53).astype(np.int64)  # a = M 2^e exactly, |M| < 2^53
    e = ex.astype(np.int64) - 53
    nz = M != 0
    tz = np.zeros_like(e)
    low = M[nz] & -M[nz]  # the lowest set bit of M
    tz[nz] = np.frexp(low.astype(np.float64))[1] - 1
    M >>= tz  # exact: now odd (or 0)
    e = np.where(nz, e + tz, 0)
    big = _big(a).ravel()
    up = np.where(big | (e < 0), 0, e).astype(np.uint64)
    mag = np.where(big, np.uint64(0), np.abs(M).astype(np.uint64) << up)  # below 2^63 (else 0)
    return mag, (M < 0) & ~big, np.where(e < 0, -e, 0)


@functools.cache
def _patterns(nd: int, width: int) -> np.ndarray:
    """Row ``s (width + 1) + l`` keeps the bytes ``s <= j <= nd + 1 + l`` of a layout row (text start s, a
    denominator of l characters, then the separator)."""
    j = np.arange(nd + 1 + width)
    s = np.repeat(np.arange(nd + 1), width + 1)
    ell = np.tile(np.arange(width + 1), nd + 1)
    return (j >= s[:, None]) & (j <= (nd + 1 + ell)[:, None])


def _digit_bytes(v: np.ndarray) -> np.ndarray:
    """The 20 decimal digits of each value (uint64 below 10^19), leading zeros included, as ASCII bytes (n x 20)."""
    groups = np.empty((v.size, _DIGITS // 4), dtype=np.intp)
    rest = v.copy()
    for g in range(_DIGITS // 4 - 1, -1, -1):
        rest, groups[:, g] = np.divmod(rest, np.uint64(10_000))
    return digit_groups()[groups].view(np.uint8).reshape(v.size, _DIGITS)


@functools.cache
def digit_groups() -> np.ndarray:
    """The ASCII text of 0000 ... 9999, one uint32 (four bytes) each."""
    text = "".join(f"{i:04d}" for i in range(10_000)).encode("ascii")
    return np.frombuffer(text, dtype=np.uint32)


@functools.cache
def _denominators() -> tuple[np.ndarray, np.ndarray]:
    """(table, lengths): row t of the table holds ``"/" + str(2^t)`` (empty for t = 0), then spaces; t up to 1074;
    ``lengths[t]`` is the length of the denominator's text."""
    texts = [b""] + [f"/{1 << t}".encode("ascii") for t in range(1, 1075)]
    lengths = np.array([len(t) for t in texts], dtype=np.intp)
    table = np.full((len(texts), int(lengths.max()) + 1), ord(" "), dtype=np.uint8)  # then the separator
    for t, text in enumerate(texts):
        table[t, :len(text)] = np.frombuffer(text, dtype=np.uint8)
    return table, lengths
