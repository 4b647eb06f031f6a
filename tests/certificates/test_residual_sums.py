"""The checker's residual sums (trusted/realizes.py _residual_part) and its integer bound (bound_integers) against
the plain loops they replaced: one common denominator per batch, or one sum per denominator when the common one
would be too long, must give the same exact Fractions; the bound must refuse exactly what the loop refused."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.trusted import common, realizes
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


def _plain_bound(X, Y, U, V, b, offset, c) -> None:
    """bound_integers as it was before its loops went to C (the reference)."""
    from exactrelu.certificates.trusted.common import digits_of, over

    cap = cap_bits()
    DV = [lcm_within([f.denominator for f in (*row, bi)], cap, f"unit {i}") for i, (row, bi) in enumerate(zip(V, b))]
    if max(c * D.bit_length() for D in DV) > cap:
        raise over("intermediate", f"the power {c} of a unit's denominator ({digits_of(c * max(DV).bit_length())} digits)")
    v_bits = max(abs(f.numerator).bit_length() - f.denominator.bit_length() + 1 + D.bit_length()
                 for row, bi, D in zip(V, b, DV) for f in (*row, bi))
    x_bits = y_bits = 0
    for j, ((nums, dens), (ynum, yden)) in enumerate(zip(X, Y)):
        Dx = lcm_within(dens, cap, f"sample {j}")
        x_bits = max(x_bits, Dx.bit_length() + max(abs(p).bit_length() for p in nums))
        y_bits = max(y_bits, max(abs(p).bit_length() + q.bit_length() for p, q in zip(ynum, yden)))
    t_bits = v_bits + x_bits + (len(V[0]) + 1).bit_length()
    powers = [D**c for D in DV]
    du_bits = max(lcm_within([(u / P).denominator for u, P in zip(row, powers)], cap, f"output {r}").bit_length()
                  for r, row in enumerate(U)) + max(abs(u.numerator).bit_length() for row in U for u in row)
    dc_bits = 2 * lcm_within([f.denominator for f in offset], cap, "the output bias").bit_length() + max(
        abs(f.numerator).bit_length() for f in offset)
    total = du_bits + c * t_bits + y_bits + dc_bits + (len(V) + 1).bit_length()
    if total > cap:
        raise over("intermediate", f"the exact check of this network (integers of up to about {digits_of(total)} digits: "
                                   f"activation degree {c} times pre-activations of up to {digits_of(t_bits)} digits)")


def _outcome(f, *args):
    try:
        f(*args)
    except (CheckFailed, UnreadableInput) as exc:
        return str(exc)
    return None


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.lists(st.tuples(st.integers(-(2**80), 2**80), denominators), min_size=2, max_size=2),
                          st.tuples(st.integers(-(2**80), 2**80), denominators)), min_size=1, max_size=8),
       st.integers(20, 400), st.sampled_from([1, 2, 3]))
def test_bound_integers_refuses_exactly_what_the_loop_refused(samples, digits, c):
    X = [([p for p, _ in xs], [q for _, q in xs]) for xs, _ in samples]
    Y = [([y[0]], [y[1]]) for _, y in samples]
    net = ([[Fraction(1, 5)]], [[Fraction(1, 3), Fraction(-2)]], [Fraction(0)], [Fraction(1, 7)], c)
    saved = dict(common._limits)
    common._limits["intermediate"] = digits  # small: refusals by samples and by the totals both happen
    try:
        assert _outcome(realizes.bound_integers, X, Y, *net) == _outcome(_plain_bound, X, Y, *net)
    finally:
        common._limits.clear()
        common._limits.update(saved)


def test_bound_integers_refuses_a_sample_whose_common_denominator_is_over_the_cap():
    cap = cap_bits()
    big = [3**(cap // 3), 5**(cap // 4)]  # each under the cap, their lcm over it; the larger is not a multiple
    with pytest.raises((CheckFailed, UnreadableInput), match="sample 0"):
        realizes.bound_integers([([1, 1], big)], [([1], [1])], [[Fraction(1)]], [[Fraction(1), Fraction(1)]],
                                [Fraction(0)], [Fraction(0)], 1)
    assert math.lcm(*big).bit_length() > cap >= max(big).bit_length()
