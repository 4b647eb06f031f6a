"""The output bias c (``labels = f(inputs @ V.T + b) @ U.T + c``): model, files, certificates and the checker."""

import copy
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.claims.realizes import realizes_certificate, realizes_except_certificate, residual_certificate
from exactrelu.certificates.claims.residual import exact_residual
from exactrelu.certificates.envelope import verify
from exactrelu.errors import CertificateInvalid, InvalidInput
from exactrelu.exact import QMatrix
from exactrelu.instances import Instance, read_instance, write_instance
from exactrelu.io.weights import read_weights, write_weights
from exactrelu.network import Network
from exactrelu.testing import networks, planted_instances

NET = Network.from_rows(U=[[1, -2], [3, 0]], V=[[1, 1], [2, -1]], b=[0, "1/2"], c=["1/3", -5])
X = [[1, 0], [0, 1], [-1, 2], ["1/7", "2/9"]]


def _by_hand(net, rows):
    U, V, b, c = net.U.to_fractions(), net.V.to_fractions(), net.b_fractions(), net.c_fractions()
    out = []
    for x in rows:
        x = [Fraction(t) for t in x]
        h = [max(sum(v * t for v, t in zip(V[i], x)) + b[i], 0) ** net.activation.degree for i in range(net.k)]
        out.append([sum(U[r][i] * h[i] for i in range(net.k)) + c[r] for r in range(net.m)])
    return out


def test_evaluation_adds_c_exactly_and_in_floating_point():
    assert NET.evaluate_exact(X).to_fractions() == _by_hand(NET, X)
    assert np.allclose(NET.predict(np.array([[1.0, 0.0], [0.0, 1.0]])), [[float(v) for v in r] for r in _by_hand(NET, X[:2])])
    assert NET.has_output_bias and NET.without_output_bias().c is None
    plain = Network.from_rows(U=[[1, -2], [3, 0]], V=[[1, 1], [2, -1]], b=[0, "1/2"])
    assert not plain.has_output_bias and plain.c_fractions() == [0, 0]
    assert Network.from_rows(U=[[1]], V=[[1]], c=[0]).to_json().get("c") is None  # zero c is no c


def test_c_must_have_m_entries():
    for bad in ([1], [1, 2, 3], "1", [[1], [2]]):
        with pytest.raises(InvalidInput, match="c"):
            Network.from_rows(U=[[1, -2], [3, 0]], V=[[1, 1], [2, -1]], c=bad)
    with pytest.raises(InvalidInput, match="c must be a 2 x 1"):
        Network(NET.U, NET.V, NET.activation, NET.b, QMatrix.from_rows([[1, 2]]))


def test_c_is_part_of_the_canonical_form_and_of_equivalence():
    scaled = Network.from_rows(U=[[-1, "1/2"], [0, "3/2"]], V=[[4, -2], [2, 2]], b=[1, 0], c=["1/3", -5])
    assert scaled.equivalent(NET) and scaled.parameter_error(NET) == 0  # units permuted and rescaled, same c
    other = Network.from_rows(U=[[1, -2], [3, 0]], V=[[1, 1], [2, -1]], b=[0, "1/2"], c=["1/3", -4])
    assert not other.equivalent(NET) and other.parameter_error(NET) == 1
    assert NET.canonical().c_fractions() == [Fraction(1, 3), -5]


def test_json_weights_and_instances_keep_c(tmp_path):
    assert Network.from_json(json.loads(json.dumps(NET.to_json()))).equivalent(NET)
    write_weights(NET, tmp_path / "w.json")
    assert json.loads((tmp_path / "w.json").read_text())["c"] == ["1/3", "-5"]
    assert read_weights(tmp_path / "w.json").c_fractions() == NET.c_fractions()
    inst = Instance.from_arrays(X, NET.evaluate_exact(X).to_fractions(), planted=NET)
    back = read_instance(write_instance(inst, tmp_path / "i.json"))
    assert back.planted.c_fractions() == NET.c_fractions() and back.labels == inst.labels


def test_a_weights_file_without_c_means_zero(tmp_path):
    (tmp_path / "w.json").write_text(json.dumps({"format": "exactrelu.weights", "version": 1, "U": [[1]], "V": [["2"]]}))
    assert read_weights(tmp_path / "w.json").c is None


def test_realizes_with_c_is_checked_and_c_is_bound():
    inst = Instance.from_arrays(X, NET.evaluate_exact(X).to_fractions())
    cert = realizes_certificate(inst, NET)
    assert cert["c"] == ["1/3", "-5"] and "output bias" in verify(cert, inst)
    for name, tamper in {
        "c dropped": lambda c: c.pop("c"),
        "c changed by 2^-60": lambda c: c["c"].__setitem__(0, str(Fraction(c["c"][0]) + Fraction(1, 2**60))),
        "c swapped": lambda c: c.__setitem__("c", c["c"][::-1]),
        "c too short": lambda c: c["c"].pop(),
        "c too long": lambda c: c["c"].append("0"),
        "c not a list": lambda c: c.__setitem__("c", "1/3"),
        "c a float": lambda c: c["c"].__setitem__(0, 0.25),
        "c moved into b": lambda c: c.__setitem__("b", [c["c"][0], c["b"][1]]),
    }.items():
        bad = copy.deepcopy(cert)
        tamper(bad)
        with pytest.raises(CertificateInvalid):
            verify(bad, inst)


def test_certificates_without_c_keep_their_meaning():
    inst = Instance.from_arrays(X, NET.without_output_bias().evaluate_exact(X).to_fractions())
    cert = realizes_certificate(inst, NET.without_output_bias())
    assert "c" not in cert and verify(cert, inst) == verify({**cert, "c": ["0", "0"]}, inst)
    with pytest.raises(checker.CheckFailed):
        checker.check({**cert, "c": ["0", "1"]}, {"inputs": inst.input_strings(), "labels": inst.label_strings()})


@settings(max_examples=15)
@given(planted_instances(k=st.integers(1, 3), d=st.integers(1, 3), n=st.integers(1, 10), inputs="rational",
                         identifiable=False, bias=True, output_bias=True))
def test_the_checker_agrees_with_exact_evaluation_with_both_biases(inst):
    """Any network with hidden and output biases is certified on its own labels; one changed label is not."""
    net = inst.planted
    assert verify(realizes_certificate(inst, net), inst).startswith("realizes")
    Y = inst.labels.to_fractions()
    Y[0][-1] -= Fraction(2, 5)
    other = Instance(inst.inputs, QMatrix.from_rows(Y), inst.activation)
    with pytest.raises(CertificateInvalid, match="sample 0"):
        verify(realizes_certificate(other, net), other)
    res = exact_residual(net, other)
    assert res.failing == [(0, inst.m - 1)] and res.squared_error == Fraction(4, 25)
    assert "except 1 (" in verify(realizes_except_certificate(other, net, res.failing), other)
    assert verify(residual_certificate(other, net), other).startswith("residual")


@settings(max_examples=20)
@given(networks(k=st.integers(1, 3), bias=True, output_bias=True), st.integers(0, 2**32 - 1))
def test_evaluation_matches_the_definition(net, seed):
    rows = np.random.default_rng(seed).integers(-3, 4, size=(4, net.d)).tolist()
    assert net.evaluate_exact(rows).to_fractions() == _by_hand(net, rows)
