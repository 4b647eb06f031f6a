"""The checker's claims about one network: `realizes` with hidden biases, `realizes-except`, `residual`."""

import copy
import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.claims.realizes import realizes_certificate, realizes_except_certificate, residual_certificate
from exactrelu.certificates.claims.residual import exact_residual
from exactrelu.certificates.envelope import verify
from exactrelu.errors import CertificateInvalid
from exactrelu.exact import QMatrix
from exactrelu.instances import Instance, planted
from exactrelu.instances.checker_view import checker_instance
from exactrelu.network import Activation, Network
from exactrelu.testing import planted_instances


def _check(cert, inst):
    return checker.check(cert, checker_instance(inst))


@pytest.fixture(scope="module")
def biased():
    return planted(d=4, k=3, m=3, n=60, seed=5, bias=2.0)


def test_biased_realizes_is_valid_and_b_is_bound(biased):
    cert = realizes_certificate(biased, biased.planted)
    assert "b" in cert and "hidden biases" in verify(cert, biased)
    for name, tamper in {
        "b dropped": lambda c: c.pop("b"),
        "b entry changed": lambda c: c["b"].__setitem__(0, str(Fraction(c["b"][0]) + Fraction(1, 1000))),
        "b shuffled": lambda c: c.__setitem__("b", c["b"][1:] + c["b"][:1]),
        "b too short": lambda c: c["b"].pop(),
        "b too long": lambda c: c["b"].append("0"),
        "b not a list": lambda c: c.__setitem__("b", "0"),
        "b a float": lambda c: c["b"].__setitem__(0, 0.5),
        "b garbage": lambda c: c["b"].__setitem__(0, "1/0"),
    }.items():
        bad = copy.deepcopy(cert)
        tamper(bad)
        if bad.get("b") == cert["b"]:  # a shuffle of equal entries changes nothing
            continue
        with pytest.raises(checker.CheckFailed):
            _check(bad, biased)
        with pytest.raises(CertificateInvalid):
            verify(bad, biased)


def test_unbiased_certificates_keep_their_meaning():
    inst = planted(d=3, k=2, m=2, n=30, seed=1)
    cert = realizes_certificate(inst, inst.planted)
    assert "b" not in cert  # no field when every bias is zero: old certificates read the same
    assert verify(cert, inst) == verify({**cert, "b": ["0", "0"]}, inst)
    with pytest.raises(checker.CheckFailed):
        _check({**cert, "b": ["1", "0"]}, inst)


@settings(max_examples=15)
@given(planted_instances(k=st.integers(1, 3), d=st.integers(1, 3), n=st.integers(1, 12), inputs="rational",
                         identifiable=False, bias=True))
def test_checker_agrees_with_exact_evaluation_on_biased_networks(inst):
    """Any biased network (any activation, rational inputs) is certified on its own labels; one changed label is not."""
    net = inst.planted
    assert verify(realizes_certificate(inst, net), inst).startswith("realizes")
    Y = inst.labels.to_fractions()
    Y[-1][-1] += Fraction(1, 3)  # the last entry of the last sample
    other = Instance(inst.inputs, QMatrix.from_rows(Y), inst.activation)
    with pytest.raises(CertificateInvalid, match=f"sample {inst.n - 1}"):
        verify(realizes_certificate(other, net), other)
    res = exact_residual(net, other)
    assert res.failing == [(inst.n - 1, inst.m - 1)] and res.squared_error == Fraction(1, 9)
    cert = realizes_except_certificate(other, net, res.failing)
    assert "except 1 (" in verify(cert, other)
    assert verify(residual_certificate(other, net), other).startswith("residual")


def test_kinks_at_exactly_zero_with_biases():
    # pre-activations exactly 0 at every sample: relu(0) = 0 and 0^c = 0
    net = Network.from_rows([[1, -2]], [[1, 1], [2, 0]], Activation.power(2), b=["-1/3", "-2/3"])
    X = QMatrix.from_rows([["1/3", 0], [0, "1/3"], ["1/3", "1/3"]])
    inst = Instance(X, net.evaluate_exact(X), Activation.power(2))
    assert inst.labels.to_fractions()[:2] == [[0], [0]]
    assert verify(realizes_certificate(inst, net), inst).startswith("realizes")


@pytest.fixture(scope="module")
def corrupted():
    inst = planted(d=3, k=2, m=4, n=40, seed=3, bias=1.0)
    Y = inst.labels.to_fractions()
    bad = [(2, 0), (2, 3), (17, 1), (39, 3)]
    for j, r in bad:
        Y[j][r] += Fraction(1, 10**30) if (j, r) == (17, 1) else 5  # a tiny corruption is still a corruption
    return Instance(inst.inputs, QMatrix.from_rows(Y), None, inst.planted), bad


def test_realizes_except_lists_exactly_the_corrupted_entries(corrupted):
    inst, bad = corrupted
    res = exact_residual(inst.planted, inst, max_listed=None)
    assert res.failing == bad and res.complete
    cert = realizes_except_certificate(inst, inst.planted, reversed(bad + bad))  # sorted, duplicates dropped
    assert cert["except"] == [list(e) for e in bad]
    assert "all 160 entries (40 samples x 4 outputs) except 4 (2.5%)" in verify(cert, inst)
    for name, entries in {
        "missing one": bad[:-1], "extra clean entry": sorted(bad + [(0, 0)]), "empty": [],
        "shuffled": [bad[1], bad[0]] + bad[2:], "duplicate": bad[:1] + bad, "sample out of range": bad + [(40, 0)],
        "output out of range": bad[:-1] + [(39, 4)], "negative": [(-1, 0)] + bad,
    }.items():
        c = copy.deepcopy(cert)
        c["except"] = [list(e) for e in entries]
        with pytest.raises(checker.CheckFailed):
            _check(c, inst)
    for malformed in ("2,0", [[2, 0, 1]], [[2.0, 0]], [[True, 0]], [["2", "0"]], None):
        with pytest.raises(checker.CheckFailed):
            _check({**cert, "except": malformed}, inst)
    c = copy.deepcopy(cert)
    del c["except"]
    with pytest.raises(checker.CheckFailed):
        _check(c, inst)
    with pytest.raises(checker.CheckFailed, match="unknown fields"):
        _check({**realizes_certificate(inst, inst.planted), "except": cert["except"]}, inst)


def test_residual_is_exact_and_tampering_is_rejected(corrupted):
    inst, bad = corrupted
    res = exact_residual(inst.planted, inst)
    expected = 3 * 25 + Fraction(1, 10**60)
    assert res.squared_error == expected and res.max_abs_error == 5 and res.n_failing == 4
    assert res.worst in bad and res.first == bad[0] and 0 < res.relative() < 1
    cert = residual_certificate(inst, inst.planted, residual=res)
    assert cert["squared_error"] == str(expected) and cert["max_abs_error"] == "5"
    assert verify(cert, inst).startswith("residual")
    no_max = residual_certificate(inst, inst.planted, max_abs=False)
    assert "max_abs_error" not in no_max and verify(no_max, inst).startswith("residual")
    for field, value in {"squared_error": str(expected - Fraction(1, 10**60)), "max_abs_error": "4",
                         "squared_error ": "75"}.items():
        with pytest.raises(checker.CheckFailed):
            _check({**cert, field: value}, inst)
    for value in (75.0, None, "x", "1/0"):
        with pytest.raises(checker.CheckFailed):
            _check({**cert, "squared_error": value}, inst)
    c = dict(cert)
    del c["squared_error"]
    with pytest.raises(checker.CheckFailed, match="squared_error"):
        _check(c, inst)
    c = copy.deepcopy(cert)
    c["V"][0][0] = str(Fraction(c["V"][0][0]) + 1)  # other weights: the stated error is no longer theirs
    with pytest.raises(checker.CheckFailed):
        _check(c, inst)


def test_certificate_files_round_trip(tmp_path, corrupted):
    from exactrelu.certificates.envelope import write_certificate
    from exactrelu.instances import write_instance

    inst, bad = corrupted
    ipath = write_instance(inst, tmp_path / "inst.json")
    for cert in (realizes_except_certificate(inst, inst.planted, bad), residual_certificate(inst, inst.planted)):
        cpath = write_certificate(cert, tmp_path / "cert.json")
        assert checker.main([str(cpath), str(ipath)]) == 0
        assert json.loads(cpath.read_text())["claim"] == cert["claim"]
