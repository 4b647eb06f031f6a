"""Every verdict of the command line names its class and extent (issue 23, items 1-3), built from the issue's
reproductions: ``solve`` on 40 grid samples of 2 biased units, ``solve --bias``, ``hardness decide``, ``recover``
refusals, and ``check`` (text and ``--json``) on every claim kind of the corpus."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from exactrelu.cli import main
from exactrelu.instances import Instance, write_instance

GRID = [(x, y) for x in range(-4, 4) for y in range(-2, 3)]
CORPUS = Path(__file__).resolve().parents[1] / "corpus"
NO_LINE = ("no 2-unit ReLU network without hidden biases and without output bias reproduces the labels "
           "(40 samples, any output weights)")


def _relu(t):
    return max(t, 0)


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def grid(tmp_path):
    """The issue's reproduction: 40 grid samples labeled by 2 units with hidden biases."""
    path = tmp_path / "data.json"
    write_instance(Instance.from_arrays(GRID, [[_relu(x + y - 1) + 2 * _relu(-x + 2 * y + 1)] for x, y in GRID]), path)
    return path


def test_solve_names_the_class_and_diagnoses_biases(capsys, tmp_path, grid):
    cert = tmp_path / "no.json"
    code, out, _ = run(capsys, "solve", grid, "-k", 2, "-o", cert)
    assert code == 1
    assert f"NOT REALIZABLE (certified): not-realizable: {NO_LINE}" in out
    assert ("Diagnosis: a 2-unit ReLU network with hidden biases and without output bias reproduces the labels "
            "exactly") in out
    assert "exactrelu solve --bias hidden" in out
    assert json.loads(cert.read_text())["model"] == {"biases": False, "output_bias": False}
    code, out, _ = run(capsys, "check", cert, grid)
    assert code == 0 and out.startswith(f"VALID: not-realizable: {NO_LINE}") and "no model field" not in out
    code, out, _ = run(capsys, "solve", grid, "-k", 2, "-o", cert, "--json")
    record = json.loads(out)
    assert code == 1 and record["model"] == {"biases": False, "output_bias": False}
    assert record["summary"].startswith(f"not-realizable: {NO_LINE}") and "hidden biases" in record["diagnosis"]


def test_solve_bias_certifies_the_reproduction(capsys, tmp_path, grid):
    cert = tmp_path / "yes.json"
    code, out, _ = run(capsys, "solve", grid, "-k", 2, "--bias", "-o", cert)
    assert code == 0 and "hidden biases)" in out
    assert json.loads(cert.read_text())["b"]
    code, out, _ = run(capsys, "check", cert, grid)  # about the instance given
    assert code == 0 and out.startswith("VALID: realizes: 40 samples x 1 outputs equal exactly")


def test_solve_bias_refutation_writes_the_instance_it_is_about(capsys, tmp_path):
    data = tmp_path / "three.json"
    labels = [[_relu(x + y - 1) + 2 * _relu(-x + 2 * y + 1) - _relu(x - 2)] for x, y in GRID]
    write_instance(Instance.from_arrays(GRID, labels), data)
    cert = tmp_path / "no.json"
    code, out, _ = run(capsys, "solve", data, "-k", 1, "--bias", "hidden", "-o", cert, "--json")
    record = json.loads(out)
    assert code == 1 and record["model"] == {"biases": True, "output_bias": False}
    about = Path(record["instance"])
    assert about == tmp_path / "no.instance.json" and about.exists() and record["diagnosis"] is None
    code, out, _ = run(capsys, "check", cert, about)
    assert code == 0 and "no 1-unit ReLU network with hidden biases and without output bias reproduces the labels " \
                         "(40 samples, any output weights)" in out
    code, out, _ = run(capsys, "check", cert, data)  # the original inputs are another instance
    assert code == 1 and "INVALID" in out
    code, out, _ = run(capsys, "solve", data, "-k", 1, "--bias", "hidden", "-o", cert)
    assert "constant 1 column appended, written to" in out and f"exactrelu check {cert} {about}" in out


def test_hardness_decide_prints_the_checked_class(capsys, tmp_path, grid):
    cert = tmp_path / "d.json"
    code, out, _ = run(capsys, "hardness", "decide", grid, "-k", 2, "-o", cert)
    assert code == 0 and f"checked: not-realizable: {NO_LINE}" in out
    code, out, _ = run(capsys, "hardness", "decide", grid, "-k", 2, "-o", cert, "--json")
    record = json.loads(out)
    assert record["model"] == {"biases": False, "output_bias": False} and record["summary"].startswith("not-realizable")


def test_recover_rank_refusal_states_its_class(capsys, tmp_path):
    data = tmp_path / "rank.json"
    write_instance(Instance.from_arrays([[1, 0], [0, 1], [1, 1], [2, 1]],
                                        [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]]), data)
    code, out, _ = run(capsys, "recover", data, "-k", 2, "-o", tmp_path / "c.json", "--json")
    record = json.loads(out)
    assert code == 1 and record["model"] == {"biases": True, "output_bias": False}
    assert "no 2-unit ReLU network with hidden biases and without output bias" in record["checked"]
    code, out, _ = run(capsys, "recover", data, "-k", 1, "-o", tmp_path / "c.json")
    assert code == 1 and "no 1-unit ReLU network with hidden biases and with output bias" in out


#: what each claim kind's VALID line must state: the class (or the networks) and the extent
SCOPE = {
    "realizes": r"realizes: \d+ samples x \d+ outputs equal exactly \((k=\d+, d=\d+|layers [\d-]+), "
                r"activation degree \d+",
    "realizes-except": r"realizes-except: all [\d,]+ entries \([\d,]+ samples x \d+ outputs\) except [\d,]+ \([\d.]+%",
    "residual": r"residual: \d+ samples x \d+ outputs, squared error .* \((k=\d+, d=\d+|layers [\d-]+), "
                r"activation degree \d+",
    "lp-feasible": r"lp-feasible: \d+ equations, \d+ inequalities in \d+ variables",
    "lp-infeasible": r"lp-infeasible: \d+ equations, \d+ inequalities in \d+ variables",
    "not-realizable": r"not-realizable: no \d+-unit ReLU network (with|without) hidden biases and (with|without) "
                      r"output bias reproduces the labels \([\d,]+ samples, (any|the given) output weights\)",
    "equivalent": r"(epsilon-|top1-)?equivalent: the two networks \((k = \d+ and \d+ units, d = \d+, m = \d+, "
                  r"[a-z0-9 ]+|widths [\d-]+ and [\d-]+, relu)\) are (the same function|within [\d/]+ of each other "
                  r"\(max over the outputs\)|top-1 equal \(ties: the sets of largest outputs meet\)) on (all of R\^d|"
                  r"the box of \d+ intervals)",
    "not-equivalent": r"not-(epsilon-|top1-)?equivalent: the two networks \((k = \d+ and \d+ units, d = \d+, "
                      r"m = \d+, [a-z0-9 ]+|widths [\d-]+ and [\d-]+)\) (differ|have no largest output in common)",
    "transcript": r"transcript: [\d,]+ answers at the queries \([\d,]+ lines?, [\d,]+ axis batch(es)?, [\d,]+ point "
                  r"blocks?; d = \d+, m = \d+\)(; the network \(k = \d+\) gives every one exactly)?(; every ReLU network "
                  r"U relu\(V x \+ b\) \+ c giving them has at least [\d,]+ units?)?",
}


def _valid_corpus():
    rows = json.loads((CORPUS / "MANIFEST.json").read_text())
    return [r for r in rows if r["exit"] == 0]


def test_check_names_class_and_extent_for_every_claim_kind(capsys):
    seen = set()
    for row in _valid_corpus():
        cert = CORPUS / row["certificate"]
        claim = json.loads(cert.read_text())["claim"]
        args = ["check", cert] + ([CORPUS / row["instance"]] if row["instance"] else [])
        code, out, _ = run(capsys, *args)
        assert code == 0 and re.match("VALID: " + SCOPE[claim], out), (row["certificate"], out)
        code, out, _ = run(capsys, *args, "--json")
        record = json.loads(out)
        assert record["claim"] == claim and re.match(SCOPE[claim], record["summary"])
        if claim == "not-realizable":
            stated = json.loads(cert.read_text()).get("model")
            assert record["model"] == stated
            assert ("no model field" in record["summary"]) == (stated is None)
        if claim == "realizes-except":
            assert record["excepted"] == len(json.loads(cert.read_text())["except"])
        seen.add(claim)
    assert seen == set(SCOPE)
