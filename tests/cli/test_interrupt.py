"""Ctrl-C anywhere (issue 34, item 5): exit 130, one line on stderr, and no process of the run left behind.

Each test starts the real command in a session of its own and sends SIGINT to its whole process group, as a
terminal does, at a chosen moment: while the command line loads, inside python-sat's solver (which catches SIGINT itself:
``pysolvers.error: Caught keyboard interrupt``, exit 1, before), while the checker's forked pool checks (a
``ForkPoolWorker`` traceback, before), while a sweep's fork server preloads SciPy and while its workers run tasks.
A moment is found by what the process does (a progress line, its children), not by a clock alone, so that a loaded
machine moves it but does not skip it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from exactrelu.hardness.generators import pigeonhole

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg") or not os.path.exists("/proc/self/stat"),
                                reason="process groups and /proc (Linux)")


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _session(sid: int) -> list[int]:
    """The live processes of session ``sid`` (zombies are dead)."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None and st[0] != "Z" and int(st[3]) == sid:
                out.append(int(name))
    return out


def _mapped(pid: int, name: str) -> bool:
    try:
        with open(f"/proc/{pid}/maps") as fh:
            return name in fh.read()
    except OSError:
        return False


def interrupt(argv, *, line: str | None = None, count: int = 1, processes: int = 0, delay: float = 0.0,
              mapped: str | None = None, env: dict | None = None, cwd=None, limit: float = 120.0):
    """Run ``argv``, send SIGINT to its process group once ``count`` stderr lines contain ``line``, the session has
    at least ``processes`` processes besides the command itself and (``mapped``) the command has loaded a shared
    library of that name, ``delay`` seconds later; return (exit code, stderr lines from the interrupt on, processes of
    the session still alive 10 s after the exit)."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                         env={**os.environ, **(env or {})}, cwd=cwd)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(x.decode() for x in iter(p.stderr.readline, b"")))
    reader.start()
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit and p.poll() is None:
        seen = sum(line in x for x in lines) if line else count
        if seen >= count and len(_session(p.pid)) > processes and (mapped is None or _mapped(p.pid, mapped)):
            break
        time.sleep(0.02)
    assert p.poll() is None, f"the command ended before the moment: {''.join(lines)}"
    time.sleep(delay)
    before = len(lines)
    os.killpg(p.pid, signal.SIGINT)
    code = p.wait(60)
    reader.join(10)
    deadline = time.monotonic() + 10
    while _session(p.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return code, lines[before:], _session(p.pid)


EXACTRELU = [sys.executable, "-m", "exactrelu.cli"]


def assert_interrupted(code, after, left, *, message="exactrelu: interrupted"):
    assert code == 130, after
    assert len(after) == 1 and after[0].startswith(message), after  # one line, no traceback
    assert not left, f"processes left behind: {left}"


@pytest.fixture(scope="module")
def php8(tmp_path_factory):
    """The reduction of the pigeonhole formula PHP(9, 8): CaDiCaL needs seconds on one of its cases."""
    d = tmp_path_factory.mktemp("php")
    path = d / "php8.cnf"
    f = pigeonhole(8)
    path.write_text(f"p cnf {f.num_vars} {len(f.clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n"
                                                                      for c in f.clauses))
    assert subprocess.run(EXACTRELU + ["hardness", "from-cnf", str(path), "-o", str(d / "i.json")],
                          capture_output=True).returncode == 0
    return d / "i.json"


def test_hardness_decide_while_the_command_line_loads(php8, tmp_path):
    """While the lazy engine's imports load NumPy (the parser of `hardness` no longer does; a Ctrl-C during the
    interpreter's own start-up, before any line of exactrelu runs, is Python's: its traceback cannot be ours to
    prevent)."""
    code, after, left = interrupt(EXACTRELU + ["hardness", "decide", str(php8), "--engine", "lazy", "-o",
                                               str(tmp_path / "c.json")], mapped="_multiarray_umath")
    assert_interrupted(code, after, left)
    assert not (tmp_path / "c.json").exists()


def test_hardness_decide_inside_the_sat_solver(php8, tmp_path):
    """The seventh round is the long one (case 1 again, after the six cases' first rounds)."""
    code, after, left = interrupt(EXACTRELU + ["hardness", "decide", str(php8), "-v", "--engine", "lazy", "-o",
                                               str(tmp_path / "c.json")], line="case 1, round 1", count=2, delay=0.3)
    assert_interrupted(code, after, left)


def test_demo_while_the_checker_pool_checks(tmp_path):
    """Two forked checker workers (EXACTRELU_CHECK_WORKERS=2): they leave Ctrl-C to the parent, which stops them.
    Since the check got fast, the pool lives about 0.15 s at n = 20,000 on an idle machine (a 0.2 s delay found the
    program done: exit 0); at n = 60,000 it lives about 0.45 s, and the signal comes 0.05 s into it."""
    code, after, left = interrupt(EXACTRELU + ["demo", "-d", "10", "-k", "3", "-m", "3", "-n", "60000"],
                                  processes=2, delay=0.05, env={"EXACTRELU_CHECK_WORKERS": "2"})
    assert_interrupted(code, after, left)


@pytest.mark.parametrize("delay", [0.3, 0.4, 0.5])
def test_demo_interrupted_late(delay):
    """Late moments of the same run: the end of the check, the result, the program's end. Python's own shutdown
    restores the default SIGINT action before it frees its modules: a Ctrl-C there killed the program (exit -2, no
    line), on main as on a faster branch; once its output is whole, the program now ignores Ctrl-C. Either the one
    line and 130, or the command's own exit (0, its output whole): never a death by the signal."""
    code, after, left = interrupt(EXACTRELU + ["demo", "-d", "10", "-k", "3", "-m", "3", "-n", "20000"],
                                  processes=2, delay=delay, env={"EXACTRELU_CHECK_WORKERS": "2"})
    if code != 0:
        assert_interrupted(code, after, left)
    assert not left and "Traceback" not in "".join(after), after


SPEC = '[sweep]\ntask = "recover"\nseeds = 6\n[grid]\nd = 10\nk = 4\nn = 3000\n'


@pytest.mark.parametrize("moment", ["fork server", "tasks"])
def test_sweep_with_workers(tmp_path, moment):
    """While the fork server preloads SciPy (the command's second process: the resource tracker is the first), and
    once both workers run tasks; the sweep's own line says how to resume."""
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    argv = EXACTRELU + ["sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "2", "-q"]
    code, after, left = interrupt(argv, processes=2 if moment == "fork server" else 4, delay=0.05)
    after = [x for x in after if not x.startswith("  .. sweep:")]  # a progress line that was under way
    assert code == 130 and len(after) == 1 and "Traceback" not in "".join(after), after
    assert after[0].startswith(("interrupted: run again with --resume", "exactrelu: interrupted")), after
    assert not left, f"processes left behind: {left}"
