"""A first layer wider than its input with one output (m = 1) and several second-layer neurons: the kinks grouped
into neurons by their bent hyperplanes (docs/extraction.md, "A first layer wider than its input", step 2)."""

from fractions import Fraction

import numpy as np
import pytest

from exactrelu.equiv import functionally_equal
from exactrelu.errors import AssumptionViolated
from exactrelu.extract import NetworkOracle, extract
from exactrelu.extract import grouping, wide
from exactrelu.network import Network

from test_wide import B1, B2, W1, W2, _torch_default

F = Fraction
ONE = [[1, -2, -1]]


def test_three_second_layer_neurons_and_one_output_are_extracted_exactly():
    hidden = Network.from_layers([(W1, B1), (W2, B2), (ONE, None)])
    res = extract(NetworkOracle(hidden), hidden_layers=2, seed=1)
    assert res.evidence["wide"] and res.evidence["second_layer_units"] >= 2
    assert functionally_equal(res.network, hidden).status == "equivalent"


def test_a_float32_3_6_4_1_network_with_pytorch_default_initialisation():
    hidden = _torch_default((3, 6, 4, 1), 0)
    try:
        res = extract(NetworkOracle(hidden), hidden_layers=2, seed=0)
    except AssumptionViolated as exc:
        pytest.fail(f"refused: {exc}")
    assert res.evidence["second_layer_units"] == 4
    assert functionally_equal(res.network, hidden).status == "equivalent"


@pytest.mark.parametrize("change", ["zero biases", "duplicate", "dead", "deeper than asked"])
def test_adversarial_oracles_with_one_output_are_extracted_exactly_or_refused(change):
    """Kinks at exactly 0, a duplicate first-layer neuron, a dead one, an oracle with three hidden layers asked as
    two: never a wrong network."""
    rows, bias, w2, top = [list(r) for r in W1], list(B1), [list(r) for r in W2], [(ONE, None)]
    if change == "zero biases":
        bias = [0] * 5
    elif change == "duplicate":
        rows, bias, w2 = rows + [rows[2]], bias + [bias[2]], [r + [1] for r in w2]
    elif change == "dead":
        rows, bias, w2 = rows + [[0, 0, 0]], bias + [-1], [r + [3] for r in w2]
    else:
        top = [([[1, -2, 1], [-1, 1, 2]], [0, 1]), ([[1, -1]], None)]
    hidden = Network.from_layers([(rows, bias), (w2, B2)] + top)
    try:
        if change == "deeper than asked":   # the route for k1 > d alone, one round (the whole extract: minutes)
            net, _ = wide.wide_layers(NetworkOracle(hidden), np.random.default_rng(0), rounds=0)
        else:
            net = extract(NetworkOracle(hidden), hidden_layers=2, seed=1).network
    except AssumptionViolated as exc:
        assert "k1 > d" in str(exc)
        return
    assert functionally_equal(net, hidden).status == "equivalent"


def test_two_sightings_are_linked_only_with_one_sign_and_few_neurons_between():
    planes = [(1, 0, 0), (0, 1, 0), (1, 1, -3)]
    v, w = (F(1), F(2), F(-1)), (F(2), F(3), F(-4))             # w = v + p_2
    assert grouping.linked(planes, (frozenset({0, 1}), v, 1), (frozenset({0, 1, 2}), w, 1), 2)
    assert grouping.linked(planes, (frozenset({0, 1}), v, 1), (frozenset({0, 1, 2}), tuple(-a for a in w), 1), 2)
    assert not grouping.linked(planes, (frozenset({0, 1}), v, 1), (frozenset({0, 1, 2}), w, -1), 2)
    assert not grouping.linked(planes, (frozenset(), v, 1), (frozenset({0, 1, 2}), w, 1), 2)   # 3 > d between
    assert not grouping.linked(planes, (frozenset({0}), v, 1), (frozenset({0}), w, 1), 2)      # one cell, two planes


def test_groups_merge_when_their_union_has_weights_and_that_says_something():
    # d = 1, first layer x = 0, 1, 2; a neuron g = x + 1/2 - 2 relu(x) + 2 relu(x - 1) - 2 relu(x - 2), zero at
    # -1/2, 1/2, 3/2, 5/2 (one in each cell)
    planes, w, cell = [(1, 0), (1, -1), (1, -2)], (F(1),), frozenset
    a = [(cell(), (F(1), F(1, 2)), 1), (cell({0}), (F(1), F(-1, 2)), 1)]
    b = [(cell({0, 1}), (F(1), F(-3, 2)), 1), (cell({0, 1, 2}), (F(1), F(-5, 2)), 1)]
    assert grouping._merge(planes, 1, 1, w, [a, b]) == [a + b]       # 2 + 1 free directions, of 5 unknowns
    # one sighting each leaves 3 free directions each: their union says nothing with one output
    assert grouping._merge(planes, 1, 1, w, [a[:1], b[1:]]) == [a[:1], b[1:]]
    # the same zeros, twice the scale: another neuron (no common weights)
    c = [(cell({0, 1}), (F(2), F(-3)), 1), (cell({0, 1, 2}), (F(2), F(-5)), 1)]
    assert grouping._merge(planes, 1, 2, w + (F(2),), [a, c]) == [a, c]
    assert grouping.group_sightings(planes, [], 1, 1) == []
