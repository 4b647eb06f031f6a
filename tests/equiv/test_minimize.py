"""minimize: the result is the same function (certified), never larger than the input, never below its bound."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.equiv import canonical_form
from exactrelu.equiv.minimize import minimize
from exactrelu.errors import InvalidInput
from exactrelu.network import Activation, Network
from exactrelu.testing import networks


@settings(deadline=None)
@given(networks(k=st.integers(1, 5), d=st.integers(1, 3), m=st.integers(1, 3), bias=True, output_bias=True,
                activation=st.sampled_from([Activation.relu(), Activation.power(2)]),
                weights=st.sampled_from([-2, -1, 0, 1, 2, Fraction(1, 2)]).map(Fraction)))
def test_minimize_keeps_the_function_and_respects_its_bound(net):
    res = minimize(net)
    assert res.equivalence.status == "equivalent" and res.equivalence.summary.startswith("equivalent:")
    assert canonical_form(res.network) == canonical_form(net)
    assert res.removed == net.k - res.network.k >= 0
    units = sum(1 for col in res.network.U.transpose().to_fractions() if any(col))
    assert res.lower_bound >= canonical_form(net).units and units >= res.lower_bound
    assert res.optimal == (units == res.lower_bound)


def test_dead_zero_parallel_and_constant_units_go():
    net = Network.from_rows(U=[[1, 0, 2, 5, 3]], V=[[1, 1], [4, 4], [2, 2], [0, 0], [0, 0]], b=[1, 7, 2, -1, 2])
    res = minimize(net)  # relu(z) + 0 + 2 relu(2z) + 5 relu(-1) + 3 relu(2) = 5 relu(x + y + 1) + 6
    assert res.network.to_json() == {"U": [["5"]], "V": [["1", "1"]], "b": ["1"], "c": ["6"],
                                     "activation": {"name": "relu"}}
    assert (res.removed, res.optimal, res.lower_bound) == (4, True, 1)


def test_opposite_pairs_fold_and_the_affine_part_is_written_back():
    x = Network.from_rows(U=[[1, -1, 1, -1]], V=[[1, 0], [-1, 0], [2, 0], [-2, 0]], b=[0, 0, 1, -1])
    res = minimize(x)  # 2x + 1 as 4 units: no hyperplane is needed, one pair (2 units) is
    assert res.network.k == 2 and res.lower_bound == 2 and res.optimal
    single = Network.from_rows(U=[[3]], V=[[-1, 2]], b=[5])
    res = minimize(single)  # one unit in the negative orientation stays one unit
    assert res.network.k == 1 and res.optimal


def test_an_all_dead_network_becomes_one_zero_unit_and_c():
    net = Network.from_rows(U=[[0, 4]], V=[[1, 1], [0, 0]], b=[0, 3], c=[1])
    res = minimize(net)
    assert res.network.k == 1 and res.network.c_fractions() == [Fraction(13)] and res.optimal
    assert not any(res.network.U.to_fractions()[0])


def test_the_bound_with_independent_normals():
    # m = 2: 3 relu(x) + 2 relu(y) + A x with A = [[1, 0], [0, 1]]: mu = identity is neither 0 nor -beta on either
    # hyperplane, so each needs a second unit (or a pair): 4 units, and the bound says 4
    net = Network.from_rows(U=[[4, -1, 0, 0], [0, 0, 3, -1]], V=[[1, 0], [-1, 0], [0, 1], [0, -1]])
    res = minimize(net)
    assert res.network.k == 4 and res.lower_bound == 4 and res.optimal


def test_powers_write_their_terms_back():
    sq = Activation.power(2)
    net = Network.from_rows(U=[[1, 1, 2]], V=[[1, 0], [-1, 0], [2, 0]], activation=sq)   # x^2 + 8 relu(x)^2
    res = minimize(net)
    assert canonical_form(res.network) == canonical_form(net) and res.network.k == 2


def test_minimize_refuses_what_is_not_a_network():
    with pytest.raises(InvalidInput, match="minimize takes a Network"):
        minimize("net.json")
