"""Work beside this process: the cores it may use, whether one is idle now, how many workers a check takes, and
one text computed ahead in a forked child.

Runtime machinery, below everything that uses it (it imports only :mod:`exactrelu.errors`):

* :func:`usable_cores`, :func:`idle_cores` and :func:`idle_core` (the runnable tasks of ``/proc/loadavg`` less this
  process's own running threads, ``/proc/self/task/*/stat``; elsewhere the load average);
* :func:`check_workers`: how many forked processes the independent check of an instance of so many entries takes:
  every idle core (``EXACTRELU_CHECK_WORKERS``, :data:`PARALLEL_CHECK_ENTRIES`; never inside a daemon or beside
  other threads);
* :func:`start` forks a child that runs ``compute(arg)`` on its copy of the memory and writes the returned text to a
  pipe; :meth:`Ahead.result` waits for it and returns the text, or None when the child failed in any way (an
  exception, a signal, a text that does not pass ``valid``). :meth:`Ahead.cancel` kills the child (SIGKILL) and
  reaps it: callers cancel in a ``finally`` so that a time limit or a KeyboardInterrupt leaves no child behind. The
  instance hash uses it (:func:`exactrelu.certificates.envelope.instance_hash_ahead`): the hash depends only on the
  instance, so it is made while a recovery runs. A None result means "compute it here": the caller never trusts a
  text it did not validate.

>>> job = start(lambda s: s.upper(), "abc")
>>> job is None or job.result() == "ABC"
True
>>> check_workers(200)
1
"""

from __future__ import annotations

import os
import select
import signal
import time
from typing import Any, Callable

from .validation import check_integer

__all__ = ["usable_cores", "idle_core", "idle_cores", "PARALLEL_CHECK_ENTRIES", "check_workers", "Ahead", "start",
           "NICE", "BULK_ENTRIES", "bulk_workers", "terminate_pool"]

#: Instances of at least this many entries n (d + m) are checked in forked workers when cores are idle
#: (benchmarks/README.md: at (200,20,20,2e4), unloaded, the reference check took 7.2 s in one process, 4.1 s on 2
#: workers; the fast checker's blocks of 2^18 numbers give two workers five blocks to share at this size)
PARALLEL_CHECK_ENTRIES = 1_000_000


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the platform tells it, else the machine's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def check_workers(entries: int) -> int:
    """How many processes the independent check of an instance of ``entries`` numbers n (d + m) takes:
    ``EXACTRELU_CHECK_WORKERS`` when set, else every idle core (:func:`idle_cores`) for at least
    :data:`PARALLEL_CHECK_ENTRIES` entries, else 1.

    Never more than one in a daemonic process (a pool worker may not fork children), or while other Python threads
    run (a fork copies their held locks); the verdict is the same either way (the checker combines the ranges).

    >>> check_workers(40 * 5)
    1
    """
    import multiprocessing
    import threading

    asked = os.environ.get("EXACTRELU_CHECK_WORKERS", "").strip()
    if asked:
        workers = check_integer(int(asked) if asked.isascii() and asked.isdigit() and len(asked) < 20 else asked,
                                "EXACTRELU_CHECK_WORKERS", minimum=1, maximum=64)
    else:
        workers = idle_cores() if entries >= PARALLEL_CHECK_ENTRIES and usable_cores() >= 2 else 1
    if workers > 1 and (multiprocessing.current_process().daemon or threading.active_count() > 1):
        return 1
    return workers


def idle_cores() -> int:
    """The cores idle now, the one this process runs on included (at least 1): the usable cores less the tasks
    runnable beside this process (the largest of three readings of ``/proc/loadavg``, as :func:`idle_core`);
    elsewhere the usable cores less the one-minute load average.

    >>> 1 <= idle_cores() <= usable_cores()
    True
    """
    cores = usable_cores()
    try:
        others = max(_runnable() for _ in range(3) if time.sleep(0.01) is None) - 1
    except (OSError, ValueError, IndexError):
        try:
            others = int(os.getloadavg()[0])
        except OSError:  # pragma: no cover - no load average on this platform
            return 1
    return max(1, min(cores, cores - others))


def idle_core() -> bool:
    """Whether a core is idle beside this process now (a child computing ahead only pays there: on a loaded machine
    it slowed the recovery it overlapped, benchmarks/README.md).

    Read from the number of runnable tasks (``/proc/loadavg``, the largest of three readings 10 ms apart, this
    process counted once, its spinning BLAS threads not: :func:`_runnable`), not the one-minute load average,
    which still counts a job for a minute after it ended (a benchmark's previous process made the average miss an
    idle core). Elsewhere, the load average.
    """
    cores = usable_cores()
    try:
        running = max(_runnable() for _ in range(3) if time.sleep(0.01) is None)
    except (OSError, ValueError, IndexError):
        try:
            return os.getloadavg()[0] <= cores - 1
        except OSError:  # pragma: no cover - no load average on this platform
            return False
    return running <= cores - 1


def _runnable() -> int:
    """Tasks runnable on this machine now, this process counted once: the 4th field of ``/proc/loadavg`` ("R/T")
    less this process's other runnable threads (BLAS threads still spin for about 0.1 s after a float step, the
    caller's or ours: they are this process's and about to sleep, not another job on the other core)."""
    before = _own_running_threads()
    with open("/proc/loadavg") as fh:
        total = int(fh.read().split()[3].split("/")[0])
    # a thread that stops between the readings is not subtracted (the fewer of the two): never under the count
    return max(1, total - min(before, _own_running_threads()) + 1)


def _own_running_threads() -> int:
    """This process's threads in state R (``/proc/self/task/*/stat``), at least 1 (the one reading)."""
    running = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as fh:
                stat = fh.read()
        except OSError:  # a thread that ended meanwhile
            continue
        running += stat[stat.rindex(")") + 2:].startswith("R")
    return max(1, running)

#: the child's niceness above its parent's: it computes on idle cores and yields to the work it overlaps
NICE = 10


class Ahead:
    """A forked child computing one text: :meth:`result` (wait, validate) or :meth:`cancel` (kill, reap)."""

    def __init__(self, pid: int, fd: int, valid: Callable[[str], bool]) -> None:
        self.pid, self.fd, self.valid = pid, fd, valid

    def result(self) -> str | None:
        """The child's text once it has exited with status 0 and the text is ``valid``, else None (never raises
        for a failed child; a KeyboardInterrupt while waiting kills the child and propagates).

        The child runs at a lower priority (it takes idle cores, not the caller's); a child not finished yet is
        raised back to the caller's priority and waited for, or, where that is not permitted, killed (None: the
        caller computes the text itself rather than wait behind the machine's other work).

        >>> job = start(lambda x: str(1 // x), 0)  # the child raises ZeroDivisionError
        >>> job is None or job.result() is None
        True
        """
        if self.pid is None:
            return None
        if not select.select([self.fd], [], [], 0)[0] and not _raise_priority(self.pid):
            self.cancel()
            return None
        chunks = []
        try:
            while True:
                part = os.read(self.fd, 1 << 16)
                if not part:
                    break
                chunks.append(part)
            _, status = os.waitpid(self.pid, 0)
        except BaseException:
            self.cancel()
            raise
        self.pid = None
        os.close(self.fd)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return None
        try:
            text = b"".join(chunks).decode("ascii")
        except UnicodeDecodeError:
            return None
        return text if self.valid(text) else None

    def cancel(self) -> None:
        """Kill the child if it still runs and reap it (idempotent).

        >>> job = start(lambda s: s, "x")
        >>> job is None or (job.cancel(), job.result())[1] is None
        True
        """
        if self.pid is None:
            return
        pid, self.pid = self.pid, None
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # pragma: no cover - it exited and was reaped elsewhere
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # pragma: no cover - already reaped
            pass
        os.close(self.fd)


def _raise_priority(pid: int) -> bool:
    """Give the child this process's priority back; False where that is not permitted."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, 0))
    except (OSError, AttributeError):
        return False
    return True


def start(compute: Callable[[Any], str], arg: Any, valid: Callable[[str], bool] = lambda text: True) -> Ahead | None:
    """Fork a child that computes ``compute(arg)``; None where ``os.fork`` does not exist.

    The child lowers its priority by :data:`NICE` and never returns into the caller's code: it leaves by ``os._exit`` (no atexit handlers, no flushing of
    the parent's buffers), status 0 after writing the text, 1 on any exception (KeyboardInterrupt included).
    """
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        return None
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        code = 1
        try:
            os.close(r)
            os.nice(NICE)
            data = compute(arg).encode("ascii")
            while data:
                data = data[os.write(w, data):]
            code = 0
        except BaseException:
            pass
        finally:
            os._exit(code)
    os.close(w)
    return Ahead(pid, r, valid)


#: Exact bulk steps over fewer entries than this run on one thread (a thread pool's set-up would cost more)
BULK_ENTRIES = 1 << 20


def bulk_workers(entries: int) -> int:
    """Threads for an exact bulk step over ``entries`` numbers (exact/bulk.py: limb products by BLAS, block by block):
    ``EXACTRELU_BULK_WORKERS`` when set, else every core idle now (:func:`idle_cores`, this process's own included),
    1 below :data:`BULK_ENTRIES`.

    >>> bulk_workers(10)
    1
    """
    asked = os.environ.get("EXACTRELU_BULK_WORKERS", "").strip()
    if asked:
        return check_integer(int(asked) if asked.isascii() and asked.isdigit() and len(asked) < 20 else asked,
                             "EXACTRELU_BULK_WORKERS", minimum=1, maximum=256)
    if entries < BULK_ENTRIES or usable_cores() < 2:
        return 1
    return idle_cores()


def terminate_pool(pool: Any) -> None:
    """Stop a ``concurrent.futures.ProcessPoolExecutor`` now: queued work is cancelled, running workers are terminated
    (after a witness, a spent budget or Ctrl-C) and reaped (``terminate_workers`` from Python 3.14; before, by hand).

    >>> import concurrent.futures as cf
    >>> pool = cf.ProcessPoolExecutor(1)
    >>> terminate_pool(pool)
    """
    stop = getattr(pool, "terminate_workers", None)
    if stop is not None:  # pragma: no cover - Python >= 3.14
        stop()
        return
    procs = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(5)
