"""The line width of the house: 120 characters (``[tool.ruff] line-length`` in pyproject.toml), kept by a ratchet.

Every Python file under ``exactrelu/``, ``tests/`` and ``benchmarks/`` may have at most as many lines over
:data:`WIDTH` characters as ``line_width_baseline.json`` (next to this file) allows it; a file it does not name may
have none. The baseline holds the lines that were already longer when the width was set (issue 35: 451 lines in
195 files of main, and 15 more in the branches open then). It may only shrink: rewrap a file's long lines and lower
(or delete) its entry; never raise an entry or add one. A file renamed takes its entry with it (the new path has
none). docs/design.md, "Code".
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the widest line allowed, in characters (not bytes)
WIDTH = 120
#: the folders whose Python files are measured
FOLDERS = ("exactrelu", "tests", "benchmarks")
BASELINE = Path(__file__).with_name("line_width_baseline.json")


def long_lines(path: Path) -> list[int]:
    """The numbers (from 1) of the lines of ``path`` over :data:`WIDTH` characters."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [i for i, line in enumerate(lines, 1) if len(line) > WIDTH]


def measured() -> dict[str, list[int]]:
    """Every measured file with a line over the width -> those lines (paths relative to the repository, with /)."""
    out = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts and (found := long_lines(path)):
                out[path.relative_to(ROOT).as_posix()] = found
    return out


def test_the_width_is_configured_where_the_tools_read_it():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["ruff"]["line-length"] == WIDTH


def test_no_file_has_more_long_lines_than_its_baseline():
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    over = {path: lines for path, lines in measured().items() if len(lines) > baseline.get(path, 0)}
    report = "; ".join(f"{path}: {len(lines)} lines over {WIDTH} characters (allowed {baseline.get(path, 0)}), "
                       f"lines {lines[:8]}" for path, lines in sorted(over.items()))
    assert not over, f"wrap these lines at {WIDTH} characters (tests/runtime/test_line_width.py): {report}"


def test_the_baseline_holds_positive_counts_of_measured_files():
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    assert all(isinstance(n, int) and n > 0 for n in baseline.values()), "counts are positive integers (0: delete it)"
    assert all(path.startswith(tuple(f"{f}/" for f in FOLDERS)) for path in baseline)


def test_the_ratchet_catches_a_long_line(tmp_path):
    """The measure itself: a line of WIDTH characters passes, one more character is caught, in characters."""
    path = tmp_path / "m.py"
    path.write_text("x" * WIDTH + "\n" + "é" * (WIDTH + 1) + "\n" + "y" * (WIDTH + 1), encoding="utf-8")
    assert long_lines(path) == [2, 3]
