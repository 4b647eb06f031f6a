"""A fuzz test of the command line (issue 34, item 5): hundreds of bad invocations, in-process.

Every sub-command starts from one good invocation on small files; each case changes one thing: a bad number for
every numeric option (negative, zero where a count is meant, NaN, infinity, 1e999, 50 digits, text), a bad word for
every option with choices or a vocabulary (activation, method, ...), a bad file for every option and argument that
reads one (missing, empty, a directory, random bytes, JSON of the wrong type or nested too deeply, a valid file of
the wrong kind), an output in a missing directory, a required argument dropped, an unknown option. Each must be
refused with exit 2 and exactly one line on stderr, with no traceback, before any real work: so the whole test
costs seconds. With ``--json`` the refusal is also one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import pytest

from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.envelope import write_certificate
from exactrelu.cli import build_parser, main
from exactrelu.instances import planted, write_instance

#: bad text for a numeric option; "0" and "-1" are added where they are out of range (0 seconds is a limit)
BAD_NUMBERS = ["", "x", "nan", "inf", "-inf", "1e999", "0x10", "1/0", "--1", "1,5", " "]
#: types of integer options (a 50-digit count is over every limit; 1e50 seconds or a noise of 1e50 are numbers)
INTEGER_TYPES = ("positive_int_arg", "nonnegative_int_arg", "seed_arg", "integer")
BAD_WORDS = ["", "bogus", "power:0", "power:-1", "power:1e9", "power:x", "relu:2", "\u00e9t\u00e9", "-"]
#: option -> what it holds, for the options whose type argparse cannot tell
INPUT_FILES = {"instance", "--inputs", "--labels", "--weights", "--oracle", "--expect",
               "--U", "--basis", "formula", "assignment", "weights", "certificate", "spec", "first", "second",
               "network", "--init"}
OUTPUTS = {"-o", "--certificate", "--evidence", "--formula-out", "--instance-out", "--upgrade", "--expect-certificate"}
WORDS = {"--activation", "--init", "--noise", "--require", "--method", "--route", "--engine", "--proof", "--as",
         "--kind", "--scheduler"}


@pytest.fixture(autouse=True)
def one_parser(monkeypatch):
    """One parser for all the cases (36 ms to build on a loaded machine; argparse keeps no state between parses)."""
    import exactrelu.cli

    parser = build_parser()
    monkeypatch.setattr(exactrelu.cli, "_parser", lambda: parser)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Good small files, and bad ones of every kind."""
    d = tmp_path_factory.mktemp("fuzz")
    inst = planted(d=3, k=2, m=2, n=12, seed=0)
    f = {"inst": str(write_instance(inst, d / "inst.json")), "dir": str(d / "a-directory"),
         "missing": str(d / "no.json")}
    os.mkdir(f["dir"])
    cert = realizes_certificate(inst, inst.planted)
    f["cert"] = str(write_certificate(cert, d / "cert.json"))
    (d / "weights.json").write_text(json.dumps({"format": "exactrelu.weights", "version": 1, "U": cert["U"],
                                                "V": cert["V"]}))
    f["weights"] = str(d / "weights.json")
    (d / "f.cnf").write_text("p cnf 3 2\n1 2 3 0\n-1 -2 -3 0\n")
    f["cnf"] = str(d / "f.cnf")
    (d / "a.txt").write_text("1 -2 3\n")
    f["assignment"] = str(d / "a.txt")
    (d / "s.toml").write_text('[sweep]\ntask = "recover"\nseeds = 1\n[grid]\nd = 3\nk = 2\nn = 20\n')
    f["spec"] = str(d / "s.toml")
    bad = {"empty.json": b"", "garbage.json": bytes(range(256)) * 4, "list.json": b"[]", "object.json": b"{}",
           "string.json": b'"x"', "huge.json": b"1e999999999", "nested.json": b"[" * 100_000 + b"]" * 100_000,
           "wrong-format.json": b'{"format": "exactrelu.instance", "version": 1}',
           "garbage.npz": b"PK\x03\x04" + bytes(100), "garbage.npy": b"\x93NUMPY" + bytes(50),
           "garbage.safetensors": b"\xff" * 16, "garbage.onnx": b"\x08\x07" + bytes(30), "garbage.pt": b"PK" + bytes(9),
           "garbage.cnf": b"p cnf x y\n1 2 0\n3\n", "garbage.toml": b"[sweep\n", "garbage.csv": b"1,2\n3\n"}
    for name, data in bad.items():
        (d / name).write_bytes(data)
    f["bad"] = [str(d / name) for name in bad] + [f["dir"], f["missing"]]
    f["out"] = str(d / "out")
    return f


def good_invocations(f) -> dict[str, list[str]]:
    """One good invocation of every sub-command (what the cases change one thing of)."""
    o = f["out"]
    return {
        "demo": ["demo", "-d", "3", "-k", "2", "-m", "2", "-n", "30", "--seed", "1"],
        "generate": ["generate", "-d", "3", "-k", "2", "-m", "2", "-n", "20", "-o", o + ".json"],
        "recover": ["recover", f["inst"], "-k", "2", "-o", o + ".json"],
        "check": ["check", f["cert"], f["inst"]],
        "patterns": ["patterns", f["inst"]],
        "solve": ["solve", f["inst"], "-k", "2", "-o", o + ".json"],
        "prove": ["prove", "--list"],
        "hardness from-cnf": ["hardness", "from-cnf", f["cnf"], "-o", o + ".json"],
        "hardness random": ["hardness", "random", "--vars", "4", "--clauses", "3", "-o", o + ".json"],
        "hardness lift": ["hardness", "lift", f["cnf"], f["assignment"], "-o", o + ".json"],
        "hardness decode": ["hardness", "decode", f["cnf"], f["cert"]],
        "hardness decide": ["hardness", "decide", f["inst"], "-o", o + ".json"],
        "certify": ["certify", f["inst"], "--weights", f["weights"], "-o", o + ".json"],
        "fit": ["fit", f["inst"], "-k", "2", "-o", o + ".json"],
        "sweep": ["sweep", f["spec"], "-o", o + "-dir"],
        "equiv": ["equiv", f["weights"], f["cert"]],
        "minimize": ["minimize", f["weights"], "-o", o + ".json"],
        "extract": ["extract", "--oracle", f["weights"], "-o", o + ".json"],
        "checker-bundle": ["checker-bundle", "-o", o + ".pyz"],
        "import": ["import", "--inputs", f["inst"], "--labels", f["inst"], "-o", o + ".json"],
    }


def _subparser(parser, words):
    for word in words:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) and word in action.choices:
                parser = action.choices[word]
                break
    return parser


def _numeric(action) -> bool:
    name = getattr(action.type, "__name__", "")
    return name in ("positive_int_arg", "nonnegative_int_arg", "seed_arg", "seconds_arg", "time_limit_seconds",
                    "integer", "number", "_fraction_text")


def _bad_values(action, f) -> list[str]:
    name = action.option_strings[0] if action.option_strings else action.dest
    if _numeric(action):
        kind = getattr(action.type, "__name__", "")
        out = BAD_NUMBERS + ["-1"] + (["9" * 50] if kind in INTEGER_TYPES else [])
        return out + (["0"] if kind == "positive_int_arg" else [])
    if action.choices:
        return ["", "bogus"]
    if name in OUTPUTS or action.dest in ("output",):
        return [os.path.join(f["missing"], "x.json"), ""]
    if name in INPUT_FILES or action.dest in INPUT_FILES:
        return list(f["bad"])
    if name in WORDS:
        return BAD_WORDS
    return []


def _replace(argv, option, value):
    """argv with ``option``'s value replaced by ``value`` (added when the good invocation does not have it)."""
    if option in argv:
        i = argv.index(option)
        return argv[:i + 1] + [value] + argv[i + 2:]
    return argv + [option, value]


def cases(f):
    """(command, argv) of every bad invocation."""
    parser = build_parser()
    for command, good in good_invocations(f).items():
        words = command.split()
        sub = _subparser(parser, words)
        positionals = [a for a in sub._actions if not a.option_strings and a.dest != "help"]
        given = good[len(words):]
        yield command, good + ["--bogus-option"]
        yield command, good + ["extra-argument"] if not any(a.nargs == "*" for a in positionals) else good + ["-Z"]
        for action in sub._actions:
            if not action.option_strings or isinstance(action, (argparse._HelpAction, argparse._StoreTrueAction)):
                continue
            if action.required:  # dropped
                opt = next(o for o in action.option_strings if o in given)
                i = given.index(opt)
                yield command, words + given[:i] + given[i + 2:]
            for value in _bad_values(action, f):
                yield command, words + _replace(given, action.option_strings[0], value)
        # positional files: each replaced by each bad file, and the last one dropped when it is required
        files = [x for x in given if x in (f["inst"], f["cert"], f["weights"], f["cnf"], f["assignment"], f["spec"])]
        for position, path in enumerate(files):
            for value in f["bad"]:
                yield command, words + [value if x == path else x for x in given]


def _invalid_certificate(command, argv, f) -> bool:
    """``check CERT`` of a readable JSON value that is not a valid certificate: the checker's verdict INVALID."""
    readable = ("list.json", "object.json", "string.json", "huge.json", "wrong-format.json")
    return command == "check" and argv[1].endswith(readable)


def run(argv, capsys):
    t0 = time.perf_counter()
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err, time.perf_counter() - t0


def test_hundreds_of_bad_invocations_exit_2_with_one_line_and_no_traceback(files, capsys, monkeypatch):
    monkeypatch.chdir(os.path.dirname(files["inst"]))
    all_cases = list(cases(files))
    assert len(all_cases) > 500
    wrong, slow = [], []
    for command, argv in all_cases:
        code, out, err, seconds = run(argv, capsys)
        lines = [x for x in err.splitlines() if x.strip()]
        if _invalid_certificate(command, argv, files):  # a JSON value that is no certificate: INVALID (exit 1)
            ok = code == 1 and out.startswith("INVALID: ") and not err
        else:
            ok = code == 2 and len(lines) == 1 and lines[0].startswith("exactrelu")
        if not ok or "Traceback" in err:
            wrong.append(f"{' '.join(argv)!r}: exit {code}, stderr {err[-300:]!r}")
        if seconds > 5:  # refused before any work (the first use of a reader may import its library: onnx, 2 s)
            slow.append(f"{' '.join(argv)!r}: {seconds:.1f} s")
    assert not wrong, f"{len(wrong)} of {len(all_cases)} wrong:\n" + "\n".join(wrong[:80])
    assert not slow, "\n".join(slow)


def test_with_json_every_refusal_is_one_json_object_on_stdout(files, capsys, monkeypatch):
    monkeypatch.chdir(os.path.dirname(files["inst"]))
    wrong = []
    for i, (command, argv) in enumerate(cases(files)):
        if i % 5 or _invalid_certificate(command, argv, files):
            continue
        code, out, err, _ = run(argv + ["--json"], capsys)
        try:
            record = json.loads(out)
        except ValueError:
            record = None
        if not (isinstance(record, dict) and record.get("ok") is False and record.get("exit_code") == code == 2
                and record.get("command") == command) or "Traceback" in err:
            wrong.append(f"{' '.join(argv)!r}: exit {code}, stdout {out[-200:]!r}, stderr {err[-200:]!r}")
    assert not wrong, f"{len(wrong)} wrong:\n" + "\n".join(wrong[:40])
