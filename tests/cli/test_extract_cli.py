"""exactrelu extract: exit codes, the --json record, the certificate checked with its transcript, refusals in one line."""

from __future__ import annotations

import json
import sys

import pytest

from exactrelu.cli import main
from exactrelu.io.weights import read_weights, write_weights
from exactrelu.network import Network

HIDDEN = Network.from_rows(U=[[2, -1, "1/2"]], V=[[1, 0, 1], [0, 1, -1], [1, 1, 1]], b=[1, 0, "-1/2"], c=[1])

ORACLE = """import json, sys
from fractions import Fraction
print(json.dumps({"d": 3, "m": 1}), flush=True)
relu = lambda t: max(t, 0)
for line in sys.stdin:
    x, y, z = (Fraction(v) for v in json.loads(line))
    out = 2 * relu(x + z + 1) - relu(y - z) + Fraction(1, 2) * relu(x + y + z - Fraction(1, 2)) + 1
    print(json.dumps([str(out)]), flush=True)
"""


@pytest.fixture
def hidden(tmp_path):
    return str(write_weights(HIDDEN, tmp_path / "hidden.json"))


def test_extract_from_a_network_file(hidden, tmp_path, capsys):
    out, cert = tmp_path / "out.json", tmp_path / "cert.json"
    assert main(["extract", "--oracle", hidden, "-o", str(out), "--certificate", str(cert), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["ok"] and record["units"] == 3 and record["queries"] > 0 and record["width_lower_bound"] == 3
    assert main(["check", str(cert)]) == 0
    assert f"{record['queries']:,} answers" in capsys.readouterr().out  # every query is in the certificate
    assert main(["equiv", str(out), hidden]) == 0


def test_extract_from_a_command_with_expect(hidden, tmp_path, capsys):
    script = tmp_path / "oracle.py"
    script.write_text(ORACLE)
    same = tmp_path / "same.json"
    assert main(["extract", "--oracle-cmd", f"{sys.executable} {script}", "-k", "3", "-o", str(tmp_path / "o.json"),
                 "--expect", hidden, "--expect-certificate", str(same)]) == 0
    out = capsys.readouterr().out
    assert "--expect" in out and "equivalent" in out
    assert json.loads(same.read_text())["claim"] == "equivalent"
    assert read_weights(tmp_path / "o.json").k == 3


def test_refusals_exit_1_with_one_line(hidden, tmp_path, capsys):
    cert = tmp_path / "no.json"
    assert main(["extract", "--oracle", hidden, "-k", "2", "-o", str(tmp_path / "o.json"), "--certificate", str(cert)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no network with k = 2 units" in err[0] and "exactrelu check" in err[0]
    assert main(["check", str(cert)]) == 0
    assert "has at least 3 units" in capsys.readouterr().out and "network" not in json.loads(cert.read_text())
    assert main(["extract", "--oracle", hidden, "--max-queries", "30", "-o", str(tmp_path / "o.json")]) == 1
    assert "query budget of 30" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("argv, match", [
    (["extract", "--oracle", "missing.json", "-o", "{tmp}/o.json"], "no such weights file"),
    (["extract", "--oracle-cmd", "/no/such/oracle", "-o", "{tmp}/o.json"], "cannot start"),
    (["extract", "--oracle", "{hidden}", "-o", "{tmp}/no/dir/o.json"], "does not exist"),
])
def test_bad_input_is_exit_2(hidden, tmp_path, capsys, argv, match):
    """Bad files are exit 2 with one line (bad numbers are refused by argparse: the CLI fuzz test)."""
    assert main([a.format(hidden=hidden, tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0]
