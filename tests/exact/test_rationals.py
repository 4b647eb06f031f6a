import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.errors import InvalidInput
from exactrelu.exact.rationals import fmpq_to_fraction, format_rational, rational_root, to_fraction


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_conversion_is_exact(x):
    f = to_fraction(x)
    assert f == Fraction(x)  # Fraction(float) is exact
    assert float(f) == x
    assert to_fraction(np.float64(x)) == f


@given(st.fractions())
def test_format_parse_round_trip(f):
    text = format_rational(f)
    assert to_fraction(text) == f
    if f.denominator == 1:
        assert "/" not in text
    else:
        p, q = map(int, text.split("/"))
        assert q > 1 and math.gcd(p, q) == 1


@pytest.mark.parametrize("text,value", [("0.25", Fraction(1, 4)), ("1e-3", Fraction(1, 1000)), ("-6/4", Fraction(-3, 2)),
                                        (" 7 ", Fraction(7)), ("+3/9", Fraction(1, 3)), (".5", Fraction(1, 2)),
                                        ("1E+2", Fraction(100))])
def test_strings(text, value):
    assert to_fraction(text) == value


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -np.inf, np.float64("nan"), True, "abc", "", "1/0", "1/2/3",
                                 "0x10", "1,5", None, [1], "nan", "inf"])
def test_rejects(bad):
    with pytest.raises(InvalidInput):
        to_fraction(bad)


def test_flint_types_and_pitfall():
    q = flint.fmpq(1, 3)
    assert q != Fraction(1, 3)  # the silent pitfall: never compare across types
    assert to_fraction(q) == Fraction(1, 3) == fmpq_to_fraction(q)
    assert to_fraction(flint.fmpz(2) ** 100) == 2**100


def test_subnormal_and_extremes():
    for x in (5e-324, 2.2250738585072014e-308, 1e-300, 1.7976931348623157e308):
        assert to_fraction(x) == Fraction(x)


@given(st.fractions(min_value=0, max_value=10**6), st.integers(1, 5))
def test_rational_root(f, c):
    r = rational_root(f**c, c)
    assert r == f
    r2 = rational_root(f, c)
    assert r2 is None or r2**c == f


def test_rational_root_negative_and_non_power():
    assert rational_root(Fraction(-8), 3) is None
    assert rational_root(Fraction(2, 9), 2) is None
