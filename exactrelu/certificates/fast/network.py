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
    small = _small_outputs(net, Zn, G, e, Yn, sy) if net.c == 1 else None
    if small is not None:
        return small
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


#: every integer of the float64 path is below this in magnitude (a difference of two is then below 2^53)
SMALL = 1 << 52


def _as_floats(Z: np.ndarray) -> np.ndarray | None:
    """The integers of balanced limbs Z of at most two limbs (below 2^48 in magnitude) as float64, exactly."""
    if Z.shape[0] > 2:
        return None
    F = Z[0].astype(np.float64)
    return F + Z[1].astype(np.float64) * float(1 << limbs.W) if Z.shape[0] == 2 else F


def _largest(A) -> int:
    """The largest |entry| of an integer-valued float64 array (or of Python integers), exactly."""
    return int(np.abs(A).max(initial=0)) if isinstance(A, np.ndarray) else max(map(abs, A), default=0)


def _small_outputs(net: Integers, Zn: np.ndarray, G: int, e: int, Yn: np.ndarray, sy: int) -> tuple | None:
    """:func:`outputs` for the ReLU (c = 1) in float64, when every integer it makes is below :data:`SMALL` in
    magnitude (bounded first, in Python integers, from the block's and the network's largest entries); else None.

    Every value is then an integer of magnitude below 2^52 and each float64 operation exact: a product's partial
    sums are sums of terms each at most the largest |z| times the largest |w|, so at most (terms) times that, below
    2^52 by the bound (the argument of "Limb arithmetic", item 3, with one piece); a sum of two, a product of two
    whose exact value is below 2^52, a scaling by a power of two within that, and the final difference of two (below
    2^53) are exact (docs/design.md, "The fast checker's float64 path").
    """
    Z, Yf, V, W = _as_floats(Zn), _as_floats(Yn), _as_floats(net.hidden), _as_floats(net.out)
    if Z is None or Yf is None or V is None or W is None:
        return None
    odd = G >> e
    g = min(sy, e)
    K = [E * odd << (e - g) for E in net.scale]  # F = Yn K: the labels' side
    Tb = Z.shape[-1] * _largest(Z) * _largest(V) + G * _largest(net.bias)
    if max(Tb, _largest(Yf) * max(K), max(K)) >= SMALL:
        return None
    H = np.maximum(Z @ V + np.array([float(v * G) for v in net.bias]), 0.0)  # f(T): T exact, below 2^52
    Sb = (H.shape[-1] * _largest(H) * _largest(W) + G * _largest(net.out_bias)) << (sy - g)
    if Sb >= SMALL:
        return None
    S = (H @ W + np.array([float(v * G) for v in net.out_bias])) * float(1 << (sy - g))
    R = S - Yf * np.array([float(k) for k in K])  # each side below 2^52: the difference is exact
    return limbs.normalized(R.astype(np.int64)[None]), [E * odd << (e + sy - g) for E in net.scale]
