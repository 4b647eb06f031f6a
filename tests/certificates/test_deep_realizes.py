"""realizes and residual about networks of any depth ("layers" in the certificate), written and checked."""

import copy
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.claims.realizes import realizes_certificate, residual_certificate
from exactrelu.certificates.envelope import verify
from exactrelu.instances.checker_view import checker_instance
from exactrelu.certificates.trusted import common
from exactrelu.errors import NotRealizable
from exactrelu.exact.matrix import QMatrix
from exactrelu.instances import Instance
from exactrelu.network import Activation, Network
from exactrelu.recover.given_weights import certify_weights


def _deep(seed=0, activation=None):
    rng = np.random.default_rng(seed)
    net = Network.from_layers([(rng.standard_normal((4, 3)), rng.standard_normal(4)), (rng.integers(-2, 3, (3, 4)), None),
                               (rng.standard_normal((2, 3)), ["1/3", -1])], activation or Activation.relu())
    X = QMatrix.from_numpy(rng.standard_normal((40, 3)))
    return net, Instance(X, net.evaluate_exact(X))


def test_realizes_and_residual_of_a_deep_network():
    net, inst = _deep()
    cert = realizes_certificate(inst, net)
    assert "layers" in cert and "U" not in cert and len(cert["layers"]) == 3
    assert verify(cert, inst) == "realizes: 40 samples x 2 outputs equal exactly (layers 3-4-3-2, activation degree 1)"
    data = checker_instance(inst)
    assert checker.combine(cert, [checker.check_range(cert, data, 0, 17), checker.check_range(cert, data, 17, 40)])
    L = [(layer.W.to_fractions(), layer.b_fractions()) for layer in net.layers]
    L[1][1][0] += Fraction(1, 5)
    other = Network.from_layers(L)
    res = certify_weights(inst, other, residual_fallback=True)
    assert res.how == "residual of the given weights" and res.certificate["claim"] == "residual"
    assert "layers 3-4-3-2" in res.checked
    with pytest.raises(NotRealizable, match="recovery from the labels is for two-layer networks; this one has depth 3"):
        certify_weights(inst, other)
    assert certify_weights(inst, net).how == "as given"
    power, pinst = _deep(1, Activation.power(2))
    assert verify(realizes_certificate(pinst, power), pinst).startswith("realizes: 40 samples")


@pytest.mark.parametrize("edit, match", [
    (lambda c: c["layers"][2]["b"].__setitem__(0, "1/4"), "sample 0, output 0"),
    (lambda c: c["layers"][1].__setitem__("b", ["9", "9", "9"]), "the network's value differs"),
    (lambda c: c.__setitem__("U", [["1"]]), "'layers' or U, V, b, c, not both"),
    (lambda c: c.__setitem__("layers", c["layers"][:1] + [{"W": [["1", "1", "1", "1"]] * 2}]),
     "must be two or more, from the instance's d = 3 inputs to its m = 2 outputs|differs"),
    (lambda c: c.__setitem__("layers", c["layers"][2:]), "two or more"),
    (lambda c: c["layers"][0].__setitem__("W", [r[:2] for r in c["layers"][0]["W"]]), "must be two or more"),
])
def test_tampered_deep_claims_are_rejected(edit, match):
    net, inst = _deep()
    cert = copy.deepcopy(realizes_certificate(inst, net))
    edit(cert)
    with pytest.raises(checker.CheckFailed, match=match):
        checker.check(cert, checker_instance(inst))


def test_the_hidden_layers_are_bounded_before_any_sample(monkeypatch):
    net, inst = _deep(2, Activation.power(3))
    cert = realizes_certificate(inst, net)
    assert verify(cert, inst)
    monkeypatch.setitem(common._limits, "intermediate", 60)
    with pytest.raises(checker.UnreadableInput, match="the exact values of hidden layer 1"):
        checker.check(cert, checker_instance(inst))
    cert = residual_certificate(inst, net)
    monkeypatch.setitem(common._limits, "intermediate", 100_000)
    assert verify(cert, inst).startswith("residual: 40 samples x 2 outputs, squared error 0")
