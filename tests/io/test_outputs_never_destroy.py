"""Outputs never destroy (issue 34 item 2): ``-o`` onto an input, a directory or into a missing directory is
refused before any work, for every command; a character device or FIFO is written directly (never replaced by a
file), a symbolic link at its target; temporary files are removed on every exit path, and those of a killed run
are removed the next time that target is written. No test writes a real device but /dev/null."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.instances import planted, write_instance
from exactrelu.io.files import atomic_output, protect_inputs, writable, write_text_atomic
from exactrelu.io.weights import write_weights

ROOT = Path(__file__).resolve().parents[2]
INST = planted(d=3, k=2, m=1, n=20, seed=0, input_bits=4)


@pytest.fixture
def files(tmp_path):
    inst = write_instance(INST, tmp_path / "inst.json")
    weights = write_weights(INST.planted, tmp_path / "w.json")
    np.save(tmp_path / "X.npy", INST.inputs.to_float())
    np.save(tmp_path / "Y.npy", INST.labels.to_float())
    return {"inst": str(inst), "w": str(weights), "X": str(tmp_path / "X.npy"), "Y": str(tmp_path / "Y.npy"),
            "dir": str(tmp_path)}


def commands(f: dict, out: str) -> list[list[str]]:
    """One invocation of every command that writes a file, each writing ``out``."""
    return [["recover", f["inst"], "-k", "2", "-o", out], ["fit", f["inst"], "-k", "2", "-o", out],
            ["fit", f["inst"], "-k", "2", "-o", f["dir"] + "/fit.json", "--certificate", out],
            ["certify", f["inst"], "--weights", f["w"], "-o", out], ["solve", f["inst"], "-k", "2", "-o", out],
            ["demo", "-d", "3", "-k", "2", "-m", "1", "-n", "20", "-o", out],
            ["generate", "-d", "3", "-k", "2", "-m", "1", "-n", "20", "-o", out],
            ["import", "--inputs", f["X"], "--labels", f["Y"], "-o", out], ["equiv", f["w"], f["w"], "-o", out],
            ["minimize", f["w"], "-o", out], ["extract", "--oracle", f["w"], "-o", out],
            ["hardness", "random", "--vars", "3", "--clauses", "2", "-o", out], ["checker-bundle", "-o", out]]


def _no_work(monkeypatch):
    """Make every command's work fail loudly: a refusal must come before it."""
    import exactrelu.cli as cli

    real = cli._Parser.parse_args

    def parse(self, *a, **k):
        args = real(self, *a, **k)
        if getattr(args, "func", None):
            args.func = lambda args: pytest.fail(f"{args.command} ran before its output was refused")
        return args

    monkeypatch.setattr(cli._Parser, "parse_args", parse)


@pytest.mark.parametrize("where", ["directory", "missing directory"])
def test_every_command_refuses_a_directory_or_a_missing_one_before_any_work(files, tmp_path, capsys, monkeypatch,
                                                                             where):
    _no_work(monkeypatch)
    out = str(tmp_path) if where == "directory" else str(tmp_path / "missing" / "x.json")
    for argv in commands(files, out):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ("it is a directory" if where == "directory" else "does not exist") in err


def test_an_output_onto_an_input_is_refused_before_any_work(files, tmp_path, capsys, monkeypatch):
    """``recover inst.json -k 2 -o inst.json`` replaced the instance with its certificate."""
    _no_work(monkeypatch)
    before = {k: Path(v).read_bytes() for k, v in files.items() if k != "dir"}
    (tmp_path / "link.json").symlink_to(files["inst"])
    for out in (files["inst"], str(tmp_path / "link.json"), str(tmp_path / "." / "inst.json")):
        assert main(["recover", files["inst"], "-k", "2", "-o", out]) == 2
        assert "it is an input of this command" in capsys.readouterr().err
    for argv in (["certify", files["inst"], "--weights", files["w"], "-o", files["w"]],
                 ["minimize", files["w"], "-o", files["w"]], ["import", "--inputs", files["X"], "--labels", files["Y"],
                                                              "-o", files["Y"]],
                 ["fit", files["inst"], "-k", "2", "-o", str(tmp_path / "f.json"), "--certificate", files["inst"]]):
        assert main(argv) == 2, argv
        assert "it is an input of this command" in capsys.readouterr().err
    assert before == {k: Path(v).read_bytes() for k, v in files.items() if k != "dir"}


def test_a_derived_output_is_held_to_the_same_rule(files, tmp_path, capsys):
    """certify's default output INSTANCE.cert.json is refused when it is the weights file given."""
    weights = tmp_path / "inst.json.cert.json"
    weights.write_bytes(Path(files["w"]).read_bytes())
    assert main(["certify", files["inst"], "--weights", str(weights)]) == 2
    assert "it is an input of this command" in capsys.readouterr().err
    assert weights.read_bytes() == Path(files["w"]).read_bytes()


def test_a_fifo_is_written_directly_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_text_atomic(fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert got == [b"through the pipe\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["out.fifo"]


def test_dev_null_is_written_directly_and_stays_a_device(files, capsys):
    assert writable("/dev/null") == Path("/dev/null")
    assert main(["equiv", files["w"], files["w"], "-o", "/dev/null"]) == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not [n for n in os.listdir("/dev") if n.startswith(".null.")]


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(InvalidInput, match="it is a socket, not a file"):
            writable(path)
        with pytest.raises(InvalidInput, match="it is a socket, not a file"):
            write_text_atomic(path, "x")


def test_a_symlink_is_followed_and_its_target_replaced(tmp_path):
    target = tmp_path / "real" / "cert.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "cert.json"
    link.symlink_to(target)
    write_text_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(os.listdir(tmp_path)) == ["cert.json", "real"] and os.listdir(target.parent) == ["cert.json"]
    dangling = tmp_path / "d.json"
    dangling.symlink_to(tmp_path / "real" / "new.json")
    write_text_atomic(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "real" / "new.json").read_text() == "made"


@pytest.mark.parametrize("error", [RuntimeError("caller"), KeyboardInterrupt()], ids=["exception", "Ctrl-C"])
def test_the_temporary_file_is_removed_on_every_exit_path(tmp_path, error):
    target = tmp_path / "out.json"
    with pytest.raises(type(error)):
        with atomic_output(target) as fh:
            fh.write("half")
            raise error
    assert os.listdir(tmp_path) == []


_KILLED_WRITER = """
import sys, time
from exactrelu.io.files import atomic_output
with atomic_output(sys.argv[1]) as fh:
    fh.write("half"); fh.flush(); print("half", flush=True); time.sleep(120)
"""


def test_the_orphans_of_a_killed_run_are_removed_when_the_target_is_written_again(tmp_path):
    target = tmp_path / "cert.json"
    target.write_text("old")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(target)], stdout=subprocess.PIPE, env=env,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "half"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    orphans = [n for n in os.listdir(tmp_path) if n != "cert.json"]
    assert len(orphans) == 1 and orphans[0].startswith(f".cert.json.{proc.pid}.") and target.read_text() == "old"
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:  # a temporary file of a process that still runs, another target's, and an unrelated file stay
        keep = [f".cert.json.{alive.pid}.abcdefgh.tmp", ".other.json.999999999.abcdefgh.tmp", ".cert.json.notes"]
        for name in keep:
            (tmp_path / name).write_text("x")
        write_text_atomic(target, "new")
    finally:
        alive.kill()
        alive.wait()
    assert target.read_text() == "new" and sorted(os.listdir(tmp_path)) == sorted(["cert.json", *keep])


def test_protect_inputs_ends_with_its_block(tmp_path):
    path = tmp_path / "in.json"
    path.write_text("{}")
    with protect_inputs([str(path), "not a path", ""]):
        with pytest.raises(InvalidInput, match="it is an input of this command"):
            write_text_atomic(path, "x")
    write_text_atomic(path, "x")
    assert path.read_text() == "x"


def test_every_output_argument_is_declared_so_no_output_is_taken_for_an_input(tmp_path):
    """An existing file given as an output (``check --upgrade NEW``, ``fit --certificate C``) is an output, not an
    input: writing it again is allowed."""
    from exactrelu.cli import _input_paths, build_parser

    new = tmp_path / "new.json"
    new.write_text("{}")
    for argv in (["check", "c.json", "i.json", "--upgrade", str(new)],
                 ["fit", "i.json", "-k", "2", "-o", "w.json", "--certificate", str(new)],
                 ["extract", "--oracle", "w.json", "-o", "x.json", "--expect-certificate", str(new)]):
        args = build_parser().parse_args(argv)
        assert str(new) not in _input_paths(args), argv
