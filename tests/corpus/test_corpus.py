"""The certificate corpus on disk (issue 20, item 8): every file through the checker, in a subprocess and in-process.

``tests/corpus/MANIFEST.json`` states each file's instance, exit code (0 valid, 1 invalid, 2 unreadable), reason and
the text the checker's one line must contain; ``make_corpus.py`` writes the files from fixed seeds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from exactrelu.certificates import checker
from exactrelu.decide.search.sat.upgrade import upgrade_certificate
from exactrelu.errors import CertificateInvalid

HERE = Path(__file__).resolve().parent
ROWS = json.loads((HERE / "MANIFEST.json").read_text())


def _argv(row) -> list[str]:
    return [str(HERE / row["certificate"])] + ([str(HERE / row["instance"])] if row["instance"] else [])


@pytest.mark.parametrize("row", ROWS, ids=[r["certificate"] for r in ROWS])
def test_the_checker_command_gives_each_verdict(row):
    p = subprocess.run([sys.executable, "-m", "exactrelu.certificates.checker", *_argv(row)], capture_output=True,
                       text=True, timeout=60)
    out = p.stdout + p.stderr
    assert p.returncode == row["exit"], out
    assert row["expect"] in out and out.count("\n") == 1, out  # one line, naming the reason
    assert out.startswith({0: "VALID: ", 1: "INVALID: ", 2: "error: "}[row["exit"]])


@pytest.mark.parametrize("row", ROWS, ids=[r["certificate"] for r in ROWS])
def test_the_checker_in_process_gives_each_verdict(row, capsys):
    assert checker.main(_argv(row)) == row["exit"]
    captured = capsys.readouterr()
    assert row["expect"] in captured.out + captured.err


def test_the_corpus_covers_every_claim_valid_and_invalid():
    claims = {"valid": set(), "invalid": set()}
    for row in ROWS:
        try:
            claim = json.loads((HERE / row["certificate"]).read_bytes()).get("claim")
        except (ValueError, AttributeError):
            continue
        claims[row["certificate"].split("/")[0]].add(claim if isinstance(claim, str) else repr(claim))
    assert claims["valid"] == claims["invalid"] - {"realises", "[]", "{}"} == set(checker.CLAIMS)
    kinds = {name: any(name in r["certificate"] for r in ROWS) for name in (
        "realizes-b", "realizes-bc", "realizes-except", "residual", "lp-feasible", "lp-infeasible", "tree-given",
        "tree-unknown", "lrat-given", "lrat-unknown", "span", "rank-k+1", "rank-k+2", "drup-retired", "drup-forged")}
    assert all(kinds.values()), kinds
    assert {r["exit"] for r in ROWS} == {0, 1, 2}
    assert all(r["reason"] and r["expect"] for r in ROWS)
    assert all((r["exit"] == 0) == r["certificate"].startswith("valid/") for r in ROWS)


def test_the_corpus_is_small_and_listed_completely():
    files = [p for sub in ("instances", "valid", "invalid") for p in (HERE / sub).iterdir()]
    assert sum(p.stat().st_size for p in files) < 1_000_000
    listed = {r["certificate"] for r in ROWS} | {r["instance"] for r in ROWS if r["instance"]}
    assert {p.relative_to(HERE).as_posix() for p in files} == listed  # no stray file, none missing


def test_the_corpus_is_what_its_generator_writes():
    sys.path.insert(0, str(HERE))
    try:
        import make_corpus
    finally:
        sys.path.remove(str(HERE))
    assert make_corpus.main(["--check"]) == 0


def test_old_drup_certificates_upgrade_and_the_issue_26_forgery_does_not(tmp_path):
    """The honest DRUP certificate becomes a valid hinted one; the forgery's steps do not refute anything."""
    inst = checker.load_instance(str(HERE / "instances" / "nae.json"))
    old = json.loads((HERE / "invalid" / "drup-retired.json").read_text())
    assert "hinted steps checked" in checker.check(upgrade_certificate(old, inst), inst)
    tiny = checker.load_instance(str(HERE / "instances" / "tiny.json"))
    forged = json.loads((HERE / "invalid" / "drup-forged-issue-26.json").read_text())
    assert [7] in forged["cases"][0]["rup"] and len(forged["cases"][0]["lemmas"]) >= 20
    with pytest.raises(CertificateInvalid, match="does not refute"):
        upgrade_certificate(forged, tiny)
