"""Two hidden layers with a first layer wider than its input (k1 > d): exact, certified, or refused with the reason
(docs/extraction.md, "A first layer wider than its input")."""

from fractions import Fraction

import numpy as np
import pytest

from exactrelu.equiv import functionally_equal
from exactrelu.errors import AssumptionViolated
from exactrelu.exact.matrix import QMatrix
from exactrelu.extract import NetworkOracle, extract
from exactrelu.extract import cells, wide
from exactrelu.network import Network

W1 = [[0, 0, 0], [-1, 2, -1], [1, -1, 0], [2, -2, 1], [0, 1, 1]]
B1 = [-1, 1, 1, 0, -2]
W2 = [[1, -2, 2, 2, 2], [-2, 2, 2, 0, 2], [1, 1, -2, -2, -1]]
B2 = [-1, 0, 2]
W3 = [[1, 0, 0], [1, 1, -2]]


def _small(seed: int) -> Network:
    rng = np.random.default_rng(seed)
    return Network.from_layers([(rng.integers(-2, 3, (5, 3)), rng.integers(-2, 3, 5)),
                                (rng.integers(-2, 3, (3, 5)), rng.integers(-2, 3, 3)),
                                (rng.integers(-2, 3, (2, 3)), None)])


def test_a_3_5_3_2_network_is_extracted_exactly_and_certified():
    hidden = Network.from_layers([(W1, B1), (W2, B2), (W3, None)])
    res = extract(NetworkOracle(hidden), hidden_layers=2, seed=6)
    assert res.evidence["wide"] and res.network.widths[1] > 3 and res.summary.startswith("transcript")
    assert functionally_equal(res.network, hidden).status == "equivalent"


def _torch_default(sizes, seed: int) -> Network:
    """float32 weights and biases uniform in +-1/sqrt(fan_in) (PyTorch's default for Linear)."""
    rng, layers = np.random.default_rng(seed), []
    for a, b in zip(sizes, sizes[1:]):
        bound = 1 / np.sqrt(a)
        layers.append((rng.uniform(-bound, bound, (b, a)).astype(np.float32),
                       rng.uniform(-bound, bound, b).astype(np.float32)))
    return Network.from_layers(layers)


def test_a_float32_4_8_6_3_network_with_pytorch_default_initialisation():
    hidden = _torch_default((4, 8, 6, 3), 1)
    try:
        res = extract(NetworkOracle(hidden), hidden_layers=2, seed=6)
    except AssumptionViolated as exc:
        pytest.fail(f"refused: {exc}")
    assert functionally_equal(res.network, hidden).status == "equivalent"


@pytest.mark.parametrize("change", ["zero biases", "duplicate", "dead", "beyond the search range"])
def test_adversarial_first_layers_are_extracted_exactly_or_refused(change):
    """Kinks at exactly 0, a duplicate neuron, a dead one, one whose hyperplane misses the search range: never a
    wrong network."""
    rows, bias = [list(r) for r in W1], list(B1)
    w2 = [list(r) for r in W2]
    if change == "zero biases":
        bias = [0] * 5
    elif change == "duplicate":
        rows, bias, w2 = rows + [rows[1]], bias + [bias[1]], [r + [1] for r in w2]
    elif change == "dead":
        rows, bias, w2 = rows + [[0, 0, 0]], bias + [-1], [r + [3] for r in w2]
    else:
        rows, bias, w2 = rows + [[1, 1, 1]], bias + [2**80], [r + [Fraction(1, 2**80)] for r in w2]
    hidden = Network.from_layers([(rows, bias), (w2, B2), (W3, None)])
    try:
        res = extract(NetworkOracle(hidden), hidden_layers=2, seed=6)
    except AssumptionViolated as exc:
        assert "k1 > d" in str(exc) or "deeper" in str(exc)
        return
    if change != "beyond the search range":
        assert functionally_equal(res.network, hidden).status == "equivalent"
        return
    # a hyperplane 2^80 away is never seen (docs/extraction.md, "What is assumed"): equal up to far beyond the queries
    points = np.random.default_rng(0).integers(-2**40, 2**40, size=(64, 3)).tolist()
    want, got = (net.evaluate_exact(QMatrix.from_fractions([Fraction(v) for p in points for v in p], 64, 3))
                 for net in (hidden, res.network))
    assert want.to_fractions() == got.to_fractions()


@pytest.mark.parametrize("seed, reason", [(0, "no weights give all its sightings"),
                                          (3, "two regions of one cell of the first layer disagree"),
                                          (5, "no affine part gives the Jacobians of every region met")])
def test_refusals_name_the_step_that_failed(seed, reason):
    with pytest.raises(AssumptionViolated, match=reason):
        wide.wide_layers(NetworkOracle(_small(seed)), np.random.default_rng(seed), rounds=0)


def test_no_first_layer_and_inconsistent_systems_are_refused():
    with pytest.raises(AssumptionViolated, match="no first-layer hyperplane met on two lines"):
        wide._read(NetworkOracle(_small(1)), np.random.default_rng(0), {}, [])
    eqs = {(0, (1,), ()): Fraction(1), (0, (2,), ()): Fraction(3)}   # a = 1 and 2 a = 3
    with pytest.raises(AssumptionViolated, match="no affine part"):
        cells._solve(eqs, 1, 1, 0)
    F, J = Fraction, lambda v: ([[v, 0]], 1)
    seen = [([F(1), F(1)], J(0), J(1), [F(1), F(0)]), ([F(2), F(2)], J(0), J(2), [F(1), F(0)])]
    with pytest.raises(AssumptionViolated, match="two regions of one cell of the first layer disagree"):
        cells._equations([(1, 0, 0)], [], [], seen, 2, 1)


def test_a_weight_no_region_shows_is_refused():
    # a neuron relu(x) + t relu(z_0) (d = 1, first layer x = 0) with t free and no region met: no option holds
    F = Fraction
    free = [([F(0), F(1), F(0)], (F(1),), [[F(1), F(0), F(0)]])]
    with pytest.raises(AssumptionViolated, match="a weight of a second-layer neuron is not determined"):
        cells._choose([(1, 0)], [], free, [], 1, 1)
    assert cells._pushed(free[0][0], free[0][2], [(1, 0)], [], 1, 1) is None


def test_a_free_weight_is_pushed_off_or_on_where_it_acts():
    # -x + t relu(x) (d = 1, first layer x = 0), one region side met at x = 1: off with t = -1, on with t = 2^16
    F = Fraction
    theta, phis, side = [F(0), F(-1), F(0)], [[F(1), F(0), F(0)]], [([F(1)], frozenset({0}), [F(1)])]
    assert cells._pushed(theta, phis, [(1, 0)], side, 1, -1) == [-1, -1, 0]
    assert cells._pushed(theta, phis, [(1, 0)], side, 1, 1) == [2**16, -1, 0]


def test_sightings_that_disagree_on_the_scale_are_not_read():
    # one plane x = 0 (d = 1); two sightings in the same cell with different jumps: no common scale
    planes = [(1, 0)]
    got = cells._unit(planes, 1, (Fraction(1),), [(frozenset({0}), (Fraction(1), Fraction(-2)), 1),
                                                    (frozenset({0}), (Fraction(2), Fraction(-4)), 1)])
    assert got == "its sightings disagree on its scale"


def test_three_hidden_layers_with_a_wide_first_layer_are_refused_with_that_reason():
    with pytest.raises(AssumptionViolated, match=r"k1 > d\) shows this way; three or more hidden layers need"):
        extract(NetworkOracle(_torch_default((4, 8, 6, 4, 3), 0)), hidden_layers=3)
