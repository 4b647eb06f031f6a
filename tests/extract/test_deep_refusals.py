"""extract --hidden-layers 2 on oracles not of the assumed form (issue 38): deeper than asked, a unit that is not a
ReLU (leaky, or a smooth bend), float answers. Each is refused with the reason (AssumptionViolated, exit 1, one
line), and no network or certificate file is written; a leaky unit of the second layer *is* of the form (two ReLU
units) and comes out equal."""

from __future__ import annotations

import json
import sys
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.equiv import functionally_equal
from exactrelu.errors import AssumptionViolated
from exactrelu.extract import CallableOracle, NetworkOracle, extract
from exactrelu.extract.deep import two_hidden_layers
from exactrelu.io.weights import weights_json
from exactrelu.network import Network

W1, B1 = [[2, -1, 1], [1, 1, -1], [0, 1, 2]], [1, -1, 0]
W2, B2 = [[1, 1, -1], [2, -1, 1], [-1, 2, 1]], [0, 1, -1]
W3 = [1, -2, 1]

#: an oracle process: the 3-3-3-1 network above with unit 0 of layer LAYER replaced by ACT, answering with str or
#: float; ``python oracle.py LAYER ACT KIND``
SCRIPT = f"""
import json, sys
from fractions import Fraction
W1, B1, W2, B2, W3 = {W1}, {B1}, {W2}, {B2}, {W3}
layer, act, kind = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ACTS = {{"relu": lambda v: max(v, 0), "leaky": lambda v: v if v > 0 else Fraction(v) / 10,
        "smooth": lambda v: v * v / (1 + v) if v > 0 else 0}}
def f(x):
    z = [sum(w * v for w, v in zip(row, x)) + b for row, b in zip(W1, B1)]
    h = [ACTS[act if (layer, i) == (1, 0) else "relu"](v) for i, v in enumerate(z)]
    z = [sum(w * v for w, v in zip(row, h)) + b for row, b in zip(W2, B2)]
    h = [ACTS[act if (layer, i) == (2, 0) else "relu"](v) for i, v in enumerate(z)]
    return sum(w * v for w, v in zip(W3, h)) + 1
print(json.dumps({{"d": 3, "m": 1}}), flush=True)
for line in sys.stdin:
    y = f([Fraction(v) for v in json.loads(line)])
    print(json.dumps([float(y) if kind == "float" else str(y)]), flush=True)
"""


def _cli_refuses(tmp_path, capsys, oracle: list[str], match: str) -> None:
    out, cert = tmp_path / "out.json", tmp_path / "out.cert.json"
    assert main(["extract", *oracle, "--hidden-layers", "2", "--seed", "1", "-o", str(out),
                 "--certificate", str(cert)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and match in err, err
    assert not out.exists() and not cert.exists()


@pytest.mark.parametrize("layer, act, kind, match", [
    (1, "smooth", "str", "not affine far out"),
    (2, "smooth", "str", "not affine far out"),
    (0, "relu", "float", "the oracle answered the float"),
])
def test_an_oracle_process_not_of_the_form_is_refused_and_nothing_written(tmp_path, capsys, layer, act, kind, match):
    script = tmp_path / "oracle.py"
    script.write_text(SCRIPT)
    _cli_refuses(tmp_path, capsys, ["--oracle-cmd", f"{sys.executable} {script} {layer} {act} {kind}"], match)


def test_three_hidden_layers_are_refused_and_nothing_written(tmp_path, capsys):
    rng = np.random.default_rng(0)
    deeper = Network.from_layers([(rng.integers(-3, 4, (4, 5)), rng.integers(-2, 3, 4)),
                                  (rng.integers(-3, 4, (4, 4)), rng.integers(-2, 3, 4)),
                                  (rng.integers(-3, 4, (4, 4)), rng.integers(-2, 3, 4)),
                                  (rng.integers(-3, 4, (1, 4)), [1])])
    with pytest.raises(AssumptionViolated, match="two different coefficients on two chords .the oracle is deeper"):
        extract(NetworkOracle(deeper), hidden_layers=2, seed=0)
    path = tmp_path / "deeper.json"
    path.write_text(json.dumps(weights_json(deeper)))
    out, cert = tmp_path / "out.json", tmp_path / "out.cert.json"
    assert main(["extract", "--oracle", str(path), "--hidden-layers", "2", "--seed", "0", "-o", str(out),
                 "--certificate", str(cert)]) == 1
    assert "the oracle is deeper than asked" in capsys.readouterr().err
    assert not out.exists() and not cert.exists()


def test_a_leaky_second_layer_unit_is_two_relu_units_and_comes_out_equal():
    """leaky(z) = relu(z) - relu(-z) / 10: a second-layer leaky unit is a network of the assumed form (one more
    unit), so the answer is a network, and it is the right one."""
    def f(x):
        z = [sum(w * v for w, v in zip(row, x)) + b for row, b in zip(W1, B1)]
        h = [max(v, 0) for v in z]
        z = [sum(w * v for w, v in zip(row, h)) + b for row, b in zip(W2, B2)]
        h = [v if (i == 0 and v > 0) or i else Fraction(v, 10) for i, v in enumerate(z)]
        return [sum(w * max(v, 0) if i else w * v for i, (w, v) in enumerate(zip(W3, h))) + 1]
    same = Network.from_layers([(W1, B1), (W2 + [[-v for v in W2[0]]], B2 + [-B2[0]]), ([W3 + ["-1/10"]], [1])])
    res = extract(CallableOracle(f, d=3), hidden_layers=2, seed=1)
    assert functionally_equal(res.network, same).status == "equivalent"


def test_a_leaky_first_layer_unit_is_two_relu_units_and_comes_out_equal():
    """A leaky first-layer unit is a network of the assumed form too, with a first layer wider than its input
    (relu(z) and relu(-z) on one pre-activation: k1 = 4 > d = 3, one output): the route for k1 > d reads it, and the
    answer is the right network. (It was refused while that route needed m >= 2.)"""
    def f(x):
        z = [sum(w * v for w, v in zip(row, x)) + b for row, b in zip(W1, B1)]
        h = [v if v > 0 else (Fraction(v, 10) if i == 0 else 0) for i, v in enumerate(z)]
        z = [sum(w * v for w, v in zip(row, h)) + b for row, b in zip(W2, B2)]
        return [sum(w * max(v, 0) for w, v in zip(W3, z)) + 1]
    rows, bias = [W1[0], [-v for v in W1[0]], W1[1], W1[2]], [B1[0], -B1[0], B1[1], B1[2]]
    same = Network.from_layers([(rows, bias), ([[r[0], -Fraction(r[0], 10), r[1], r[2]] for r in W2], B2),
                                ([W3], [1])])
    res = extract(CallableOracle(f, d=3), hidden_layers=2, seed=1)
    assert res.evidence["wide"] and functionally_equal(res.network, same).status == "equivalent"


def test_a_first_layer_wider_than_its_input_is_named(tmp_path, capsys):
    """A 5-6-4-1 network with small integer weights (k1 = 6 > d = 5, one output): refused by both routes (the one for
    k1 > d after one round: two regions of one cell disagree), and the refusal says that more hyperplanes than d were
    met often, which is how k1 > d shows."""
    rng = np.random.default_rng(0)
    layers = [(rng.integers(-4, 5, (6, 5)), rng.integers(-3, 4, 6)),
              (rng.integers(-4, 5, (4, 6)), rng.integers(-3, 4, 4)), (rng.integers(-4, 5, (1, 4)), [0])]
    with pytest.raises(AssumptionViolated, match=r"more than the input dimension d = 5: a first layer wider than its "
                                                 r"input \(k1 > d\)"):
        two_hidden_layers(NetworkOracle(Network.from_layers(layers)), np.random.default_rng(1), rounds=0)
