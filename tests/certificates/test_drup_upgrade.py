"""DRUP retired from the trusted base (issue 26, item 1; issue 20, item 10): the checker refuses a case that
carries ``"rup"`` with one line naming the conversion, and ``exactrelu check --upgrade`` (untrusted: the
backward trimmer finds the hints) turns an honest DRUP case into a hinted case the checker accepts, and a
forged or tampered one into nothing the checker accepts."""

from __future__ import annotations

import copy
import itertools
import json

import pysat.solvers as pysat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.envelope import verify
from exactrelu.certificates.trusted.lrat import check_hinted
from exactrelu.certificates.trusted.refutation import case_clauses, read_claim
from exactrelu.cli import main
from exactrelu.decide.search.pattern_search import decide
from exactrelu.decide.search.sat.upgrade import lrat_from_drup, upgrade_certificate
from exactrelu.errors import CertificateInvalid, InvalidInput
from exactrelu.hardness import NAEFormula, NaeToRelu
from exactrelu.instances import write_instance
from exactrelu.instances.checker_view import checker_instance


def _drup(clauses):
    """The solver's whole DRUP proof of unsatisfiable clauses, in the certificate's old format."""
    with pysat.Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
        assert not s.solve()
        lines = s.get_proof()
    out = [(["d", *map(int, ln.split()[1:-1])] if ln.startswith("d") else list(map(int, ln.split()[:-1]))) for ln in lines]
    return out if out and out[-1] == [] else out + [[]]


def old_drup_certificate(cert, inst):
    """``cert`` as the checker before issue 26 accepted it: every hinted case with the solver's DRUP proof instead."""
    X, Y, d, k, _, _, Us = read_claim(cert, checker_instance(inst))
    old = copy.deepcopy(cert)
    for case, U in zip(old["cases"], Us):
        if "lrat" in case:
            clauses, _ = case_clauses(case, U, X, Y, k, d)
            case["rup"] = _drup(clauses)
            del case["lrat"]
    return old


@pytest.fixture(scope="module")
def drup_cert():
    f = NAEFormula(3, [(1, 2, 3), (1, 2, -3), (1, -2, 3), (-1, 2, 3), (1, -2, -3), (-1, 2, -3), (-1, -2, 3), (-1, -2, -3)])
    inst, _ = NaeToRelu().apply(f)
    unknown, given_ = decide(inst).certificate, decide(inst, U=[[1, 1]]).certificate
    return inst, old_drup_certificate(unknown, inst), old_drup_certificate(given_, inst)


def test_drup_cases_are_refused_with_the_command_that_converts_them(drup_cert, tmp_path, capsys):
    inst, unknown, given_ = drup_cert
    for cert in (unknown, given_):
        with pytest.raises(CertificateInvalid, match=r"DRUP proof \('rup'\).*exactrelu check --upgrade"):
            verify(cert, inst)
    c, i = tmp_path / "old.json", tmp_path / "inst.json"
    c.write_text(json.dumps(given_))
    write_instance(inst, i)
    assert checker.main([str(c), str(i)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID: case 0 carries a DRUP proof") and out.count("\n") == 1


def test_upgraded_certificates_check(drup_cert, tmp_path, capsys):
    inst, unknown, given_ = drup_cert
    for cert in (unknown, given_):
        new = upgrade_certificate(cert, checker_instance(inst))
        assert all("lrat" in c and "rup" not in c for c in new["cases"])
        assert "hinted steps checked" in verify(new, inst)
    c, i, new = tmp_path / "old.json", tmp_path / "inst.json", tmp_path / "new.json"
    c.write_text(json.dumps(unknown))
    write_instance(inst, i)
    assert main(["check", "--upgrade", str(new), str(c), str(i)]) == 0
    assert capsys.readouterr().out.startswith("VALID: not-realizable")
    assert checker.main([str(new), str(i)]) == 0
    with pytest.raises(InvalidInput, match="only a not-realizable certificate with DRUP cases"):
        upgrade_certificate(json.loads(new.read_text()), checker_instance(inst))
    assert main(["check", "--upgrade", str(tmp_path / "x.json"), str(new), str(i)]) == 2  # nothing to upgrade
    assert main(["check", "--upgrade", str(tmp_path / "x.json"), str(c)]) == 2  # no instance
    assert not (tmp_path / "x.json").exists()


def _drup_tamperings(cert):
    out = []

    def t(name, fn):
        c = copy.deepcopy(cert)
        fn(c)
        out.append((name, c))

    case = lambda c: next(x for x in c["cases"] if len(x["rup"]) > 1)  # noqa: E731
    t("rup-and-tree", lambda c: case(c).update(tree=[]))
    t("rup-and-lrat", lambda c: case(c).update(lrat=[[0, 1]]))
    t("rup-only-empty", lambda c: case(c).update(rup=[[]]))
    t("rup-not-list", lambda c: case(c).update(rup="0"))
    t("rup-lit-range", lambda c: case(c)["rup"].insert(0, [10**6]))
    t("rup-lit-bool", lambda c: case(c)["rup"].insert(0, [True]))
    t("drop-lemmas", lambda c: case(c).update(lemmas=case(c)["lemmas"][:1]))
    t("lemma-flip", lambda c: case(c)["lemmas"][-1]["assume"][0].__setitem__(2, not case(c)["lemmas"][-1]["assume"][0][2]))
    t("lemma-multiplier", lambda c: case(c)["lemmas"][-1]["tree"][0]["farkas"][0].__setitem__(3, "99"))
    t("symmetry-shape", lambda c: case(c).update(symmetry={"sample": 0}))
    t("symmetry-class", lambda c: case(c).update(symmetry={"sample": 0, "classes": [[0, 0]]}))
    t("symmetry-range", lambda c: case(c).update(symmetry={"sample": 10**6, "classes": [[0, 1]]}))
    if any(x["U"] == [["1", "-1"]] for x in cert["cases"]):  # the unit swap claimed for U = (1, -1): unsound
        t("symmetry-unequal", lambda c: next(x for x in c["cases"] if x["U"] == [["1", "-1"]]).update(
            symmetry={"sample": 0, "classes": [[0, 1]]}))
    return out


def test_tampered_drup_certificates_never_become_valid(drup_cert):
    """Each tampering is refused by the upgrade (a lemma or the DRUP proof does not hold) or its result by the checker."""
    inst, unknown, given_ = drup_cert
    for cert in (unknown, given_):
        for name, bad in _drup_tamperings(cert):
            with pytest.raises((CertificateInvalid, InvalidInput)):
                verify(upgrade_certificate(bad, checker_instance(inst)), inst)
                pytest.fail(f"tampering {name!r} was accepted")


cnfs = st.integers(2, 5).flatmap(lambda nv: st.tuples(
    st.just(nv), st.lists(st.lists(st.integers(1, nv).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1, max_size=3),
                          min_size=1, max_size=24)))


def _satisfiable(clauses, nv):
    return any(all(any((lit > 0) == a[abs(lit) - 1] for lit in c) for c in clauses)
               for a in itertools.product((False, True), repeat=nv))


@given(cnfs, st.lists(st.lists(st.integers(-5, 5).filter(bool), max_size=3), max_size=6))
@settings(deadline=None)
def test_drup_to_hints_is_complete_on_solver_proofs_and_sound_on_any_proof(cnf, junk):
    """Unsatisfiable (by brute force): the solver's proof becomes hints that check. Satisfiable: whatever the
    DRUP steps, the upgrade refuses them (and would the trimmer err, the hinted check still refuses)."""
    nv, clauses = cnf
    if _satisfiable(clauses, nv):
        junk = [[x for x in c if abs(x) <= nv] for c in junk]
        for proof in (junk + [[]], [[]], junk):
            with pytest.raises(CertificateInvalid, match="does not refute"):
                lrat_from_drup(clauses, proof, nv)
    else:
        assert check_hinted(clauses, lrat_from_drup(clauses, _drup(clauses), nv), nv) >= 1


@st.composite
def _heavy_hinted_proofs(draw):
    """A satisfiable formula and a hinted proof made of what the DRUP mutants fed on: tautologies, supersets
    of input clauses, repeated literals and units, with hints drawn from every clause number so far."""
    nv = draw(st.integers(2, 6))
    lit = st.integers(1, nv).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses = draw(st.lists(st.lists(lit, min_size=1, max_size=3), min_size=1, max_size=12))
    steps, size = [], len(clauses)
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["tautology", "superset", "unit", "repeat", "delete"]))
        if kind == "delete":
            steps.append(["d", draw(st.integers(1, size))])
            continue
        if kind == "tautology":
            v = draw(st.integers(1, nv))
            body = [v, -v] + draw(st.lists(lit, max_size=2))
        elif kind == "superset":
            body = list(draw(st.sampled_from(clauses))) + draw(st.lists(lit, max_size=2))
        elif kind == "unit":
            body = [draw(lit)]
        else:
            x = draw(lit)
            body = [x, x, draw(lit)]
        hints = draw(st.lists(st.integers(1, size), min_size=1, max_size=6))
        steps.append([*body, 0, *hints])
        size += 1
    steps.append([0, *draw(st.lists(st.integers(1, size), min_size=1, max_size=8))])
    return nv, clauses, steps


@given(_heavy_hinted_proofs())
@settings(max_examples=400, deadline=None)
def test_no_tautology_or_superset_heavy_hinted_proof_refutes_a_satisfiable_formula(case):
    """The soundness theorem of the hinted check, fuzzed where the DRUP replay's mutants hid (issue 26)."""
    nv, clauses, steps = case
    if _satisfiable(clauses, nv):
        with pytest.raises(checker.CheckFailed):
            check_hinted(clauses, steps, nv)
