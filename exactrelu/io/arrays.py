"""One's own data as two files: inputs (n x d) and labels (n x m, or n), each an ``.npy`` array or a CSV table.

* ``.npy``: read by the strict reader of :mod:`exactrelu.io.npz` (no pickle; float64, float32, int64 or int32;
  bounded before any work); floats are the dyadic rationals they are.
* ``.csv`` (or ``.txt``, ``.tsv``): one sample per row, separated by commas (tabs, semicolons or spaces are
  recognized too); every entry is read **exactly as written**: ``0.1`` is 1/10, ``1e-3`` is 1/1000, ``3/7`` is
  3/7 (a decimal is not rounded to a float). The first row is a header of column names, and skipped, exactly
  when none of its entries is a number and each begins with a letter or ``_`` (``x1, x2, label``; ``nan`` and
  ``inf`` are no names); any other first row is data, so a malformed number there (``1.2.3``) is refused by
  name, never dropped as a header.

:func:`read_data_arrays` returns the :class:`~exactrelu.io.instance_file.InstanceParts` of the pair
(``exactrelu import`` writes them as an instance file, which the independent checker can read).

>>> import numpy as np, os, tempfile
>>> d = tempfile.mkdtemp()
>>> np.save(os.path.join(d, "X.npy"), np.array([[0.5, 1.0], [2.0, -1.0]]))
>>> _ = open(os.path.join(d, "Y.csv"), "w").write("y\\n0.1\\n3/7\\n")
>>> parts = read_data_arrays(os.path.join(d, "X.npy"), os.path.join(d, "Y.csv"))
>>> parts.inputs.shape, parts.labels.to_strings()
((2, 2), [['1/10'], ['3/7']])
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np

from ..errors import InvalidInput
from ..exact.matrix import QMatrix
from ..exact.rationals import to_fraction
from ..limits import COSTS, check_entries, check_memory
from .files import read_bytes
from .instance_file import InstanceParts
from .npz import _array

__all__ = ["read_data_arrays", "read_array", "CSV_SUFFIXES"]

CSV_SUFFIXES = (".csv", ".tsv", ".txt")


def read_data_arrays(inputs: str | os.PathLike, labels: str | os.PathLike) -> InstanceParts:
    """The parts of the instance made of an inputs file and a labels file (``.npy`` or CSV; see the module doc)."""
    X, Y = read_array(inputs, "inputs"), read_array(labels, "labels")
    if X.shape[0] != Y.shape[0]:
        raise InvalidInput(f"{inputs} has {X.shape[0]} rows but {labels} has {Y.shape[0]}: one row per sample in both")
    check_entries(X.shape[0], X.shape[1], Y.shape[1], f"{inputs} and {labels}")
    return InstanceParts(X, Y)


def read_array(path: str | os.PathLike, what: str) -> np.ndarray | QMatrix:
    """One 2-D table (a 1-D ``.npy`` is one column): a float64 / int64 array (``.npy``) or an exact matrix (CSV)."""
    path = Path(path)
    raw = read_bytes(path, what=f"{what} file")
    if raw[:6] == b"\x93NUMPY":
        return _array(raw, f"{path}")
    if path.suffix.lower() in CSV_SUFFIXES or path.suffix.lower() not in (".npy", ".npz", ".json"):
        return _csv(path, raw, what)
    hint = {".npz": "an .npz holds several arrays: pass it as the instance file (members inputs and labels), or "
                    "save each array with numpy.save",
            ".json": "a JSON file is an instance file, given without --inputs/--labels"}.get(path.suffix.lower(),
                                                                                             "not a .npy array")
    raise InvalidInput(f"{path}: --{what} takes an .npy array (numpy.save) or a CSV table; {hint}")


def _csv(path: Path, raw: bytes, what: str) -> QMatrix:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: --{what} is neither an .npy array nor a UTF-8 CSV table") from None
    sample = text[:4096]
    delimiter = "\t" if "\t" in sample else ";" if ";" in sample and "," not in sample else \
        "," if "," in sample else " "
    rows = [[x.strip() for x in r if x.strip()] for r in csv.reader(io.StringIO(text), delimiter=delimiter)]
    rows = [r for r in rows if r]
    if rows and _is_header(rows[0], path, what):
        rows = rows[1:]
    if not rows:
        raise InvalidInput(f"{path}: no rows of numbers in the {what} table")
    width = len(rows[0])
    check_memory(len(rows) * width * COSTS["instance"][0], f"{path}: {len(rows)} x {width} entries",
                 cost=f"{COSTS['instance'][0]} bytes per entry")
    for i, r in enumerate(rows):
        if len(r) != width:
            raise InvalidInput(f"{path}: row {i + 1} has {len(r)} entries, the first has {width}")
    try:
        return QMatrix.from_fractions([to_fraction(x) for r in rows for x in r], len(rows), width)
    except InvalidInput as exc:
        raise InvalidInput(f"{path}: {exc} (every entry must be a number: an integer, a decimal or p/q)") from None


#: words that are no column name: a value (refused as a number later), not a header to drop
_NOT_NAMES = {"nan", "inf", "infinity"}


def _is_header(row: list[str], path: Path, what: str) -> bool:
    """Whether the first row is a header of column names (the rule of the module doc): no entry is a number and
    every entry begins with a letter or ``_`` and is not NaN or infinity. A row of numbers is data; any other row
    (``1.2.3, 4``; ``x, 1``) is data too, and its entry that is not a number is refused where the table is read."""
    if any(_numeric(x) for x in row):
        return False
    names = all((x[:1].isalpha() or x[:1] == "_") and x.lower().lstrip("+-") not in _NOT_NAMES for x in row)
    if not names:
        bad = next(x for x in row if not (x[:1].isalpha() or x[:1] == "_") or x.lower().lstrip("+-") in _NOT_NAMES)
        raise InvalidInput(f"{path}: the first row of the {what} table is neither numbers nor column names: "
                           f"{bad[:40]!r} is not a number (a header's names begin with a letter)")
    return True


def _numeric(text: str) -> bool:
    try:
        to_fraction(text)
    except InvalidInput:
        return False
    return True
