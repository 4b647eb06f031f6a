import json
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.errors import InvalidInput
from exactrelu.exact import QMatrix
from exactrelu.instances import Instance, planted, read_instance, write_instance
from exactrelu.network import Activation


def test_planted_reproducible_and_exact():
    a = planted(d=4, k=2, m=3, n=30, seed=7)
    b = planted(d=4, k=2, m=3, n=30, seed=7)
    c = planted(d=4, k=2, m=3, n=30, seed=8)
    assert a.inputs == b.inputs and a.labels == b.labels and a.planted.equivalent(b.planted)
    assert not (a.inputs == c.inputs)
    assert a.planted.evaluate_exact(a.inputs) == a.labels
    assert np.allclose(a.planted.predict(a.float_inputs()), a.float_labels())


@pytest.mark.parametrize("inputs", ["gaussian", "uniform", "laplace", "rademacher-mixture", "integer"])
def test_input_distributions(inputs):
    inst = planted(d=3, k=2, m=2, n=20, seed=0, inputs=inputs, weights="dyadic")
    assert inst.planted.evaluate_exact(inst.inputs) == inst.labels


def test_covariance_and_errors():
    S = np.array([[2.0, 0.5], [0.5, 1.0]])
    inst = planted(d=2, k=1, m=1, n=10, covariance=S, seed=1)
    assert inst.n == 10
    with pytest.raises(InvalidInput, match="positive definite"):
        planted(d=2, k=1, m=1, n=10, covariance=-S)
    with pytest.raises(InvalidInput, match="2 x 2"):
        planted(d=2, k=1, m=1, n=10, covariance=np.eye(3))
    with pytest.raises(InvalidInput, match="gaussian"):
        planted(d=2, k=1, m=1, n=10, covariance=S, inputs="uniform")
    with pytest.raises(InvalidInput, match="unknown input"):
        planted(d=2, k=1, m=1, n=10, inputs="cauchy")
    with pytest.raises(InvalidInput, match="weight kind"):
        planted(d=2, k=1, m=1, n=10, weights="gaussian")
    for bad in (dict(d=0), dict(k=-1), dict(n=1.5), dict(m=True)):
        args = dict(d=2, k=1, m=1, n=5) | bad
        with pytest.raises(InvalidInput):
            planted(**args)
    with pytest.raises(InvalidInput):
        planted(d=2, k=1, m=1, n=5, weight_bound=0)


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_round_trip(tmp_path, suffix):
    inst = planted(d=3, k=2, m=2, n=25, seed=3, activation=Activation.power(2) if suffix == ".json" else Activation.relu(),
                   input_bits=None if suffix == ".json" else 12)
    path = write_instance(inst, tmp_path / f"i{suffix}")
    back = read_instance(path)
    assert back.inputs == inst.inputs and back.labels == inst.labels
    if suffix == ".json":
        assert back.activation == inst.activation and back.planted.equivalent(inst.planted)


def test_npz_refuses_inexact_labels(tmp_path):
    with pytest.raises(InvalidInput, match="float64"):
        write_instance(planted(d=3, k=2, m=2, n=25, seed=3), tmp_path / "full.npz")  # 76-bit labels
    with pytest.raises(InvalidInput, match="input_bits"):
        planted(d=3, k=2, m=2, n=25, input_bits=99)
    inst = Instance(QMatrix.from_rows([[1]]), QMatrix.from_rows([["1/3"]]))
    with pytest.raises(InvalidInput, match="json"):
        write_instance(inst, tmp_path / "x.npz")
    write_instance(inst, tmp_path / "x.json")
    assert read_instance(tmp_path / "x.json").labels == inst.labels


def test_shape_mismatch():
    with pytest.raises(InvalidInput, match="samples"):
        Instance.from_arrays(np.zeros((3, 2)), np.zeros((4, 1)))
    inst = Instance.from_arrays(np.ones((3, 2)), np.ones(3))
    assert inst.m == 1


@pytest.mark.parametrize("content,match", [
    ("not json", "not valid JSON"),
    ('{"format": "other"}', "not an exactrelu instance"),
    ('{"format": "exactrelu.instance", "version": 2}', "version"),
    ('{"format": "exactrelu.instance", "version": 1, "inputs": [[1]]}', "missing 'labels'"),
    ('{"format": "exactrelu.instance", "version": 1, "inputs": [[1]], "labels": [[1], [2]]}', "samples"),
    ('{"format": "exactrelu.instance", "version": 1, "inputs": [[1, 2], [3]], "labels": [[1], [2]]}', "row 1"),
    ('{"format": "exactrelu.instance", "version": 1, "inputs": [["x"]], "labels": [[1]]}', "not a rational"),
    ('{"format": "exactrelu.instance", "version": 1, "inputs": [[1.5]], "labels": [[1]]}', "rational strings"),
    ('{"format": "exactrelu.instance", "version": 1, "inputs": [[1]], "labels": [[1]], "activation": {"name": "tanh"}}', "activation"),
    ('{"format": "exactrelu.instance", "version": 1, "inputs": [], "labels": []}', "non-empty"),
    ('\xff\xfe', "JSON"),
])
def test_malformed_json(tmp_path, content, match):
    p = tmp_path / "bad.json"
    p.write_text(content, encoding="latin1")
    with pytest.raises(InvalidInput, match=match):
        read_instance(p)


def test_malformed_npz(tmp_path):
    p = tmp_path / "a.npz"
    np.savez(p, inputs=np.ones((3, 2)))
    with pytest.raises(InvalidInput, match="labels"):
        read_instance(p)
    np.savez(p, inputs=np.array([["a", "b"]]), labels=np.ones((1, 1)))
    with pytest.raises(InvalidInput, match="dtype"):
        read_instance(p)
    np.savez(p, inputs=np.array([[np.nan, 1.0]]), labels=np.ones((1, 1)))
    with pytest.raises(InvalidInput, match="non-finite"):
        read_instance(p)
    np.savez(p, inputs=np.array([[{"x": 1}]], dtype=object), labels=np.ones((1, 1)))
    with pytest.raises(InvalidInput):
        read_instance(p)  # object arrays need pickle, which is refused
    (tmp_path / "t.npz").write_bytes(b"PK\x03\x04garbage")
    with pytest.raises(InvalidInput, match="npz"):
        read_instance(tmp_path / "t.npz")
    with pytest.raises(InvalidInput, match="no such"):
        read_instance(tmp_path / "missing.json")


def test_one_dimensional_label_lists_work_like_one_dimensional_arrays():
    from fractions import Fraction

    from exactrelu.recover import recover

    inst = planted(d=3, k=1, m=1, n=40, seed=4)
    X = inst.float_inputs()
    column = [row[0] for row in inst.labels.to_fractions()]
    for labels in (column, tuple(column), [str(y) for y in column]):
        other = Instance.from_arrays(X, labels)
        assert other.m == 1 and other.labels == inst.labels
    floats = [float(y) for y in column]  # rounded, but the same numbers either way
    assert Instance.from_arrays(X, floats).labels == Instance.from_arrays(X, np.array(floats)).labels
    res = recover(X, column, k=1)
    assert res.network.equivalent(inst.planted)
    assert Instance.from_arrays([[1, 2]], [Fraction(1, 3)]).labels.to_strings() == [["1/3"]]


def test_planted_biases_scale_and_exact_values(tmp_path):
    inst = planted(d=3, k=3, m=3, n=60, seed=2, bias=1.5)
    b = inst.planted.b_fractions()
    assert inst.planted.has_bias and all(abs(x) <= 1.5 and (4 * x).denominator == 1 for x in b)
    assert inst.planted.evaluate_exact(inst.inputs) == inst.labels
    assert np.allclose(inst.planted.predict(inst.float_inputs()), inst.float_labels())
    assert planted(d=3, k=3, m=3, n=60, seed=2, bias=1.5).planted.equivalent(inst.planted)  # reproducible
    given = planted(d=2, k=2, m=2, n=20, seed=0, bias=["1/3", -1])
    assert given.planted.b_fractions() == [Fraction(1, 3), -1]  # exact, never rounded
    back = read_instance(write_instance(given, tmp_path / "b.json"))
    assert back.planted.equivalent(given.planted) and back.planted.b_fractions() == [Fraction(1, 3), -1]
    assert "b" not in json.loads(write_instance(planted(d=2, k=1, m=1, n=5), tmp_path / "p.json").read_text())["planted"]
    for bad in (0, -1.0, float("inf"), float("nan"), [1], "1", True):
        with pytest.raises(InvalidInput, match="bias"):
            planted(d=2, k=2, m=2, n=5, bias=bad)


def test_generate_with_biases(tmp_path, capsys):
    from exactrelu.cli import main

    out = tmp_path / "b.json"
    assert main(["generate", "-d", "3", "-k", "2", "-m", "2", "-n", "30", "--bias", "2", "-o", str(out)]) == 0
    assert "hidden biases in [-2, 2]" in capsys.readouterr().out
    inst = read_instance(out)
    assert inst.planted.has_bias and inst.planted.evaluate_exact(inst.inputs) == inst.labels
    for bad in ("0", "-1", "inf", "x"):
        with pytest.raises(SystemExit) as exc:
            main(["generate", "-d", "3", "-k", "2", "-m", "2", "-n", "30", "--bias", bad, "-o", str(out)])
        assert exc.value.code == 2
