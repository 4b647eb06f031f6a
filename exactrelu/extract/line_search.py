"""Every kink of a ReLU network on a rational line, found exactly (docs/extraction.md, "Kinks on a line").

On x(t) = p + t q the network is ``g(t) = sum_i u_i relu(a_i + t s_i) + c``: piecewise affine in t, with a
kink at ``t_i = -a_i / s_i`` for each visible unit. Two queries in one affine piece give the piece
``alpha + beta t`` exactly; two pieces that meet at one kink meet where they intersect, so a kink is found
by intersecting the pieces around it: six dyadic queries (three just left of it, three just right of it, each
side collinear) give the pieces, six more in a window 2^-40 times narrower around their meeting point must
show the same two pieces (so the first window held one kink, not several). The kink itself is never queried:
every query is a dyadic point (small numbers in the transcript). An interval whose two end pieces are equal is checked at its midpoint (a sum of units vanishing outside
a slab, such as ``relu(z) - 2 relu(z - 1) + relu(z - 2)``, is invisible to the end pieces alone).

Far out the function is affine: the search covers ``[-T, T]``, T = 2^20 by default, doubled until the pieces
at T and 2T agree with a third point at 4T (kinks beyond are not seen: docs/extraction.md).

>>> from fractions import Fraction
>>> from exactrelu.extract.oracles import CallableOracle
>>> oracle = CallableOracle(lambda x: [2 * max(x[0] - 1, 0) - max(-x[0] - 3, 0)], d=1)
>>> line = Line([Fraction(0)], [Fraction(1)])
>>> [str(kink.t) for kink in kinks(oracle, line)]
['-3', '1']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..errors import AssumptionViolated
from .oracles import Oracle

__all__ = ["Line", "Piece", "Kink", "kinks", "random_line", "simplest_between"]


@dataclass(frozen=True)
class Line:
    """x(t) = p + t q (kept also as integers over one denominator, for fast points)."""

    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]

    def __init__(self, p, q):
        object.__setattr__(self, "p", tuple(Fraction(x) for x in p))
        object.__setattr__(self, "q", tuple(Fraction(x) for x in q))
        den = math.lcm(*(x.denominator for x in self.p + self.q))
        object.__setattr__(self, "_ints", ([int(x * den) for x in self.p], [int(x * den) for x in self.q], den))

    def at(self, t: Fraction) -> list[Fraction]:
        P, Q, den = self._ints
        tn, td = t.numerator, t.denominator
        return [Fraction(a * td + tn * b, den * td) for a, b in zip(P, Q)]


def random_line(d: int, rng) -> Line:
    """A random line: p on a coarse dyadic grid (|p_i| <= 4), q with 2^17 values per entry, none zero (a line
    parallel to a hyperplane misses its kink: with integer weights a coarse q would often be)."""
    p = [Fraction(int(v), 64) for v in rng.integers(-256, 257, size=d)]
    q = [Fraction(int(v) or 1, 2**14) for v in rng.integers(-2**16, 2**16 + 1, size=d)]
    return Line(p, q)


@dataclass(frozen=True)
class Piece:
    """g(t) = alpha + beta t (m outputs each)."""

    alpha: tuple[Fraction, ...]
    beta: tuple[Fraction, ...]

    @classmethod
    def through(cls, t1: Fraction, y1, t2: Fraction, y2) -> "Piece":
        beta = tuple((b - a) / (t2 - t1) for a, b in zip(y1, y2))
        return cls(tuple(a - s * t1 for a, s in zip(y1, beta)), beta)

    def __call__(self, t: Fraction) -> list[Fraction]:
        return [a + b * t for a, b in zip(self.alpha, self.beta)]

    def meet(self, other: "Piece") -> Fraction | None:
        """The one t where both pieces agree in every output, or None (parallel, or no common t)."""
        t = None
        for a1, b1, a2, b2 in zip(self.alpha, self.beta, other.alpha, other.beta):
            if b1 == b2:
                if a1 != a2:
                    return None
                continue
            s = (a2 - a1) / (b1 - b2)
            if t is not None and s != t:
                return None
            t = s
        return t


def simplest_between(a: Fraction, b: Fraction) -> Fraction:
    """The dyadic rational with the smallest denominator strictly between a < b (small numbers in queries).

    >>> simplest_between(Fraction(1, 3), Fraction(1, 2)), simplest_between(Fraction(-5), Fraction(7))
    (Fraction(3, 8), Fraction(0, 1))
    """
    if a < 0 < b:
        return Fraction(0)
    scale = Fraction(1)
    while True:
        n = (a * scale).__floor__() + 1  # the least integer above a * scale
        if n < b * scale:
            return Fraction(n) / scale
        scale *= 2


def _split(a: Fraction, b: Fraction) -> Fraction:
    """A simple dyadic inside (a, b), halfway on the scale sign(t) log2(1 + |t|): kinks of a network lie near
    |t| ~ 1 far more often than near 2^20, so splitting in that scale takes O(log log T) steps to get there
    (the float only chooses the point)."""
    def slog(t):
        return math.copysign(math.log2(1 + abs(float(t))), float(t))

    mid = (slog(a) + slog(b)) / 2
    guess = Fraction(math.copysign(2 ** abs(mid) - 1, mid))
    w = (b - a) / 8
    guess = min(max(guess, a + w), b - w)
    return simplest_between(max(a + w / 2, guess - w / 2), min(b - w / 2, guess + w / 2))


def _g(oracle: Oracle, line: Line, ts: list[Fraction]) -> list[list[Fraction]]:
    return oracle.along_line(list(line.p), list(line.q), ts)


def _outer(oracle: Oracle, line: Line, sign: int, T: Fraction, T_max: Fraction) -> tuple[Fraction, Piece]:
    """(t, piece) with the piece valid at sign * t and beyond: three collinear queries at sign * (T, 2T, 4T)."""
    while T <= T_max:
        ts = [sign * T, sign * 2 * T, sign * 4 * T]
        ys = _g(oracle, line, ts)
        piece = Piece.through(ts[0], ys[0], ts[1], ys[1])
        if piece(ts[2]) == ys[2]:
            return ts[0], piece
        T *= 4
    raise AssumptionViolated(f"the oracle is not affine far out along a line (no affine piece up to |t| = {T_max}): "
                             "not a ReLU network of this form, or its kinks are beyond the search range",
                             evidence={"queries": oracle.queries})


@dataclass(frozen=True)
class Kink:
    """A kink at t (exact), three queried points around it with their answers (not collinear), and the affine
    pieces of the line just left and right of it (each through three collinear queried answers)."""

    t: Fraction
    window: tuple[Fraction, Fraction, Fraction]
    answers: tuple[list[Fraction], list[Fraction], list[Fraction]]
    left: Piece
    right: Piece


def _grid(h: Fraction) -> Fraction:
    """The largest power of two at most h / 4."""
    g = Fraction(2) ** (h.numerator.bit_length() - h.denominator.bit_length() - 3)
    while 4 * g > h:
        g /= 2
    return g


def _sides(oracle: Oracle, line: Line, s: Fraction, h: Fraction):
    """(L, R, points, answers): three dyadic queries just left of s and three just right (within h), and the pieces
    through each side, or None for a side that is not collinear."""
    g = _grid(h)
    lo, hi = (s / g).__floor__() * g, (s / g).__ceil__() * g
    lo, hi = (lo - g if lo == s else lo), (hi + g if hi == s else hi)
    ts = [lo - 2 * g, lo - g, lo, hi, hi + g, hi + 2 * g]
    y = _g(oracle, line, ts)
    L, R = Piece.through(ts[0], y[0], ts[2], y[2]), Piece.through(ts[3], y[3], ts[5], y[5])
    return (L if L(ts[1]) == y[1] else None), (R if R(ts[4]) == y[4] else None), ts, y


def _probe(oracle: Oracle, line: Line, s: Fraction, h: Fraction, tries: int = 4):
    """(L, R, kink or None, left end, right end) around s (see :func:`_sides`). When the two pieces differ they meet
    at t inside the window; a second, 2^-40 times narrower window around t must show the same two pieces (two
    kinks in the first window would show the piece between them there). The window shrinks by 2^-16 when a side
    is not collinear or the kink is not confirmed."""
    for _ in range(tries):
        L, R, ts, y = _sides(oracle, line, s, h)
        if L is not None and R is not None:
            if L == R:
                return L, R, None, ts[0], ts[5]
            t = L.meet(R)
            if t is not None and ts[2] < t < ts[3]:
                L2, R2, _, _ = _sides(oracle, line, t, min(t - ts[2], ts[3] - t) / 2**40)
                if L2 == L and R2 == R:
                    return L, R, Kink(t, (ts[0], ts[2], ts[5]), (y[0], y[2], y[5]), L, R), ts[0], ts[5]
        h /= 2**16
    raise AssumptionViolated("kinks accumulate at one point of the search line (no single kink between two affine "
                             "pieces)", evidence={"point": str(s), "queries": oracle.queries, "line_specific": True})


def kinks(oracle: Oracle, line: Line, *, T: Fraction = Fraction(2**20), T_max: Fraction = Fraction(2**60),
          resolution: Fraction = Fraction(1, 2**200), lo: Fraction | None = None,
          hi: Fraction | None = None) -> list[Kink]:
    """The kinks of the oracle's restriction to ``line``, sorted by t (module docstring). Every query is a
    dyadic point of the line. ``lo`` / ``hi`` bound the search to one side (a ray or a segment of the line, the
    oracle asked only inside): the piece at that end is the one through three queries just inside it (a kink
    closer to the end than 2^-40 of the segment is not seen).

    Raises AssumptionViolated when no affine piece is found far out, or two kinks are closer than
    ``resolution`` times the search range (not a ReLU network of this form, or not in general position).
    """
    a, Pa = _outer(oracle, line, -1, T, T_max) if lo is None else _inner(oracle, line, lo, hi, 1)
    b, Pb = _outer(oracle, line, 1, T, T_max) if hi is None else _inner(oracle, line, hi, lo, -1)
    if not a < b:
        raise AssumptionViolated("the search segment is empty", evidence={"line_specific": True})
    return _search(oracle, line, a, Pa, b, Pb, resolution)


def _inner(oracle: Oracle, line: Line, end: Fraction, other: Fraction | None, sign: int) -> tuple[Fraction, Piece]:
    """(t, piece) with the piece valid from t towards the inside: three collinear dyadic queries next to ``end``."""
    width = Fraction(2**20) if other is None else abs(other - end)
    g = _grid(width / 2**40)
    for _ in range(4):
        start = ((end / g).__floor__() if sign < 0 else (end / g).__ceil__()) * g + sign * g
        ts = [start, start + sign * g, start + sign * 2 * g]
        ys = _g(oracle, line, ts)
        piece = Piece.through(ts[0], ys[0], ts[1], ys[1])
        if piece(ts[2]) == ys[2]:
            return ts[2], piece
        g /= 2**16
    raise AssumptionViolated("kinks accumulate at the end of a search segment", evidence={"line_specific": True})


def _search(oracle: Oracle, line: Line, a: Fraction, Pa: Piece, b: Fraction, Pb: Piece,
            resolution: Fraction) -> list[Kink]:
    """The kinks between a and b, where the pieces Pa (at a and just before) and Pb (at b) are known."""
    found: list[Kink] = []
    stack = [(a, Pa, b, Pb)]
    width = b - a
    while stack:
        a, Pa, b, Pb = stack.pop()
        if b - a < resolution * width:
            if Pa.beta == Pb.beta and Pa.alpha != Pb.alpha:
                raise AssumptionViolated("the oracle's answers jump on the search line: two parallel affine pieces "
                                         "at different heights within 2^-200 of the search range (near t = "
                                         f"{float(a):.6g}): not a continuous function, so not a ReLU network",
                                         evidence={"interval": [str(a), str(b)]})
            raise AssumptionViolated("two kinks on the search line are too close to separate (the line is not in "
                                     "general position for this oracle)", evidence={"interval": [str(a), str(b)], "line_specific": True})
        if Pa == Pb:
            m = _split(a, b)
            if _g(oracle, line, [m])[0] == Pa(m):
                continue  # one affine piece (or a slab no query meets: docs/extraction.md)
            s = m
        else:
            t = Pa.meet(Pb)
            s = t if t is not None and a < t < b else _split(a, b)
        L, R, kink, left, right = _probe(oracle, line, s, min(s - a, b - s) / 2**20)
        if kink is not None:
            found.append(kink)
        stack.append((a, Pa, left, L))
        stack.append((right, R, b, Pb))
    return sorted(found, key=lambda kink: kink.t)
