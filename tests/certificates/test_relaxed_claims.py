"""Relaxed leaves (trusted/phases.py ``_relaxed`` and the chain's rows): forged certificates are refused.

The corpus (tests/corpus, ``_relaxed_claims``) holds a valid relaxed leaf (|x| against relu(x + 1/8) + relu(-x + 1/8)
within 2 on [-1, 1]) and three forgeries; these forge it further: tampered multipliers, bounds, lines, the order of
the chain, chain rows where no chain is, and a false claim. Each forgery is refused (0 false accepts).
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from exactrelu.certificates import checker

from test_box_claims import _load, _rejects


def _cert() -> dict:
    return _load("valid", "deep-epsilon-relaxed-box")


def _body(cert: dict) -> dict:
    return cert["tree"][0]["relaxed"]


def _multipliers(cert: dict) -> list:
    """Every [index, multiplier] entry of every combination in the relaxed leaf (chain proofs and the leaf's)."""
    body = _body(cert)
    combos = [c for e in body["chain"] for c in e[5:]] + [c for pair in body["leaf"]["bounds"] for c in pair]
    return [row for comb in combos for rows in comb.values() for row in rows]


def test_the_corpus_relaxed_leaf_is_valid_and_leaves_every_phase_open():
    cert = _cert()
    assert checker.check(cert, None).startswith("epsilon-equivalent: ")
    assert len(cert["tree"]) == 1 and [e[0] for e in _body(cert)["chain"]] == [0, 2, 3, 1]


def test_every_single_changed_multiplier_is_refused():
    """Theorem: each row of a combination has a non-zero coefficient, so changing one multiplier changes the sum."""
    n = len(_multipliers(_cert()))
    assert n >= 15
    for i in range(n):
        for delta in (Fraction(1, 1024), Fraction(-1, 3)):
            cert = _cert()
            row = _multipliers(cert)[i]
            row[1] = str(Fraction(row[1]) + delta)
            _rejects(cert, "does not prove|negative multiplier")


@pytest.mark.parametrize("entry, values, message", [
    (0, ["-1/2", "1", "2/3", "1/3"], "does not prove neuron 0 >= -1/2"),      # l raised above min z (a false bound)
    (0, ["-1", "1/2", "1/3", "1/3"], "does not prove neuron 0 <= 1/2"),       # U lowered below max z
    (1, ["-7/8", "9/8", "1/2", "7/16"], "below relu at l or U"),              # a line under relu at U
    (1, ["-7/8", "9/8", "1", "0"], "below relu at l or U"),                   # y <= z: under relu at l < 0
    (0, ["1", "-1", "1", "0"], "below relu at l or U"),                       # l > U
])
def test_a_chain_entry_with_a_wrong_bound_or_line_is_refused(entry, values, message):
    cert = _cert()
    _body(cert)["chain"][entry][1:5] = values
    _rejects(cert, message)


def test_a_looser_true_bound_with_its_line_is_accepted_and_used_as_stated():
    """Soundness does not need the tightest bounds: a wider [l, U] with its chord is valid; the leaf must then prove
    its claim with the wider lines (here it no longer does)."""
    cert = _cert()
    _body(cert)["chain"][0][1:5] = ["-2", "1", "1/3", "2/3"]    # z = x >= -1 >= -2; chord of relu on [-2, 1]
    _rejects(cert, "does not prove neuron 1")                    # neuron 1's bound cited the old line


def test_rows_of_a_neuron_before_its_bounds_are_established_are_refused():
    cert = _cert()
    chain = _body(cert)["chain"]
    chain.insert(0, chain.pop())                                 # neuron 1 first: its upper bound cites line 0
    _rejects(cert, "line row of neuron 0, whose bounds the chain has not established before it")
    cert = _cert()
    _body(cert)["chain"][0][6] = {"ymax": [[0, "1"]]}            # its own row, in its own proof
    _rejects(cert, "ymax row of neuron 0, whose bounds")


@pytest.mark.parametrize("kind", ["line", "ymax", "lo", "hi"])
def test_chain_rows_outside_a_relaxed_leaf_are_refused(kind):
    """The chain's rows hold only inside its leaf (mutant: the chain kept after the leaf, or never required)."""
    cert = _cert()
    body = _body(cert)
    leaf = copy.deepcopy(body["leaf"])
    leaf["bounds"][0][0] = {kind: [[0, "1"]]}
    cert["tree"] = [leaf]
    _rejects(cert, f"a {kind} row of neuron 0, whose bounds")
    cert = _cert()
    cert["tree"] = [{"split": 0}, {"relaxed": _body(cert)}, {"fix": [1, True], "bound": {kind: [[0, "1"]]}},
                    copy.deepcopy(body["leaf"])]
    _rejects(cert, f"a {kind} row of neuron 0, whose bounds")


@pytest.mark.parametrize("change, message", [
    (lambda b: b["chain"].append(copy.deepcopy(b["chain"][0])), "at most once"),
    (lambda b: b["chain"][0].pop(), "a chain entry is"),
    (lambda b: b["chain"][0].__setitem__(0, 4), "a chain entry is"),
    (lambda b: b["chain"][0].__setitem__(0, True), "a chain entry is"),
    (lambda b: b.__setitem__("leaf", {"relaxed": copy.deepcopy(b)}), "not relaxed"),
    (lambda b: b.__setitem__("extra", 1), "a relaxed leaf is"),
    (lambda b: b.__setitem__("chain", {}), "a relaxed leaf is"),
    (lambda b: b["chain"][0][5]["lower"][0].__setitem__(1, "-1"), "negative multiplier"),
    (lambda b: b["leaf"]["bounds"][0][0]["line"][0].__setitem__(1, "-1"), "negative multiplier"),
    (lambda b: b["chain"][0].__setitem__(3, "1/0"), "denominator"),
])
def test_malformed_relaxed_leaves_are_refused(change, message):
    cert = _cert()
    change(_body(cert))
    with pytest.raises((checker.CheckFailed, checker.UnreadableInput), match=message):
        checker.check(cert, None)


def test_a_false_claim_is_refused_with_the_relaxed_proof():
    """max |f - g| on [-1, 1] is 1/4 (at x = 0): the relaxed leaf of epsilon 2 proves nothing about epsilon 1/5."""
    cert = _cert()
    cert["property"]["epsilon"] = "1/5"
    _rejects(cert, "does not prove output 0")
    cert["domain"] = {"kind": "R^d"}
    _rejects(cert, "needs a box domain")
