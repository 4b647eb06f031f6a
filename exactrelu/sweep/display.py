"""The sweep's progress line: done / refused / failed / remaining, rate and ETA.

On a terminal the line is redrawn in place; in a log a line is written every ``every`` seconds and at
the end.

>>> import io
>>> buf = io.StringIO()
>>> show = SweepProgress(10, stream=buf, interactive=False, clock=iter([0.0, 4.0, 4.0]).__next__)
>>> show({"certified": 3, "refused": 1, "failed": 0}, final=True)
>>> buf.getvalue()
'  .. sweep: 4/10 rows (3 certified, 1 refused, 0 failed), 6 remaining, 1.0 tasks/s, ETA 6 s\\n'
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

__all__ = ["SweepProgress", "format_seconds"]


def format_seconds(s: float) -> str:
    """``42 s``, ``3 min 20 s``, ``2 h 05 min``.

    >>> format_seconds(42.4), format_seconds(200), format_seconds(7500)
    ('42 s', '3 min 20 s', '2 h 05 min')
    """
    s = int(round(s))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class SweepProgress:
    """Callable ``show(counts)``: counts of rows by status written so far in this run (``skipped``: before it)."""

    def __init__(self, total: int, *, skipped: int = 0, stream: TextIO | None = None, interactive: bool | None = None,
                 every: float = 10.0, clock: Callable[[], float] = time.monotonic):
        self.total, self.skipped = total, skipped
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty() if interactive is None else interactive
        self.every, self.clock = every, clock
        self.start = clock()
        self._last = self.start
        self._width = 0

    def line(self, counts: dict[str, int]) -> str:
        run = sum(counts.values())
        done = self.skipped + run
        elapsed = self.clock() - self.start
        rate = run / elapsed if elapsed > 0 else 0.0
        left = self.total - done
        eta = f", ETA {format_seconds(left / rate)}" if rate > 0 and left else ""
        before = f" ({self.skipped} from before)" if self.skipped else ""
        return (f"sweep: {done}/{self.total} rows{before} ({counts.get('certified', 0)} certified, "
                f"{counts.get('refused', 0)} refused, {counts.get('failed', 0)} failed), {left} remaining, "
                f"{rate:.1f} tasks/s{eta}")

    def __call__(self, counts: dict[str, int], *, final: bool = False) -> None:
        now = self.clock()
        if not final and now - self._last < (0.2 if self.interactive else self.every):
            return
        self._last = now
        text = f"  .. {self.line(counts)}"
        if self.interactive:
            self.stream.write("\r" + text.ljust(self._width) + ("\n" if final else ""))
            self._width = 0 if final else len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def note(self, message: str) -> None:
        """A message of its own line (a worker died, the pool was restarted)."""
        if self.interactive and self._width:
            self.stream.write("\n")
            self._width = 0
        self.stream.write(f"  .. {message}\n")
        self.stream.flush()
