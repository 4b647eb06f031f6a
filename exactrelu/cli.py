"""The ``exactrelu`` command.

Sub-commands register themselves through ``register(subparsers)`` functions listed in
:data:`REGISTRARS` (one per feature module), so each feature keeps its command beside its code.
Errors become one-line messages: exit 2 for bad input or usage (also inputs over a size limit,
docs/limits.md, and running out of memory), 1 for a failed check or claim (and a time limit reached).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .errors import ExactReluError, InvalidInput

#: "module:function" of every sub-command registrar, in the order shown by --help.
REGISTRARS = [
    "exactrelu.commands:register",
    "exactrelu.commands.worstcase:register",
    "exactrelu.commands.prove:register",
    "exactrelu.commands.hardness:register",
    "exactrelu.commands.certify:register",
    "exactrelu.commands.fit:register",
    "exactrelu.commands.sweep:register",
    "exactrelu.commands.equiv:register",
    "exactrelu.commands.export:register",
    "exactrelu.commands.extract:register",
    "exactrelu.commands.bundle:register",
    "exactrelu.commands._data:register",
]


#: whether the command line being parsed asks for --json (then a usage error is a JSON object on stdout too)
_JSON = {"wanted": False}


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors: one line, exit 2 (and, with --json, the JSON record first)
        if _JSON["wanted"]:
            import json

            command = self.prog.split(" ", 1)[1] if " " in self.prog else None
            print(json.dumps({"command": command, "ok": False, "error": "UsageError", "message": message,
                              "exit_code": 2}))
        self.print_usage(sys.stderr)
        print(f"exactrelu: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    from ._version import __version__

    parser = _Parser(prog="exactrelu", description="Learn and certify two-layer rectified networks in exact arithmetic.")
    parser.add_argument("--version", action="version", version=f"exactrelu {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for spec in REGISTRARS:
        mod, fn = spec.split(":")
        getattr(importlib.import_module(mod), fn)(sub)
    return parser


#: argument names that hold a file the command will write: checked before the command runs (a command adds its own
#: with ``set_defaults(output_args=(...))``, and names those that are directories with ``directory_outputs``)
OUTPUT_ARGS = ("output", "evidence", "formula_out", "instance_out", "certificate_out")


def _output_names(args) -> tuple[str, ...]:
    return OUTPUT_ARGS + tuple(getattr(args, "output_args", ()))


def _input_paths(args) -> list[str]:
    """Every argument that is not an output, as a path: the existing files among them are the command's inputs,
    which no output may replace (``io.files.protect_inputs``)."""
    outputs = set(_output_names(args))
    found = []
    for name, value in vars(args).items():
        if name in outputs:
            continue
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(v, str) and v:
                found.append(v)
    return found


def _check_outputs(args) -> None:
    """Refuse an output path that cannot be written *before* the work (not after minutes of it): a missing
    directory, a directory (but for a command that writes one), an input of the command (``-o inst.json`` onto the
    instance), a block device or socket; a character device or FIFO is written directly, a link at its target
    (``io.files.atomic_output``)."""
    from .io.files import writable

    dirs = set(getattr(args, "directory_outputs", ()))
    for name in _output_names(args):
        value = getattr(args, name, None)
        if isinstance(value, str) and value:
            writable(value, directory_ok=name in dirs)


def _check_units(args) -> None:
    """Refuse a ``-k`` that is not a positive integer within the ``units`` limit before any command allocates for it
    (``solve -k 1000000000`` allocated 3.8 GB before refusing)."""
    from .limits import check_units

    k = getattr(args, "k", None)
    if isinstance(k, int):
        check_units(k, "-k")


def _json_error(args, exc: BaseException, code: int, message: str) -> None:
    """With ``--json``: the error as one JSON object on stdout, unless the command has printed it already (errors
    raised before the command runs, such as an unwritable output or ``-k`` over its limit, and errors that are not
    the library's, such as running out of memory)."""
    if not getattr(args, "json", False) or getattr(exc, "json_reported", False):
        return
    import json

    name = getattr(args, "command_name", None) or " ".join(
        x for x in (getattr(args, "command", None), getattr(args, "hardness_command", None)) if x) or None
    print(json.dumps({"command": name, "ok": False, "error": type(exc).__name__, "message": message,
                      "exit_code": code}), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    _JSON["wanted"] = "--json" in (sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    finally:
        _JSON["wanted"] = False
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        _check_units(args)
        from .io.files import protect_inputs

        with protect_inputs(_input_paths(args)):  # no output replaces an input, whichever writer writes it
            _check_outputs(args)
            return int(args.func(args) or 0)
    except InvalidInput as exc:
        _json_error(args, exc, 2, str(exc))
        print(f"exactrelu: error: {exc}", file=sys.stderr)
        return 2
    except ExactReluError as exc:
        _json_error(args, exc, 1, str(exc))
        print(f"exactrelu: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("exactrelu: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except MemoryError as exc:
        _json_error(args, exc, 2, "out of memory: the input is too large for this machine (docs/limits.md)")
        print("exactrelu: error: out of memory: the input is too large for this machine (docs/limits.md)", file=sys.stderr)
        return 2
    except RecursionError as exc:
        _json_error(args, exc, 2, "the input is nested too deeply")
        print("exactrelu: error: the input is nested too deeply", file=sys.stderr)
        return 2
    except OSError as exc:  # a file that vanished or a full disk while writing: one line, not a traceback
        _json_error(args, exc, 2, f"{exc.filename or 'file'}: {exc.strerror or exc}")
        print(f"exactrelu: error: {exc.filename or 'file'}: {exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
