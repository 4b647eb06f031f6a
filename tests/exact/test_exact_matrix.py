from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from exactrelu.errors import InvalidInput
from exactrelu.exact import (InconsistentSystem, QMatrix, exact_rank, independent_columns, independent_rows,
                             primitive_kernel, rank_mod_p, solve_consistent)
from exactrelu.exact.matrix import float_strings

finite = st.floats(allow_nan=False, allow_infinity=False)


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=6), elements=finite))
def test_from_numpy_exact(a):
    Q = QMatrix.from_numpy(a)
    fr = Q.to_fractions()
    assert all(fr[i][j] == Fraction(a[i, j]) for i in range(a.shape[0]) for j in range(a.shape[1]))
    assert float_strings(a) == Q.to_strings()


@pytest.mark.parametrize("scale", [1e-300, 1e300, 5e-324, 1.0, 2.0**-1074, 1e-5])
def test_extreme_magnitudes(scale):
    a = np.random.default_rng(0).standard_normal((4, 5)) * scale
    Q = QMatrix.from_numpy(a)
    assert all(Q.to_fractions()[i][j] == Fraction(a[i, j]) for i in range(4) for j in range(5))
    assert np.array_equal(Q.to_float(), a)


def test_mixed_extremes_one_matrix():
    a = np.array([[1e-300, 1e300], [5e-324, -2.0]])
    Q = QMatrix.from_numpy(a)
    assert Q.to_fractions() == [[Fraction(1e-300), Fraction(1e300)], [Fraction(5e-324), Fraction(-2)]]


def test_nan_inf_rejected_with_position():
    with pytest.raises(InvalidInput, match=r"\(1, 0\)"):
        QMatrix.from_numpy(np.array([[1.0, 2.0], [np.nan, 0.0]]))
    with pytest.raises(InvalidInput):
        QMatrix.from_numpy(np.array([[np.inf]]))
    with pytest.raises(InvalidInput, match="2-dimensional"):
        QMatrix.from_numpy(np.zeros(3))


def test_from_rows_and_errors():
    Q = QMatrix.from_rows([["1/3", 2], [0.5, "1e-1"]])
    assert Q.to_fractions() == [[Fraction(1, 3), Fraction(2)], [Fraction(1, 2), Fraction(1, 10)]]
    assert Q.den == 30
    with pytest.raises(InvalidInput, match="row 1"):
        QMatrix.from_rows([[1, 2], [3]])
    with pytest.raises(InvalidInput):
        QMatrix.from_rows([])
    with pytest.raises(InvalidInput):
        QMatrix.from_rows([["x"]])
    with pytest.raises(InvalidInput):
        QMatrix(flint.fmpz_mat([[1]]), 0)


@given(st.lists(st.lists(st.fractions(max_denominator=50), min_size=3, max_size=3), min_size=2, max_size=4),
       st.lists(st.lists(st.fractions(max_denominator=50), min_size=2, max_size=2), min_size=3, max_size=3))
def test_product_matches_fractions(A, B):
    P = (QMatrix.from_rows(A) @ QMatrix.from_rows(B)).to_fractions()
    ref = [[sum(A[i][t] * B[t][j] for t in range(3)) for j in range(2)] for i in range(len(A))]
    assert P == ref


def test_product_shape_error_and_equality():
    A = QMatrix.from_rows([[1, 2]])
    with pytest.raises(InvalidInput, match="shape mismatch"):
        A @ A
    assert QMatrix.from_rows([["1/2"]]) == QMatrix(flint.fmpz_mat([[2]]), 4)
    assert QMatrix.from_rows([[1]]) != QMatrix.from_rows([[1, 1]])
    assert A.T.shape == (2, 1)
    assert A.take_columns([1]).to_fractions() == [[2]]
    assert QMatrix.from_rows([[1], [2]]).take_rows([1]).to_fractions() == [[2]]
    assert QMatrix(flint.fmpz_mat([[2, 4]]), 6).reduced().den == 3


@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 6), st.integers(0, 2**32))
def test_independent_rows_are_a_basis(r, c, rank, seed):
    rng = np.random.default_rng(seed)
    rank = min(rank, r, c)
    M = rng.integers(-3, 4, (r, rank)) @ rng.integers(-3, 4, (rank, c))
    F = flint.fmpz_mat(M.tolist())
    rows = independent_rows(F)
    cols = independent_columns(F)
    assert len(rows) == len(cols) == exact_rank(F) == rank_mod_p(F)
    if rows:
        assert exact_rank(flint.fmpz_mat([M[i].tolist() for i in rows])) == len(rows)
        assert exact_rank(flint.fmpz_mat(M[:, cols].tolist())) == len(cols)


@given(st.integers(1, 5), st.integers(2, 7), st.integers(0, 2**32))
def test_primitive_kernel(r, c, seed):
    M = flint.fmpz_mat(np.random.default_rng(seed).integers(-5, 6, (r, c)).tolist())
    K = primitive_kernel(M)
    assert len(K) == c - exact_rank(M)
    for v in K:
        assert (M * flint.fmpz_mat([[x] for x in v])).is_zero()
        g = 0
        for x in v:
            g = np.gcd(g, x)
        assert g == 1


def test_solve_consistent_and_inconsistent():
    M = flint.fmpz_mat([[1, 0], [0, 1], [1, 1], [2, 3]])
    X = solve_consistent(M, flint.fmpz_mat([[1], [2], [3], [8]]))
    assert X.tolist() == [[1], [2]]
    with pytest.raises(InconsistentSystem) as e:
        solve_consistent(M, flint.fmpz_mat([[1], [2], [4], [8]]))
    assert e.value.evidence["n_failing"] >= 1
    with pytest.raises(ValueError, match="not unique"):
        solve_consistent(flint.fmpz_mat([[1, 1], [2, 2]]), flint.fmpz_mat([[1], [2]]))


def test_empty_matrices():
    E = flint.fmpz_mat(0, 3)
    assert rank_mod_p(E) == 0 and independent_rows(E) == [] and independent_columns(E) == [] and exact_rank(E) == 0


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=5), elements=finite), st.data())
def test_row_view_rebuilds_rows_exactly(a, data):
    """The recovery's row access (from the float64 source when exact) agrees with the FLINT matrix."""
    from exactrelu.recover.views import RowView as _RowView

    Q = QMatrix.from_numpy(a)
    idx = data.draw(st.lists(st.integers(0, a.shape[0] - 1), min_size=1, max_size=4))
    for view in (_RowView(QMatrix.from_numpy(a, lazy=True)), _RowView(Q.num), _RowView(Q)):
        assert view.matrix(idx).tolist() == [Q.num.tolist()[i] for i in idx]
        assert [list(map(int, view[i])) for i in idx] == [[int(x) for x in Q.num.tolist()[i]] for i in idx]


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=6), elements=finite),
       st.lists(st.lists(st.integers(-2**20, 2**20), min_size=1, max_size=1), min_size=1, max_size=3), st.data())
def test_int_times_dyadic_is_exact(a, rows, data):
    """V @ X.T by exact float64 limb products equals the FLINT product, for every finite float64 X."""
    from exactrelu.exact.matrix import dyadic_scale, int_times_dyadic

    d = a.shape[1]
    V = [[data.draw(st.integers(-2**20, 2**20)) for _ in range(d)] for _ in rows]
    shift, bits = dyadic_scale(a)
    P = int_times_dyadic(V, a, shift, bits)
    Q = QMatrix.from_numpy(a)
    assert Q.den == 2**shift
    if P is not None:
        assert P == flint.fmpz_mat(V) * Q.num.transpose()
    else:
        assert bits > 1023 or shift > 1074


def test_lazy_matrix_converts_on_demand():
    a = np.array([[0.5, -1.25], [3.0, 1e-300]])
    L = QMatrix.from_numpy(a, lazy=True)
    assert L._num is None and L.shape == (2, 2)
    assert L.to_strings() == QMatrix.from_numpy(a).to_strings() and L._num is None
    assert np.array_equal(L.to_float(), a)
    assert L == QMatrix.from_numpy(a) and L._num is not None


def test_repr_shows_exact_entries_and_reads_only_what_it_shows():
    import numpy as np

    assert repr(QMatrix.from_rows([["-1/3", "2"]])) == "QMatrix([[-1/3, 2]])"
    lazy = QMatrix.from_numpy(np.full((1000, 50), 0.1), lazy=True)
    text = repr(lazy)
    assert lazy._num is None  # the float matrix was not converted to FLINT for its repr
    assert text.startswith("QMatrix([[3602879701896397/36028797018963968, ") and text.endswith("shape=(1000, 50))")
    assert text.count("...") == 1 + 6  # one row ellipsis, one column ellipsis in each of the 6 rows shown
    assert repr(QMatrix(flint.fmpz_mat(0, 4), 1)) == "QMatrix([], shape=(0, 4))"
    assert repr(QMatrix(flint.fmpz_mat(2, 0), 1)) == "QMatrix([[], []], shape=(2, 0))"
    big = repr(QMatrix.from_rows([[Fraction(-(10**60), 7)]]))
    assert "(62 digits)" in big and big.startswith("QMatrix([[-1000000000000000") and big.endswith("/7]])")


def _by_entry(a):
    out = []
    for row in a.tolist():
        out.append([str(p) if q == 1 else f"{p}/{q}" for p, q in (x.as_integer_ratio() for x in row)])
    return out


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=8), elements=finite))
def test_float_strings_vectorized_is_as_integer_ratio(a):
    assert float_strings(a) == _by_entry(a)


def test_float_strings_at_the_edges():
    edges = [0.0, -0.0, 5e-324, -5e-324, 2.0**-1022, 2.0**-1074 * 3, 1.0, -1.0, 2.0**52, 2.0**53, 2.0**53 + 2,
             -(2.0**60), 1.7976931348623157e308, 0.1, -0.75, 3.0, 2.0**-53]
    a = np.array(edges).reshape(1, -1)
    assert float_strings(a) == _by_entry(a) and float_strings(a.T) == _by_entry(a.T)
