"""exactrelu equiv --lower/--upper, --vnnlib, --epsilon: exit codes, the witness as floats, one-line refusals."""

from __future__ import annotations

import json

import pytest

from exactrelu.cli import main
from exactrelu.io.weights import write_weights
from exactrelu.network import Network

A = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, -1]], None), ([[1]], None)])  # relu(relu(x1) - relu(x2))
NEAR = Network.from_layers([([[1, -1], [1, 0]], None), ([[1, "1/4"]], None)])          # relu(x1 - x2) + relu(x1)/4


@pytest.fixture
def nets(tmp_path):
    box = tmp_path / "box.vnnlib"
    box.write_text("(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n"
                   "(assert (>= X_0 0))\n(assert (<= X_0 1))\n(assert (>= X_1 0))\n(assert (<= X_1 1))\n"
                   "(assert (<= Y_0 0))\n")
    return (str(write_weights(A, tmp_path / "a.json")), str(write_weights(NEAR, tmp_path / "near.json")), str(box))


def test_epsilon_on_a_box_exit_0_and_the_certificate_checks_alone(nets, tmp_path, capsys):
    a, near, _ = nets
    cert = tmp_path / "eps.json"
    assert main(["equiv", a, near, "--lower", "0,0", "--upper", "1,1", "--epsilon", "0.25", "-o", str(cert)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("EPSILON-EQUIVALENT: ") and "within 0.25 of each other on the box" in out
    assert main(["check", str(cert)]) == 0
    assert capsys.readouterr().out.startswith("VALID: epsilon-equivalent")


def test_a_counterexample_in_the_vnnlib_box_printed_as_floats(nets, tmp_path, capsys):
    a, near, box = nets
    cert = tmp_path / "far.json"
    assert main(["equiv", a, near, "--vnnlib", box, "--epsilon", "1/5", "-o", str(cert), "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "not-equivalent" and "1 output constraints not read" in record["domain"]
    assert main(["equiv", a, near, "--vnnlib", box, "--epsilon", "1/5"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("NOT EPSILON-EQUIVALENT: the networks differ by more than 1/5 at x = (")
    assert "floats for reading" in out
    assert json.loads(cert.read_text())["domain"]["kind"] == "box"
    assert main(["check", str(cert)]) == 0


@pytest.mark.parametrize("extra, message", [
    (["--lower", "0,0"], "needs both --lower and --upper"),
    (["--lower", "0,0", "--upper", "1,1", "--vnnlib", "x.vnnlib"], "not both"),
    (["--lower", "0", "--upper", "1"], "1 lower and 1 upper bounds; the networks read 2"),
    (["--lower", "1,0", "--upper", "0,1"], "the box is empty"),
    (["--lower", "a,0", "--upper", "1,1"], "not a rational number"),
    (["--epsilon=-1"], "epsilon must be >= 0"),
    (["--vnnlib", "missing.vnnlib"], "no such VNN-LIB file"),
])
def test_bad_boxes_exit_2_in_one_line(nets, capsys, extra, message):
    a, near, _ = nets
    assert main(["equiv", a, near, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
