"""Bounds over a whole subtree: one *relaxed leaf* closes a node of the box search instead of its case split.

At a node, every neuron the targets read and the path leaves undecided is *relaxed*: its output y = relu(z) is only
known to lie between the lower rows ``y >= 0``, ``y >= z`` and an upper line ``y <= s z + t`` above relu on an
interval ``[l, U]`` of z established on the node (the triangle relaxation: ``s = U / (U - l)``, ``t = -s l``; s = 1,
t = 0 when l >= 0; s = t = 0 when U <= 0). Bounds are found layer by layer by CROWN-style back-substitution in floats
(:mod:`.relax_float`: each neuron's bounds from the relaxations of the neurons below it, down to the box): a
proposal. When it shows every output within epsilon on the node, the same multipliers are made exact
(:mod:`.relax_exact`: rounded to integers over each row's own denominator and a power of two, a level's bounds summed
at once as integer matrix products, and what is left of the coefficients absorbed exactly by rows of one variable);
each bound is then what its exact combination proves, rounded outward to a short dyadic. The certificate is the
checker's relaxed leaf (:mod:`exactrelu.certificates.trusted.phases`, "Relaxed leaves"): the chain of bounds in
order, then a bounds leaf citing the chain's rows.

>>> from exactrelu.network import Network
>>> from exactrelu.equiv.deep import deep_equivalence
>>> f = Network.from_layers([([[1], [-1]], [0, 0]), ([[1, 1]], None), ([[1]], None)])      # |x|
>>> g = Network.from_layers([([[1], [-1]], ["1/8", "1/8"]), ([[1, 1]], None), ([[1]], None)])
>>> res = deep_equivalence(f, g, lower=[-1], upper=[1], epsilon=2)                  # max |f - g| = 1/4
>>> res.status, res.stats["nodes"], list(res.tree[0])
('equivalent', 1, ['relaxed'])
"""

from __future__ import annotations

import math
from fractions import Fraction

from ...exact.rationals import format_rational

__all__ = ["relaxed_leaf", "outward"]

_ZERO = Fraction(0)


def outward(q: Fraction, up: bool, bits: int = 32) -> Fraction:
    """A dyadic rational of about ``bits`` significant bits, >= q (``up``) or <= q.

    >>> outward(Fraction(1, 3), True, 4), outward(Fraction(1, 3), False, 4)
    (Fraction(11, 32), Fraction(5, 16))
    """
    if not q:
        return q
    shift = bits - (abs(q.numerator).bit_length() - q.denominator.bit_length())
    scale = Fraction(2) ** shift
    return Fraction(math.ceil(q * scale) if up else math.floor(q * scale)) / scale


def relaxed_leaf(search, outs, splits: int) -> list | None:
    """A relaxed leaf proving every target within the slack on the node (``outs``: the substituted targets), or
    None when the float bounds do not show it (then the search goes on bottom-up)."""
    from .relax_exact import ExactPhase
    from .relax_float import Relaxation

    slack = search.slack
    rel = Relaxation(search, outs)
    targets = []
    for o in outs:
        for sign in (1, -1):
            targets.append(({v: sign * a for v, a in o[0].items()}, sign * o[1] - slack))
    found = rel.propose(targets)
    if found is None:
        return None
    exact, chain = ExactPhase(rel), []
    for idx, rec in zip(rel.idx, rel.records):
        search.check_time()
        us = [rel.order[i] for i in idx]
        orig = [search.red.forms[u][0] for u in us]
        done = exact.batch(rec, [exact.target(i, 1) for i in idx] + [exact.target(i, -1) for i in idx],
                           orig + [_neg((f, 0))[0] for f in orig], idx[0])
        for j, (u, i) in enumerate(zip(us, idx)):
            (hi_c, hi_v), (lo_c, lo_v) = done[j], done[len(us) + j]
            lo, hi = outward(-lo_v, False), outward(hi_v, True)
            s, t = _line(lo, hi)
            exact.set_line(i, lo, hi, s, t)
            chain.append([u, format_rational(lo), format_rational(hi), format_rational(s), format_rational(t),
                          lo_c, hi_c])
    search.check_time()
    signed = [({v: sign * a for v, a in o[0].items()}) for o in search.targets for sign in (1, -1)]
    done = exact.batch(found, targets, signed, len(rel.order)) if targets else []
    if any(value > 0 for _, value in done):
        return None  # the rounding lost what the floats showed (a bug or an extreme case): split on
    proofs = [[done[2 * r][0], done[2 * r + 1][0]] for r in range(len(search.targets))]
    search.stats.relaxed += 1
    return search._leaf({"relaxed": {"chain": chain, "leaf": {"bounds": proofs}}}, splits)


def _neg(form):
    return {v: -a for v, a in form[0].items()}, -form[1]


def _line(lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction]:
    """A line ``s z + t`` above relu at lo and hi (so on [lo, hi]): the chord, with s a short dyadic."""
    if lo >= 0:
        return Fraction(1), _ZERO
    if hi <= 0:
        return _ZERO, _ZERO
    s = outward(hi / (hi - lo), True)
    return s, max(-s * lo, hi - s * hi)
