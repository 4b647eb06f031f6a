"""The hostile weights and data files of issue 34 (exactrelu/testing/hostile_files.py): each refused in one line,
exit 2, before any work; benchmarks/bench_hostile.py times them in child processes (each under a second)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from exactrelu.cli import main
from exactrelu.testing import hostile_files

CASES = [b for b in hostile_files.BUILDERS]


@pytest.mark.parametrize("build", CASES, ids=[b.__name__ for b in CASES])
def test_each_hostile_file_is_refused_in_one_line(tmp_path, capsys, build):
    case = build(tmp_path)
    if case is None:
        pytest.skip("the package that writes this file is not installed")
    assert main(case.argv) == case.expect
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1 and "Traceback" not in out.err


def test_a_pickle_that_would_run_code_is_refused_without_torch(tmp_path):
    """The pickle is read by pickletools (which runs nothing) before torch is imported: no code runs, at once."""
    case = hostile_files.pickle_that_runs_code(tmp_path)
    code = ("import sys; from exactrelu.cli import main; rc = main(sys.argv[1:]); "
            "print('torch' in sys.modules); sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code, *case.argv], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stdout.strip() == "False"
    assert "this file ran code" not in out.stdout + out.stderr
    assert "names posix.system" in out.stderr or "names nt.system" in out.stderr
