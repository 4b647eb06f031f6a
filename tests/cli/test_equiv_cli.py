"""exactrelu equiv / minimize: exit codes, certificates that exactrelu check verifies alone, one-line refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.io.weights import read_weights, write_weights
from exactrelu.network import Network

A = Network.from_rows(U=[[3, -1, 1]], V=[[1, 2], [0, 1], [-1, 0]], b=[1, 0, 0], c=["1/2"])
B = Network.from_rows(U=[["3/2", -1, "1/2", -1, 1]], V=[[2, 4], [0, 1], [2, 0], [1, 0], [-1, 0]], b=[2, 0, 0, 0, 0],
                      c=["1/2"])
C = Network.from_rows(U=[[3, -1, 1]], V=[[1, 2], [0, 1], [-1, 0]], b=[1, 1, 0], c=["1/2"])


@pytest.fixture
def files(tmp_path):
    return {name: str(write_weights(net, tmp_path / f"{name}.json")) for name, net in (("a", A), ("b", B), ("c", C))}


def test_equal_networks_exit_0_with_a_certificate_checked_alone(files, tmp_path, capsys):
    cert = tmp_path / "same.json"
    assert main(["equiv", files["a"], files["b"], "-o", str(cert)]) == 0
    assert capsys.readouterr().out.startswith("EQUIVALENT")
    assert main(["check", str(cert)]) == 0
    assert capsys.readouterr().out.startswith("VALID: equivalent")


def test_different_networks_exit_1_with_a_witness(files, tmp_path, capsys):
    cert = tmp_path / "differ.json"
    assert main(["equiv", files["a"], files["c"], "-o", str(cert), "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["ok"] is False and record["equivalent"] is False and len(record["witness"]) == 2
    assert record["values"][0] != record["values"][1]
    assert main(["check", str(cert)]) == 0
    assert json.loads(cert.read_text())["claim"] == "not-equivalent"


def test_npz_and_json_of_the_same_weights_are_equivalent(tmp_path, capsys):
    U, V = np.array([[0.5, -1.25]]), np.array([[1.0, 2.0], [-3.0, 0.125]])
    np.savez(tmp_path / "w.npz", U=U, V=V)
    exact = write_weights(Network.from_rows(U=U, V=V), tmp_path / "w.json")
    assert main(["equiv", str(tmp_path / "w.npz"), str(exact)]) == 0


def test_minimize_writes_weights_and_a_certificate(files, tmp_path, capsys):
    out, cert = tmp_path / "small.json", tmp_path / "small.cert.json"
    assert main(["minimize", files["b"], "-o", str(out), "--certificate", str(cert), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["units_before"], record["units"], record["removed"], record["optimal"]) == (5, 3, 2, True)
    assert main(["equiv", str(out), files["a"]]) == 0
    assert read_weights(out).k == 3
    assert main(["check", str(cert)]) == 0


@pytest.mark.parametrize("argv, match", [
    (["equiv", "missing.json", "missing.json"], "no such weights file"),
    (["equiv", "{a}", "{bad}"], "not valid JSON"),
    (["equiv", "{a}", "{wide}"], "not comparable"),
    (["equiv", "{a}", "{a}", "--activation", "power:2"], "differs from the one asked for"),
    (["minimize", "{a}", "-o", "{tmp}/no/such/dir/out.json"], "does not exist"),
])
def test_bad_input_is_one_line_and_exit_2(files, tmp_path, capsys, argv, match):
    (tmp_path / "bad.json").write_text("{not json")
    wide = write_weights(Network.from_rows(U=[[1]], V=[[1, 2, 3]]), tmp_path / "wide.json")
    names = {**files, "bad": str(tmp_path / "bad.json"), "wide": str(wide), "tmp": str(tmp_path)}
    assert main([a.format(**names) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0]
