"""Every proof runs and passes; broken claims are detected; registry, scripts and CLI behave."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.instances import Instance
from exactrelu.network import Activation, Network
from exactrelu.theorems import (biased_relu_hermite, homogeneity_symmetry, moment_constants, relu_hermite,
                                sign_ambiguity, uniqueness_lemma)
from exactrelu.theorems.registry import MODULES, discover, record_json, run_proof, script_main

ROOT = Path(__file__).resolve().parents[2]
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
#: Larger parameters under the "thorough" profile (the defaults are what `exactrelu prove` runs).
THOROUGH_PARAMS = {
    "biased_relu_hermite": {"max_integrated": 8},
    "homogeneity_symmetry": {"trials": 300},
    "uniqueness_lemma": {"trials": 400},
    "augmented_position": {"trials": 200},
    "sign_ambiguity": {"trials": 300},
}
NAMES = [m.rsplit(".", 1)[1] for m in MODULES]


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"_test_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def records():
    out = {}
    for name, mod in discover(proofs_dir=None):
        params = THOROUGH_PARAMS.get(name, {}) if THOROUGH else {}
        out[name] = run_proof(name, mod, **params)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_proof_passes(records, name):
    res = records[name]
    assert res.error is None, res.error
    assert res.passed and res.record["passed"] and res.record.get("failures", []) == []
    json.dumps(record_json(res))  # the record is JSON


def test_relu_coefficients(records):
    sigma = records["relu_hermite"].record["sigma"]
    assert len(sigma) == 17 and sigma["1"] == "1/2" and sigma["3"] == "0"
    assert sp.simplify(sp.sympify(sigma["4"]) + sp.sqrt(3) / (12 * sp.sqrt(sp.pi))) == 0


def test_biased_relu_closed_form_and_zeros(records):
    rec = records["biased_relu_hermite"].record
    assert rec["fourth_order_zero_set"] == "{-1, 1}"
    assert rec["second_derivative_argument_for_t"] == list(range(2, 17))
    assert rec["integrated_directly_for_t"][:5] == [0, 1, 2, 3, 4]


def test_moment_constants_vanishing(records):
    rec = records["moment_constants"].record
    assert rec["vanishing"] == ["relu: c_3", "power2: c_4"]
    assert rec["table"]["power3"]["3"] == "3"


def test_uniqueness_record_reports_the_lemma_failures(records):
    rec = records["uniqueness_lemma"].record
    lemma = rec["bjw_lemma_all_inactive"]
    assert lemma["held"] > 100
    for case in lemma["failed"]:  # the default seed shows nested supports
        assert case["nested_supports"]
    k4 = rec["random_k_minus_1_subsets_giving_the_line_by_k"]["4"]
    a, b = map(int, k4.split("/"))
    assert 0 < a < b  # some random (k-1)-subsets of inactive samples do not suffice


# -- a wrong claim must fail -------------------------------------------------------------------

def test_wrong_relu_formula_fails(monkeypatch):
    monkeypatch.setattr(relu_hermite, "formula", lambda k: sp.Rational(1, 2) if k == 1 else sp.Integer(0))
    rec = relu_hermite.prove(max_order=2)
    assert not rec["passed"] and any("sigma_0" in f for f in rec["failures"])


def test_wrong_bias_sign_fails(monkeypatch):
    b = sp.Symbol("b", real=True)
    from exactrelu.theorems._gaussian import He, phi

    wrong = lambda t: phi(b) * He(t - 2, b) if t >= 2 else biased_relu_hermite.__dict__["_orig"](t)  # noqa: E731
    monkeypatch.setitem(biased_relu_hermite.__dict__, "_orig", biased_relu_hermite.closed_form)
    monkeypatch.setattr(biased_relu_hermite, "closed_form", wrong)
    rec = biased_relu_hermite.prove(max_order=3, max_integrated=3)
    assert not rec["passed"] and any("t=3" in f for f in rec["failures"])


def test_wrong_moment_table_fails(monkeypatch):
    table = dict(moment_constants.TABLE)
    table["power2"] = [sp.Rational(1, 2), 0, 1, 0, 0]
    monkeypatch.setattr(moment_constants, "TABLE", table)
    rec = moment_constants.prove()
    assert not rec["passed"] and any(f.startswith("power2: c_1") for f in rec["failures"])


def test_wrong_rescaling_fails(monkeypatch):
    from exactrelu.theorems._random import columns_scaled, rows_scaled

    def wrong(net, D, perm):  # U D^-1 instead of U D^-c
        return Network(columns_scaled(net.U, [1 / d for d in D]).take_columns(perm), rows_scaled(net.V, D).take_rows(perm), net.activation)

    monkeypatch.setattr(homogeneity_symmetry, "transformed", wrong)
    rec = homogeneity_symmetry.prove(trials=6)
    assert not rec["passed"] and any("same labels" in f for f in rec["failures"])


def test_canonical_form_with_a_dead_unit_is_orbit_invariant():
    # found by homogeneity_symmetry: canonical() once left the output column of a zero row of V as it was
    net = Network.from_rows(U=[[1, 1]], V=[[1, 0], [0, 0]])
    other = homogeneity_symmetry.transformed(net, [Fraction(1), Fraction(1, 3)], [1, 0])
    assert other.evaluate_exact([[1, 2], [-1, 3]]) == net.evaluate_exact([[1, 2], [-1, 3]])
    assert net.equivalent(other)


def test_uniqueness_detects_rank_deficient_U():
    net = Network.from_rows(U=[[1, 1], [2, 2]], V=[[1, 0], [0, 1]])
    X = [[1, 2], [-1, 3], [2, -1], [-2, -3], [3, 1]]
    inst = Instance.from_arrays(X, net.evaluate_exact(X).to_fractions(), planted=net)
    import numpy as np

    bad, units, _ = uniqueness_lemma.check_instance(inst, np.random.default_rng(0))
    assert units == 0 and "rank(A) = 1" in bad[0]


def test_uniqueness_detects_labels_outside_the_span():
    net = Network.from_rows(U=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]])
    X = [[1, 2], [-1, 3], [2, -1], [-2, -3], [3, 1]]
    Y = net.evaluate_exact(X).to_fractions()
    Y[0][0] += 1  # rank 2 still, but rowspan(A) != rowspan(W)
    inst = Instance.from_arrays(X, Y, planted=net)
    import numpy as np

    bad, _, _ = uniqueness_lemma.check_instance(inst, np.random.default_rng(0))
    assert bad and "rowspan(W) != rowspan(A)" in bad[0]


def test_sign_flip_of_a_non_dependent_set_changes_the_function():
    W = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)], [Fraction(1), Fraction(1)]]
    b = [Fraction(1), Fraction(1), Fraction(2)]
    a = [Fraction(1), Fraction(1), Fraction(-1)]
    X = homogeneity_symmetry.QMatrix.from_rows([[1, 2], [-3, 1], [0, 0]])
    got = sign_ambiguity._check(a, W, b, {0, 1}, X)
    assert not got["affine_difference_zero"] and not got["same_function"]


def test_failing_or_crashing_proof_is_reported():
    class Crash:
        CLAIM, SOURCE = "c", "s"

        @staticmethod
        def prove():
            raise ZeroDivisionError("boom")

    class Fails:
        CLAIM, SOURCE = "c", "s"

        @staticmethod
        def prove():
            return {"passed": False, "failures": ["x != y"]}

    crash = run_proof("crash", Crash)
    assert not crash.passed and crash.error == "ZeroDivisionError: boom"
    fails = run_proof("fails", Fails)
    assert not fails.passed and fails.error == "x != y"


# -- registry, scripts, CLI ------------------------------------------------------------------

def _write(folder: Path, name: str, text: str) -> None:
    (folder / f"{name}.py").write_text(text, encoding="utf-8")


@pytest.fixture
def extra_proofs(tmp_path):
    _write(tmp_path, "extra_ok", 'CLAIM = "one is one"\nSOURCE = "arithmetic"\ndef prove():\n    return {"passed": 1 == 1}\n')
    _write(tmp_path, "extra_bad", 'CLAIM = "one is two"\nSOURCE = "nowhere"\ndef prove():\n    return {"passed": False, "failures": ["1 != 2"]}\n')
    _write(tmp_path, "not_a_proof", "X = 1\n")
    _write(tmp_path, "_helper", "raise RuntimeError('never imported')\n")
    _write(tmp_path, "relu_hermite", "raise RuntimeError('the package version wins')\n")
    return tmp_path


def test_discover_extra_proof_files(extra_proofs):
    names = [n for n, _ in discover(extra_proofs)]
    assert names[: len(NAMES)] == NAMES and names[len(NAMES):] == ["extra_bad", "extra_ok"]


def test_installed_package_runs_the_same_claims_as_the_checkout():
    """Every proofs/*.py of the checkout is a package theorem: `exactrelu prove --all` is the same installed."""
    scripts = sorted(p.stem for p in (ROOT / "proofs").glob("*.py") if not p.stem.startswith("_"))
    assert sorted(NAMES) == scripts
    assert [n for n, _ in discover(None)] == [n for n, _ in discover(True)] == NAMES


def test_discover_checkout_and_missing_folder(tmp_path):
    assert [n for n, _ in discover(True)][: len(NAMES)] == NAMES
    with pytest.raises(InvalidInput, match="no proofs folder"):
        discover(tmp_path / "nope")


@pytest.mark.parametrize("name", NAMES)
def test_script_exists_and_reexports_the_proof(name):
    mod = _load(ROOT / "proofs" / f"{name}.py")
    theorem = importlib.import_module(f"exactrelu.theorems.{name}")
    assert mod.prove is theorem.prove and mod.CLAIM == theorem.CLAIM and mod.SOURCE == theorem.SOURCE
    assert mod.__doc__.startswith("Claim: ") and "Source: " in mod.__doc__


def test_script_runs_alone(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the script finds the checkout itself
    out = subprocess.run([sys.executable, str(ROOT / "proofs" / "sign_ambiguity.py"), "--out", str(tmp_path)],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "sign_ambiguity: PROVED" in out.stdout
    rec = json.loads((tmp_path / "sign_ambiguity.json").read_text())
    assert rec["format"] == "exactrelu.proof" and rec["passed"] and rec["record"]["example"]["same_function"]


def test_script_main_failure_and_no_write(tmp_path, capsys):
    code = script_main(str(tmp_path / "bad.py"), lambda: {"passed": False, "failures": ["no"]}, "c", "s", ["--no-write"])
    assert code == 1 and "bad: FAILED" in capsys.readouterr().out
    assert not (tmp_path / "results").exists()


def test_cli_prove_selected_and_write(tmp_path, capsys):
    assert main(["prove", "sign_ambiguity", "homogeneity_symmetry", "--write", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "sign_ambiguity" in out and "2 of 2 claims proved" in out and "FAIL" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["homogeneity_symmetry.json", "sign_ambiguity.json"]


def test_cli_prove_json_and_list(capsys):
    assert main(["prove", "sign_ambiguity", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    recs = out["claims"]
    assert [r["name"] for r in recs] == ["sign_ambiguity"] and recs[0]["passed"]
    assert out["ok"] and out["proved"] == out["total"] == 1 and out["command"] == "prove"
    assert main(["prove", "--list"]) == 0
    listing = capsys.readouterr().out
    assert all(n in listing for n in NAMES)
    assert main(["prove", "--list", "--json"]) == 0
    assert [c["name"] for c in json.loads(capsys.readouterr().out)["claims"]] == [n for n, _ in discover(True)]


def test_cli_prove_failure_exit_1(extra_proofs, capsys):
    assert main(["prove", "extra_ok", "extra_bad", "--proofs-dir", str(extra_proofs)]) == 1
    out = capsys.readouterr().out
    assert "extra_bad" in out and "FAIL" in out and "-> 1 != 2" in out and "1 of 2 claims proved" in out


def test_cli_prove_usage_errors(capsys):
    assert main(["prove"]) == 2
    assert "use --all" in capsys.readouterr().err
    assert main(["prove", "no_such_claim"]) == 2
    assert "unknown claim(s) no_such_claim" in capsys.readouterr().err


def test_cli_prove_without_sympy(monkeypatch, capsys):
    import exactrelu.theorems.registry as registry

    def missing(*a, **k):
        raise ModuleNotFoundError("No module named 'sympy'", name="sympy")

    monkeypatch.setattr(registry, "discover", missing)
    assert main(["prove", "--all"]) == 2
    assert "need sympy" in capsys.readouterr().err
