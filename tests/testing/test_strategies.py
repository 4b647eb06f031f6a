"""The public strategies of exactrelu.testing: shapes, exactness, degeneracies, errors, shrinking.

Property tests take their number of examples from the hypothesis profile (tests/conftest.py:
"ci" by default, "thorough" with HYPOTHESIS_PROFILE=thorough); none sets max_examples.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from exactrelu.errors import InvalidInput
from exactrelu.exact.matrix import QMatrix
from exactrelu.instances import Instance
from exactrelu.network import Activation, Network
from exactrelu.testing import (DEGENERACIES, INPUT_KINDS, activations, cnf_formulas, cnf_satisfied,
                               column_degeneracies, inputs, matrices, nae3sat_formulas, nae_satisfied,
                               networks, planted_instances, rationals, subspaces)


def _draw_one(strategy):
    """Draw one example (for error paths): find returns the first drawn value."""
    return find(strategy, lambda _: True)


# -- rationals ----------------------------------------------------------------------------------

@given(rationals(min_value="-3/2", max_value=5, max_denominator=6))
def test_rationals_in_bounds(x):
    assert isinstance(x, Fraction) and Fraction(-3, 2) <= x <= 5 and x.denominator <= 6


@given(rationals(min_value=st.integers(-3, 0), max_value=st.integers(1, 3), max_denominator=st.integers(1, 3), nonzero=True))
def test_rationals_take_strategies(x):
    assert x != 0 and -3 <= x <= 3 and x.denominator <= 3


@given(rationals(min_value=Fraction(-1, 2), max_value=Fraction(1, 2), max_denominator=3, nonzero=True))
def test_rationals_narrow_nonzero(x):
    assert x != 0 and abs(x) <= Fraction(1, 2) and x.denominator in (2, 3)


def test_rationals_shrink_towards_small_denominators():
    assert find(rationals(max_denominator=97), lambda x: 0 < x < 1) == Fraction(1, 2)
    # shrinking is local (denominator and numerator move one at a time): small, not always minimal
    assert find(rationals(max_denominator=97), lambda x: Fraction(1, 3) < x < Fraction(1, 2)).denominator <= 10
    assert find(rationals(min_value=Fraction(1, 3), max_value=Fraction(1, 3), max_denominator=9), lambda x: True) == Fraction(1, 3)


@pytest.mark.parametrize("kwargs, match", [
    ({"min_value": 2, "max_value": 1}, "larger than max_value"),
    ({"min_value": Fraction(1, 3), "max_value": Fraction(1, 3), "max_denominator": 2}, "no rational"),
    ({"min_value": 0, "max_value": 0, "nonzero": True}, "no non-zero rational"),
    ({"max_denominator": 0}, "max_denominator must be"),
])
def test_rationals_errors(kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        _draw_one(rationals(**kwargs))


# -- matrices and subspaces ---------------------------------------------------------------------

@given(matrices(rows=st.integers(1, 5), cols=3, elements=rationals(min_value=-2, max_value=2, max_denominator=5)))
def test_matrices_are_exact(M):
    assert isinstance(M, QMatrix) and M.shape[1] == 3 and 1 <= M.shape[0] <= 5
    for row in M.to_fractions():
        assert all(-2 <= x <= 2 and x.denominator <= 5 for x in row)


@given(matrices(rows=4, cols=st.integers(1, 6), full_rank=True))
def test_full_rank_matrices(M):
    assert M.num.rank() == min(M.shape)


@given(matrices(rows=2, cols=2, elements=st.integers(-1, 1)))
def test_matrices_accept_integer_elements(M):
    assert M.den == 1 and all(abs(x) <= 1 for r in M.to_fractions() for x in r)


@given(subspaces(dim=st.integers(1, 3), ambient=st.integers(3, 6)))
def test_generic_subspaces_have_a_basis(B):
    k, n = B.shape
    assert B.num.rank() == k <= n


@pytest.mark.parametrize("kind", DEGENERACIES)
@given(data=st.data())
def test_degenerate_subspaces_are_degenerate(kind, data):
    B = data.draw(subspaces(dim=st.integers(1, 3), ambient=st.integers(4, 7), degenerate=kind))
    k, n = B.shape
    assert B.num.rank() == k  # still a basis: only the columns are special
    found = column_degeneracies(B)
    assert found[kind]
    if kind == "repeated":
        assert found["parallel"]  # equal non-zero columns are parallel too


@given(subspaces(dim=2, ambient=5, degenerate="any"))
def test_any_degeneracy(B):
    assert any(column_degeneracies(B).values())


def test_column_degeneracies_of_a_generic_matrix():
    assert column_degeneracies(QMatrix.from_rows([[1, 0, 1], [0, 1, 2]])) == {"zero": False, "repeated": False, "parallel": False}
    assert column_degeneracies(QMatrix.from_rows([[1, -2], [2, -4]]))["parallel"]


@pytest.mark.parametrize("kwargs, match", [
    ({"dim": 4, "ambient": 3}, "does not fit"),
    ({"dim": 3, "ambient": 3, "degenerate": "zero"}, "needs ambient >= 4"),
    ({"dim": 1, "ambient": 3, "degenerate": "wobbly"}, "degenerate must be"),
    ({"dim": 0, "ambient": 3}, "dim must be"),
])
def test_subspace_errors(kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        _draw_one(subspaces(**kwargs))


# -- activations, networks, inputs, instances -----------------------------------------------------

@given(activations())
def test_activations(f):
    assert f in (Activation.relu(), Activation.power(2), Activation.power(3))


@given(activations(degrees=st.integers(1, 5)))
def test_activations_from_a_strategy(f):
    assert 1 <= f.degree <= 5 and (f.name == "relu") == (f.degree == 1)


def test_activations_need_a_degree():
    with pytest.raises(InvalidInput, match="at least one degree"):
        activations(degrees=())


@given(networks(identifiable=True))
def test_identifiable_networks(net):
    assert isinstance(net, Network) and net.m >= net.k and net.U.num.rank() == net.k
    V = net.V.to_fractions()
    assert all(any(x != 0 for x in row) for row in V)
    for a, b in itertools.combinations(V, 2):
        assert QMatrix.from_rows([a, b]).num.rank() == 2


@given(networks(k=3, m=1, d=1, activation=Activation.power(2)))
def test_unconstrained_networks_take_any_shape(net):
    assert (net.m, net.k, net.d) == (1, 3, 1) and net.activation == Activation.power(2)


@pytest.mark.parametrize("kwargs, match", [
    ({"k": 3, "m": 2, "identifiable": True}, "needs m >= k"),
    ({"k": 2, "m": 2, "d": 1, "identifiable": True}, "needs d >= 2"),
    ({"activation": "relu"}, "must be an Activation"),
    ({"k": 0}, "k must be"),
])
def test_network_errors(kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        _draw_one(networks(**kwargs))


@pytest.mark.parametrize("kind", INPUT_KINDS)
@given(data=st.data())
def test_inputs_of_every_kind(kind, data):
    X = data.draw(inputs(n=st.integers(1, 8), d=3, distribution=kind))
    assert X.shape[1] == 3 and 1 <= X.shape[0] <= 8
    if kind == "small-integer":
        assert X.den == 1 and all(abs(x) <= 3 for r in X.to_fractions() for x in r)
    if kind in ("gaussian", "uniform", "laplace", "rademacher-mixture"):
        assert X.den & (X.den - 1) == 0  # float64 data are dyadic: taken exactly
        assert X == QMatrix.from_numpy(X.to_float())  # and float64-representable


def test_unknown_input_distribution():
    with pytest.raises(InvalidInput, match="unknown input distribution"):
        _draw_one(inputs(distribution="cauchy"))


@given(planted_instances(inputs=st.sampled_from(["gaussian", "rational", "integer"])))
def test_planted_instances_are_exact(inst):
    assert isinstance(inst, Instance) and inst.planted is not None
    assert inst.planted.evaluate_exact(inst.inputs) == inst.labels
    assert inst.n >= inst.d + inst.planted.k and inst.activation == inst.planted.activation
    assert inst.planted.U.num.rank() == inst.planted.k


# -- formulas ---------------------------------------------------------------------------------------

@given(cnf_formulas(num_vars=st.integers(3, 6), clause_size=st.integers(1, 3)))
def test_cnf_formulas_are_dimacs_style(f):
    for clause in f:
        assert 1 <= len(clause) <= 3 and all(isinstance(l, int) and l != 0 and abs(l) <= 6 for l in clause)
        assert len({abs(l) for l in clause}) == len(clause)


@given(cnf_formulas(num_vars=2, clause_size=2, distinct_variables=False))
def test_cnf_formulas_with_repeats(f):
    assert all(len(c) == 2 and all(1 <= abs(l) <= 2 for l in c) for c in f)


@given(cnf_formulas(num_vars=st.integers(1, 5), num_clauses=st.integers(1, 12), satisfiable=True))
def test_satisfiable_cnf_formulas_are_satisfiable(f):
    n = max(abs(l) for c in f for l in c)
    assert any(cnf_satisfied(f, a) for a in itertools.product([False, True], repeat=n))


@given(nae3sat_formulas())
def test_nae3sat_formulas(f):
    assert f and all(len(c) == 3 and len({abs(l) for l in c}) == 3 for c in f)


@given(nae3sat_formulas(num_vars=st.integers(3, 6), num_clauses=st.integers(1, 15), satisfiable=True))
def test_satisfiable_nae_formulas_are_nae_satisfiable(f):
    n = max(abs(l) for c in f for l in c)
    assert any(nae_satisfied(f, a) for a in itertools.product([False, True], repeat=n))


def test_unsatisfiable_formulas_can_be_drawn():
    # without satisfiable=True the strategy reaches unsatisfiable formulas too
    f = find(cnf_formulas(num_vars=1, clause_size=1), lambda f: not any(cnf_satisfied(f, [v]) for v in (False, True)))
    assert sorted(map(tuple, f)) == [(-1,), (1,)]


@pytest.mark.parametrize("strategy, match", [
    (cnf_formulas(num_vars=2, clause_size=3, num_clauses=1), "needs num_vars >= 3"),
    (nae3sat_formulas(num_vars=2), "needs num_vars >= 3"),
    (cnf_formulas(num_clauses=-1), "num_clauses must be"),
])
def test_formula_errors(strategy, match):
    with pytest.raises(InvalidInput, match=match):
        _draw_one(strategy)


def test_satisfaction_helpers():
    assert cnf_satisfied([], []) and nae_satisfied([], [])
    assert not cnf_satisfied([[1], [-1]], [True])
    assert nae_satisfied([[1, 2, -3]], [True, True, True]) and not nae_satisfied([[1, 2, 3]], [False, False, False])


# -- a user's own property (the example of docs/testing.md) ---------------------------------------

@given(data=st.data(), net=networks(activation=activations(degrees=(1, 2))),
       lam=rationals(min_value="1/8", max_value=8))
def test_positive_homogeneity_in_the_inputs(data, net, lam):
    X = data.draw(inputs(n=6, d=net.d, distribution="rational"))  # shapes that depend on net
    scaled = QMatrix(X.num * lam.numerator, X.den * lam.denominator)
    c = net.activation.degree
    Y = net.evaluate_exact(X)
    assert net.evaluate_exact(scaled) == QMatrix(Y.num * lam.numerator**c, Y.den * lam.denominator**c)


def test_a_false_user_property_is_caught():
    """The docs' mutation (lam instead of lam^c) is found by the same strategies."""
    @settings(database=None, phases=[Phase.generate])  # a fresh search every run; detection only, no shrinking
    @given(data=st.data(), net=networks(activation=activations(degrees=(1, 2))),
           lam=rationals(min_value="1/8", max_value=8))
    def wrong(data, net, lam):
        X = data.draw(inputs(n=6, d=net.d, distribution="rational"))
        scaled = QMatrix(X.num * lam.numerator, X.den * lam.denominator)
        Y = net.evaluate_exact(X)
        assert net.evaluate_exact(scaled) == QMatrix(Y.num * lam.numerator, Y.den * lam.denominator)

    with pytest.raises(AssertionError):
        wrong()
