"""extract with three hidden layers (exactrelu/extract/deeper.py, domain.py, faces.py): exact on small networks with
a checked transcript, refusals that name the reason, and the pieces (chords of a polyhedron, units seen face by
face) on their own."""

from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.equiv import functionally_equal
from exactrelu.errors import AssumptionViolated
from exactrelu.extract import CallableOracle, NetworkOracle, extract
from exactrelu.extract.deep import MappedOracle
from exactrelu.extract.deeper import _below, _choices, _Context, _unseen, hidden_layers
from exactrelu.extract.domain import Domain
from exactrelu.extract.faces import Faces
from exactrelu.io.weights import weights_json
from exactrelu.network import Network

#: 4-3-3-2-1 with integer weights; the second neuron of layer 2 is dead (off wherever the first layer reaches)
SMALL = Network.from_layers([([[2, 3, 3, 0], [3, 3, 3, -3], [0, 1, -2, -1]], [1, 2, 0]),
                             ([[-2, 1, 3], [-2, 0, -1], [3, -3, 0]], [2, 0, -2]),
                             ([[2, 3, 3], [3, -1, 2]], [2, 0]), ([[3, 1]], [1])])


def test_three_hidden_layers_with_a_dead_neuron_through_the_cli(tmp_path, capsys):
    path, out, cert = tmp_path / "net.json", tmp_path / "out.json", tmp_path / "cert.json"
    path.write_text(json.dumps(weights_json(SMALL)))
    assert main(["extract", "--oracle", str(path), "--hidden-layers", "3", "-o", str(out), "--certificate", str(cert),
                 "--expect", str(path)]) == 0
    text = capsys.readouterr().out
    assert "extracted a 4-3-2-2-1 network" in text and f"--expect {path}: equivalent" in text
    assert "no lower bound is stated for 3 hidden layers" in text
    assert main(["check", str(cert)]) == 0
    assert "(hidden widths 3-2-2) gives every one exactly" in capsys.readouterr().out


def test_a_deeper_or_shallower_oracle_is_refused_or_equal():
    """Four hidden layers asked as three: refused with a reason; never a network that differs."""
    rng = np.random.default_rng(3)
    deeper = Network.from_layers([(rng.integers(-3, 4, (4, 5)), rng.integers(-2, 3, 4)),
                                  (rng.integers(-3, 4, (4, 4)), rng.integers(-2, 3, 4)),
                                  (rng.integers(-3, 4, (3, 4)), rng.integers(-2, 3, 3)),
                                  (rng.integers(-3, 4, (3, 3)), rng.integers(-2, 3, 3)),
                                  (rng.integers(-3, 4, (1, 3)), [1])])
    try:
        res = extract(NetworkOracle(deeper), hidden_layers=3, seed=0, fresh=256)
    except AssumptionViolated as exc:
        assert "not a network of this form" in str(exc) or "deeper than asked" in str(exc) or "layer" in str(exc)
    else:
        assert functionally_equal(res.network, deeper).status == "equivalent"
    with pytest.raises(AssumptionViolated, match="not affine far out"):
        extract(CallableOracle(lambda x: [max(x[0] + x[1], 0) ** 2], d=2), hidden_layers=3)


def test_domain_chords_points_and_directions():
    square = Domain(2).restrict([[F(-1), F(0)], [F(0), F(-1)]], [F(1), F(1)])  # 0 <= y <= 1
    y = square.point()
    assert square.inside(y) and not square.inside([F(0), F(1, 2)])
    assert square.chord([F(1, 2), F(1, 2)], [F(1), F(0)]) == (F(-1, 2), F(1, 2))
    assert Domain(2).chord([F(1), F(1)], [F(1), F(1)]) == (F(-1), None)  # the orthant: a ray
    assert square.tight([F(1, 2**20), F(1, 2)]) == {0}
    assert square.along([F(1), F(1)], {0}) == [F(0), F(1)] and square.along([F(1), F(0)], {0}) is None
    assert square.along([F(1), F(1)], {0, 1}) is None  # as many walls as dimensions
    points = square.samples(np.random.default_rng(0), 5)
    assert len(points) == 5 and all(square.inside(p) for p in points)
    chords = list(square.chords(np.random.default_rng(0), 3, [([F(1, 2**20), F(1, 2)], {0})]))
    assert chords[0][0].q[0] == 0 and len(chords) == 3  # through the start, keeping its wall
    empty = Domain(1).restrict([[F(-1)]], [F(-1)])  # y >= 0 and y <= -1
    assert empty.point() is None and empty.samples(np.random.default_rng(0), 2) == []


def test_faces_match_units_across_faces_and_refuse_what_does_not_fit():
    """G(h) = relu(h0 + 2 h1 - 1) on the layer below's outputs h = relu(y) (M = I): seen on the face h1 = 0 and
    on the open orthant, the two sightings are one unit."""
    I = [[F(1), F(0)], [F(0), F(1)]]
    faces = Faces(I, [F(0), F(0)], 1)
    assert faces.kink([F(1), F(-1)], (1, 0, -1), [F(1)])  # h1 = 0 there: w = (1, .), b = -1
    assert faces.missing() == [(0, 1, ([F(1), F(-1)], (1, 0, -1)))]
    assert faces.kink([F(1, 2), F(1, 4)], (1, 2, -1), [F(1)])
    assert len(faces.units) == 1 and faces.missing() == []
    assert not faces.kink([F(0), F(1)], (1, 0, 0), [F(1)])  # on a hyperplane of the layer below: not this layer's
    faces.region([F(3), F(3)], [F(8)], ([[1, 2]], 1))  # the unit active: gradient (1, 2), value 8
    faces.region([F(1, 4), F(1, 4)], [F(0)], ([[0, 0]], 1))  # inactive
    form = faces.form()
    assert form.hyperplanes == (((1, 2, -1), (F(1),)),) and form.linear == ((F(0), F(0)),) and form.offset == (F(0),)
    faces.region([F(1, 8), F(1, 8)], [F(1)], ([[0, 0]], 1))  # a value the unit does not explain
    with pytest.raises(AssumptionViolated, match="offsets of two regions of the last hidden layer disagree"):
        faces.form()
    faces.regions.pop()
    faces.region([F(1, 8), F(1, 8)], [F(0)], ([[1, 0]], 1))
    with pytest.raises(AssumptionViolated, match="affine parts of two regions of the last hidden layer disagree"):
        faces.form()
    with pytest.raises(AssumptionViolated, match="through the origin"):
        faces.kink([F(1), F(1)], (1, -1, 0), [F(1)])  # b = 0: not matched by this route
    with pytest.raises(AssumptionViolated, match="every neuron of the layer below is off"):
        faces.kink([F(-1), F(-1)], (1, 1, 3), [F(1)])
    narrow = Faces([[F(1), F(0), F(0)], [F(0), F(1), F(0)]], [F(0), F(0)], 1)
    with pytest.raises(AssumptionViolated, match="no function of the outputs of the layer below"):
        narrow.kink([F(1), F(1), F(0)], (1, 1, 1, -2), [F(1)])  # moves with y2, which no neuron below sees
    with pytest.raises(AssumptionViolated, match="no function of the outputs of the layer below"):
        _below([F(0), F(0), F(1)], [[F(1), F(0), F(0)]], [[F(1)], [F(0)], [F(0)]])


def test_too_few_chords_and_no_more_rounds_is_refused():
    """No chord beyond those through the starts and no second round: the fresh queries find a point where the
    network differs, and nothing is answered."""
    with pytest.raises(AssumptionViolated, match="differs from the oracle at a fresh query after 0 more rounds"):
        hidden_layers(NetworkOracle(SMALL), np.random.default_rng(0), 3, chords=0, rounds=0)


def test_refusals_of_the_last_layer_and_of_a_middle_layer():
    narrow = Faces([[F(1), F(0), F(0)], [F(0), F(1), F(0)]], [F(0), F(0)], 1)
    with pytest.raises(AssumptionViolated, match="a neuron of that layer was missed"):
        narrow.region([F(1), F(1), F(1)], [F(0)], ([[1, 1, 1]], 1), missed=True)  # moves with y2
    half = Faces([[F(1), F(0)], [F(0), F(1)]], [F(0), F(0)], 1)
    half.kink([F(1), F(-1)], (1, 0, -1), [F(1)])  # seen only where the second neuron below is off
    with pytest.raises(AssumptionViolated, match="1 weights of the last hidden layer are not known: unit 0 was never "
                                                 "seen where neuron 1 of the layer below is active"):
        raise _unseen(half)
    # a leaky unit in layer 2 (on the orthant y = x >= 0 of an identity first layer): it moves on both sides
    leaky = CallableOracle(lambda y: [max(y[0] - y[1], (y[0] - y[1]) / 10)], d=2, m=1)
    eye = [[F(1), F(0)], [F(0), F(1)]]
    ctx = _Context(leaky, MappedOracle(leaky, eye, [F(0), F(0)]), np.random.default_rng(0), None, 4, 4, 64, 0, 1, None)
    with pytest.raises(AssumptionViolated, match="layer 2: hyperplane 0 of the layer is not a layer-2 ReLU neuron"):
        list(_choices(ctx, Domain(2), [], 2, None))
