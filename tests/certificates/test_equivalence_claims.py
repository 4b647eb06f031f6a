"""The claims ``equivalent`` and ``not-equivalent``: the checker accepts what is true, rejects every tampering.

The corpus in tests/corpus/ (made by tests/corpus/make_corpus.py) keeps valid and tampered certificates of both
claims as files (any other checker can be held to them); the tamperings below are built from fresh certificates.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.trusted import equivalence as trusted
from exactrelu.equiv import canonical_form, functionally_equal
from exactrelu.network import Activation, Network
from exactrelu.testing import networks

# 3 relu(x + 2y + 1) - relu(y) + relu(-x) + 1/2: one flipped unit, so the canonical form has an affine part -x
BASE = Network.from_rows(U=[[3, -1, 1]], V=[[1, 2], [0, 1], [-1, 0]], b=[1, 0, 0], c=["1/2"])
# the same function: a rescaled unit, relu(-x) as relu(x) - relu(x) + relu(-x), and the block
# relu(x - y) - relu(y - x) - relu(x - y + 3) + relu(y - x - 3) = -3 compensated by c
SAME = Network.from_rows(U=[["3/2", -1, "1/2", -1, 1, 1, -1, -1, 1]],
                         V=[[2, 4], [0, 1], [2, 0], [1, 0], [-1, 0], [1, -1], [-1, 1], [1, -1], [-1, 1]],
                         b=[2, 0, 0, 0, 0, 0, 0, 3, -3], c=["7/2"])


def equivalent_cert():
    res = functionally_equal(BASE, SAME)
    assert res.equal
    return json.loads(json.dumps(res.certificate))


def not_equivalent_cert():
    other = Network.from_rows(U=[[3, -1, 1]], V=[[1, 2], [0, 1], [-1, 0]], b=[1, 1, 0], c=["1/2"])
    res = functionally_equal(BASE, other)
    assert not res.equal
    return json.loads(json.dumps(res.certificate))


def rejected(cert, match: str):
    with pytest.raises(checker.CheckFailed, match=match):
        checker.check(cert, None)


def test_valid_certificates_pass_without_an_instance(tmp_path, capsys):
    for cert in (equivalent_cert(), not_equivalent_cert()):
        path = tmp_path / "c.json"
        path.write_text(json.dumps(cert))
        assert checker.main([str(path)]) == 0
        assert capsys.readouterr().out.startswith(f"VALID: {cert['claim']}:")


def test_the_checker_recomputes_the_libraries_canonical_form():
    cert = equivalent_cert()
    for net in cert["networks"]:
        parsed = trusted._network(net, 1)
        assert trusted.canonical_form(parsed) == canonical_form(Network.from_json(net)).to_json() == cert["canonical"]


def test_a_unit_moved_between_hyperplanes_is_rejected():
    cert = equivalent_cert()
    net = cert["networks"][1]
    net["V"][0], net["b"][0] = list(net["V"][2]), net["b"][2]     # unit 0 now sits on unit 2's hyperplane
    rejected(cert, "canonical form of network 2")
    cert = equivalent_cert()
    h = cert["canonical"]["hyperplanes"]
    h["coefficients"][0], h["coefficients"][1] = h["coefficients"][1], h["coefficients"][0]
    rejected(cert, "canonical form of network 1")


def test_a_coefficient_off_by_2_to_the_minus_60_is_rejected():
    for where in ("canonical", "U", "c"):
        cert = equivalent_cert()
        if where == "canonical":
            row = cert["canonical"]["hyperplanes"]["coefficients"][0]
            row[0] = str(Fraction(row[0]) + Fraction(1, 2**60))
        elif where == "U":
            cert["networks"][1]["U"][0][0] = str(Fraction(cert["networks"][1]["U"][0][0]) + Fraction(1, 2**60))
        else:
            cert["networks"][0]["c"][0] = str(Fraction(cert["networks"][0]["c"][0]) + Fraction(1, 2**60))
        rejected(cert, "canonical form of network")


def test_an_affine_part_dropped_is_rejected():
    cert = equivalent_cert()
    assert cert["canonical"]["linear"] == [["-1", "0"]]
    cert["canonical"]["linear"] = [["0", "0"]]
    rejected(cert, "canonical form of network 1")
    cert = equivalent_cert()
    net = cert["networks"][1]
    for key in ("V", "b"):
        del net[key][5:7]        # the pair relu(x - y) - relu(y - x) = x - y
    del net["U"][0][5:7]
    rejected(cert, "canonical form of network 2")


def test_a_witness_on_a_kink_that_does_not_differ_is_rejected():
    cert = not_equivalent_cert()
    # 3 relu(x + 2y + 1) - relu(y + b) + relu(-x) + 1/2 with b = 0, 1; at (1, -3) every unit is off: both 1/2
    cert["witness"], cert["values"] = ["1", "-3"], [["1/2"], ["1/2"]]
    rejected(cert, "values at the witness are equal")
    cert["values"] = [["1/2"], ["3/2"]]
    rejected(cert, "network 2 at the witness is 1/2, not the stated 3/2")


def test_a_stated_value_off_by_2_to_the_minus_60_is_rejected():
    cert = not_equivalent_cert()
    cert["values"][0][0] = str(Fraction(cert["values"][0][0]) + Fraction(1, 2**60))
    rejected(cert, "network 1 at the witness")


@pytest.mark.parametrize("tamper, match", [
    (lambda c: c.pop("canonical"), "canonical form"),
    (lambda c: c.__setitem__("networks", c["networks"][:1]), "two networks"),
    (lambda c: c["networks"][1].__setitem__("activation", {"name": "power", "degree": 2}), "differ in activation"),
    (lambda c: c["networks"][1].__setitem__("V", [r + ["0"] for r in c["networks"][1]["V"]]), "input dimension"),
    (lambda c: c["networks"][0].__setitem__("W", []), "unknown fields"),
    (lambda c: c.__setitem__("extra", 1), "unknown fields"),
    (lambda c: c["networks"][0].__setitem__("U", [["1", "2", "3", "4"]]), "U of network 1"),
    (lambda c: c["networks"][0].__setitem__("b", "0"), "b of network 1"),
    (lambda c: c["networks"][0]["V"].__setitem__(0, ["1", "1/0"]), "denominator"),
    (lambda c: c["networks"][0]["V"].__setitem__(0, ["1", "x"]), "not a rational"),
    (lambda c: c["canonical"]["hyperplanes"]["coefficients"][0].__setitem__(0, "12/2"), "canonical form"),
    (lambda c: c["networks"].__setitem__(0, []), "must be an object"),
])
def test_malformed_equivalent_certificates_are_rejected(tamper, match):
    cert = equivalent_cert()
    tamper(cert)
    rejected(cert, match)


def test_malformed_witnesses_are_rejected():
    for witness, values, match in ((["1"], [["0"], ["1"]], "witness"), (["1", "2"], [["0"]], "values"),
                                   (["1", "2"], [["0", "1"], ["1", "1"]], "values")):
        cert = not_equivalent_cert()
        cert["witness"], cert["values"] = witness, values
        rejected(cert, match)


def test_rows_with_other_spellings_are_read_exactly():
    """Decimal strings and JSON integers take the slow path and mean the same numbers."""
    assert trusted._row(["1/2", "-3", "7/5"]) == ([1, -3, 7], [2, 1, 5])
    assert trusted._row([1, "0.25", "-2/4"]) == ([1, 1, -1], [1, 4, 2])
    assert trusted._row(["-7"]) == ([-7], None)
    with pytest.raises(checker.CheckFailed):
        trusted._row(["1_000"])
    with pytest.raises(checker.CheckFailed):
        trusted._row(["\u0661"])           # an Arabic-Indic digit: int() would read it, the checker does not


@settings(deadline=None)
@given(networks(k=st.integers(1, 4), d=st.integers(1, 3), m=st.integers(1, 2), bias=True, output_bias=True,
                activation=st.sampled_from([Activation.relu(), Activation.power(2), Activation.power(3)])))
def test_checker_and_library_agree_on_the_canonical_form(net):
    parsed = trusted._network(json.loads(json.dumps(net.to_json())), 1)
    assert trusted.canonical_form(parsed) == canonical_form(net).to_json()
    x = [Fraction(1, 3)] * net.d
    assert trusted._evaluate(parsed, x) == net.evaluate_exact([x]).to_fractions()[0]


def test_a_copy_is_not_changed_by_checking():
    cert = equivalent_cert()
    before = copy.deepcopy(cert)
    checker.check(cert, None)
    assert cert == before
