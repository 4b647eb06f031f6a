"""One string computed ahead in a forked child process, while this process goes on working.

:func:`start` forks a child that runs ``compute(arg)`` on its copy of the memory and writes the returned text to a
pipe; :meth:`Ahead.result` waits for it and returns the text, or None when the child failed in any way (an exception,
a signal, a text that does not pass ``valid``). :meth:`Ahead.cancel` kills the child (SIGKILL) and reaps it: callers
cancel in a ``finally`` so that a time limit or a KeyboardInterrupt leaves no child behind. The instance hash of
:func:`exactrelu.certificates.envelope.instance_sha256` uses it (:func:`envelope.instance_hash_ahead`): the hash
depends only on the instance, so it is made while a recovery runs. A None result means "compute it here": the
caller never trusts a text it did not validate.

>>> job = start(lambda s: s.upper(), "abc")
>>> job is None or job.result() == "ABC"
True
"""

from __future__ import annotations

import os
import select
import signal
from typing import Any, Callable

__all__ = ["Ahead", "start", "NICE"]

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
