"""The exact decision procedure and the not-realizable certificate (valid and tampered)."""

import copy
import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.envelope import verify
from exactrelu.errors import CertificateInvalid, InvalidInput
from exactrelu.hardness import CNF, NAEFormula, NaeToRelu, pigeonhole, random_nae3, reduction_for
from exactrelu.decide.pattern_search import SearchLimit, decide, sign_cases
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
    # dropping a clause makes it satisfiable, and realisable
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


# -- the certificate: valid and tampered ---------------------------------------------------------

@pytest.fixture(scope="module")
def refuted():
    f = NAEFormula(2, [(1, 1, 1), (1, 2, -2)])  # (x1, x1, x1) is never NAE
    inst, _ = NaeToRelu().apply(f)
    return inst, decide(inst, engine="tree").certificate, decide(inst, U=[[1, 1]], engine="tree").certificate


def _trees(c):
    """Every tree of the first case: the lemmas' trees in order, then the main tree."""
    case = c["cases"][0]
    return [lem["tree"] for lem in case.get("lemmas", [])] + [case["tree"]]


def _first(c, key):
    """(tree, index) of the first node with ``key`` in any tree of the first case."""
    for tr in _trees(c):
        for idx, node in enumerate(tr):
            if key in node:
                return tr, idx
    raise AssertionError(f"no {key} node")


def _tamperings(cert):
    """(name, tampered certificate) pairs; every one must be rejected."""
    out = []

    def t(name, fn):
        c = copy.deepcopy(cert)
        fn(c)
        out.append((name, c))

    def leaf(c):
        tr, idx = _first(c, "farkas")
        return tr[idx]

    main = lambda c: c["cases"][0]["tree"]  # noqa: E731
    lemmas = lambda c: c["cases"][0]["lemmas"]  # noqa: E731
    t("hash", lambda c: c.update(instance_sha256="0" * 64))
    t("claim", lambda c: c.update(claim="not-realisable"))
    t("field", lambda c: c.update(extra=1))
    t("activation", lambda c: c.update(activation={"name": "power", "degree": 2}))
    t("k", lambda c: c.update(k=3))
    t("k-bool", lambda c: c.update(k=True))
    t("mode", lambda c: c.update(output_weights="maybe"))
    t("drop-case", lambda c: c["cases"].pop())
    t("case-U", lambda c: c["cases"][0].update(U=[["2", "1"]]))
    t("case-field", lambda c: c["cases"][0].update(note=1))
    t("drop-lemmas", lambda c: c["cases"][0].pop("lemmas"))
    t("drop-leaf", lambda c: main(c).pop())
    t("extra-node", lambda c: main(c).append(main(c)[-1]))
    t("empty-tree", lambda c: c["cases"][0].update(tree=[]))
    t("multiplier", lambda c: leaf(c)["farkas"][0].__setitem__(3, "12345"))
    t("zero-leaf", lambda c: leaf(c).update(farkas=[]))
    t("leaf-shape", lambda c: leaf(c).update(farkas=1))
    t("row-kind", lambda c: leaf(c)["farkas"][0].__setitem__(0, "ge"))
    t("row-range", lambda c: leaf(c)["farkas"][0].__setitem__(1, 10**6))
    t("row-rational", lambda c: leaf(c)["farkas"][0].__setitem__(3, "1/0"))
    t("sign-negative", lambda c: leaf(c)["farkas"].append(["sign", 0, 0, "-1"]))

    def split(c, value):
        tr, idx = _first(c, "split")
        tr[idx] = {"split": value}
    t("split-range", lambda c: split(c, [0, 7]))
    t("split-shape", lambda c: split(c, [0]))

    def eq_undecided(c):  # a leaf's decisions: its lemma's assumptions and the splits before it
        for lem in lemmas(c):
            if "farkas" in lem["tree"][0]:
                path = {a[0] for a in lem["assume"]}
                j = min(set(range(6)) - path)  # the fixture has 6 samples
                lem["tree"][0]["farkas"].append(["eq", j, 0, "1"])
                return
    t("eq-undecided", eq_undecided)

    def lemma_ref(c, value):
        tr, idx = _first(c, "lemma")
        tr[idx] = {"lemma": value}
    t("lemma-future", lambda c: lemma_ref(c, len(lemmas(c))))
    t("lemma-bool", lambda c: lemma_ref(c, True))
    t("lemma-self", lambda c: lemmas(c)[0].update(tree=[{"lemma": 0}]))
    first_assuming = next(t_ for t_, lem in enumerate(cert["cases"][0]["lemmas"]) if lem["assume"])

    def assume(c, fn):
        fn(lemmas(c)[first_assuming]["assume"])
    t("assume-flip", lambda c: assume(c, lambda a: a[-1].__setitem__(2, not a[-1][2])))
    t("assume-int", lambda c: assume(c, lambda a: a[-1].__setitem__(2, 1)))
    t("assume-dup", lambda c: assume(c, lambda a: a.append([a[-1][0], a[-1][1], not a[-1][2]])))
    t("assume-range", lambda c: assume(c, lambda a: a[-1].__setitem__(0, 99)))
    t("lemma-shape", lambda c: lemmas(c)[0].update(extra=1))
    return out


def test_valid_certificates_and_every_tampering_rejected(refuted, tmp_path):
    inst, unknown, given = refuted
    assert "6 output-weight case(s) (unknown)" in verify(unknown, inst)
    assert "1 output-weight case(s) (given)" in verify(given, inst)
    # through files and the checker's command line
    from exactrelu.instances import write_instance
    write_instance(inst, tmp_path / "i.json")
    (tmp_path / "c.json").write_text(json.dumps(unknown))
    assert checker.main([str(tmp_path / "c.json"), str(tmp_path / "i.json")]) == 0
    for cert in (unknown, given):
        for name, bad in _tamperings(cert):
            with pytest.raises(CertificateInvalid):
                verify(bad, inst)
                pytest.fail(f"tampering {name!r} was accepted")


def test_certificate_against_another_instance(refuted):
    inst, unknown, _ = refuted
    other, _ = NaeToRelu().apply(NAEFormula(2, [(1, 1, 1), (1, 2, 2)]))
    with pytest.raises(CertificateInvalid, match="sha256"):
        verify(unknown, other)


def test_unknown_mode_needs_one_output():
    inst = Instance.from_arrays([[1], [-1]], [[1, 1], [1, 1]])
    res = decide(inst, U=[[1, 0], [0, 1]])
    cert = dict(res.certificate, output_weights="unknown")
    with pytest.raises(CertificateInvalid, match="m = 1"):
        verify(cert, inst)


@given(st.integers(0, 10**6), st.integers(0, 3), st.booleans())
def test_planted_instances_are_realizable_and_any_answer_is_certified(seed, bump, unknown):
    """Completeness on realisable data; on perturbed labels, whatever the answer, it is certified."""
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
    with pytest.raises(SearchLimit, match="time limit"):
        decide(inst, U=[[1, 1]], time_limit=-1)
