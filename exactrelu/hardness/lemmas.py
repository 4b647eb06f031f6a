"""The lemmas behind the hardness reduction, proved by exact case analysis (run by proofs/).

Each lemma is a statement about finitely many exact linear programs: a case tree over the
activation patterns of a small instance (:func:`exactrelu.decide.search.tree.enumerate_leaves`),
in which every closed leaf carries a Farkas vector checked by the independent checker's leaf
rule, and every open leaf (a feasible full pattern) has equations of full column rank, so that
its exact point is the only solution of that case. The lemma then says what the set of those
points is.

- **gadget**: relu(a) + relu(b) = 1 and relu(-a) + relu(-b) = 1 (U = [1, 1], samples x = 1, -1)
  force (a, b) = (1, -1) or (-1, 1).
- **gadget, U unknown**: with u in {1, 0, -1}^2 (positive homogeneity, units permuted), every u
  but (1, 1) gives a certified ``not-realizable`` instance.
- **clause**: for every clause (l1, l2, l3) on variables 1..3 (repeats and negations included),
  the realizations of its instance (gadget points + the clause point, labels 1, U = [1, 1]) are
  exactly V = [s, -s] with s in {-1, 1}^N an NAE-satisfying assignment (as +-1).
- **cnf-to-nae**: for clauses of 0..5 literals, "some w makes the split NAE clauses true" iff
  "NAE(literals, z)", and with z false iff "some literal is true" (truth tables).

>>> r = prove_gadget()
>>> r["proved"], r["solutions"]
(True, [['1', '-1'], ['-1', '1']])
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import flint

from .._moved import moved_names

from ..certificates import checker
from ..certificates.trusted.refutation import _refute_leaf
from ..certificates.envelope import instance_sha256, verify
from ..instances.checker_view import checker_instance
from ..exact.linalg import exact_rank
from ..instances import Instance
from .cnf import CNF, NAEFormula
from .cnf_to_nae import CnfToNae
from ..decide.search.pattern_search import decide, sign_cases
from ..decide.search.tree import case_system, enumerate_leaves
from .nae_to_relu import NaeToRelu
from ..exact.rationals import format_rational

__all__ = ["realizations", "prove_gadget", "prove_gadget_unknown_u", "prove_clause_lemma", "prove_cnf_to_nae",
           "prove_all"]

#: the old (UK) spelling, kept for one release with a DeprecationWarning (issue 35: US spelling)
__getattr__ = moved_names(__name__, {"realisations": f"{__name__}:realizations"})


def realizations(instance: Instance, U) -> dict:
    """All V with ``U relu(V x_j) = y_j``, proved finite by exact case analysis (or raise AssertionError).

    Returns ``{"solutions": sorted list of V as flat string lists, "leaves": ..., "open": ...,
    "tree": the case tree}``. Checks: the tree covers every pattern (the checker's rule), every
    closed leaf's Farkas vector (the checker's leaf rule), and full column rank of every open
    leaf's equations (so its point is the unique solution of that case).
    """
    tree, open_leaves, s = enumerate_leaves(instance, U)
    inst = checker_instance(instance)
    Xp, Yp, _ = checker.parsed_instance(inst["inputs"], inst["labels"])
    X, Y = ([[Fraction(p, q) for p, q in zip(*row)] for row in R] for R in (Xp, Yp))
    Uf = [[Fraction(x) for x in row] for row in s.U]
    Xs = [[(t, v) for t, v in enumerate(row) if v] for row in X]  # the checker's sparse rows
    k = len(Uf[0])
    stack, closed = [{}], 0
    for node in tree:
        dec = stack.pop()
        if "split" in node:
            j, i = node["split"]
            assert (j, i) not in dec
            stack += [{**dec, (j, i): False}, {**dec, (j, i): True}]
        elif "open" in node:
            decided, point = open_leaves[node["open"]]
            assert {key: a for key, (a, _) in decided.items()} == dec
            eqs, ubs = case_system(s, decided)
            den = math.lcm(1, *(c.denominator for row, _ in eqs for c in row))
            A = flint.fmpz_mat([[int(c * den) for c in row] for row, _ in eqs]) if eqs else flint.fmpz_mat(0, s.nv)
            assert eqs and exact_rank(A) == s.nv, "an open case has more than one solution"
            for row, b in eqs:
                assert sum(c * p for c, p in zip(row, point)) == b
            for row, b in ubs:
                assert sum(c * p for c, p in zip(row, point)) <= b
        else:
            _refute_leaf(node, dec, Xs, Y, Uf, k)  # raises CheckFailed if wrong
            closed += 1
    assert not stack, "the case tree does not cover every pattern"
    sols = sorted({tuple(format_rational(x) for x in p) for _, p in open_leaves},
                  key=lambda t: [Fraction(x) for x in t], reverse=True)
    return {"solutions": [list(t) for t in sols], "closed_leaves": closed, "open_leaves": len(open_leaves),
            "tree": tree, "instance_sha256": instance_sha256(instance)}


def _gadget_instance() -> Instance:
    return Instance.from_arrays([[1], [-1]], [[1], [1]])


def prove_gadget() -> dict:
    """relu(a) + relu(b) = 1 = relu(-a) + relu(-b) iff (a, b) in {(1, -1), (-1, 1)}."""
    r = realizations(_gadget_instance(), [[1, 1]])
    r["proved"] = r["solutions"] == [["1", "-1"], ["-1", "1"]]
    r["lemma"] = "gadget"
    return r


def prove_gadget_unknown_u() -> dict:
    """Every u in {1, 0, -1}^2 but (1, 1) is refuted on the gadget (``not-realizable``, checker-verified)."""
    inst = _gadget_instance()
    refuted = {}
    for u in sign_cases(2):
        if u == (1, 1):
            continue
        res = decide(inst, U=[list(u)])
        refuted[str(list(u))] = (res.status == "not-realizable"
                                 and verify(res.certificate, inst).startswith("not-realizable"))
    res = decide(inst)  # and unknown U overall is realizable, by u = (1, 1) only
    return {"lemma": "gadget-unknown-u", "refuted": refuted, "unknown_u_realisation": res.network.U.to_strings(),
            "proved": all(refuted.values()) and res.network.U.to_strings() == [["1", "1"]]}


def _clause_shapes(all_clauses: bool):
    if all_clauses:
        lits = [1, -1, 2, -2, 3, -3]
        return list(itertools.product(lits, repeat=3))
    # up to renaming and reflecting coordinates (x_i -> -x_i maps the instance of a clause to the
    # instance of the clause with variable i negated; the gadget points are invariant)
    return [(1, 2, 3), (1, 1, 2), (1, -1, 2), (1, 1, 1), (1, 1, -1)]


def prove_clause_lemma(all_clauses: bool = False) -> dict:
    """Realizations of every single-clause instance are exactly [s, -s] for its NAE solutions s."""
    rows = []
    for clause in _clause_shapes(all_clauses):
        used = sorted({abs(l) for l in clause})
        rename = {v: t + 1 for t, v in enumerate(used)}
        c = tuple(rename[abs(l)] * (1 if l > 0 else -1) for l in clause)
        f = NAEFormula(len(used), [c])
        inst, _ = NaeToRelu().apply(f)
        r = realizations(inst, [[1, 1]])
        expect = set()
        for a in itertools.product((False, True), repeat=f.num_vars):
            if f.satisfied_by(a):
                s = [1 if v else -1 for v in a]
                expect.add(tuple(str(x) for x in s + [-x for x in s]))
        ok = {tuple(s) for s in r["solutions"]} == expect
        rows.append({"clause": list(clause), "solutions": len(r["solutions"]), "closed_leaves": r["closed_leaves"],
                     "proved": ok})
    # the label of a clause point under V = [s, -s] is |s1 + s2 + s3|, 1 iff not all equal
    label_ok = all((abs(sum(s)) == 1) == (len(set(s)) == 2) for s in itertools.product((-1, 1), repeat=3))
    return {"lemma": "clause", "cases": rows, "label_identity": label_ok,
            "proved": label_ok and all(r["proved"] for r in rows)}


def prove_cnf_to_nae(max_width: int = 5) -> dict:
    """Truth tables of the CNF -> NAE clause translation, for clauses of 0..max_width literals."""
    rows = []
    for width in range(max_width + 1):
        cnf = CNF(width, [tuple(range(1, width + 1))])
        nae, data = CnfToNae().apply(cnf)
        z, extra = data.z, nae.num_vars - width - 1
        ok = True
        for a in itertools.product((False, True), repeat=width + 1):
            exists = any(nae.satisfied_by(a + w) for w in itertools.product((False, True), repeat=extra))
            ok &= exists == (len(set(a)) == 2)  # NAE(l1..lr, z)
            if not a[z - 1]:
                ok &= exists == any(a[:width])  # with z false: the clause is satisfied
        rows.append({"width": width, "nae_clauses": len(nae.clauses), "fresh": extra, "proved": ok})
    return {"lemma": "cnf-to-nae", "cases": rows, "proved": all(r["proved"] for r in rows)}


def prove_all(all_clauses: bool = False) -> dict:
    """Every lemma of this module; ``proved`` is True when all hold."""
    parts = [prove_gadget(), prove_gadget_unknown_u(), prove_clause_lemma(all_clauses), prove_cnf_to_nae()]
    return {"claim": "NAE-3SAT <-> two-unit ReLU reduction (k = 2, m = 1), gadget and clause lemmas",
            "parts": parts, "proved": all(p["proved"] for p in parts)}
