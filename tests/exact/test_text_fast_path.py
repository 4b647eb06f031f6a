"""The bulk reader of rational strings (exact/text.py) agrees with the entry-by-entry reader, or declines.

Theorem: for every list of strings, ``parse_rational_strings`` returns None or the matrix that ``to_fraction``
entry by entry gives; it never accepts an entry ``to_fraction`` refuses.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.errors import InvalidInput
from exactrelu.exact.rationals import to_fraction
from exactrelu.exact.matrix import QMatrix
from exactrelu.exact.text import parse_rational_strings as _parse
from exactrelu.limits import DEFAULTS, set_limit

canonical = st.fractions(max_denominator=2**70).map(
    lambda f: str(f) if f.denominator != 1 else str(f.numerator)) | st.integers(-2**80, 2**80).map(str)
odd = st.sampled_from(["", "-", "1-2", "1/2/3", "--1", "1/0", "3/-4", "-0", "007", "0/5", "1/", "/2", "+1", " 1",
                       "1_0", "1.5", "1e3", "\u0661", "2/4", "-12/36"])


def parse_rational_strings(flat, nrows, ncols):
    """The bulk reader's answer as a QMatrix (as QMatrix.from_rows builds it), or None."""
    fast = _parse(flat, nrows, ncols)
    if fast is None:
        return None
    return QMatrix.from_numpy(fast, lazy=True) if isinstance(fast, np.ndarray) else QMatrix(*fast)


def _slow(flat):
    try:
        return [to_fraction(x) for x in flat]
    except InvalidInput:
        return None


@settings(max_examples=300, deadline=None)
@given(st.lists(canonical | odd, min_size=1, max_size=12))
def test_the_bulk_reader_agrees_with_to_fraction_or_declines(flat):
    fast = parse_rational_strings(flat, 1, len(flat))
    slow = _slow(flat)
    if fast is not None:
        assert slow is not None, flat  # never accepts what the general reader refuses
        assert fast.to_fractions()[0] == slow, flat


@settings(max_examples=100, deadline=None)
@given(st.lists(canonical, min_size=1, max_size=30))
def test_canonical_strings_are_always_taken_by_the_bulk_reader(flat):
    fast = parse_rational_strings(flat, 1, len(flat))
    assert fast is not None and fast.to_fractions()[0] == [Fraction(x) for x in flat]


def test_dyadic_entries_stay_float64_and_others_go_to_flint():
    m = parse_rational_strings(["1/2", "-3/1024", "7"], 3, 1)
    assert m.float_source is not None and m.to_fractions() == [[Fraction(1, 2)], [Fraction(-3, 1024)], [7]]
    m = parse_rational_strings(["1/3", "-3/1024", "9007199254740993"], 3, 1)  # 2**53 + 1 is no float64
    assert m.float_source is None and m.to_fractions()[2] == [2**53 + 1]


def test_the_digit_limit_sends_long_entries_to_the_general_reader():
    set_limit("digits", 30)
    try:
        assert parse_rational_strings(["1" * 31], 1, 1) is None
        with pytest.raises(InvalidInput, match="digits"):
            to_fraction("1" * 31)
    finally:
        set_limit("digits", DEFAULTS["digits"])


def test_the_shape_must_match_and_non_strings_decline():
    assert parse_rational_strings(["1", "2"], 1, 3) is None
    assert parse_rational_strings([1, "2"], 1, 2) is None
    assert parse_rational_strings(["1,2"], 1, 1) is None  # a separator inside an entry


def test_json_instances_read_through_the_bulk_path_exactly(tmp_path):
    from exactrelu.instances import planted, read_instance, write_instance

    inst = planted(d=3, k=2, m=2, n=40, seed=1)  # float64 inputs (long dyadics), exact rational labels
    path = write_instance(inst, tmp_path / "i.json")
    back = read_instance(path)
    assert back.inputs == inst.inputs and back.labels == inst.labels and back.planted.equivalent(inst.planted)
    assert np.array_equal(back.float_inputs(), inst.float_inputs())
