"""Second-layer kinks grouped into neurons over the cells of a first layer wider than its input (docs/extraction.md,
"A first layer wider than its input", step 2).

A kink at x on no first-layer hyperplane, in the cell S (the i with ``z_i(x) > 0``), is a kink of a second-layer
neuron j: its Jacobian jump is ``w a^T`` with w along the neuron's output weights (normalised to 1 at its first
non-zero entry) and ``a = sign(grad g_j . q) W3_j[r0] grad g_j`` on S (r0 the first non-zero row), so the sighting
``v = (a, -a . x)`` is ``+-W3_j[r0]`` times g_j's affine coefficients on S (the same factor up to sign at every
sighting of j), and ``s = sign(a . q) = sign(W3_j[r0])`` is the same at every sighting of j. Neurons are told apart
by three things:

* **the output direction** w (with m >= 2, different neurons have different ones);
* **the sign** s;
* **the bent hyperplane.** g_j is one affine function of ``H = (relu(z), x)``: on two cells S, S' its coefficients
  differ by ``sum over i in S - S' of u_i p_i - sum over i in S' - S of u_i p_i``. So two sightings of one neuron
  have ``v - mu v'`` in the span of the ``p_i``, i in the symmetric difference D, for mu = 1 or -1. When
  ``|D| <= d`` that span is a proper subspace of R^(d + 1), and two sightings of different neurons (whose
  ``v - mu v'`` is generic) are not in it: such a pair is *linked*. (With ``D`` empty: the same hyperplane.)

The groups are the connected components of the links among the sightings of one (w, s), then merged while the
exact system of step 3 over the union of two of them has a solution and the merge says something: with m >= 2
always (w names the neuron), with one output only when the two groups' free directions are fewer than the
unknowns (else two different neurons' systems have a common solution too). Everything here only proposes: the
fresh queries of step 5 decide.

>>> F = Fraction
>>> planes = [(1, 0, 0), (0, 1, 0), (1, 1, -3)]          # x = 0, y = 0, x + y = 3 (d = 2, k1 = 3)
>>> v = (F(1), F(2), F(-1))                            # in cell {0, 1}: x + 2y - 1 = 0
>>> linked(planes, (frozenset({0, 1}), v, 1), (frozenset({0, 1, 2}), (F(2), F(3), F(-4)), 1), 2)   # v + p_2
True
>>> linked(planes, (frozenset({0, 1}), v, 1), (frozenset({0, 1, 2}), (F(2), F(3), F(-5)), 1), 2)
False
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint

from .cells import _dot, _jump, _unit

__all__ = ["group_sightings", "linked"]


def _rank(rows) -> int:
    """The rank of rows of Fractions (or integers)."""
    ints = []
    for row in rows:
        den = math.lcm(*(Fraction(v).denominator for v in row))
        ints.append([int(Fraction(v) * den) for v in row])
    return flint.fmpz_mat(ints).rank() if ints else 0


def linked(planes, one, other, d: int) -> bool:
    """Whether two sightings ``(cell, v, s)`` are linked (module docstring): the same sign, at most d first-layer
    neurons on in one cell and off in the other, and ``v - mu v'`` in the span of those neurons' hyperplanes for
    mu = 1 or -1."""
    (S, v, s), (T, w, t) = one, other
    D = sorted(S ^ T)
    if s != t or len(D) > d:
        return False
    base = [planes[i] for i in D]
    r0 = _rank(base)
    return any(_rank(base + [[a - mu * b for a, b in zip(v, w)]]) == r0 for mu in (1, -1))


def _raw(planes, seen) -> dict:
    """(w, s) -> the distinct sightings (cell, v, s) of the second-layer kinks in ``seen``, v with its first non-zero
    entry positive (a sighting seen twice, from either side, is one)."""
    raw: dict = {}
    for x, left, right, q in seen:
        if any(_dot(p, x) == 0 for p in planes):
            continue
        D = _jump(left, right)
        r0 = next((r for r, row in enumerate(D) if any(row)), None)
        if r0 is None:
            continue
        a = D[r0]
        l0 = next(l for l, v in enumerate(a) if v)
        w = tuple(row[l0] / a[l0] for row in D)
        aq = sum(u * v for u, v in zip(a, q))
        if any(row[l] != wr * a[l] for row, wr in zip(D, w) for l in range(len(a))) or aq == 0:
            continue  # not rank one: two kinks at one point (the line search would have refused it)
        s = 1 if aq > 0 else -1
        cell = frozenset(i for i, p in enumerate(planes) if _dot(p, x) > 0)
        v = tuple(a) + (-sum(u * y for u, y in zip(a, x)),)
        v = v if next(c for c in v if c) > 0 else tuple(-c for c in v)
        raw.setdefault((w, s), {}).setdefault((cell, v), (cell, v, s))
    return {key: list(items.values()) for key, items in raw.items()}


def _components(planes, items, d: int) -> list[list]:
    """The connected components of the links among ``items`` (union-find), largest first."""
    parent = list(range(len(items)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if root(i) != root(j) and linked(planes, items[i], items[j], d):
                parent[root(i)] = root(j)
    comps: dict = {}
    for i, item in enumerate(items):
        comps.setdefault(root(i), []).append(item)
    return sorted(comps.values(), key=len, reverse=True)


def _merge(planes, d: int, m: int, w, comps: list[list]) -> list[list]:
    """The components of one (w, s) merged into neurons (module docstring): each joins the first group before it
    whose union with it step 3 can solve, when that says something (m >= 2, or free directions fewer than the
    unknowns)."""
    n = len(planes) + d + 1
    merged: list = []  # [(sightings, _unit's answer)]
    for comp in comps:
        got = _unit(planes, d, w, comp)
        for k, (sightings, unit) in enumerate(merged):
            if isinstance(got, str) or isinstance(unit, str) or (m == 1 and len(got[2]) + len(unit[2]) >= n):
                continue
            both = _unit(planes, d, w, sightings + comp)
            if not isinstance(both, str):
                merged[k] = (sightings + comp, both)
                break
        else:
            merged.append((comp, got))
    return [sightings for sightings, _ in merged]


def group_sightings(planes, seen, d: int, m: int) -> list[tuple]:
    """The second-layer kinks in ``seen`` grouped into neurons (module docstring): ``[(w, [(cell, v, s), ...])]``;
    kinks on a first-layer hyperplane are left out.

    >>> group_sightings([(1, 0, 0), (0, 1, 0), (1, 1, -1)], [], 2, 1)
    []
    """
    return [(w, sightings) for (w, _), items in _raw(planes, seen).items()
            for sightings in _merge(planes, d, m, w, _components(planes, items, d))]
