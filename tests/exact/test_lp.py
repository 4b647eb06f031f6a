"""Exact LP feasibility: answers against brute force, witnesses, certificates, float liars."""

from __future__ import annotations

import itertools
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.errors import CertificateInvalid, InvalidInput
from exactrelu.exact import lp
from exactrelu.exact.lp import LPResult, feasible
from exactrelu.exact.matrix import QMatrix
from exactrelu.certificates.claims.lp import lp_certificate, verify_lp


# -- an independent brute-force decision ------------------------------------------------------

def _particular_solution(rows, rhs, n):
    """A solution of rows x = rhs (free variables 0) by Fraction Gauss-Jordan, or None."""
    M = [[Fraction(a) for a in r] + [Fraction(b)] for r, b in zip(rows, rhs)]
    piv_cols, r = [], 0
    for c in range(n):
        p = next((i for i in range(r, len(M)) if M[i][c] != 0), None)
        if p is None:
            continue
        M[r], M[p] = M[p], M[r]
        M[r] = [v / M[r][c] for v in M[r]]
        for i in range(len(M)):
            if i != r and M[i][c] != 0:
                f = M[i][c]
                M[i] = [a - f * b for a, b in zip(M[i], M[r])]
        piv_cols.append(c)
        r += 1
    if any(all(v == 0 for v in row[:n]) and row[n] != 0 for row in M):
        return None
    x = [Fraction(0)] * n
    for i, c in enumerate(piv_cols):
        x[c] = M[i][n]
    return x


def brute_force_feasible(Ae, be, Au, bu, n) -> bool:
    """A non-empty polyhedron has a minimal face {x : A_S x = b_S, A_eq x = b_eq}, all inside it."""
    for size in range(len(Au) + 1):
        for S in itertools.combinations(range(len(Au)), size):
            x = _particular_solution(Ae + [Au[i] for i in S], be + [bu[i] for i in S], n)
            if x is not None and all(sum(a * v for a, v in zip(row, x)) <= b for row, b in zip(Au, bu)):
                return True
    return False


def assert_witness(res: LPResult, Ae, be, Au, bu, n):
    """Check the witness directly, with Fractions, and through the independent checker."""
    if res.status == "feasible":
        x = res.point
        assert len(x) == n
        assert all(sum(a * v for a, v in zip(r, x)) == b for r, b in zip(Ae, be))
        assert all(sum(a * v for a, v in zip(r, x)) <= b for r, b in zip(Au, bu))
    else:
        ye, yu = res.farkas
        assert len(ye) == len(Ae) and len(yu) == len(Au)
        assert all(v >= 0 for v in yu)
        for j in range(n):
            assert sum(v * r[j] for v, r in zip(ye + yu, Ae + Au)) == 0
        assert sum(v * b for v, b in zip(ye + yu, be + bu)) < 0
    assert verify_lp(res).startswith(f"lp-{res.status}")


small = st.integers(-3, 3)


@st.composite
def systems(draw, max_n=3, max_ub=5, max_eq=2):
    n = draw(st.integers(1, max_n))
    me = draw(st.integers(0, max_eq))
    mu = draw(st.integers(0, max_ub))
    Ae = [[draw(small) for _ in range(n)] for _ in range(me)]
    Au = [[draw(small) for _ in range(n)] for _ in range(mu)]
    be = [draw(small) for _ in range(me)]
    bu = [draw(small) for _ in range(mu)]
    return Ae, be, Au, bu, n


@given(systems())
def test_agrees_with_brute_force_and_witness_holds(sysm):
    Ae, be, Au, bu, n = sysm
    truth = brute_force_feasible(Ae, be, Au, bu, n)
    for method in ("auto", "exact"):
        res = feasible(Ae, be, Au, bu, nvars=n, method=method)
        assert res.status == ("feasible" if truth else "infeasible")
        assert_witness(res, Ae, be, Au, bu, n)


@settings(max_examples=10)
@given(st.integers(0, 2**32), st.booleans())
def test_random_dense_systems_auto_and_exact_agree(seed, make_feasible):
    rng = np.random.default_rng(seed)
    m, n = 30, 4
    A = rng.integers(-9, 10, (m, n))
    x0 = rng.integers(-3, 4, n)
    b = A @ x0 + (rng.integers(0, 3, m) if make_feasible else rng.integers(-6, 3, m))
    Af, bf = A.tolist(), b.tolist()
    r1 = feasible(A_ub=A, b_ub=b)
    r2 = feasible(A_ub=Af, b_ub=bf, method="exact")
    assert r1.status == r2.status
    if make_feasible:
        assert r1.status == "feasible"
    for r in (r1, r2):
        assert_witness(r, [], [], [[Fraction(v) for v in row] for row in Af], [Fraction(v) for v in bf], n)


def test_degenerate_and_redundant_rows():
    # a triangle given with duplicated and parallel rows, and an equality through a vertex
    Au = [[1, 0], [1, 0], [2, 0], [0, 1], [-1, -1], [-1, -1]]
    bu = [1, 1, 2, 1, 0, 0]
    res = feasible(A_eq=[[1, -1]], b_eq=[0], A_ub=Au, b_ub=bu)
    assert_witness(res, [[1, -1]], [0], Au, bu, 2)
    res = feasible(A_eq=[[1, 1]], b_eq=[-1], A_ub=Au, b_ub=bu)
    assert res.status == "infeasible"
    assert_witness(res, [[1, 1]], [-1], Au, bu, 2)


def test_single_point_feasible_set_needs_exact_point():
    # {x : x1 = 1/3, x2 = 2/7} written with inequalities only: rounding a float never verifies
    Au = [[3, 0], [-3, 0], [0, 7], [0, -7]]
    bu = [1, -1, 2, -2]
    res = feasible(A_ub=Au, b_ub=bu)
    assert res.point == [Fraction(1, 3), Fraction(2, 7)]
    assert res.method == "highs"


# -- the float proposer lies: every answer must still be exact --------------------------------

def _liar(status):
    def propose(S, presolve):
        if status == "infeasible":
            return lp.Proposal("infeasible", ray=np.ones(S.m))
        if status == "feasible":
            return lp.Proposal("feasible", active_rows=list(range(min(S.n, S.m))), zero_cols=[], tight_rows=[])
        return lp.Proposal("unknown")
    return propose


@pytest.mark.parametrize("lie", ["infeasible", "feasible", "unknown"])
def test_lying_float_solver_ends_in_exact_answer(monkeypatch, lie):
    monkeypatch.setattr(lp, "_propose", _liar(lie))
    rows = [[1, 0], [0, 1], [1, 1], [-1, 0], [0, -1]]
    feas = (rows, [1, 1, 1, 0, 0])  # the liar's vertex (1, 1) violates x1 + x2 <= 1
    infeas = (rows, [1, 1, -1, 0, 0])
    r = feasible(A_ub=feas[0], b_ub=feas[1])
    assert r.status == "feasible" and r.method == "exact-simplex"
    r = feasible(A_ub=infeas[0], b_ub=infeas[1])
    # a lie of "infeasible" is the truth here: the exact LP on the ray's support (all rows) decides
    assert r.status == "infeasible" and r.method == ("highs" if lie == "infeasible" else "exact-simplex")
    assert_witness(r, [], [], infeas[0], infeas[1], 2)


def test_presolve_false_infeasible_is_corrected_without_presolve(monkeypatch):
    """HiGHS' presolve once called a feasible system infeasible: the exact check must catch it."""
    real = lp.highs_propose

    def first_liar(S, presolve):
        if not presolve:
            return lp.Proposal("infeasible", ray=None)
        return real(S, presolve)

    monkeypatch.setattr(lp, "_propose", first_liar)
    res = feasible(A_eq=[[1, 2, 3]], b_eq=[6], A_ub=[[-1, 0, 0], [0, -1, 0], [0, 0, -1]], b_ub=[0, 0, 0])
    assert res.status == "feasible" and res.method == "highs-presolve"
    assert_witness(res, [[1, 2, 3]], [6], [[-1, 0, 0], [0, -1, 0], [0, 0, -1]], [0, 0, 0], 3)


def test_ray_with_wide_support_is_decided_on_the_support(monkeypatch):
    # the ray's support is all rows, whose left kernel is 2-dimensional: the exact LP on it decides
    Au = [[1], [1], [-1], [-1]]
    bu = [0, 0, -1, -1]
    monkeypatch.setattr(lp, "_propose", lambda S, presolve: lp.Proposal("infeasible", ray=np.ones(S.m)))
    res = feasible(A_ub=Au, b_ub=bu)
    assert res.status == "infeasible" and res.method == "highs"
    assert_witness(res, [], [], Au, bu, 1)


def test_wrong_ray_with_one_dimensional_kernel_is_refused(monkeypatch):
    # ray support {0, 1}: kernel spanned by (1, 1) but b^T y = 1 > 0 after orientation fails
    Au = [[1], [-1], [1]]
    bu = [1, 1, 5]
    ray = np.array([1.0, 1.0, 0.0])
    monkeypatch.setattr(lp, "_propose", lambda S, presolve: lp.Proposal("infeasible", ray=ray))
    res = feasible(A_ub=Au, b_ub=bu)
    assert res.status == "feasible" and res.method == "exact-simplex"


# -- trivial systems and input forms -------------------------------------------------------------

def test_no_variables():
    res = feasible(A_eq=flint.fmpz_mat(2, 0), b_eq=[0, 3], nvars=0)
    assert res.status == "infeasible" and res.farkas == ([Fraction(0), Fraction(-1)], [])
    res = feasible(A_ub=flint.fmpz_mat(1, 0), b_ub=[-2], nvars=0)
    assert res.status == "infeasible" and res.farkas == ([], [Fraction(1)])
    assert feasible(A_eq=flint.fmpz_mat(1, 0), b_eq=[0], A_ub=flint.fmpz_mat(1, 0), b_ub=[0]).point == []
    assert feasible(nvars=2).point == [0, 0]
    for r in (feasible(A_eq=flint.fmpz_mat(2, 0), b_eq=[0, 3], nvars=0), feasible(nvars=2)):
        verify_lp(r)


@pytest.mark.parametrize(
    "A, b",
    [
        (QMatrix.from_rows([["1/2", 1], [-1, 0]]), QMatrix.from_rows([["1"], ["0"]])),
        (flint.fmpq_mat([[flint.fmpq(1, 2), 1], [-1, 0]]), [1, 0]),
        (flint.fmpz_mat([[1, 2], [-1, 0]]), flint.fmpz_mat([[2], [0]])),
        (np.array([[0.5, 1.0], [-1.0, 0.0]]), np.array([1.0, 0.0])),
        ([[Fraction(1, 2), "1"], ["-1", 0.0]], ["1", Fraction(0)]),
        ([[Fraction(1, 2), "1"], ["-1", 0.0]], [[1], [0]]),
        ([[Fraction(1, 2), "1"], ["-1", 0.0]], QMatrix.from_rows([[1, 0]])),
    ],
)
def test_input_forms(A, b):
    res = feasible(A_ub=A, b_ub=b, A_eq=[[1, 1]], b_eq=["5/2"])
    assert res.status == "feasible"
    x = res.point
    assert x[0] + x[1] == Fraction(5, 2) and x[0] / 2 + x[1] <= 1 and -x[0] <= 0
    assert lp_certificate(res)["system"]["b_eq"] == ["5/2"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(), "number of variables is unknown"),
        (dict(A_ub=[[1, 2]], b_ub=[1], nvars=3), "disagree"),
        (dict(A_ub=[[1, 2]], b_ub=[1], A_eq=[[1]], b_eq=[1]), "disagree"),
        (dict(A_ub=[[1, 2]]), "b_ub is missing"),
        (dict(A_ub=[[1, 2]], b_ub=[1, 2]), "must have 1 entries"),
        (dict(A_ub=[[1, 2]], b_ub=[]), "has 0 entries"),
        (dict(b_eq=[1], nvars=1), "b_eq has entries but A_eq has no rows"),
        (dict(nvars=-1), "non-negative integer"),
        (dict(nvars=True), "non-negative integer"),
        (dict(A_ub=[[1, float("nan")]], b_ub=[1]), "non-finite"),
        (dict(A_ub=[[1, 2]], b_ub=["x"]), "not a rational"),
        (dict(A_ub=5, b_ub=[1]), "expected a matrix"),
        (dict(A_ub=[[1, 2]], b_ub=[1], method="float"), "unknown LP method"),
    ],
)
def test_invalid_input(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        feasible(**kwargs)


def test_empty_blocks_are_no_constraints():
    res = feasible(A_eq=[], b_eq=[], A_ub=[[1]], b_ub=[2])
    assert res.status == "feasible" and lp_certificate(res)["system"]["A_eq"] == []
    assert feasible(A_ub=np.zeros((0, 2)), b_ub=np.zeros(0), nvars=2).point == [0, 0]


def test_huge_entries_skip_float_but_stay_exact():
    big = 10**400
    res = feasible(A_ub=[[big, 0], [0, 1], [-1, -1]], b_ub=[big, 1, -3])
    assert res.status == "infeasible" and res.method == "exact-simplex"
    assert_witness(res, [], [], [[big, 0], [0, 1], [-1, -1]], [big, 1, -3], 2)


# -- the certificate writer (the checker on LP certificates: tests/certificates/test_lp_checker.py) -----


def test_verify_raises_certificate_invalid_on_a_corrupted_result():
    res = feasible(A_ub=[[1]], b_ub=[0])
    res.point = [Fraction(5)]
    with pytest.raises(CertificateInvalid):
        verify_lp(res)


