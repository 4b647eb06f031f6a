"""The exact decision procedure and the not-realizable certificate (valid and tampered)."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.certificates.envelope import verify
from exactrelu.errors import InvalidInput, TimeLimitExceeded
from exactrelu.hardness import CNF, NAEFormula, NaeToRelu, pigeonhole, random_nae3, reduction_for
from exactrelu.decide import Decision
from exactrelu.decide.search.pattern_search import SearchLimit, decide, sign_cases
from exactrelu.instances import Instance, planted
from exactrelu.network import Activation


def brute_nae(f):
    return any(f.satisfied_by(a) for a in itertools.product((False, True), repeat=f.num_vars))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("engine", ["tree", "lazy"])
def test_decision_matches_brute_force_nae(seed, engine):
    f = random_nae3(4, 6 + seed % 3, seed=seed)
    inst, data = NaeToRelu().apply(f)
    for U in ([[1, 1]], None):
        res = decide(inst, U=U, engine=engine)
        assert (res.status == "realizable") == brute_nae(f)
        if res.status == "realizable":  # the weights decode to an NAE solution
            assert f.satisfied_by(NaeToRelu().invert(res.network, data))
        else:
            assert verify(res.certificate, inst).startswith("not-realizable")


@pytest.mark.parametrize("engine", ["tree", "lazy"])
def test_decide_answers_with_one_record_either_way(engine):
    """A Decision both ways: the status, the witness (a network only for yes), the certificate and the
    checker's verdict line on it; the statistics are the evidence (Decision.stats: deprecated alias)."""
    for clauses, status, claim in (([(1, 2, 3)], "realizable", "realizes"), ([(1, 1, 1)], "not-realizable", "not-realizable")):
        inst, _ = NaeToRelu().apply(NAEFormula(3, clauses))
        res = decide(inst, engine=engine)
        assert isinstance(res, Decision) and res.status == status and res.realizable == (status == "realizable")
        assert res.summary == verify(res.certificate, inst) and res.summary.startswith(claim)
        assert (res.network is not None) == res.realizable
        assert res.evidence["lps"] >= 1 and res.evidence["check_seconds"] >= 0
        with pytest.warns(DeprecationWarning, match="Decision.evidence"):
            assert res.stats is res.evidence
    with pytest.raises(InvalidInput, match="status"):
        Decision("unknown", None, {}, "")


def test_pigeonhole_and_unsatisfiable_cnf_are_certified_not_realizable():
    for f in (pigeonhole(2), CNF(2, [(1, 2), (-1, 2), (1, -2), (-1, -2)])):
        inst, _ = reduction_for(f).apply(f)
        res = decide(inst, U=[[1, 1]])
        assert res.status == "not-realizable" and res.certificate["output_weights"] == "given"
        assert verify(res.certificate, inst).startswith("not-realizable")


def test_unsatisfiable_3cnf_agrees_with_pysat():
    """The smallest unsatisfiable 3-CNF (all 8 clauses on 3 variables), confirmed by a SAT solver."""
    import pysat.solvers as pysat  # a runtime dependency
    f = CNF(3, [tuple(s * v for s, v in zip(signs, (1, 2, 3))) for signs in itertools.product((1, -1), repeat=3)])
    with pysat.Minisat22(bootstrap_with=[list(c) for c in f.clauses]) as s:
        assert not s.solve()
    inst, _ = reduction_for(f).apply(f)
    res = decide(inst, U=[[1, 1]])
    assert res.status == "not-realizable" and verify(res.certificate, inst).startswith("not-realizable")
    # dropping a clause makes it satisfiable, and realizable
    g = CNF(3, f.clauses[:7])
    inst, data = reduction_for(g).apply(g)
    res = decide(inst, U=[[1, 1]])
    assert res.status == "realizable" and g.satisfied_by(reduction_for(g).invert(res.network, data))


def test_generic_instances():
    inst = planted(d=2, k=2, m=1, n=6, seed=3, inputs="integer")
    res = decide(inst, U=inst.planted.U.to_strings())
    assert res.status == "realizable" and res.network.evaluate_exact(inst.inputs) == inst.labels
    assert decide(inst).status == "realizable"  # U unknown
    inst2 = planted(d=2, k=2, m=2, n=5, seed=1, inputs="integer")
    assert decide(inst2, U=inst2.planted.U.to_strings()).status == "realizable"
    # k = 1 cannot produce label 1 on both x and -x
    one = Instance.from_arrays([[1], [-1]], [[1], [1]])
    res = decide(one, k=1)
    assert res.status == "not-realizable" and len(res.certificate["cases"]) == 3
    zero_u = decide(one, U=[[0, 0]], engine="tree")  # no unit matters: refuted at the root
    case = zero_u.certificate["cases"][0]
    assert case["tree"] == [{"lemma": 0}] and case["lemmas"][0]["assume"] == [] and case["lemmas"][0]["tree"][0]["farkas"]


def test_sign_cases_and_errors():
    assert len(sign_cases(3)) == 10
    inst, _ = NaeToRelu().apply(NAEFormula(3, [(1, 2, 3)]))
    with pytest.raises(InvalidInput, match="m = 1"):
        decide(planted(d=2, k=2, m=2, n=4, seed=0))
    with pytest.raises(InvalidInput, match="ReLU"):
        decide(planted(d=2, k=2, m=1, n=4, seed=0, activation=Activation.power(2)))
    with pytest.raises(InvalidInput, match="rows"):
        decide(inst, U=[[1, 1], [1, 1]])
    with pytest.raises(InvalidInput, match="positive integer"):
        decide(inst, k=0)
    with pytest.raises(InvalidInput, match="Instance"):
        decide("inst")
    with pytest.raises(InvalidInput, match="engine"):
        decide(inst, engine="z3")
    with pytest.raises(SearchLimit):
        decide(inst, U=[[1, 1]], max_nodes=3, engine="tree")


# -- answers either way (the checker on case trees: tests/certificates/test_case_trees.py) ---------------


@given(st.integers(0, 10**6), st.integers(0, 3), st.booleans())
def test_planted_instances_are_realizable_and_any_answer_is_certified(seed, bump, unknown):
    """Completeness on realizable data; on perturbed labels, whatever the answer, it is certified."""
    inst = planted(d=2, k=2, m=1, n=4, seed=seed, inputs="integer")
    U = None if unknown else inst.planted.U.to_strings()
    res = decide(inst, U=U)
    assert res.status == "realizable" and res.network.evaluate_exact(inst.inputs) == inst.labels
    Y = inst.labels.to_fractions()
    Y[bump][0] += 1
    other = Instance.from_arrays(inst.inputs.to_fractions(), Y)
    res = decide(other, U=U)
    assert verify(res.certificate, other).split(":")[0] == res.certificate["claim"]
    assert res.certificate["claim"] == ("realizes" if res.status == "realizable" else "not-realizable")


def test_time_limit():
    inst, _ = NaeToRelu().apply(random_nae3(8, 17, seed=0))
    for engine in ("tree", "lazy"):
        with pytest.raises(TimeLimitExceeded, match="time limit") as info:
            decide(inst, U=[[1, 1]], time_limit=-1, engine=engine)
        assert type(info.value) is TimeLimitExceeded
