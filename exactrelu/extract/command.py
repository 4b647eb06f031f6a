"""An oracle that is another process speaking JSON lines, held to the time limit, to bounded lines, and stopped
quietly (docs/extraction.md, "Oracles").

The process first writes ``{"d": D, "m": M}`` (M optional), then answers each line ``["p/q", ...]`` of d
rationals with one line of m rationals (strings or JSON integers; JSON floats are refused: a float oracle is
approximate). What the process can make this side do is bounded:

* **time**: every wait for it (its header, each answer, each write of queries it does not read) ends at the time
  limit (``TimeLimitExceeded``, nothing claimed) or after ``answer_timeout`` seconds of silence; reads and writes
  are non-blocking, through one ``select`` loop, so a process that hangs, stops reading or never ends a line
  holds nothing;
* **memory**: a line longer than what its numbers can need (m rationals of at most the limit ``digits`` digits
  each; the header 4,096 bytes) is refused as it arrives; the announced d is refused before anything of its size
  is made when an extraction needs more than the limit ``estimate`` allows (about (d + 1) d numbers sent);
* **signals**: it runs in a session of its own, so a Ctrl-C at the terminal reaches this process only (which
  exits 130 with one line), and it is stopped on close and at exit: its input closed, then SIGTERM and SIGKILL
  to its process group if it does not end.

>>> import sys
>>> script = ("import sys; print('{\\"d\\": 1, \\"m\\": 1}', flush=True)\\n"
...           "for l in sys.stdin: print(f'[\\"{2 * int(l.strip()[2:-2])}\\"]', flush=True)")
>>> oracle = CommandOracle(f"{sys.executable} -c {shlex.quote(script)}")
>>> oracle([[Fraction(3)], [Fraction(5)]]), oracle.queries
([[Fraction(6, 1)], [Fraction(10, 1)]], 2)
>>> oracle.close()
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shlex
import signal
import subprocess
from fractions import Fraction

from ..deadline import Deadline
from ..errors import AssumptionViolated, InvalidInput
from ..exact.rationals import format_rational
from ..limits import limit
from .oracles import Oracle, exact_answer

__all__ = ["CommandOracle", "HEADER_BYTES", "NUMBERS_PER_SECOND"]

#: the longest header line accepted, in bytes
HEADER_BYTES = 4096
#: rationals written to (and read from) an oracle process per second, for the up-front estimate (about 1 us each)
NUMBERS_PER_SECOND = 1e6
_CHUNK = 1 << 16


class CommandOracle(Oracle):
    """A process answering JSON lines (module docstring); started at once, its header read, stopped by close()."""

    def __init__(self, command: str, *, answer_timeout: float = 60.0, force: bool = False, time_limit=None, **kw):
        argv = shlex.split(command)
        if not argv:
            raise InvalidInput("--oracle-cmd needs a command")
        deadline = Deadline.coerce(time_limit)  # started now: the header counts
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                                         start_new_session=True)
        except OSError as exc:
            raise InvalidInput(f"cannot start the oracle command {argv[0]!r}: {exc.strerror or exc}") from None
        atexit.register(self.close)
        for stream in (self.proc.stdin, self.proc.stdout):
            os.set_blocking(stream.fileno(), False)
        self.timeout, self._buffer, self.deadline, self.m, self.queries = answer_timeout, b"", deadline, None, 0
        try:
            header = self._exchange(iter(()), 1, "its header", HEADER_BYTES)[0]
            d, m = self._header(header, force)
            super().__init__(d, m, time_limit=deadline, **kw)
        except BaseException:
            self.close()
            raise

    def _header(self, header, force: bool) -> tuple[int, int | None]:
        """(d, m) of a well-formed header, refused before anything of size d is made when it is too large."""
        if not isinstance(header, dict) or not _positive(header.get("d")) or not _positive(header.get("m", 1)):
            raise InvalidInput(f"the oracle command must first write {{\"d\": D, \"m\": M}} (positive integers), wrote "
                               f"{str(header)[:80]}")
        d, m = header["d"], header.get("m")
        seconds = (d + 1) * (d + (m or 1)) / NUMBERS_PER_SECOND
        if seconds > limit("estimate") and not force:
            raise InvalidInput(f"the oracle command announces d = {d}{f', m = {m}' if m else ''}: an extraction sends "
                               f"it at least (d + 1) d numbers, about {seconds:.3g} s here, over the limit estimate="
                               f"{limit('estimate')} s: refused before any query (--force runs it anyway; "
                               "docs/limits.md)")
        return d, m

    def _longest(self) -> int:
        """Bytes an answer line can need: m rationals of at most the limit ``digits`` digits (numerator and
        denominator), quoted, with separators; m unknown: the limit ``units``."""
        return 64 + (self.m or limit("units")) * (2 * limit("digits") + 8)

    def _refuse(self, text: str, error=AssumptionViolated):
        self.close()
        return error(text)

    def _wait(self, what: str) -> float:
        """Seconds to wait for the process now: until the time limit, at most ``answer_timeout``."""
        self.deadline.check(f"{self.queries} queries; waiting for the oracle command's answer to {what}")
        left = self.deadline.remaining()
        return self.timeout if left is None else min(self.timeout, left)

    def _exchange(self, lines, n: int, what: str, longest: int) -> list:
        """Write the query ``lines`` (an iterator of bytes) while reading n answer lines (parsed JSON); one select
        loop over both pipes (module docstring)."""
        out, pending, fin, fout = [], b"", self.proc.stdout.fileno(), self.proc.stdin.fileno()
        if self._buffer:
            raise self._refuse(f"the oracle command wrote more lines than it was asked for, before {what}: "
                               f"{self._buffer[:60]!r}")
        while True:
            while len(out) < n and b"\n" in self._buffer:
                line, _, self._buffer = self._buffer.partition(b"\n")
                out.append(self._parse(line, what))
            if len(out) == n:
                return out
            if len(self._buffer) > longest:
                raise self._refuse(f"the oracle command wrote a line of over {longest:,} bytes for {what}, more than "
                                   "its numbers can need (docs/limits.md)", InvalidInput)
            if not pending:
                pending = b"".join(line for _, line in zip(range(256), lines))
            ready, writable, _ = select.select([fin], [fout] if pending else [], [], self._wait(what))
            if not ready and not writable:
                self.deadline.check(f"{self.queries} queries; waiting for the oracle command's answer to {what}")
                raise self._refuse(f"the oracle command gave no answer for {what} within {self.timeout:g} s")
            if writable:
                try:
                    pending = pending[os.write(fout, pending[:_CHUNK]):]
                except BlockingIOError:
                    pass
                except OSError:
                    raise self._refuse("the oracle command stopped reading its queries") from None
            if ready:
                chunk = os.read(fin, _CHUNK)
                if not chunk:
                    code = self._ended()
                    raise self._refuse(f"the oracle command gave no answer for {what} (it exited"
                                       + (f" with code {code})" if code is not None else ")"))
                self._buffer += chunk

    def _ended(self) -> int | None:
        try:
            return self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return None

    def _parse(self, line: bytes, what: str):
        try:
            return json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            raise self._refuse(f"the oracle command wrote a line that is not JSON for {what}: {line[:80]!r}") from None

    def _answers(self, lines, n: int) -> list[list[Fraction]]:
        first = self.queries - n + 1
        got = self._exchange(lines, n, f"queries {first} to {self.queries}" if n > 1 else f"query {first}",
                             self._longest())
        out = []
        for y in got:
            if not isinstance(y, list):
                raise self._refuse(f"the oracle command answered {str(y)[:60]}, not a list of m rationals")
            out.append([exact_answer(v) for v in y])
            if self.m is None:
                self.m = len(y) or None
        return out

    def _evaluate(self, points):
        return self._answers((_query(p) for p in points), len(points))

    def _evaluate_axes(self, x0, delta):
        """The d points x0 + delta e_l, each written as it is sent (never all d at once: d^2 numbers)."""
        text = [format_rational(v) for v in x0]

        def lines():
            for l, v in enumerate(x0):
                yield _query(text[:l] + [format_rational(v + delta)] + text[l + 1:], formatted=True)
        return self._answers(lines(), self.d)

    def close(self) -> None:
        """Stop the process: its input closed (an honest oracle ends), then SIGTERM and SIGKILL to its process
        group if it has not ended within 20 ms and one second; its output is closed last, so that it never meets a
        broken pipe (and prints no traceback of its own)."""
        atexit.unregister(self.close)
        proc = getattr(self, "proc", None)
        if proc is None:
            return
        try:
            proc.stdin.close()  # its output stays open until it has ended: a write there never breaks its pipe
        except OSError:
            pass
        for sig, wait in ((None, 0.02), (signal.SIGTERM, 1.0), (signal.SIGKILL, None)):
            if sig is not None:
                try:
                    os.killpg(proc.pid, sig)  # its own session: the process group is the oracle and its children
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        proc.stdout.close()


def _positive(v) -> bool:
    return type(v) is int and v >= 1


def _query(point, formatted: bool = False) -> bytes:
    return (json.dumps(point if formatted else [format_rational(x) for x in point]) + "\n").encode()
