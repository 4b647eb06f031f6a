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
import warnings

from .errors import ExactReluError, ExactReluWarning, InvalidInput, exit_code

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
    def error(self, message):  # usage errors: one line on stderr, exit 2 (and, with --json, the JSON record first)
        if _JSON["wanted"]:
            import json

            command = self.prog.split(" ", 1)[1] if " " in self.prog else None
            print(json.dumps({"command": command, "ok": False, "error": "UsageError", "message": message,
                              "exit_code": 2}))
        # one line, like every other error (the usage is one --help away)
        print(f"exactrelu: error: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(2)


#: commands whose registrar alone makes their parser: the program run as ``exactrelu hardness ...`` imports only
#: that one (every registrar imports its module: 0.15 s with numpy and FLINT, more than ``hardness decide`` of a
#: reduction's instance needs, exactrelu/decide/search/source.py)
ALONE = {"hardness": "exactrelu.commands.hardness:register"}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command; with ``only`` (a key of :data:`ALONE`), of that command alone."""
    from ._version import __version__

    about = ("Learn and certify rectified networks in exact arithmetic: two-layer at the core; certify, equiv, "
             "minimize and extract also take deeper networks.")
    parser = _Parser(prog="exactrelu", description=about)
    parser.add_argument("--version", action="version", version=f"exactrelu {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for spec in [ALONE[only]] if only in ALONE else REGISTRARS:
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


def _chosen(parser: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    """The (sub-)sub-command parser that parsed ``args``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and getattr(args, action.dest, None) in action.choices:
            return _chosen(action.choices[getattr(args, action.dest)], args)
    return parser


def _check_not_empty(parser: argparse.ArgumentParser, args) -> None:
    """An empty value (``-o ''``, ``--scheduler ''``) means nothing for any option: a usage error, not "no value"."""
    chosen = _chosen(parser, args)
    for action in chosen._actions:
        value = getattr(args, action.dest, None)
        if value == "" or (isinstance(value, list) and "" in value):
            chosen.error(f"argument {'/'.join(action.option_strings) or action.dest}: an empty value")


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


def _parser() -> argparse.ArgumentParser:
    """The parser of this call (built anew: tests replace a command's function; the fuzz test keeps one)."""
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``) and return its exit code.

    Ctrl-C at any moment, from the parser's imports to the last line, is exit 130 with the one line
    ``exactrelu: interrupted``; run as the program (``argv`` None), a second Ctrl-C while stopping is ignored, so that
    the children and the interpreter's shutdown finish quietly, and once the command's output is whole, a Ctrl-C
    during the interpreter's shutdown is ignored (it had killed the program: exit -2, no line).
    """
    if argv is not None:
        return _main(argv)
    _note_interrupts()  # the program: a time limit is a hard one, from its start (exactrelu/commands/_watch.py)
    try:
        try:
            from .commands import _watch as watch

            code = watch.watched(sys.argv[1:], watch.process_start())
            if code is None:  # no watching parent, or the child that runs the command
                code = _main(argv)
                if watch.in_child():
                    watch.leave(code)
        except KeyboardInterrupt:
            code = _interrupted(argv)
        return _leave(code)
    except KeyboardInterrupt:  # pragma: no cover - in the instant between the two
        return _interrupted(argv)


#: whether Ctrl-C was pressed in this program (set by the handler of :func:`_note_interrupts`)
_SIGINT = {"seen": False}


def _note_interrupts() -> None:
    """The program's Ctrl-C handler: Python's own (KeyboardInterrupt), noting that it came. An extension module
    being imported at that moment can turn the KeyboardInterrupt into another error (NumPy: "ImportError:
    PyCapsule_Import could not import module datetime"); noted, it is still the interrupt it is."""
    import signal

    def on_sigint(signum, frame):
        _SIGINT["seen"] = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)


def _leave(code: int) -> int:
    """The program's exit code, once its output is flushed: ``code``, or 130 with the one line when Ctrl-C comes
    first. Then Ctrl-C is ignored: the interpreter's shutdown restores the default SIGINT action (a Ctrl-C that came
    then killed the program, exit -2 and no line) unless the action is to ignore it; the command's output is whole
    by then."""
    import signal

    try:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except KeyboardInterrupt:
        code = _interrupted(None)
    return code


def _interrupted(argv) -> int:
    if argv is None:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
    print("exactrelu: interrupted", file=sys.stderr)
    return 130


def _main(argv: list[str] | None) -> int:
    try:  # the program: a command of ALONE is parsed by its own parser (the same arguments, the same errors)
        parser = build_parser(sys.argv[1]) if argv is None and sys.argv[1:2] and sys.argv[1] in ALONE else _parser()
        args = _parse(parser, argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning
            return _run(args)
    except KeyboardInterrupt:
        return _interrupted(argv)
    except BaseException:
        if _SIGINT["seen"]:  # an interrupt that an extension module reported as another error
            return _interrupted(argv)
        raise


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """The library's warnings (a guarantee that may not apply, a learner no better than trivial) as one line each on
    stderr, ``exactrelu: warning: ...``; other packages' warnings as Python prints them."""
    if issubclass(category, ExactReluWarning):
        print(f"exactrelu: warning: {message}", file=sys.stderr if file is None else file)
    else:
        _SHOW_WARNING(message, category, filename, lineno, file, line)


_SHOW_WARNING = warnings.showwarning


def _parse(parser: argparse.ArgumentParser, argv: list[str] | None):
    """The parsed arguments; a usage error is one line and SystemExit(2) (with ``--json``, a JSON record first)."""
    _JSON["wanted"] = "--json" in (sys.argv[1:] if argv is None else argv)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # named by the sub-command that was given them (argparse names the top level)
            _chosen(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
        _JSON["wanted"] = bool(getattr(args, "json", False))
        if getattr(args, "func", None):
            _check_not_empty(parser, args)
    finally:
        _JSON["wanted"] = False
    return args


def _failed(args, exc: BaseException, message: str) -> int:
    """Bad input (exit 2): ``exactrelu: error: MESSAGE`` on stderr (and the JSON record with ``--json``)."""
    _json_error(args, exc, 2, message)
    print(f"exactrelu: error: {message}", file=sys.stderr)
    return 2


def _run(args) -> int:
    """The command, its errors as one line on stderr and an exit code (docs/design.md, "Errors and exit codes")."""
    try:
        _check_units(args)
        from .io.files import protect_inputs

        with protect_inputs(_input_paths(args)):  # no output replaces an input, whichever writer writes it
            _check_outputs(args)
            return int(args.func(args) or 0)
    except InvalidInput as exc:
        return _failed(args, exc, str(exc))
    except ExactReluError as exc:  # a time limit or a budget that ran out: "unknown" (3), as equiv's search answers
        code = exit_code(exc)
        _json_error(args, exc, code, str(exc))
        print(f"exactrelu: {type(exc).__name__}: {exc}", file=sys.stderr)
        return code
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except MemoryError as exc:
        return _failed(args, exc, "out of memory: the input is too large for this machine (docs/limits.md)")
    except RecursionError as exc:
        return _failed(args, exc, "the input is nested too deeply")
    except OSError as exc:  # a file that vanished or a full disk while writing: one line, not a traceback
        return _failed(args, exc, f"{exc.filename or 'file'}: {exc.strerror or exc}")


if __name__ == "__main__":
    sys.exit(main())
