"""Canonical rational text of a dyadic matrix ``num / 2^s`` made by NumPy: each integer is written exactly into
32-bit limbs (``int.to_bytes``, which raises rather than truncate), then NumPy reduces ``x / 2^s`` by the trailing
zero bits of x (at most s), writes the numerator's decimal digits (long division of the limbs by 10^8) and
lays the text out with :func:`exactrelu.exact.codecs.float_text.assemble_text`. Byte for byte the text of
``str(Fraction(x, 2**s))`` (tests/exact/test_float_text.py).

>>> dyadic_row_texts([4, -3, 0, 10**30], (2, 2), 3)
['1/2 -3/8', '0 125000000000000000000000000000']
"""

from __future__ import annotations

import functools

import numpy as np

from .float_text import assemble_text, digit_groups

__all__ = ["dyadic_row_texts", "MAX_SHIFT"]

#: denominators 2^s with s above this are written by Python (their table would be large)
MAX_SHIFT = 4096
#: matrices of at most this many entries are written by Python (NumPy's set-up would cost more)
SMALL = 64
#: integers of more bits than this are written by Python
MAX_BITS = 320
#: entries written per NumPy block (about 100 bytes of work arrays each)
BLOCK_ENTRIES = 1 << 16
_MASK = np.uint64(0xFFFFFFFF)


def dyadic_row_texts(flat: list[int], shape: tuple[int, int], s: int) -> list[str]:
    """The row texts (entries joined by single spaces) of the ``shape`` matrix ``flat / 2^s`` (row-major ints).

    >>> dyadic_row_texts([-6, 1], (1, 2), 0)
    ['-6 1']
    """
    n, c = shape
    if n * c <= SMALL or s > MAX_SHIFT:
        return [" ".join(_python_text(x, s) for x in flat[i * c:(i + 1) * c]) for i in range(n)]
    rows = max(1, BLOCK_ENTRIES // c)
    out: list[str] = []
    for a in range(0, n, rows):
        b = min(n, a + rows)
        out.extend(_block_texts(flat[a * c:b * c], (b - a, c), s))
    return out


def _block_texts(flat: list[int], shape: tuple[int, int], s: int) -> list[str]:
    n, c = shape
    bits = max(map(int.bit_length, flat)) + 1  # the sign bit too
    if bits > MAX_BITS:  # long integers: the limb arithmetic below grows with the square of their length
        return [" ".join(_python_text(x, s) for x in flat[i * c:(i + 1) * c]) for i in range(n)]
    L = max(1, -(-bits // 32))
    buf = b"".join([x.to_bytes(4 * L, "little", signed=True) for x in flat])  # exact, or OverflowError
    limbs = np.frombuffer(buf, dtype="<u4").reshape(n * c, L).astype(np.uint64)
    neg, mag = _magnitude(limbs)
    t = np.minimum(_trailing_zeros(mag), s)
    zero = ~mag.any(axis=1)
    t[zero] = s  # 0 is "0"
    mag = _shift_right(mag, np.minimum(t, 32 * L))  # 0 stays 0
    digits = _decimal(mag)
    first = np.argmax(digits != ord("0"), axis=1)
    ndig = np.where(zero, 1, digits.shape[1] - first)
    table, lengths = _denominators(s)
    return assemble_text(digits, ndig, neg, table, lengths, s - t, shape).split("\n")[:-1]


def _python_text(x: int, s: int) -> str:
    t = min((x & -x).bit_length() - 1, s) if x else s
    return str(x >> t) if t == s else f"{x >> t}/{1 << (s - t)}"


def _magnitude(limbs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(negative?, |x| in 32-bit limbs) of two's complement limbs (little-endian, uint64 holding 32 bits each)."""
    neg = (limbs[:, -1] >> np.uint64(31)) == 1
    mag = limbs.copy()
    carry = neg.astype(np.uint64)
    for l in range(limbs.shape[1]):  # -x = ~x + 1 for the negative ones
        v = np.where(neg, limbs[:, l] ^ _MASK, limbs[:, l]) + carry
        mag[:, l], carry = v & _MASK, v >> np.uint64(32)
    return neg, mag


def _trailing_zeros(mag: np.ndarray) -> np.ndarray:
    """Trailing zero bits of each multi-limb value (32 L for 0)."""
    L = mag.shape[1]
    tz = np.full(mag.shape[0], 32 * L, dtype=np.int64)
    for l in range(L - 1, -1, -1):  # the lowest non-zero limb decides (written last)
        v = mag[:, l]
        low = v & (np.uint64(0) - v)
        _, e = np.frexp(low.astype(np.float64))  # exact: a power of two below 2^32
        tz = np.where(v != 0, 32 * l + e.astype(np.int64) - 1, tz)
    return tz


def _shift_right(mag: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Each multi-limb value shifted right by its own t (0 <= t <= 32 L)."""
    N, L = mag.shape
    padded = np.concatenate([mag, np.zeros((N, L + 1), dtype=np.uint64)], axis=1)
    q, r = (t // 32)[:, None], (t % 32).astype(np.uint64)[:, None]
    idx = np.arange(L)[None, :] + q
    lo = np.take_along_axis(padded, idx, axis=1)
    hi = np.take_along_axis(padded, idx + 1, axis=1)
    return ((lo >> r) | (hi << (np.uint64(32) - r))) & _MASK


def _decimal(mag: np.ndarray) -> np.ndarray:
    """The decimal digits (ASCII, leading zeros, a multiple of 8 of them) of each multi-limb value."""
    N, L = mag.shape
    rounds = -(-(32 * L * 30103 // 100000 + 1) // 8)
    work = mag.copy()
    groups = np.empty((N, 2 * rounds), dtype=np.intp)
    base = np.uint64(10**8)
    for g in range(rounds - 1, -1, -1):
        rem = np.zeros(N, dtype=np.uint64)
        for l in range(L - 1, -1, -1):  # (rem 2^32 + limb) < 10^8 2^32 < 2^59
            cur = (rem << np.uint64(32)) | work[:, l]
            work[:, l], rem = cur // base, cur % base
        groups[:, 2 * g], groups[:, 2 * g + 1] = np.divmod(rem, np.uint64(10_000))
    return digit_groups()[groups].view(np.uint8).reshape(N, 8 * rounds)


@functools.lru_cache(maxsize=8)
def _denominators(s: int) -> tuple[np.ndarray, np.ndarray]:
    """Row u: ``"/" + str(2^u)`` (empty for u = 0), then spaces, for u <= s; and the texts' lengths."""
    texts = [b""] + [f"/{1 << u}".encode("ascii") for u in range(1, s + 1)]
    lengths = np.array([len(x) for x in texts], dtype=np.intp)
    table = np.full((len(texts), int(lengths.max()) + 1), ord(" "), dtype=np.uint8)
    for u, text in enumerate(texts):
        table[u, :len(text)] = np.frombuffer(text, dtype=np.uint8)
    return table, lengths
