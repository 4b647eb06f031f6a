"""The reductions CNF -> NAE-3SAT -> ReLU instance: both maps, exhaustively and as properties."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.envelope import verify
from exactrelu.errors import InvalidInput, NotRealizable
from exactrelu.hardness import (CNF, Chain, CnfToNae, NAEFormula, NaeToRelu, assignment_from_literals, random_kcnf,
                                reduction_for)
from exactrelu.network import Activation, Network

from test_cnf import cnfs


def assignments(n):
    return itertools.product((False, True), repeat=n)


@given(cnfs(max_vars=4, max_clauses=5))
def test_cnf_to_nae_preserves_satisfiability_and_maps_solutions(f):
    red = CnfToNae()
    g, data = red.apply(f)
    assert all(len(c) == 3 for c in g.clauses)
    sat = [a for a in assignments(f.num_vars) if f.satisfied_by(a)]
    for a in sat:  # forward map, and back to the same assignment
        tau = red.lift(a, data)
        assert g.satisfied_by(tau) and red.invert(tau, data) == a
    if g.num_vars <= 12:  # backward map from every NAE solution; equisatisfiable
        nae_sat = [t for t in assignments(g.num_vars) if g.satisfied_by(t)]
        assert bool(nae_sat) == bool(sat)
        for t in nae_sat:
            assert f.satisfied_by(red.invert(t, data))


def test_cnf_to_nae_shapes_of_the_issue():
    g, _ = CnfToNae().apply(CNF(3, [(1, 2, 3), (1, -2), (3,), ()]))
    z = 4
    assert g.clauses == ((1, 2, 5), (-5, 3, z), (1, -2, z), (3, z, z), (z, z, z))


@given(cnfs(max_vars=5, max_clauses=8, width=3), st.data())
def test_nae_to_relu_lift_and_invert(f, data):
    red = NaeToRelu()
    if f.num_vars == 0:
        return
    inst, d = red.apply(f)
    assert (inst.n, inst.d, inst.m) == (2 * f.num_vars + len(f.clauses), f.num_vars, 1)
    for tau in assignments(f.num_vars):
        if not f.satisfied_by(tau):
            with pytest.raises(InvalidInput, match="not NAE-satisfying"):
                red.lift(tau, d)
            continue
        net = red.lift(tau, d)
        assert verify(realizes_certificate(inst, net), inst).startswith("realizes")
        assert red.invert(net, d) == tau
        # any other exact realization: positive rescaling of each unit, units swapped
        c1, c2 = (data.draw(st.fractions(min_value=Fraction(1, 9), max_value=9)) for _ in range(2))
        U, V = net.U.to_fractions()[0], net.V.to_fractions()
        other = Network.from_rows([[U[1] / c2, U[0] / c1]], [[c2 * x for x in V[1]], [c1 * x for x in V[0]]])
        back = red.invert(other, d)
        assert back in (tau, tuple(not v for v in tau)) and f.satisfied_by(back)


def test_clause_points_and_labels():
    inst, _ = NaeToRelu().apply(NAEFormula(2, [(1, 1, -2), (1, -1, 2)]))
    rows = inst.inputs.to_fractions()
    assert rows[:4] == [[1, 0], [-1, 0], [0, 1], [0, -1]]
    assert rows[4:] == [[2, -1], [0, 1]]  # repeated variables add up
    assert all(r == [1] for r in inst.labels.to_fractions())


def test_invert_rejects_wrong_weights():
    f = NAEFormula(3, [(1, 2, 3)])
    red = NaeToRelu()
    inst, d = red.apply(f)
    with pytest.raises(NotRealizable, match="do not realize"):
        red.invert(Network.from_rows([[1, 1]], [[1, 1, 1], [-1, -1, -1]]), d)
    with pytest.raises(InvalidInput, match="k = 2"):
        red.invert(Network.from_rows([[1]], [[1, 1, 1]]), d)
    with pytest.raises(InvalidInput, match="ReLU"):
        red.invert(Network.from_rows([[1, 1]], [[1, 1, -1], [-1, -1, 1]], Activation.power(2)), d)
    with pytest.raises(InvalidInput, match="Network"):
        red.invert([[1, 1]], d)
    with pytest.raises(InvalidInput, match="at least one variable"):
        red.apply(NAEFormula(0, []))
    with pytest.raises(InvalidInput, match="does not accept"):
        red.apply(CNF(3, []))
    with pytest.raises(InvalidInput, match="falsifies"):
        CnfToNae().lift((False,), CnfToNae().apply(CNF(1, [(1,)]))[1])
    with pytest.raises(InvalidInput, match="not NAE-satisfying"):
        CnfToNae().invert((True, True), CnfToNae().apply(CNF(1, [(1,)]))[1])
    with pytest.raises(InvalidInput, match="at least one"):
        Chain([])
    assert repr(reduction_for(CNF(1, []))) == "CnfToNae -> NaeToRelu"


def test_pysat_models_lift_to_certificates():
    import pysat.solvers as pysat  # a runtime dependency
    for seed in range(4):
        f = random_kcnf(12, 40, seed=seed, planted=True)
        chain = reduction_for(f)
        inst, data = chain.apply(f)
        with pysat.Minisat22(bootstrap_with=[list(c) for c in f.clauses]) as s:
            assert s.solve()
            sigma = assignment_from_literals(s.get_model(), f.num_vars)
        net = chain.lift(sigma, data)
        assert verify(realizes_certificate(inst, net), inst).startswith("realizes")
        assert chain.invert(net, data) == sigma


def test_cnfgen_formula_through_the_chain():
    cnfgen = pytest.importorskip("cnfgen")
    from exactrelu.hardness import parse_dimacs
    f = parse_dimacs(cnfgen.RandomKCNF(3, 8, 12, seed=1).to_dimacs())
    chain = reduction_for(f)
    inst, data = chain.apply(f)
    sat = [a for a in assignments(f.num_vars) if f.satisfied_by(a)]
    for a in sat[:5]:
        assert chain.invert(chain.lift(a, data), data) == a


def test_hardness_holds_formulas_and_reductions_only():
    """issue 20: the decision engine lives in decide/, the command in commands/; hardness/ keeps these."""
    import pkgutil

    import exactrelu.hardness as hardness

    names = {m.name for m in pkgutil.iter_modules(hardness.__path__)}
    assert names == {"cnf", "cnf_to_nae", "nae_to_relu", "reduction", "generators", "lemmas"}
    assert "exactrelu.decide.decide" in hardness.__doc__
