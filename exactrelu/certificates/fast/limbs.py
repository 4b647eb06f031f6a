"""Exact integers in bulk as NumPy arrays of limbs, multiplied by float64 BLAS. NumPy and the standard library only.

An array ``A`` of shape ``(L, *shape)`` holds at every position the integer ``sum_u A[u] 2^(24 u)``. The expansion is
*balanced* when every limb lies in ``[-2^23, 2^23)``. docs/design.md ("The fast checker's arithmetic") proves each
step; in short:

* **Balanced expansions** are unique for a given length; the sign of a non-zero integer is the sign of its highest
  non-zero limb; two expansions of one length compare lexicographically from the top like the integers.
* **normalized** carries from the lowest limb up, ``carry = floor((a + 2^23) / 2^24)``, and needs every limb at
  most 2^62 in magnitude: then no sum leaves int64, and two limbs on top hold what the carries add.
* **matmul** multiplies limb matrices with float64 products of at most :data:`INNER` = 128 terms: each term is at
  most 2^46, so every partial sum a float64 product forms, in any order, is an integer of at most 2^53 and is
  exact. At most :data:`SUMS` = 512 such products are added into one int64 limb (at most 2^62).
* **product** (entry by entry) adds at most min(La, Lb) terms of at most 2^46 into one limb.

>>> A = from_ints([3**40, -7, 0, -(2**100)], (2, 2))
>>> to_ints(A)
[12157665459056928801, -7, 0, -1267650600228229401496703205376]
>>> to_ints(matmul(A, from_ints([1, 2], (2, 1))))
[12157665459056928787, -2535301200456458802993406410752]
>>> sign(A).tolist()
[[1, -1], [0, -1]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["W", "INNER", "SUMS", "normalized", "from_ints", "from_digits", "split_floats", "to_ints", "matmul",
           "product", "sign",
           "absolute", "bit_lengths", "column_argmax", "column_squares", "FastDomain"]

W = 24  #: bits per limb
_HALF = 1 << (W - 1)
_MASK = (1 << W) - 1
INNER = 1 << (53 - 2 * (W - 1))  #: terms of one exact float64 product of balanced limbs (128)
SUMS = 1 << 9  #: float64 products (each at most 2^53) added into one int64 limb (at most 2^62)


class FastDomain(Exception):
    """The numbers are outside what this arithmetic handles in bulk: the caller hands the rows to the reference."""


def normalized(C: np.ndarray) -> np.ndarray:
    """The balanced expansion of ``C`` (int64 limbs of magnitude at most 2^62), top zero limbs dropped (one kept).

    >>> to_ints(normalized(np.array([[2**40], [-1]])))
    [1099494850560]
    """
    out = np.concatenate([np.asarray(C, dtype=np.int64), np.zeros((2, *C.shape[1:]), dtype=np.int64)])
    for u in range(out.shape[0] - 1):
        carry = (out[u] + _HALF) >> W  # floor((a + 2^23) / 2^24): |carry| <= 2^38 + 1
        out[u] -= carry << W  # in [-2^23, 2^23)
        out[u + 1] += carry
    top = out.shape[0]
    while top > 1 and not out[top - 1].any():
        top -= 1
    return out[:top]


def _digits(v: int) -> list[int]:
    """The balanced limbs of one Python integer, lowest first (at least one)."""
    out = []
    while True:
        a = ((v + _HALF) & _MASK) - _HALF
        out.append(a)
        v = (v - a) >> W
        if v == 0:
            return out


def from_ints(values, shape: tuple) -> np.ndarray:
    """Balanced limbs of Python integers given in row-major order (few: the weights of a network, constants).

    >>> from_ints([-1, 2**23], (2,)).tolist()
    [[-1, -8388608], [0, 1]]
    """
    digits = [_digits(int(v)) for v in values]
    L = max(map(len, digits), default=1)
    out = np.zeros((L, len(digits)), dtype=np.int64)
    for i, ds in enumerate(digits):
        out[:len(ds), i] = ds
    return out.reshape(L, *shape)


def from_digits(negative: np.ndarray, magnitude: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Balanced limbs of ``(-1)^negative * magnitude * 2^shift`` entry by entry.

    ``magnitude`` has shape (L0, N): unsigned limbs in [0, 2^24); ``shift`` (N,) is non-negative. Limb i of the
    magnitude times ``2^(shift mod 24)`` (below 2^47) is placed at limb ``i + shift // 24``, then carried.

    >>> to_ints(from_digits(np.array([True, False]), np.array([[5, 1], [0, 1]]), np.array([3, 0])))
    [-40, 16777217]
    """
    whole, part = np.divmod(shift, W)
    L = magnitude.shape[0] + int(whole.max(initial=0)) + 1
    out = np.zeros((L, magnitude.shape[1]), dtype=np.int64)
    columns = np.arange(magnitude.shape[1])
    sign = np.where(negative, -1, 1)
    for i in range(magnitude.shape[0]):  # for one entry the targets i + whole differ with i: no overwriting
        out[i + whole, columns] = sign * (magnitude[i].astype(np.int64) << part)
    return normalized(out)


def split_floats(v: np.ndarray) -> np.ndarray:
    """Limbs (float64, each an integer of magnitude at most 2^23) of a float64 array of integers: limb u is
    ``v - 2^24 rint(v / 2^24)`` and v becomes ``rint(v / 2^24)``, each step exact (a power-of-two scaling of an
    integer of magnitude at least 1, a rounding to an integer, and a difference of two integers that is at most 2^23
    in magnitude). Not balanced in the strict sense (2^23 may occur): for products only.

    >>> split_floats(np.array([2.0**60 + 2.0**8, -(2.0**23)])).tolist()
    [[256.0, -8388608.0], [0.0, 0.0], [4096.0, 0.0]]
    """
    out = []
    while True:
        q = np.rint(v * 2.0**-W)
        out.append(v - q * 2.0**W)
        v = q
        if not v.any():
            return np.stack(out)


def to_ints(A: np.ndarray) -> list[int]:
    """The integers of a limb array, in row-major order, as Python integers (for few values)."""
    flat = A.reshape(A.shape[0], -1)
    return [sum(int(flat[u, i]) << (W * u) for u in range(flat.shape[0])) for i in range(flat.shape[1])]


def _padded(A: np.ndarray, L: int) -> np.ndarray:
    return A if A.shape[0] >= L else np.concatenate([A, np.zeros((L - A.shape[0], *A.shape[1:]), dtype=A.dtype)])


def matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The integer product of balanced expansions A (La, p, q) and B (Lb, q, r): balanced (L, p, r).

    Each limb product ``A[a] B[b]`` is a float64 product over at most :data:`INNER` inner terms at a time (exact),
    taken as int64 and added into limb a + b; FastDomain when more than :data:`SUMS` products would meet in one limb.

    >>> to_ints(matmul(from_ints([2**70, 3], (1, 2)), from_ints([-1, 2**40], (2, 1))))
    [-1180591617418876420096]
    """
    La, p, q = A.shape
    Lb, r = B.shape[0], B.shape[2]
    cuts = list(range(0, q, INNER)) + [q]
    if min(La, Lb) * (len(cuts) - 1) > SUMS:
        raise FastDomain(f"a product of {La} x {Lb} limbs over {q} terms")
    Af = A.reshape(La * p, q).astype(np.float64)  # limbs of magnitude at most 2^23: exact
    Bf = B.transpose(1, 0, 2).reshape(q, Lb * r).astype(np.float64)  # B's limbs side by side: one product for all
    C = np.zeros((La + Lb - 1, p, r), dtype=np.int64)
    for lo, hi in zip(cuts, cuts[1:]):
        part = (Af[:, lo:hi] @ Bf[lo:hi]).astype(np.int64)  # every partial sum an integer of at most 2^53: exact
        part = part.reshape(La, p, Lb, r)
        for b in range(Lb):  # A_a B_b goes to limb a + b
            C[b:b + La] += part[:, :, b, :]
    return normalized(C)


def product(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Entry by entry ``A * B`` of balanced expansions (shapes broadcast after the limb axis): balanced.

    >>> to_ints(product(from_ints([2**30, -3], (2,)), from_ints([2**30], (1,))))
    [1152921504606846976, -3221225472]
    """
    La, Lb = A.shape[0], B.shape[0]
    if min(La, Lb) > 1 << 16:
        raise FastDomain("a product of integers of over a million bits")
    shape = np.broadcast_shapes(A.shape[1:], B.shape[1:])
    C = np.zeros((La + Lb - 1, *shape), dtype=np.int64)
    for a in range(La):
        C[a:a + Lb] += A[a] * B  # each product at most 2^46, at most min(La, Lb) of them in one limb
    return normalized(C)


def sign(A: np.ndarray) -> np.ndarray:
    """-1, 0 or 1 at every position of a balanced expansion: the sign of its highest non-zero limb."""
    s = np.zeros(A.shape[1:], dtype=np.int64)
    for u in range(A.shape[0] - 1, -1, -1):
        s = np.where(s == 0, np.sign(A[u]), s)
    return s


def absolute(A: np.ndarray) -> np.ndarray:
    """The balanced expansion of ``|A|`` (the negated limbs of a negative entry are carried again).

    >>> to_ints(absolute(from_ints([-2**23, 5, -(2**47)], (3,))))
    [8388608, 5, 140737488355328]
    """
    B = normalized(np.where(sign(A) < 0, -A, A))  # -A has limbs in (-2^23, 2^23]
    return B


def bit_lengths(A: np.ndarray) -> np.ndarray:
    """The bit length of every entry of a balanced expansion of *non-negative* integers (0 for zero).

    The limbs are carried again from the lowest up with ``carry = floor(a / 2^24)``: a balanced limb plus a carry of
    -1 or 0 lies in [-2^23 - 1, 2^23), so the carry is -1 or 0 again and the limb ends in [0, 2^24). The top limb
    then is the integer less a sum below ``2^(24 (L - 1))``, so it is non-negative (the integer is) and below 2^23;
    the bit length is 24 times the highest non-zero limb's index plus that limb's bit length (exact in float64).

    >>> bit_lengths(from_ints([0, 1, 2**23, 2**48 - 1, 2**48], (5,))).tolist()
    [0, 1, 24, 48, 49]
    """
    U = np.array(A, dtype=np.int64)
    for u in range(U.shape[0] - 1):
        carry = U[u] >> W
        U[u] -= carry << W
        U[u + 1] += carry
    nonzero = U != 0
    top = U.shape[0] - 1 - np.argmax(nonzero[::-1], axis=0)
    lead = np.take_along_axis(U, top[None], axis=0)[0].astype(np.float64)
    return np.where(nonzero.any(axis=0), W * top + np.frexp(lead)[1], 0)


def column_argmax(A: np.ndarray) -> np.ndarray:
    """For a balanced expansion A (L, rows, cols) of non-negative integers, the first row of each column holding
    the column's largest integer (lexicographic from the top limb, which orders balanced expansions of one length).

    >>> column_argmax(from_ints([3, 2**40, 2**40, 7], (2, 2))).tolist()
    [1, 0]
    """
    keep = np.ones(A.shape[1:], dtype=bool)
    for u in range(A.shape[0] - 1, -1, -1):
        top = np.where(keep, A[u], np.iinfo(np.int64).min).max(axis=0)
        keep &= A[u] == top
    return np.argmax(keep, axis=0)


def column_squares(A: np.ndarray) -> list[int]:
    """``sum_j A[j, r]^2`` for every column r of a balanced expansion A (L, rows, cols), rows at most 2^16.

    ``G[a, b, r] = sum_j A[a, j, r] A[b, j, r]`` adds at most 2^16 products of at most 2^46 (int64), and the column's
    sum is ``sum_{a, b} G[a, b, r] 2^(24 (a + b))`` in Python integers.

    >>> column_squares(from_ints([3, -2**40, 4, 1], (2, 2)))
    [25, 1208925819614629174706177]
    """
    if A.shape[1] > 1 << 16:
        raise FastDomain("a sum of squares over more than 2^16 rows")
    G = np.einsum("ajr,bjr->abr", A, A)
    L = A.shape[0]
    return [sum(int(G[a, b, r]) << (W * (a + b)) for a in range(L) for b in range(L)) for r in range(A.shape[2])]


def padded_pair(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A and B with zero limbs on top up to the same length."""
    L = max(A.shape[0], B.shape[0])
    return _padded(A, L), _padded(B, L)
