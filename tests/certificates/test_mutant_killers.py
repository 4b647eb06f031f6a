"""Tests written for mutants of the trusted base that survived benchmarks/mutate_checker.py (issue 26 item 1):
each pins a behavior a mutant changed without any other test noticing (benchmarks/README.md lists the rest
and why they are harmless)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.trusted.common import CheckFailed
from exactrelu.certificates.trusted.lrat import check_hinted
from exactrelu.certificates.trusted.tree import walk_tree

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "valid"


@pytest.mark.parametrize("tree", [5, None, {"split": 0}, "ab"])
def test_a_tree_that_is_not_a_list_is_refused_as_such(tree):
    """tree.py: deleting the type check made ``5`` a TypeError (a traceback) and a dict an 'incomplete' tree."""
    with pytest.raises(CheckFailed, match="a tree is a list of nodes in preorder"):
        walk_tree(tree, {}, lambda s, dec: s, lambda node, dec: None)


@pytest.mark.parametrize("name,shown", [("equivalent-folded-block.json", "m = 1, relu)"),
                                        ("equivalent-power2-rescaled.json", "m = 1, power 2)")])
def test_the_equivalence_verdict_names_the_activation(name, shown):
    """equivalence.py: 'relu' if the degree is 1 (a mutant printed 'power 1' for the ReLU and 'relu' for t^2)."""
    summary = checker.check(json.loads((CORPUS / name).read_text()), None)
    assert shown in summary, summary


def test_the_replay_budget_counts_deletions_as_nothing_and_refuses_past_it(monkeypatch):
    """lrat.py: the budget is counted over the added steps' hints; a proof within it replays as before."""
    from exactrelu.certificates.trusted import common

    clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    proof = [["d"], [2, 0, 1, 2], [0, 5, 3, 4]]
    monkeypatch.setitem(common._limits, "propagations", (1 + 2 + 2) + (0 + 1 + 2 + 2))  # exactly the cost
    assert check_hinted(clauses, proof, 2) == 2
    monkeypatch.setitem(common._limits, "propagations", 9)
    with pytest.raises(common.UnreadableInput, match="needing up to 10 literal visits"):
        check_hinted(clauses, proof, 2)


def test_templates_that_are_not_a_list_are_refused():
    """refutation.py: without the check, ``"templates": 5`` was a TypeError (a traceback)."""
    from exactrelu.certificates.trusted.refutation import case_clauses

    with pytest.raises(CheckFailed, match="templates must be a list"):
        case_clauses({"U": [[1]], "lemmas": [], "lrat": [], "templates": 5}, [[1]], [[(0, 1)]], [[1]], 1, 1)


def test_a_residual_of_zero_is_shown_as_zero(tmp_path):
    """common.py: approx(0) took log10(0) without its early return (a ValueError for an exact fit's residual)."""
    from exactrelu.certificates.trusted.common import approx
    from exactrelu.testing import hostile

    assert approx(0) == "0"
    inst, sha = hostile._instance(tmp_path, "i.json", [["1"], ["2"]], [["1"], ["2"]])
    cert = tmp_path / "c.json"
    cert.write_text(json.dumps(hostile._cert("residual", sha, activation={"name": "relu"}, U=[["1"]], V=[["1"]],
                                             squared_error="0")))
    assert "squared error 0," in checker.check_files(str(cert), inst)
