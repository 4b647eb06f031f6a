"""The reference's bound on the check's integers is per sample (``trusted/realizes_bounds.py``), so no verdict depends
on how the rows are grouped: at the edge of the limit ``intermediate`` (to the bit), the reference streaming in blocks
of any size, the reference on any cut of the rows into ranges, on forked workers, and the fast checker in blocks of any
size give one verdict, word for word, two-layer and deep (docs/design.md, "The reference's limits")."""

from __future__ import annotations

import contextlib
from fractions import Fraction
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker, fast
from exactrelu.certificates.claims.realizes import residual_certificate
from exactrelu.certificates.fast import blocks
from exactrelu.certificates.trusted import deep as trusted_deep
from exactrelu.certificates.trusted import realizes_bounds, schedule
from exactrelu.certificates.trusted.common import UnreadableInput
from exactrelu.instances import Instance
from exactrelu.instances.checker_view import checker_instance, fast_instance
from exactrelu.network import Activation, Network
from test_fast_checker import outcome

TWO = Network.from_rows([[3, "1/32"]], [[1, "-3/8"], [2, 1]], b=[1, "1/2"], c=["7/16"])
DEEP = Network.from_layers([([[1, "-3/8"], [2, 1]], [1, "1/2"]), ([[1, 1], ["-5/4", 1]], [0, "1/16"]),
                            ([[3, "1/32"]], ["7/16"])])
SQUARE = Network.from_layers([([[1, 1]], None), ([[1]], None), ([[1]], None)], Activation.power(2))
#: inputs and labels of every size: a large input beside a small label in one sample, the reverse in another
values = st.sampled_from([0.0, -0.0, 1.0, -2.5, 3.0, 2.0**-30, -(2.0**40), 2.0**60 + 2.0**8, 2.0**-60 * 3, 0.375])


@contextlib.contextmanager
def capped(bits: int):
    """The limit ``intermediate`` set to ``bits`` bits, where the reference reads it (both checkers share it)."""
    with patch.object(realizes_bounds, "cap_bits", lambda: bits), patch.object(trusted_deep, "cap_bits", lambda: bits):
        yield


def _cuts(n: int, data) -> list:
    inner = sorted(data.draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
    bounds = [0, *inner, n]
    return list(zip(bounds, bounds[1:]))


def _verdicts(cert: dict, inst: Instance, cuts: list, block: int, entries: int) -> set:
    """Every way of grouping the rows, each verdict as (kind, message)."""
    view = checker_instance(inst)
    got = {outcome(lambda: schedule.combine_rows(cert, (schedule.check_rows(cert, view, a, b) for a, b in cuts)))}
    with patch.object(schedule, "BLOCK", block):
        got.add(outcome(lambda: checker.check(cert, checker_instance(inst))))
    with patch.object(blocks, "ENTRIES", entries):
        got.add(outcome(lambda: fast.check(cert, fast_instance(inst))))
    with patch.object(blocks, "blocks", lambda *shape, pieces=1: cuts):
        got.add(outcome(lambda: fast.check(cert, fast_instance(inst))))
    return got


def _edge(cert: dict, inst: Instance) -> int:
    """The fewest bits of the limit at which the reference accepts the whole instance as one block."""
    lo, hi = 1, 1 << 13
    with capped(hi):
        assert outcome(lambda: checker.check(cert, checker_instance(inst)))[0] == "VALID"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        with capped(mid):
            refused = outcome(lambda: checker.check(cert, checker_instance(inst)))[0] == "UNREADABLE"
        lo, hi = (mid, hi) if refused else (lo, mid)
    return hi


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_at_the_edge_every_grouping_of_the_rows_gives_one_verdict(data):
    net = data.draw(st.sampled_from([TWO, DEEP, SQUARE]))
    n = data.draw(st.integers(1, 6))
    X = np.array([[data.draw(values) for _ in range(2)] for _ in range(n)])
    Y = np.array([[data.draw(values)] for _ in range(n)])  # any labels: a residual claim
    inst = Instance.from_arrays(X, Y, activation=net.activation)
    cert = residual_certificate(inst, net)
    edge = _edge(cert, inst)
    cuts, block = _cuts(n, data), data.draw(st.integers(1, n))
    entries = 3 * data.draw(st.integers(1, n))  # d + m = 3 numbers a row
    for bits in (edge - 1, edge):
        with capped(bits):
            got = _verdicts(cert, inst, cuts, block, entries)
        assert len(got) == 1, got
        assert next(iter(got))[0] == ("VALID" if bits == edge else "UNREADABLE")


@pytest.mark.parametrize("net", [TWO, DEEP, SQUARE], ids=["two layers", "deep", "t^2"])
def test_the_largest_input_and_the_largest_label_in_different_samples(net):
    """Sample 1 has the largest input, sample 2 the largest label: a bound on a block's largest sizes refused the
    two together and accepted them apart. Per sample, one bit below the edge refuses the first sample over it, by
    its number, in every grouping (one block, one per sample, two workers of each checker)."""
    X = np.array([[1.0, 0.5], [2.0**60 + 2.0**8, -(2.0**40)], [3.0, 0.375]])
    Y = np.array([[0.5], [1.0], [2.0**-60 * 3 + 1.0]])
    inst = Instance.from_arrays(X, Y, activation=net.activation)
    cert = residual_certificate(inst, net)
    edge = _edge(cert, inst)
    for bits in (edge - 1, edge):
        with capped(bits):
            got = _verdicts(cert, inst, [(0, 1), (1, 2), (2, 3)], 1, 3) | _verdicts(cert, inst, [(0, 3)], 3, 9)
            got.add(outcome(lambda: checker.check_parallel(cert, checker_instance(inst), 2)))
            got.add(outcome(lambda: fast.check(cert, fast_instance(inst), 2)))
        assert len(got) == 1, got
        kind, message = next(iter(got))
        assert (kind == "VALID") == (bits == edge)
        if bits < edge:
            assert " at sample " in message and "is over the checker's limit intermediate" in message


def test_a_sample_refused_by_the_hidden_layers_comes_before_a_later_one_refused_by_the_output_bound():
    """Each sample's checks in its own order, the samples in theirs: the first sample over a bound is named, whichever
    bound it is and whatever later samples do."""
    hidden = trusted_deep.HiddenLayers([([[Fraction(2**40)]], [Fraction(0)])], 1)
    X = [([1], [1]), ([2**110], [1]), ([1], [2**90])]
    Y = [([1], [1]), ([1], [1]), ([2**200], [1])]
    with capped(150):
        bound = realizes_bounds.OutputBound([[Fraction(1)]], [[Fraction(1)]], [Fraction(0)], [Fraction(0)], 1)
        with pytest.raises(UnreadableInput, match="hidden layer 1 at sample 11 "):
            realizes_bounds.bounded_rows(hidden, bound, X, Y, 10)
        with pytest.raises(UnreadableInput, match="the exact check of this network at sample 12 "):
            realizes_bounds.bounded_rows(hidden, bound, X[2:], Y[2:], 12)
        assert realizes_bounds.bounded_rows(hidden, bound, X[:1], Y[:1]) == [([2**40], [1])]
    with capped(200):  # t^3: a sample's input size weighs 3 times, its labels' once (6 + 3 (4 + 61) + 1 = 202 bits)
        one, zero = [[Fraction(1)]], [Fraction(0)]
        cube = realizes_bounds.OutputBound(one, one, zero, zero, 3)
        assert cube.total(61, 1) == 202 and cube.total(1, 61) == 82
        # t0 = v_bits + bits(d + 1): 2 + 2 for d = 2 (two inputs and the bias), fixed = 2 + 2 + bits(k + 1)
        two = realizes_bounds.OutputBound(one, [[Fraction(1), Fraction(1)]], zero, zero, 1)
        assert (two.t0, two.fixed) == (4, 6)
        with pytest.raises(UnreadableInput, match="at sample 4 .* 61 digits"):
            cube.refuse([1, 61], [1, 1], 3)
        cube.refuse([1, 60, 1], [1, 1, 100], 3)  # 199 and 121 bits: within
    with capped(100):  # a sample's common denominator: refused by its number, after the samples before it
        bound = realizes_bounds.OutputBound([[Fraction(1)]], [[Fraction(1)]], [Fraction(0)], [Fraction(0)], 1)
        with pytest.raises(UnreadableInput, match="sample 1: the common denominator"):
            realizes_bounds.bounded_rows(None, bound, [([1], [1]), ([1, 1], [3**40, 5**40])], [([1], [1])] * 2)


fractions = st.fractions(min_value=-2**40, max_value=2**40, max_denominator=2**30)


def _largest_integer(U, V, b, offset, c, x, y) -> tuple[int, int]:
    """(the bits of the largest integer among the differences the reference computes for one sample, the bound)."""
    from exactrelu.certificates.trusted import realizes

    X = [([f.numerator for f in x], [f.denominator for f in x])]
    Y = [([f.numerator for f in y], [f.denominator for f in y])]
    xs, ys, _ = realizes_bounds.sample_bits(X, Y)
    _, ps, qs = next(realizes._differences(X, Y, U, V, b, offset, c))
    bound = realizes_bounds.OutputBound(U, V, b, offset, c)
    return max(abs(v).bit_length() for v in ps + qs), bound.total(xs[0], ys[0])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_output_bound_is_at_least_every_integer_the_check_of_a_sample_makes(data):
    """The bound is sound: the differences from the labels the reference computes for a sample (numerators and
    denominators, its largest integers) have at most ``OutputBound.total(x, y)`` bits, x and y the sample's sizes;
    a large input under t^3 (its size weighs c = 3 times, the labels' once)."""
    c = data.draw(st.integers(1, 3))
    d, k, m = (data.draw(st.integers(1, 3)) for _ in range(3))
    V = [[data.draw(fractions) for _ in range(d)] for _ in range(k)]
    b = [data.draw(fractions) for _ in range(k)]
    U = [[data.draw(fractions) for _ in range(k)] for _ in range(m)]
    offset = [data.draw(fractions) for _ in range(m)]
    x = [data.draw(fractions) for _ in range(d)]
    y = [data.draw(fractions) for _ in range(m)]
    largest, bound = _largest_integer(U, V, b, offset, c, x, y)
    assert largest <= bound
    one, zero = [[Fraction(1)]], [Fraction(0)]
    largest, bound = _largest_integer(one, one, zero, zero, 3, [Fraction(2**100)], zero)  # (2^100)^3: 301 bits
    assert 301 == largest <= bound


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=8))
def test_the_bit_lengths_of_floats_come_from_their_exponents(values):
    """``Numbers.bits`` of floats (frexp's exponent plus the denominator's) is the numerator's bit length."""
    from exactrelu.certificates.fast import numbers

    nums, _ = numbers.from_floats(np.array([values]))
    assert nums.bits().tolist() == [Fraction(v).numerator.bit_length() for v in values]
    nums.floats = None  # the limbs' way gives the same
    assert nums.bits().tolist() == [Fraction(v).numerator.bit_length() for v in values]
