"""A polyhedral domain ``{y : a . y + a0 >= 0 for every wall (a, a0)}`` of R^n, exactly, and its chords
(docs/extraction.md, "More hidden layers"): where the layers below are all active, the rest of a deep network is a
network of their last outputs, affine in y, and its kinks are found on chords of this domain.

>>> from fractions import Fraction as F
>>> square = Domain(2).restrict([[F(-1), F(0)], [F(0), F(-1)]], [F(1), F(1)])       # 0 <= y <= 1
>>> square.inside([F(1, 2), F(1, 2)]), square.inside([F(1), F(1, 2)]), square.chord([F(1, 2), F(1, 4)], [F(1), F(1)])
(True, False, (Fraction(-1, 4), Fraction(1, 2)))
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from ..exact.lp import feasible
from .line_search import Line, random_line, simplest_between
from .regions import _primitive

__all__ = ["Domain"]


def _dot(a, y) -> Fraction:
    return sum((u * v for u, v in zip(a, y) if u and v), Fraction(0))


class Domain:
    """The points y of R^n with ``a . y + a0 >= 0`` for every wall; ``Domain(n)`` is the closed orthant y >= 0."""

    def __init__(self, n: int, walls: list | None = None):
        self.n = n
        self.walls = walls if walls is not None else [([Fraction(int(i == l)) for i in range(n)], Fraction(0))
                                                      for l in range(n)]
        self.planes = [(p, max(abs(v) for v in p[:-1])) for p in
                       (_primitive(list(a) + [a0]) for a, a0 in self.walls if any(a))]

    def restrict(self, N: list[list[Fraction]], c: list[Fraction]) -> "Domain":
        """The part where also ``N y + c >= 0`` (every row of N a wall)."""
        return Domain(self.n, self.walls + [(list(row), ci) for row, ci in zip(N, c)])

    def inside(self, y) -> bool:
        """Strictly inside: every wall positive at y."""
        return all(_dot(a, y) + a0 > 0 for a, a0 in self.walls)

    def chord(self, y, q) -> tuple[Fraction | None, Fraction | None]:
        """(lo, hi): the line y + t q is in the domain for lo <= t <= hi (None: unbounded on that side)."""
        lo = hi = None
        for a, a0 in self.walls:
            s = _dot(a, q)
            if s:
                t = -(_dot(a, y) + a0) / s
                if s > 0:
                    lo = t if lo is None else max(lo, t)
                else:
                    hi = t if hi is None else min(hi, t)
        return lo, hi

    def point(self) -> list[Fraction] | None:
        """A point strictly inside (every wall at least a margin 1, 2^-10, 2^-20 or 2^-40 times its largest entry,
        exactly, by :func:`exactrelu.exact.lp.feasible`), or None when none of these margins is feasible."""
        for margin in (Fraction(1), Fraction(1, 2**10), Fraction(1, 2**20), Fraction(1, 2**40)):
            A = [[-v for v in a] for a, _ in self.walls]
            b = [a0 - margin * max(abs(v) for v in a) for a, a0 in self.walls]
            res = feasible(A_ub=A, b_ub=b, nvars=self.n)
            if res.status == "feasible" and self.inside(res.point):
                return res.point
        return None

    def samples(self, rng: np.random.Generator, count: int, box: int = 4, steps: int = 8) -> list[list[Fraction]]:
        """``count`` random points strictly inside the domain and the box ``y_l <= box`` (a walk of ``steps`` random
        chords between two of them, each step to a random point of its chord; no query), or [] when the LP finds no
        interior point."""
        boxed = Domain(self.n, self.walls + [([Fraction(-int(i == l)) for i in range(self.n)], Fraction(box))
                                             for l in range(self.n)])
        y, out = boxed.point(), []
        while y is not None and len(out) < count:
            for _ in range(steps):
                q = random_line(self.n, rng).q
                lo, hi = boxed.chord(y, q)
                u, v = sorted(rng.random(2))
                t = simplest_between(lo + (hi - lo) * Fraction(u), lo + (hi - lo) * Fraction(max(v, u + 1e-9)))
                y = Line(y, q).at(t) if boxed.inside(Line(y, q).at(t)) else y
            out.append(y)
        return out

    def tight(self, y, ratio: Fraction = Fraction(1, 2**8)) -> set[int]:
        """The walls nearly through y: those whose value there is at most ``ratio`` times the largest."""
        values = [_dot(a, y) + a0 for a, a0 in self.walls]
        top = max(values, default=Fraction(0))
        return {i for i, v in enumerate(values) if v <= ratio * top}

    def along(self, q, walls: set[int]) -> list[Fraction] | None:
        """q projected onto the directions that keep the given walls' values (``a . q = 0`` for each), exactly; None
        when nothing is left (as many independent walls as dimensions)."""
        A = [self.walls[i][0] for i in sorted(walls) if any(self.walls[i][0])]
        if not A:
            return list(q)
        M = flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in a] for a in A])
        if M.rank() < len(A) or len(A) >= self.n:
            return None
        Q = flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator)] for v in q])
        out = Q - M.transpose() * ((M * M.transpose()).inv() * (M * Q))
        out = [Fraction(int(v.p), int(v.q)) for v in out.entries()]
        return out if any(out) else None

    def chords(self, rng: np.random.Generator, count: int, starts: list):
        """``count`` chords ``(line, lo, hi)`` of the domain. Through each start ``(y, walls)`` inside first (the
        walls it is next to: the chord keeps their values, so it stays next to that face), then through random
        points (:meth:`samples`) towards others, so that each crosses the domain's middle."""
        starts = [(y, w) for y, w in starts if self.inside(y)]
        points = self.samples(rng, 2 * count)
        for i in range(count):
            if starts:
                a, walls = starts.pop()
                q = self.along(random_line(self.n, rng).q, walls)
            elif 2 * i + 1 < len(points):
                a, b = points[2 * i], points[2 * i + 1]
                q = [v - u for u, v in zip(a, b)]
            else:
                return
            if q is None or not any(q):
                continue
            lo, hi = self.chord(a, q)
            yield Line(a, q), lo, hi
