"""The reference checker's bulk reading of integer rows (trusted/instance.py ``_canonical_text``, the hardness source
route's instances), the entry types it collects per row, and the source route's shared small Fractions and template
indices (trusted/refutation.py ``_fraction``, ``_indices``): each line is needed. Mutants left alive, each
equivalent: the table of shared Fractions made larger (``range(-17, 17)``, ``range(-16, 18)``: entries never read),
and ``compress(range(len(row[0])), ...)`` -> ``len(row[1])`` (numerators and denominators are lists of one length).

A row with no "/" is read by one ``json.loads`` with no "/1" added. The tests pin that it reads exactly the
entries' integers, in bulk (not through the regular expression of rows with "/"), and that every row it cannot
read in bulk falls back to the entry-by-entry reader with that reader's verdict. Each test names the mutant of
``benchmarks/mutate_checker.py`` it kills.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.trusted import instance as trusted_instance
from exactrelu.certificates.trusted.instance import _canonical_text, _parsed_row, load_instance, parsed_instance


class _NoRegex:
    """Stands for ``_INTEGER_ENTRY``: any use fails the test (a row of integers is read without it)."""

    def subn(self, *args):
        raise AssertionError("a row of integers went through the regular expression of rows with '/'")


def test_a_row_of_integers_is_read_in_one_pass_without_the_regular_expression(monkeypatch):
    """Mutants: ``"/" not in text`` -> ``in`` / the condition True or False; ``len(nums) == len(row)`` -> ``!=``."""
    monkeypatch.setattr(trusted_instance, "_INTEGER_ENTRY", _NoRegex())
    assert _canonical_text(["1", "-2", "0", "30"], "1 -2 0 30") == ([1, -2, 0, 30], [1, 1, 1, 1])
    assert _canonical_text(["7"], "7") == ([7], [1])
    assert _parsed_row(["12", "-5"], 4300) == ("12 -5", [12, -5], [1, 1])


def test_a_row_with_a_fraction_is_still_read_in_bulk():
    """Mutant: the integers-only branch taken for every row (its json.loads refuses "3/4": read entry by entry)."""
    assert _canonical_text(["3/4", "1"], "3/4 1") == ([3, 1], [4, 1])
    assert _canonical_text(["-1/2", "5/3"], "-1/2 5/3") == ([-1, 5], [2, 3])


@pytest.mark.parametrize("row", [["01", "2"], ["1", "-"], ["2", "--3"], ["1-2"]])
def test_integer_rows_json_refuses_are_left_to_the_entry_reader(row):
    """Mutant: ``return None`` after json's ValueError deleted (the row then reads an unbound list)."""
    assert _canonical_text(row, " ".join(row)) is None


def test_an_empty_entry_is_not_a_row_of_no_entries():
    """``json.loads("[]")`` reads the text of the row [""] as no entry at all (mutant: the length check flipped or
    dropped: a row of d = 1 read as a row of 0 entries, with the text "" hashed)."""
    assert _canonical_text([""], "") is None
    with pytest.raises(checker.UnreadableInput, match="not a rational"):
        parsed_instance([[""]], [["1"]])


def test_integer_rows_are_read_as_integers_over_one():
    """Mutants: the denominators ``[1] * len(nums)`` -> ``[2] * ...`` or ``[0] * ...`` (every entry halved, or a
    division by zero): the numbers must be what the hashed text says."""
    X, Y, _ = parsed_instance([["3", "-4"], ["0", "5"]], [["1"], ["-2"]])
    assert X == [([3, -4], [1, 1]), ([0, 5], [1, 1])] and Y == [([1], [1]), ([-2], [1])]


@pytest.mark.parametrize("bad", [True, 1.5, None, [1], {"a": 1}])
def test_entries_of_other_json_types_are_unreadable(tmp_path, bad):
    """The entry types collected per row (mutants: the subset test flipped or deleted, the raise deleted): a bool, a
    float, null, a list or an object among the entries is refused before any number is read."""
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({"format": "exactrelu.instance", "version": 1, "inputs": [["1", 2], ["3", bad]],
                                "labels": [["1"], ["2"]]}))
    with pytest.raises(checker.UnreadableInput, match="entries must be rational strings or JSON integers"):
        load_instance(str(path))
    path.write_text(json.dumps({"format": "exactrelu.instance", "version": 1, "inputs": [["1", 2], ["3", "4"]],
                                "labels": [["1"], [bad]]}))
    with pytest.raises(checker.UnreadableInput, match="'labels' entries must be"):
        load_instance(str(path))


def test_strings_and_integers_together_are_readable(tmp_path):
    """The subset test accepts exactly {str, int} and its subsets (mutant: ``<=`` -> ``<``)."""
    path = tmp_path / "inst.json"
    for inputs in ([["1", 2], ["3", "4"]], [[1, 2], [3, 4]], [["1", "2"], ["3", "4"]]):
        path.write_text(json.dumps({"format": "exactrelu.instance", "version": 1, "inputs": inputs,
                                    "labels": [["1"], ["2"]]}))
        assert load_instance(str(path))["parsed"][0] == [([1, 2], [1, 1]), ([3, 4], [1, 1])]


def test_small_integers_are_shared_fractions_of_the_same_value():
    """refutation._fraction (the source route's entries -16..16 shared): the value is always p / q (mutants: ``q == 1``
    flipped, ``and`` -> ``or``, the bounds of the shared range moved past the table: a wrong value or a KeyError),
    and every entry of -16..16 over 1 is the one shared object (mutants: the range checked narrower)."""
    from fractions import Fraction

    from exactrelu.certificates.trusted.refutation import _fraction

    for p in range(-40, 41):
        for q in (1, 2, 3, 7):
            if p % q or q == 1:
                assert _fraction(p, q) == Fraction(p, q) and type(_fraction(p, q)) is Fraction
    assert all(_fraction(p, 1) is _fraction(p, 1) for p in range(-16, 17))


@pytest.mark.parametrize("values, n, expected", [
    ([], 0, True), ([0, 2], 3, True), ([2, 0, 1], 3, True), ([3], 3, False), ([0, 3], 3, False), ([-1], 3, False),
    ([True], 3, False), ([0, 1.0], 3, False), (["1"], 3, False), ([0, None], 3, False)])
def test_template_indices_are_ints_in_range(values, n, expected):
    """refutation._indices reads a template instance's samples and coordinates as is_pair does (mutants: the type test
    flipped, ``0 <= min`` -> ``<``, ``max < n`` -> ``<=``, ``not values or`` dropped): ints, not bools, in range(n)."""
    from exactrelu.certificates.trusted.refutation import _indices

    assert bool(_indices(values, n)) is expected


@pytest.mark.parametrize("sample", [14, -1, True, "0"])
def test_a_template_instance_naming_a_sample_out_of_range_is_refused(sample):
    """A template instance's samples are checked as its coordinates are (mutant: ``_indices(inst[0], len(X))`` ->
    ``_indices(inst[1], len(X))``: the samples unchecked, X[14] raised IndexError, X[-1] read the last sample)."""
    corpus = Path(__file__).resolve().parents[1] / "corpus"
    cert = json.loads((corpus / "valid" / "lrat-given.json").read_text())
    inst = load_instance(str(corpus / "instances" / "nae.json"))
    assert len(inst["parsed"][0]) == 14
    cert["cases"][0]["templates"][0]["instances"][1][0][0] = sample
    with pytest.raises(checker.CheckFailed, match="bad template instance"):
        checker.check(cert, inst)
