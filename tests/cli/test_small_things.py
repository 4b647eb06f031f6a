"""The smaller things of issue 22 (item 7), each pinned: --json usage errors, bench_exact --quick, np.asarray(U)."""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.network import Network

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv, command", [(["recover", "--json", "-k", "two", "i.json"], "recover"),
                                           (["recover", "--json", "-k", "0", "i.json"], "recover"),
                                           (["recover", "--json"], "recover"),
                                           (["hardness", "decide", "--json"], "hardness decide")])
def test_json_usage_errors_are_one_json_object(capsys, argv, command):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    record = json.loads(captured.out)  # stdout holds exactly one JSON object
    assert record["ok"] is False and record["error"] == "UsageError" and record["exit_code"] == 2
    assert record["command"] == command and record["message"] in captured.err


@pytest.mark.parametrize("argv, command, message", [
    (["solve", "i.json", "-k", "100000000000"], "solve", "over the limit units="),
    (["recover", "i.json", "-k", "2", "-o", "/nonexistent/c.json"], "recover", "the directory /nonexistent does not"),
    (["checker-bundle", "-o", "/nonexistent/c.pyz"], "checker-bundle", "the directory /nonexistent does not exist"),
    (["hardness", "random", "--vars", "5", "--clauses", "3", "-o", "/nonexistent/i.json"], "hardness random",
     "the directory /nonexistent"),
    (["recover", "/nonexistent.json", "-k", "2"], "recover", "no such instance file")])
def test_json_errors_before_the_command_runs_are_one_json_object(capsys, argv, command, message):
    """Refusals of the command line itself (before the command runs: -k, output paths) are JSON with --json too,
    and an error the command already reported as JSON is not reported twice."""
    assert main(argv + ["--json"]) == 2
    captured = capsys.readouterr()
    record = json.loads(captured.out)  # stdout holds exactly one JSON object
    assert record["ok"] is False and record["error"] == "InvalidInput" and record["exit_code"] == 2
    assert record["command"] == command and message in record["message"] and message in captured.err


def test_usage_errors_without_json_keep_stdout_empty(capsys):
    with pytest.raises(SystemExit):
        main(["recover", "-k", "two", "i.json"])
    assert capsys.readouterr().out == ""


def test_bench_exact_quick_never_writes_the_committed_results():
    spec = importlib.util.spec_from_file_location("bench_exact", ROOT / "benchmarks" / "bench_exact.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    committed = ROOT / "benchmarks" / "results" / "bench_exact.json"
    assert bench.results_path(quick=False) == committed
    assert bench.results_path(quick=True) != committed
    assert bench.results_path(quick=True).name == "bench_exact_quick.json"
    assert bench.results_path(quick=True, output="x.json") == Path("x.json")


def test_np_asarray_of_weights_is_the_exact_two_dimensional_array():
    net = Network.from_rows(U=[[1, "1/3"]], V=[[1, 0], [0, "-2/7"]])
    U = np.asarray(net.U)
    assert U.shape == (1, 2) and U.dtype == object and U[0, 1] == Fraction(1, 3)
    assert (np.asarray(net.U) @ np.asarray(net.V)).tolist() == [[1, Fraction(-2, 21)]]  # exact products
    assert np.asarray(net.V, dtype=float).tolist() == [[1.0, 0.0], [0.0, -2 / 7]]  # floats only on request
