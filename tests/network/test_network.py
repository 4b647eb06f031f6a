from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.errors import InvalidInput
from exactrelu.exact import QMatrix
from exactrelu.network import RELU, Activation, Network

small = st.fractions(min_value=-5, max_value=5, max_denominator=8)


def f_ref(t: Fraction, c: int) -> Fraction:
    return t**c if t > 0 else Fraction(0)


@st.composite
def networks(draw, max_k=4, max_d=4, max_m=3):
    k, d, m = draw(st.integers(1, max_k)), draw(st.integers(1, max_d)), draw(st.integers(1, max_m))
    c = draw(st.integers(1, 3))
    U = [[draw(small) for _ in range(k)] for _ in range(m)]
    V = [[draw(small) for _ in range(d)] for _ in range(k)]
    act = RELU if c == 1 else Activation.power(c)
    return Network.from_rows(U, V, act), U, V, c


@given(networks(), st.data())
def test_exact_evaluation_matches_definition(netUVc, data):
    net, U, V, c = netUVc
    X = [[data.draw(small) for _ in range(net.d)] for _ in range(3)]
    Y = net.evaluate_exact(QMatrix.from_rows(X)).to_fractions()
    for j, x in enumerate(X):
        for r in range(net.m):
            ref = sum(U[r][i] * f_ref(sum(V[i][t] * x[t] for t in range(net.d)), c) for i in range(net.k))
            assert Y[j][r] == ref


@given(networks(), st.data())
def test_canonical_form_is_invariant(netUVc, data):
    """Positive homogeneity and permutation symmetry: the canonical form is a class invariant."""
    net, U, V, c = netUVc
    k = net.k
    scales = [data.draw(st.fractions(min_value=Fraction(1, 10), max_value=10)) for _ in range(k)]
    perm = data.draw(st.permutations(range(k)))
    V2 = [[V[p][t] * scales[p] for t in range(net.d)] for p in perm]
    U2 = [[U[r][p] / scales[p] ** c for p in perm] for r in range(net.m)]
    net2 = Network.from_rows(U2, V2, net.activation)
    assert net.equivalent(net2)
    assert net.parameter_error(net2) == 0
    X = QMatrix.from_rows([[data.draw(small) for _ in range(net.d)] for _ in range(4)])
    assert net.evaluate_exact(X) == net2.evaluate_exact(X) == net.canonical().evaluate_exact(X)
    can = net.canonical()
    for row in can.V.to_fractions():
        first = next((x for x in row if x != 0), None)
        assert first in (None, 1, -1)


def test_canonical_distinguishes_and_float_prediction():
    a = Network.from_rows([[1, 1]], [[1, 0], [0, 1]])
    b = Network.from_rows([[1, 2]], [[1, 0], [0, 1]])
    assert not a.equivalent(b) and a.parameter_error(b) == 1
    x = np.array([[1.0, -2.0], [0.5, 0.25]])
    assert np.allclose(b.predict(x), [[1.0], [1.0]])
    assert not a.equivalent(Network.from_rows([[1]], [[1, 0]]))


def test_activation_parsing_and_errors():
    assert Activation.parse("relu") == RELU
    assert Activation.parse("power:3") == Activation.power(3) == Activation.parse("power3")
    assert Activation.from_json({"name": "power", "degree": 2}).degree == 2
    assert str(Activation.power(2)) == "power:2"
    for bad in ("tanh", "power:0", "power:x"):
        with pytest.raises(InvalidInput):
            Activation.parse(bad)
    for bad in ({"name": "power"}, {"name": "relu", "degree": 2}, {"name": "sigmoid"}, "relu", {"name": "relu", "x": 1},
                {"name": "power", "degree": 1.5}, {"name": "power", "degree": True}):
        with pytest.raises(InvalidInput):
            Activation.from_json(bad)
    with pytest.raises(InvalidInput):
        Activation("relu", 2)


def test_network_shape_errors():
    with pytest.raises(InvalidInput, match="k"):
        Network.from_rows([[1, 2]], [[1, 0]])
    net = Network.from_rows([[1]], [[1, 0]])
    with pytest.raises(InvalidInput, match="d = 2"):
        net.evaluate_exact(QMatrix.from_rows([[1, 2, 3]]))
    with pytest.raises(InvalidInput):
        Network(np.zeros((1, 1)), np.zeros((1, 1)))
    with pytest.raises(InvalidInput):
        Network.from_json({"U": [[1]]})
    assert Network.from_json(net.to_json()).equivalent(net)


# -- hidden biases -------------------------------------------------------------------------

@st.composite
def biased_networks(draw, max_k=4, max_d=4, max_m=3):
    net, U, V, c = draw(networks(max_k, max_d, max_m))
    b = [draw(small) for _ in range(net.k)]
    return Network.from_rows(U, V, net.activation, b=b), U, V, b, c


@given(biased_networks(), st.data())
def test_biased_evaluation_matches_definition(netUVbc, data):
    net, U, V, b, c = netUVbc
    X = [[data.draw(small) for _ in range(net.d)] for _ in range(3)]
    Xq = QMatrix.from_rows(X)
    Y = net.evaluate_exact(Xq).to_fractions()
    for j, x in enumerate(X):
        for r in range(net.m):
            ref = sum(U[r][i] * f_ref(sum(V[i][t] * x[t] for t in range(net.d)) + b[i], c) for i in range(net.k))
            assert Y[j][r] == ref
    pred = net.predict(np.array([[float(v) for v in x] for x in X]))
    assert np.allclose(pred, [[float(v) for v in row] for row in Y], rtol=1e-9, atol=1e-9)


@given(biased_networks(), st.data())
def test_biased_canonical_form_is_invariant(netUVbc, data):
    """(V_i, b_i) scale together; the canonical form is a class invariant and computes the same function."""
    net, U, V, b, c = netUVbc
    k = net.k
    scales = [data.draw(st.fractions(min_value=Fraction(1, 10), max_value=10)) for _ in range(k)]
    perm = data.draw(st.permutations(range(k)))
    V2 = [[V[p][t] * scales[p] for t in range(net.d)] for p in perm]
    b2 = [b[p] * scales[p] for p in perm]
    U2 = [[U[r][p] / scales[p] ** c for p in perm] for r in range(net.m)]
    net2 = Network.from_rows(U2, V2, net.activation, b=b2)
    assert net.equivalent(net2) and net.parameter_error(net2) == 0
    X = QMatrix.from_rows([[data.draw(small) for _ in range(net.d)] for _ in range(4)])
    assert net.evaluate_exact(X) == net2.evaluate_exact(X) == net.canonical().evaluate_exact(X)
    assert Network.from_json(net.to_json()).equivalent(net)


def test_bias_distinguishes_and_none_means_zero():
    plain = Network.from_rows([[1, 1]], [[1, 0], [0, 1]])
    zero = Network.from_rows([[1, 1]], [[1, 0], [0, 1]], b=[0, 0])
    shifted = Network.from_rows([[1, 1]], [[1, 0], [0, 1]], b=[0, "1/3"])
    assert plain.equivalent(zero) and not zero.has_bias and zero.b_fractions() == [0, 0]
    assert not plain.equivalent(shifted) and plain.parameter_error(shifted) == Fraction(1, 3)
    assert "b" not in zero.to_json() and shifted.to_json()["b"] == ["0", "1/3"]
    assert repr(shifted).endswith("biased)")
    X = QMatrix.from_rows([["1/3", "-1/3"]])  # non-dyadic inputs stay exact: 1/3 + relu(-1/3 + 1/3) = 1/3
    assert shifted.evaluate_exact(X).to_fractions() == [[Fraction(1, 3)]]


def test_constant_and_dead_units_in_canonical_form():
    # V_i = 0: a constant unit U[:, i] f(b_i); b_i > 0 is scaled to 1, b_i <= 0 is dead
    const = Network.from_rows([[3, 5]], [[0, 0], [1, 0]], b=[2, -1])
    can = const.canonical()
    assert can.V.to_fractions() == [[0, 0], [1, 0]] and can.b_fractions() == [1, -1]
    assert can.U.to_fractions() == [[6, 5]]
    assert const.equivalent(Network.from_rows([[6, 5]], [[0, 0], [1, 0]], b=[1, -1]))
    dead = Network.from_rows([[3, 5]], [[0, 0], [1, 0]], b=[-2, -1]).canonical()
    assert dead.U.to_fractions() == [[0, 5]] and dead.b_fractions() == [0, -1]
    X = QMatrix.from_rows([[4, 1], [-4, 2]])
    assert const.evaluate_exact(X) == can.evaluate_exact(X)
    power = Network.from_rows([[1]], [[0, 0]], Activation.power(2), b=[3]).canonical()
    assert power.b_fractions() == [1] and power.U.to_fractions() == [[9]]


def test_bias_errors():
    for bad in ([1], [1, 2, 3], "12", 5, {"a": 1}, np.zeros((3,)), []):
        with pytest.raises(InvalidInput, match="b must"):
            Network.from_rows([[1, 1]], [[1, 0], [0, 1]], b=bad)
    with pytest.raises(InvalidInput, match="b must"):
        Network(QMatrix.from_rows([[1]]), QMatrix.from_rows([[1]]), RELU, QMatrix.from_rows([[1, 2]]))
    with pytest.raises(InvalidInput, match="'b'"):
        Network.from_json({"U": [[1]], "V": [[1]], "b": "1"})
    with pytest.raises(InvalidInput):
        Network.from_rows([[1]], [[1]], b=[float("nan")])
    assert Network.from_rows([[1]], [[1]], b=np.array([0.25])).b_fractions() == [Fraction(1, 4)]


def _flint_outputs(net, X):
    """The FLINT route of evaluate_exact (Fractions in: no float or limb source)."""
    return net.evaluate_exact([[Fraction(v) for v in row] for row in X.tolist()]).to_fractions()


@given(st.integers(0, 10**6), st.booleans(), st.booleans(), st.sampled_from([1, 2**-30, 2.0**40, 3.5e-200]))
def test_limb_route_of_evaluate_exact_equals_flint(seed, bias, out_bias, scale):
    """Float inputs go through limb products (exact/bulk.py); the outputs equal FLINT's, kinks at exactly 0 included."""
    rng = np.random.default_rng(seed)
    d, k, m, n = 3, 4, 2, 9
    X = rng.integers(-3, 4, size=(n, d)).astype(float) * scale  # small integers: many pre-activations exactly 0
    V = rng.integers(-2, 3, size=(k, d)).tolist()
    U = [[Fraction(int(v), 7) for v in row] for row in rng.integers(-5, 6, size=(m, k))]
    b = [Fraction(int(v), 3) for v in rng.integers(-2, 3, size=k)] if bias else None
    c = [Fraction(int(v), 5) for v in rng.integers(-9, 10, size=m)] if out_bias else None
    net = Network.from_rows(U, V, RELU, b=b, c=c)
    fast = net.evaluate_exact(X)
    assert QMatrix.from_numpy(X).float_source is not None and fast.limb_source is not None  # the limb route ran
    assert fast.to_fractions() == _flint_outputs(net, X)
