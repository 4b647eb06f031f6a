"""The trusted lines of box domains and epsilon (trusted/phases.py, trusted/equivalence.py): each is needed.

Every test names the mutant of a trusted line it kills; the corpus (tests/corpus, ``_box_claims``) holds the valid
and tampered certificates of the same claims.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from exactrelu.certificates import checker

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def _load(kind: str, name: str) -> dict:
    return json.loads((CORPUS / kind / f"{name}.json").read_text())


def _rejects(cert: dict, message: str) -> None:
    with pytest.raises(checker.CheckFailed, match=message):
        checker.check(cert, None)


def _box_rows(tree: list) -> list:
    return [rows for node in tree for comb in ([node["bound"]] if "bound" in node else [])
            for kind, rows in comb.items() if kind in ("lower", "upper")]


def test_a_box_row_with_a_negative_multiplier_is_refused():
    """_INEQUALITY marks the box's rows as inequalities (mutant: equations, any sign)."""
    cert = _load("valid", "deep-equivalent-box")
    rows = _box_rows(cert["tree"])
    assert rows
    rows[0][0][1] = "-" + rows[0][0][1]
    _rejects(cert, "negative multiplier")


def test_a_box_row_of_an_input_that_does_not_exist_is_refused():
    """The box's rows are indexed by the d inputs (mutant: by the neurons)."""
    cert = _load("valid", "deep-equivalent-box")
    _box_rows(cert["tree"])[0][0][0] = 2
    _rejects(cert, "0 <= index < 2")


def _lemma_certificate(epsilon: str) -> dict:
    """A(x) = relu(x), B(x) = relu(x) - 1/5: two lemmas each claim the constant 1/10 is zero, by bounds leaves that
    hold only within 1/10; the main tree adds them."""
    false_lemma = {"forms": [{"terms": [], "constant": "1/10"}], "tree": [{"bounds": [[{}, {}]]}]}
    return {"format": "exactrelu.certificate", "version": 1, "claim": "equivalent",
            "networks": [{"activation": {"name": "relu"}, "layers": [{"W": [["1"]]}, {"W": [["1"]]}]},
                         {"activation": {"name": "relu"}, "layers": [{"W": [["1"]]}, {"W": [["1"]], "b": ["-1/5"]}]}],
            "domain": {"kind": "R^d"}, "property": {"kind": "epsilon", "epsilon": epsilon, "norm": "max"},
            "lemmas": [false_lemma, copy.deepcopy(false_lemma)],
            "tree": [{"equal": [{"lemma": [[0, "1"], [1, "1"]]}]}]}


def test_lemmas_are_proved_exactly_whatever_epsilon_is():
    """Lemma trees walk with slack 0 (mutant: the property's epsilon, which would let two lemmas each off by 1/10
    prove a difference of 1/5 within 1/10)."""
    _rejects(_lemma_certificate("1/10"), "does not prove output 0's difference <= 0")


def test_the_main_tree_uses_epsilon_and_zero_is_allowed():
    """epsilon 0 is equality (mutant: eps <= 0 refused); a negative epsilon is refused."""
    cert = _load("valid", "deep-epsilon-equivalent-box")
    cert["property"]["epsilon"] = "0"
    _rejects(cert, "does not prove output 0's difference >= -0")  # the leaf needs 1/4: read with slack 0
    cert["property"]["epsilon"] = "-1/4"
    _rejects(cert, "epsilon must be >= 0")
    same = _load("valid", "deep-equivalent-box")
    same["property"] = {"kind": "epsilon", "epsilon": "0", "norm": "max"}
    assert checker.check(same, None).startswith("epsilon-equivalent: ")


def test_a_point_box_and_a_witness_on_the_boundary_are_in_the_box():
    """lower == upper is a box (mutant: lo >= hi refused); the witness may lie on the box's faces (mutant: strict)."""
    far = _load("valid", "deep-not-epsilon-equivalent-box")
    far["domain"] = {"kind": "box", "lower": far["witness"], "upper": far["witness"]}
    assert "lies in the box" in checker.check(far, None)


def test_a_witness_exactly_epsilon_apart_is_no_counterexample():
    """|f - g| = epsilon at the witness is within epsilon (mutant: < instead of <=)."""
    far = _load("valid", "deep-not-epsilon-equivalent-box")
    assert far["values"] == [["1"], ["5/4"]]
    far["property"]["epsilon"] = "1/4"
    _rejects(far, "differ by at most 1/4")


@pytest.mark.parametrize("field, value, message", [
    ("domain", {"kind": "box", "lower": ["0", "0"]}, "the domain is"),
    ("domain", {"kind": "box", "lower": ["0"], "upper": ["1"]}, "lower must be a list of 2"),
    ("domain", {"kind": "ball"}, "the domain is"),
    ("property", {"kind": "epsilon", "epsilon": "1", "norm": "l2"}, "the property is"),
    ("property", {"kind": "top1", "k": 2}, "the property is"),
])
def test_malformed_domains_and_properties_are_refused(field, value, message):
    cert = _load("valid", "deep-equivalent-box")
    cert[field] = value
    _rejects(cert, message)
