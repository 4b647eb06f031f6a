"""The one validation vocabulary (exactrelu/validation.py; issue 35 item 4): its rules, its message style, the
argparse types that apply the same rules to the command line's text, and that no module writes its own
positive-integer check any more."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from exactrelu.errors import InvalidInput
from exactrelu.validation import (as_generator, check_flag, check_integer, check_k, check_nonnegative_integer,
                                  check_number, check_positive_integer, check_seed, normalize_rows)
from exactrelu.arguments import integer_arg, number_arg, positive_int_arg, seconds_arg, seed_arg

PACKAGE = Path(__file__).resolve().parents[2] / "exactrelu"


@given(st.integers(-10**30, 10**30), st.integers(-5, 5), st.integers(0, 10))
def test_check_integer_accepts_exactly_the_integers_in_range(value, lo, width):
    hi = lo + width
    if lo <= value <= hi:
        assert check_integer(value, "x", minimum=lo, maximum=hi) == value
        assert check_integer(np.int64(value), "x", minimum=lo, maximum=hi) == value if abs(value) < 2**62 else True
    else:
        with pytest.raises(InvalidInput, match=rf"^x must be an integer from {lo} to {hi}, got "):
            check_integer(value, "x", minimum=lo, maximum=hi)


@pytest.mark.parametrize("bad", [True, False, 2.0, "3", None, [1], float("nan"), 1 + 0j])
def test_non_integers_are_refused_by_every_integer_check(bad):
    for check in (check_positive_integer, check_nonnegative_integer):
        with pytest.raises(InvalidInput, match=r"must be a (positive|non-negative) integer, got "):
            check(bad, "n")
    with pytest.raises(InvalidInput, match=r"^k \(the number of hidden units\) must be a positive integer, got "):
        check_k(bad)


def test_none_is_accepted_only_when_asked():
    assert check_positive_integer(None, "--workers", none_ok=True) is None
    with pytest.raises(InvalidInput, match="--workers must be a positive integer or None, got 0"):
        check_positive_integer(0, "--workers", none_ok=True)


def test_seeds_are_none_non_negative_integers_or_generators():
    rng = np.random.default_rng(3)
    assert check_seed(None) is None and check_seed(np.int32(4)) == 4 and check_seed(rng) is rng
    assert as_generator(rng) is rng
    assert as_generator(5).integers(1000) == np.random.default_rng(5).integers(1000)
    for bad in (-1, True, 1.5, "0", object()):
        with pytest.raises(InvalidInput, match="^random_state must be None, a non-negative integer or a numpy "):
            as_generator(bad, "random_state")


def test_numbers_and_flags():
    assert check_number(3, "noise", minimum=0) == 3.0 and check_number(np.float32(0.5), "t", maximum=1) == 0.5
    assert check_number(None, "t", none_ok=True) is None
    for bad in (float("inf"), float("nan"), -0.1, True, "1"):
        with pytest.raises(InvalidInput, match=r"^noise must be a finite number >= 0, got "):
            check_number(bad, "noise", minimum=0)
    with pytest.raises(InvalidInput, match=r"must be a finite number > 0 and <= 2, got 3"):
        check_number(3, "s", minimum=0, maximum=2, strict=True)
    assert check_flag(np.bool_(True), "bias") is True
    with pytest.raises(InvalidInput, match="bias must be True or False, got 'yes'"):
        check_flag("yes", "bias")


def test_a_long_value_is_cut_in_the_message():
    with pytest.raises(InvalidInput) as exc:
        check_positive_integer("x" * 10_000, "n")
    assert len(str(exc.value)) < 120 and str(exc.value).endswith("...")


def test_normalize_rows_has_no_overflow_and_keeps_zero_rows():
    A = np.array([[3e300, 4e300], [0.0, 0.0], [3e-320, 4e-320], [-1.0, 0.0]])
    assert normalize_rows(A).tolist() == [[0.6, 0.8], [0.0, 0.0], [0.6, 0.8], [-1.0, 0.0]]


def test_the_argparse_types_apply_the_same_rules_to_text():
    assert positive_int_arg("2e5") == 200_000 and positive_int_arg(" 7 ") == 7 and seed_arg("0") == 0
    assert integer_arg(0, 40)("40") == 40 and number_arg(0, 1)("1e-3") == 0.001 and seconds_arg("0") == 0.0
    cases = [(positive_int_arg, "0", "must be a positive integer, got '0'"),
             (positive_int_arg, "2.5", "must be an integer, got '2.5'"),
             (positive_int_arg, "1e400", "must be an integer, got '1e400'"),
             (positive_int_arg, "9" * 40, "must be an integer, got '9999"),
             (seed_arg, "-1", "must be a non-negative integer, got '-1'"),
             (integer_arg(0, 40), "41", "must be an integer from 0 to 40, got '41'"),
             (seconds_arg, "nan", "must be a finite number >= 0 (seconds), got 'nan'"),
             (seconds_arg, "-inf", "must be a finite number >= 0 (seconds), got '-inf'"),
             (number_arg(0, strict=True), "abc", "must be a finite number > 0, got 'abc'")]
    for parse, text, message in cases:
        with pytest.raises(argparse.ArgumentTypeError) as exc:
            parse(text)
        assert str(exc.value).startswith(message), (text, str(exc.value))


def test_the_command_line_names_the_option_in_front(capsys):
    from exactrelu.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["fit", "i.json", "-k", "2", "-o", "w.json", "--seed", "-1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2
    assert err[-1] == ("exactrelu: error: argument --seed: must be a non-negative integer, got '-1' "
                       "(see 'exactrelu fit --help')")


#: hand-written checks that are not counts: literals of a formula (non-zero, in [-N, N]) checked in a hot loop
ALLOWED = {("hardness/cnf.py", "lit")}
HAND_WRITTEN = re.compile(r"isinstance\((\w+(?:\.\w+)?), bool\) or not isinstance\(")


def test_no_module_writes_its_own_integer_check():
    """The sign that a validation vocabulary is missing (STYLE.md 21): ``isinstance(x, bool) or not isinstance(x,
    int)`` by hand. The trusted checker keeps its own (it imports nothing of exactrelu)."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(("certificates/trusted/", "certificates/checker")) or rel == "validation.py":
            continue
        for name in HAND_WRITTEN.findall(path.read_text()):
            if (rel, name) not in ALLOWED:
                found.append(f"{rel}: {name}")
    assert not found, found


def test_one_check_of_k_and_one_row_normalization():
    from exactrelu.propose import floats
    from exactrelu.recover import views

    assert views.check_k is check_k and floats.check_k is check_k  # the old import paths, kept for one release
    with pytest.warns(DeprecationWarning, match="normalised_rows moved to exactrelu.validation.normalize_rows"):
        assert floats.normalised_rows is normalize_rows
    assert floats.normalize_rows is normalize_rows
    text = "\n".join(p.read_text() for p in PACKAGE.rglob("*.py") if p.name != "validation.py")
    assert "def check_k" not in text and "def normalize_rows" not in text and "def normalised_rows" not in text
