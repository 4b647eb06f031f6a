"""Hinted refutations from the solver's LRAT trace and from our DRUP trimmer (untrusted), and templates; the linear check
itself (trusted/lrat.py) is tested in tests/certificates/test_hinted_check.py."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.trusted.common import CheckFailed
from exactrelu.certificates.trusted.lrat import check_hinted
from exactrelu.errors import InvalidInput
from exactrelu.hardness import NaeToRelu, pigeonhole, random_nae3, reduction_for
from exactrelu.decide.search.pattern_search import decide
from exactrelu.decide.search.tree import _Search
from exactrelu.decide.search.sat.proof import ProofFormatError, drup_refute, lrat_core, numbered, refute
from exactrelu.decide.search.rows import Rows
from exactrelu.decide.search.sat.trim import drup_core, parse_binary_drup
from exactrelu.instances import planted

FOUR = [[1, 2], [-1, 2], [1, -2], [-1, -2]]  # unsatisfiable; clauses 1..4


cnfs = st.integers(2, 5).flatmap(lambda nv: st.tuples(
    st.just(nv), st.lists(st.lists(st.integers(1, nv).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1, max_size=3,
                                   unique=True), min_size=1, max_size=24)))


def _sat(nv, clauses):
    return any(all(any((lit > 0) == a[abs(lit) - 1] for lit in c) for c in clauses)
               for a in itertools.product((False, True), repeat=nv))


junk_steps = st.lists(st.tuples(st.lists(st.integers(-5, 5).filter(bool), max_size=3),
                                st.lists(st.integers(1, 40), min_size=1, max_size=6)), max_size=6)


@given(cnfs, junk_steps)
@settings(deadline=None)
def test_hints_from_the_solver_and_from_the_trimmer_check_and_nothing_refutes_a_satisfiable_set(cnf, junk):
    """Unsatisfiable (brute force): both hinted refutations check. Satisfiable: no hinted proof does."""
    nv, clauses = cnf
    if _sat(nv, clauses):
        steps = [[x for x in lits if abs(x) <= nv] + [0] + hints for lits, hints in junk] + [[0, 1, 2, 3]]
        with pytest.raises(CheckFailed):
            check_hinted(clauses, steps, nv)
        return
    for core in (refute(clauses), drup_refute(clauses)):
        assert core.steps[-1][0] == [] and core.inputs == sorted(set(core.inputs))
        ids = {p: t + 1 for t, p in enumerate(core.inputs)}
        assert check_hinted([clauses[p] for p in core.inputs], numbered(core, ids, len(ids) + 1), nv) == len(core.steps)
        # the whole clause list, numbered as given, checks as well (the core names its own clauses)
        assert check_hinted(clauses, numbered(core, {p: p + 1 for p in core.inputs}, len(clauses) + 1,
                                              deletions=False), nv) == len(core.steps)


def test_lrat_trace_reader_and_trimmer_refuse_what_they_cannot_read():
    order = [0, 1, 2, 3]
    assert lrat_core(b"5 2 0 1 2 0\n5 d 1 0\n6 0 5 3 4 0\n", order).steps == [([2], [-1, -2]), ([], [0, -3, -4])]
    assert lrat_core(b"0 d 1 0\n5 0 2 3 4 0\n", order).inputs == [1, 2, 3]  # CaDiCaL's line 0 deletes tautologies
    for data, msg in ((b"5 2 0 1 x 0\n", "single-spaced integers"), (b"5 2 0 1 2 0\n", "no empty clause"),
                      (b"5 2 0 1 2\n", "cut short"), (b"5 0 1 9 0\n", "names no clause"), (b"5 0 1 -2 0\n", "not positive"),
                      (b"5 0 1 2 0", "cut short"), (b"d 5 0\n", "unexpected 'd'"), (b"5  0 1 0\n", "single-spaced"),
                      (b"5 0 1 2 0 0\n", "cut short")):
        with pytest.raises(ProofFormatError, match=msg):
            lrat_core(data, order)
    with pytest.raises(ValueError, match="does not refute"):
        drup_core(FOUR[:3], [(False, [2])])
    with pytest.raises(ValueError, match="does not follow"):
        drup_core(FOUR[:2], [(False, [-2]), (False, [])])  # (-2) does not follow from (1 or 2), (-1 or 2)
    assert drup_core([[1], [-1]], []).steps == [([], [-1, -2])]  # conflicting inputs: the empty clause at once
    core = drup_core(FOUR, [(True, [1, 2]), (False, [1, -1]), (False, [2]), (False, [])])  # deletion ignored, tautology
    assert check_hinted(FOUR, numbered(core, {p: p + 1 for p in core.inputs}, 5), 2) == 2


@given(st.lists(st.tuples(st.booleans(), st.lists(st.integers(-300, 300).filter(bool), max_size=5)), max_size=8))
def test_binary_drup_reader_round_trip(steps):
    def enc(lit):
        u, out = 2 * abs(lit) + (lit < 0), []
        while True:
            out.append((u & 0x7F) | (0x80 if u > 0x7F else 0))
            u >>= 7
            if not u:
                return out
    data = bytes(b for deleted, lits in steps for b in [100 if deleted else 97, *[x for lit in lits for x in enc(lit)], 0])
    assert parse_binary_drup(data) == steps


@given(st.integers(0, 10**6), st.sampled_from([(2, 1), (3, 2)]))
@settings(deadline=None, max_examples=20)
def test_one_row_builder_for_both_engines(seed, km):
    """The tree engine's dense integer rows are the shared sparse rows, laid out densely (same scales)."""
    k, m = km
    inst = planted(d=3, k=k, m=m, n=5, seed=seed, inputs="integer")
    X, Y, U = inst.inputs.to_fractions(), inst.labels.to_fractions(), inst.planted.U.to_fractions()
    s, R = _Search(X, Y, U, method="exact", max_nodes=None), Rows(X, Y, U)
    for j in range(inst.n):
        for i in R.rel:
            s.decided[(j, i)] = (j % 2 == 0, 0)
        for kind, x in [("sign", i) for i in R.rel] + [("eq", r) for r in range(m)]:
            dense, rhs, scale, _ = s._int_coeffs((kind, j, x))
            acts = tuple(s.decided[(j, i)][0] for i in R.units(x)) if kind == "eq" else None
            (_, coefs, rhs2, _), scale2 = R.sign_row(j, x, j % 2 == 0) if kind == "sign" else R.eq_row(j, x, acts)
            assert (rhs, scale) == (rhs2, scale2)
            assert dense == [coefs.get((i, t), 0) for i in R.rel for t in range(inst.d)]
            c, b = s._coeffs((kind, j, x))
            assert b * scale == rhs and [a * scale for a in c] == dense


# -- certificates with templates and hints ----------------------------------------------------------


def test_only_used_lemmas_are_written_and_templates_cover_the_clusters():
    """Pigeonhole through the CNF chain: fewer lemmas kept than derived, each cluster shape proved once."""
    f = pigeonhole(3)
    inst, _ = reduction_for(f).apply(f)
    res = decide(inst, U=[[1, 1]])
    case = res.certificate["cases"][0]
    kept = sum(len(t["lemmas"]) * len(t["instances"]) for t in case["templates"]) + len(case["lemmas"])
    assert kept < res.evidence["lemmas"] and res.evidence["core_steps"] <= res.evidence["trace_steps"] + 1
    assert len(case["templates"]) < sum(len(t["instances"]) for t in case["templates"])
    assert decide(inst, U=[[1, 1]], proof="drup").status == "not-realizable"
    with pytest.raises(InvalidInput, match="unknown proof"):
        decide(inst, proof="lrat2")


def test_templates_agree_with_the_instance_data_exactly():
    """Random NAE instances: every template instance carries exactly the template's data (the checker's rule)."""
    for seed in range(3):
        inst, _ = NaeToRelu().apply(random_nae3(6, 16, seed=seed))
        res = decide(inst, U=[[1, 1]])
        if res.status == "not-realizable":
            X = inst.inputs.to_fractions()
            for tpl in res.certificate["cases"][0].get("templates", []):
                local = [[[X[j][t] for t in ts] for j in js] for js, ts in tpl["instances"]]
                assert all(x == local[0] for x in local)
            assert Fraction(res.evidence["check_seconds"]) >= 0
