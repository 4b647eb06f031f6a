"""The checker's deep equivalence: networks of any depth, the reduced difference, case trees over neuron phases.

Every tampering must be rejected, and every refusal of trusted/deep.py and trusted/phases.py is reached here.
"""

import copy
import json
import sys
from pathlib import Path

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.trusted import common
from exactrelu.equiv import functionally_equal
from exactrelu.network import Activation, Network

sys.path.insert(0, str(Path(__file__).parents[1] / "equiv"))
from test_deep_equivalence import _pair_always_active, _pair_hidden_dead  # noqa: E402


@pytest.fixture(scope="module")
def tree_cert():
    return functionally_equal(*_pair_always_active()).certificate


@pytest.fixture(scope="module")
def witness_cert():
    a, b = _pair_hidden_dead()
    L = [([list(r) for r in layer.W.to_fractions()], layer.b_fractions()) for layer in b.layers]
    L[0][1][1] += 1
    return functionally_equal(a, Network.from_layers(L)).certificate


def bad(cert, match):
    with pytest.raises(checker.CheckFailed, match=match):
        checker.check(cert, None)


def edited(cert, fn):
    out = copy.deepcopy(cert)
    fn(out)
    return out


def test_valid_certificates_and_their_shape(tree_cert, witness_cert):
    assert checker.check(tree_cert, None).startswith("equivalent: the two networks (widths 2-3-3-1 and 2-3-2-1, relu)")
    assert checker.check(witness_cert, None).startswith("not-equivalent: the two networks (widths")
    kinds = [next(iter(n)) for n in tree_cert["tree"]]
    assert {"split", "fix", "farkas", "equal"} <= set(kinds)
    assert tree_cert["domain"] == {"kind": "R^d"} and tree_cert["property"] == {"kind": "equal"}
    two = edited(tree_cert, lambda c: c["networks"].__setitem__(0, {"activation": {"name": "relu"}, **{
        "V": c["networks"][0]["layers"][0]["W"], "b": c["networks"][0]["layers"][0]["b"],
        "U": [["1", "0", "0"]]}}))
    bad(two, "differ in activation, input dimension d or output dimension m|does not|not")


def test_bounds_leaves_replace_equal_leaves(tree_cert):
    def to_bounds(c):
        for i, node in enumerate(c["tree"]):
            if "equal" in node:
                neg = [{k: [[u, str(-common.parse_rational(m))] for u, m in rows] for k, rows in e.items()}
                       for e in node["equal"]]
                c["tree"][i] = {"bounds": [[e, n] for e, n in zip(node["equal"], neg)]}
    good = edited(tree_cert, to_bounds)
    assert checker.check(good, None).startswith("equivalent")
    swapped = edited(good, lambda c: [n.__setitem__("bounds", [[p[1], p[0]] for p in n["bounds"]])
                                      for n in c["tree"] if "bounds" in n and n["bounds"][0][0]])
    bad(swapped, "does not prove output 0's difference")
    bad(edited(good, lambda c: [n.__setitem__("bounds", [p[0] for p in n["bounds"]]) for n in c["tree"]
                                if "bounds" in n]), "a bounds leaf has \\[upper, lower\\]")


@pytest.mark.parametrize("edit, match", [
    (lambda c: c["tree"].pop(), "incomplete"),
    (lambda c: c["tree"].append({"equal": [{}]}), "after it is complete"),
    (lambda c: c["tree"].__setitem__(0, {"split": 99}), "split or fix must name a neuron"),
    (lambda c: c["tree"].__setitem__(0, {"split": True}), "split or fix must name a neuron"),
    (lambda c: c["tree"].__setitem__(2, {"split": 3}), "split or fix must name a neuron"),
    (lambda c: c["tree"].__setitem__(1, {"equal": [{"post": [[3, "-2"]]}]}), "do not sum to output 0"),
    (lambda c: c["tree"].__setitem__(1, {"equal": [{"relu": [[3, "1"]]}]}), "'post', 'lemma' only"),
    (lambda c: c["tree"].__setitem__(1, {"equal": [{}, {}]}), "one entry per target"),
    (lambda c: c["tree"].__setitem__(1, {"leaf": 1}), "a leaf is"),
    (lambda c: c["tree"].__setitem__(1, {"equal": [{"post": [[2, "-3"]]}]}), "which the path does not decide"),
    (lambda c: c["tree"][3]["farkas"]["phase"][0].__setitem__(1, "-1"), "negative multiplier"),
    (lambda c: c["tree"][3]["farkas"]["post"][0].__setitem__(1, "2"), "Farkas leaf does not sum"),
    (lambda c: c["tree"][3]["farkas"].__setitem__("phase", "x"), "must be a list of \\[neuron, multiplier\\]"),
    (lambda c: c["tree"][3]["farkas"]["phase"].__setitem__(0, [3]), "must be \\[index, multiplier\\]"),
    (lambda c: c["tree"][3]["farkas"]["phase"].__setitem__(0, [-1, "1"]), "must be \\[index, multiplier\\]"),
    (lambda c: c["tree"][3].__setitem__("farkas", {"box": []}), "a combination is an object of rows"),
    (lambda c: c["tree"][3].__setitem__("farkas", []), "a combination is an object of rows"),
    (lambda c: c["tree"][4]["bound"]["relu"][0].__setitem__(1, "1/2"), "does not prove neuron 1 inactive"),
    (lambda c: c["tree"][4]["fix"].__setitem__(1, True), "does not prove neuron 1 active"),
    (lambda c: c["tree"][4]["fix"].__setitem__(1, 0), "a fix node is"),
    (lambda c: c["tree"][4].pop("bound"), "a fix node is"),
    (lambda c: c["tree"][4].__setitem__("fix", [0, False]), "split or fix must name a neuron 0 <= u < 4 not decided"),
    (lambda c: c.__setitem__("tree", {"split": 0}), "a tree is a list"),
    (lambda c: c.__setitem__("domain", {"kind": "box"}), "the domain is"),
    (lambda c: c.__setitem__("property", {"kind": "top5"}), "the property is"),
    (lambda c: c.__setitem__("canonical", {}), "unknown fields"),
    (lambda c: c["networks"].pop(), "a list of two networks"),
    (lambda c: c["networks"][1]["layers"][1]["W"][0].__setitem__(0, "2"), "does not|Farkas|do not|neuron"),
    (lambda c: c["networks"][1]["layers"][0]["W"].__setitem__(0, ["1"]), "row of W of layer 0 of network 2 must have 1 entries"),
    (lambda c: c["networks"][1]["layers"][1].__setitem__("W", [["1", "1", "1"]]), "W of layer 2 of network 2 must have rows"),
    (lambda c: c["networks"][1]["layers"][0].__setitem__("b", ["1"]), "b of layer 0 of network 2"),
    (lambda c: c["networks"][1]["layers"].__setitem__(0, {"b": []}), "must be an object with W"),
    (lambda c: c["networks"][1].__setitem__("layers", []), "non-empty list"),
    (lambda c: c["networks"].__setitem__(1, []), "network 2 must be an object"),
    (lambda c: c["networks"].__setitem__(1, {"activation": {"name": "relu"}}), "needs 'layers', or U and V"),
    (lambda c: c["networks"][1].__setitem__("U", [["1"]]), "unknown fields"),
    (lambda c: c["networks"][1]["layers"][2]["W"].append(["1", "0"]), "output dimension m"),
    (lambda c: [n.__setitem__("activation", {"name": "power", "degree": 2}) for n in c["networks"]],
     "about ReLU networks"),
])
def test_tampered_trees_are_rejected(tree_cert, edit, match):
    bad(edited(tree_cert, edit), match)


def test_tampered_witnesses_are_rejected(witness_cert):
    bad(edited(witness_cert, lambda c: c["values"][0].__setitem__(0, "12345")), "network 1 at the witness is")
    same = edited(witness_cert, lambda c: c["networks"].__setitem__(1, c["networks"][0]))
    bad(edited(same, lambda c: c["values"].__setitem__(1, c["values"][0])), "the two values at the witness are equal")
    bad(edited(witness_cert, lambda c: c.__setitem__("domain", {"kind": "box", "lower": []})), "domain")
    bad(edited(witness_cert, lambda c: c.__setitem__("witness", ["1"])), "witness")


def test_hostile_work_is_refused_before_it_is_done(tree_cert, monkeypatch):
    monkeypatch.setitem(common._limits, "terms", 20)
    with pytest.raises(checker.UnreadableInput, match="over the checker's limit terms=20"):
        checker.check(tree_cert, None)
    monkeypatch.setitem(common._limits, "terms", 60)  # the reduction fits, the leaves' rows do not
    with pytest.raises(checker.UnreadableInput, match="the rows of the case tree's leaves"):
        checker.check(tree_cert, None)
    monkeypatch.setitem(common._limits, "terms", 50_000_000)
    monkeypatch.setitem(common._limits, "intermediate", 400)
    huge = edited(tree_cert, lambda c: c["tree"][3]["farkas"]["phase"][0].__setitem__(1, f"1/{3**1000}"))
    with pytest.raises(checker.UnreadableInput, match="a combination of rows"):
        checker.check(huge, None)


def test_the_witness_evaluation_is_bounded(witness_cert, monkeypatch):
    power = {"activation": {"name": "power", "degree": 50}, "layers": [{"W": [["1e80"]]}, {"W": [["1e80"]]},
                                                                       {"W": [["1"]]}]}
    cert = edited(witness_cert, lambda c: (c.__setitem__("networks", [power, power]), c.__setitem__("witness", ["1"]),
                                           c.__setitem__("values", [["1"], ["2"]])))
    with pytest.raises(checker.UnreadableInput, match="a value at the witness"):
        checker.check(cert, None)
    monkeypatch.setitem(common._limits, "intermediate", 40)
    wide = {"activation": {"name": "relu"}, "layers": [{"W": [[f"1/{p}"] for p in (7**20, 11**20, 13**20)]},
                                                       {"W": [["1", "1", "1"]]}]}
    cert = edited(cert, lambda c: c.__setitem__("networks", [wide, wide]))
    with pytest.raises(checker.UnreadableInput, match="at the witness"):
        checker.check(cert, None)


def test_certificates_are_json_and_the_bundle_reads_them(tree_cert, tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(tree_cert))
    assert checker.main([str(path)]) == 0


@pytest.fixture(scope="module")
def lemma_cert():
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from bench_deep_equiv import gadgets

    return functionally_equal(*gadgets((3, 4, 4, 1), 2, seed=1)).certificate


@pytest.mark.parametrize("edit, match", [
    (lambda c: c["lemmas"][0]["forms"][0]["terms"][0].__setitem__(1, "7"), "do not sum|does not|neuron"),
    (lambda c: c["lemmas"].pop(), "0 <= index < 1"),
    (lambda c: c["tree"][0]["equal"][0]["lemma"].append([2, "1"]),
     "a lemma row must be \\[index, multiplier\\] with 0 <= index < 2"),
    (lambda c: c["lemmas"][1]["tree"].__setitem__(0, {"equal": [{"lemma": [[1, "1"]]}]}), "0 <= index < 1"),
    (lambda c: c["lemmas"][0]["forms"][0]["terms"].append(c["lemmas"][0]["forms"][0]["terms"][0]), "each variable"),
    (lambda c: c["lemmas"][0]["forms"][0].pop("constant"), "a lemma's form is"),
    (lambda c: c["lemmas"][0].__setitem__("forms", []), "a lemma is"),
    (lambda c: c.__setitem__("lemmas", {}), "lemmas must be a list"),
    (lambda c: c["lemmas"][0]["tree"][-1].__setitem__("equal", [{}, {}]), "one entry per target \\(1\\)"),
])
def test_tampered_lemmas_are_rejected(lemma_cert, edit, match):
    assert checker.check(lemma_cert, None).startswith("equivalent")
    bad(edited(lemma_cert, edit), match)
