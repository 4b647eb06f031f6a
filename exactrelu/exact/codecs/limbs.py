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

__all__ = ["W", "MAX_TERMS", "from_ints", "from_float_integers", "normalized", "matmul", "scaled", "subtract",
           "sign", "absolute", "to_ints", "sum_of_squares", "argmax", "pad"]

W = 24  #: bits per limb
_HALF = 1 << (W - 1)
MAX_TERMS = 1 << 16  #: most products of two balanced limbs one int64 may sum (2**16 * 2**46 = 2**62)


def normalized(C: np.ndarray) -> np.ndarray:
    """The balanced expansion of ``C`` (limbs of magnitude at most 2**62), top zero limbs dropped.

    >>> to_ints(normalized(np.array([[2**40], [-1]], dtype=np.int64)))  # 2**40 - 2**24
    [1099494850560]
    """
    C = np.asarray(C, dtype=np.int64)
    out = np.concatenate([C, np.zeros((2, *C.shape[1:]), dtype=np.int64)])
    for u in range(out.shape[0] - 1):
        carry = (out[u] + _HALF) >> W  # floor division by 2**W: |carry| <= 2**38 + 1
        out[u] -= carry << W  # now in [-2**(W-1), 2**(W-1))
        out[u + 1] += carry
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
    """Balanced limbs of a float64 array of integers below ``2**bits`` in magnitude (``bits <= 1023``).

    Exact: ``floor(|S| / 2**W)`` and ``|S| - 2**W floor(|S| / 2**W)`` are integers that float64 represents
    (powers of two scale exactly, the difference is below 2**W), so every limb is the exact base-2**W digit.

    >>> to_ints(from_float_integers(np.array([2.0**60 + 2.0**8, -3.0]), 61))
    [1152921504606847232, -3]
    """
    if bits > 1023:
        raise InvalidInput("integers of more than 1023 bits are not float64 values")
    A = np.abs(S)
    negative = np.signbit(S)
    L = max(1, -(-bits // W))
    digits = np.empty((L, *S.shape), dtype=np.int64)
    for u in range(L):
        hi = np.floor(np.ldexp(A, -W))
        digits[u] = A - np.ldexp(hi, W)
        A = hi
    if A.any():
        raise InvalidInput(f"an integer of the array has more than {bits} bits")
    digits[:, negative] *= -1
    return normalized(digits)


def matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The integer matrix product of balanced expansions A (La, p, q) and B (Lb, q, r): balanced (L, p, r).

    Refused (InvalidInput) when ``min(La, Lb) q`` exceeds :data:`MAX_TERMS` (a sum could leave int64).

    >>> to_ints(matmul(from_ints([2**70, 3], (1, 2)), from_ints([-1, 2**40], (2, 1))))  # -2**70 + 3 * 2**40
    [-1180591617418876420096]
    """
    La, Lb, q = A.shape[0], B.shape[0], A.shape[2]
    if min(La, Lb) * q > MAX_TERMS:
        raise InvalidInput(f"a product of {La}- and {Lb}-limb expansions over {q} terms could overflow int64")
    C = np.zeros((La + Lb - 1, A.shape[1], B.shape[2]), dtype=np.int64)
    for a in range(La):
        for b in range(Lb):
            C[a + b] += A[a] @ B[b]
    return normalized(C)


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
