"""From the kinks on a line to the canonical form of the oracle's function (docs/extraction.md, "Hyperplanes").

Between consecutive kinks t_j < t_(j+1) the line runs through one linear region; at a point x_j of it the
Jacobian J_j (m x d) is ``(f(x_j + delta e_l) - f(x_j)) / delta`` column by column, exact as long as the
d probes stay in the region. Crossing the kink t_j changes the Jacobian by a rank-one matrix
``Delta_j = J_j - J_(j-1) = +-beta_j v_j^T``: v_j (the hyperplane's normal, up to scale) is any non-zero row,
the hyperplane passes through x(t_j), and the sign is that of ``v_j . q`` (the line crosses from the negative
to the positive side when it is positive). With the hyperplanes and coefficients known, the affine part is
``A = J_0 - sum over hyperplanes active at x_0 of beta_j v_j^T`` and the offset follows from f(x_0).

The probes are checked afterwards against the hyperplanes found: a probe on the wrong side of one is
repeated with a step below its distance (exact), so the Jacobians rest only on points whose region is known.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..equiv.canonical import CanonicalForm
from ..errors import AssumptionViolated
from .line_search import Line, simplest_between
from .oracles import Oracle

__all__ = ["region_points", "jacobian", "canonical_from_line"]

_LINE = {"line_specific": True}  # another line may succeed (extract draws one)


def region_points(kinks: list[Fraction]) -> list[Fraction]:
    """A simple rational in each of the K + 1 regions the kinks cut the line into."""
    if not kinks:
        return [Fraction(0)]
    inner = [simplest_between(a, b) for a, b in zip(kinks, kinks[1:])]
    return [simplest_between(kinks[0] - 2 - abs(kinks[0]), kinks[0])] + inner + \
        [simplest_between(kinks[-1], kinks[-1] + 2 + abs(kinks[-1]))]


def jacobian(oracle: Oracle, x: list[Fraction], y: list[Fraction], delta: Fraction) -> list[list[Fraction]]:
    """``(f(x + delta e_l) - f(x)) / delta`` for l = 0..d-1, as m rows of d (d queries)."""
    cols = oracle.along_axes(x, delta)
    inv = 1 / delta
    return [[(col[r] - yr) * inv for col in cols] for r, yr in enumerate(y)]


def _primitive(row: list[Fraction]) -> tuple[int, ...]:
    """The primitive integer vector with the direction of ``row``, its first non-zero entry positive."""
    den = math.lcm(*(f.denominator for f in row))
    ints = [f.numerator * (den // f.denominator) for f in row]
    g = math.gcd(*ints)
    lead = next(x for x in ints if x)
    return tuple(x // g * (1 if lead > 0 else -1) for x in ints)


def _hyperplane(delta: list[list[Fraction]], point: list[Fraction], q) -> tuple[tuple[int, ...], list[Fraction]]:
    """(p = oriented primitive (v, b), beta) from a rank-one jump ``Delta = +-beta v^T`` at a point of the plane."""
    rows = [r for r in delta if any(r)]
    if not rows:
        raise AssumptionViolated("the Jacobian does not change across a kink of the search line (probes left "
                                 "their region)", evidence=_LINE)
    n = rows[0]
    l0 = next(i for i, x in enumerate(n) if x)
    lam = [r[l0] / n[l0] for r in delta]
    if any([lam[r] * x for x in n] != delta[r] for r in range(len(delta))):
        raise AssumptionViolated("the jump of the Jacobian across a kink has rank > 1: two hyperplanes cross the "
                                 "search line at the same point (not in general position)", evidence=_LINE)
    v = [Fraction(x) for x in _primitive(n)]
    p = _primitive(v + [-sum(a * x for a, x in zip(v, point))])  # through the point; a positive multiple of (v, b)
    vp = [Fraction(x) for x in p[:-1]]
    side = 1 if sum(a * c for a, c in zip(vp, q)) > 0 else -1  # the line enters the positive side: Delta = beta v^T
    beta = [side * delta[r][l0] / vp[l0] for r in range(len(delta))]
    return p, beta


def _affine(hyper, J0, x0, y0, d, m):
    """(A, offset) from the Jacobian and the value at x0."""
    A = [list(row) for row in J0]
    value = list(y0)
    for p, beta in hyper:
        z = sum(Fraction(a) * x for a, x in zip(p[:d], x0)) + p[d]
        if z > 0:
            for r in range(m):
                A[r] = [a - beta[r] * v for a, v in zip(A[r], p[:d])]
                value[r] -= beta[r] * z
    offset = [value[r] - sum(a * x for a, x in zip(A[r], x0)) for r in range(m)]
    return A, offset


def canonical_from_line(line: Line, kinks: list[Fraction], jacobians: list, values: list, d: int, m: int) -> CanonicalForm:
    """The canonical form from the kinks, the Jacobian of each region and f at the region points."""
    hyper: dict[tuple[int, ...], list[Fraction]] = {}
    for j, t in enumerate(kinks):
        delta = [[a - b for a, b in zip(r1, r0)] for r1, r0 in zip(jacobians[j + 1], jacobians[j])]
        p, beta = _hyperplane(delta, line.at(t), line.q)
        if p in hyper:
            raise AssumptionViolated("one hyperplane crosses the search line twice: the oracle is not a network of this "
                                     "form", evidence=_LINE)
        hyper[p] = beta
    items = sorted(hyper.items())
    x0 = line.at(region_points(kinks)[0])
    A, offset = _affine(items, jacobians[0], x0, values[0], d, m)
    return CanonicalForm(1, d, m, tuple((p, tuple(b)) for p, b in items if any(b)), tuple(tuple(r) for r in A), (),
                         tuple(offset))
