"""The lazy engine (SAT solver + exact LP lemmas), its exact row solver, and its hinted certificates."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.trusted.refutation import _symmetry_clauses
from exactrelu.certificates.trusted.lrat import check_hinted
from exactrelu.certificates.envelope import verify
from exactrelu.errors import TimeLimitExceeded
from exactrelu.exact.lp import feasible
from exactrelu.hardness import CNF, NaeToRelu, pigeonhole, random_nae3, reduction_for
from exactrelu.decide.search.pattern_search import SearchLimit, decide
from exactrelu.decide.search.lazy import decide_rows
from exactrelu.instances import Instance, planted



# -- decide_rows: propagation + LP, every answer exact ---------------------------------------------

def _combine(rows, core):
    """The Farkas combination of a core: (coefficients, rhs); must read 0 <= negative."""
    by_tag = {r[0]: r for r in rows}
    g, h = {}, Fraction(0)
    for tag, y in core:
        _, coefs, rhs, is_eq = by_tag[tag]
        assert is_eq or y >= 0
        for key, a in coefs.items():
            g[key] = g.get(key, 0) + y * a
        h += y * rhs
    return g, h


systems = st.lists(
    st.tuples(st.dictionaries(st.integers(0, 3), st.integers(-3, 3).filter(bool), max_size=3),
              st.integers(-3, 3), st.booleans()),
    min_size=1, max_size=8)


@given(systems)
@settings(deadline=None)
def test_decide_rows_agrees_with_the_exact_lp_and_its_cores_are_farkas_vectors(spec):
    rows = [(("r", t), coefs, rhs, eq) for t, (coefs, rhs, eq) in enumerate(spec)]
    point, cores = decide_rows(rows)
    nv = 4
    dense = lambda sel: [[c.get(x, 0) for x in range(nv)] for _, c, _, e in rows if e == sel]  # noqa: E731
    rhs = lambda sel: [b for _, _, b, e in rows if e == sel]  # noqa: E731
    truth = feasible(dense(True) or None, rhs(True) or None, dense(False) or None, rhs(False) or None, nvars=nv)
    assert (point is not None) == (truth.status == "feasible")
    if point is not None:
        for _, coefs, b, eq in rows:
            lhs = sum(a * point.get(x, 0) for x, a in coefs.items())
            assert lhs == b if eq else lhs <= b
    else:
        assert cores
        for core in cores:
            g, h = _combine(rows, core)
            assert all(v == 0 for v in g.values()) and h < 0


def test_decide_rows_explains_each_violation_by_back_substitution():
    rows = [("x=1", {"x": 1}, 1, True), ("y=x", {"y": 1, "x": -1}, 0, True),
            ("y<=0", {"y": 1}, 0, False), ("x+y=3", {"x": 1, "y": 1}, 3, True)]
    point, cores = decide_rows(rows)
    assert point is None and len(cores) == 2  # two independent violated rows, two cores
    for core in cores:
        g, h = _combine(rows, core)
        assert all(v == 0 for v in g.values()) and h < 0
    assert {t for t, _ in cores[0]} == {"y<=0", "y=x", "x=1"}
    # an empty row: 0 == 2 alone
    assert decide_rows([("e", {}, 2, True)])[1] == [[("e", Fraction(-1))]]
    assert decide_rows([("e", {}, 0, True), ("u", {}, 0, False)]) == ({}, [])


# -- the engine against brute force and against the tree search ------------------------------------

def brute_nae(f):
    return any(f.satisfied_by(a) for a in itertools.product((False, True), repeat=f.num_vars))


@pytest.mark.parametrize("seed", range(8))
def test_lazy_engine_matches_brute_force_and_certifies(seed):
    f = random_nae3(5, 9 + seed % 3, seed=100 + seed)
    inst, data = NaeToRelu().apply(f)
    for U in ([[1, 1]], None):
        res = decide(inst, U=U, engine="lazy")
        assert (res.status == "realizable") == brute_nae(f)
        if res.status == "realizable":
            assert f.satisfied_by(NaeToRelu().invert(res.network, data))
        else:
            assert "hinted steps checked" in verify(res.certificate, inst)


def test_unsatisfiable_formulas_give_hinted_or_drup_certificates():
    for f in (pigeonhole(3), CNF(2, [(1, 2), (-1, 2), (1, -2), (-1, -2)])):
        inst, _ = reduction_for(f).apply(f)
        res = decide(inst, U=[[1, 1]])  # the default engine is the lazy one, with a hinted proof
        case = res.certificate["cases"][0]
        assert res.status == "not-realizable" and set(case) >= {"lemmas", "templates", "lrat"}
        assert case["lrat"][-1][0] == 0  # the empty clause comes last
        assert case["symmetry"] == {"sample": 0, "classes": [[0, 1]]}  # equal columns of U = [1, 1]
        assert "hinted steps checked" in verify(res.certificate, inst)
        res = decide(inst, U=[[1, 1]], proof="drup")  # hints from the solver's DRUP proof, trimmed by us
        case = res.certificate["cases"][0]
        assert "rup" not in case and case["lrat"][-1][0] == 0
        assert "hinted steps checked" in verify(res.certificate, inst)


@given(st.integers(0, 10**6), st.integers(0, 3), st.booleans(), st.sampled_from([(2, 1), (2, 2), (3, 1)]))
@settings(deadline=None, max_examples=15)
def test_lazy_and_tree_engines_agree_on_generic_instances(seed, bump, unknown, km):
    """Dense integer inputs (no clusters): both engines decide the same, each answer certified."""
    k, m = km
    if unknown and m > 1:
        m = 1
    inst = planted(d=2, k=k, m=m, n=4, seed=seed, inputs="integer")
    Y = inst.labels.to_fractions()
    Y[bump][0] += 1
    for case in (inst, Instance.from_arrays(inst.inputs.to_fractions(), Y)):
        U = None if unknown else inst.planted.U.to_strings()
        kw = {"k": k} if unknown else {}
        a = decide(case, U=U, engine="lazy", **kw)
        b = decide(case, U=U, engine="tree", **kw)
        assert a.status == b.status
        assert verify(a.certificate, case).split(":")[0] == a.certificate["claim"]


def test_rational_output_weights_and_zero_inputs():
    """U with unequal rational columns (no symmetry); a zero sample forces its label to 0."""
    X = [[1, 0], [0, 1], [0, 0], [1, 1]]
    res = decide(Instance.from_arrays(X, [["1/2"], [3], [0], ["7/2"]]), U=[["1/2", 3]])
    assert res.status == "realizable"
    bad = Instance.from_arrays(X, [["1/2"], [3], [1], ["7/2"]])
    res = decide(bad, U=[["1/2", 3]])
    assert res.status == "not-realizable" and "symmetry" not in res.certificate["cases"][0]
    verify(res.certificate, bad)


def test_limits():
    inst, _ = NaeToRelu().apply(random_nae3(8, 17, seed=0))
    with pytest.raises(SearchLimit, match="solver rounds"):  # a budget: SearchLimit, a TimeLimitExceeded
        decide(inst, U=[[1, 1]], max_nodes=0)
    with pytest.raises(TimeLimitExceeded, match="time limit") as info:  # a time-out: TimeLimitExceeded itself
        decide(inst, U=[[1, 1]], time_limit=-1)
    assert type(info.value) is TimeLimitExceeded
    seen = []
    decide(inst, U=[[1, 1]], progress=seen.append)
    assert seen and seen[-1]["rounds"] >= 1 and seen[-1]["case"] == 1


def test_symmetry_is_not_a_free_lunch():
    """The sorted-units clause alone must not refute a realizable instance: x -> relu(x) + relu(-x) = |x|."""
    inst = Instance.from_arrays([[1], [-1]], [[1], [1]])
    res = decide(inst, U=[[1, 1]])
    assert res.status == "realizable"
    # the only realizations have unit 0 active on sample 0 or unit 1: symmetric; the clause keeps one
    with pytest.raises(checker.CheckFailed):
        check_hinted(_symmetry_clauses({"sample": 0, "classes": [[0, 1]]}, [[1, 1]], 2, 2), [[0, 1]], 4)


def test_adversarial_instances():
    """No unit matters, zero inputs, magnitudes 1e-21 and 1e25, duplicates with different labels."""
    one = Instance.from_arrays([[1], [-1]], [[1], [1]])
    res = decide(one, U=[[0, 0]])
    assert res.status == "not-realizable" and res.certificate["cases"][0]["lemmas"][0]["assume"] == []
    assert decide(Instance.from_arrays([[0, 0], [0, 0]], [[0], [0]])).status == "realizable"
    assert decide(Instance.from_arrays([[0, 0]], [[1]])).status == "not-realizable"
    big = Instance.from_arrays([["1/1000000000000000000000", 0], [0, "10000000000000000000000000"]], [["3"], ["-2"]])
    res = decide(big, U=[[1, -1]])
    assert res.status == "realizable" and res.network.evaluate_exact(big.inputs) == big.labels
    assert decide(big, U=[[1, 1]]).status == "not-realizable"  # -2 from non-negative units
    dup = Instance.from_arrays([[1, 1], [1, 1], [1, 1]], [[1], [1], [2]])
    res = decide(dup, U=[[1, 1]])
    assert res.status == "not-realizable" and "hinted" in verify(res.certificate, dup)


def test_time_limit_interrupts_the_solver():
    """A hard unsatisfiable instance (about a minute): the limit interrupts CaDiCaL itself."""
    import time

    f = random_nae3(250, 525, seed=250000)
    inst, _ = NaeToRelu().apply(f)
    t = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match="time limit"):
        decide(inst, U=[[1, 1]], time_limit=2.0)
    assert time.monotonic() - t < 15
