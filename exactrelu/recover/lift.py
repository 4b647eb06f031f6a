"""The symmetric lift of the pattern-linearized route: labels linear in one coefficient block per unit.

With each unit's activation pattern s_ij in {0, 1} fixed, a rectified power t^c (ReLU: c = 1) gives

    y_jr = sum_i s_ij U_ri (w_i . x_j)^c = sum_i s_ij <T_ir, mono_c(x_j)>,

where mono_c(x) lists the monomials x^alpha of degree c in the D input coordinates (D = d, or d + 1
with the constant coordinate of a bias) and T_ir[alpha] = U_ri (c! / alpha!) w_i^alpha. So the labels
are *linear* in the coefficient blocks T_i (one column per output): P = k * C(D + c - 1, c) unknowns.
For c = 1 the block is the m x D matrix U[:, i] w_i^T; the block of a genuine unit is of this
"rank-one" form, and w_i is read from it up to a factor: with t a coordinate where T has a non-zero
x_t^c coefficient, T[x_t^(c-1) x_a] / c (a != t) and T[x_t^c] are ``U w_t^(c-1) w``. The sign is not
determined for even c (and is absorbed by U for odd c): the activation pattern fixes it.

An output bias c adds one unknown per output, always active: ``y_jr = sum_i s_ij <T_ir, mono_c(x_j)> + c_r``
(``offset``: the design gets a constant last column, P = k q + 1).

This module holds the lift in floating point (for the proposal's refinement) and exactly (Fractions).

>>> lift = Lift(D=2, c=2, k=1)
>>> lift.monomials
[(0, 0), (0, 1), (1, 1)]
>>> coef = lift.coefficients([Fraction(1), Fraction(-2)])
>>> coef
[Fraction(1, 1), Fraction(-4, 1), Fraction(4, 1)]
>>> lift.read_weights([[3 * x] for x in coef])
[Fraction(3, 1), Fraction(-6, 1)]
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations_with_replacement

import numpy as np

from ..errors import AssumptionViolated

__all__ = ["Lift", "MAX_UNKNOWNS", "refine"]

#: Largest number of unknowns k * C(D + c - 1, c) the exact square solve takes (a P x P rational
#: system; at P = 600 with 60-bit entries it takes seconds here).
MAX_UNKNOWNS = 600


class Lift:
    """Monomials of degree ``c`` in ``D`` coordinates, for ``k`` units (``P = k * len(monomials)`` unknowns, one more
    with ``offset``: the output bias's, a constant last column of the design)."""

    def __init__(self, D: int, c: int, k: int, n: int | None = None, offset: bool = False):
        self.D, self.c, self.k, self.offset = D, c, k, offset
        self.monomials = list(combinations_with_replacement(range(D), c))
        self.q = len(self.monomials)
        self.P = k * self.q + int(offset)
        if self.P > MAX_UNKNOWNS:
            raise AssumptionViolated(
                f"the pattern-linearized route lifts the inputs to the {self.q} monomials of degree {c} in {D} "
                f"coordinates: {self.P} unknowns for k = {k} units, above its limit of {MAX_UNKNOWNS} (an exact "
                f"{self.P} x {self.P} solve)", evidence={"unknowns": self.P, "limit": MAX_UNKNOWNS},
                suggestion="the row-span route (rank(labels) = k), or fewer inputs (smaller d)")
        if n is not None and n < self.P:
            raise AssumptionViolated(
                f"the pattern-linearized route needs at least k * C(D + c - 1, c) = {self.P} samples, got n = {n}",
                evidence={"unknowns": self.P, "n": n}, suggestion="more samples")
        self._index = {t: i for i, t in enumerate(self.monomials)}
        self._mult = [math.factorial(c) // math.prod(math.factorial(t.count(a)) for a in set(t)) for t in self.monomials]

    # -- floating point --------------------------------------------------------------------------
    def features_float(self, X: np.ndarray) -> np.ndarray:
        """mono_c(x_j) for every row (n x q)."""
        if self.c == 1:
            return X
        return np.stack([np.prod(X[:, list(t)], axis=1) for t in self.monomials], axis=1)

    def design_float(self, X: np.ndarray, S: np.ndarray) -> np.ndarray:
        """Rows ``[s_1j mono(x_j), ..., s_kj mono(x_j)]`` (n x P) for the pattern S (n x k, bool)."""
        Fm = self.features_float(X)
        design = (S[:, :, None] * Fm[:, None, :]).reshape(X.shape[0], self.k * self.q)
        return np.hstack([design, np.ones((X.shape[0], 1))]) if self.offset else design

    def read_float(self, block: np.ndarray) -> np.ndarray:
        """Weights w (up to sign and scale) from one unit's coefficient block (q x m), in floating point."""
        if self.c == 1:
            _, _, Wt = np.linalg.svd(block.T, full_matrices=False)
            return Wt[0]
        diag = np.array([np.abs(block[self._index[(a,) * self.c]]).max() for a in range(self.D)])
        t = int(np.argmax(diag))
        r = int(np.argmax(np.abs(block[self._index[(t,) * self.c]])))
        return self._read(lambda idx: block[idx, r], t) if diag[t] > 0 else np.zeros(self.D)

    # -- exact ------------------------------------------------------------------------------------
    def features(self, x: list[int]) -> list[int]:
        """mono_c(x) of one integer row, exactly."""
        if self.c == 1:
            return list(x)
        return [math.prod(x[a] for a in t) for t in self.monomials]

    def coefficients(self, w) -> list:
        """The coefficients of (w . x)^c on the monomials: (c! / alpha!) w^alpha, exactly."""
        return [mult * math.prod(w[a] for a in t) for mult, t in zip(self._mult, self.monomials)]

    def read_weights(self, block: list[list[Fraction]]) -> list[Fraction] | None:
        """w (up to a non-zero factor) from one unit's exact coefficient block (q rows x m), or None.

        None when the block is zero, or is not of the form ``lambda_r * coefficients(w)`` for every
        output r (not a genuine unit: the pattern that produced it is wrong somewhere).
        """
        c = self.c
        pick = next(((a, r) for a in range(self.D) for r in range(len(block[0]))
                     if block[self._index[(a,) * c]][r] != 0), None)
        if pick is None:
            return None
        t, r = pick
        w = self._read(lambda idx: block[idx][r], t)
        coef = self.coefficients(w)
        lead = self._index[(t,) * c]
        for rr in range(len(block[0])):
            lam = Fraction(block[lead][rr]) / coef[lead]
            if any(block[i][rr] != lam * coef[i] for i in range(self.q)):
                return None
        return w

    def _read(self, get, t: int):
        c = self.c
        if c == 1:
            return [get(self._index[(a,)]) for a in range(self.D)]
        out = []
        for a in range(self.D):
            if a == t:
                out.append(get(self._index[(t,) * c]))
            else:
                out.append(get(self._index[tuple(sorted((t,) * (c - 1) + (a,)))]) / c)
        return np.array(out) if isinstance(out[0], (float, np.floating)) else out


def refine(X: np.ndarray, Y: np.ndarray, V: np.ndarray, lift: Lift, iters: int = 30,
           rng: np.random.Generator | None = None, sample: int = 4000) -> tuple[np.ndarray, float]:
    """Float fixed point of the pattern: pattern of V -> least squares in the lift -> read each unit.

    Works on a random subset of ``max(sample, 10 P)`` samples. Returns the last weights (rows x D,
    each oriented to agree with the pattern it came from) and the relative residual of the last least
    squares fit: near 1e-15 when the pattern explains the labels (the exact step then gets a
    proposal whose pattern is right except near the kinks).
    """
    n = X.shape[0]
    J = np.arange(n)
    size = max(sample, 10 * lift.P)
    if n > size:
        J = np.sort((rng or np.random.default_rng(0)).choice(n, size=size, replace=False))
    XJ, YJ = X[J], Y[J]
    ynorm = float(np.linalg.norm(YJ)) or 1.0
    res = np.inf
    for _ in range(iters):
        S = XJ @ V.T > 0
        Dm = lift.design_float(XJ, S)
        M, *_ = np.linalg.lstsq(Dm, YJ, rcond=None)
        res = float(np.linalg.norm(Dm @ M - YJ)) / ynorm
        blocks = M[: lift.k * lift.q].reshape(lift.k, lift.q, -1)  # an output bias's row is last
        Vn = np.array([lift.read_float(b) for b in blocks])
        for i in range(lift.k):
            if np.mean((XJ @ Vn[i] > 0) == S[:, i]) < 0.5:
                Vn[i] = -Vn[i]
        if not np.all(np.isfinite(Vn)):
            break
        same = bool(np.all((XJ @ Vn.T > 0) == S))
        V = Vn
        if same or res < 1e-13:
            break
    return V, res
