"""Many big integers at once, exactly, as NumPy int64 arrays of limbs (no Python integer per entry).

An array ``A`` of shape ``(L, *shape)`` holds, at every position, the integer ``sum_u A[u] * 2**(W u)`` with
``W = 24`` bits per limb. An expansion is *balanced* when every limb lies in ``[-2**(W-1), 2**(W-1))``; then

* every integer has exactly one balanced expansion of a given length (and zero top limbs may be dropped);
* the sign of a non-zero integer is the sign of its highest non-zero limb, and two balanced expansions of the
  same length compare lexicographically from the top limb as the integers they hold: if they agree above limb v
  and ``a_v > b_v``, the lower limbs differ by less than ``(2**W - 1) (2**(W v) - 1) / (2**W - 1) < 2**(W v)``,
  so the difference is positive.

Every operation bounds its int64 intermediates from the shapes alone, before computing. A balanced limb is at
most ``2**(W-1)`` in magnitude, so a product of two is at most ``2**(2W-2) = 2**46``; a product of expansions
``C[u] = sum_{a+b=u} A[a] B[b]`` (summed over ``q`` columns) adds at most ``min(La, Lb) q`` such terms, exact in
int64 while that count is at most :data:`MAX_TERMS` = 2**16 (``2**16 * 2**46 = 2**62``). :func:`normalized`
then carries from the lowest limb up (``|carry| <= 2**38 + 1``, so no limb leaves int64) into two extra limbs,
enough for any integer of magnitude below ``2**62 * 2**(W (L-1) + 1)``. docs/design.md ("Exact residuals by
limbs") has the argument in full; the tests compare every operation with Python integers.

>>> import numpy as np
>>> A = from_ints([3**40, -7, 0, -(2**100)], (2, 2))
>>> to_ints(A)
[12157665459056928801, -7, 0, -1267650600228229401496703205376]
>>> to_ints(matmul(A, from_ints([1, 2], (2, 1))))  # [[3**40 - 14], [-2**101]]
[12157665459056928787, -2535301200456458802993406410752]
>>> sign(A).tolist(), sum_of_squares(from_ints([3, -4], (2,)))
([[1, -1], [0, -1]], 25)
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidInput

__all__ = ["W", "MAX_TERMS", "EXACT", "from_ints", "from_float_integers", "float_digits", "scale_floats", "normalized",
           "matmul", "rectified", "scaled", "subtract", "sign", "absolute", "to_ints", "sum_of_squares", "argmax",
           "pad", "to_fmpz_mat", "to_floats", "u32_words"]

W = 24  #: bits per limb
_HALF = 1 << (W - 1)
MAX_TERMS = 1 << 16  #: most products of two balanced limbs one int64 may sum (2**16 * 2**46 = 2**62)


def normalized(C: np.ndarray) -> np.ndarray:
    """The balanced expansion of ``C`` (limbs of magnitude at most 2**62), top zero limbs dropped.

    >>> to_ints(normalized(np.array([[2**40], [-1]], dtype=np.int64)))  # 2**40 - 2**24
    [1099494850560]
    """
    C = np.asarray(C, dtype=np.int64)
    out = np.empty((C.shape[0] + 2, *C.shape[1:]), dtype=np.int64)
    out[:C.shape[0]] = C
    out[C.shape[0]:] = 0
    carry = np.empty(C.shape[1:], dtype=np.int64)
    for u in range(out.shape[0] - 1):
        np.add(out[u], _HALF, out=carry)
        np.right_shift(carry, W, out=carry)  # floor division by 2**W: |carry| <= 2**38 + 1
        out[u + 1] += carry
        np.left_shift(carry, W, out=carry)
        out[u] -= carry  # now in [-2**(W-1), 2**(W-1))
    top = out.shape[0]
    while top > 1 and not out[top - 1].any():
        top -= 1
    return out[:top]


def pad(A: np.ndarray, L: int) -> np.ndarray:
    """``A`` with zero limbs added on top up to L limbs (the same integers).

    >>> pad(from_ints([5], (1,)), 3).shape, to_ints(pad(from_ints([5], (1,)), 3))
    ((3, 1), [5])
    """
    if A.shape[0] >= L:
        return A
    return np.concatenate([A, np.zeros((L - A.shape[0], *A.shape[1:]), dtype=np.int64)])


def from_ints(values, shape: tuple) -> np.ndarray:
    """Balanced limbs of Python integers (or anything ``int()`` takes exactly: FLINT's fmpz) in row-major order.

    Each integer is written in two's complement (``int.to_bytes``, a C loop), three bytes make one limb, and
    the sign bit's weight ``-2**(8 nbytes)`` is one more limb of -1.

    >>> from_ints([-1, 2**23], (2,)).tolist()  # 2**23 is one more than the largest balanced limb
    [[-1, -8388608], [0, 1]]
    """
    ints = [int(v) for v in values]
    if not ints:
        return np.zeros((1, *shape), dtype=np.int64)
    bits = max(max(ints).bit_length(), (-min(ints)).bit_length()) + 1  # with the sign bit
    L = -(-bits // W)
    nbytes = 3 * L
    raw = np.frombuffer(b"".join([v.to_bytes(nbytes, "little", signed=True) for v in ints]), dtype=np.uint8)
    raw = raw.reshape(len(ints), L, 3).astype(np.int64)
    digits = raw[:, :, 0] | (raw[:, :, 1] << 8) | (raw[:, :, 2] << 16)  # unsigned limbs in [0, 2**W)
    negative = np.array([v < 0 for v in ints], dtype=np.int64)
    limbs = np.concatenate([digits.T, -negative[None, :]])  # two's complement: minus 2**(W L) when negative
    return normalized(limbs.reshape(L + 1, *shape))


def from_float_integers(S: np.ndarray, bits: int) -> np.ndarray:
    """Balanced limbs of a float64 array of integers below ``2**bits`` in magnitude (``bits <= 1023``): the digits of
    :func:`float_digits`, carried.

    >>> to_ints(from_float_integers(np.array([2.0**60 + 2.0**8, -3.0]), 61))
    [1152921504606847232, -3]
    """
    return normalized(float_digits(S, bits).astype(np.int64))


def matmul(A: np.ndarray, B: np.ndarray, minus: np.ndarray | None = None) -> np.ndarray:
    """The integer matrix product of limb expansions A (La, p, q) and B (Lb, q, r): balanced (L, p, r); with
    ``minus`` (limbs (Lm, p, r)), ``A B - minus``, carried once.

    The limbs may be int64 or float64 integers (balanced, or the signed digits of :func:`float_digits`). Every
    product of two limb matrices is one float64 BLAS product, cut into runs of columns short enough that no
    partial sum can leave the integers float64 holds exactly (``2**53``): see :func:`_limb_product`. Refused
    (InvalidInput) when an output limb could pass ``2**62`` (from the limbs' actual largest magnitudes; balanced
    limbs reach it only beyond ``min(La, Lb) q = MAX_TERMS``).

    >>> to_ints(matmul(from_ints([2**70, 3], (1, 2)), from_ints([-1, 2**40], (2, 1))))  # -2**70 + 3 * 2**40
    [-1180591617418876420096]
    >>> to_ints(matmul(from_ints([2, 3], (1, 2)), from_ints([5, 7], (2, 1)), minus=from_ints([31], (1, 1))))
    [0]
    """
    La, Lb, q = A.shape[0], B.shape[0], A.shape[2]
    amax, bmax = _largest(A), _largest(B)
    L = La + Lb - 1
    mmax = [0] * L if minus is None else _largest(minus) + [0] * max(0, L - minus.shape[0])
    L = max(L, len(mmax))
    worst = max(q * sum(amax[a] * bmax[u - a] for a in range(max(0, u - Lb + 1), min(La, u + 1))) + mmax[u]
                for u in range(L))
    if worst > _INT64_SUMS or max(amax) * max(bmax) > EXACT:
        raise InvalidInput(f"a product of {La}- and {Lb}-limb expansions over {q} terms could overflow int64")
    C = np.zeros((L, A.shape[1], B.shape[2]), dtype=np.int64)
    Af, Bf = A.astype(np.float64, copy=False), B.astype(np.float64, copy=False)  # exact: |limb| <= 2**53
    for a in range(La):
        for b in range(Lb):
            if amax[a] and bmax[b]:
                _limb_product(C[a + b], Af[a], Bf[b], amax[a] * bmax[b])
    if minus is not None:
        C[:minus.shape[0]] -= minus.astype(np.int64, copy=False)  # exact: |limb| <= 2**62 (checked)
    return normalized(C)


def rectified(A: np.ndarray) -> np.ndarray:
    """The balanced expansion of ``max(A, 0)`` (ReLU): the positions whose sign is not 1 set to 0.

    >>> to_ints(rectified(from_ints([2**60, -(2**60), 0, 1 - 2**24], (4,))))
    [1152921504606846976, 0, 0, 0]
    """
    return A * (sign(A) > 0)


#: every integer of magnitude at most 2**53 is a float64: the bound on every partial sum of one BLAS product
EXACT = 1 << 53
_INT64_SUMS = 1 << 62  # the int64 sums an output limb may reach before :func:`normalized` carries it


def _limb_product(out: np.ndarray, Af: np.ndarray, Bf: np.ndarray, top: int) -> None:
    """``out += Af @ Bf`` exactly, for float64 integer matrices whose products are at most ``top`` in magnitude.

    A run of s columns gives partial sums (in any order BLAS adds them, with or without fused multiply-add) of at
    most s products, so of magnitude at most ``s top <= 2**53`` when ``s = 2**53 // top``: every product and every
    partial sum is an integer float64 represents, so nothing rounds and the run's product is its exact integer
    sum. It is then added to ``out`` in int64 (the caller bounds that sum).
    """
    q = Af.shape[1]
    run = max(1, EXACT // top)  # top <= 2**53 (checked by the caller)
    for s in range(0, q, run):
        out += (Af[:, s:s + run] @ Bf[s:s + run]).astype(np.int64)


def _largest(A: np.ndarray) -> list[int]:
    """The largest |limb| of each limb matrix of A, as Python integers (0 for an empty one)."""
    if A.size == 0:
        return [0] * A.shape[0]
    return [int(x) for x in np.abs(A.reshape(A.shape[0], -1)).max(axis=1)]


def float_digits(S: np.ndarray, bits: int) -> np.ndarray:
    """The signed base-2**W digits of a float64 array of integers below ``2**bits``, as float64 (for :func:`matmul`
    only: each digit lies in ``(-2**W, 2**W)``, not balanced), lowest first: ``S = sum_u D[u] 2**(W u)``.

    Exact: ``hi = floor(|S| 2**-W)`` and ``|S| - hi 2**W`` are integers float64 represents (a power-of-two scaling
    of an integer below 2**1024 neither overflows nor leaves the normal range, the difference is below 2**W); no
    int64 copy and no carrying, so a large float64 operand goes to BLAS in one pass per digit.

    >>> float_digits(np.array([-(2.0**30) - 5, 7.0]), 31).tolist()
    [[-5.0, 7.0], [-64.0, 0.0]]
    """
    if bits > 1023:
        raise InvalidInput("integers of more than 1023 bits are not float64 values")
    A = np.abs(S)
    L = max(1, -(-bits // W))
    digits = np.empty((L, *S.shape), dtype=np.float64)
    hi = np.empty(S.shape, dtype=np.float64)
    for u in range(L):
        np.multiply(A, _DOWN, out=hi)
        np.floor(hi, out=hi)
        np.multiply(hi, _UP, out=digits[u])
        np.subtract(A, digits[u], out=digits[u])
        A, hi = hi, A  # abs(S) is this function's own array: its memory is the next scratch
    if A.any() or (np.abs(digits[L - 1]) >= 2.0 ** (bits - W * (L - 1))).any():
        raise InvalidInput(f"an integer of the array has more than {bits} bits")
    return np.copysign(digits, S, out=digits)  # the sign of S on every digit (a -0.0 digit is 0)


_DOWN, _UP = 2.0**-W, 2.0**W


def scale_floats(arr: np.ndarray, shift: int) -> np.ndarray:
    """``arr * 2**shift`` for a float64 array whose scaled values are integers below 2**1024 (a new array): exact,
    since each exact product is then a float64 (a multiplication when ``2**shift`` is one, else ``ldexp``).

    >>> scale_floats(np.array([2.0**-1000, -2.0**-1074]), 1074).tolist() == [2.0**74, -1.0]
    True
    """
    if -1022 <= shift <= 1023:
        return arr * 2.0**shift
    return np.ldexp(arr, shift)


def scaled(A: np.ndarray, c: int) -> np.ndarray:
    """The balanced expansion of ``A * c`` for one integer c: a product with c's limbs, skipping its zero limbs
    (a power of two has one or two), each output limb a sum of at most ``min(L, Lc) <= MAX_TERMS`` products.

    >>> to_ints(scaled(from_ints([5, -3], (2,)), -(2**70)))
    [-5902958103587056517120, 3541774862152233910272]
    """
    cl = from_ints([c], (1,))[:, 0].tolist()
    if min(A.shape[0], len(cl)) > MAX_TERMS:
        raise InvalidInput(f"a product of {A.shape[0]}- and {len(cl)}-limb expansions could overflow int64")
    C = np.zeros((A.shape[0] + len(cl) - 1, *A.shape[1:]), dtype=np.int64)
    for b, digit in enumerate(cl):
        if digit:
            C[b:b + A.shape[0]] += A * digit
    return normalized(C)


def subtract(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The balanced expansion of ``A - B`` (both balanced, of one shape).

    >>> to_ints(subtract(from_ints([2**90], (1,)), from_ints([1], (1,)))) == [2**90 - 1]
    True
    """
    L = max(A.shape[0], B.shape[0])
    return normalized(pad(A, L) - pad(B, L))


def sign(A: np.ndarray) -> np.ndarray:
    """-1, 0 or 1 at every position of a balanced expansion: the sign of its highest non-zero limb.

    >>> sign(from_ints([2**50 - 1, -(2**50) + 1, 0], (3,))).tolist()
    [1, -1, 0]
    """
    s = np.zeros(A.shape[1:], dtype=np.int64)
    for u in range(A.shape[0] - 1, -1, -1):
        s = np.where(s == 0, np.sign(A[u]), s)
    return s


def absolute(A: np.ndarray) -> np.ndarray:
    """The balanced expansion of ``|A|``.

    >>> to_ints(absolute(from_ints([-(2**80), 7], (2,)))) == [2**80, 7]
    True
    """
    return normalized(A * sign(A))


def to_ints(A: np.ndarray) -> list[int]:
    """The integers of an expansion, in row-major order, as Python integers (for few of them).

    >>> to_ints(np.array([[1, -1], [2, 0]], dtype=np.int64))  # 1 + 2 * 2**24, -1
    [33554433, -1]
    """
    flat = A.reshape(A.shape[0], -1)
    rows = [row.tolist() for row in flat]
    return [sum(int(rows[u][i]) << (W * u) for u in range(len(rows))) for i in range(flat.shape[1])]


def sum_of_squares(A: np.ndarray) -> int:
    """``sum of x**2`` over every integer of a balanced expansion, exactly.

    ``x**2 = sum_{a,b} x_a x_b 2**(W (a+b))``: the limb Gram matrix of blocks of :data:`MAX_TERMS` positions
    (each entry a sum of at most 2**16 products of magnitude 2**46), then Python integers.

    >>> sum_of_squares(from_ints([2**100, -1], (2,))) == 2**200 + 1
    True
    """
    flat = A.reshape(A.shape[0], -1)
    L, total = flat.shape[0], 0
    for start in range(0, flat.shape[1], MAX_TERMS):
        block = flat[:, start:start + MAX_TERMS]
        G = (block @ block.T).tolist()
        total += sum(G[a][b] << (W * (a + b)) for a in range(L) for b in range(L))
    return total


def argmax(A: np.ndarray) -> int:
    """The first position (row-major) of the largest integer of a balanced expansion: lexicographic, top down.

    >>> argmax(from_ints([-(2**90), 2**60, 5, 2**60], (4,)))
    1
    """
    flat = A.reshape(A.shape[0], -1)
    candidates = np.arange(flat.shape[1])
    for u in range(flat.shape[0] - 1, -1, -1):
        values = flat[u, candidates]
        candidates = candidates[values == values.max()]
        if candidates.size == 1:
            break
    return int(candidates[0])


def to_fmpz_mat(A: np.ndarray) -> "flint.fmpz_mat":
    """FLINT's integer matrix of a balanced expansion A (L, r, c): pairs of limbs joined into int64 chunks below 2**47
    (one FLINT build each), then ``sum_t chunk_t 2**(48 t)`` in FLINT.

    >>> to_fmpz_mat(from_ints([2**100 + 5, -3, 0, -(2**60)], (2, 2))).tolist() == [[2**100 + 5, -3], [0, -(2**60)]]
    True
    """
    import flint

    L, r, c = A.shape
    out = None
    for t in range(0, L, 2):
        chunk = A[t].astype(np.int64) if t + 1 == L else A[t] + (A[t + 1] << W)  # |chunk| < 2**47
        M = flint.fmpz_mat(r, c, chunk.ravel().tolist())
        out = M if out is None else out + M * (1 << (W * t))
    return out if out is not None else flint.fmpz_mat(r, c)


def to_floats(A: np.ndarray) -> np.ndarray:
    """The integers of a balanced expansion as float64, within a few units in the last place (Horner's rule from the
    top limb: one rounding per limb; for display and float proposals, never for exact claims). Magnitudes beyond
    float64 give infinities.

    >>> to_floats(from_ints([3**50, -7], (2,))).tolist() == [float(3**50), -7.0]
    True
    """
    out = np.zeros(A.shape[1:], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        for u in range(A.shape[0] - 1, -1, -1):
            out *= _UP
            out += A[u]
    return out


def u32_words(A: np.ndarray) -> np.ndarray:
    """Two's complement little-endian 32-bit words (N, L32) of the N integers of a balanced expansion (L, N), as
    uint64 holding 32 bits each: the form :mod:`exactrelu.exact.codecs.int_text` writes decimal text from.

    Carried into base-2**W digits in ``[0, 2**W)`` with a signed top (floor carries), the integer's bits are the
    digits' bits, the top digit sign-extended; each 32-bit word takes the bits of the two digits it overlaps.

    >>> u32_words(from_ints([-1, 2**40 + 3], (2,))).tolist()
    [[4294967295, 4294967295, 4294967295], [3, 256, 0]]
    """
    L, N = A.shape[0], A.shape[1]
    digits = np.concatenate([A.astype(np.int64), np.zeros((1, N), dtype=np.int64)])
    for u in range(L):  # floor carries: digits 0..L-1 into [0, 2**W), the top keeps the sign
        carry = digits[u] >> W
        digits[u] -= carry << W
        digits[u + 1] += carry
    words = -(-(W * (L + 1)) // 32)
    ext = np.concatenate([digits, np.repeat((digits[-1:] >> 62), words * 32 // W + 2, axis=0)])  # sign extension
    out = np.empty((N, words), dtype=np.uint64)
    for j in range(words):
        t, off = divmod(32 * j, W)
        bits = (ext[t] >> off) | (ext[t + 1] << (W - off)) | (ext[t + 2] << (2 * W - off))
        out[:, j] = (bits & 0xFFFFFFFF).astype(np.uint64)
    return out
