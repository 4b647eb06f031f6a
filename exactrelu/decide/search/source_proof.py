"""A refutation of the source formula, carried onto a reduction's instance as a ``not-realizable`` case (untrusted).

The NAE -> ReLU reduction (:mod:`exactrelu.hardness.nae_to_relu`, U = [1, 1]) has, for every variable v, the gadget
samples ``P_v = e_v`` and ``M_v = -e_v`` (rows 2v and 2v + 1), and for every clause a point ``c`` with label 1. The
activation literal of (sample j, unit i) is ``2 j + i + 1`` (docs/certificates.md); the source variable v + 1 is the
literal ``A(P_v, 0) = 4 v + 1``, "unit 0 is active at e_v", i.e. ``V[0][v] >= 0``. This module writes, in closed
form and without any LP, a ``not-realizable`` case that the standard-library checker verifies with its existing
rules (docs/hardness.md, "Deciding the source formula", proves every leaf):

* a **clause template** per shape of clause point (its non-zero entries, sorted down; positions 2q and 2q + 1 the
  gadget of local coordinate q, 2r the point): for sigma = +1 and -1, one lemma that assumes ``A(P_q, 0)`` as
  "every literal's value is sigma" gives it and refutes that by a case tree over the other gadget literals and the
  point's two (:func:`clause_lemmas`); its clause, read on an instance, is the source clause "not all literals equal
  sigma" on the literals ``4 v + 1``, so the source formula's clauses *are* input clauses of the case;
* the formula is solved with a unit clause (x_f) added, f its most frequent variable (NAE formulas are unchanged by
  complementing every variable, so it loses no model): on the instance this is the case's ``symmetry`` (units 0
  and 1 have equal output weights; docs/certificates.md), whose clause ``A(e_f, 0) or not A(e_f, 1)`` with the
  plain lemma g1 (nothing active at e_f: ``0 = 1``) derives (x_f) in one hinted step;
* then the solver's refutation, its literals and clause numbers mapped.

Everything here is checked by :func:`exactrelu.certificates.checker.check`; nothing is trusted.

>>> lemma = clause_lemmas((1, 1, -1))[0]
>>> lemma["assume"], sum("farkas" in node for node in lemma["tree"])
([[0, 0, True], [2, 0, True], [4, 0, False]], 18)
"""

from __future__ import annotations

__all__ = ["clause_lemmas", "case_refutation", "other_case"]


def _leaf(rows) -> dict:
    """A Farkas leaf: rows [(kind, j, index, multiplier)]."""
    return {"farkas": [[k, j, x, str(y)] for k, j, x, y in rows]}


def _lemma(assume, rows) -> dict:
    """A lemma of one Farkas leaf: ``assume`` [(j, i, active)]."""
    return {"assume": [[j, i, a] for j, i, a in assume], "tree": [_leaf(rows)]}


def _split(j: int, i: int) -> dict:
    return {"split": [j, i]}


def _gadget(P: int, M: int, p0: bool, rest: list) -> list:
    """The case tree (preorder) of one gadget (samples P = e_v, M = -e_v) once ``A(P, 0)`` is decided ``p0``: every
    pattern but ``{a, b} = {1, -1}`` (a = V[0][v], b = V[1][v]) is refuted, that one continues with ``rest``.

    Leaves (at P the equation reads "the active units' values = 1", at M "minus them = 1"; an active unit's value is
    >= 0 at P, <= 0 at M): g1 nothing active at P, g2 nothing at M (0 = 1); g4 unit 0 active at P and alone at M
    (-a = 1, a >= 0); g5 the same for unit 1; g6 unit 0 alone at P and active at M (a = 1, a <= 0); g7 the same for
    unit 1; g8 both active at P and at M (a + b = 1, a, b <= 0).
    """
    g1, g2 = _leaf([("eq", P, 0, -1)]), _leaf([("eq", M, 0, -1)])
    if p0:  # continues with P1 inactive, M0 inactive, M1 active: a = 1, b = -1
        g4, g5 = _leaf([("eq", M, 0, -1), ("sign", P, 0, 1)]), _leaf([("eq", M, 0, -1), ("sign", P, 1, 1)])
        g6 = _leaf([("eq", P, 0, -1), ("sign", M, 0, 1)])
        g8 = _leaf([("eq", P, 0, -1), ("sign", M, 0, 1), ("sign", M, 1, 1)])
        return ([_split(P, 1), _split(M, 0), _split(M, 1), g8, g4, _split(M, 1), g5, g2,
                 _split(M, 0), g6, _split(M, 1)] + rest + [g2])
    g7 = _leaf([("eq", P, 0, -1), ("sign", M, 1, 1)])  # continues with P1 active, M0 active, M1 inactive
    return [_split(P, 1), _split(M, 1), g7, _split(M, 0)] + rest + [g2, g1]


def _value(sigma: int, c: int, unit: int) -> int:
    """The value (+1 or -1) of ``unit`` at a coordinate with entry c when every literal's value is ``sigma``."""
    s = sigma * (1 if c > 0 else -1)  # V[0] at this coordinate
    return s if unit == 0 else -s


def clause_lemmas(values) -> list[dict]:
    """The two lemmas of a clause point with local entries ``values`` (sorted down, |values| summing to 3).

    For ``sigma`` = +1 (every literal true), then -1: the lemma assumes ``A(P_q, 0)`` iff ``s_q = sigma sign(c_q)``
    is 1; each gadget's tree (:func:`_gadget`) leaves only V[0] = s, V[1] = -s on its coordinate, and unit u's value
    w there is pinned by the equation at the gadget point where u alone is active (``w V[u][q] = 1``). Then unit
    ``up`` has ``V[up] . c = 3`` and ``dn`` has ``-3``, and the point's four patterns fall to three leaves, each
    adding ``-|c_q|`` times those equations: L1 ``dn`` active (sign row ``-V[dn] . c <= 0``: 0 <= -3); L3 ``up``
    active and ``dn`` inactive (the point's equation ``V[up] . c = 1``: 0 = -2); L2 ``up`` inactive (sign row
    ``V[up] . c <= 0``: 0 <= -3).
    """
    r = len(values)
    C = 2 * r
    out = []
    for sigma in (1, -1):
        up = 0 if sigma == 1 else 1
        dn = 1 - up

        def pinned(unit):
            """The equation rows pinning ``unit``'s value at every coordinate (it alone active there)."""
            return [("eq", 2 * q if _value(sigma, c, unit) == 1 else 2 * q + 1, 0, -abs(c))
                    for q, c in enumerate(values)]

        tree = [_split(C, up), _split(C, dn), _leaf([("sign", C, dn, 1)] + pinned(dn)),
                _leaf([("eq", C, 0, 1)] + pinned(up)), _leaf([("sign", C, up, 1)] + pinned(up))]
        for q in reversed(range(r)):
            tree = _gadget(2 * q, 2 * q + 1, _value(sigma, values[q], 0) == 1, tree)
        out.append({"assume": [[2 * q, 0, _value(sigma, c, 0) == 1] for q, c in enumerate(values)], "tree": tree})
    return out


def case_refutation(points: list, core, fixed: int = 0) -> dict:
    """The case U = [[1, 1]] (without "U"): templates and hinted steps from a source refutation.

    ``points`` lists every clause point as ``(j, coordinates, values)`` (coordinates sorted as the values, down);
    the source clause ``2 r`` is "not all false" on point r, ``2 r + 1`` "not all true", and clause ``2 len(points)``
    is the unit (x_f), f = ``fixed`` + 1 (the symmetry). ``core`` is the source refutation
    (:func:`exactrelu.decide.search.sat.solver.trace_walk`): its ``used`` input clauses (increasing) and its steps,
    written here straight in the certificate's numbering (:meth:`~exactrelu.decide.search.sat.solver.TraceCore.rows`).
    """
    unit, used = 2 * len(points), core.used
    number, lemmas = 0, []
    if unit in used:  # g1 of e_f, a plain lemma: clause 1
        lemmas.append(_lemma([(2 * fixed, 0, False), (2 * fixed, 1, False)], [("eq", 2 * fixed, 0, -1)]))
        number = 1
    shapes: dict = {}
    for r in sorted({p // 2 for p in used if p != unit}):
        shapes.setdefault(points[r][2], []).append(r)
    templates, source_id = [], {}
    for values in sorted(shapes):
        instances = []
        for r in shapes[values]:
            j, ts, _ = points[r]
            instances.append([[x for t in ts for x in (2 * t, 2 * t + 1)] + [j], list(ts)])
            source_id[2 * r + 1], source_id[2 * r] = number + 1, number + 2  # sigma = +1, then -1
            number += 2
        templates.append({"lemmas": clause_lemmas(values), "instances": instances})
    case = {"lemmas": lemmas, "templates": templates}
    lrat = []
    if unit in used:  # units 0 and 1 have equal output weights: sorted on e_f (docs/certificates.md)
        case["symmetry"] = {"sample": 2 * fixed, "classes": [[0, 1]]}
        lrat.append([4 * fixed + 1, 0, 1, number + 1])  # not A(e_f, 0): A(e_f, 1) by g1, which the symmetry forbids
        source_id[unit] = number + 2
        number += 2
    # step t is number + 1 + t, the source clause p is source_id[p]; a literal x the literal 4 (|x| - 1) + 1
    top = max([t + 1 for _, ts, _ in points for t in ts] + [fixed + 1])  # the source's variables are 1..top
    lit_id = {x: 4 * (x - 1) + 1 for x in range(1, top + 1)}
    lit_id.update([(-x, -y) for x, y in lit_id.items()])
    case["lrat"] = lrat + core.rows(lit_id, source_id, number + 1)  # maps in C: 2,000-5,000 steps of ~20 hints
    return case


def other_case(u: tuple) -> dict:
    """A sign case u != (1, 1) of unknown output weights (without "U"), refuted on the first gadget (samples 0, 1).

    With no positive unit, the half row ``eq+`` of sample 0 reads ``0 >= 1``: one lemma of no assumption, whose
    clause is empty. With u = (1, 0) or (1, -1) unit 0 is the only positive unit: inactive at e_1 or at -e_1 its
    half row reads ``0 >= 1``, active at both the two half rows read ``a >= 1`` and ``-a >= 1``.
    """
    if u[0] != 1:
        return {"lemmas": [_lemma([], [("eq+", 0, 0, 1)])], "lrat": [[0, 1]]}
    lemmas = [_lemma([(0, 0, False)], [("eq+", 0, 0, 1)]), _lemma([(1, 0, False)], [("eq+", 1, 0, 1)]),
              _lemma([(0, 0, True), (1, 0, True)], [("eq+", 0, 0, 1), ("eq+", 1, 0, 1)])]
    return {"lemmas": lemmas, "lrat": [[0, 1, 2, 3]]}
