"""Bounds over a whole subtree (exactrelu/equiv/deep/relax.py): relaxed leaves close nodes of the box search, their
certificates check, and the trees are smaller than the case split's alone."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import exactrelu.equiv.deep.search as search
from exactrelu.certificates import checker
from exactrelu.equiv import functionally_equal
from exactrelu.equiv.deep import deep_equivalence
from exactrelu.equiv.deep.relax import outward
from exactrelu.network import Network

ABS = Network.from_layers([([[1], [-1]], None), ([[1, 1]], None), ([[1]], None)])                   # |x|
WIDE = Network.from_layers([([[1], [-1]], ["1/8", "1/8"]), ([[1, 1]], None), ([[1]], None)])       # max 1/4 apart


@pytest.fixture
def unrelaxed(monkeypatch):
    """The search without relaxed leaves (the case split alone), for comparison."""
    monkeypatch.setattr(search.Search, "relaxes", False)


def _pair(seed: int):
    """A random 2-6-6-1 network with quarter weights and the same network with biases moved by at most 1/32."""
    rng = random.Random(seed)
    layers, width = [], 2
    for k in (6, 6, 1):
        W = [[str(Fraction(rng.randint(-8, 8), 4)) for _ in range(width)] for _ in range(k)]
        layers.append((W, [str(Fraction(rng.randint(-4, 4), 4)) for _ in range(k)]))
        width = k
    moved = [(W, [str(Fraction(v) + Fraction(rng.randint(-1, 1), 32)) for v in b]) for W, b in layers]
    return Network.from_layers(layers), Network.from_layers(moved)


def test_a_loose_epsilon_is_proved_by_one_relaxed_leaf_at_the_root():
    res = functionally_equal(ABS, WIDE, epsilon=2, lower=[-1], upper=[1])
    assert res.status == "equivalent" and res.evidence["nodes"] == 1 and res.evidence["relaxed_leaves"] == 1
    assert list(res.certificate["tree"][0]) == ["relaxed"]
    assert checker.check(res.certificate, None).startswith("epsilon-equivalent")


def test_epsilon_at_the_true_maximum_is_left_to_the_case_split():
    """max |f - g| = 1/4 exactly (at x = 0): no relaxation proves it with a margin at the root; below the splits,
    away from 0, relaxed leaves may close what is left."""
    res = functionally_equal(ABS, WIDE, epsilon="1/4", lower=[-1], upper=[1])
    assert res.status == "equivalent" and "relaxed" not in res.certificate["tree"][0]
    assert checker.check(res.certificate, None).startswith("epsilon-equivalent")
    assert functionally_equal(ABS, WIDE, epsilon="1/5", lower=[-1], upper=[1]).status == "not-equivalent"


def test_relaxed_leaves_below_splits_shrink_the_tree(unrelaxed):
    f, g = _pair(4)
    box = {"lower": [-1, -1], "upper": [1, 1]}
    alone = deep_equivalence(f, g, epsilon="1/2", workers=1, **box)
    search.Search.relaxes = True
    res = functionally_equal(f, g, epsilon="1/2", workers=1, **box)
    assert alone.status == res.status == "equivalent"
    assert res.evidence["relaxed_leaves"] >= 5 and res.evidence["splits"] >= 1
    assert res.evidence["nodes"] * 3 < alone.stats["nodes"]
    assert checker.check(res.certificate, None).startswith("epsilon-equivalent")
    kinds = {next(iter(node)) for node in res.certificate["tree"]}
    assert {"relaxed", "split"} <= kinds


def test_a_difference_beyond_epsilon_is_still_found():
    f, g = _pair(4)
    res = functionally_equal(f, g, epsilon="1/1000", workers=1, lower=[-1, -1], upper=[1, 1])
    assert res.status == "not-equivalent" and checker.check(res.certificate, None).startswith("not-epsilon")


def test_no_relaxation_on_all_of_r_d_or_for_equality():
    """The lines need bounds (a box) and a margin (epsilon > 0)."""
    assert deep_equivalence(ABS, ABS, epsilon=1).stats["nodes"] == 0
    res = deep_equivalence(ABS, WIDE, epsilon=0, lower=[-1], upper=[1])
    assert res.status == "not-equivalent"
    assert deep_equivalence(ABS, ABS, lower=[-1], upper=[1]).status == "equivalent"


def test_outward_rounding():
    for q in (Fraction(1, 3), Fraction(-22, 7), Fraction(10**30, 3), Fraction(-1, 3 * 10**30)):
        up, down = outward(q, True), outward(q, False)
        assert down <= q <= up and up - down <= abs(q) * Fraction(1, 2**30)
        assert (up.denominator & (up.denominator - 1)) == 0 and (down.denominator & (down.denominator - 1)) == 0
    assert outward(Fraction(0), True) == 0


def test_a_flat_box_falls_back_from_vertices_to_one_lp_per_bound():
    """x2 fixed: the input polytope has no interior (qhull cannot take it), so each bound is an LP; the answer and
    its certificate are the same kind."""
    f, g = _pair(4)
    res = functionally_equal(f, g, epsilon="1/2", workers=1, lower=[-1, "1/3"], upper=[1, "1/3"])
    assert res.status == "equivalent" and res.evidence["relaxed_leaves"] >= 1
    assert checker.check(res.certificate, None).startswith("epsilon-equivalent")


def _odd_pair(seed: int):
    """A random 3-5-5-1 network with weights of odd denominators (3, 5, 7: the reduced difference's forms then have
    rows over many different denominators, as the ACAS Xu pairs' do) and the same with biases moved a little."""
    rng = random.Random(seed)
    layers, width = [], 3
    for k in (5, 5, 1):
        W = [[str(Fraction(rng.randint(-9, 9), rng.choice((3, 5, 7)))) for _ in range(width)] for _ in range(k)]
        layers.append((W, [str(Fraction(rng.randint(-3, 3), rng.choice((3, 7)))) for _ in range(k)]))
        width = k
    moved = [(W, [str(Fraction(v) + Fraction(rng.randint(-1, 1), 97)) for v in b]) for W, b in layers]
    return Network.from_layers(layers), Network.from_layers(moved)


@pytest.mark.parametrize("seed", [4, 5])
def test_relaxed_leaves_over_odd_denominators_and_decided_neurons_check(seed):
    """Rows over distinct odd denominators (each multiplier on its row's own grid) and relaxed leaves below fixes
    and splits (the decided neurons' equations completing each combination): every certificate checks."""
    f, g = _odd_pair(seed)
    box = {"lower": ["-1/3", -1, "-2/7"], "upper": [1, "5/7", "1/3"]}
    res = functionally_equal(f, g, epsilon="1/2", workers=1, **box)
    assert res.status == "equivalent" and res.evidence["relaxed_leaves"] >= 10
    assert checker.check(res.certificate, None).startswith("epsilon-equivalent")
    posts = [c for node in res.certificate["tree"] if "relaxed" in node for e in node["relaxed"]["chain"]
             for c in e[5:] if "post" in c]
    assert len(posts) >= 100


def test_the_grid_of_multipliers_is_close_to_the_floats():
    """Each multiplier N D / W is within 2^-(BITS - 2) of its float (relatively) when it is above 2^-BITS of its
    row's largest, whatever the rows' denominators; W is a power of two."""
    import numpy as np

    from exactrelu.equiv.deep.relax_exact import BITS, _grid

    rng = np.random.default_rng(0)
    C = {"line": rng.random((4, 6)) * 10.0 ** rng.integers(-8, 8, (4, 6)), "pos": rng.random((4, 2))}
    C["line"][0, :3] = 0
    dens = {"line": [3**50, 1, 2**200, 7, 10**40 + 1, 5**90], "pos": [1, 1]}
    N, W = _grid(C, dens, 4)
    big = max(abs(M).max() for M in C.values())
    for name, M in C.items():
        for r in range(4):
            assert W[r] & (W[r] - 1) == 0
            top = max(abs(C[k][r]).max() for k in C)
            for j, c in enumerate(M[r]):
                m = Fraction(int(N[name][r, j]) * dens[name][j], W[r])
                if c > top * 2.0 ** -BITS:
                    assert abs(float(m) - c) <= c * 2.0 ** (2 - BITS)
                elif c == 0:
                    assert m == 0
    assert big > 0
