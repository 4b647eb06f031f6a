"""Seeded random exact objects for the proofs (small rationals from a NumPy Generator).

The proofs are deterministic (``seed``); hypothesis properties in tests/ state the same
theorems with :mod:`exactrelu.testing`, which shrinks counterexamples.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..exact.matrix import QMatrix


def rational(rng: np.random.Generator, bound: int = 3, max_den: int = 4, nonzero: bool = False) -> Fraction:
    """A rational p/q with |p/q| <= bound, q <= max_den."""
    while True:
        q = int(rng.integers(1, max_den + 1))
        x = Fraction(int(rng.integers(-bound * q, bound * q + 1)), q)
        if x != 0 or not nonzero:
            return x


def matrix(rng: np.random.Generator, r: int, c: int, **kw) -> QMatrix:
    """An r x c QMatrix of :func:`rational` entries."""
    return QMatrix.from_fractions([rational(rng, **kw) for _ in range(r * c)], r, c)


def columns_scaled(M: QMatrix, scales: list[Fraction]) -> QMatrix:
    """``M`` with column j multiplied by ``scales[j]`` (exact)."""
    rows = M.to_fractions()
    return QMatrix.from_fractions([x * scales[j] for row in rows for j, x in enumerate(row)], len(rows), len(scales))


def rows_scaled(M: QMatrix, scales: list[Fraction]) -> QMatrix:
    """``M`` with row i multiplied by ``scales[i]`` (exact)."""
    rows = M.to_fractions()
    c = M.shape[1]
    return QMatrix.from_fractions([x * scales[i] for i, row in enumerate(rows) for x in row], len(rows), c)
