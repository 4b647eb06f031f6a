"""Exact inputs stay exact (issue 15, finding 1): the hash, the certificate and every check come from the
exact values; floats only feed proposals. Non-dyadic inputs, long doubles and integers beyond 2**53
are converted exactly or refused, never rounded."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.envelope import instance_sha256, verify
from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.exact.matrix import QMatrix, as_float_array
from exactrelu.exact.rationals import to_fraction
from exactrelu.instances import Instance, planted, read_instance, write_instance
from exactrelu.network import Network
from exactrelu.recover import recover
from exactrelu.recover.given_weights import certify_weights


def _thirds(n=120, seed=1) -> Instance:
    rng = np.random.default_rng(seed)
    X = QMatrix.from_rows([[f"{int(a)}/{b}" for a, b in zip(rng.integers(-60, 61, 4), (3, 7, 3, 7))] for _ in range(n)])
    net = Network.from_rows([[1, 2, -1], [0, 1, 1], [2, 0, 1]], [[1, -1, 0, 2], [0, 1, 2, -1], [1, 1, -1, 0]])
    return Instance(X, net.evaluate_exact(X), planted=net)


def test_non_dyadic_inputs_are_recovered_and_certified(tmp_path, capsys):
    inst = _thirds()
    path = write_instance(inst, tmp_path / "thirds.json")
    loaded = checker.load_instance(str(path))
    file_hash = checker.instance_sha256(loaded["inputs"], loaded["labels"])
    res = recover(read_instance(path), k=3, random_state=0)
    assert res.certificate["instance_sha256"] == file_hash
    assert res.network.equivalent(inst.planted)
    # with --no-check the certificate still names the exact instance, and the checker accepts it
    out = tmp_path / "c.json"
    assert main(["recover", str(path), "-k", "3", "--no-check", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["instance_sha256"] == file_hash
    assert main(["check", str(out), str(path)]) == 0


def test_strings_and_hash_come_from_the_exact_values_after_a_float_view():
    inst = _thirds(n=5)
    exact = inst.inputs.to_strings()
    inst.float_inputs(), inst.float_labels()  # the rounded float views the proposers use
    assert inst.input_strings() == exact
    assert any(x.endswith(("/3", "/7")) for row in exact for x in row)
    assert inst.label_strings() == inst.labels.to_strings()
    # a float view handed in (even a wrong one) is a proposal hint only: the hash does not move
    lying = Instance(inst.inputs, inst.labels, inputs_float=np.zeros((5, 4)), labels_float=np.zeros((5, 1)))
    assert instance_sha256(lying) == instance_sha256(inst)


def test_npz_writer_refuses_rounding_even_after_a_float_view(tmp_path):
    inst = _thirds(n=5)
    inst.float_inputs()
    with pytest.raises(InvalidInput, match="inputs are not exactly representable"):
        write_instance(inst, tmp_path / "x.npz")
    dyadic = planted(d=3, k=2, m=2, n=10, seed=0, input_bits=8)
    back = read_instance(write_instance(dyadic, tmp_path / "d.npz"))
    assert back.inputs == dyadic.inputs and back.labels == dyadic.labels


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="long double is float64 on this platform")
def test_long_doubles_are_converted_exactly():
    third = np.longdouble(1) / np.longdouble(3)
    a = np.array([[third, np.longdouble(0.5)]])
    Q = QMatrix.from_numpy(a)
    assert Q.to_fractions()[0][0] == Fraction(*third.as_integer_ratio()) != Fraction(1 / 3)
    assert to_fraction(third) == Fraction(*third.as_integer_ratio())
    inst = Instance.from_arrays(a, np.array([[third]]))
    assert inst.inputs.to_fractions()[0][0] == Fraction(*third.as_integer_ratio())
    with pytest.raises(InvalidInput, match="cannot hold exactly"):
        as_float_array(a)
    assert QMatrix.from_numpy(np.array([[0.25, 3]], dtype=np.longdouble)).float_source is not None  # fits: float path


def test_complex_inputs_are_refused_not_truncated():
    with pytest.raises(InvalidInput, match="complex"):
        Instance.from_arrays(np.array([[1 + 1j, 2]]), np.array([[1.0]]))


def test_coerce_keeps_large_integers_exact():
    big = 2**60 + 1
    assert QMatrix.coerce([[big, 0.5]]).to_fractions() == [[Fraction(big), Fraction(1, 2)]]
    assert QMatrix.coerce([[3, 0.5]]).float_source is not None  # small integers with floats: exact float path


def test_given_rational_weights_are_certified_as_given():
    X = QMatrix.from_rows([[1, 0], [2, 1], [-1, 1], [3, -2]])
    net = Network.from_rows([[Fraction(1, 3)]], [[1, 0]])
    inst = Instance(X, net.evaluate_exact(X))
    res = certify_weights(inst, [[Fraction(1, 3)]], [[1, 0]], as_given=True)
    assert res.how == "as given" and res.given_residual.squared_error == 0  # exactly, not to 5.6e-17
    assert verify(res.certificate, inst).startswith("realizes")
