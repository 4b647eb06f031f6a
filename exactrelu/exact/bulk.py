"""Rectified affine maps evaluated exactly on many samples at once: integer limbs multiplied by float64 BLAS.

A map ``x -> U relu(V x + b) + c`` with rational V, b, U, c is held over common denominators as two integer
matrices (:class:`TwoLayer`): ``T = [NV Db, Nb DV] . [NX, Dx]`` is ``V x + b`` over ``Dt = DV Db Dx`` and
``S = [NU Dc, Nc DU] . [relu(T), Dt]`` the map over ``K = DU Dt Dc`` (the bias columns only when there are biases).
Both products are limb products (:func:`exactrelu.exact.codecs.limbs.matmul`: float64 BLAS, exact by the bounds
there, docs/design.md "Exact residuals by limbs"), ReLU a mask by the exact sign of the carried limbs, and the rows of
a matrix are read from its float64 array (its base-2**24 digits, no FLINT) or its limbs or, failing both, its FLINT
entries (:class:`Rows`). Nothing is rounded and no float decides: every sign and every comparison is on exact limbs.

>>> from exactrelu.exact.matrix import QMatrix
>>> X = QMatrix.from_numpy(np.array([[1.5, -2.0], [0.25, 1.0]]), lazy=True)
>>> net = TwoLayer.build(NV=[[2, 1], [0, -1]], DV=1, NU=[[1, 3]], DU=2, Dx=int(X.den))
>>> S = net.outputs(Rows(X), 0, 2)  # (L, m, B): f(x_j) K
>>> [Fraction(v, net.K) for v in limbs.to_ints(S)]  # 1/2 relu(2 x1 + x2) + 3/2 relu(-x2)
[Fraction(7, 2), Fraction(3, 4)]
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction  # noqa: F401 (the doctest)
from typing import Callable, Iterator, TypeVar

import numpy as np

from ..blas import fixed_threads
from .codecs import limbs
from .matrix import QMatrix

__all__ = ["Rows", "TwoLayer", "MAX_LIMBS", "map_blocks"]

T = TypeVar("T")

#: Limbs (24 bits each) beyond which an operand is left to FLINT (the limb route stays for numbers of bounded size).
MAX_LIMBS = 64


class Rows:
    """A matrix's rows as integer limbs, numerator over its ``den``: from its float64 array when it has one (scaled
    by its power of two, exact), else from its limbs, else from its FLINT entries.

    >>> Rows(QMatrix.from_rows([["1/2", 3]])).digits(0, 1, ones=True).tolist()  # [1, 6, den = 2]
    [[[1, 6, 2]]]
    """

    def __init__(self, Q: QMatrix) -> None:
        self.Q, self.cols, self.den = Q, Q.shape[1], int(Q.den)
        src = Q.float_source
        self.floats, self.limbs, self.entries = None, Q.limb_source, None
        if src is not None and src[2] <= 1023:
            self.floats, self.shift, self.bits = src[0], src[1], src[2]
        elif self.limbs is not None:
            self.bits = limbs.W * self.limbs.shape[0]
        else:
            self.entries = Q.num.entries()
            self.bits = max(int(max(self.entries, default=0)).bit_length(),
                            int(min(self.entries, default=0)).bit_length(), 1)

    def digits(self, start: int, stop: int, *, ones: bool = False, scale: int = 1) -> np.ndarray:
        """Rows start..stop-1 times ``scale`` (and a last column ``scale den`` when ``ones``) as limbs (L, B, c):
        float64 digits of the scaled floats when ``scale`` is a power of two they absorb, else balanced int64."""
        e = scale.bit_length() - 1
        if self.floats is not None and scale == 1 << e and self.bits + e <= 1023:
            block, bits = self.floats[start:stop], self.bits
            if ones:  # 1.0 scaled is den = 2**shift
                block, bits = np.hstack([block, np.ones((block.shape[0], 1))]), max(bits, self.shift + 1)
            return limbs.float_digits(limbs.scale_floats(block, self.shift + e), max(bits + e, 1))
        if self.floats is not None:
            L = limbs.from_float_integers(limbs.scale_floats(self.floats[start:stop], self.shift), max(self.bits, 1))
        elif self.limbs is not None:
            L = self.limbs[:, start:stop]
        else:
            L = limbs.from_ints(self.entries[start * self.cols:stop * self.cols], (stop - start, self.cols))
        if ones:
            col = np.repeat(limbs.from_ints([self.den], (1, 1)), L.shape[1], axis=1)
            depth = max(L.shape[0], col.shape[0])
            L = np.concatenate([limbs.pad(L, depth), limbs.pad(col, depth)], axis=2)
        return L if scale == 1 else limbs.scaled(L, scale)


@dataclass
class TwoLayer:
    """``x -> U relu(V x + b) + c`` over common denominators, as limb matrices (see the module docstring): ``Vl`` the
    limbs of ``[NV Db, Nb DV]``, ``Ul`` of ``DY [NU Dc, Nc DU]``; outputs over ``K = DU Dt Dc`` (times DY in Ul)."""

    Vl: np.ndarray
    Ul: np.ndarray
    bias: bool
    output_bias: bool
    Dt: int
    K: int
    DY: int

    @classmethod
    def build(cls, *, NV: list, DV: int, NU: list, DU: int, Dx: int, Nb: list | None = None, Db: int = 1,
              Nc: list | None = None, Dc: int = 1, DY: int = 1) -> "TwoLayer | None":
        """The map from integer rows (NV k x d, NU m x k, Nb and Nc of length k and m or None) and their denominators,
        for inputs over Dx (and outputs to be compared with labels over DY); None when an operand has more than
        :data:`MAX_LIMBS` limbs (FLINT is then the better tool)."""
        if Nb is not None:
            NV = [[x * Db for x in row] + [Nb[i] * DV] for i, row in enumerate(NV)]
        Dt = DV * Db * Dx
        if Nc is not None:
            NU = [[x * Dc for x in row] + [Nc[r] * DU] for r, row in enumerate(NU)]
        K = DU * Dt * Dc
        widest = max([abs(x).bit_length() for row in NV + NU for x in row] + [0]) + DY.bit_length()
        if max(widest, Dt.bit_length(), K.bit_length()) > limbs.W * MAX_LIMBS:
            return None
        Vl = limbs.from_ints([x for row in NV for x in row], (len(NV), len(NV[0])))
        Ul = limbs.from_ints([x * DY for row in NU for x in row], (len(NU), len(NU[0])))
        return cls(Vl, Ul, Nb is not None, Nc is not None, Dt, K, DY)

    def hidden(self, X: Rows, start: int, stop: int) -> np.ndarray:
        """``relu(T)`` of samples start..stop-1: balanced limbs (L, k, B) over Dt (InvalidInput when a product
        could leave int64)."""
        return limbs.rectified(limbs.matmul(self.Vl, X.digits(start, stop, ones=self.bias).transpose(0, 2, 1)))

    def outputs(self, X: Rows, start: int, stop: int, minus: np.ndarray | None = None) -> np.ndarray:
        """``DY S`` (the map times K DY) of samples start..stop-1, less ``minus`` (limbs (L, m, B)) when given:
        balanced limbs (L, m, B)."""
        H = self.hidden(X, start, stop)
        if self.output_bias:
            const = np.repeat(limbs.from_ints([self.Dt], (1, 1)), stop - start, axis=2)
            depth = max(H.shape[0], const.shape[0])
            H = np.concatenate([limbs.pad(H, depth), limbs.pad(const, depth)], axis=1)
        return limbs.matmul(self.Ul, H, minus=minus)

    def differences(self, X: Rows, Y: Rows, start: int, stop: int) -> np.ndarray:
        """``R = (map - label) K DY`` of samples start..stop-1 (labels Y over DY): balanced limbs (L, m, B), one
        carry (the labels' K-multiple is made in their floats when K is a power of two)."""
        return self.outputs(X, start, stop, minus=Y.digits(start, stop, scale=self.K).transpose(0, 2, 1))


def map_blocks(fn: Callable[[int, int], T], n: int, block: int, workers: int = 1) -> Iterator[T]:
    """``fn(a, b)`` for each block a..b-1 of 0..n-1, yielded in order, computed on ``workers`` threads (NumPy's array
    operations and BLAS products run without Python's lock, so blocks overlap on as many cores; each block's BLAS on
    one thread then), at most ``2 workers`` blocks ahead of the consumer (memory stays a few blocks). The results do
    not depend on ``workers``: the blocks and their order do not.

    >>> list(map_blocks(lambda a, b: b - a, 10, 4, workers=2))
    [4, 4, 2]
    """
    spans = [(a, min(n, a + block)) for a in range(0, n, max(1, block))]
    if workers <= 1 or len(spans) <= 1:
        yield from (fn(a, b) for a, b in spans)
        return
    with fixed_threads(1), ThreadPoolExecutor(min(workers, len(spans))) as pool:
        ahead: deque = deque()
        for span in spans:
            ahead.append(pool.submit(fn, *span))
            if len(ahead) >= 2 * workers:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()
