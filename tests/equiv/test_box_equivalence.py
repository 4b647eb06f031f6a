"""Deep equivalence on a box and within epsilon (docs/equivalence.md, "On a box, within epsilon")."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.equiv import functionally_equal
from exactrelu.equiv.deep import deep_equivalence, read_box, read_epsilon
from exactrelu.errors import InvalidInput
from exactrelu.network import Activation, Network

A = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, -1]], None), ([[1]], None)])  # relu(relu(x1) - relu(x2))
B = Network.from_layers([([[1, -1]], None), ([[1]], None)])                              # relu(x1 - x2)
NEAR = Network.from_layers([([[1, -1], [1, 0]], None), ([[1, "1/4"]], None)])          # relu(x1 - x2) + relu(x1)/4
BOX = {"lower": [0, 0], "upper": [1, 1]}


def _gap(a, b, x):
    ya = a.evaluate_exact([list(x)]).to_fractions()[0]
    yb = b.evaluate_exact([list(x)]).to_fractions()[0]
    return max(abs(p - q) for p, q in zip(ya, yb))


def test_equal_on_the_box_but_not_on_all_of_r_d():
    on_box = functionally_equal(A, B, **BOX)
    assert on_box.status == "equivalent"
    assert on_box.certificate["domain"] == {"kind": "box", "lower": ["0", "0"], "upper": ["1", "1"]}
    assert "same function on the box of 2 intervals" in checker.check(on_box.certificate, None)
    everywhere = functionally_equal(A, B)
    assert everywhere.status == "not-equivalent" and _gap(A, B, everywhere.witness) > 0


def test_epsilon_proved_at_the_bound_and_refuted_below_it():
    res = functionally_equal(A, NEAR, epsilon="1/4", **BOX)
    assert res.status == "equivalent" and res.certificate["property"] == {"kind": "epsilon", "epsilon": "1/4",
                                                                          "norm": "max"}
    assert checker.check(res.certificate, None).startswith("epsilon-equivalent")
    far = functionally_equal(A, NEAR, epsilon="0.2", **BOX)
    assert far.status == "not-equivalent"
    assert all(0 <= t <= 1 for t in far.witness) and _gap(A, NEAR, far.witness) > Fraction(1, 5)
    assert checker.check(far.certificate, None).startswith("not-epsilon-equivalent")


def test_a_point_box_on_a_kink_and_epsilon_zero():
    """Degenerate boxes (lower = upper) at the kink x1 = x2 = 0, and epsilon 0, which is equality."""
    res = functionally_equal(A, NEAR, lower=[0, 0], upper=[0, 0], epsilon=0)
    assert res.status == "equivalent"
    res = functionally_equal(A, NEAR, lower=[1, 0], upper=[1, 0], epsilon=0)
    assert res.status == "not-equivalent" and res.witness == [1, 0]


def test_a_box_needs_the_relu_and_two_sides_of_the_right_length():
    power = Network.from_rows(U=[[1]], V=[[1, 0]], activation=Activation.parse("power:2"))
    with pytest.raises(InvalidInput, match="ReLU only"):
        functionally_equal(power, power, **BOX)
    with pytest.raises(InvalidInput, match="both its lower and its upper"):
        read_box([0], None, 1)
    with pytest.raises(InvalidInput, match="1 lower and 1 upper bounds; the networks read 2"):
        read_box([0], [1], 2)
    with pytest.raises(InvalidInput, match="input 1 has lower bound 2 above"):
        read_box([0, 2], [1, 1], 2)
    with pytest.raises(InvalidInput, match="epsilon must be >= 0"):
        read_epsilon("-1/3")


def test_a_budget_on_a_box_answers_unknown_and_more_budget_decides():
    first = ([[1, 0], [1, 0], [0, 1]], [0, 1, 0])  # relu(relu(x1 + 1) - relu(x1)) = relu(x1 + 1) - relu(x1)
    a = Network.from_layers([first, ([[0, 1, 0], [1, 0, 0], [0, 0, 1]], None), ([[3, -3, 1]], [0])])
    b = Network.from_layers([first, ([[-1, 1, 0], [0, 0, 1]], None), ([[3, 1]], [0])])
    box = {"lower": [-2, -2], "upper": [2, 2]}
    res = deep_equivalence(a, b, max_nodes=1, **box)
    assert res.status == "unknown" and "node budget of 1 ran out" in res.reason
    res = functionally_equal(a, b, **box)
    assert res.status == "equivalent" and res.evidence["leaves"] > 1


def _net(draw, d, widths):
    layers, width = [], d
    for k in widths:
        W = draw(st.lists(st.lists(st.integers(-2, 2), min_size=width, max_size=width), min_size=k, max_size=k))
        b = draw(st.lists(st.integers(-2, 2), min_size=k, max_size=k))
        layers.append((W, b))
        width = k
    return Network.from_layers(layers)


@st.composite
def _pairs(draw):
    a = _net(draw, 2, [draw(st.integers(1, 3)), draw(st.integers(1, 3)), 1])
    b = _net(draw, 2, [draw(st.integers(1, 3)), 1])
    lo = draw(st.lists(st.integers(-2, 1), min_size=2, max_size=2))
    hi = [v + draw(st.integers(0, 2)) for v in lo]
    return a, b, lo, hi, draw(st.sampled_from([None, 0, Fraction(1, 2), 3]))


@settings(max_examples=25, deadline=None)
@given(_pairs())
def test_the_answer_holds_on_a_grid_of_the_box_and_the_witness_lies_in_it(pair):
    """Theorem: "equivalent" means |a - b| <= epsilon at every point of the box (tested on a grid); a witness lies in
    the box and differs by more than epsilon."""
    a, b, lo, hi, eps = pair
    res = functionally_equal(a, b, lower=lo, upper=hi, epsilon=eps)
    slack = eps or 0
    if res.status == "equivalent":
        for s in np.linspace(0, 1, 5):
            for t in np.linspace(0, 1, 5):
                x = [lo[0] + Fraction(s) * (hi[0] - lo[0]), lo[1] + Fraction(t) * (hi[1] - lo[1])]
                assert _gap(a, b, x) <= slack
    else:
        assert res.status == "not-equivalent"
        assert all(p <= v <= q for p, v, q in zip(lo, res.witness, hi)) and _gap(a, b, res.witness) > slack


@st.composite
def _deeper(draw):
    a = _net(draw, 3, [3, 3, 2, 1])
    b = _net(draw, 3, [draw(st.integers(2, 4)), 2, 1])
    lo = draw(st.lists(st.integers(-2, 1), min_size=3, max_size=3))
    return a, b, lo, [v + draw(st.integers(1, 3)) for v in lo], draw(st.sampled_from([None, 1, 10]))


@settings(max_examples=15, deadline=None)
@given(_deeper())
def test_deeper_pairs_on_a_box_are_decided_and_checked(pair):
    """Three hidden layers against two: the bottom-up search (ready neurons, kept forms and rows) returns a checked
    answer, and a witness lies in the box beyond epsilon."""
    a, b, lo, hi, eps = pair
    res = functionally_equal(a, b, lower=lo, upper=hi, epsilon=eps)
    assert res.status in ("equivalent", "not-equivalent") and res.summary.split(":")[0] in (
        "equivalent", "epsilon-equivalent", "not-equivalent", "not-epsilon-equivalent")
    if res.status == "not-equivalent":
        assert all(p <= v <= q for p, v, q in zip(lo, res.witness, hi)) and _gap(a, b, res.witness) > (eps or 0)
