"""The network of a claim over common denominators, and its exact differences from the labels on a block of rows.

The network ``N_jr = sum_i U[r][i] f(V[i] . x_j + b[i]) + c[r]`` (f the ReLU or t^c) is put in integers once
(:func:`integers`): each unit (V_i, b_i) over its denominator D_i, ``A[r][i] = U[r][i] / D_i^c`` over one
denominator Du_r per output, the output bias over Dc, and ``E_r = Dc Du_r``. A block's inputs are integers over one
power of two, ``x = Xn / 2^sx``, and its labels ``y = Yn / 2^sy``. Then (docs/design.md, "The fast checker")

* ``T = Xn NV^T + 2^sx Nb`` is ``D_i 2^sx (V_i . x_j + b_i)``: its sign is the pre-activation's;
* ``S = relu(T)^c Wout^T + 2^(c sx) Bout`` with ``Wout[r][i] = Dc Du_r A[r][i]``, ``Bout_r = Du_r Dc c_r`` is
  ``N_jr E_r 2^(c sx)``;
* with g = min(sy, c sx), ``R = S 2^(sy - g) - Yn E_r 2^(c sx - g)`` is ``(N_jr - y_jr) E_r 2^(c sx + sy - g)``.

>>> from fractions import Fraction as F
>>> net = integers([[F(1), F(-2)]], [[F(1), F(1)], [F(2), F(-1)]], [F(0), F(1, 2)], [F(1, 3)], 1)
>>> net.scale, net.bias, net.out_bias
([3], [0, 1], [1])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import limbs
from .limbs import FastDomain
from .numbers import Numbers

__all__ = ["Integers", "integers", "scaled", "differences", "outputs", "MAX_LIMBS"]

#: the most limbs (24 bits each) of any integer the fast checker computes; more: the reference reads those rows
MAX_LIMBS = 96


@dataclass
class Integers:
    """The network in integers: ``hidden`` (L, d, k) = NV^T, ``bias`` Nb, ``out`` (L, k, m) = Wout^T, ``out_bias``
    Bout and ``scale`` E (Python integers), and the activation degree c."""

    hidden: np.ndarray
    bias: list[int]
    out: np.ndarray
    out_bias: list[int]
    scale: list[int]
    c: int


def integers(U: list, V: list, b: list, offset: list, c: int) -> Integers:
    """The network (U, V, b, output bias, degree c; Fractions) in integers over common denominators."""
    k, d, m = len(V), len(V[0]), len(U)
    D = [math.lcm(bi.denominator, *(f.denominator for f in row)) for row, bi in zip(V, b)]
    NV = [int(f * Di) for row, Di in zip(V, D) for f in row]
    A = [[U[r][i] / Fraction(D[i]) ** c for i in range(k)] for r in range(m)]
    Du = [math.lcm(*(f.denominator for f in row)) for row in A]
    Dc = math.lcm(*(f.denominator for f in offset))
    out = [int(A[r][i] * Du[r] * Dc) for i in range(k) for r in range(m)]  # row i, column r: Wout^T
    return Integers(hidden=limbs.from_ints(NV, (k, d)).transpose(0, 2, 1), bias=[int(bi * Di) for bi, Di in zip(b, D)],
                    out=limbs.from_ints(out, (k, m)), out_bias=[int(offset[r] * Dc * Du[r]) for r in range(m)],
                    scale=[Dc * Du[r] for r in range(m)], c=c)


def scaled(numbers: Numbers) -> tuple[np.ndarray, int]:
    """(Zn, s): the block's numbers as limbs (L, rows, cols) of magnitude at most 2^23 of integers over one power of
    two 2^s. Floats are scaled by 2^s as floats (exact: an integer M 2^(E + s) that float64 holds, unless it
    overflows) and split there; other numbers are shifted limb by limb."""
    s = max(0, int(numbers.t.max(initial=0)))
    if numbers.floats is not None:
        with np.errstate(over="ignore"):
            v = np.ldexp(numbers.floats, s)
        if np.isfinite(v).all():
            return _bounded(limbs.split_floats(v)), s
    Z = limbs.from_digits(numbers.neg, numbers.mag, s - numbers.t)
    return _bounded(Z).reshape(Z.shape[0], *numbers.shape), s


def _bounded(Z: np.ndarray) -> np.ndarray:
    if Z.shape[0] > MAX_LIMBS:
        raise FastDomain(f"integers of {Z.shape[0]} limbs")
    return Z


def _plus(Z: np.ndarray, constants: list[int]) -> np.ndarray:
    """``Z + constants`` (one integer per column, added to every row)."""
    C = limbs.from_ints(constants, (1, len(constants)))
    Z, C = limbs.padded_pair(Z, C)
    return _bounded(limbs.normalized(Z + C))


def differences(net: Integers, X: Numbers, Y: Numbers) -> tuple[np.ndarray, list[int]]:
    """(R, den): ``N_jr - y_jr == R[j, r] / den[r]`` for every row j and output r of the block (R balanced limbs)."""
    Xn, sx = scaled(X)
    return outputs(net, Xn, 1 << sx, Y)


def outputs(net: Integers, Zn: np.ndarray, G: int, Y: Numbers) -> tuple[np.ndarray, list[int]]:
    """:func:`differences` for the inputs ``Zn / G`` (limbs over one positive integer G for the block: 2^sx for the
    instance's rows, a product of layer denominators for a deep network's last hidden layer). With G = odd 2^e the
    power-of-two part plays the role of 2^sx above: ``S = N_jr E_r G^c`` and, with g = min(sy, c e),
    ``R = S 2^(sy - g) - Yn E_r odd^c 2^(c e - g) = (N_jr - y_jr) E_r odd^c 2^(c e + sy - g)``."""
    Yn, sy = scaled(Y)
    e = (G & -G).bit_length() - 1
    odd = (G >> e) ** net.c
    T = _plus(limbs.matmul(Zn, net.hidden), [bi * G for bi in net.bias])
    H = np.where(limbs.sign(T) > 0, T, 0)  # relu: the sign of T is the pre-activation's
    P = H
    for _ in range(net.c - 1):
        P = _bounded(limbs.product(P, H))
    ce = net.c * e
    S = _plus(limbs.matmul(P, net.out), [v * odd << ce for v in net.out_bias])
    g = min(sy, ce)
    if sy > g:
        S = limbs.product(S, limbs.from_ints([1 << (sy - g)], (1, 1)))
    F = limbs.product(Yn.astype(np.int64), limbs.from_ints([E * odd << (ce - g) for E in net.scale],
                                                            (1, len(net.scale))))
    S, F = limbs.padded_pair(S, F)
    R = _bounded(limbs.normalized(S - F))
    return R, [E * odd << (ce + sy - g) for E in net.scale]
