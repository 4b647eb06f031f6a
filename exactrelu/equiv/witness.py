"""An exact input at which two networks with different canonical forms differ (docs/equivalence.md, "Witness").

Let ``h = f1 - f2 = sum_j delta_j f(p_j . (x, 1)) + P(x)``, the p_j the hyperplanes whose coefficients
differ (``delta_j != 0``) and P a polynomial of degree <= c (affine for the ReLU).

* **A hyperplane differs.** Take a rational point x0 on H = {p . (x, 1) = 0} and on no other H_j (a random
  integer point projected onto H, checked exactly), w = the normal of H, and t > 0 so small that the
  segment x0 + s w, -c t <= s <= t, crosses no other H_j. On that segment every other term is a
  polynomial of degree <= c in s, and ``f(p . (x0 + s w, 1)) = |w|^(2c) f(s)``. If h vanished at the c + 1
  points s = -c t, ..., -t, 0, the polynomial that h is for s <= 0 would be zero, and then
  ``h(x0 + t w) = delta |w|^(2c) t^c != 0``. So one of the c + 2 points differs.
* **Only the affine part differs** (ReLU): h = A x + e, so x = 0 differs when e != 0, else a basis vector e_j
  with A's column j non-zero does.
* **Only the power terms differ** (c >= 2): P != 0 as a polynomial is tested at random integer points (a non-zero
  polynomial of degree c vanishes on at most a fraction c / N of an N^d grid, Schwartz-Zippel).

Whatever the case, the caller evaluates both networks exactly at the point it returns: the claim is the
two values, never this argument.

>>> from exactrelu.network import Network
>>> from exactrelu.equiv.canonical import canonical_form
>>> a = Network.from_rows(U=[[1]], V=[[1, 1]], b=[-1])
>>> b = Network.from_rows(U=[[1]], V=[[1, 1]], b=[-2])
>>> points = candidate_points(canonical_form(a), canonical_form(b))
>>> len(points), any(a.evaluate_exact([x]) != b.evaluate_exact([x]) for x in points)
(3, True)
"""

from __future__ import annotations

from ..validation import as_generator

from fractions import Fraction

import flint
import numpy as np

from ..exact.matrix import QMatrix
from .canonical import CanonicalForm

__all__ = ["difference", "candidate_points", "random_points"]


def difference(a: CanonicalForm, b: CanonicalForm) -> tuple[dict, dict, list, list]:
    """``a - b`` term by term: (hyperplanes {p: delta != 0}, powers {q: delta != 0}, linear rows, offset)."""

    def diff(x, y):
        table = {p: list(g) for p, g in x}
        for p, g in y:
            acc = table.setdefault(p, [Fraction(0)] * len(g))
            for r, v in enumerate(g):
                acc[r] -= v
        return {p: g for p, g in table.items() if any(g)}

    linear = [] if a.linear is None else [[x - y for x, y in zip(ra, rb)] for ra, rb in zip(a.linear, b.linear)]
    offset = [x - y for x, y in zip(a.offset, b.offset)]
    return diff(a.hyperplanes, b.hyperplanes), diff(a.powers, b.powers), linear, offset


def _values_on(normals: list[tuple[int, ...]], x_num: list[int], x_den: int) -> list[int]:
    """``p . (x, 1) * x_den`` for every normal p (integers; one FLINT product)."""
    P = flint.fmpz_mat(normals)
    col = flint.fmpz_mat(len(x_num) + 1, 1, list(x_num) + [x_den])
    return [int(v) for v in (P * col).entries()]


def _point_on(p: tuple[int, ...], others: list[tuple[int, ...]], rng: np.random.Generator,
              tries: int = 64) -> tuple[list[int], int]:
    """A point x0 = x_num / x_den with p . (x0, 1) = 0 and q . (x0, 1) != 0 for every q in ``others``."""
    w, beta = list(p[:-1]), p[-1]
    ww = sum(x * x for x in w)
    for attempt in range(tries):  # small integers first (a readable witness), wider when they meet another hyperplane
        bound = 2 ** min(4 + attempt, 40)
        r = [int(v) for v in rng.integers(-bound, bound, size=len(w))]
        s = sum(x * y for x, y in zip(w, r)) + beta  # x0 = r - (s / ww) w
        num = [ri * ww - s * wi for ri, wi in zip(r, w)]
        if not others or all(_values_on(others, num, ww)):
            return num, ww
    raise RuntimeError("no point on one hyperplane avoiding the others was found")  # measure zero: never seen


def _hyperplane_points(p, others, degree: int, rng) -> list[list[Fraction]]:
    """The c + 2 points x0 + s t w, s = -c, ..., 0, 1, of the hyperplane case (module docstring)."""
    num, den = _point_on(p, others, rng)
    w = list(p[:-1])
    t = Fraction(1)
    if others:
        at = _values_on(others, num, den)  # q . (x0, 1) * den, all non-zero
        slopes = _values_on([q[:-1] + (0,) for q in others], w, 1)  # q_v . w
        for a, e in zip(at, slopes):
            if e:
                t = min(t, Fraction(abs(a), 2 * degree * abs(e) * den))
    x0 = [Fraction(x, den) for x in num]
    return [[x + s * t * wi for x, wi in zip(x0, w)] for s in range(-degree, 2)]


def random_points(d: int, count: int, rng: np.random.Generator) -> list[list[Fraction]]:
    """``count`` random integer points of [-2^20, 2^20)^d (for the polynomial part, c >= 2)."""
    return [[Fraction(int(v)) for v in rng.integers(-2**20, 2**20, size=d)] for _ in range(count)]


def candidate_points(a: CanonicalForm, b: CanonicalForm, *, seed: int = 0, count: int = 16) -> list[list[Fraction]]:
    """Points among which, by the argument of the module docstring, the two functions differ somewhere
    (c >= 2 with only power terms differing: ``count`` random points, where they differ with high probability).

    Returns [] when the forms are equal.
    """
    rng = as_generator(seed)
    hyper, powers, linear, offset = difference(a, b)
    d = a.d
    if hyper:
        normals = sorted(hyper, key=lambda p: (sum(x * x for x in p), p))  # small numbers first
        p = normals[0]
        return _hyperplane_points(p, [q for q in hyper if q != p], a.degree, rng)
    if powers:  # h = P + constant, P a non-zero sum of powers (or zero, grouped differently: not decided)
        return [[Fraction(0)] * d] + random_points(d, count, rng)
    if any(offset):
        return [[Fraction(0)] * d]
    for j in range(d):
        if any(row[j] for row in linear):
            return [[Fraction(int(i == j)) for i in range(d)]]
    return []


def evaluate_at(net, points: list[list[Fraction]]) -> list[list[Fraction]]:
    """The network's outputs at the points, exactly (one row of m rationals per point)."""
    X = QMatrix.from_fractions([x for pt in points for x in pt], len(points), net.d)
    return net.evaluate_exact(X).to_fractions()
