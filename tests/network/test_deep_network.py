"""Networks of any depth: one model, the two-layer network its depth-2 case (issue 37, item 1)."""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.errors import InvalidInput
from exactrelu.exact import QMatrix
from exactrelu.io.weights import read_weights, write_weights
from exactrelu.network import RELU, Activation, Layer, Network

small = st.fractions(min_value=-4, max_value=4, max_denominator=6)


@st.composite
def deep(draw, max_depth=4, max_width=3):
    depth = draw(st.integers(1, max_depth))
    widths = [draw(st.integers(1, max_width)) for _ in range(depth + 1)]
    layers = []
    for t in range(depth):
        W = [[draw(small) for _ in range(widths[t])] for _ in range(widths[t + 1])]
        b = draw(st.none() | st.lists(small, min_size=widths[t + 1], max_size=widths[t + 1]))
        layers.append((W, b))
    c = draw(st.integers(1, 2))
    return layers, (RELU if c == 1 else Activation.power(c))


def reference(layers, c, x):
    h = list(x)
    for t, (W, b) in enumerate(layers):
        if t:
            h = [v**c if v > 0 else Fraction(0) for v in h]
        h = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + (b[i] if b else 0) for i, row in enumerate(W)]
    return h


@given(deep(), st.data())
def test_exact_and_float_evaluation_match_the_definition(spec, data):
    layers, act = spec
    net = Network.from_layers(layers, act)
    d = len(layers[0][0][0])
    X = [[data.draw(small) for _ in range(d)] for _ in range(3)]
    Y = net.evaluate_exact(QMatrix.from_rows(X)).to_fractions()
    assert Y == [reference(layers, act.degree, x) for x in X]
    assert np.allclose(net.predict(np.array(X, dtype=float)), np.array(Y, dtype=float), rtol=1e-9, atol=1e-9)
    assert net.depth == len(layers) and net.widths == (d, *(len(W) for W, _ in layers))
    back = Network.from_json(json.loads(json.dumps(net.to_json())))
    assert back.evaluate_exact(QMatrix.from_rows(X)) == net.evaluate_exact(QMatrix.from_rows(X))


def test_two_layers_are_depth_two_and_keep_their_constructors():
    U, V, b, c = [[1, -2]], [[1, 0], [0, 1]], [0, "1/2"], ["1/3"]
    a = Network.from_rows(U, V, RELU, b, c)
    layered = Network.from_layers([(V, b), (U, c)])
    assert a.depth == layered.depth == 2 and a.widths == (2, 2, 1)
    assert layered.U == a.U and layered.V == a.V and layered.k == 2 and layered.equivalent(a)
    assert a.layers[0].W == a.V and a.layers[1].b == a.c
    assert Network(a.U, a.V, RELU, a.b, a.c).equivalent(a)
    assert a.to_json() == layered.to_json() and "U" in a.to_json()
    assert a.to_json(layered=True)["layers"][1] == {"W": [["1", "-2"]], "b": ["1/3"]}
    assert Network.from_json(a.to_json(layered=True)).equivalent(a)


def test_the_two_layer_view_refuses_other_depths():
    net = Network.from_layers([([[1, 1]], [1]), ([[2]], None), ([[1], [3]], [0, 1])])
    for name in ("U", "V", "b", "c", "k", "has_bias"):
        with pytest.raises(InvalidInput, match=f"{name} is the two-layer view .* depth 3 \\(widths 2-1-1-2\\)"):
            getattr(net, name)
    for call in (net.b_fractions, net.canonical, lambda: net.pre_activations_exact(QMatrix.from_rows([[1, 1]])),
                 lambda: net.hidden_exact(QMatrix.from_rows([[1, 1]])), lambda: net.equivalent(net)):
        with pytest.raises(InvalidInput, match="depth 3"):
            call()
    assert net.c_fractions() == [0, 1] and net.has_output_bias and not net.without_output_bias().has_output_bias
    assert repr(net) == "Network(widths=2-1-1-2, depth=3, activation=relu)"
    assert net.with_activation(Activation.power(2)).activation.degree == 2
    one = Network.from_layers([([[1, -1]], [2])])  # depth 1: an affine map
    assert one.depth == 1 and one.evaluate_exact([[3, 1]]).to_fractions() == [[4]]


def test_construction_errors():
    with pytest.raises(InvalidInput, match="layer 1 takes 2 inputs but layer 0 has 1 outputs"):
        Network.from_layers([([[1, 2]], None), ([[3, 4]], None)])
    with pytest.raises(InvalidInput, match="layer 0 must be a pair"):
        Network.from_layers([[[1]]])
    with pytest.raises(InvalidInput, match="list of \\(W, b\\) pairs"):
        Network.from_layers(5)
    with pytest.raises(InvalidInput, match="layer 1: b must have 1 entries"):
        Network.from_layers([([[1]], None), ([[1]], [1, 2])])
    with pytest.raises(InvalidInput, match="non-empty sequence of Layer"):
        Network.from_layers([])
    with pytest.raises(InvalidInput, match="not both"):
        Network(QMatrix.from_rows([[1]]), layers=[Layer.coerce([[1]])])
    with pytest.raises(InvalidInput, match="activation must be an Activation"):
        Network.from_layers([([[1]], None)], "relu")
    with pytest.raises(InvalidInput, match="layer 0"):
        Network.from_layers([([[float("nan")]], None)])
    with pytest.raises(InvalidInput, match="a layer's W must be a QMatrix"):
        Layer([[1]])
    with pytest.raises(InvalidInput, match="a layer's b must be"):
        Layer(QMatrix.from_rows([[1]]), QMatrix.from_rows([[1, 2]]))
    with pytest.raises(InvalidInput, match="at least one row and one column"):
        Layer.coerce(np.zeros((0, 2)))
    net = Network.from_layers([([[1]], None)])
    with pytest.raises(AttributeError, match="immutable"):
        net.activation = RELU


def test_json_errors_name_the_layer():
    good = {"layers": [{"W": [["1"]]}]}
    assert Network.from_json(good).depth == 1
    for bad, match in (({"layers": [{"W": [["1"]]}], "U": [[1]]}, "not both"),
                       ({"layers": []}, "non-empty list"),
                       ({"layers": [{"b": ["1"]}]}, "layer 0 must be an object with 'W'"),
                       ({"layers": [{"W": [["1"]], "x": 1}]}, "layer 0 must be an object"),
                       ({"layers": [{"W": [["1"]], "b": "1"}]}, "layer 0: 'b' must be a list"),
                       ({"layers": [{"W": ["1"]}]}, "layer 0: 'W' must be a list of rows"),
                       ({"V": [[1]]}, "'U' and 'V', or 'layers'")):
        with pytest.raises(InvalidInput, match=match):
            Network.from_json(bad)


def test_weights_files_of_any_depth(tmp_path):
    net = Network.from_layers([([[1, "1/3"], [0, -1]], [0, "-1/7"]), ([[1, 1]], [2]), ([[5]], None)])
    path = write_weights(net, tmp_path / "deep.json")
    obj = json.loads(path.read_text())
    assert obj["layers"][0] == {"W": [["1", "1/3"], ["0", "-1"]], "b": ["0", "-1/7"]} and "U" not in obj
    back = read_weights(path)
    X = QMatrix.from_rows([[1, 2], ["-1/2", 3]])
    assert back.depth == 3 and back.evaluate_exact(X) == net.evaluate_exact(X)
    obj["layers"][1]["b"] = [0.5]
    (tmp_path / "float.json").write_text(json.dumps(obj))
    with pytest.raises(InvalidInput, match="'layers' holds 0.5, a JSON float"):
        read_weights(tmp_path / "float.json")
    obj["layers"][1]["b"] = ["1"]
    obj["U"] = [["1"]]
    (tmp_path / "both.json").write_text(json.dumps(obj))
    with pytest.raises(InvalidInput, match="not both"):
        read_weights(tmp_path / "both.json")


def test_exact_size_is_bounded_through_every_layer():
    # pre-activations 10^3000, 10^12000, 10^39000: the last one cubed has 117,000 digits (the limit: 100,000)
    huge = Network.from_layers([([["1e3000"]], None), ([["1e3000"]], None), ([["1e3000"]], None), ([[1]], None)],
                               Activation.power(3))
    assert Network.from_layers(huge.layers[:2] + huge.layers[3:], Activation.power(3)).evaluate_exact([[1]])
    with pytest.raises(InvalidInput, match="over the limit intermediate"):
        huge.evaluate_exact([[1]])
    fine = Network.from_layers([([["1e20"]], None), ([["1e20"]], None), ([[1]], None)], Activation.power(2))
    assert fine.evaluate_exact([[1]]).to_fractions() == [[Fraction(10**120)]]
