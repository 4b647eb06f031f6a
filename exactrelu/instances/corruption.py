"""Sparse corruption of labels: ``labels = U f(V X + b) + E`` with E supported on a few entries.

The model of the COLT 2019 paper's sparse-noise result: a random set of entries is corrupted by
arbitrary values. :func:`corrupt` makes such an instance from a clean one, exactly (the added values
are non-zero dyadic rationals, so float64 labels stay float64), and records the corrupted entries
in ``meta["corrupted"]`` (sorted (sample, output) pairs): exactly the list a ``realizes-except``
certificate of the planted network must carry.

>>> from exactrelu.instances import planted
>>> inst = planted(d=3, k=2, m=4, n=50, seed=0)
>>> bad = corrupt(inst, 0.1, seed=1)
>>> len(bad.meta["corrupted"]), bad.labels == inst.labels
(20, False)
>>> j, r = bad.meta["corrupted"][0]
>>> bad.labels.to_fractions()[j][r] != inst.labels.to_fractions()[j][r]
True
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from ..errors import InvalidInput
from ..validation import as_generator, check_number
from ..exact.matrix import QMatrix
from ..exact.rationals import to_fraction
from . import Instance

__all__ = ["corrupt"]


def corrupt(instance: Instance, fraction: float = 0.0, *, seed=0, scale: float = 1.0, entries=None,
            values=None) -> Instance:
    """A copy of ``instance`` whose labels are corrupted on a sparse set of entries.

    Parameters
    ----------
    instance : the clean instance (its planted network, if any, is kept).
    fraction : share of the n * m label entries to corrupt, chosen uniformly at random (0 <= fraction <= 1).
    seed : seed or ``numpy.random.Generator``.
    scale : corruption values are drawn as N(0, scale^2) rounded to multiples of 2**-20 (zero redrawn
        as +-2**-20): exact dyadics.
    entries, values : instead of ``fraction``, the exact (sample, output) entries to corrupt and, optionally,
        the rationals to add there (each non-zero).

    Raises
    ------
    InvalidInput : fraction outside [0, 1], entries out of range or repeated, a zero value.
    """
    n, m = instance.n, instance.m
    rng = as_generator(seed)
    if entries is None:
        fraction = check_number(fraction, "corruption fraction", minimum=0, maximum=1)
        flat = rng.choice(n * m, size=int(round(fraction * n * m)), replace=False)
        entries = [divmod(int(i), m) for i in flat]
    entries = sorted((int(j), int(r)) for j, r in entries)
    if len(set(entries)) != len(entries) or any(not (0 <= j < n and 0 <= r < m) for j, r in entries):
        raise InvalidInput(f"corrupted entries must be distinct (sample, output) pairs within {n} x {m}")
    if values is None:
        draw = np.round(rng.standard_normal(len(entries)) * scale * 2**20)
        draw[draw == 0] = 1
        values = [Fraction(int(v), 2**20) for v in draw]
    values = [to_fraction(v) for v in values]
    if len(values) != len(entries) or any(v == 0 for v in values):
        raise InvalidInput("one non-zero value per corrupted entry is needed")
    labels = _added(instance.labels, dict(zip(entries, values)))
    meta = dict(instance.meta, corrupted=[list(e) for e in entries], corruption_fraction=len(entries) / (n * m))
    return Instance(instance.inputs, labels, instance.activation, instance.planted, instance.inputs_float, None, meta,
                    clean_labels=instance.labels)


def _added(Y: QMatrix, add: dict[tuple[int, int], Fraction]) -> QMatrix:
    n, m = Y.shape
    den = int(Y.den)
    for v in add.values():
        den = den * v.denominator // math.gcd(den, v.denominator)
    f = den // int(Y.den)
    vals = [int(x) * f for x in Y.num.entries()]
    for (j, r), v in add.items():
        vals[j * m + r] += v.numerator * (den // v.denominator)
    return QMatrix(flint.fmpz_mat(n, m, vals), den)
