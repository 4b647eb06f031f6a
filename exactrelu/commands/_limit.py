"""``--time-limit`` for the commands whose work has no loop of their own that checks a deadline.

:func:`add_time_limit` adds the option (the same help text as every other command);
:func:`limited` wraps a command: without a limit it runs as it is; with one it runs on a worker thread
(:func:`exactrelu.deadline.run_within`) and the command gives up when the limit passes: exit 3 with the
message every command prints (``the time limit of N s passed before ... (nothing is claimed)``), no
traceback, and no file put in place from then on (:class:`exactrelu.io.files.OutputGuard`: a file the
command writes is in place, whole, before it gave up, or not at all; the old file stays). Commands that
check a deadline themselves (``patterns``) are wrapped with ``backstop=True``: the outer limit is a
little later, so their own, more precise message ("done so far: ...") comes first.

A command can say what it has done so far by setting ``args.done`` (text); it ends the message.

>>> import argparse
>>> p = argparse.ArgumentParser(); add_time_limit(p)
>>> def slow(args):
...     args.done = "half of it"
...     time.sleep(2)
...     return 0
>>> limited(slow)(p.parse_args(["--time-limit", "0.05"]))
Traceback (most recent call last):
...
exactrelu.errors.TimeLimitExceeded: the time limit of 0.05 s passed before the answer (nothing is claimed);
done so far: half of it
>>> limited(lambda args: 7)(p.parse_args([]))
7
"""

from __future__ import annotations

import time  # noqa: F401 (the doctest above sleeps)
from typing import Callable

from ..deadline import Deadline, run_within
from ..errors import TimeLimitExceeded
from ..io.files import OutputGuard
from ..arguments import seconds_arg

__all__ = ["TIME_LIMIT_HELP", "add_time_limit", "limited", "time_limit_seconds"]

TIME_LIMIT_HELP = "give up (exit 3, nothing claimed) after this many seconds"

#: with ``backstop=True``: the outer limit is this share of the limit later (at least 0.2 s, at most 2 s)
BACKSTOP = 0.1


def time_limit_seconds(text: str) -> float:
    """argparse type of ``--time-limit``: a finite number of seconds, zero or more (``arguments.seconds_arg``).

    >>> time_limit_seconds("2.5")
    2.5
    """
    return seconds_arg(text)


def add_time_limit(p) -> None:
    """Add ``--time-limit SECONDS`` to the sub-command parser ``p``."""
    p.add_argument("--time-limit", type=time_limit_seconds, metavar="SECONDS", help=TIME_LIMIT_HELP)


def limited(func: Callable, *, what: str = "the answer", backstop: bool = False) -> Callable:
    """``func(args)`` bounded by ``args.time_limit`` (see the module docstring)."""

    def run(args) -> int:
        seconds = getattr(args, "time_limit", None)
        if seconds is None:
            return func(args)
        if backstop:
            seconds = seconds + min(2.0, max(0.2, BACKSTOP * seconds))
        deadline = Deadline(seconds, what=what)
        guard, state = OutputGuard(), {"finished": False}

        def work():
            guard.enter()
            try:
                return func(args)
            finally:
                state["finished"] = True
                guard.leave()

        try:
            return run_within(deadline, work)
        except TimeLimitExceeded:
            guard.abandon()
            if state["finished"]:  # the command's own time-out, with its own message
                raise
            raise TimeLimitExceeded(f"the time limit of {args.time_limit:g} s passed before {what} "
                                    "(nothing is claimed)", done=getattr(args, "done", None)) from None
        except BaseException:
            guard.abandon()
            raise

    run.__doc__ = func.__doc__
    return run
