"""Replace, never truncate (issue 26 item 6): every file the project writes goes through
``io.files.atomic_output``, so a killed or failed write leaves the old file intact and no partial file.

Before, certificates and weights were streamed into ``open(path, "w")``: kill -9 while overwriting a valid
certificate left 0 bytes, a full disk left 16 KB of one.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.envelope import read_certificate, write_certificate
from exactrelu.errors import InvalidInput
from exactrelu.hardness.cnf import CNF, write_dimacs
from exactrelu.instances import planted, read_instance, write_instance
from exactrelu.io.files import atomic_output, write_bytes_atomic, write_text_atomic
from exactrelu.io.weights import read_weights, write_weights

ROOT = Path(__file__).resolve().parents[2]
INST = planted(d=3, k=2, m=1, n=6, seed=0, input_bits=4)


def _writers():
    """(name, write(path)) for each kind of file the project writes."""
    cert = realizes_certificate(INST, INST.planted)
    return [
        ("certificate", lambda p: write_certificate(cert, p)),
        ("weights", lambda p: write_weights(INST.planted, p)),
        ("instance-json", lambda p: write_instance(INST, p)),
        ("instance-npz", lambda p: write_instance(planted(d=2, k=1, m=1, n=4, seed=1, input_bits=8), p.with_suffix(".npz"))),
        ("dimacs", lambda p: write_dimacs(CNF(3, [[1, -2], [2, 3]]), p)),
        ("text", lambda p: write_text_atomic(p, "new\n")),
        ("bytes", lambda p: write_bytes_atomic(p, b"new")),
    ]


WRITERS = _writers()


@pytest.mark.parametrize("name,write", WRITERS, ids=[w[0] for w in WRITERS])
def test_a_full_disk_leaves_the_old_file_and_no_partial_one(tmp_path, monkeypatch, name, write):
    target = tmp_path / "out.json"
    if name == "instance-npz":
        target = target.with_suffix(".npz")
    target.write_bytes(b"OLD CONTENT")
    real_fsync = os.fsync

    def full_disk(fd):  # the data are written; the disk refuses to keep them
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(InvalidInput, match="No space left on device"):
        write(target)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert target.read_bytes() == b"OLD CONTENT"
    assert sorted(os.listdir(tmp_path)) == [target.name]  # the temporary file is gone too


@pytest.mark.parametrize("name,write", WRITERS, ids=[w[0] for w in WRITERS])
def test_a_write_replaces_the_file_and_keeps_its_mode(tmp_path, name, write):
    target = tmp_path / ("out.npz" if name == "instance-npz" else "out.json")
    target.write_bytes(b"OLD")
    os.chmod(target, 0o640)
    write(target)
    assert target.read_bytes() != b"OLD"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == [target.name]


def test_written_files_read_back(tmp_path):
    cert = realizes_certificate(INST, INST.planted)
    assert read_certificate(write_certificate(cert, tmp_path / "c.json")) == cert
    assert read_weights(write_weights(INST.planted, tmp_path / "w.json")).U == INST.planted.U
    assert read_instance(write_instance(INST, tmp_path / "i.json")).labels == INST.labels


def test_an_error_inside_the_block_keeps_the_old_file(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(ZeroDivisionError):
        with atomic_output(target) as fh:
            fh.write("half of the new")
            1 / 0
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["a.txt"]


def test_a_missing_directory_is_one_line(tmp_path):
    with pytest.raises(InvalidInput, match="cannot write certificate .*missing"):
        write_certificate({"a": 1}, tmp_path / "missing" / "c.json")


#: a writer that streams half of a certificate, says so, then waits to be killed
_HALF_WRITER = """
import sys, time
from exactrelu.certificates import envelope

def half_then_wait(obj, fh, **kw):
    fh.write('{"format": "exactrelu.certificate", "U": [')
    fh.flush()
    print("half", flush=True)
    time.sleep(120)

envelope.dump_layout = half_then_wait  # the certificate's streaming writer
envelope.write_certificate({"format": "exactrelu.certificate"}, sys.argv[1])
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_killing_the_writer_mid_file_keeps_the_old_certificate(tmp_path, sig):
    target = tmp_path / "cert.json"
    cert = realizes_certificate(INST, INST.planted)
    write_certificate(cert, target)
    old = target.read_bytes()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", _HALF_WRITER, str(target)], stdout=subprocess.PIPE, env=env,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout.readline().strip() == "half"  # the new content is half written
        assert target.read_bytes() == old
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert target.read_bytes() == old
    assert json.loads(old) == cert
    left = sorted(set(os.listdir(tmp_path)) - {"cert.json"})
    # SIGINT unwinds and removes the temporary file; SIGKILL cannot, and leaves only a hidden .tmp beside it
    assert left == [] if sig == signal.SIGINT else all(f.startswith(".cert.json.") and f.endswith(".tmp") for f in left)


def test_no_module_writes_a_file_but_through_atomic_output():
    """A streamed ``open(path, "w")``, ``write_text`` or ``savefig(path)`` anywhere in the package is a truncated
    file waiting for a kill: every writer goes through io/files.py (the sweep's append-only results.jsonl aside)."""
    import re

    pattern = re.compile(r"""open\([^)]*["'][wx]b?["']|\.write_text\(|\.write_bytes\(|savefig\((?!fh)|np\.save\((?!fh)""")
    offenders = []
    for path in sorted((ROOT / "exactrelu").rglob("*.py")):
        if path.name == "files.py" and path.parent.name == "io":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line) and not line.lstrip().startswith(">>>"):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
