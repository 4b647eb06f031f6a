"""The hidden layers of a network of any depth in the fast checker: exact, in limbs, one denominator per layer.

A certificate with ``"layers"`` is checked as the reference checks it (``trusted/realizes._deep_network``): the rows
go through every layer but the last two (:func:`forward`), and the values of the last hidden layer enter the
two-layer check as its inputs (:func:`.network.outputs`). Each hidden layer ``(W, b)`` is put over the lcm D of all
its denominators, ``NW = D W``, ``Nb = D b`` (the reference's D). A block's inputs are ``Xn / 2^sx``; if the values
below a layer are ``Hn / G`` (G a positive integer, one for the block), then with f the ReLU or t^c

* ``T = Hn NW^T + G Nb`` is ``D G (W h + b)``: a positive multiple, so its sign is the pre-activation's, and
* ``f(W h + b) = f(T) / (D G)^c``: the layer's values are ``f(T)`` over ``(D G)^c``, again one integer.

The reference puts each sample over its own ``Dx_j = 2^(s_j)`` (``s_j`` the sample's largest exponent, at least 0)
and gets ``Nh_j / Dh_j``; by induction over the layers the block's integers are the reference's times
``2^(c^L (sx - s_j))`` (L the layers passed), numerators and denominator alike, so the reference's sizes of every
sample (what its bound on the check's integers reads: ``bits(Dh_j) + bits(max_i Nh_ji)``) follow exactly from the
block's (:func:`reference_sizes`). docs/design.md ("Deep networks in the fast checker") has the proofs.

>>> from fractions import Fraction as F
>>> net = hidden([([[F(1), F(-1, 2)]], [F(1, 4)])], 1)
>>> H, G = forward(net, limbs.from_ints([3, 2, -8, 0], (2, 2)), 1)   # rows (3/2, 1) and (-4, 0) over 2^1
>>> limbs.to_ints(H), G   # relu(3/2 - 1/2 + 1/4) = 5/4 = 10/8 and relu(-4 + 1/4) = 0, over D 2^1 = 8
([10, 0], 8)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import limbs
from .limbs import FastDomain
from .network import MAX_LIMBS, _bounded, _plus

__all__ = ["Hidden", "hidden", "forward", "reference_sizes"]


@dataclass
class Hidden:
    """The hidden layers in integers: ``layers`` [(NW^T limbs (L, inputs, units), Nb, D)], the activation degree c,
    ``base`` the denominator of the last layer's values for a sample of integers (s_j = 0) and ``power`` = c^L."""

    layers: list
    c: int
    base: int
    power: int


def hidden(layers: list, c: int) -> Hidden:
    """The layers ``[(W rows, b), ...]`` (Fractions, as the reference parses them) in integers."""
    out, base = [], 1
    for W, b in layers:
        D = math.lcm(*(f.denominator for row in W for f in row), *(f.denominator for f in b))
        NW = [int(f * D) for row in W for f in row]
        out.append((limbs.from_ints(NW, (len(W), len(W[0]))).transpose(0, 2, 1), [int(f * D) for f in b], D))
        base = (D * base) ** c
    return Hidden(layers=out, c=c, base=base, power=c ** len(layers))


def forward(net: Hidden, Xn: np.ndarray, sx: int) -> tuple[np.ndarray, int]:
    """(Hn, G): the block's rows ``Xn / 2^sx`` through the hidden layers, their values ``Hn / G`` (Hn balanced limbs
    of non-negative integers, G one positive integer); FastDomain when an integer would need over MAX_LIMBS limbs, or
    when c^L is over 2^32 (the sizes of :func:`reference_sizes` are int64: ``c^L sx`` must stay far below 2^63)."""
    if net.power > 1 << 32:
        raise FastDomain(f"activation degree to the power of the depth: {net.power.bit_length()} bits")
    H, G = Xn, 1 << sx
    for NW, Nb, D in net.layers:
        T = _plus(limbs.matmul(H, NW), [v * G for v in Nb])
        H = np.where(limbs.sign(T) > 0, T, 0)  # f(T): the sign of T is the pre-activation's
        P = H
        for _ in range(net.c - 1):
            P = _bounded(limbs.product(P, H))
        H, G = P, (D * G) ** net.c
        if G.bit_length() > limbs.W * MAX_LIMBS:
            raise FastDomain(f"a denominator of {G.bit_length()} bits")
    return H, G


def reference_sizes(net: Hidden, H: np.ndarray, s: np.ndarray, sx: int) -> np.ndarray:
    """The reference's size of every hidden row, ``bits(Dh_j) + bits(max_i Nh_ji)``, from the block's values ``H``
    (rows, units) over ``G`` and each sample's exponent ``s_j``.

    ``Dh_j = base 2^(c^L s_j)`` and ``Nh_ji = H_ji / 2^(c^L (sx - s_j))`` (an exact division): a non-zero numerator
    loses exactly ``c^L (sx - s_j)`` bits, a zero one has none. With no hidden layer (a two-layer network given by
    its layers) H is the block's inputs ``Xn`` (any sign, limbs not yet carried) and the reference's rows are the
    inputs over their own denominators, ``Nx_j = Xn_j / 2^(sx - s_j)``, whose largest |entry| it measures.
    """
    if not net.layers:
        H = limbs.absolute(limbs.normalized(np.asarray(H, dtype=np.int64)))
    top = limbs.bit_lengths(H).max(axis=1, initial=0)
    return net.base.bit_length() + net.power * s + np.where(top > 0, top - net.power * (sx - s), 0)
