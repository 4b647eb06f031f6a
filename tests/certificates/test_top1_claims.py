"""The trusted lines of the property top1 (trusted/phases.py ``_top1`` and the argmax rows, trusted/equivalence.py):
each test names what it holds, and the mutant of a trusted line it kills. The corpus (tests/corpus, ``_top1_claims``)
holds the valid and tampered certificates of the same claims; these tamper with them further.
"""

from __future__ import annotations

import copy

import pytest

from exactrelu.certificates import checker

from test_box_claims import _load, _rejects


def _leaf(cert: dict) -> dict:
    return cert["tree"][-1]["top1"]


def test_the_corpus_top1_certificates_are_valid():
    for name in ("deep-top1-equivalent-box", "deep-top1-equivalent-ties", "deep-top1-equivalent-empty-class"):
        assert checker.check(_load("valid", name), None).startswith("top1-equivalent: ")
    verdict = checker.check(_load("valid", "deep-not-top1-equivalent-box"), None)
    assert "ties: the sets of largest outputs meet" in verdict


def test_an_argmax_row_with_a_negative_multiplier_is_refused():
    """argmax rows are inequalities F_i - F_j <= 0 (mutant: _INEQUALITY["argmax"] False, any sign)."""
    cert = _load("valid", "deep-top1-equivalent-box")
    _leaf(cert)["classes"][0]["beats"][0]["argmax"][0][1] = "-2"
    _rejects(cert, "negative multiplier")


def test_an_argmax_row_must_name_an_output():
    """argmax rows are indexed by the m outputs (mutant: by the neurons or the inputs)."""
    cert = _load("valid", "deep-top1-equivalent-box")
    _leaf(cert)["classes"][0]["beats"][0]["argmax"][0][0] = 2
    _rejects(cert, "0 <= index < 2")


def test_an_argmax_row_after_a_top1_leaf_is_outside_every_class():
    """red.arg is cleared after each leaf (mutant: kept, so a later node could use the last class's rows)."""
    cert = _load("valid", "deep-top1-equivalent-box")
    leaf = cert["tree"].pop()
    cert["tree"] = [{"split": 0}, leaf, {"fix": [1, True], "bound": {"argmax": [[0, "1"]]}}, copy.deepcopy(leaf)]
    _rejects(cert, "outside a class of a top1 leaf")


@pytest.mark.parametrize("body, message", [
    ({"net": 2, "classes": []}, "a top1 leaf is"),
    ({"net": True, "classes": []}, "a top1 leaf is"),
    ({"net": 0}, "a top1 leaf is"),
    ({"net": 0, "classes": [{"beats": []}]}, "one entry per output \\(2\\)"),
    ({"net": 0, "classes": {"0": {"beats": []}}}, "a top1 leaf is"),
    ({"net": 0, "classes": [{"beats": [{}, {}]}, {"beats": [{}]}]}, "class 0 of a top1 leaf is"),
    ({"net": 0, "classes": [None, {"beats": {}}]}, "class 1 of a top1 leaf is"),
    ({"net": 0, "classes": [None, {"farkas": {}, "beats": [{}]}]}, "class 1 of a top1 leaf is"),
    ({"net": 0, "classes": [None, ["farkas", {}]]}, "class 1 of a top1 leaf is"),
])
def test_a_malformed_top1_leaf_is_refused(body, message):
    """Every shape check of _top1 (a None class stands for the valid certificate's class 0)."""
    cert = _load("valid", "deep-top1-equivalent-box")
    if isinstance(body.get("classes"), list) and body["classes"] and body["classes"][0] is None:
        body["classes"][0] = _leaf(cert)["classes"][0]
    cert["tree"][-1] = {"top1": body}
    _rejects(cert, message)


def test_an_empty_combination_does_not_prove_a_class_that_loses():
    """Each class's bound is checked against G_i - G_j (mutant: the bound's target swapped or skipped)."""
    cert = _load("valid", "deep-top1-equivalent-box")
    _leaf(cert)["classes"][1]["beats"][0] = {}
    _rejects(cert, "does not prove class 1 at least class 0 in the other network")


def test_a_farkas_entry_that_sums_to_nothing_is_refused():
    cert = _load("valid", "deep-top1-equivalent-empty-class")
    _leaf(cert)["classes"][0]["farkas"] = {}
    _rejects(cert, "a Farkas entry \\(class 0\\) does not sum to 0 <= negative")


def test_the_classes_are_the_stated_networks_regions():
    """net 1 reads the second network's regions and bounds the first (mutant: red.nets not reversed)."""
    cert = _load("valid", "deep-top1-equivalent-ties")
    assert _leaf(cert)["net"] == 1
    _leaf(cert)["net"] = 0
    _rejects(cert, "does not prove class 1 at least class 0")


def test_a_top1_leaf_in_a_lemma_is_refused():
    """Lemmas prove forms zero: their trees have no top1 leaves (mutant: the main tree's top1 flag passed on)."""
    cert = _load("valid", "deep-top1-equivalent-box")
    cert["lemmas"] = [{"forms": [{"terms": [], "constant": "0"}], "tree": [_leaf(cert) and cert["tree"][-1]]}]
    _rejects(cert, "a leaf is")


def test_top1_leaves_are_refused_for_the_other_properties():
    cert = _load("valid", "deep-top1-equivalent-box")
    cert["property"] = {"kind": "epsilon", "epsilon": "100", "norm": "max"}
    _rejects(cert, "a leaf is {'farkas': ...}, {'equal': \\[...\\]} or {'bounds'")


@pytest.mark.parametrize("prop", [{"kind": "top1", "ties": "any"}, {"kind": "top-1"}, {"kind": "top1", "k": 1}])
def test_an_unknown_property_is_refused(prop):
    cert = _load("valid", "deep-top1-equivalent-box")
    cert["property"] = prop
    _rejects(cert, "the property is")


def test_a_bounds_leaf_proves_top1_only_exactly():
    """With top1 the bounds leaves prove f = g on the leaf (slack 0: mutant, the slack of epsilon read as top1)."""
    cert = _load("valid", "deep-top1-equivalent-box")
    cert["tree"][-1] = {"bounds": [[{}, {}], [{}, {}]]}
    _rejects(cert, "does not prove output 0's difference <= 0")


def test_a_counterexample_where_the_largest_outputs_tie_into_a_common_class_is_refused():
    """At the witness f = (1, 1) ties and g = (5/4, 1) prefers class 0: the argmax sets meet in 0, no counterexample
    (mutant: argmax by the first index only, or by strict comparison)."""
    cert = _load("valid", "deep-not-top1-equivalent-box")
    cert["witness"], cert["values"] = ["1", "1"], [["1", "1"], ["5/4", "1"]]
    _rejects(cert, "have a class in common")
    cert["witness"], cert["values"] = ["1", "3/2"], [["1", "3/2"], ["5/4", "3/2"]]  # f and g both prefer class 1
    cert["domain"]["upper"] = ["2", "2"]
    _rejects(cert, "have a class in common")


def test_a_counterexample_with_disjoint_ties_is_accepted():
    """f = (1, 1, 0)-like ties against g's other class: argmax sets {0, 1} and {2} do not meet."""
    net = {"activation": {"name": "relu"}, "layers": [{"W": [["1"]]}, {"W": [["1"], ["1"], ["0"]]}]}
    other = {"activation": {"name": "relu"}, "layers": [{"W": [["1"]]}, {"W": [["0"], ["0"], ["1"]]}]}
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "not-equivalent", "networks": [net, other],
            "domain": {"kind": "box", "lower": ["0"], "upper": ["1"]}, "property": {"kind": "top1"},
            "witness": ["1"], "values": [["1", "1", "0"], ["0", "0", "1"]]}
    assert checker.check(cert, None).startswith("not-top1-equivalent: ")
    cert["witness"], cert["values"] = ["0"], [["0", "0", "0"], ["0", "0", "0"]]  # all tie: the sets meet
    _rejects(cert, "have a class in common")


def test_the_verdict_counts_the_leaves_of_every_lemma_and_of_the_main_tree():
    """check_phase_tree adds each lemma's leaves to the count (mutant: ``leaves = ...`` keeps the last lemma's)."""
    cert = _load("valid", "deep-equivalent-lemmas")
    trees = [lemma["tree"] for lemma in cert["lemmas"]] + [cert["tree"]]
    leaves = sum(not ({"split"} == set(node) or "fix" in node) for tree in trees for node in tree)
    assert len(cert["lemmas"]) >= 2 and leaves > sum(not ({"split"} == set(n) or "fix" in n) for n in trees[-2])
    assert f"{len(cert['lemmas'])} lemmas and case trees of {leaves} leaves checked" in checker.check(cert, None)


def test_the_verdicts_say_the_claim_the_tie_rule_and_the_proof_in_words():
    """The verdict lines in full (mutants of _where, the proof's words and the widths' order change them)."""
    assert checker.check(_load("valid", "deep-top1-equivalent-box"), None) == (
        "top1-equivalent: the two networks (widths 2-2-2-2 and 2-2-2, relu) are top-1 equal (ties: the sets of largest "
        "outputs meet) on the box of 2 intervals (reduced difference: 2 neurons; case tree of 1 leaf checked)")
    assert checker.check(_load("valid", "deep-not-top1-equivalent-box"), None) == (
        "not-top1-equivalent: the two networks (widths 2-2-2-2 and 2-2-2) have no largest output in common at the "
        "witness (ties: the sets of largest outputs meet; both evaluated exactly), which lies in the box")
