"""One time limit shared by every long computation: recover, solve, patterns, certify, fit.

A :class:`Deadline` is made once from ``time_limit`` seconds (or None: no limit) and handed down;
long loops call :meth:`Deadline.check`, which raises :class:`~exactrelu.errors.TimeLimitExceeded`
(exit 3 on the command line, "unknown": nothing claimed) once the time is up, naming what was done so far.
``Deadline.coerce`` accepts None, a number of seconds or a Deadline, so functions can take
``time_limit`` in any of these forms and pass it on unchanged.

>>> d = Deadline(None)
>>> d.check("nothing"), d.remaining() is None, d.expired()
(None, True, False)
>>> d = Deadline(0.0)
>>> d.expired()
True
>>> d.check("3 of 5 units")
Traceback (most recent call last):
...
exactrelu.errors.TimeLimitExceeded: the time limit of 0 s passed before the answer (nothing is claimed);
done so far: 3 of 5 units
>>> Deadline.coerce(d) is d, Deadline.coerce(2.5).seconds
(True, 2.5)
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from .errors import TimeLimitExceeded
from .validation import check_number

__all__ = ["Deadline", "TimeLimitExceeded", "with_deadline", "run_within"]


#: seconds from which a time limit is no limit (about 32 years)
FOREVER = 1e9


class Deadline:
    """A point in time after which :meth:`check` raises TimeLimitExceeded (``seconds=None``: never)."""

    __slots__ = ("seconds", "start", "end", "what")

    def __init__(self, seconds: float | None, *, what: str = "the answer"):
        seconds = check_number(seconds, "time limit (seconds)", minimum=0, none_ok=True)
        self.seconds = None if seconds is None else float(seconds)
        self.start = time.monotonic()
        # a limit of 32 years or more never passes: no end (a wait of 1e50 s would overflow the platform's time_t)
        self.end = None if seconds is None or seconds >= FOREVER else self.start + float(seconds)
        self.what = what

    @classmethod
    def coerce(cls, limit: "Deadline | float | None") -> "Deadline":
        """``limit`` as a Deadline: the same object, or a new one started now."""
        return limit if isinstance(limit, Deadline) else cls(limit)

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        return None if self.end is None else max(0.0, self.end - time.monotonic())

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def expired(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end

    def check(self, done: str | Callable[[], str] | None = None) -> None:
        """Raise TimeLimitExceeded if the time is up; ``done`` (text, or a function giving it) says what was done."""
        if self.expired():
            text = done() if callable(done) else done
            raise TimeLimitExceeded(f"the time limit of {self.seconds:g} s passed before {self.what} "
                                    "(nothing is claimed)", done=text)


def with_deadline(progress: Callable[[str], None] | None, deadline: Deadline) -> Callable[[str], None]:
    """A progress callback that also checks ``deadline`` at every message (the message is what was done).

    Long loops that already report progress get the time limit for free.

    >>> seen = []
    >>> say = with_deadline(seen.append, Deadline(None)); say("100 tries"); seen
    ['100 tries']
    """
    def say(message: str) -> None:
        deadline.check(message)
        if progress is not None:
            progress(message)

    return say


def run_within(deadline: Deadline, fn: Callable, *args, done: str = ""):
    """``fn(*args)``, or TimeLimitExceeded when ``deadline`` passes first (for one long step with no loop to check).

    Without a limit ``fn`` runs here. With one it runs on a daemon thread that is waited for until the
    deadline: past it the caller gets TimeLimitExceeded at once (nothing is claimed) and the thread's
    result, when it comes, is dropped (a command then exits; in a library call the thread finishes in the
    background). Exceptions of ``fn`` are raised here.

    >>> run_within(Deadline(None), sum, [1, 2])
    3
    >>> run_within(Deadline(5), sum, [1, 2])
    3
    >>> run_within(Deadline(0.01), time.sleep, 1, done="a nap")
    Traceback (most recent call last):
    ...
    exactrelu.errors.TimeLimitExceeded: the time limit of 0.01 s passed before the answer (nothing is claimed);
    done so far: a nap
    """
    deadline.check(done)
    if deadline.end is None:
        return fn(*args)
    out: dict = {}

    def work() -> None:
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller below
            out["error"] = exc

    thread = threading.Thread(target=work, name="exactrelu-run-within", daemon=True)
    thread.start()
    thread.join(deadline.remaining())
    if thread.is_alive():
        raise TimeLimitExceeded(f"the time limit of {deadline.seconds:g} s passed before {deadline.what} "
                                "(nothing is claimed)", done=done or None)
    if "error" in out:
        raise out["error"]
    return out["value"]
