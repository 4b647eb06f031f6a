"""The bulk reader of rational strings (exact/codecs/text.py) agrees with the entry-by-entry reader, or declines.

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
from exactrelu.exact.codecs.text import parse_rational_strings as _parse
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


def _text(f: Fraction) -> str:
    return str(f) if f.denominator != 1 else str(f.numerator)


float_text = st.floats(-2.0**52, 2.0**52).map(lambda x: _text(Fraction(x)))  # numerators below 2**53: float64s


@settings(max_examples=200, deadline=None)
@given(st.lists(float_text, min_size=1, max_size=20))
def test_float64_text_is_read_as_the_float64_it_is(flat):
    """Float data (issue 22: a 45 MB instance): numerators below 2**53 over powers of two, the few denominators
    of small entries longer than 18 digits (2**60 and beyond) read one by one, the rest in bulk."""
    fast = _parse(flat, 1, len(flat))
    assert isinstance(fast, np.ndarray)
    assert [Fraction(float(x)) for x in fast[0]] == [Fraction(x) for x in flat]
    big = flat + [_text(Fraction(1e300)), _text(Fraction(5e-324))]  # a 301-digit integer: exact, over FLINT
    assert parse_rational_strings(big, 1, len(big)).to_fractions()[0] == [Fraction(x) for x in big]


def test_an_entry_that_would_round_into_the_subnormals_is_kept_exact():
    """3 / 2**1075 is no float64 (it rounded to 2**-1073 before): the exact path takes it, unrounded."""
    for flat in (["3/" + str(2**1075)], ["1/2", "3/" + str(2**1075)], ["-5/" + str(2**1080), "1/" + str(2**70)]):
        fast = parse_rational_strings(flat, 1, len(flat))
        assert fast.to_fractions()[0] == [Fraction(x) for x in flat]
    assert isinstance(_parse(["1/" + str(2**1074), "-3/" + str(2**1073)], 1, 2), np.ndarray)  # subnormal, exact


def test_long_numerators_and_long_odd_denominators_go_to_flint():
    flat = ["3/" + str(2**70), "1" * 25 + "/2", "1/" + str(3**50), "-7"]
    fast = _parse(flat, 2, 2)
    assert not isinstance(fast, np.ndarray)
    assert parse_rational_strings(flat, 2, 2).to_fractions() == [[Fraction(flat[0]), Fraction(flat[1])],
                                                                  [Fraction(flat[2]), -7]]
    assert _parse(["1/-" + str(2**70)], 1, 1) is None and _parse(["1/0", "1/" + str(2**70)], 1, 2) is None
