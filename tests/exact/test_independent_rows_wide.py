"""independent_rows on wide matrices (pivot columns first) against the plain transpose-rref computation."""

import flint
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.exact.linalg import PRIMES, _pivots_of_rref, independent_rows

P = PRIMES[0]
entries = st.one_of(st.sampled_from([0, 1, -1, P, -P, 2 * P + 1, 2**200, -(2**80) + 3]), st.integers(-5, 5),
                    st.integers(-(2**100), 2**100))


def _plain(M, p):
    R, rank = flint.nmod_mat(M, p).transpose().rref()
    return _pivots_of_rref(R, rank)


@settings(max_examples=300)
@given(st.integers(1, 5), st.integers(1, 9), st.data())
def test_same_rows_as_transpose_rref(m, n, data):
    """Zeros, duplicated and proportional rows, multiples of p, huge entries: the same greedy rows."""
    rows = [[data.draw(entries) for _ in range(n)] for _ in range(m)]
    for i in range(1, m):
        how = data.draw(st.sampled_from(["keep", "dup", "zero", "multiple"]))
        if how == "dup":
            rows[i] = list(rows[data.draw(st.integers(0, i - 1))])
        elif how == "zero":
            rows[i] = [0] * n
        elif how == "multiple":
            rows[i] = [3 * x for x in rows[0]]
    M = flint.fmpz_mat(rows)
    for p in PRIMES[:2]:
        assert independent_rows(M, p) == _plain(M, p)


def test_zero_and_wide_examples():
    assert independent_rows(flint.fmpz_mat(2, 5)) == []
    M = flint.fmpz_mat([[1, 2, 3, 4], [2, 4, 6, 8], [0, 0, 0, 1]])
    assert independent_rows(M) == [0, 2]
