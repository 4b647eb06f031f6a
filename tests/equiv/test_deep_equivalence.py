"""Exact equivalence of ReLU networks of any depth on R^d (issue 37, items 2 and 4)."""

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactrelu.equiv.deep as deep_mod
from exactrelu.certificates import checker
from exactrelu.equiv import functionally_equal
from exactrelu.equiv.deep import deep_equivalence
from exactrelu.equiv.deep.forms import reduced_difference
from exactrelu.equiv.deep.minimize import reduced_network
from exactrelu.equiv.minimize import minimize
from exactrelu.errors import InvalidInput
from exactrelu.network import Activation, Network

F = Fraction


def layers_of(net):
    return [([list(r) for r in layer.W.to_fractions()], layer.b_fractions()) for layer in net.layers]


def rewrite(net, rnd):
    """Permute and positively scale every hidden layer, split neuron 0, add a dead neuron (same function)."""
    L = layers_of(net)
    for t in range(len(L) - 1):
        (W, b), (Wn, bn) = L[t], L[t + 1]
        k = len(W)
        perm = list(range(k))
        rnd.shuffle(perm)
        s = [F(rnd.randint(1, 5), rnd.randint(1, 5)) for _ in range(k)]
        W, b = [[x * s[i] for x in W[i]] for i in perm], [b[i] * s[i] for i in perm]
        Wn = [[row[i] / s[i] for i in perm] for row in Wn]
        W.append(list(W[0]))
        b.append(b[0])
        for row in Wn:
            row[0] /= 2
            row.append(row[0])
        W.append([F(0)] * len(W[0]))
        b.append(F(-1))
        for row in Wn:
            row.append(F(7))
        L[t], L[t + 1] = (W, b), (Wn, bn)
    return Network.from_layers(L)


def random_net(widths, seed):
    rng = np.random.default_rng(seed)
    return Network.from_layers([(rng.integers(-3, 4, (widths[t + 1], widths[t])), rng.integers(-2, 3, widths[t + 1]))
                                for t in range(len(widths) - 1)])


@given(st.integers(0, 10**6), st.lists(st.integers(1, 4), min_size=2, max_size=4))
@settings(max_examples=15, deadline=None)
def test_symmetric_rewrites_reduce_to_zero_and_certify(seed, hidden):
    net = random_net([2, *hidden, 2], seed)
    other = rewrite(net, random.Random(seed))
    res = functionally_equal(net, other)
    assert res.status == "equivalent" and res.certificate["tree"] == [{"equal": [{}, {}]}]
    assert "case tree of 1 leaf checked" in checker.check(res.certificate, None)


def test_a_changed_bias_gives_an_exact_witness():
    net = random_net([3, 5, 5, 2], 4)
    L = layers_of(net)
    L[1][1][2] += F(1, 7)
    other = Network.from_layers(L)
    res = functionally_equal(net, other)
    assert res.status == "not-equivalent" and res.values[0] != res.values[1]
    x = res.witness
    assert net.evaluate_exact([x]).to_fractions()[0] == res.values[0]
    assert checker.check(res.certificate, None).startswith("not-equivalent")


def _pair_always_active(c=F(3)):
    """relu(relu(x+1) - relu(x)) is relu(x+1) - relu(x) (in [0, 1]): equal only by a case split."""
    first = ([[1, 0], [1, 0], [0, 1]], [0, 1, 0])  # relu(x1), relu(x1 + 1), relu(x2)
    a = Network.from_layers([first, ([[0, 1, 0], [1, 0, 0], [0, 0, 1]], None), ([[c, -c, 1]], [0])])
    b = Network.from_layers([first, ([[-1, 1, 0], [0, 0, 1]], None), ([[c, 1]], [0])])
    return a, b


def _pair_hidden_dead():
    """relu(relu(x) - relu(x + 1)) is never active, though no sign shows it."""
    first = ([[1], [1]], [0, 1])
    a = Network.from_layers([first, ([[1, 1]], None), ([[2]], None)])
    b = Network.from_layers([first, ([[1, 1], [1, -1]], None), ([[2, 5]], None)])
    return a, b


@pytest.mark.parametrize("pair", [_pair_always_active, _pair_hidden_dead])
def test_equivalences_that_need_the_case_tree(pair):
    a, b = pair()
    assert not all(not f and k == 0 for f, k in reduced_difference(a, b).outputs)
    res = functionally_equal(a, b)
    assert res.status == "equivalent" and res.evidence["leaves"] >= 2
    tree = res.certificate["tree"]
    assert any("split" in node for node in tree)
    assert checker.check(res.certificate, None).startswith("equivalent")
    back = functionally_equal(b, a)
    assert back.status == "equivalent"


def test_the_tree_finds_a_witness_that_sampling_misses(monkeypatch):
    monkeypatch.setattr(deep_mod, "sampled_witness", lambda *args, **kw: None)
    a, b = _pair_always_active()
    L = layers_of(b)
    L[2][1][0] = F(3) + F(1, 1000)  # the difference shows only where relu(x1 + 1) - relu(x1) > 0
    res = functionally_equal(a, Network.from_layers(L))
    assert res.status == "not-equivalent"
    assert checker.check(res.certificate, None).startswith("not-equivalent")
    far = Network.from_layers(layers_of(a)[:2] + [([[F(3), F(-3), F(1)]], [F(0)])])
    assert functionally_equal(a, far).status == "equivalent"


def test_budgets_answer_unknown():
    a, b = _pair_always_active()
    res = functionally_equal(a, b, max_nodes=1)
    assert res.status == "unknown" and res.certificate == {} and "node budget of 1" in res.summary
    seen = []
    res = functionally_equal(a, b, time_limit=0.0, progress=seen.append)
    assert res.status == "unknown" and "time limit" in res.summary


def test_refusals():
    net = random_net([2, 2, 2, 1], 0)
    with pytest.raises(InvalidInput, match="ReLU only"):
        deep_equivalence(net.with_activation(Activation.power(2)), net.with_activation(Activation.power(2)))
    with pytest.raises(InvalidInput, match="not comparable"):
        deep_equivalence(net, random_net([3, 2, 1], 0))
    with pytest.raises(InvalidInput, match="two Network objects"):
        deep_equivalence(net, "net.json")


def test_depths_may_differ():
    """An identity layer relu(h) on ReLU outputs is always active: the reduction removes it."""
    net = random_net([2, 3, 1], 1)
    L = layers_of(net)
    deeper = Network.from_layers([L[0], ([[F(int(i == j)) for j in range(3)] for i in range(3)], None), L[1]])
    res = functionally_equal(net, deeper)
    assert res.status == "equivalent" and checker.check(res.certificate, None)


def test_minimize_deep_removes_the_cheap_neurons():
    net = random_net([2, 3, 3, 1], 2)
    big = rewrite(net, random.Random(3))
    res = minimize(big)
    assert res.network.widths == reduced_network(big).widths
    assert sum(res.network.widths[1:-1]) <= sum(net.widths[1:-1]) and res.removed >= 4
    assert res.lower_bound is None and not res.optimal and res.equivalence.status == "equivalent"
    silent = Network.from_layers([([[1]], [-1]), ([[0]], None), ([[1]], None)])
    out = reduced_network(silent)
    assert out.widths == (1, 1, 1, 1) and not any(x for r in out.layers[0].W.to_fractions() for x in r)


def test_independent_parts_are_proved_once_each_as_lemmas():
    import sys as _sys
    from pathlib import Path as _Path
    _sys.path.insert(0, str(_Path(__file__).parents[2] / "benchmarks"))
    from bench_deep_equiv import gadgets

    a, b = gadgets((3, 4, 4, 2), 3, seed=1)
    res = functionally_equal(a, b)
    cert = res.certificate
    assert res.status == "equivalent" and len(cert["lemmas"]) == 3 and res.evidence["lemmas"] == 3
    sums = [{"lemma": [[0, "1"], [2, "1"], [4, "1"]]}, {"lemma": [[1, "1"], [3, "1"], [5, "1"]]}]
    assert cert["tree"] == [{"equal": sums}]
    assert "3 lemmas and case trees of" in checker.check(cert, None)


def test_parts_that_are_not_zero_alone_fall_back_to_one_tree():
    """relu(x) against relu(relu(x + 1) - 1): equal functions that share no neuron, so two parts, neither zero."""
    a = Network.from_layers([([[1]], None), ([[1]], None), ([[1]], None)])
    b = Network.from_layers([([[1]], [1]), ([[1]], [-1]), ([[1]], None)])
    res = functionally_equal(a, b)
    assert res.status == "equivalent" and "lemmas" not in res.certificate
    assert checker.check(res.certificate, None).startswith("equivalent")
