"""``--json`` for every command that reports results: one JSON object on stdout, errors included.

A command registers with :func:`json_command` and reports with :func:`emit`: the text lines for
people, or (with ``--json``) the record, printed as one JSON object and nothing else on stdout.
With ``--json`` an error is also a JSON object on stdout (``"ok": false``, the error's class,
message, exit code and evidence) before the usual one-line message on stderr and exit code.

>>> import argparse
>>> p = argparse.ArgumentParser()
>>> json_command(p, "hello", lambda args: emit(args, {"greeting": "hi"}, ["hi"]))
>>> args = p.parse_args(["--json"])
>>> args.func(args)
{"command": "hello", "ok": true, "greeting": "hi"}
0
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from typing import Any, Callable, Iterable

from ..errors import ExactReluError, InvalidInput

__all__ = ["json_command", "emit", "jsonable"]

JSON_HELP = ("print the outcome as one JSON object on stdout and nothing else there (errors too: "
             "\"ok\": false with the error, its message and the exit code)")


def jsonable(obj: Any) -> Any:
    """``json.dumps`` default: rationals as exact strings, arrays as lists, dataclasses as objects."""
    if isinstance(obj, Fraction):
        from ..certificates.envelope import rational_text

        return rational_text(obj)  # exact unless too long to print: then the bounded display
    np = sys.modules.get("numpy")  # not imported here (0.1 s): without numpy loaded there is no numpy object
    if np is not None:
        if isinstance(obj, np.ndarray):
            return obj.tolist()
        if isinstance(obj, (np.integer, np.bool_)):
            return obj.item()
        if isinstance(obj, np.floating):
            return float(obj)
    if hasattr(type(obj), "__dataclass_fields__"):  # what dataclasses.is_dataclass reads (importing it: 8 ms)
        import dataclasses

        return dataclasses.asdict(obj)
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=str)
    return str(obj)


def json_command(parser, name: str, func: Callable) -> None:
    """Add ``--json`` to ``parser`` and make ``func`` its command (errors become JSON too with ``--json``)."""
    parser.add_argument("--json", action="store_true", help=JSON_HELP)

    def run(args) -> int:
        args.command_name = name
        if not args.json:
            return func(args)
        try:
            return func(args)
        except ExactReluError as exc:
            code = 2 if isinstance(exc, InvalidInput) else 1
            record = {"command": name, "ok": False, "error": type(exc).__name__, "message": str(exc),
                      "exit_code": code}
            if getattr(exc, "evidence", None):
                record["evidence"] = exc.evidence
            print(json.dumps(record, default=jsonable))
            exc.json_reported = True  # the command line's error handler prints no second record
            raise

    parser.set_defaults(func=run)


def emit(args, record: dict, lines: Iterable[str] | str, *, ok: bool = True, code: int | None = None) -> int:
    """Print ``lines`` (text mode) or ``record`` as JSON (``--json``); return the exit code (0 if ``ok``, else 1).

    The lines of what was read from weights files (``args.read_lines``, :mod:`exactrelu.commands._weights`) follow
    the first line (the verdict), and go under ``"read"`` in the record.

    A command that has given up at its time limit (:mod:`exactrelu.commands._limit`) prints nothing from the worker
    that finishes after it."""
    from ..io.files import OutputGuard

    if OutputGuard.abandoned_here():
        return 1
    read = getattr(args, "read_lines", None)  # what was read from weights files (commands/_weights.py)
    if read:
        record = {"read": list(read), **record}
        lines = [lines] if isinstance(lines, str) else list(lines)
        lines = [*lines[:1], *read, *lines[1:]]  # the verdict stays the first line
    if getattr(args, "json", False):
        out = {"command": getattr(args, "command_name", None), "ok": ok, **record}
        print(json.dumps(out, default=jsonable))
    else:
        print(lines if isinstance(lines, str) else "\n".join(lines))
    return (0 if ok else 1) if code is None else code
