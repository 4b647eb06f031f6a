"""Exact elimination on the equations (the generic instances' fast path) and the engine on generic instances."""

import copy
import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.envelope import verify
from exactrelu.decide.search.elimination import eliminate
from exactrelu.decide.search.pattern_search import decide, sign_cases
from exactrelu.errors import CertificateInvalid
from exactrelu.exact.lp import feasible
from exactrelu.instances import Instance, planted


def _combination(rows, lam):
    g, h = {}, Fraction(0)
    for ri, y in lam.items():
        _, coefs, rhs, is_eq = rows[ri]
        assert is_eq or y >= 0
        for key, a in coefs.items():
            g[key] = g.get(key, 0) + y * a
        h += y * rhs
    return g, h


dense_systems = st.lists(
    st.tuples(st.lists(st.integers(-4, 4), min_size=3, max_size=3), st.integers(-5, 5), st.booleans()),
    min_size=1, max_size=9)


@given(dense_systems)
def test_eliminate_answers_only_what_the_exact_lp_says_and_its_cores_are_farkas_vectors(spec):
    rows = [(t, {x: a for x, a in enumerate(c) if a}, b, eq) for t, (c, b, eq) in enumerate(spec)]
    out = eliminate(rows, list(range(len(rows))), {})
    dense = lambda sel: [[r[1].get(x, 0) for x in range(3)] for r in rows if r[3] == sel]  # noqa: E731
    rhs = lambda sel: [r[2] for r in rows if r[3] == sel]  # noqa: E731
    truth = feasible(dense(True) or None, rhs(True) or None, dense(False) or None, rhs(False) or None, nvars=3)
    if out is None:  # no equation, or the equations leave freedom: the LP's business
        return
    point, cores = out
    assert (point is not None) == (truth.status == "feasible")
    if point is not None:
        for _, coefs, b, eq in rows:
            lhs = sum(a * point.get(x, 0) for x, a in coefs.items())
            assert lhs == b if eq else lhs <= b
    for lam in cores:
        g, h = _combination(rows, lam)
        assert all(v == 0 for v in g.values()) and h < 0
        assert len(lam) <= 3 + 1  # a basis of the equations and one more row


def test_eliminate_adversarial_cases():
    # duplicated equations with different right-hand sides: one core per duplicate
    rows = [(0, {"x": 1, "y": 1}, 1, True), (1, {"x": 1, "y": 1}, 2, True), (2, {"x": 2, "y": 2}, 3, True)]
    point, cores = eliminate(rows, [0, 1, 2], {})
    assert point is None and len(cores) == 2
    # a solution space of positive dimension: undecided here
    assert eliminate([(0, {"x": 1, "y": 1}, 1, True)], [0], {}) is None
    # no equation at all: undecided
    assert eliminate([(0, {"x": 1}, 1, False)], [0], {}) is None
    # a unique point on a kink (x = 0 meets x <= 0 and -x <= 0): feasible
    rows = [(0, {"x": 1}, 0, True), (1, {"x": 1}, 0, False), (2, {"x": -1}, 0, False)]
    assert eliminate(rows, [0, 1, 2], {}) == ({"x": Fraction(0)}, [])
    # extreme magnitudes: exact all the way
    big = 10**40
    rows = [(0, {"x": big}, 1, True), (1, {"x": -1}, -1, False)]
    point, cores = eliminate(rows, [0, 1], {})
    assert point is None and _combination(rows, cores[0])[1] < 0
    # a propagated value substituted: x fixed at 2 makes x + y = 3 fix y = 1, violating y <= 0
    rows = [(0, {"x": 1, "y": 1}, 3, True), (1, {"y": 1}, 0, False)]
    point, cores = eliminate(rows, [0, 1], {"x": 2})
    assert point is None and set(cores[0]) == {0, 1}


# -- the engine on generic instances against brute force -----------------------------------------------

def _brute_force(X, Y, k):
    """Is there u in {-1, 0, 1}^k and V with sum_i u_i relu(v_i . x_j) = y_j? Every activation pattern, one LP each."""
    n, d = len(X), len(X[0])
    for u in sign_cases(k):
        for pattern in itertools.product((False, True), repeat=n * k):
            act = lambda j, i: pattern[j * k + i]  # noqa: E731
            Ae, be, Au, bu = [], [], [], []
            for j in range(n):
                Ae.append([u[i] * X[j][t] if act(j, i) else 0 for i in range(k) for t in range(d)])
                be.append(Y[j])
                for i in range(k):
                    s = -1 if act(j, i) else 1
                    Au.append([s * X[j][t] if ii == i else 0 for ii in range(k) for t in range(d)])
                    bu.append(0)
            if feasible(Ae, be, Au, bu, nvars=k * d, method="exact").status == "feasible":
                return True
    return False


rationals = st.fractions(min_value=-3, max_value=3, max_denominator=7)


@given(st.integers(1, 2), st.data())
@settings(max_examples=12)
def test_generic_decisions_agree_with_brute_force_and_are_certified(k, data):
    """Dense rational inputs and labels (no clusters, every row through elimination or an LP)."""
    n = 3 if k == 2 else 4
    X = data.draw(st.lists(st.lists(rationals, min_size=2, max_size=2), min_size=n, max_size=n))
    Y = data.draw(st.lists(rationals, min_size=n, max_size=n))
    inst = Instance.from_arrays(X, [[y] for y in Y])
    res = decide(inst, k=k)
    assert res.realizable == _brute_force(X, Y, k)
    assert verify(res.certificate, inst).split(":")[0] == res.certificate["claim"]


@pytest.mark.parametrize("seed", range(3))
def test_generic_gaussian_instances_decide_both_ways_and_tampering_is_caught(seed):
    """Planted Gaussian instances (float64 inputs, exact) are realizable; a bumped label is not (k = 1, 2)."""
    for k in (1, 2):
        inst = planted(d=2, k=k, m=1, n=7, seed=seed)
        yes = decide(inst, k=k)
        assert yes.realizable and yes.network.evaluate_exact(inst.inputs) == inst.labels
        Y = inst.labels.to_fractions()
        Y[0][0] += Fraction(1, 3)
        bad = Instance.from_arrays(inst.inputs.to_fractions(), Y)
        no = decide(bad, k=k)
        if no.realizable:  # a bump can stay realizable; then its certificate is checked like any other
            continue
        assert verify(no.certificate, bad).startswith("not-realizable")
        with pytest.raises(CertificateInvalid):  # the same certificate does not prove the planted labels
            verify(no.certificate, inst)
        forged = _negated_lemma(no.certificate)
        if forged is not None:
            with pytest.raises(CertificateInvalid):
                verify(forged, bad)


def _negated_lemma(cert):
    """A copy of ``cert`` with the multipliers of its first plain lemma negated (its combination reads 0 <= positive)."""
    forged = copy.deepcopy(cert)
    for case in forged["cases"]:
        for lemma in case["lemmas"]:
            leaf = lemma["tree"][0]
            if leaf.get("farkas"):
                for row in leaf["farkas"]:
                    row[3] = str(-Fraction(row[3]))
                return forged
    return None


# -- half rows: each sign's units alone (eq+ / eq-), checked by the trusted checker ------------------------

def test_half_rows_are_checked_exactly():
    from exactrelu.certificates.trusted.common import CheckFailed
    from exactrelu.certificates.trusted.refutation import _refute_leaf

    # one sample x = (1), label 2, U = (1, -1): unit 0 inactive makes the positive part 0 < 2 (eq+ alone)
    X, Y, U = [[(0, Fraction(1))]], [[Fraction(2)]], [[Fraction(1), Fraction(-1)]]
    dec = {(0, 0): False}
    _refute_leaf({"farkas": [["eq+", 0, 0, "1"]]}, dec, X, Y, U, 2)  # -0 <= -2: refuted, unit 1 never decided
    for bad, why in (([["eq+", 0, 0, "-1"]], "negative"), ([["eq-", 0, 0, "1"]], "undecided"),
                     ([["eq", 0, 0, "1"]], "decided")):
        with pytest.raises(CheckFailed, match=why):
            _refute_leaf({"farkas": bad}, dec, X, Y, U, 2)
    # unit 0 active: its part v_0 . x can be 2, so eq+ with its sign row (-v_0 . x <= 0) refutes nothing
    with pytest.raises(CheckFailed, match="not 0 <= negative"):
        _refute_leaf({"farkas": [["eq+", 0, 0, "1"], ["sign", 0, 0, "1"]]}, {(0, 0): True}, X, Y, U, 2)
    # label -2: eq- alone with unit 1 inactive reads 0 <= -2
    _refute_leaf({"farkas": [["eq-", 0, 0, "1"]]}, {(0, 1): False}, X, [[Fraction(-2)]], U, 2)


def test_mixed_output_weights_give_half_lemmas_and_their_certificates_check():
    """u = (1, 1, -1) on integer data: the half rows give lemmas; forged half rows are caught."""
    import numpy as np

    rng = np.random.default_rng(7)
    inst = Instance.from_arrays(rng.integers(-5, 6, size=(9, 2)).tolist(), rng.integers(-3, 4, size=(9, 1)).tolist())
    res = decide(inst, U=[[1, 1, -1]])
    assert verify(res.certificate, inst).split(":")[0] == res.certificate["claim"]
    if res.realizable:
        return
    assert res.evidence.get("half_lemmas", 0) > 0
    kinds = {row[0] for case in res.certificate["cases"] for lemma in case["lemmas"]
             for row in lemma["tree"][0].get("farkas", [])}
    assert kinds & {"eq+", "eq-"}
    forged = copy.deepcopy(res.certificate)
    for lemma in forged["cases"][0]["lemmas"]:
        rows = lemma["tree"][0].get("farkas", [])
        if any(r[0] in ("eq+", "eq-") for r in rows):
            for r in rows:
                if r[0] in ("eq+", "eq-"):
                    r[0] = "eq-" if r[0] == "eq+" else "eq+"  # the other sign's units: not this inequality
            break
    with pytest.raises(CertificateInvalid):
        verify(forged, inst)


# -- the float hint: the case tried first and the solver's phases; never the answer ----------------------

def test_a_float_hint_finds_a_planted_network_in_one_round_and_wrong_phases_change_nothing(monkeypatch):
    from exactrelu.decide.search import pattern_search
    from exactrelu.decide.search.lazy import SearchRequest, solve_case

    inst = planted(d=3, k=2, m=1, n=25, seed=5)
    # the fit is asked as soon as the brief first tries leave a case open (no clock decides what is tested)
    monkeypatch.setattr(pattern_search, "HINT_AFTER", 0.0)
    monkeypatch.setattr(pattern_search, "HINT_RATE", float("inf"))
    res = decide(inst, k=2)
    assert res.realizable and res.network.evaluate_exact(inst.inputs) == inst.labels
    assert res.evidence["hint_case"] >= 1 and res.evidence["hint_case_rounds"] == 1  # the hinted case: one round
    X, Y = inst.inputs.to_fractions(), inst.labels.to_fractions()
    Y[3][0] += 1
    U = [[Fraction(1), Fraction(-1)]]
    plain = solve_case(SearchRequest(X, Y), U)
    for flip in (False, True):  # phases that say every unit is active, or none: the same answer
        phases = {(j, i): not flip for j in range(len(X)) for i in range(2)}
        assert solve_case(SearchRequest(X, Y), U, phases=phases).status == plain.status
