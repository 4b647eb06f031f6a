"""The program's time limit, kept whatever the command is doing: the command runs in a child the program stops.

``--time-limit`` is checked by the commands themselves (their loops, and a worker thread the command gives up on:
:mod:`exactrelu.commands._limit`). No thread of a process can act while another holds the interpreter's lock in one
long C call, and FLINT holds it: ``equiv`` of power-100 networks ran 23.8 s with a limit of 5 s, and a process cannot
even exit then. So the program, when given a time limit, forks before it imports the library: the child parses the
command line and runs the command as always (its output, files and exit code are the program's), and this parent,
which holds nothing, waits. At the limit (counted from the program's start; plus :data:`SLACK` of it, so that the
command's own message, which says what was done, normally comes first) the parent kills the child and every process
below it, removes the temporary files of its outputs, prints the usual line (``--json``: the JSON record first) and
exits 3 ("unknown"). After Ctrl-C the child has :data:`INTERRUPT_GRACE` seconds to stop with its own line, then the
same.

Only the program does this (``exactrelu.cli.main()`` without arguments); called with an argument list, as tests and
other Python code do, the command runs in the caller's process.

>>> time_limit(["solve", "i.json", "-k", "2", "--time-limit", "2.5"]), time_limit(["solve", "--time-limit=x"])
(2.5, None)
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

from ..arguments import seconds_arg

__all__ = ["SLACK", "SLACK_MIN", "INTERRUPT_GRACE", "process_start", "time_limit", "watched", "in_child", "leave"]

#: the parent gives up this share of the limit after it, at least SLACK_MIN seconds
SLACK, SLACK_MIN = 0.02, 0.02
#: after Ctrl-C the command has this long to stop by itself (its one line, its children stopped) before it is killed
INTERRUPT_GRACE = 1.0
#: options whose value is a file the command writes (their temporary files are removed after a kill)
OUTPUT_OPTIONS = ("-o", "--output", "--evidence", "--formula-out", "--instance-out", "--certificate",
                  "--expect-certificate", "--upgrade")

_child = {"is": False}


def process_start() -> float:
    """The ``time.monotonic()`` of this process's start (Linux: from /proc, so that the interpreter's own start-up
    counts; elsewhere: now). The limit counts from there.

    >>> 0 <= time.monotonic() - process_start() < 3600
    True
    """
    now = time.monotonic()
    try:
        with open("/proc/self/stat") as fh:
            ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        age = uptime - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0 <= age < 3600 else now


def time_limit(argv: list[str]) -> float | None:
    """The value of ``--time-limit`` in ``argv`` when it is a valid number of seconds, else None (the parser then
    says what is wrong with it)."""
    for i, word in enumerate(argv):
        if word == "--":
            return None
        text = argv[i + 1] if word == "--time-limit" and i + 1 < len(argv) else (
            word.split("=", 1)[1] if word.startswith("--time-limit=") else None)
        if text is not None:
            try:
                return seconds_arg(text)
            except argparse.ArgumentTypeError:
                return None
    return None


def in_child() -> bool:
    """Whether this process is the child that runs a watched command (it leaves by ``os._exit``)."""
    return _child["is"]


def watched(argv: list[str], started: float, outputs=OUTPUT_OPTIONS) -> int | None:
    """In the program with a time limit: fork; return None in the child (which goes on to run the command) and the
    program's exit code in the parent (see the module docstring). None at once without a time limit, without
    ``fork``, or beside other threads."""
    limit = time_limit(argv)
    if limit is None or not hasattr(os, "fork") or threading.active_count() > 1:
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    paths = _outputs(argv)
    before = _temporary(paths)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        _child["is"] = True
        return None
    return _wait(pid, argv, limit, started + limit + max(SLACK * limit, SLACK_MIN), paths, before)


def leave(code: int) -> None:  # pragma: no cover - the program's end
    """Flush the output and exit at once: the child, with no interpreter shutdown behind a thread that holds the lock;
    the parent, as soon as it knows the code."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _wait(pid: int, argv: list[str], limit: float, hard: float, paths: list[Path], before: set) -> int:
    interrupted: list[float] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(time.monotonic()))
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return _exit_code(status)
            now = time.monotonic()
            if interrupted and now > interrupted[0] + INTERRUPT_GRACE:
                _kill_tree(pid)
                _remove(_temporary(paths) - before)
                print("exactrelu: interrupted", file=sys.stderr, flush=True)
                return 130
            if now >= hard and not interrupted:
                _kill_tree(pid)
                _remove(_temporary(paths) - before)
                _gave_up(argv, limit)
                return 3
            time.sleep(0.005)
    finally:
        signal.signal(signal.SIGINT, old)


def _gave_up(argv: list[str], limit: float) -> None:
    message = f"the time limit of {limit:g} s passed before the answer (nothing is claimed)"
    if "--json" in argv:
        words = [w for w in argv if not w.startswith("-")][:2]
        command = " ".join(words[:2]) if words[:1] == ["hardness"] else (words[0] if words else None)
        print(json.dumps({"command": command, "ok": False, "error": "TimeLimitExceeded", "message": message,
                          "exit_code": 3}), flush=True)
    print(f"exactrelu: TimeLimitExceeded: {message}", file=sys.stderr, flush=True)


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        return code
    print(f"exactrelu: error: the command was stopped by signal {-code}", file=sys.stderr, flush=True)
    return 128 - code


def _kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and every process below it (pool workers, a fork server, a hash child, an oracle), then reap
    ``pid``."""
    for p in [pid, *_descendants(pid)]:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.waitpid(pid, 0)


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (from /proc; none where there is no /proc)."""
    parent: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    parent[int(name)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    out, todo = [], [pid]
    while todo:
        kids = [c for c, p in parent.items() if p == todo[-1]]
        todo.pop()
        out += kids
        todo += kids
    return out


def _outputs(argv: list[str]) -> list[Path]:
    paths = []
    for i, word in enumerate(argv[:-1]):
        if word in OUTPUT_OPTIONS and argv[i + 1]:
            paths.append(Path(argv[i + 1]))
    return paths


def _temporary(paths: list[Path]) -> set:
    """The atomic writer's temporary files (``.NAME.*.tmp``) beside the output files."""
    found: set = set()
    for path in paths:
        try:
            found |= set(path.parent.glob(f".{path.name}.*.tmp"))
        except (OSError, ValueError):
            continue
    return found


def _remove(paths) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass
