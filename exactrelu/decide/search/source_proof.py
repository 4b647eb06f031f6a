"""A refutation of the source formula, carried onto a reduction's instance as a ``not-realizable`` case (untrusted).

The NAE -> ReLU reduction (:mod:`exactrelu.hardness.nae_to_relu`, U = [1, 1]) has, for every variable v, the gadget
samples ``P_v = e_v`` and ``M_v = -e_v`` (rows 2v and 2v + 1), and for every clause a point ``c`` with label 1. The
activation literal of (sample j, unit i) is ``2 j + i + 1`` (docs/certificates.md); the source variable v + 1 is the
literal ``A(P_v, 0) = 4 v + 1``, "unit 0 is active at e_v", i.e. ``V[0][v] >= 0``. This module writes, in closed
form and without any LP, the lemmas and the hinted steps that let the standard-library checker verify "no network"
from a refutation of the source formula (docs/hardness.md, "Deciding the source formula"; the proofs of the
Farkas vectors are there):

* the **gadget template** (positions P = 0, M = 1, one coordinate): seven lemmas g1, g2, g4, ..., g8, each one
  Farkas leaf, from which five hinted steps derive, per variable, the binary clauses that make ``A(P_v, 0)`` fix
  the other three literals of its gadget (:data:`GADGET_STEPS`);
* a **clause template** per shape of clause point (its non-zero entries, sorted down): for each sign
  ``sigma`` (all literal values true, or all false) three lemmas L1, L2, L3 over the gadget literals of the
  clause's variables and the two literals of the point, each one Farkas leaf;
* a hinted step per source clause used, deriving it (mapped onto the literals ``4 v + 1``) from those;
* the source refutation's own steps, mapped the same way. The formula is solved with a unit clause (x_f) added,
  f its most frequent variable (NAE formulas are unchanged by complementing every variable, so it loses no model):
  on the instance this is the case's ``symmetry`` (units 0 and 1 have equal output weights; docs/certificates.md),
  whose clause ``A(e_f, 0) or not A(e_f, 1)`` with g1 of that gadget derives (x_f). It about halves the solver's
  work and proof.

Everything here is checked by :func:`exactrelu.certificates.checker.check`; nothing is trusted.

>>> gadget_lemmas()[0]
{'assume': [[0, 0, False], [0, 1, False]], 'tree': [{'farkas': [['eq', 0, 0, '-1']]}]}
>>> [len(lemma["assume"]) for lemma in clause_lemmas((1, 1, -1))]
[7, 7, 8, 7, 7, 8]
"""

from __future__ import annotations

__all__ = ["gadget_lemmas", "clause_lemmas", "case_refutation", "other_case", "GADGET_STEPS"]

P, M = 0, 1  # the gadget's positions in its template


def _lemma(assume, rows) -> dict:
    """A lemma of one Farkas leaf: ``assume`` [(j, i, active)], ``rows`` [(kind, j, index, multiplier)]."""
    farkas = [[k, j, x, str(y)] for k, j, x, y in rows]
    return {"assume": [[j, i, a] for j, i, a in assume], "tree": [{"farkas": farkas}]}


def gadget_lemmas() -> list[dict]:
    """The gadget's lemmas g1, g2, g4, g5, g6, g7, g8 (in this order), over a = V[0][v] and b = V[1][v].

    At P the equation reads (active units' values) = 1, at M (minus the active units' values) = 1; an active unit at
    P has value >= 0, at M <= 0 (the sign rows). g1: nothing active at P gives 0 = 1; g2 the same at M; g4: unit 0
    active at P and M, alone at M: -a = 1 and a >= 0; g5 the same for unit 1; g6, g7 the same with P and M
    exchanged; g8: both active at both: a, b >= 0 and <= 0, so a + b = 0, not 1.
    """
    T, F = True, False
    return [
        _lemma([(P, 0, F), (P, 1, F)], [("eq", P, 0, -1)]),
        _lemma([(M, 0, F), (M, 1, F)], [("eq", M, 0, -1)]),
        _lemma([(P, 0, T), (M, 0, T), (M, 1, F)], [("eq", M, 0, -1), ("sign", P, 0, 1)]),
        _lemma([(P, 1, T), (M, 1, T), (M, 0, F)], [("eq", M, 0, -1), ("sign", P, 1, 1)]),
        _lemma([(M, 0, T), (P, 0, T), (P, 1, F)], [("eq", P, 0, -1), ("sign", M, 0, 1)]),
        _lemma([(M, 1, T), (P, 1, T), (P, 0, F)], [("eq", P, 0, -1), ("sign", M, 1, 1)]),
        _lemma([(P, 0, T), (P, 1, T), (M, 0, T), (M, 1, T)], [("eq", P, 0, -1), ("sign", M, 0, 1), ("sign", M, 1, 1)]),
    ]


#: The hinted steps derived from the gadget's lemmas, per variable: (name, clause, hints). Literals are named
#: P0, P1, M0, M1 (unit 0 or 1 active at P or M), a leading "-" negates; hints name the lemmas g1..g8 (list index:
#: g1 0, g2 1, g4 2, g5 3, g6 4, g7 5, g8 6) and earlier steps D1.. by name.
GADGET_STEPS = (
    ("D1", ("-P0", "-M0"), ("g4", "g6", "g8")),  # P0, M0 -> M1 (g4), P1 (g6); g8 falsified
    ("D2", ("-P1", "-M1"), ("g5", "g7", "g8")),  # P1, M1 -> M0 (g5), P0 (g7); g8 falsified
    ("D3", ("-P0", "-P1"), ("D1", "D2", "g2")),  # P0, P1 -> not M0, not M1; g2 falsified
    ("D4", ("-M0", "-M1"), ("D1", "D2", "g1")),  # M0, M1 -> not P0, not P1; g1 falsified
    ("D5", ("P0", "M0"), ("g1", "g2", "D2")),  # not P0, not M0 -> P1, M1; D2 falsified
)
_G = {"g1": 0, "g2": 1, "g4": 2, "g5": 3, "g6": 4, "g7": 5, "g8": 6}
#: the hints that set the other three literals of a gadget from A(P, 0): true, then false
_PROPAGATE = {True: ("D3", "D1", "g2"), False: ("g1", "D5", "D4")}


def _value(sigma: int, c: int, unit: int) -> int:
    """The value (+1 or -1) of ``unit`` at a coordinate with entry c when every literal's value is ``sigma``."""
    s = sigma * (1 if c > 0 else -1)  # V[0] at this coordinate
    return s if unit == 0 else -s


def clause_lemmas(values) -> list[dict]:
    """The six lemmas of a clause point with local entries ``values`` (sorted down, |values| summing to 3).

    Positions 2q and 2q + 1 are the gadget of local coordinate q, position 2r the point (r = len(values)). For
    ``sigma`` = +1 (every literal true), then -1: the gadget equations give each unit value +-1 at every coordinate;
    unit ``up`` has ``V[up] . c = 3`` and ``dn`` the other ``-3``. L1: ``dn`` active at the point (its sign row
    ``-V[dn] . c <= 0``) plus ``-|c_q|`` times the gadget equation of ``dn`` at q: 0 <= -3. L2: ``up`` inactive
    (``V[up] . c <= 0``), the same with ``up``: 0 <= -3. L3: ``up`` active and ``dn`` inactive: the point's equation
    ``V[up] . c = 1`` with the same gadget rows: 0 = -2.
    """
    r = len(values)
    C = 2 * r
    out = []
    for sigma in (1, -1):
        up = 0 if sigma == 1 else 1
        dn = 1 - up

        def gadget(unit):
            """(decisions, equation rows) pinning ``unit``'s value at every coordinate (it alone active there)."""
            dec, rows = [], []
            for q, c in enumerate(values):
                S = 2 * q if _value(sigma, c, unit) == 1 else 2 * q + 1
                dec += [(S, unit, True), (S, 1 - unit, False)]
                rows.append(("eq", S, 0, -abs(c)))
            return dec, rows

        dec_dn, rows_dn = gadget(dn)
        dec_up, rows_up = gadget(up)
        out.append(_lemma(dec_dn + [(C, dn, True)], [("sign", C, dn, 1)] + rows_dn))
        out.append(_lemma(dec_up + [(C, up, False)], [("sign", C, up, 1)] + rows_up))
        out.append(_lemma(dec_up + [(C, up, True), (C, dn, False)], [("eq", C, 0, 1)] + rows_up))
    return out


def _gadget_literals(v: int) -> dict:
    base = 4 * v
    return {"P0": base + 1, "P1": base + 2, "M0": base + 3, "M1": base + 4}


def case_refutation(points: list, used: list, steps: list, fixed: int = 0) -> dict:
    """The case U = [[1, 1]] (without "U"): templates and hinted steps from a source refutation.

    ``points`` lists every clause point as ``(j, coordinates, values)`` (coordinates sorted as the values, down);
    the source clause ``2 r`` is "not all false" on point r, ``2 r + 1`` "not all true", and clause ``2 len(points)``
    is the unit (x_f), f = ``fixed`` + 1 (the symmetry). ``used`` (increasing) and ``steps`` are the source
    refutation's (:func:`exactrelu.decide.search.sat.solver.trace_core`).
    """
    unit = 2 * len(points)
    rows = sorted({p // 2 for p in used if p != unit})
    variables = sorted({t for r in rows for t in points[r][1]} | ({fixed} if unit in used else set()))
    number = 0
    gadget_id = {}
    for v in variables:  # the gadget template's instances come first: 7 lemmas each
        gadget_id[v] = number
        number += 7
    shapes: dict = {}
    for r in rows:
        shapes.setdefault(points[r][2], []).append(r)
    templates = [{"lemmas": gadget_lemmas(), "instances": [[[2 * v, 2 * v + 1], [v]] for v in variables]}]
    lemma_id = {}
    for values in sorted(shapes):
        instances = []
        for r in shapes[values]:
            j, ts, _ = points[r]
            instances.append([[x for t in ts for x in (2 * t, 2 * t + 1)] + [j], list(ts)])
            lemma_id[r] = number
            number += 6
        templates.append({"lemmas": clause_lemmas(values), "instances": instances})
    case = {"lemmas": [], "templates": templates}
    if unit in used:  # units 0 and 1 have equal output weights: sorted on e_f (docs/certificates.md)
        case["symmetry"] = {"sample": 2 * fixed, "classes": [[0, 1]]}
        number += 1
        symmetry = number
    lrat = []
    named = {}
    for v in variables:
        lit = _gadget_literals(v)
        ids = {g: gadget_id[v] + x + 1 for g, x in _G.items()}
        for name, clause, hints in GADGET_STEPS:
            lrat.append([-lit[x[1:]] if x[0] == "-" else lit[x] for x in clause] + [0]
                        + [ids[h] if h in ids else named[(v, h)] for h in hints])
            number += 1
            named[(v, name)] = number
    source_id = {}
    for p in used:  # (x_f): not A(e_f, 0) gives A(e_f, 1) by g1, which the symmetry clause forbids
        lrat.append([4 * fixed + 1, 0, gadget_id[fixed] + _G["g1"] + 1, symmetry] if p == unit else
                    _source_clause(points[p // 2], p % 2, lemma_id[p // 2], gadget_id, named))
        number += 1
        source_id[p] = number
    # a hint h names step h (number first + h) or the source clause -h - 1; a literal x the literal 4 (|x| - 1) + 1
    hint_id = {-p - 1: x for p, x in source_id.items()}
    hint_id.update(zip(range(len(steps)), range(number + 1, number + 1 + len(steps))))
    top = max([t + 1 for _, ts, _ in points for t in ts] + [1])  # the source's variables are 1..top
    lit_id = {x: 4 * (x - 1) + 1 for x in range(1, top + 1)}
    lit_id.update([(-x, -y) for x, y in lit_id.items()])
    for lits, hints in steps:  # maps in C: 2,000-5,000 steps of about 20 hints at N = 200
        lrat.append(list(map(lit_id.__getitem__, lits)) + [0] + list(map(hint_id.__getitem__, hints)))
    case["lrat"] = lrat
    return case


def _source_clause(point, polarity: int, first_lemma: int, gadget_id: dict, named: dict) -> list:
    """The hinted step deriving one source clause: ``polarity`` 0 "not all false" (refutes sigma = -1), 1 "not all
    true" (sigma = +1). Assume the clause false: each gadget's A(P_v, 0) is set, three hints set the rest of it, then
    L1 (unit), L2 (unit) and L3 (falsified) of that sigma."""
    _, ts, values = point
    sigma = -1 if polarity == 0 else 1
    lits, hints = [], []
    for t, c in zip(ts, values):
        s = _value(sigma, c, 0)  # V[0][t] = s: A(P_t, 0) holds iff s = 1
        p0 = 4 * t + 1
        lits.append(-p0 if s == 1 else p0)  # the clause: not (A(P_t, 0) == (s == 1)) for some t
        for h in _PROPAGATE[s == 1]:
            hints.append(gadget_id[t] + _G[h] + 1 if h in _G else named[(t, h)])
    base = first_lemma + (0 if sigma == 1 else 3)
    return lits + [0] + hints + [base + 1, base + 2, base + 3]


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
