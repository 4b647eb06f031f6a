"""The second layer over the cells of a first layer wider than its input (docs/extraction.md, "A first layer wider
than its input", steps 2-4): second-layer kinks grouped into neurons, each neuron's weights from its sightings, and
the affine part (with the scales of weights the kinks leave free) from the Jacobians of every region met. All exact.

>>> _sign(Fraction(0), Fraction(-1)), _cell([(1, 0), (1, -2)], [Fraction(2)], [Fraction(1)])
(-1, frozenset({0, 1}))
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import flint

from ..errors import AssumptionViolated

def _dot(p, x) -> Fraction:
    """p . (x, 1) (p: d + 1 integers)."""
    return sum((a * v for a, v in zip(p, x) if a), Fraction(p[-1]))


def _sign(value, slope) -> int:
    """The sign just past a point where a function has ``value`` and moves at ``slope`` (0: undecided)."""
    if value:
        return 1 if value > 0 else -1
    return (slope > 0) - (slope < 0)


def _cell(planes, x, direction) -> frozenset | None:
    """The first-layer neurons on just past x along ``direction`` (None: a neuron neither on nor off there)."""
    on = []
    for i, p in enumerate(planes):
        s = _sign(_dot(p, x), sum(a * v for a, v in zip(p, direction) if a))
        if s == 0:
            return None
        if s > 0:
            on.append(i)
    return frozenset(on)


def _jump(left, right):
    """Delta = right - left (two Jacobians (rows, den)) as Fractions, m x d."""
    (R, dr), (L, dl) = right, left
    return [[Fraction(a, dr) - Fraction(b, dl) for a, b in zip(ra, rb)] for ra, rb in zip(R, L)]


def _integer_row(row) -> list[int]:
    den = math.lcm(*(Fraction(v).denominator for v in row))
    return [int(Fraction(v) * den) for v in row]


def _unit(planes, d: int, w, sightings):
    """(theta over (h, x, 1), c) of one second-layer neuron from its sightings (module docstring, step 3), or a
    string saying why not."""
    unique = {}
    for cell, v, s in sightings:
        lead = next(a for a in v if a)
        unique.setdefault((cell, v if lead > 0 else tuple(-a for a in v)), (cell, v, s))
    items = list(unique.values())
    k1, n = len(planes), len(items)
    rows = []
    for j, (cell, v, _) in enumerate(items):
        for l in range(d + 1):
            row = [planes[i][l] if i in cell else 0 for i in range(k1)] + [int(l == t) for t in range(d + 1)]
            row += [0] * n
            row[k1 + d + 1 + j] = -v[l]
            rows.append(_integer_row(row))
    X, nullity = flint.fmpz_mat(rows).nullspace()
    if nullity == 0:
        return "no weights give all its sightings"
    basis = [[Fraction(int(X[r, col])) for r in range(X.nrows())] for col in range(nullity)]
    first = next((b for b in basis if b[k1 + d + 1]), None)
    if first is None:
        return "its sightings disagree on its scale"
    theta = [v / first[k1 + d + 1] for v in first]
    free = [[a - b[k1 + d + 1] * t for a, t in zip(b, theta)] for b in basis if b is not first]
    mu = theta[k1 + d + 1:]
    if any(abs(v) != 1 for v in mu) or any(any(b[k1 + d + 1:]) for b in free):
        return "its sightings disagree on its scale"
    free = [[v / max(abs(a) for a in b) for v in b] for b in _independent([b[:k1 + d + 1] for b in free])]
    return theta[:k1 + d + 1], [items[0][2] * v for v in w], free


def _independent(vectors):
    """A basis of the span of ``vectors`` (Fractions), from among them."""
    out: list = []
    for v in vectors:
        if flint.fmpq_mat([[flint.fmpq(a.numerator, a.denominator) for a in u] for u in out + [v]]).rank() > len(out):
            out.append(v)
    return out


def _grad(theta, planes, cell, d: int) -> list[Fraction]:
    k1 = len(planes)
    return [sum((theta[i] * planes[i][l] for i in cell if theta[i]), Fraction(0)) + theta[k1 + l] for l in range(d)]


def _value(theta, planes, x) -> Fraction:
    k1 = len(planes)
    h = sum((theta[i] * max(_dot(p, x), 0) for i, p in enumerate(planes) if theta[i]), Fraction(0))
    return h + sum((t * v for t, v in zip(theta[k1:], x)), Fraction(0)) + theta[-1]


def _lex(theta, planes, x, cell, direction, d: int) -> int:
    """The sign of the affine function ``theta`` of H just past x along ``direction`` (in ``cell``)."""
    g = _grad(theta, planes, cell, d)
    return _sign(_value(theta, planes, x), sum(a * b for a, b in zip(g, direction)))


def _acts(phi, planes, x, cell, d: int) -> bool:
    """Whether the affine function ``phi`` of H is not 0 on ``cell`` (its value at x, or its gradient there)."""
    return bool(_value(phi, planes, x)) or any(_grad(phi, planes, cell, d))


def _equations(planes, units, free, seen, d: int, m: int) -> dict:
    """The rows of the system for A and the free scales t (module docstring, step 4): (output r, coefficients over
    (h, x), coefficients over t) -> right-hand side, one per region side of every kink, output and coordinate; a row
    met twice must have the same right-hand side. ``units``: (theta, c) known; ``free``: (theta, c, phis), taken
    active with ``theta + sum t_k phi_k`` on every cell where one of its phis is not 0."""
    k1, eqs, T = len(planes), {}, sum(len(phis) for _, _, phis in free)
    for x, left, right, q in seen:
        for J, sgn in ((left, -1), (right, 1)):
            direction = [sgn * v for v in q]
            cell = _cell(planes, x, direction)
            if cell is None:
                continue
            res = [[Fraction(a, J[1]) for a in row] for row in J[0]]
            tco, col = [[Fraction(0)] * T for _ in range(m * d)], 0
            for theta, c, phis in [(th, c, ()) for th, c in units] + free:
                if any(_acts(phi, planes, x, cell, d) for phi in phis):
                    g = _grad(theta, planes, cell, d)
                    for k, phi in enumerate(phis):
                        gphi = _grad(phi, planes, cell, d)
                        for r in range(m):
                            for l in range(d):
                                tco[r * d + l][col + k] = c[r] * gphi[l]
                else:
                    s = _lex(theta, planes, x, cell, direction, d)
                    if s == 0:
                        break
                    g = _grad(theta, planes, cell, d) if s > 0 else None
                col += len(phis)
                if g is not None:
                    res = [[v - cr * gl for v, gl in zip(row, g)] for row, cr in zip(res, c)]
            else:
                for r in range(m):
                    for l in range(d):
                        key = (r, tuple(planes[i][l] if i in cell else 0 for i in range(k1))
                               + tuple(int(t == l) for t in range(d)), tuple(tco[r * d + l]))
                        if eqs.setdefault(key, res[r][l]) != res[r][l]:
                            raise AssumptionViolated("two regions of one cell of the first layer disagree on the "
                                                     "affine part: a second-layer neuron was missed or misread",
                                                     evidence=_AGAIN)
    return eqs


_AGAIN = {"again": True}  # more lines may help


def _fq(v) -> flint.fmpq:
    v = Fraction(v)
    return flint.fmpq(v.numerator, v.denominator)


def _solve(eqs: dict, n: int, m: int, T: int):
    """(A as n x m, t, whether each t is determined) with every row of ``eqs`` exact (free unknowns 0), or the
    refusal."""
    size = m * n + T
    rows = []
    for (r, key, tco), rhs in eqs.items():
        row = [flint.fmpq(0)] * (size + 1)
        for i, a in enumerate(key):
            row[r * n + i] = flint.fmpq(int(a))
        for i, a in enumerate(tco):
            row[m * n + i] = _fq(a)
        row[size] = _fq(rhs)
        rows.append(row)
    R, rank = flint.fmpq_mat(rows).rref()
    X, pivots = [Fraction(0)] * size, {}
    for r in range(rank):
        pivot = next(col for col in range(size + 1) if R[r, col] != 0)
        if pivot == size:
            raise AssumptionViolated("no affine part gives the Jacobians of every region met: a second-layer neuron "
                                     "was missed, or the oracle is not a network of this form", evidence=_AGAIN)
        X[pivot] = Fraction(int(R[r, size].p), int(R[r, size].q))
        pivots[pivot] = r
    free = [col for col in range(size) if col not in pivots]
    fixed = [col in pivots and all(R[pivots[col], f] == 0 for f in free) for col in range(m * n, size)]
    return [[X[r * n + i] for r in range(m)] for i in range(n)], X[m * n:], fixed


def _sides(planes, seen, d: int):
    """Every region side met: (x, cell, direction)."""
    for x, _, _, q in seen:
        for sgn in (-1, 1):
            direction = [sgn * v for v in q]
            cell = _cell(planes, x, direction)
            if cell is not None:
                yield x, cell, direction


def _moved(theta, phis, ts) -> list[Fraction]:
    """theta + sum t_k phi_k."""
    out = list(theta)
    for phi, t in zip(phis, ts):
        out = [a + t * b for a, b in zip(out, phi)]
    return out


def _pushed(theta, phis, planes, sides, d: int, target: int):
    """theta + sum t_k phi_k off (``target`` -1) or on (+1) at every region side met where one of the phis acts, each
    t_k = +-2^e with the sign that lowers (raises) the unit where phi_k acts (phi_k of one sign there), or None."""
    acting = [(x, cell, di) for x, cell, di in sides if any(_acts(phi, planes, x, cell, d) for phi in phis)]
    signs = []
    for phi in phis:
        seen = {_lex(phi, planes, x, cell, di, d) for x, cell, di in acting} - {0}
        if len(seen) != 1:
            return None
        signs.append(target * seen.pop())
    for e in range(0, 129, 16):
        moved = _moved(theta, phis, [s * Fraction(2) ** e for s in signs])
        if all(_lex(moved, planes, x, cell, di, d) == target for x, cell, di in acting):
            return moved
    return None


def _choices(n: int, most: int = 64) -> list[tuple[int, ...]]:
    """The first ``most`` choices for n neurons with free weights, one option each (0: their scales unknowns of the
    system; 1: pushed off; 2: pushed on), fewest neurons pushed first: the work stays bounded however many neurons
    have free weights.

    >>> _choices(2)
    [(0, 0), (1, 0), (2, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2)]
    >>> len(_choices(40)), sum(1 for choice in _choices(40) if any(choice))
    (64, 63)
    """
    out: list = []
    for size in range(n + 1):
        for combo in itertools.combinations(range(n), size):
            for options in itertools.product((1, 2), repeat=size):
                choice = [0] * n
                for k, o in zip(combo, options):
                    choice[k] = o
                out.append(tuple(choice))
                if len(out) >= most:
                    return out
    return out


def _choose(planes, units, free, seen, d: int, m: int):
    """(A, units with their scales fixed): each neuron with free directions taken active on every cell where one
    moves it (their scales t more unknowns of the system, each determined by it: a pivot that no free unknown moves;
    the neuron then on at every region side met there), or off there (the scales pushed down until it is off at
    every region side met there), or on there (pushed up until it is on at every region side met there: its scales
    and A's then trade off, as ``relu(-g) = relu(g) - g`` does); the first choice that holds. Else refused. The fresh
    queries decide."""
    sides = list(_sides(planes, seen, d))
    last = None
    for choice in _choices(len(free)):
        on, fixed = [], list(units)
        for f, option in zip(free, choice):
            if option:
                moved = _pushed(f[0], f[2], planes, sides, d, -1 if option == 1 else 1)
                if moved is None:
                    break
                fixed.append((moved, f[1]))
            else:
                on.append(f)
        else:
            try:
                A, ts, known = _solve(_equations(planes, fixed, on, seen, d, m), len(planes) + d, m,
                                      sum(len(phis) for _, _, phis in on))
            except AssumptionViolated as exc:
                last = exc
                continue
            out, col, good = list(fixed), 0, True
            for theta, c, phis in on:
                t, col = ts[col:col + len(phis)], col + len(phis)
                moved = _moved(theta, phis, t)
                good = good and all(known[col - len(phis):col]) and all(
                    _lex(moved, planes, x, cell, di, d) == 1 for x, cell, di in sides
                    if any(_acts(phi, planes, x, cell, d) for phi in phis))
                out.append((moved, c))
            if good:
                return A, out
    raise last or AssumptionViolated("a weight of a second-layer neuron is not determined: its kinks leave it free "
                                     "and no region met where it acts shows it", evidence=_AGAIN)


def _affine_along(W, b, alpha, beta):
    """``W (alpha + t beta) + b`` as (alpha', beta') (W, b: Fractions)."""
    return ([sum((w * a for w, a in zip(row, alpha) if w and a), Fraction(0)) + bi for row, bi in zip(W, b)],
            [sum((w * s for w, s in zip(row, beta) if w and s), Fraction(0)) for row in W])


def breakpoints(layers, p, q, lo: Fraction, hi: Fraction) -> list[Fraction]:
    """Every t in (lo, hi) where a ReLU of the network ``layers`` (``[(W, b), ...]`` in Fractions, the last
    affine) may kink on the line p + t q, sorted: layer by layer, each layer affine in t between the breakpoints of
    the layers below.

    >>> F = Fraction
    >>> breakpoints([([[F(1)]], [F(-1)]), ([[F(1)]], [F(-2)]), ([[F(1)]], [F(0)])], [F(0)], [F(1)], F(-10), F(10))
    [Fraction(1, 1), Fraction(3, 1)]
    """
    cuts: set = set()
    pieces = [(lo, hi, list(p), list(q))]  # on (a, b) the layer's input is alpha + t beta
    for W, b in layers[:-1]:
        nxt = []
        for a, z, alpha, beta in pieces:
            al, be = _affine_along(W, b, alpha, beta)
            ts = sorted({-x / y for x, y in zip(al, be) if y and a < -x / y < z})
            cuts.update(ts)
            for s, e in zip([a] + ts, ts + [z]):
                mid = (s + e) / 2
                on = [x + mid * y > 0 for x, y in zip(al, be)]
                nxt.append((s, e, [x if o else Fraction(0) for x, o in zip(al, on)],
                            [y if o else Fraction(0) for y, o in zip(be, on)]))
        pieces = nxt
    return sorted(cuts)
