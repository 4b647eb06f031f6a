"""The per-sample bound of trusted/realizes_bounds.py: the lines its other tests left free. Each test names the mutant
of ``benchmarks/mutate_checker.py`` it kills.

Mutants left alive, each equivalent (it changes how fast a bound is computed, never which sample is refused):

* in sample_bits, ``bits(Dx) > cap`` -> ``>=``, the condition -> True, and ``mod(Dx, q)`` -> ``mod(q, Dx)``: each sends
  more samples to ``lcm_within``, whose lcm is then max(dens) itself (every q divides it, and it is within the cap);
* in OutputBound.refuse, the one-pass test of the largest ``c x + y`` deleted, False, ``<=`` -> ``<``, its bound made
  larger (``total(0, M)`` -> ``total(M, 0)`` or ``total(1, M)``) or its ``return`` deleted: the loop below it then
  finds no sample over, as that test did; and its operands of ``add`` and ``mul`` swapped (they commute);
* in sample_bits, ``max(max(p), -min(p))`` and ``add(bits |p|, bits q)`` with their operands swapped (they commute).
"""

from __future__ import annotations

from fractions import Fraction
from unittest.mock import patch

import pytest

from exactrelu.certificates.trusted import realizes_bounds
from exactrelu.certificates.trusted.common import UnreadableInput

ONE, ZERO = [[Fraction(1)]], [Fraction(0)]


def test_samples_are_numbered_from_zero_by_default():
    """The default ``first = 0`` of sample_bits, OutputBound.refuse and bounded_rows (mutants: 0 -> 1): the first
    sample over the limit is sample 0 when no offset is given."""
    with patch.object(realizes_bounds, "cap_bits", lambda: 40):
        X = [([1], [3**30])]  # a common denominator of 48 bits
        assert str(realizes_bounds.sample_bits(X, None)[2]).startswith("sample 0: the common denominator")
        bound = realizes_bounds.OutputBound(ONE, ONE, ZERO, ZERO, 1)
        with pytest.raises(UnreadableInput, match="at sample 0 "):
            bound.refuse([100], [1])
        with pytest.raises(UnreadableInput, match="sample 0: the common denominator"):
            realizes_bounds.bounded_rows(None, bound, X, [([1], [1])])


def test_a_units_denominator_raised_to_the_activation_degree_is_bounded_first():
    """Hostile work: a unit's common denominator D within the limit but D^c over it is refused before D^c is
    computed (mutants: the check deleted, or its condition False)."""
    V = [[Fraction(1, 3**20)]]  # D = 3^20: 32 bits; D^3: 96 bits
    with patch.object(realizes_bounds, "cap_bits", lambda: 64):
        with pytest.raises(UnreadableInput, match=r"the power 3 of a unit's denominator \(29 digits\)"):
            realizes_bounds.OutputBound(ONE, V, ZERO, ZERO, 3)
        assert realizes_bounds.OutputBound(ONE, V, ZERO, ZERO, 2).c == 2  # 64 bits: at the limit, within


def test_the_output_bias_weighs_its_denominator_twice_and_its_numerators_once():
    """``dc_bits = 2 bits(Dc) + bits(max |p|)`` of the output bias c (mutant: ``+`` -> ``-``, which the zero bias of
    the other tests cannot see): with c = 5/3, dc = 2 * 2 + 3; fixed = du (1 + 1) + dc + bits(k + 1) (2) = 11."""
    bound = realizes_bounds.OutputBound(ONE, ONE, ZERO, [Fraction(5, 3)], 1)
    assert bound.fixed == 11
    assert realizes_bounds.OutputBound(ONE, ONE, ZERO, [Fraction(-40, 9)], 1).fixed == 2 + (2 * 4 + 6) + 2


def test_a_sample_at_exactly_the_limit_is_within():
    """``total > cap`` refuses, ``total == cap`` does not (mutant: ``>`` -> ``>=`` in refuse's loop, reached when a
    later sample is over): t^3, sample 0 at 3 (4 + 61) + 6 + 1 = 202 bits, sample 1 at 205."""
    with patch.object(realizes_bounds, "cap_bits", lambda: 202):
        cube = realizes_bounds.OutputBound(ONE, ONE, ZERO, ZERO, 3)
        assert (cube.total(61, 1), cube.total(62, 1)) == (202, 205)
        with pytest.raises(UnreadableInput, match="at sample 1 "):
            cube.refuse([61, 62], [1, 1])


def test_inputs_weigh_the_activation_degree_and_labels_once_on_the_two_layer_path():
    """bounded_rows passes (input sizes, label sizes) in that order (mutant: ``refuse(ys, xs, first)``, the same under
    relu): under t^3 a large input is over where an equally large label is not."""
    with patch.object(realizes_bounds, "cap_bits", lambda: 200):
        cube = realizes_bounds.OutputBound(ONE, ONE, ZERO, ZERO, 3)
        big, one = ([2**60], [1]), ([1], [1])
        with pytest.raises(UnreadableInput, match="at sample 0 "):
            realizes_bounds.bounded_rows(None, cube, [big], [one])
        assert realizes_bounds.bounded_rows(None, cube, [one], [big]) == [one]


def test_the_output_sum_over_k_units_adds_bits_of_k_plus_one():
    """``fixed = du + dc + bits(k + 1)`` (mutant: ``k + 1`` -> ``k + 2``, which k = 1 cannot see: bits(2) = bits(3)):
    with k = 2 units of weight 1, du = 1 + 1, dc = 2 + 0 and bits(3) = 2."""
    one = Fraction(1)
    assert realizes_bounds.OutputBound([[one, one]], [[one], [one]], [Fraction(0)] * 2, [Fraction(0)], 1).fixed == 6
