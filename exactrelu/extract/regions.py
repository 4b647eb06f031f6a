"""From the kinks on a line to the canonical form of the oracle's function (docs/extraction.md, "Hyperplanes").

Between consecutive kinks t_j < t_(j+1) the line runs through one linear region; at a point x_j of it the
Jacobian J_j (m x d) is ``(f(x_j + delta e_l) - f(x_j)) / delta`` column by column, exact as long as the
d probes stay in the region. Crossing the kink t_j changes the Jacobian by a rank-one matrix
``Delta_j = J_j - J_(j-1) = +-beta_j v_j^T``: v_j (the hyperplane's normal, up to scale) is any non-zero row,
the hyperplane passes through x(t_j), and the sign is that of ``v_j . q`` (the line crosses from the negative
to the positive side when it is positive). With the hyperplanes and coefficients known, the affine part is
``A = J_0 - sum over hyperplanes active at x_0 of beta_j v_j^T`` and the offset follows from f(x_0).

Two checks keep a probe that left its region (a step ``delta e_l`` crossing a hyperplane nearly parallel to the
line) out of the Jacobians, and each repeats the region's probes with a smaller step:

* **along the line** (before any hyperplane is known, no query): the line search gives the slope of g(t) = f(x(t))
  in every region exactly (the pieces around the kinks), and a Jacobian must satisfy ``J_j q = g'`` there. A probe
  that crossed a hyperplane adds ``beta_i (v_i . x~) / delta`` to its column, which shows in ``J_j q`` (every q_l is
  non-zero) unless several such errors cancel exactly. Without this check one crossing probe corrupts the
  Jacobians of one region, hence the two hyperplanes next to it, and (m = 1: every jump has rank one) the
  corrupted hyperplanes are consistent with the corrupted probe, so the next check cannot see it
  (docs/extraction.md, "A probe that left its region");
* **against the hyperplanes found**: a probe on the wrong side of one is repeated with a step below its exact
  distance, so the Jacobians rest only on points whose region is known.
"""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul

import flint

from ..equiv.canonical import CanonicalForm
from ..errors import AssumptionViolated
from .line_search import Kink, Line, simplest_between
from .oracles import Oracle

__all__ = ["region_points", "jacobian", "canonical_from_line", "region_jacobians"]

_LINE = {"line_specific": True}  # another line may succeed (extract draws one)


def region_points(kinks: list[Fraction], lo: Fraction | None = None, hi: Fraction | None = None) -> list[Fraction]:
    """A simple rational in each of the K + 1 regions the kinks cut the line into (inside ``(lo, hi)`` if given)."""
    first = kinks[0] if kinks else (hi if hi is not None else (lo + 4 if lo is not None else Fraction(1)))
    last = kinks[-1] if kinks else first
    left = first - 2 - abs(first) if lo is None else lo
    if not kinks:
        return [simplest_between(left, first) if lo is not None or hi is not None else Fraction(0)]
    inner = [simplest_between(a, b) for a, b in zip(kinks, kinks[1:])]
    right = last + 2 + abs(last) if hi is None else hi
    return [simplest_between(left, first)] + inner + [simplest_between(last, right)]


def jacobian(oracle: Oracle, x: list[Fraction], y: list[Fraction], delta: Fraction) -> tuple[list[list[int]], int]:
    """``(f(x + delta e_l) - f(x)) / delta`` for l = 0..d-1 (d queries), as (m rows of d integers, denominator)."""
    cols = oracle.along_axes(x, delta)
    den = math.lcm(*(v.denominator for col in cols for v in col), *(v.denominator for v in y))
    # dividing by delta = p / q multiplies the numerators by q and the denominator by p
    rows = [[(col[r].numerator * (den // col[r].denominator) - base) * delta.denominator for col in cols]
            for r, base in enumerate(yr.numerator * (den // yr.denominator) for yr in y)]
    return rows, den * delta.numerator


def _primitive(row) -> tuple[int, ...]:
    """The primitive integer vector with the direction of ``row`` (Fractions or ints), its first non-zero entry
    positive."""
    den = math.lcm(*(Fraction(f).denominator for f in row))
    ints = [Fraction(f).numerator * (den // Fraction(f).denominator) for f in row]
    g = math.gcd(*ints)
    lead = next(x for x in ints if x)
    return tuple(x // g * (1 if lead > 0 else -1) for x in ints)


def _hyperplane(delta: list[list[int]], den: int, point: list[Fraction], q) -> tuple[tuple[int, ...], list[Fraction]]:
    """(p = oriented primitive (v, b), beta) from a rank-one jump ``Delta = delta / den = +-beta v^T`` at a point
    of the hyperplane (integers: the rank-one test is a cross-multiplication)."""
    rows = [r for r in delta if any(r)]
    if not rows:
        raise AssumptionViolated("the Jacobian does not change across a kink of the search line (probes left "
                                 "their region)", evidence=_LINE)
    n = rows[0]
    l0 = next(i for i, x in enumerate(n) if x)
    for r in delta:  # r = (r[l0] / n[l0]) n exactly
        a, b = r[l0], n[l0]
        if any(x * b != a * y for x, y in zip(r, n)):
            raise AssumptionViolated("the jump of the Jacobian across a kink has rank > 1: two hyperplanes cross the "
                                     "search line at the same point (not in general position)", evidence=_LINE)
    v = _primitive(n)
    p = _primitive([Fraction(x) for x in v] + [-sum(a * x for a, x in zip(v, point))])  # through the point
    side = 1 if sum(a * c for a, c in zip(p[:-1], q)) > 0 else -1  # entering the positive side: Delta = beta v^T
    beta = [Fraction(side * r[l0], den * p[l0]) for r in delta]
    return p, beta


def _affine(hyper, J0, x0, y0, d, m):
    """(A, offset) from the Jacobian J0 = (rows, den) and the value at x0 (integer products: A = J0 - B P over one
    denominator, B the coefficients and P the normals of the hyperplanes active at x0)."""
    N0, D0 = J0
    active = [(p, beta) for p, beta in hyper if sum(Fraction(a) * x for a, x in zip(p[:d], x0)) + p[d] > 0]
    L = math.lcm(D0, *(b.denominator for _, beta in active for b in beta))
    A = flint.fmpz_mat(N0) * (L // D0)
    if active:
        B = flint.fmpz_mat([[beta[r].numerator * (L // beta[r].denominator) for _, beta in active] for r in range(m)])
        A -= B * flint.fmpz_mat([list(p[:d]) for p, _ in active])
    A = [[Fraction(int(x), L) for x in row] for row in A.tolist()]
    value = list(y0)
    for p, beta in active:
        z = sum(Fraction(a) * x for a, x in zip(p[:d], x0)) + p[d]
        value = [v - b * z for v, b in zip(value, beta)]
    offset = [value[r] - sum(a * x for a, x in zip(A[r], x0)) for r in range(m)]
    return A, offset


def canonical_from_line(line: Line, kinks: list[Fraction], jacobians: list, values: list, d: int, m: int,
                        first: Fraction | None = None) -> CanonicalForm:
    """The canonical form from the kinks, the Jacobian (rows, den) of each region and f at the region points
    (``first``: the first region's point, if not the default of :func:`region_points`)."""
    hyper: dict[tuple[int, ...], list[Fraction]] = {}
    for j, t in enumerate(kinks):
        (N1, D1), (N0, D0) = jacobians[j + 1], jacobians[j]
        delta = [[a * D0 - b * D1 for a, b in zip(r1, r0)] for r1, r0 in zip(N1, N0)]
        p, beta = _hyperplane(delta, D0 * D1, line.at(t), line.q)
        if p in hyper:
            raise AssumptionViolated("one hyperplane crosses the search line twice: the oracle is not a network of this "
                                     "form", evidence=_LINE)
        hyper[p] = beta
    items = sorted(hyper.items())
    x0 = line.at(region_points(kinks)[0] if first is None else first)
    A, offset = _affine(items, jacobians[0], x0, values[0], d, m)
    return CanonicalForm(1, d, m, tuple((p, tuple(b)) for p, b in items if any(b)), tuple(tuple(r) for r in A), (),
                         tuple(offset))


def _power_of_two_at_most(x: Fraction) -> Fraction:
    t = Fraction(2) ** (x.numerator.bit_length() - x.denominator.bit_length())
    while t > x:
        t /= 2
    while t * 2 <= x:
        t *= 2
    return t


def _delta(gap: Fraction) -> Fraction:
    """A power of two at most gap / 2^10 (small numbers in the probes)."""
    return _power_of_two_at_most(gap / 1024)


def _safe_step(hyperplanes, x: list[Fraction], delta: Fraction) -> Fraction | None:
    """None when every probe x + delta e_l is on the same side of every hyperplane (p, max |p_l|) as x, else a
    smaller step that is (exact, in integers: x = xn / X)."""
    X = math.lcm(*(v.denominator for v in x))
    xn = [v.numerator * (X // v.denominator) for v in x] + [X]
    bound = None
    for p, big in hyperplanes:
        zX = abs(sum(map(mul, p, xn)))  # |p . (x, 1)| * X
        if delta * big * X >= zX:
            limit = Fraction(zX, 2 * big * X)
            bound = limit if bound is None else min(bound, limit)
    return None if bound is None else _delta(bound * 1024)


def _along_line(J: tuple[list[list[int]], int], slope, q: tuple[list[int], int]) -> bool:
    """``J q == slope`` exactly (J = rows / den, q = qn / qd, slope m Fractions): the Jacobian agrees with the
    line's own slope in its region."""
    (rows, den), (qn, qd) = J, q
    return all(sum(map(mul, row, qn)) * s.denominator == s.numerator * den * qd for row, s in zip(rows, slope))


def region_jacobians(oracle: Oracle, line: Line, found: list[Kink], progress=None, *, lo: Fraction | None = None,
                     hi: Fraction | None = None, jacobians: list | None = None, walls=(),
                     regions: list | None = None) -> CanonicalForm:
    """The canonical form from the Jacobians of the K + 1 regions the kinks ``found`` cut ``line`` into, each checked
    along the line and against the hyperplanes found (module docstring); probes repeated with a step 2^16 times
    smaller (along the line) or below the exact distance (hyperplanes), up to four rounds. ``lo`` / ``hi``: the
    region points stay inside that part of the line (the probes x + delta e_l, delta > 0, may leave it).
    ``jacobians``: a list that receives the K + 1 Jacobians checked, (rows, den) each, in order along the line.
    ``walls``: hyperplanes ``(p, max |p_l|)`` no probe may cross (the faces of a domain), as the hyperplanes found.
    ``regions``: a list that receives ``(point, answer, Jacobian)`` for each region, in order along the line."""
    ks = [kink.t for kink in found]
    slopes = [kink.left.beta for kink in found] + [found[-1].right.beta] if found else []
    qd = math.lcm(*(v.denominator for v in line.q))
    q = ([v.numerator * (qd // v.denominator) for v in line.q], qd)
    ts = region_points(ks, lo, hi)
    xs = [line.at(t) for t in ts]
    ys = oracle.along_line(list(line.p), list(line.q), ts)
    if not found and lo is not None and hi is not None:  # a chord without kinks: its slope from a second answer
        t2 = simplest_between(ts[0], hi)
        y2 = oracle.along_line(list(line.p), list(line.q), [t2])[0]
        slopes = [[(b - a) / (t2 - ts[0]) for a, b in zip(ys[0], y2)]]
    edges = [ts[0] - 1 if lo is None else lo] + ks + [ts[-1] + 1 if hi is None else hi]
    steps = [_delta(min(t - edges[j], edges[j + 1] - t)) for j, t in enumerate(ts)]
    for j, x in enumerate(xs):
        while walls and (smaller := _safe_step(walls, x, steps[j])) is not None:
            steps[j] = smaller
    J = []
    for j, (x, y, h) in enumerate(zip(xs, ys, steps)):
        J.append(jacobian(oracle, x, y, h))
        if progress and j % 16 == 0:
            progress(f"extract: Jacobian of region {j + 1} of {len(ts)}, {oracle.queries} queries")
    for _ in range(4):
        redo = [(j, steps[j] / 2**16) for j in range(len(ts)) if slopes and not _along_line(J[j], slopes[j], q)]
        if not redo:
            form = canonical_from_line(line, ks, J, ys, oracle.d, oracle.m, ts[0])
            planes = [(p, max(abs(a) for a in p[:-1])) for p, _ in form.hyperplanes] + list(walls)
            redo = [(j, s) for j in range(len(ts)) if (s := _safe_step(planes, xs[j], steps[j])) is not None]
            if not redo:
                if jacobians is not None:
                    jacobians.extend(J)
                if regions is not None:
                    regions.extend(zip(xs, ys, J))
                return form
        for j, s in redo:
            steps[j] = s
            J[j] = jacobian(oracle, xs[j], ys[j], s)
    raise AssumptionViolated("probes keep leaving their linear region: the oracle is not a ReLU network of this form",
                             evidence={"line_specific": True})
