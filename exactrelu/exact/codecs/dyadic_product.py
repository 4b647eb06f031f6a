"""Exact products ``V @ (arr * 2**shift).T`` of small integer rows with a float64 array, by float64 BLAS.

Why this is exact. ``S = arr * 2**shift`` holds integers below ``2**bits`` (a power-of-two scaling of a double
is exact). Each ``|S|`` is cut into base-``2**w`` digits by floors of power-of-two scalings and differences,
all representable integers, so every digit is exact. With ``vmax = max |V|`` and ``w = 53 - bitlen(d vmax)``,
every product ``V[i, t] * digit`` has magnitude below ``vmax 2**w`` and every partial sum of a row-times-column
product has magnitude below ``d vmax 2**w < 2**53``: every intermediate of the float64 matrix product (in any
summation order, with or without fused multiply-add) is an integer that float64 represents, so no operation
rounds and the limb product ``P_t = V @ digit_t.T`` is exact. NumPy then carries the limbs into
``[0, 2**w)`` (floor division by a power of two, in int64) except the signed top one, so the sign of every
entry is read off exactly (:func:`_positive`), and FLINT recombines word-size chunks.

>>> import numpy as np
>>> int_times_dyadic([[1, -2]], np.array([[0.5, 0.25], [-3.0, 0.0]]), 2, 4)
[0, -12]
>>> rectified_int_times_dyadic([[1, -2]], np.array([[0.5, 0.25], [-3.0, 0.0]]), 2, 4)
[0, 0]
"""

from __future__ import annotations

from typing import Iterator, Sequence

import flint
import numpy as np

__all__ = ["int_times_dyadic", "rectified_int_times_dyadic"]

_MAX_BITS = 1023  # a float64 integer has at most 1024 bits; beyond this the caller uses FLINT


def int_times_dyadic(V: Sequence[Sequence[int]], arr: np.ndarray, shift: int, bits: int) -> flint.fmpz_mat | None:
    """``V @ (arr * 2**shift).T`` exactly (k x n), from the float64 array without converting it to FLINT.

    ``arr * 2**shift`` must hold integers below ``2**bits`` (what :func:`~exactrelu.exact.codecs.float64.dyadic_scale`
    returns). Returns None when the bounds of the module docstring do not hold (callers then use FLINT).

    >>> int_times_dyadic([[3]], np.array([[0.5], [-1.5]]), 1, 2)
    [3, -9]
    """
    return _product(V, arr, shift, bits, rectify=False)


def rectified_int_times_dyadic(V: Sequence[Sequence[int]], arr: np.ndarray, shift: int,
                               bits: int) -> flint.fmpz_mat | None:
    """``relu(V @ (arr * 2**shift).T)`` exactly: as :func:`int_times_dyadic`, entries <= 0 set to 0 (the sign is
    decided exactly on the carried limbs, never in floating point).

    >>> rectified_int_times_dyadic([[3], [-1]], np.array([[0.5], [-1.5]]), 1, 2).tolist()
    [[3, 0], [0, 3]]
    """
    return _product(V, arr, shift, bits, rectify=True)


def _product(V, arr: np.ndarray, shift: int, bits: int, *, rectify: bool) -> flint.fmpz_mat | None:
    k, n, d = len(V), arr.shape[0], arr.shape[1]
    if k == 0 or bits > _MAX_BITS or shift > 1074:
        return None
    vmax = max((abs(int(x)) for row in V for x in row), default=0)
    if vmax == 0 or bits == 0:
        return flint.fmpz_mat(k, n)
    w = 53 - (d * vmax).bit_length()  # d * vmax < 2**(53 - w): every partial sum stays below 2**53
    if w < 8 or -(-bits // w) > 64:
        return None  # huge weights or inputs: FLINT is the better tool
    Vf = np.array([[int(x) for x in row] for row in V], dtype=np.float64)  # exact: |V| <= vmax < 2**45
    limbs = [(Vf @ digit.T).astype(np.int64) for digit in _digits(np.ldexp(arr, shift), bits, w)]
    _carry(limbs, w)
    if rectify:
        keep = _positive(limbs)
        for P in limbs:
            P *= keep
    return _to_fmpz(limbs, w, k, n)


def _digits(S: np.ndarray, bits: int, w: int) -> Iterator[np.ndarray]:
    """Signed base-2**w digits of the integers S (|S| < 2**bits), lowest first: ``S = sum_t D_t 2**(w t)``."""
    A = np.abs(S)
    down, up = 2.0**-w, 2.0**w  # multiplying an integer below 2**1024 by these is exact (no overflow, no underflow)
    for _ in range(-(-bits // w)):  # one digit at a time: the caller multiplies it before the next is made
        hi = np.floor(A * down)
        digit = A - hi * up  # exact: an integer in [0, 2**w)
        yield np.copysign(digit, S, out=digit)  # the sign of S (exact; -0.0 is 0)
        A = hi


def _carry(limbs: list[np.ndarray], w: int) -> None:
    """In place: limbs 0..L-2 into [0, 2**w) by floor carries (the same integers); the top limb stays signed.

    Every limb starts below 2**53 in magnitude and receives a carry below 2**(54 - w), so int64 never overflows.
    """
    for t in range(len(limbs) - 1):
        carry = limbs[t] >> w  # floor division by 2**w
        limbs[t] -= carry << w
        limbs[t + 1] += carry


def _positive(limbs: list[np.ndarray]) -> np.ndarray:
    """1 where ``sum_t limbs[t] 2**(w t) > 0``, else 0, for carried limbs (lower ones in [0, 2**w)).

    With T the top limb and R = the lower part, 0 <= R < 2**(w (L-1)): T >= 1 gives a positive value, T <= -1 a
    negative one (R cannot reach 2**(w (L-1))), T = 0 leaves R, positive unless every lower limb is 0.
    """
    top = limbs[-1]
    lower = np.zeros(top.shape, dtype=bool)
    for P in limbs[:-1]:
        lower |= P != 0
    return ((top > 0) | ((top == 0) & lower)).astype(np.int64)


def _to_fmpz(limbs: list[np.ndarray], w: int, k: int, n: int) -> flint.fmpz_mat:
    """FLINT's ``sum_t limbs[t] 2**(w t)``: lower limbs packed into chunks below 2**62, then one build per chunk."""
    per = max(1, 62 // w)
    out, t = None, 0
    while t < len(limbs):
        top = t == len(limbs) - 1
        group = limbs[t:t + 1] if top else limbs[t:min(t + per, len(limbs) - 1)]
        chunk = group[0].copy()
        for u, P in enumerate(group[1:], start=1):
            chunk += P << (w * u)  # non-negative digits: the chunk stays below 2**(w len(group)) <= 2**62
        M = flint.fmpz_mat(k, n, chunk.ravel().tolist())
        out = M if out is None else out + M * (1 << (w * t))
        t += len(group)
    return out
