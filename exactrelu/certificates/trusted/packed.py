"""Many exact dot products at once through packed integers (Kronecker substitution). Standard library only.

The rows ``M[0], ..., M[k-1]`` of an integer matrix are packed column by column into one integer per
column, each row in its own slot of ``w`` bits::

    P[l] = sum_i M[i][l] * 2^(w i)

Then for an integer vector x, ``sum_l P[l] x[l] = sum_i (M[i] . x) 2^(w i)``: one pass of ``len(x)``
big-by-small multiplications (in C) yields all k dot products, packed. They are read back exactly when
every slot fits: if ``|M[i] . x| < 2^(w-1)`` for every i, then adding ``H = sum_i 2^(w-1) 2^(w i)`` makes
every slot's digit ``M[i] . x + 2^(w-1)`` lie in [0, 2^w), so these digits are *the* base-2^w expansion
of the sum (the expansion is unique): there is no carry between slots, and slot i is read from its w
bits alone. The width comes from a bound on the entries, never from the values computed:
``|M[i] . x| <= (sum_l |M[i][l]|) * max_l |x[l]|``, and w is the smallest multiple of 8 with
``2^(w-1) > that bound``. docs/design.md ("The packed check") gives the argument in full.

>>> packed = Packed([[1, -2, 3], [0, 0, 0], [-5, 4, 0]])
>>> packed.dot([7, -1, 2])
[15, 0, -39]
>>> packed.dot([10**40, 0, -1]) == [10**40 - 3, 0, -5 * 10**40]
True
"""

from __future__ import annotations

from itertools import repeat
from operator import mul, sub


class Packed:
    """The rows of an integer matrix, ready for exact packed dot products with integer vectors."""

    def __init__(self, rows: list) -> None:
        self.rows = len(rows)
        self.columns = list(zip(*rows))  # column l: (M[0][l], ..., M[k-1][l])
        self.norm = max(sum(map(abs, r)) for r in rows)  # max_i sum_l |M[i][l]|
        self._by_width: dict = {}  # slot bytes -> (packed columns, offset H)

    def _packing(self, nbytes: int):
        """(P, H, slots, half) for slots of ``nbytes`` bytes (w = 8 nbytes): P[l] = sum_i M[i][l] 2^(w i),
        H = sum_i 2^(w-1) 2^(w i), the byte ranges of the slots, and 2^(w-1)."""
        w = 8 * nbytes
        P = [sum(v << (w * i) for i, v in enumerate(col) if v) for col in self.columns]
        H = int.from_bytes((1 << (w - 1)).to_bytes(nbytes, "little") * self.rows, "little")
        slots = [slice(a, a + nbytes) for a in range(0, self.rows * nbytes, nbytes)]
        self._by_width[nbytes] = packing = (P, H, slots, 1 << (w - 1))
        return packing

    def dot(self, x: list) -> list:
        """``[M[i] . x for i]`` exactly, for integers x (as many as M has columns).

        >>> Packed([[2, 3]]).dot([-4, 1])
        [-5]
        """
        bound = self.norm * max(max(x), -min(x))  # |M[i] . x| <= bound (max |x[l]|, without a list of abs)
        nbytes = (bound.bit_length() + 8) // 8  # w = 8 nbytes >= bit_length(bound) + 1, so bound < 2^(w-1)
        P, H, slots, half = self._by_width.get(nbytes) or self._packing(nbytes)
        digits = (sum(map(mul, P, x)) + H).to_bytes(self.rows * nbytes, "little")  # every digit in [0, 2^w)
        return list(map(sub, map(int.from_bytes, map(digits.__getitem__, slots), repeat("little")), repeat(half)))
