"""extract with two hidden layers: exact on small networks, checked transcripts, refusals that name the reason."""

import copy
import json
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.certificates.claims.transcript import verify_transcript
from exactrelu.cli import main
from exactrelu.equiv import functionally_equal
from exactrelu.errors import AssumptionViolated, CertificateInvalid, InvalidInput
from exactrelu.extract import CallableOracle, NetworkOracle, extract
from exactrelu.extract.deep import layer_choices, orient, two_hidden_layers
from exactrelu.extract.line_search import Line, kinks
from exactrelu.io.weights import weights_json
from exactrelu.network import Network

HIDDEN = Network.from_layers([([[2, -1, 0, 1], [1, 1, -1, 0], [0, 1, 2, -1]], [1, -1, "1/2"]),
                              ([[1, 1, -1], [2, -1, 1], [-1, 2, 1]], [0, 1, -1]), ([[1, -2, 1]], None)])


def test_two_hidden_layers_exact_with_a_checked_transcript():
    res = extract(NetworkOracle(HIDDEN), hidden_layers=2, seed=1)
    assert res.network.widths == (4, 3, 3, 1) and res.units == 6 and res.width_lower_bound is None
    assert functionally_equal(res.network, HIDDEN).status == "equivalent"
    assert res.summary == verify_transcript(res.certificate)
    assert res.summary.endswith("the network (hidden widths 3-3) gives every one exactly")
    # the second layer's Jacobians: axis batches along the columns of R, the basis kept once
    assert len(res.certificate["bases"]) == 1 and any("basis" in b.get("axes", {}) for b in res.certificate["queries"])
    assert f"{res.queries} queries" in res.statement and "not proved: that the oracle equals" in res.statement
    assert res.evidence["first_layer"] == 3 and res.evidence["queries_lines"] < res.queries
    bad = copy.deepcopy(res.certificate)
    bad["network"]["layers"][1]["b"][0] = "1/3"
    with pytest.raises(CertificateInvalid, match="the network's value differs from the answer"):
        verify_transcript(bad)
    bad = copy.deepcopy(res.certificate)
    bad["network"]["layers"][0]["W"] = [row[:3] for row in bad["network"]["layers"][0]["W"]]
    with pytest.raises(CertificateInvalid, match="the network has d = 3, m = 1; the transcript has d = 4"):
        verify_transcript(bad)
    bad = copy.deepcopy(res.certificate)
    bad["network"]["activation"] = {"name": "power", "degree": 2}
    with pytest.raises(CertificateInvalid, match="about ReLU networks"):
        verify_transcript(bad)
    with pytest.raises(AssumptionViolated, match="3 units in its last hidden layer, more than the 2 asked for"):
        extract(NetworkOracle(HIDDEN), hidden_layers=2, seed=1, widths=(3, 2))


def test_one_hidden_layer_is_a_two_layer_network_with_a_linear_second_layer():
    one = Network.from_rows(U=[[2, -1, "1/2"]], V=[[1, 0, 1], [0, 1, -1], [1, 1, 1]], b=[1, 0, "-1/2"], c=[1])
    res = extract(NetworkOracle(one), hidden_layers=2, widths=(3,))
    assert res.network.depth == 3 and functionally_equal(res.network, one).status == "equivalent"


def test_deeper_oracles_are_refused_or_extracted_right():
    """Three hidden layers: refused with the check that failed, or (when the function has two) an equal network."""
    refused = 0
    for seed in (0, 3):
        rng = np.random.default_rng(seed)
        net = Network.from_layers([(rng.integers(-3, 4, (4, 5)), rng.integers(-2, 3, 4)),
                                   (rng.integers(-3, 4, (4, 4)), rng.integers(-2, 3, 4)),
                                   (rng.integers(-3, 4, (4, 4)), rng.integers(-2, 3, 4)),
                                   (rng.integers(-3, 4, (1, 4)), [1])])
        try:
            res = extract(NetworkOracle(net), hidden_layers=2, seed=seed)
        except AssumptionViolated as exc:
            assert "deeper than asked" in str(exc) or "not a ReLU network of this form" in str(exc)
            refused += 1
        else:
            assert functionally_equal(res.network, net).status == "equivalent"
    assert refused


def test_refusals_name_the_failed_assumption():
    with pytest.raises(AssumptionViolated, match="no first layer seen"):
        extract(CallableOracle(lambda x: [3], d=3), hidden_layers=2)
    with pytest.raises(AssumptionViolated, match="not affine far out"):
        extract(CallableOracle(lambda x: [max(x[0] + x[1], 0) ** 2], d=2), hidden_layers=2)
    # two first-layer neurons, three asked for
    two = Network.from_layers([([[1, 0], [0, 1]], [0, -1]), ([[1, 2]], None), ([[1]], None)])
    with pytest.raises(AssumptionViolated, match="fewer than the 3 first-layer neurons asked for"):
        extract(NetworkOracle(two), hidden_layers=2, widths=(3,))
    # a first layer wider than its input (k1 = 3 > d = 2) takes the route of extract/wide.py
    wide = Network.from_layers([([[1, 0], [0, 1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], None), ([[1]], None)])
    assert functionally_equal(extract(NetworkOracle(wide), hidden_layers=2).network, wide).status == "equivalent"


@pytest.mark.parametrize("kw, match", [
    ({"hidden_layers": 9}, "hidden_layers must be an integer from 1 to 8"),
    ({"hidden_layers": True}, "hidden_layers must be an integer from 1 to 8"),
    ({"widths": (3,)}, "widths must be 1 to hidden_layers positive integers, for hidden_layers >= 2"),
    ({"hidden_layers": 2, "widths": (3, 3, 3)}, "widths must be 1 to hidden_layers positive integers"),
    ({"hidden_layers": 2, "widths": (3, 0)}, "each of widths must be a positive integer, got 0"),
    ({"hidden_layers": 3, "k": 3}, "for hidden_layers >= 2 give widths"),
])
def test_arguments_are_refused_before_any_query(kw, match):
    oracle = NetworkOracle(HIDDEN)
    with pytest.raises(InvalidInput, match=match):
        extract(oracle, **kw)
    assert oracle.queries == 0


def test_cli_two_hidden_layers(tmp_path, capsys):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(weights_json(HIDDEN)))
    out, cert = tmp_path / "out.json", tmp_path / "cert.json"
    assert main(["extract", "--oracle", str(path), "--hidden-layers", "2", "--widths", "3,3", "--seed", "1",
                 "-o", str(out), "--certificate", str(cert), "--expect", str(path)]) == 0
    text = capsys.readouterr().out
    assert "extracted a 4-3-3-1 network (6 hidden units)" in text and f"--expect {path}: equivalent" in text
    assert main(["check", str(cert)]) == 0
    assert main(["extract", "--oracle", str(path), "--widths", "3", "-o", str(out)]) == 2
    assert main(["extract", "--oracle", str(path), "--hidden-layers", "2", "-k", "3", "-o", str(out)]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["extract", "--oracle", str(path), "--hidden-layers", "2", "--widths", "3,x", "-o", str(out)])
    assert exc.value.code == 2
    assert "expected K1 or K1,K2,..." in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["extract", "--oracle", str(path), "--hidden-layers", "9", "-o", str(out)])
    assert exc.value.code == 2
    assert "expected an integer from 1 to 8, got '9'" in capsys.readouterr().err
    assert main(["extract", "--oracle", str(path), "--hidden-layers", "2", "--widths", "3,3,3", "-o", str(out)]) == 2


def test_the_fresh_queries_refuse_a_network_that_differs():
    rng = np.random.default_rng(7)
    net = Network.from_layers([(rng.integers(-3, 4, (4, 5)), rng.integers(-2, 3, 4)),
                               (rng.integers(-3, 4, (4, 4)), rng.integers(-2, 3, 4)),
                               (rng.integers(-3, 4, (4, 4)), rng.integers(-2, 3, 4)),
                               (rng.integers(-3, 4, (1, 4)), [1])])
    with pytest.raises(AssumptionViolated, match="differs from the oracle at a fresh query after 0 more lines"):
        two_hidden_layers(NetworkOracle(net), np.random.default_rng(7), chords=0, rounds=0)


def test_signs_from_the_jacobians_beside_the_kinks():
    """One input, the hyperplane x = 0: the Jacobians left and right of each kink decide the neuron's active side."""
    moving, still, q = ([[1]], 1), ([[0]], 1), [Fraction(1)]
    N, c, _ = orient([(1, 0)], [([Fraction(0)], still, moving, q)])
    assert (N, c) == ([[1]], [0])
    N, c, _ = orient([(1, 0)], [([Fraction(0)], moving, still, q)])
    assert (N, c) == ([[-1]], [0])
    with pytest.raises(AssumptionViolated, match="changes with it on both sides of a kink"):
        orient([(1, 0)], [([Fraction(0)], moving, moving, q)])
    with pytest.raises(AssumptionViolated, match="does not change with it on both sides of a kink"):
        orient([(1, 0)], [([Fraction(0)], still, still, q)])
    with pytest.raises(AssumptionViolated, match="active on one side at one kink and on the other at another"):
        orient([(1, 0)], [([Fraction(0)], still, moving, q), ([Fraction(0)], moving, still, q)])


def test_kinks_on_a_segment_and_its_refusals():
    oracle = CallableOracle(lambda x: [abs(x[0] - Fraction(1, 3)) + max(x[0] - 5, 0)], d=1)
    line = Line([Fraction(0)], [Fraction(1)])
    assert [k.t for k in kinks(oracle, line, lo=Fraction(0), hi=Fraction(1))] == [Fraction(1, 3)]
    assert [k.t for k in kinks(oracle, line, lo=Fraction(0))] == [Fraction(1, 3), Fraction(5)]
    with pytest.raises(AssumptionViolated, match="the search segment is empty"):
        kinks(oracle, line, lo=Fraction(1), hi=Fraction(1, 2))
    with pytest.raises(AssumptionViolated, match="kinks accumulate at the end of a search segment"):
        kinks(CallableOracle(lambda x: [x[0] ** 2], d=1), line, lo=Fraction(0), hi=Fraction(1))


def test_two_outputs():
    """m = 2 (6-5-4-2, float32 weights and biases, output biases on): the Jacobian jumps are rank one m x d matrices,
    the second layer's network has two outputs; the network found is equal to the hidden one."""
    rng = np.random.default_rng(0)
    f32 = np.float32
    layer = lambda rows, cols: ((rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(f32),  # noqa: E731
                                (rng.standard_normal(rows) / 10).astype(f32))
    hidden = Network.from_layers([layer(5, 6), layer(4, 5), layer(2, 4)])
    res = extract(NetworkOracle(hidden), hidden_layers=2, seed=0)
    assert res.network.widths == (6, 5, 4, 2) and res.summary.endswith("(hidden widths 5-4) gives every one exactly")
    assert functionally_equal(res.network, hidden).status == "equivalent"


def _small(seed: int) -> Network:
    """An integer 3-3-3-1 network with weights and biases in -2..2 (the family where ties were found)."""
    rng = np.random.default_rng(seed)
    return Network.from_layers([(rng.integers(-2, 3, (3, 3)), rng.integers(-2, 3, 3)),
                                (rng.integers(-2, 3, (3, 3)), rng.integers(-2, 3, 3)),
                                (rng.integers(-2, 3, (1, 3)), rng.integers(-2, 3, 1))])


def test_a_second_layer_piece_met_more_often_than_a_first_layer_neuron():
    """Seed 12: the piece (3, 1, 2, 0) of a second-layer neuron is met on 6 of 12 lines, the first-layer neuron
    (2, 2, 0, 1) on 5; the greedy choice took the piece, which failed to orient (it was refused as "not a first
    layer"). The choice is made again without it, and the network found is equal."""
    res = extract(NetworkOracle(_small(12)), hidden_layers=2, seed=12)
    assert functionally_equal(res.network, _small(12)).status == "equivalent"
    assert res.summary == verify_transcript(res.certificate)


def test_a_line_with_a_missed_kink_is_replaced():
    """Seed 1: on the seventh line two kinks of a bump lie between two equal affine pieces (the midpoint check
    misses them), so the Jacobians disagree with the line's slope ("probes keep leaving their region"); that line is
    replaced by another instead of refusing the oracle."""
    res = extract(NetworkOracle(_small(1)), hidden_layers=2, seed=1)
    assert functionally_equal(res.network, _small(1)).status == "equivalent"


def test_layer_choices_refuse_when_no_choice_orients():
    moving, still, q = ([[1, 0]], 1), ([[0, 0]], 1), [Fraction(1), Fraction(1)]
    seen = [([Fraction(0), Fraction(0)], moving, moving, q)]
    with pytest.raises(AssumptionViolated, match="not a first-layer ReLU neuron"):
        list(layer_choices([(1, 0, 0)], seen, 12))
    with pytest.raises(AssumptionViolated, match="fewer than the 2 first-layer neurons asked for"):
        list(layer_choices([(1, 0, 0)], seen, 12, width=2))
    assert [p for p, _ in layer_choices([(1, 0, 0), (0, 1, 0)], [([Fraction(0), Fraction(1)], still, moving, q)],
                                        12, width=1)] == [[(1, 0, 0)]]
