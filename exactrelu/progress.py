"""A one-line progress display on stderr for long work (no dependency).

On a terminal each message overwrites the previous one; otherwise (logs, pipes) each is a line.

>>> import io
>>> buf = io.StringIO()
>>> p = LineProgress(buf, interactive=False)
>>> p("search: 100 tries, 2 of 5 units"); p.close()
>>> buf.getvalue()
'  .. search: 100 tries, 2 of 5 units\\n'
>>> rate_eta(500, 2000, 2.0)
'250/s, ETA 6 s'
>>> duration(3 * 86400 + 5)
'3.0 days'
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class LineProgress:
    """Callable progress sink: ``progress("message")``; call ``close()`` at the end."""

    def __init__(self, stream: TextIO | None = None, *, interactive: bool | None = None, min_interval: float = 0.1):
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty() if interactive is None else interactive
        self.min_interval = min_interval
        self._last = 0.0
        self._width = 0

    def __call__(self, message: str) -> None:
        if self.interactive:
            now = time.monotonic()
            if now - self._last < self.min_interval:
                return
            self._last = now
            text = f"  .. {message}"
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
        else:
            self.stream.write(f"  .. {message}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.interactive and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0


def duration(seconds: float) -> str:
    """A rough, readable duration: ``'40 s'``, ``'12 min'``, ``'3.0 h'``, ``'2.1 days'``, ``'4e+03 years'``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    if seconds < 365 * 86400:
        return f"{seconds / 86400:.1f} days"
    years = seconds / (365 * 86400)
    return f"{years:.0f} years" if years < 1e4 else f"{years:.1e} years"


def rate_eta(done: float, total: float | None, seconds: float) -> str:
    """``'<rate>/s, ETA <time>'`` after ``done`` of ``total`` steps in ``seconds`` (no ETA without a total)."""
    rate = done / seconds if seconds > 0 else 0.0
    text = f"{rate:.3g}/s"
    if total is not None and rate > 0:
        text += f", ETA {duration(max(0.0, total - done) / rate)}"
    return text


class Meter:
    """Counts steps of one long loop and gives ``progress`` a message with its rate and ETA.

    ``Meter(total, "search", progress)(done)`` -> ``"search: 500 of 2000 (250/s, ETA 6 s)"``; a message
    at most every ``every`` steps. ``progress`` None: nothing shown (the count is still kept).

    >>> seen = []
    >>> m = Meter(4, "lines", seen.append, every=2)
    >>> for i in range(1, 5): m(i)
    >>> [s.split(" (")[0] for s in seen]
    ['lines: 2 of 4', 'lines: 4 of 4']
    """

    def __init__(self, total: float | None, what: str, progress, *, every: int = 1):
        self.total, self.what, self.progress, self.every = total, what, progress, max(1, every)
        self.start = time.monotonic()
        self.done = 0

    def __call__(self, done: int, extra: str = "") -> None:
        self.done = done
        if self.progress is None or done % self.every:
            return
        total = "" if self.total is None else f" of {self.total:.4g}" if self.total >= 1e6 else f" of {self.total}"
        more = f", {extra}" if extra else ""
        self.progress(f"{self.what}: {done}{total} ({rate_eta(done, self.total, time.monotonic() - self.start)}){more}")
