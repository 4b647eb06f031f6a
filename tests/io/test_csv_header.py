"""The CSV header rule (issue 34): a first row is a header of names, or data; a malformed number is never dropped."""

from __future__ import annotations

import pytest

from exactrelu.errors import InvalidInput
from exactrelu.io.arrays import read_array


@pytest.mark.parametrize("text, rows", [
    ("x1,x2\n1,2\n", [["1", "2"]]),               # names: skipped
    ("_a;label\n1;2\n", [["1", "2"]]),
    ("1,2\n3,4\n", [["1", "2"], ["3", "4"]]),     # numbers: data
    ("0.5 3/7\n", [["1/2", "3/7"]]),
])
def test_a_first_row_of_names_is_a_header_and_of_numbers_is_data(tmp_path, text, rows):
    (tmp_path / "X.csv").write_text(text)
    assert read_array(tmp_path / "X.csv", "inputs").to_strings() == rows


@pytest.mark.parametrize("text, match", [
    ("1.2.3,4\n5,6\n", "not a rational number: '1.2.3'"),            # one entry a number: data, refused by name
    ("1.2.3,4.4.4\n5,6\n", "neither numbers nor column names: '1.2.3'"),
    ("nan,inf\n5,6\n", "neither numbers nor column names: 'nan'"),   # NaN is a value, not a name
    ("x,1\n5,6\n", "not a rational number: 'x'"),
])
def test_a_malformed_first_row_is_refused_not_dropped(tmp_path, text, match):
    (tmp_path / "X.csv").write_text(text)
    with pytest.raises(InvalidInput, match=match):
        read_array(tmp_path / "X.csv", "inputs")
