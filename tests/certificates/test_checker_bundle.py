"""The checker runs anywhere (issue 22, item 1): in a bare Python (``python -I -S``: no site-packages, so no FLINT
or NumPy), from the source tree and as the one-file bundle ``exactrelu checker-bundle`` writes, on every
certificate of the corpus with the exit code its MANIFEST states."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from exactrelu.certificates import checker
from exactrelu.cli import main
from exactrelu.commands.bundle import build_checker_bundle

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
REPO = Path(checker.__file__).resolve().parents[2]
ROWS = json.loads((CORPUS / "MANIFEST.json").read_text())

#: run in ``python -I -S``: every corpus row through ``main``, then the names of every module loaded that is not
#: in the standard library (there must be none outside the trusted base)
DRIVER = r"""
import contextlib, io, json, sys
sys.path.insert(0, sys.argv[1])
corpus, rows = sys.argv[2], json.loads(open(sys.argv[2] + "/MANIFEST.json").read())
from exactrelu.certificates.checker import main
verdicts = []
for row in rows:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main([corpus + "/" + row["certificate"]] + ([corpus + "/" + row["instance"]] if row["instance"] else []))
    verdicts.append([code, out.getvalue()])
foreign = sorted(m for m in sys.modules if m.split(".")[0] not in sys.stdlib_module_names)
print(json.dumps({"verdicts": verdicts, "foreign": foreign, "path": sys.path}))
"""

# (__mp_main__: the alias of __main__ that the standard library's multiprocessing, imported for --workers, makes)
TRUSTED = {"__main__", "__mp_main__", "exactrelu", "exactrelu._moved", "exactrelu.certificates", "exactrelu.certificates.checker", "exactrelu.certificates.trusted",
           *(f"exactrelu.certificates.trusted.{n[8:-3]}" for n in checker.TRUSTED_FILES if n.startswith("trusted/"))}


def _bare(*args: str) -> subprocess.CompletedProcess:
    """Run this interpreter isolated (-I) and without site-packages (-S): only the standard library is importable."""
    return subprocess.run([sys.executable, "-I", "-S", *args], capture_output=True, text=True, timeout=120)


def _assert_corpus_verdicts(report: dict) -> None:
    assert len(report["verdicts"]) == len(ROWS)
    for (code, out), row in zip(report["verdicts"], ROWS):
        assert code == row["exit"], (row["certificate"], out)
        assert row["expect"] in out, (row["certificate"], out)
    assert set(report["foreign"]) <= TRUSTED, report["foreign"]
    assert not any("site-packages" in p for p in report["path"])


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    return build_checker_bundle(tmp_path_factory.mktemp("bundle") / "exactrelu-check.pyz")


def test_the_bundle_verifies_the_whole_corpus_in_a_bare_python(bundle):
    p = _bare("-c", DRIVER, str(bundle), str(CORPUS))
    assert p.returncode == 0, p.stderr
    _assert_corpus_verdicts(json.loads(p.stdout))


def test_the_source_tree_checker_loads_nothing_outside_the_standard_library(tmp_path):
    p = _bare("-c", DRIVER, str(REPO), str(CORPUS))
    assert p.returncode == 0, p.stderr
    _assert_corpus_verdicts(json.loads(p.stdout))


@pytest.mark.parametrize("row", [ROWS[0], next(r for r in ROWS if r["exit"] == 1), next(r for r in ROWS if r["exit"] == 2),
                                 next(r for r in ROWS if r["instance"] is None)], ids=lambda r: r["certificate"])
def test_the_bundle_runs_as_a_program(bundle, row):
    argv = [str(CORPUS / row["certificate"])] + ([str(CORPUS / row["instance"])] if row["instance"] else [])
    p = _bare(str(bundle), *argv)
    assert p.returncode == row["exit"], p.stdout + p.stderr
    assert row["expect"] in p.stdout + p.stderr


def test_python_m_checker_runs_without_flint(tmp_path):
    """``python -m exactrelu.certificates.checker`` as the README shows it, from the source tree, no site-packages."""
    row = ROWS[0]
    code = (f"import runpy, sys; sys.path.insert(0, {str(REPO)!r}); "
            f"sys.argv = ['checker', {str(CORPUS / row['certificate'])!r}, {str(CORPUS / row['instance'])!r}]; "
            "runpy.run_module('exactrelu.certificates.checker', run_name='__main__', alter_sys=True)")
    p = _bare("-c", code)
    assert p.returncode == 0 and p.stdout.startswith("VALID: "), p.stdout + p.stderr
    assert _bare("-c", "import flint").returncode != 0  # the run above really had no FLINT


def test_the_bundle_holds_only_the_trusted_base_byte_for_byte(bundle):
    with zipfile.ZipFile(bundle) as z:
        names = set(z.namelist())
        source = REPO / "exactrelu" / "certificates"
        for name in checker.TRUSTED_FILES:
            assert z.read(f"exactrelu/certificates/{name}") == (source / name).read_bytes()
    expected = {f"exactrelu/certificates/{n}" for n in (*checker.TRUSTED_FILES, "trusted/__init__.py")}
    assert names == expected | {"__main__.py", "exactrelu/__init__.py", "exactrelu/certificates/__init__.py"}
    assert bundle.read_bytes().startswith(b"#!/usr/bin/env python3\n")


def test_the_build_is_reproducible_and_the_command_prints_its_hash(bundle, tmp_path, capsys):
    out = tmp_path / "again.pyz"
    out.write_text("an older file, replaced whole")
    assert main(["checker-bundle", "-o", str(out)]) == 0
    assert out.read_bytes() == bundle.read_bytes()
    assert hashlib.sha256(out.read_bytes()).hexdigest() in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["again.pyz"]  # no temporary file left behind


def test_the_command_refuses_an_unwritable_place(tmp_path, capsys):
    assert main(["checker-bundle", "-o", str(tmp_path / "missing" / "c.pyz")]) == 2
    assert "does not exist" in capsys.readouterr().err
