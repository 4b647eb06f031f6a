"""The worst-case solver: non-Gaussian inputs, unrealizable labels, evidence, CLI."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.envelope import verify
from exactrelu.cli import main
from exactrelu.errors import AssumptionViolated, InvalidInput, NotRealizable
from exactrelu.exact.matrix import QMatrix
from exactrelu.instances import Instance, planted, write_instance
from exactrelu.network import Activation, Network
import re

from exactrelu.decide import Decision, WorstCaseResult, solve, solve_decision

LINE = [[t, 1] for t in (-2, -1, 0, 1, 2, 3)]


def _instance(X, U, V):
    net = Network.from_rows(U, V)
    Xq = QMatrix.from_rows(X)
    return Instance(Xq, net.evaluate_exact(Xq), None, net)


def _assert_sound(inst, k):
    """Any answer is exact: a network verified by the checker, or a specific refusal."""
    try:
        res = solve_decision(inst, k)
    except AssumptionViolated as exc:
        assert exc.evidence["rank"] < k
        return "undecided"
    assert res.summary == verify(res.certificate, inst)
    if not res.realizable:
        for p in res.evidence.get("patterns", []):
            for c in p.certificates:
                checker.check(c, None)
        return "not-realizable"
    assert verify(res.certificate, inst).startswith("realizes")
    assert res.network.evaluate_exact(inst.inputs) == inst.labels
    return "realizes"


def test_planted_gaussian_is_recovered_up_to_symmetry():
    inst = planted(d=3, k=2, m=2, n=50, seed=0)
    res = solve_decision(inst, 2)  # the cheap exact route first
    assert res.network.equivalent(inst.planted)
    assert [(p.kind, p.outcome) for p in res.evidence["patterns"]] == [("row-span-recovery", "certified")]
    assert res.evidence["route"] == "row-span-recovery"
    res = solve_decision(inst, 2, try_recovery=False)  # the enumeration alone
    assert res.network.equivalent(inst.planted)
    assert [p.outcome for p in res.evidence["patterns"]] == ["unit", "unit"]
    assert res.evidence["route"] == "enumeration"


def test_large_k_takes_the_cheap_exact_route():
    """k = 8: the cone has thousands of extreme rays at n = 200; row-span recovery certifies at once."""
    inst = planted(d=10, k=8, m=8, n=600, seed=3)
    res = solve_decision(inst, 8)
    assert res.network.equivalent(inst.planted)
    assert res.evidence["patterns"][0].kind == "row-span-recovery" and res.summary.startswith("realizes")


@pytest.mark.parametrize("kind", ["integer-grid", "few-lines", "duplicated", "on-kinks"])
def test_non_gaussian_inputs(kind):
    rng = np.random.default_rng(7)
    V = [[1, -1, 0], [0, 1, 1], [1, 1, -2]]
    U = [[1, 0, 2], [0, 1, -1], [1, 1, 1]]
    if kind == "integer-grid":
        X = [[a, b, c] for a in (-1, 0, 1, 2) for b in (-1, 0, 1) for c in (0, 1)]
    elif kind == "few-lines":
        dirs = [(1, 2, 0), (0, 1, -1), (2, -1, 1)]
        X = [[t * q for q in dirs[i % 3]] for i, t in enumerate(range(-9, 10)) if t]
    elif kind == "duplicated":
        base = rng.integers(-4, 5, (12, 3)).tolist()
        X = base + base[:6] + base[:3]
    else:  # many samples exactly on the units' kinks (V_i . x = 0)
        X = [[1, 1, 7], [2, 2, -3], [0, 1, -1], [0, 3, -3], [2, 0, 1], [4, 2, 3]] + rng.integers(-3, 4, (14, 3)).tolist()
    inst = _instance(X, U, V)
    assert _assert_sound(inst, 3) in ("realizes", "undecided")


@settings(max_examples=12)
@given(st.integers(0, 2**32))
def test_random_labels_never_get_a_false_network(seed):
    """Labels of rank k with no structure: mostly unrealizable; whatever is returned must verify."""
    rng = np.random.default_rng(seed)
    n, d, k = 9, 2, 2
    X = rng.integers(-3, 4, (n, d)).tolist()
    Y = (rng.integers(-2, 3, (n, k)) @ rng.integers(-2, 3, (k, k))).tolist()
    inst = Instance(QMatrix.from_rows(X), QMatrix.from_rows(Y))
    outcome = _assert_sound(inst, k)
    assert outcome in ("realizes", "not-realizable", "undecided")


@settings(max_examples=8)
@given(st.integers(0, 2**32))
def test_realizable_integer_instances_are_always_solved(seed):
    """rank(labels) = k for a planted network: the solver must find a (verified) network."""
    rng = np.random.default_rng(seed)
    inst = planted(d=3, k=2, m=2, n=25, seed=rng, inputs="integer")
    from exactrelu.exact.linalg import exact_rank

    if exact_rank(inst.labels.num) == 2:
        assert _assert_sound(inst, 2) == "realizes"


def test_face_search_finds_a_unit_that_is_not_an_extreme_ray():
    # units relu(t) and relu(t - 1): relu(t) = ramp + relu(t - 1) is not extreme; the ramp is not realizable
    inst = Instance.from_arrays(LINE, [[0, 0], [0, 0], [0, 0], [1, 0], [2, 1], [3, 2]])
    res = solve_decision(inst, 2, try_recovery=False)
    kinds = [(p.kind, p.outcome) for p in res.evidence["patterns"]]
    assert kinds == [("extreme-ray", "refuted"), ("extreme-ray", "unit"), ("face", "unit")]
    for p in res.evidence["patterns"]:
        for c in p.certificates:
            checker.check(c, None)


def test_unrealizable_labels_give_checkable_evidence():
    inst = Instance.from_arrays(LINE, [[0, 1], [0, 0], [0, 0], [1, 0], [2, 0], [3, 1]])
    res = solve_decision(inst, 2)
    assert res.status == "not-realizable" and res.network is None
    ev = res.evidence
    assert re.search("no 2-unit ReLU network", ev["reason"])
    assert ev["rank"] == 2 and ev["span"] < 2
    refuted = [p for p in ev["patterns"] if p.outcome == "refuted"]
    assert refuted
    for p in ev["patterns"]:
        claims = {checker.check(c, None).split(":")[0] for c in p.certificates}
        if p.outcome == "refuted":
            assert claims == {"lp-infeasible"}


def test_rank_above_k_is_refuted_at_once():
    inst = planted(d=3, k=3, m=3, n=30, seed=1)
    res = solve_decision(inst, 2)
    assert res.status == "not-realizable" and re.search("rank\\(labels\\) = 3 > k = 2", res.evidence["reason"])
    assert res.evidence["route"] == "rank" and res.evidence["patterns"] == []
    assert "rank(labels) >= 3 > k = 2" in verify(res.certificate, inst)


def test_rank_below_k():
    # one output relu(t): rank 1 < k = 2, found in the row span and padded with a zero unit
    inst = Instance.from_arrays(LINE, [[0], [0], [0], [1], [2], [3]])
    res = solve_decision(inst, 2)
    assert res.network.k == 2 and res.evidence["rank"] == 1
    # rank 1 but not one unit, one output: the lazy engine decides, with a certificate either way
    inst = Instance.from_arrays(LINE, [[1], [0], [0], [0], [0], [1]])  # relu(-t - 1) + relu(t - 2)
    res = solve_decision(inst, 2)
    assert res.evidence["patterns"][-1].kind == "decide" and verify(res.certificate, inst).startswith("realizes")
    assert res.evidence["route"] == "decide" and res.evidence["search"]["lps"] >= 1
    inst = Instance.from_arrays(LINE, [[1], [0], [1], [0], [1], [0]])
    res = solve_decision(inst, 2)
    assert res.status == "not-realizable" and "lazy engine" in res.evidence["reason"]
    assert verify(res.certificate, inst).startswith("not-realizable")
    # several outputs, rank below k: undecided (NP-hard regime), never a claim, nothing certified
    inst = Instance.from_arrays(LINE, [[1, 1], [0, 0], [0, 0], [0, 0], [0, 0], [1, 1]])
    with pytest.raises(AssumptionViolated, match="nothing is decided"):
        solve_decision(inst, 3)


def test_zero_labels_and_invalid_arguments():
    res = solve_decision(Instance.from_arrays(LINE, [[0]] * 6), 2)
    assert res.network.U.num.is_zero()
    inst = planted(d=2, k=1, m=1, n=10, seed=0)
    for bad in (0, -1, True, 1.5):
        with pytest.raises(InvalidInput, match="positive integer"):
            solve_decision(inst, bad)
        with pytest.raises(InvalidInput, match="positive integer"):
            solve(inst, bad)
    inst.activation = Activation.power(2)
    with pytest.raises(AssumptionViolated, match="ReLU only"):
        solve_decision(inst, 1)


@pytest.mark.parametrize("labels, k", [([[0, 0], [0, 0], [0, 0], [1, 0], [2, 1], [3, 2]], 2),  # realizable
                                       ([[0, 1], [0, 0], [0, 0], [1, 0], [2, 0], [3, 1]], 2),  # span refutation
                                       ([[1], [0], [1], [0], [1], [0]], 2),  # one output: the lazy engine
                                       ([[1, 0], [0, 1], [1, 1], [2, 0], [0, 0], [1, 2]], 1)])  # rank > k
def test_solve_is_the_raising_form_of_solve_decision(labels, k):
    """The deprecated solve() computes the same answer: a WorstCaseResult for yes, NotRealizable for no,
    with the message, evidence and certificate of 0.1."""
    inst = Instance.from_arrays(LINE, labels)
    res = solve_decision(inst, k, try_recovery=False)
    assert isinstance(res, Decision) and res.summary == verify(res.certificate, inst)
    if res.realizable:
        old = solve(inst, k, try_recovery=False)
        assert isinstance(old, WorstCaseResult)
        assert (old.certificate, old.summary) == (res.certificate, res.summary)
        assert (old.network.U, old.network.V) == (res.network.U, res.network.V)
        assert (old.rank, old.patterns) == (res.evidence["rank"], res.evidence["patterns"])
        return
    with pytest.raises(NotRealizable) as info:
        solve(inst, k, try_recovery=False)
    exc = info.value
    assert str(exc) == f"{res.evidence['reason']}; certified: {res.summary}"
    assert exc.certificate == res.certificate and exc.evidence["certificate"] == res.summary
    assert set(exc.evidence) == set(res.evidence) - {"reason", "route", "search"} | {"certificate"}


# -- CLI -------------------------------------------------------------------------------------------

def test_cli_patterns_and_solve(tmp_path, capsys):
    inst = planted(d=3, k=2, m=2, n=30, seed=2)
    path = write_instance(inst, tmp_path / "i.json")
    assert main(["patterns", str(path)]) == 0
    out = capsys.readouterr().out  # samples where no unit is active make zero label columns
    assert out.startswith("sign patterns: 0 < Cover's bound") and "coordinates vanish" in out
    assert main(["patterns", str(path), "--nonnegative", "--list"]) == 0
    out = capsys.readouterr().out
    assert "2 extreme rays" in out and out.startswith("-\n")
    basis = tmp_path / "b.json"
    basis.write_text(json.dumps({"basis": [[1, 0, 1, 2], [0, 1, 1, -1]]}))
    assert main(["patterns", "--basis", str(basis), "--list", "--progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 9 and lines[-1].startswith("sign patterns: 8 = ")
    cert = tmp_path / "c.json"
    assert main(["solve", str(path), "-k", "2", "-o", str(cert)]) == 0
    assert "VALID: realizes" in capsys.readouterr().out
    assert checker.main([str(cert), str(path)]) == 0
    assert main(["solve", str(path), "-k", "2", "-o", str(cert), "--enumerate-only"]) == 0
    assert "VALID: realizes" in capsys.readouterr().out


def test_cli_unrealizable_writes_evidence(tmp_path, capsys):
    path = write_instance(Instance.from_arrays(LINE, [[0, 1], [0, 0], [0, 0], [1, 0], [2, 0], [3, 1]]), tmp_path / "u.json")
    ev = tmp_path / "ev.json"
    assert main(["solve", str(path), "-k", "2", "--evidence", str(ev)]) == 1
    assert "NOT REALIZABLE (certified)" in capsys.readouterr().out
    # the "no" is a not-realizable certificate that exactrelu check verifies (issue 15, finding 6)
    cert = tmp_path / "u.json.worstcase.cert.json"
    assert main(["check", str(cert), str(path)]) == 0
    assert "VALID: not-realizable" in capsys.readouterr().out
    obj = json.loads(ev.read_text())
    assert obj["claim"] == "not-realizable" and obj["rank"] == 2
    for p in obj["patterns"]:
        for c in p["certificates"]:
            checker.check(c, None)


@pytest.mark.parametrize("argv, message", [
    (["patterns"], "exactly one of"),
    (["patterns", "--basis", "missing.json"], "no such basis file"),
    (["patterns", "--basis", "BAD"], "expected a list of rows"),
])
def test_cli_bad_input(tmp_path, capsys, argv, message):
    if "BAD" in argv:
        bad = tmp_path / "bad.json"
        bad.write_text('{"rows": 1}')
        argv = [a if a != "BAD" else str(bad) for a in argv]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_cli_progress_ends_its_line_before_the_result(tmp_path, capsys, monkeypatch):
    """Without tqdm the progress display is lines on stderr, finished before the result is printed."""
    import sys

    monkeypatch.setitem(sys.modules, "tqdm", None)  # `from tqdm import tqdm` raises ImportError
    path = write_instance(planted(d=3, k=2, m=2, n=30, seed=2), tmp_path / "i.json")
    assert main(["solve", str(path), "-k", "2", "-o", str(tmp_path / "c.json"), "--enumerate-only",
                 "--progress"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("VALID: realizes")
    assert "extreme rays: 2/2" in out.err and out.err.endswith("\n") and "\r" not in out.err
