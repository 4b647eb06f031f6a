"""Subtrees of the case split on a process pool (exactrelu/equiv/deep/pool.py): the certificate of one process, byte for
byte, whatever the number of workers; the same witness; budgets that run out in a worker answer "unknown"."""

from __future__ import annotations

import json
import random

import pytest

import exactrelu.equiv.deep.pool as pool
from exactrelu.cli import main
from exactrelu.equiv import functionally_equal
from exactrelu.equiv.deep import deep_equivalence
from exactrelu.errors import InvalidInput
from exactrelu.io.weights import write_weights
from exactrelu.network import Network

from test_top1 import _random_net, _variant


@pytest.fixture
def pooled(monkeypatch):
    """Every search goes to the pool at once (no serial probe): small trees exercise the cut and the assembly."""
    monkeypatch.setattr(pool, "SERIAL_NODES", 0)


def _pair(seed: int, widths=(2, 5, 5, 3)):
    rng = random.Random(seed)
    f = _random_net(rng, list(widths))
    return f, _variant(rng, f, 0)


def test_the_certificate_is_byte_equal_for_one_and_two_workers(pooled):
    f, g = _pair(7)
    box = {"lower": [-2, -2], "upper": [2, 2]}
    one = functionally_equal(f, g, top1=True, workers=1, **box)
    two = functionally_equal(f, g, top1=True, workers=2, **box)
    assert one.status == two.status == "equivalent" and one.evidence["splits"] >= 3  # below the cut: in workers
    assert json.dumps(one.certificate) == json.dumps(two.certificate)
    eps_one = functionally_equal(f, g, epsilon=1000, workers=1, **box)
    eps_two = functionally_equal(f, g, epsilon=1000, workers=2, **box)
    assert json.dumps(eps_one.certificate) == json.dumps(eps_two.certificate)


def test_the_witness_is_the_one_process_witness(pooled):
    """A bump of height 10^-6 that no sampled point hits: the search finds it, at the same point on 1 and 2 workers."""
    bump = [["1"], ["1"], ["1"]]
    bias = ["-1/2", "-500001/1000000", "-500002/1000000"]
    f = Network.from_layers([([["1"], ["-1"]], None), ([["1", "1"]], None), ([["1"]], None)])     # |x|
    g = Network.from_layers([([["1"], ["-1"]] + bump, [0, 0] + bias), ([["1", "1", "1", "-2", "1"]], None),
                             ([["1"]], None)])                                                 # |x| + bump
    one = deep_equivalence(f, g, lower=[-1], upper=[1], workers=1)
    two = deep_equivalence(f, g, lower=[-1], upper=[1], workers=2)
    assert one.status == two.status == "not-equivalent" and one.witness == two.witness


def test_a_budget_spent_in_the_pool_is_unknown(pooled):
    f, g = _pair(7)
    res = deep_equivalence(f, g, top1=True, workers=2, max_nodes=20, lower=[-2, -2], upper=[2, 2])
    assert res.status == "unknown" and "node budget of 20 ran out" in res.reason


def test_ties_that_stick_in_a_worker_are_unknown(pooled):
    """f = (r + S, r + S, S) and g = (S, r + S, r + S), r = relu(x0), S = relu(x1) + relu(x2) + relu(x3): the argmax
    sets always meet in class 1, but both tie on every leaf (four splits deep: below the cut), so "unknown"."""
    hidden = ([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], None)
    f = Network.from_layers([hidden, ([[1, 1, 1, 1], [1, 1, 1, 1], [0, 1, 1, 1]], None)])
    g = Network.from_layers([hidden, ([[0, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]], None)])
    box = {"lower": [-1] * 4, "upper": [1] * 4}
    for workers in (1, 2):
        res = deep_equivalence(f, g, top1=True, workers=workers, **box)
        assert res.status == "unknown" and "tie" in res.reason


def test_progress_names_the_subtrees(pooled):
    f, g = _pair(7)
    lines = []
    deep_equivalence(f, g, top1=True, workers=2, progress=lines.append, lower=[-2, -2], upper=[2, 2])
    assert any("subtrees on 2 workers" in line for line in lines)


@pytest.mark.parametrize("workers", [0, 257, True, 1.5])
def test_a_bad_number_of_workers_is_refused(workers):
    f, g = _pair(1, (2, 2, 2, 2))
    with pytest.raises(InvalidInput, match="workers must be an integer from 1 to 256"):
        deep_equivalence(f, g, workers=workers)


def test_the_command_line_takes_workers(tmp_path, capsys, pooled):
    f, g = _pair(7)
    a, b = str(write_weights(f, tmp_path / "a.json")), str(write_weights(g, tmp_path / "b.json"))
    box = ["--lower=-2,-2", "--upper=2,2", "--top1"]
    assert main(["equiv", a, b, *box, "--workers", "2", "-o", str(tmp_path / "two.json")]) == 0
    assert main(["equiv", a, b, *box, "--workers", "1", "-o", str(tmp_path / "one.json")]) == 0
    assert (tmp_path / "one.json").read_bytes() == (tmp_path / "two.json").read_bytes()
    capsys.readouterr()
    assert main(["equiv", a, b, *box, "--workers", "300"]) == 2
    assert "workers must be an integer from 1 to 256" in capsys.readouterr().err


# -- the deadline in every step (issue 37 item 3): sampling, the reduction, a top1 leaf's LPs ------------------------

def test_a_tiny_time_limit_stops_the_witness_sampling():
    f, g = _pair(7)
    h = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], ["1/4", 0])])
    res = deep_equivalence(f, g, time_limit=1e-9)
    assert res.status == "unknown" and "the search for a witness (0 of 8 candidate points" in res.reason
    idt = Network.from_layers([([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], None)])
    res = deep_equivalence(idt, h, top1=True, time_limit=1e-9, lower=[-1, -1], upper=[1, 1])
    assert res.status == "unknown" and "the search for a witness" in res.reason


def test_a_tiny_time_limit_stops_the_reduction(monkeypatch):
    import exactrelu.equiv.deep as deep

    monkeypatch.setattr(deep, "sampled_witness", lambda *args, **kwargs: None)
    f, g = _pair(7)
    res = deep_equivalence(f, g, time_limit=1e-9)
    assert res.status == "unknown" and "the reduction of the two networks (0 neurons so far)" in res.reason


def test_a_tiny_time_limit_stops_a_top1_leaf(monkeypatch):
    """With the node ticks and the steps before the search out of the way, the leaf's own check answers."""
    import exactrelu.equiv.deep as deep
    import exactrelu.equiv.deep.top1 as top1
    from exactrelu.deadline import Deadline

    real = deep.reduced_difference
    monkeypatch.setattr(deep, "reduced_difference", lambda a, b, deadline=None: real(a, b))
    monkeypatch.setattr(top1, "top1_witness", lambda *args, **kwargs: None)
    monkeypatch.setattr(top1.Top1Search, "_tick", lambda self: None)
    f, g = _pair(7)
    res = deep_equivalence(f, g, top1=True, time_limit=Deadline(0), workers=1, lower=[-2, -2], upper=[2, 2])
    assert res.status == "unknown" and res.reason == "the time limit of 0 s passed"


def test_the_command_line_answers_unknown_at_a_tiny_limit(tmp_path, capsys):
    f, g = _pair(7)
    a, b = str(write_weights(f, tmp_path / "a.json")), str(write_weights(g, tmp_path / "b.json"))
    assert main(["equiv", a, b, "--lower=-2,-2", "--upper=2,2", "--top1", "--time-limit", "0.000001"]) == 3
    assert "UNKNOWN" in capsys.readouterr().out
