"""The checker's sizes of each sample (``realizes_bounds.sample_bits``) against the plain computation."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.trusted import realizes_bounds

entries = st.one_of(st.integers(-2**300, 2**300), st.sampled_from([0, 1, -1, 2**63, -2**63 - 1]),
                    st.fractions(max_denominator=2**70), st.floats(allow_nan=False, allow_infinity=False).map(Fraction))


def _rows(values: list) -> tuple:
    fs = [Fraction(v) for v in values]
    return [f.numerator for f in fs], [f.denominator for f in fs]


def _plain(X: list, Y: list) -> tuple:
    x_bits = [math.lcm(*dens).bit_length() + max(abs(p).bit_length() for p in nums) for nums, dens in X]
    y_bits = [max(abs(p).bit_length() + q.bit_length() for p, q in zip(nums, dens)) for nums, dens in Y]
    return x_bits, y_bits, None


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6).flatmap(lambda d: st.lists(st.lists(entries, min_size=d, max_size=d), min_size=1, max_size=5)),
       st.data())
def test_sample_bits_is_the_plain_bound(inputs, data):
    labels = data.draw(st.lists(st.lists(entries, min_size=2, max_size=2), min_size=len(inputs), max_size=len(inputs)))
    X, Y = [_rows(r) for r in inputs], [_rows(r) for r in labels]
    assert realizes_bounds.sample_bits(X, Y) == _plain(X, Y)
