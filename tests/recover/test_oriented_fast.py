"""unit_steps.oriented (C-level sign maps) against the plain comprehensions, on zeros, huge and tiny values."""

import flint
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.recover.unit_steps import Candidate, oriented

values = st.one_of(st.just(0), st.integers(-3, 3), st.integers(-(2**300), 2**300))


@given(st.lists(values, max_size=40))
def test_oriented_matches_plain(vals):
    Y = flint.fmpz_mat([vals]) if vals else flint.fmpz_mat(1, 0)
    got = oriented(Y, 0, Y.entries(), [0], "t")
    pos = [j for j, v in enumerate(vals) if v > 0]
    neg = [j for j, v in enumerate(vals) if v < 0]
    if pos and neg:
        assert isinstance(got, dict) and got["positive"] == len(pos) and got["negative"] == len(neg)
    else:
        assert isinstance(got, Candidate)
        assert got.positive == (neg or pos) and got.sign == (-1 if neg else 1)
        assert all(type(j) is int for j in got.positive)
