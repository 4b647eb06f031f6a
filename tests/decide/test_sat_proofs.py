"""The lemmas of the reduction (proofs/hardness_gadget.py), proved by exact case analysis."""

import subprocess
import sys
from pathlib import Path

import pytest

from exactrelu.certificates.checker import CheckFailed
from exactrelu.hardness import lemmas
from exactrelu.instances import Instance

ROOT = Path(__file__).resolve().parents[2]


def test_gadget_lemma():
    r = lemmas.prove_gadget()
    assert r["proved"] and r["solutions"] == [["1", "-1"], ["-1", "1"]] and r["closed_leaves"] > 0


def test_gadget_unknown_u():
    r = lemmas.prove_gadget_unknown_u()
    assert r["proved"] and len(r["refuted"]) == 5


def test_clause_lemma_shapes_and_a_sample_of_all_clauses():
    r = lemmas.prove_clause_lemma()
    assert r["proved"] and r["label_identity"] and [c["solutions"] for c in r["cases"]] == [6, 2, 4, 0, 2]


def test_cnf_to_nae_truth_tables():
    r = lemmas.prove_cnf_to_nae(4)
    assert r["proved"] and [c["fresh"] for c in r["cases"]] == [0, 0, 0, 1, 2]


def test_realizations_detects_a_wrong_lemma():
    # labels 2 on x = 1 and x = -1 with U = [1, 1]: the solutions are (2, -2), (-2, 2), not the gadget's
    inst = Instance.from_arrays([[1], [-1]], [[2], [2]])
    assert lemmas.realizations(inst, [[1, 1]])["solutions"] == [["2", "-2"], ["-2", "2"]]
    # a case with a continuum of solutions is not accepted as a finite set
    flat = Instance.from_arrays([[1]], [[1]])
    with pytest.raises(AssertionError, match="more than one solution"):
        lemmas.realizations(flat, [[1, 1]])


def test_realizations_rejects_a_tampered_tree(monkeypatch):
    from exactrelu.decide.search import tree
    real = tree.enumerate_leaves

    def tampered(*a, **k):
        tree, leaves, s = real(*a, **k)
        leaf = next(n for n in tree if "farkas" in n)
        leaf["farkas"][0][3] = "7"
        return tree, leaves, s

    monkeypatch.setattr(lemmas, "enumerate_leaves", tampered)
    with pytest.raises(CheckFailed):
        lemmas.prove_gadget()


def test_proof_script_runs(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "proofs" / "hardness_gadget.py"), "--out", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("PROVED") == 4 and (tmp_path / "hardness_gadget.json").exists()


def test_gadget_proof_is_listed_by_exactrelu_prove():
    """proofs/hardness_gadget.py follows the registry protocol, so `exactrelu prove` runs it from a checkout."""
    from pathlib import Path

    from exactrelu.theorems.registry import discover, run_proof

    folder = Path(__file__).resolve().parents[2] / "proofs"
    found = dict(discover(proofs_dir=folder))
    assert "hardness_gadget" in found
    result = run_proof("hardness_gadget", found["hardness_gadget"])
    assert result.passed, result.error
