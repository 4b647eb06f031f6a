"""Sign patterns of subspaces: Cover's count, brute force, degenerate columns, non-negative faces."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.errors import InvalidInput
from exactrelu.exact.lp import feasible
from exactrelu.instances import planted
from exactrelu.decide.enumeration.patterns import (count_sign_patterns, cover_count, extreme_rays, integer_basis,
                                nonnegative_patterns, sign_patterns)


def brute_signs(B):
    """Every s in {-1,1}^n with {c : s_j b_j.c >= 1} non-empty (an exact LP each)."""
    k, n = len(B), len(B[0])
    out = set()
    for s in itertools.product((-1, 1), repeat=n):
        A = [[-s[j] * B[i][j] for i in range(k)] for j in range(n)]
        if feasible(A_ub=A, b_ub=[-1] * n).status == "feasible":
            out.add(s)
    return out


def brute_supports(B):
    """Every S with a vector c^T B >= 0 of support exactly S."""
    k, n = len(B), len(B[0])
    out = set()
    for size in range(n + 1):
        for S in itertools.combinations(range(n), size):
            Ae = [[B[i][j] for i in range(k)] for j in range(n) if j not in S]
            Au = [[-B[i][j] for i in range(k)] for j in S]
            if feasible(A_eq=Ae, b_eq=[0] * len(Ae), A_ub=Au, b_ub=[-1] * len(Au), nvars=k).status == "feasible":
                out.add(S)
    return out


def generic(B) -> bool:
    k, n = len(B), len(B[0])
    import flint

    return all(flint.fmpq_mat([[B[i][j] for j in cols] for i in range(k)]).rank() == k
               for cols in itertools.combinations(range(n), k))


fracs = st.fractions(min_value=-5, max_value=5, max_denominator=7)


@st.composite
def bases(draw, max_k=3, max_n=6):
    k = draw(st.integers(1, max_k))
    n = draw(st.integers(k, max_n))
    B = [[draw(fracs) for _ in range(n)] for _ in range(k)]
    kind = draw(st.sampled_from(["random", "repeated", "parallel", "zero"]))
    if kind != "random" and n >= 2:
        j, t = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        f = {"repeated": 1, "parallel": draw(st.sampled_from([-2, Fraction(1, 3), 3])), "zero": 0}[kind]
        for row in B:
            row[t] = row[j] * f if t != j else (0 if kind == "zero" else row[t])
    return B


@settings(max_examples=25)
@given(bases())
def test_sign_patterns_equal_brute_force_and_respect_cover(B):
    rows = integer_basis(B)
    pats = list(sign_patterns(B))
    assert len(pats) == len(set(pats)), "each pattern is yielded once"
    if not rows:
        assert pats == []
        return
    assert set(pats) == brute_signs(rows)
    k, n = len(rows), len(rows[0])
    if generic(rows):
        assert len(pats) == cover_count(n, k)
    else:
        assert len(pats) < cover_count(n, k)


@settings(max_examples=20)
@given(bases(max_n=5))
def test_nonnegative_patterns_equal_brute_force(B):
    rows = integer_basis(B)
    if not rows:
        return
    assert set(nonnegative_patterns(B)) == brute_supports(rows)
    for r in extreme_rays(B):  # every ray is a non-negative vector of the span with its support
        assert all(v >= 0 for v in r.w) and r.support == tuple(j for j, v in enumerate(r.w) if v)


@pytest.mark.parametrize("n, k", [(12, 2), (9, 3), (8, 4)])
def test_cover_equality_on_random_rational_subspaces(n, k):
    rng = np.random.default_rng(n * 10 + k)
    B = [[Fraction(int(rng.integers(-10**6, 10**6)), int(rng.integers(1, 10**3))) for _ in range(n)] for _ in range(k)]
    assert generic(integer_basis(B))
    assert count_sign_patterns(B) == cover_count(n, k)


@pytest.mark.parametrize("kind", ["repeated", "parallel", "zero", "dependent-triple"])
def test_degenerate_columns_give_fewer_patterns(kind):
    B = [[1, 0, 2, -1, 3, 1], [0, 1, -1, 2, 1, 1], [1, 1, 0, 1, -2, 4]]
    if kind == "repeated":
        for row in B:
            row[5] = row[0]
    elif kind == "parallel":
        for row in B:
            row[5] = -3 * row[1]
    elif kind == "zero":
        for row in B:
            row[5] = 0
    else:  # three columns in a plane
        for row in B:
            row[5] = row[0] + row[1]
    count = count_sign_patterns(B)
    assert count == len(brute_signs(integer_basis(B)))
    assert count < cover_count(6, 3)
    if kind == "zero":
        assert count == 0
    if kind == "repeated":  # coordinates 0 and 5 always agree: the patterns of the first five columns
        assert count == count_sign_patterns([row[:5] for row in B])


def test_dependent_rows_are_dropped_and_rank_counts():
    B = [[1, 2, 3, 4], [2, 4, 6, 8], [0, 1, 0, -1]]
    assert len(integer_basis(B)) == 2
    assert count_sign_patterns(B) == count_sign_patterns([B[0], B[2]])
    assert list(sign_patterns([[0, 0, 0]])) == []
    assert extreme_rays([[0, 0]]) == [] and nonnegative_patterns([[0, 0]]) == [()]


def test_planted_rows_are_the_extreme_rays():
    inst = planted(d=5, k=3, m=3, n=200, seed=4)
    rays = extreme_rays(inst.labels.T)
    W = inst.planted.hidden_exact(inst.inputs).to_fractions()
    true_supports = sorted(tuple(j for j, v in enumerate(row) if v) for row in W)
    assert sorted(r.support for r in rays) == true_supports
    assert len(nonnegative_patterns(inst.labels.T, rays=rays)) == 2 ** 3


def test_cover_count_values_and_errors():
    assert [cover_count(5, k) for k in range(1, 6)] == [2, 10, 22, 30, 32]
    assert cover_count(5, 5) == 2 ** 5
    with pytest.raises(InvalidInput, match="n >= 1"):
        cover_count(0, 1)


def test_progress_bar_goes_to_stderr(capsys):
    assert count_sign_patterns([[1, 0, 1, 1], [0, 1, 1, -1]], progress=True) == cover_count(4, 2)
    out = capsys.readouterr()
    assert out.out == "" and "lines" in out.err
