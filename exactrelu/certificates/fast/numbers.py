"""The numbers of a block of instance rows, exactly, and their canonical text. NumPy and the standard library only.

Every number of a block is held as ``(-1)^neg * mag * 2^(-t)``: ``mag`` a non-negative integer in unsigned 24-bit
limbs (``mag[u]`` in [0, 2^24)), t an integer (negative for an integer with trailing zero bits). Two sources:

* **float64 arrays** (:func:`from_floats`): ``frexp`` gives x = m 2^e exactly; ``M = m 2^53`` is an integer below 2^53
  and its trailing zero bits are moved into the exponent, so M is odd: x = M 2^(e - 53) in lowest terms. The text is
  what ``float.as_integer_ratio`` gives, ``"p/q"`` or ``"p"``: the sign, the decimal digits of M (or of M 2^E for
  an integer, through uint64 below 2^64; larger integers are written by Python), and ``"/" + str(2^t)`` from a table.
* **rows of canonical text** (:func:`from_text`): accepted only when every entry is ``-?(0|[1-9][0-9]*)`` or such
  a numerator, odd, over ``/`` and the decimal text of 2^t, t >= 1: then the text is the hashed text as it stands
  and the numbers are read from it (decimal digits, eight at a time, into limbs). Anything else (decimals,
  other denominators, non-canonical text, JSON integers) is None: the reference reads those rows.

>>> nums, texts = from_floats(np.array([[0.5, -3.0, 0.1], [-0.0, 2.0**70, 5e-324]]))
>>> texts[0], texts[1][:26]
(b'1/2 -3 3602879701896397/36028797018963968', b'0 1180591620717411303424 1')
>>> from_text([b"1/2 -3", b"0 -7/8"], 2, 100).t.tolist()
[1, 0, 0, 3]
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Numbers", "from_floats", "from_integers", "from_text"]

_W = 24
_FILL = 0  # the byte that pads the layout of a text; every 0 byte is deleted at the end
_POW10 = np.array([10**i for i in range(1, 20)], dtype=np.uint64)


@dataclass
class Numbers:
    """``(-1)^neg * mag * 2^(-t)`` for ``shape`` entries in row-major order (``mag``: unsigned 24-bit limbs; for
    floats made from ``odd``, the magnitudes below 2^53, when first read: the float64 path reads none)."""

    neg: np.ndarray
    limbs: np.ndarray | None
    t: np.ndarray
    shape: tuple
    floats: np.ndarray | None = None  #: the same numbers as float64, when they came as floats
    odd: np.ndarray | None = None  #: the magnitudes (int64, below 2^53) of floats, when ``limbs`` is None

    @property
    def mag(self) -> np.ndarray:
        if self.limbs is None:
            self.limbs = np.stack([(self.odd >> (_W * i)) & 0xFFFFFF for i in range(3)])
        return self.limbs

    def bits(self) -> np.ndarray:
        """The bit length of each numerator ``mag * 2^max(-t, 0)`` (0 for zero).

        For floats, from ``frexp``'s exponent e (``2^(e-1) <= |x| < 2^e``): the numerator is ``|x| 2^max(t, 0)``, an
        integer, so its bit length is ``e + max(t, 0)``.
        """
        if self.floats is not None:
            flat = self.floats.reshape(-1)
            return np.where(flat != 0, np.frexp(flat)[1] + np.maximum(self.t, 0), 0)
        nonzero = self.mag != 0
        top = self.mag.shape[0] - 1 - np.argmax(nonzero[::-1], axis=0)  # highest non-zero limb
        lead = self.mag[top, np.arange(self.mag.shape[1])].astype(np.float64)
        bits = np.where(nonzero.any(axis=0), _W * top + np.frexp(lead)[1], 0)
        return np.where(bits > 0, bits + np.maximum(-self.t, 0), 0)


def _bytes_table(values: list[bytes], width: int) -> np.ndarray:
    table = np.full((len(values), width), _FILL, dtype=np.uint8)
    for i, v in enumerate(values):
        table[i, :len(v)] = np.frombuffer(v, dtype=np.uint8)
    return table


@functools.cache
def _groups() -> np.ndarray:
    """The text of 0000 .. 9999 as 4-byte words (uint32 in memory order)."""
    return np.frombuffer("".join(f"{i:04d}" for i in range(10_000)).encode(), dtype=np.uint32)


@functools.cache
def _denominators() -> tuple[np.ndarray, np.ndarray]:
    """(table, lengths): row t is ``"/" + str(2^t)`` padded with the filler (empty for t = 0), t <= 1074."""
    texts = [b""] + [b"/%d" % (1 << t) for t in range(1, 1075)]
    return _bytes_table(texts, max(map(len, texts))), np.array(list(map(len, texts)))


def from_floats(x: np.ndarray) -> tuple[Numbers, list[bytes]] | None:
    """The numbers of a 2-D float64 array and the canonical text of each row; None when an entry is not finite."""
    if not np.isfinite(x).all():
        return None
    flat = x.reshape(-1)
    mant, e = np.frexp(flat)
    M = (mant * 2.0**53).astype(np.int64)  # x = M 2^(e - 53) exactly, |M| < 2^53
    low = (M & -M).astype(np.float64)  # the lowest set bit of M (a power of two, exact as a float)
    tz = np.where(M != 0, np.frexp(low)[1] - 1, 0)
    neg = M < 0
    mag = np.abs(M) >> tz  # odd, or 0
    E = np.where(M != 0, e.astype(np.int64) - 53 + tz, 0)
    return Numbers(neg, None, -E, x.shape, x, mag), _float_texts(flat, neg, mag, E, x.shape)


def _float_texts(flat: np.ndarray, neg: np.ndarray, mag: np.ndarray, E: np.ndarray, shape: tuple) -> list[bytes]:
    """The rows' text of floats: the digits of M (or of M 2^E for an integer below 2^64), the denominator 2^-E; rows
    with an integer of 2^64 or more are written by Python."""
    value = mag.view(np.uint64)  # mag >= 0: the same bits
    whole = E > 0  # an even integer: |x| itself, exact as a uint64 below 2^64
    big = None
    if whole.any():
        big = whole & (np.abs(flat) >= 2.0**64)
        value = value.copy()
        value[whole] = np.abs(np.where(big, 0.0, flat)[whole]).astype(np.uint64)
    rows = _texts_words(value, neg, np.maximum(-E, 0), shape)
    for i in [] if big is None else np.flatnonzero(big.reshape(shape).any(axis=1)):
        rows[i] = " ".join("%d" % v if v == int(v) else "%d/%d" % v.as_integer_ratio()
                           for v in flat[i * shape[1]:(i + 1) * shape[1]].tolist()).encode()
    return rows


@functools.cache
def _group_words() -> np.ndarray:
    """Three tables of 10,000 four-byte words: the text of 0000 .. 9999; the same with leading zeros made the filler
    (a group with no non-zero group before it; 0 is four fillers); and that again with 0 written "0" (the last group
    of a number below 10^4)."""
    full = ["%04d" % i for i in range(10_000)]
    lead = ["%4s" % ("%d" % i if i else "") for i in range(10_000)]
    last = ["%4d" % i for i in range(10_000)]
    text = "".join(full + lead + last).replace(" ", chr(_FILL)).encode("ascii")
    return np.frombuffer(text, dtype=np.uint32)


@functools.cache
def _denominator_words(words: int) -> np.ndarray:
    """``"/" + str(2^t)`` padded with the filler to ``words`` four-byte words, one item per t <= 1074 (a void item of
    4 ``words`` bytes: one gather copies each entry's whole denominator)."""
    table, _ = _denominators()
    out = np.zeros((table.shape[0], 4 * words), dtype=np.uint8)
    w = min(table.shape[1], 4 * words)
    out[:, :w] = table[:, :w]
    return out.view(f"V{4 * words}").reshape(-1)


def _texts_words(value: np.ndarray, neg: np.ndarray, t: np.ndarray, shape: tuple) -> list[bytes]:
    """The rows' text of entries ``(-1)^neg value / 2^t`` (value a uint64): laid out in four-byte words (the decimal
    groups of four digits, the denominator's words, a separator word) padded with the filler, which is then deleted.
    An entry's sign is the second byte of the word before it: the previous entry's separator (" " or a row's end
    "\n", after which the split puts it at the next row's start), or a word of its own before the first entry."""
    _, lengths = _denominators()
    nd = int(1 + np.searchsorted(_POW10, value.max(initial=0), side="right"))
    ng = -(-nd // 4)
    wd = -(-int(lengths[t.max(initial=0)]) // 4)  # the text of 2^t is longer for a larger t
    buf = bytearray(4 * (1 + value.size * (ng + wd + 1)))  # the layout, deleted from in place of a copy of it
    words = np.frombuffer(buf, dtype=np.uint32)
    field = words[1:].reshape(value.size, ng + wd + 1)
    table = _group_words()
    rest = value
    for g in range(ng - 1, -1, -1):  # group g of ng, most significant first
        if g:
            rest, group = np.divmod(rest, np.uint64(10_000))
        else:
            group = rest
        # no non-zero group before this one: value < 10^(4 (ng - g)); the last group writes 0 as "0"
        state = (value < np.uint64(10 ** (4 * (ng - g)))) if g else np.ones(value.shape, dtype=bool)
        if g == ng - 1:
            state = state.astype(np.intp) * 2
        field[:, g] = table[group.astype(np.intp) + 10_000 * state]
    if wd:
        field[:, ng:ng + wd] = _denominator_words(wd)[t].view(np.uint32).reshape(value.size, wd)
    space, newline, minus = (np.frombuffer(w, dtype=np.uint32)[0] for w in (b" \0\0\0", b"\n\0\0\0", b"\0-\0\0"))
    words[0] = minus if value.size and neg[0] else 0  # the first entry's sign: the word before it
    separators = field[:, -1]
    np.multiply(neg[1:], minus, out=separators[:-1], casting="unsafe")  # the next entry's sign
    separators += space
    separators.reshape(shape[0], shape[1])[:, -1] -= space - newline  # a row's end: "\n" in place of " "
    del field, separators, words
    return bytes(buf.translate(None, bytes([_FILL]))).split(b"\n")[:-1]


def _texts(digits: np.ndarray, neg: np.ndarray, t: np.ndarray, shape: tuple) -> list[bytes]:
    """The rows' text: the sign, the numerator's digits, ``"/" + str(2^t)`` (t > 0), a separator, laid out in fixed
    columns with the filler, which is then deleted (``bytes.translate``)."""
    table, lengths = _denominators()
    width = int(lengths[t].max(initial=0))
    nd = digits.shape[1]
    field = np.empty((neg.size, nd + width + 2), dtype=np.uint8)
    field[:, 0] = np.where(neg, ord("-"), _FILL)
    field[:, 1:nd + 1] = digits
    field[:, nd + 1:nd + 1 + width] = table[:, :width][t]
    field[:, -1] = ord(" ")
    field.reshape(shape[0], shape[1], -1)[:, -1, -1] = ord("\n")
    return field.tobytes().translate(None, bytes([_FILL])).split(b"\n")[:-1]


def from_integers(ints: list[int], shift: int, shape: tuple) -> tuple[Numbers, list[bytes]] | None:
    """The numbers ``p / 2^shift`` (Python integers p, row-major) in lowest terms, and the canonical text of each row.

    Each p is written in two's complement (``int.to_bytes``, whole 24-bit limbs, the sign bit included: exact or
    OverflowError); a negative one's magnitude is the limbs' complement plus one, carried. p's trailing zero bits (at
    most ``shift``) are removed, then its decimal digits written (long division of the limbs by 10^8) and
    ``"/" + str(2^t)`` taken from the table; None when a denominator is beyond it (2^1074).
    """
    if shift > 1074 or not ints:
        return None
    L = (max(map(int.bit_length, ints)) + _W) // _W  # with the sign bit
    raw = np.frombuffer(b"".join([v.to_bytes(3 * L, "little", signed=True) for v in ints]), dtype=np.uint8)
    raw = raw.reshape(len(ints), L, 3).astype(np.int64)
    mag = (raw[:, :, 0] | raw[:, :, 1] << 8 | raw[:, :, 2] << 16).T  # two's complement in unsigned 24-bit limbs
    neg = mag[-1] >> (_W - 1) == 1
    carry = neg.astype(np.int64)
    for u in range(L):  # |p| = (2^(24 L) - 1 - p') + 1 for a negative p
        mag[u] = np.where(neg, 0xFFFFFF - mag[u], mag[u]) + carry
        carry = mag[u] >> _W
        mag[u] &= 0xFFFFFF
    zeros = np.minimum(_trailing_zeros(mag), shift)
    mag = _shifted_right(mag, zeros)
    t = np.where(mag.any(axis=0), shift - zeros, 0)
    return Numbers(neg, mag, t, shape), _texts(_long_decimal(mag), neg, t, shape)


def _trailing_zeros(mag: np.ndarray) -> np.ndarray:
    """The trailing zero bits of each integer (unsigned limbs); 24 L for zero."""
    nonzero = mag != 0
    u = np.where(nonzero.any(axis=0), np.argmax(nonzero, axis=0), mag.shape[0])
    low = np.take_along_axis(np.vstack([mag, np.ones((1, mag.shape[1]), np.int64)]), u[None], axis=0)[0]
    return _W * u + np.frexp((low & -low).astype(np.float64))[1] - 1


def _shifted_right(mag: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """``mag >> bits`` entry by entry (unsigned limbs): limb u takes limb u + q shifted by r and the r low bits of
    limb u + q + 1 (q, r = divmod(bits, 24))."""
    q, r = np.divmod(bits, _W)
    padded = np.vstack([mag, np.zeros((2, mag.shape[1]), np.int64)])
    top = mag.shape[0] + 1
    idx = np.minimum(np.arange(mag.shape[0])[:, None] + q[None], top)
    low = np.take_along_axis(padded, idx, axis=0) >> r
    high = np.take_along_axis(padded, np.minimum(idx + 1, top), axis=0) << (_W - r)
    return (low | high) & 0xFFFFFF


def _long_decimal(mag: np.ndarray) -> np.ndarray:
    """The decimal digits of each integer (unsigned limbs) as bytes, right-aligned, leading zeros the filler:
    eight digits a step, the remainder of a long division by 10^8 (a remainder times 2^24 plus a limb < 2^51)."""
    mag = mag.copy()
    chunks = []
    while True:
        rest = np.zeros(mag.shape[1], dtype=np.int64)
        for u in range(mag.shape[0] - 1, -1, -1):
            rest, mag[u] = rest << _W | mag[u], 0
            mag[u], rest = np.divmod(rest, 10**8)
        chunks.append(rest)
        if not mag.any():
            break
    parts = np.stack(chunks[::-1], axis=1)  # most significant chunk first
    words = np.stack([parts // 10_000, parts % 10_000], axis=2).reshape(mag.shape[1], -1)
    digits = _groups()[words].view(np.uint8).reshape(mag.shape[1], -1)
    first = np.argmax(digits != ord("0"), axis=1)
    first = np.where((digits != ord("0")).any(axis=1), first, digits.shape[1] - 1)  # 0 is "0"
    digits[np.arange(digits.shape[1]) < first[:, None]] = _FILL
    return digits


def from_text(rows: list[bytes], c: int, longest: int) -> Numbers | None:
    """The numbers of rows of canonical dyadic text (entries separated by one space, c per row, none longer than
    ``longest`` characters); None when any entry is not of the accepted forms (see the module's docstring)."""
    blob = b"\n".join(rows) + b"\n"
    buf = np.frombuffer(blob, dtype=np.uint8)
    digit = (buf >= ord("0")) & (buf <= ord("9"))
    minus, slash, newline = buf == ord("-"), buf == ord("/"), buf == ord("\n")
    sep = (buf == ord(" ")) | newline
    if not (digit | minus | slash | sep).all() or sep[0] or (sep[1:] & sep[:-1]).any():
        return None
    ends = np.flatnonzero(sep)  # the separator after each entry
    starts = np.concatenate([[0], ends[:-1] + 1])
    if ends.size != len(rows) * c or (newline[ends] != (np.arange(ends.size) % c == c - 1)).any() \
            or (ends - starts).max() > longest:
        return None
    at_start = np.zeros(buf.size + 1, dtype=bool)
    at_start[starts] = True
    spos, mpos = np.flatnonzero(slash), np.flatnonzero(minus)
    holder = np.searchsorted(ends, spos)  # the entry holding each "/"
    if not (at_start[mpos].all() and digit[mpos + 1].all() and digit[spos - 1].all() and digit[spos + 1].all()
            and (np.diff(holder) > 0).all()):
        return None  # "-" only first and before a digit; "/" between digits, at most one per entry
    neg = minus[starts]
    first, stop = starts + neg, ends.copy()
    stop[holder] = spos
    has_den = np.zeros(ends.size, dtype=bool)
    has_den[holder] = True
    if ((buf[first] == ord("0")) & ((stop - first > 1) | neg | has_den)).any():
        return None  # "0" only alone: no leading zero, no "-0", no "0/q"
    words = _words(blob)
    t = np.zeros(ends.size, dtype=np.int64)
    if spos.size:
        q = _read_digits(words, spos + 1, ends[holder])
        t_den = _exponent(q)
        odd = (buf[spos - 1] - ord("0")) % 2 == 1  # p / 2^t in lowest terms: p odd
        if t_den is None or not odd.all() or (buf[spos + 1] == ord("0")).any():
            return None
        t[holder] = t_den
    return Numbers(neg, _read_digits(words, first, stop), t, (len(rows), c))


_ZEROS = np.uint64(0x3030303030303030)  # eight "0" characters
#: KEEP[v] keeps the top v bytes of a word (the last v characters of the eight it holds)
_KEEP = np.array([((1 << 64) - 1) ^ ((1 << (8 * (8 - v))) - 1) for v in range(9)], dtype=np.uint64)


def _words(blob: bytes) -> np.ndarray:
    """The text as little-endian 64-bit words, after eight "0" characters (so that a window may start before it)."""
    pad = b"0" * 8 + blob + b"0" * (16 - len(blob) % 8)
    return np.frombuffer(pad, dtype="<u8")


def _window(words: np.ndarray, end: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """The value of the (at most) eight digits before ``end`` and from ``lo`` on: the characters end-8 .. end-1 as
    one word (the first in its lowest byte), those before ``lo`` made "0", then three SWAR steps that join
    neighbouring digits into 2-, 4- and 8-digit values (each stays within its lane: 99, 9999, 10^8 - 1)."""
    start = end  # in the padded text, the window end-8 .. end-1 starts at ``end``
    w, shift = np.divmod(start, 8)
    shift = (8 * shift).astype(np.uint64)
    x = words[w] >> shift
    x |= np.where(shift > 0, words[w + 1] << (np.uint64(64) - shift), np.uint64(0))
    keep = _KEEP[np.clip(end - lo, 0, 8)]
    x = ((x & keep) | (_ZEROS & ~keep)) - _ZEROS
    x = (x * np.uint64(10) + (x >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    x = (x * np.uint64(100) + (x >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    return (x * np.uint64(10000) + (x >> np.uint64(32))) & np.uint64(0xFFFFFFFF)


def _read_digits(words: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The integers written in decimal at lo..hi-1 (digits only), as unsigned 24-bit limbs: eight digits at a time,
    most significant first, by Horner's rule (a limb times 10^8 plus a carry stays below 2^51)."""
    windows = -(-int((hi - lo).max()) // 8)
    L = math.ceil(8 * windows * math.log2(10) / _W) + 1
    mag = np.zeros((L, lo.size), dtype=np.int64)
    for w in range(windows - 1, -1, -1):
        mag *= 10**8
        mag[0] += _window(words, hi - 8 * w, lo).astype(np.int64)
        for u in range(L - 1):
            mag[u + 1] += mag[u] >> _W
            mag[u] &= 0xFFFFFF
    return mag


def _exponent(q: np.ndarray) -> np.ndarray | None:
    """t with q = 2^t >= 2 for each integer q (unsigned limbs); None when one is not such a power of two."""
    nonzero = q != 0
    u = np.argmax(nonzero, axis=0)
    limb = q[u, np.arange(q.shape[1])]
    if (nonzero.sum(axis=0) != 1).any() or (limb & (limb - 1)).any():
        return None
    t = _W * u + np.frexp(limb.astype(np.float64))[1] - 1
    return None if (t < 1).any() else t
