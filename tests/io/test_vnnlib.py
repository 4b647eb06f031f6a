"""The input box of a VNN-LIB property: read exactly, every refusal one line (exactrelu/io/vnnlib.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactrelu.errors import InvalidInput
from exactrelu.io.vnnlib import parse_vnnlib, read_vnnlib

HEAD = "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n"


def test_bounds_in_both_orders_in_a_conjunction_with_comments_and_negative_constants():
    text = HEAD + """; ACAS Xu style
(assert (<= X_0 0.679858))  ; a comment after
(assert (and (>= X_0 (- 0.5)) (<= -1/3 X_1) (>= 2e-1 X_1)))
(assert (>= X_0 -0.25))
(assert (<= Y_0 Y_0))
(assert (or (<= Y_0 1) (>= Y_0 2)))
"""
    with pytest.raises(InvalidInput, match="not a bound of one variable by a constant"):
        parse_vnnlib(text)  # Y_0 <= Y_0 relates two variables
    box = parse_vnnlib(text.replace("(assert (<= Y_0 Y_0))\n", "").replace("(assert (or (<= Y_0 1) (>= Y_0 2)))",
                                                                           "(assert (<= Y_0 1))"))
    assert box.lower == [Fraction(-1, 4), Fraction(-1, 3)]      # the tighter of -0.5 and -0.25: the conjunction
    assert box.upper == [Fraction(679858, 10**6), Fraction(1, 5)]
    assert box.outputs == 1


@pytest.mark.parametrize("text, message", [
    (HEAD + "(assert (<= X_0 1)) (assert (>= X_0 0))", "X_1 has no lower bound"),
    (HEAD + "(assert (<= X_0 1)) (assert (>= X_0 0)) (assert (>= X_1 0))", "X_1 has no upper bound"),
    (HEAD + "(assert (< X_0 1))", "strict bound"),
    (HEAD + "(assert (<= X_0 X_1))", "not a bound of one variable"),
    (HEAD + "(assert (<= X_0 1 2))", "not a bound of one variable"),
    (HEAD + "(assert (or (<= X_0 1) (>= X_0 0)))", "not a bound of one variable"),
    (HEAD + "(assert (<= (+ X_0 X_1) 1))", "not a bound of one variable"),
    (HEAD + "(assert (<= X_0 (* 2 3)))", "not a bound of one variable"),
    (HEAD + "(assert (<= X_0 1) (>= X_0 0))", "an assertion has one expression"),
    (HEAD + "(check-sat)", "neither a declaration nor an assertion"),
    (HEAD + "X_0", "neither a declaration nor an assertion"),
    ("(declare-const X_0 Int)", "only Real variables"),
    ("(declare-const Z_0 Real)", "only Real variables"),
    ("(declare-const X_01 Real)", "only Real variables"),
    ("(declare-const X_0 Real) (declare-const X_0 Real)", "declared twice"),
    ("(declare-const X_1 Real) (assert (<= X_1 1)) (assert (>= X_1 0))", "not X_0 .. X_0"),
    ("(declare-const Y_0 Real)", "declares no input"),
    ("(declare-const X_0 Real))", "unmatched '\\)'"),
    ("(declare-const X_0 Real", "ends inside an expression"),
    ("(" * 100 + ")" * 100, "nested deeper than 64"),
    ("(declare-const X_0 Real) (assert (<= X_0 1e999999999))", "over the limit digits"),
    ("(declare-const X_0 Real) (assert (<= X_0 1/0))", "zero|denominator"),
])
def test_every_refusal_is_one_line(text, message):
    with pytest.raises(InvalidInput, match=message):
        parse_vnnlib(text)


def test_a_file_not_utf8_and_a_missing_file(tmp_path):
    bad = tmp_path / "bad.vnnlib"
    bad.write_bytes(b"(declare-const X_0 Real)\xff\xfe")
    with pytest.raises(InvalidInput, match="not UTF-8"):
        read_vnnlib(bad)
    good = tmp_path / "good.vnnlib"
    good.write_text("(declare-const X_0 Real)(assert (>= X_0 0))(assert (<= X_0 1))")
    assert read_vnnlib(good).upper == [1]
    with pytest.raises(InvalidInput, match="no such VNN-LIB file"):
        read_vnnlib(tmp_path / "missing.vnnlib")


def test_a_hostile_file_is_refused_at_once():
    """A million nested parentheses and a long run of tokens cost linear time and no recursion."""
    with pytest.raises(InvalidInput, match="nested deeper"):
        parse_vnnlib("(" * 10**6)
    text = "(declare-const X_0 Real)(assert (and " + "(<= X_0 1) " * 20000 + "(>= X_0 0)))"
    assert parse_vnnlib(text).upper == [1]
