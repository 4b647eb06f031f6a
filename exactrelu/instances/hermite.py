"""Planted biased networks for the Hermite algorithms: exact unit rows, so that b_i = 0, +-1 exactly.

The Hermite coefficients of a unit depend on its bias relative to the norm of its row,
beta_i = b_i / |w_i|; the interesting biases (b = 0 kills f_3, b = +-1 kills f_4) are values of
beta. :func:`rational_unit_rows` draws rows of norm exactly 1 with rational entries (inverse
stereographic projection of a random rational point: ``(2 t, |t|^2 - 1) / (|t|^2 + 1)``), so
those biases can be planted exactly. Output weights are non-zero integers (a unit with a_i = 0 is
invisible to every algorithm).

>>> inst = planted_biased(d=4, k=3, n=50, seed=0, special=(0, 1))
>>> [str(x) for x in inst.planted.b_fractions()][:2], inst.planted.m
(['0', '1'], 1)
>>> from fractions import Fraction
>>> all(sum(x * x for x in row) == 1 for row in inst.planted.V.to_fractions())
True
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import InvalidInput
from ..validation import as_generator
from ..exact.matrix import QMatrix
from . import Instance
from ..network import RELU, Network

__all__ = ["rational_unit_rows", "planted_biased"]


def rational_unit_rows(rng: np.random.Generator, k: int, d: int, den: int = 16) -> list[list[Fraction]]:
    """k rows in Q^d of Euclidean norm exactly 1, nearly uniformly spread, pairwise non-parallel.

    Each row is the inverse stereographic image of t = round(den g) / den, g ~ N(0, I_{d-1}), with
    a random sign pattern and coordinate order (the projection alone favors its pole).
    """
    if d < 2:
        raise InvalidInput("rational unit rows need d >= 2")
    rows: list[list[Fraction]] = []
    while len(rows) < k:
        t = [Fraction(int(round(den * g)), den) for g in rng.standard_normal(d - 1)]
        s = sum(x * x for x in t)
        row = [2 * x / (s + 1) for x in t] + [(s - 1) / (s + 1)]
        perm = rng.permutation(d)
        row = [row[int(j)] for j in perm]
        if all(abs(sum(x * y for x, y in zip(row, r))) < 1 - Fraction(1, 100) for r in rows):
            rows.append(row)
    return rows


def planted_biased(d: int, k: int, n: int, *, seed: int = 0, bias: float = 1.5, special=(0, 1, -1),
                   a_bound: int = 3, m: int = 1) -> Instance:
    """Gaussian inputs and exact labels of ``a^T relu(W^T x + b)`` with unit rows w_i.

    The first biases are ``special`` (exact; default 0, 1, -1), the others uniform in [-bias, bias]
    rounded to quarters; output weights are non-zero integers in [-a_bound, a_bound] (m x k).
    """
    rng = as_generator(seed)
    rows = rational_unit_rows(rng, k, d)
    sp = [Fraction(x) for x in special][:k]
    b = sp + [Fraction(int(round(4 * x)), 4) for x in rng.uniform(-bias, bias, k - len(sp))]
    choices = [v for v in range(-a_bound, a_bound + 1) if v != 0]
    U = [[int(rng.choice(choices)) for _ in range(k)] for _ in range(m)]
    net = Network.from_rows(U, rows, RELU, b=b)
    X = rng.standard_normal((n, d))
    Xq = QMatrix.from_numpy(X, name="inputs", lazy=True)
    meta = {"generator": "exactrelu.instances.hermite.planted_biased", "seed": seed, "bias": bias}
    return Instance(Xq, net.evaluate_exact(Xq), RELU, net, X, None, meta)
