"""The checker's residual sums (trusted/realizes.py _residual_part) and its sizes (realizes_bounds.sample_bits) against
the plain loops they replaced: one common denominator per batch, or one sum per denominator when the common one
would be too long, must give the same exact Fractions; the bound must refuse exactly what the loop refused."""

import math
from fractions import Fraction
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.trusted import realizes, realizes_bounds
from exactrelu.certificates.trusted.common import CheckFailed, UnreadableInput, cap_bits, lcm_within


def _plain(rows) -> dict:
    total, big = Fraction(0), Fraction(0)
    for _, ps, qs in rows:
        for p, q in zip(ps, qs):
            total += Fraction(p, q) ** 2
            big = max(big, abs(Fraction(p, q)))
    return {"squared_error": total, "max_abs_error": big}


denominators = st.one_of(st.sampled_from([1, 2, 2**60, 3 * 2**70, 10**30 + 3]), st.integers(1, 10**6),
                         st.integers(2**200, 2**201))  # powers of two as floats give, and many distinct large ones


@st.composite
def rows(draw):
    m = draw(st.integers(1, 4))
    out = []
    for j in range(draw(st.integers(1, 12))):
        ps = draw(st.lists(st.one_of(st.just(0), st.integers(-(2**300), 2**300)), min_size=m, max_size=m))
        qs = draw(st.lists(denominators, min_size=m, max_size=m))
        out.append((j, ps, qs))
    return out


@settings(max_examples=80, deadline=None)
@given(rows(), st.sampled_from([1, 3, 7, 1 << 14]))
def test_residual_part_equals_the_plain_sums(data_rows, batch):
    old = realizes._BATCH
    realizes._BATCH = batch  # batch boundaries inside and across rows
    try:
        assert realizes._residual_part(iter(data_rows)) == _plain(data_rows)
    finally:
        realizes._BATCH = old


def test_many_distinct_large_denominators_take_the_per_denominator_sums():
    primes = [2**127 - 1, 2**89 - 1, 2**107 - 1, 2**61 - 1, 2**31 - 1]  # their lcm is far longer than any one
    data = [(j, [j + 1, -(j + 2)], [primes[j % 5], primes[(j + 1) % 5]]) for j in range(20)]
    assert realizes._residual_part(iter(data)) == _plain(data)


def _plain_bits(X, Y, cap):
    """The loop of the bound as it was before it went to C (the reference), per sample."""
    xs, ys = [], []
    for j, ((nums, dens), (ynum, yden)) in enumerate(zip(X, Y)):
        D = lcm_within(dens, cap, f"sample {j + 5}")
        xs.append(D.bit_length() + max(abs(p).bit_length() for p in nums))
        ys.append(max(abs(p).bit_length() + q.bit_length() for p, q in zip(ynum, yden)))
    return xs, ys


def _outcome(f, *args):
    try:
        return f(*args)
    except (CheckFailed, UnreadableInput) as exc:
        return str(exc)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.lists(st.tuples(st.integers(-(2**80), 2**80), denominators), min_size=1, max_size=3),
                          st.lists(st.tuples(st.integers(-(2**80), 2**80), denominators), min_size=1, max_size=2)),
                min_size=1, max_size=8), st.integers(1, 1200))
def test_sample_bits_equal_the_loop_and_refuse_what_it_refused(samples, cap):
    X = [([p for p, _ in xs], [q for _, q in xs]) for xs, _ in samples]
    Y = [([p for p, _ in ys], [q for _, q in ys]) for _, ys in samples]
    with patch.object(realizes_bounds, "cap_bits", lambda: cap):
        xs, ys, refused = realizes_bounds.sample_bits(X, Y, 5)  # the samples numbered from 5
    want = _outcome(_plain_bits, X, Y, cap)
    if refused is None:
        assert (xs, ys) == want  # the same sizes of every sample
    else:  # the same refusal of the same sample, and the sizes of the samples before it
        assert str(refused) == want and (xs, ys) == _plain_bits(X[:len(xs)], Y[:len(xs)], cap)


def test_a_sample_whose_common_denominator_is_over_the_cap_is_refused_by_its_number():
    cap = cap_bits()
    big = [3**(cap // 3), 5**(cap // 4)]  # each under the cap, their lcm over it; the larger is not a multiple
    bound = realizes_bounds.OutputBound([[Fraction(1)]], [[Fraction(1), Fraction(1)]], [Fraction(0)], [Fraction(0)], 1)
    with pytest.raises(UnreadableInput, match="sample 7: the common denominator"):
        realizes_bounds.bounded_rows(None, bound, [([1, 1], [1, 1]), ([1, 1], big)], [([1], [1])] * 2, 6)
    assert math.lcm(*big).bit_length() > cap >= max(big).bit_length()
