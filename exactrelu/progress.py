"""A one-line progress display on stderr for long work (no dependency).

On a terminal each message overwrites the previous one; otherwise (logs, pipes) each is a line.

>>> import io
>>> buf = io.StringIO()
>>> p = LineProgress(buf, interactive=False)
>>> p("search: 100 tries, 2 of 5 units"); p.close()
>>> buf.getvalue()
'  .. search: 100 tries, 2 of 5 units\\n'
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
