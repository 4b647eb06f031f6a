"""Work bounded by the file's size (issue 26 items 2, 4, 5): each hostile certificate of the issue is refused by
a limit (exit 2) or rejected as false (exit 1) with one line, in-process, under a watchdog (the cases took from
47 s to over 900 s before; a test fails instead of hanging, and no assertion depends on the time itself)."""

from __future__ import annotations

import contextlib
import json
import signal

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.trusted import common, lrat
from exactrelu.cli import main
from exactrelu.testing import hostile


@contextlib.contextmanager
def watchdog(seconds: int = 60):
    def fire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: the work is not bounded")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("build", hostile.BUILDERS, ids=[b.__name__ for b in hostile.BUILDERS])
def test_each_hostile_certificate_is_refused_or_rejected_in_one_line(tmp_path, capsys, build):
    case = build(tmp_path)
    with watchdog():
        code = checker.main(case.args)
    out, err = capsys.readouterr()
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert code == case.expect, lines
    assert len(lines) == 1 and len(lines[0]) < 600 and "Traceback" not in lines[0]
    if case.expect == 2:
        assert "over the checker's limit" in lines[0]


def test_the_limits_name_what_they_bound(tmp_path, capsys):
    for build, limit in [(hostile.residual_power, "intermediate"), (hostile.distinct_denominators, "intermediate"),
                         (hostile.given_u_large_k, "units"), (hostile.lrat_long_clause, "propagations")]:
        assert checker.main(build(tmp_path).args) == 2
        assert f"limit {limit}=" in capsys.readouterr().err


def test_raised_limits_let_the_same_files_through(tmp_path, monkeypatch, capsys):
    """The refusals come from the limits, not from the claims: raised, the checker decides the files."""
    monkeypatch.setitem(common._limits, "units", 200_000)
    case = hostile.given_u_large_k(tmp_path, k=20_000)
    with watchdog():
        assert checker.main(case.args) == 0  # true: with U = 0 no network reproduces the label 1
    monkeypatch.setitem(common._limits, "propagations", 10**9)
    case = hostile.lrat_long_clause(tmp_path, hints=3)
    with watchdog():
        assert checker.main(case.args) == 1  # replayed: the hint is not unit, a false step
    out = capsys.readouterr().out
    assert "VALID: not-realizable" in out and "INVALID" in out


def test_the_propagation_cost_counts_every_hint_from_the_hints_alone():
    clauses = [[1, 2, 3], [-1], [-2]]
    steps = [[3, 0, 2, 1], ["d", 2], [0, 3, 4, 4, "x", 99]]
    assert lrat._propagation_cost(clauses, steps) == (1 + 1 + 3) + (0 + 1 + 1 + 1)
    assert lrat._propagation_cost(clauses, [[1, 2]]) == 0  # no separator: the replay refuses it


def test_a_sparse_given_u_costs_its_support_not_k(tmp_path, monkeypatch):
    """k = 20,000 (limit raised) with one non-zero column: the Farkas rows loop over the support only."""
    from exactrelu.certificates.trusted.refutation import support

    assert support([[0, 2, 0, -1]]) == [[(1, 2), (3, -1)]]
    monkeypatch.setitem(common._limits, "units", 10**6)
    k = 20_000
    inst, sha = hostile._instance(tmp_path, "i.json", [["0"], ["1"]], [["1"], ["2"]])
    U = [["0"] * k]
    U[0][7] = "1"
    rows = [["eq", 0, 0, "-1"]] * 5000
    tree = [{"split": [0, 7]}, {"farkas": rows}, {"farkas": rows}]
    cert = hostile._cert("not-realizable", sha, activation={"name": "relu"}, k=k, output_weights="given",
                         cases=[{"U": U, "tree": tree}])
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert))
    with watchdog():
        assert "not-realizable" in checker.check_files(str(path), inst)


def test_library_refuses_the_powers_before_computing_them(tmp_path, capsys):
    """certify --as-given with power:100 weights "1e4299": an OverflowError after 18 s and 856 MB before."""
    case = hostile.residual_power(tmp_path)
    cert = json.loads(open(case.args[0]).read())
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"format": "exactrelu.weights", "version": 1, "activation": cert["activation"],
                                   "U": cert["U"], "V": cert["V"]}))
    with watchdog():
        code = main(["certify", case.args[1], "--weights", str(weights), "--as-given", "-o", str(tmp_path / "o.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "limit intermediate=" in err[0]


def test_check_json_of_a_huge_mismatch_is_one_bounded_record(tmp_path, capsys):
    case = hostile.residual_huge_mismatch(tmp_path)
    with watchdog():
        code = main(["check", *case.args, "--json"])
    out = capsys.readouterr().out
    record = json.loads(out)
    assert code == 1 and len(out) < 2000 and "exact value not shown" in json.dumps(record)


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_certify_as_given_with_a_12000_digit_error_is_one_bounded_line(tmp_path, capsys, as_json):
    """Within the limits but with an error of ~12,000 digits: every number goes through the bounded display
    (str() of it raised ValueError, float() OverflowError: tracebacks)."""
    case = hostile.residual_huge_mismatch(tmp_path)
    cert = json.loads(open(case.args[0]).read())
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"format": "exactrelu.weights", "version": 1, "activation": cert["activation"],
                                   "U": cert["U"], "V": cert["V"]}))
    argv = ["certify", case.args[1], "--weights", str(weights), "--as-given", "-o", str(tmp_path / "o.json")]
    with watchdog():
        code = main(argv + (["--json"] if as_json else []))
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err and len(out + err) < 3000
    text = json.loads(out)["message"] if as_json else err
    assert "exact value not shown" in text or "~" in text


def test_the_json_record_of_a_huge_rational_is_bounded():
    from fractions import Fraction

    from exactrelu.commands._report import jsonable

    assert jsonable(Fraction(-3, 4)) == "-3/4"
    assert jsonable(Fraction(10**5000 + 1, 3)).startswith("~3.33333e+4999 (a number of")


def test_the_json_record_of_a_dataclass_is_its_fields():
    """A dataclass instance becomes its fields (read without importing dataclasses first); its class, a string."""
    import dataclasses

    from exactrelu.commands._report import jsonable

    @dataclasses.dataclass
    class Point:
        x: int
        y: list

    assert jsonable(Point(1, [2])) == {"x": 1, "y": [2]}
    assert isinstance(jsonable(Point), str) and jsonable({1, 3, 2}) == [1, 2, 3]
