"""Every command: help text for every option, ``--json`` with one JSON object on stdout (errors too)."""

import argparse
import json

import numpy as np
import pytest

from exactrelu.cli import build_parser, main
from exactrelu.instances import Instance, planted, write_instance


def leaves(parser, path=()):
    """(command path, parser, help of the command) of every command that runs something."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                inner = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
                if inner:
                    yield path + (name,), sub, helps.get(name)  # a group: checked for its help only
                    yield from leaves(sub, path + (name,))
                else:
                    yield path + (name,), sub, helps.get(name)


COMMANDS = list(leaves(build_parser()))


def test_the_parser_walk_finds_the_commands():
    names = {" ".join(path) for path, _, _ in COMMANDS}
    assert {"demo", "generate", "recover", "check", "certify", "patterns", "solve", "prove", "hardness decide"} <= names


@pytest.mark.parametrize("path,parser,help_text", COMMANDS, ids=[" ".join(c[0]) for c in COMMANDS])
def test_every_command_and_option_has_help_and_json(path, parser, help_text):
    assert help_text, f"exactrelu {' '.join(path)} has no help text"
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        assert action.help, f"exactrelu {' '.join(path)}: {action.option_strings or action.dest} has no help text"
    if not any(isinstance(a, argparse._SubParsersAction) for a in parser._actions):
        assert "--json" in parser._option_string_actions, f"exactrelu {' '.join(path)} has no --json"


def run_json(capsys, *argv, code=0):
    assert main([str(a) for a in argv] + ["--json"]) == code
    out = capsys.readouterr().out
    record = json.loads(out)  # exactly one JSON document on stdout, nothing else
    assert isinstance(record, dict) and record["ok"] is (code == 0)
    return record


def test_json_outputs(tmp_path, capsys):
    ip = tmp_path / "i.json"
    rec = run_json(capsys, "generate", "-d", 3, "-k", 2, "-m", 2, "-n", 40, "-o", ip)
    assert rec["command"] == "generate" and rec["n"] == 40 and rec["instance"] == str(ip)
    cert = tmp_path / "c.json"
    rec = run_json(capsys, "recover", ip, "-k", 2, "-o", cert)
    assert rec["claim"] == "realizes" and rec["entries_verified"] == 80 and rec["parameter_error"] == "0"
    assert set(rec["timings"]) >= {"rank", "units"}
    rec = run_json(capsys, "check", cert, ip)
    assert rec["valid"] and rec["summary"].startswith("realizes")
    other = tmp_path / "j.json"
    write_instance(planted(d=3, k=2, m=2, n=40, seed=9), other)
    rec = run_json(capsys, "check", cert, other, code=1)
    assert rec["valid"] is False and "instance_sha256" in rec["reason"]
    rec = run_json(capsys, "patterns", ip, "--list")
    assert rec["mode"] == "orthants" and len(rec["patterns"]) == rec["patterns_met"]
    rec = run_json(capsys, "patterns", ip, "--nonnegative")
    assert rec["mode"] == "nonnegative" and rec["extreme_rays"] >= 1
    rec = run_json(capsys, "solve", ip, "-k", 2, "-o", tmp_path / "s.json")
    assert rec["claim"] == "realizes" and rec["rank"] == 2
    w = tmp_path / "w.npz"
    inst = planted(d=3, k=2, m=2, n=40)
    np.savez(w, U=inst.planted.U.to_float(), V=inst.planted.V.to_float())
    rec = run_json(capsys, "certify", ip, "--weights", w, "-o", tmp_path / "cw.json")
    assert rec["certified"] == "given weights" and rec["given_residual"]["n_failing"] == 0
    rec = run_json(capsys, "demo", "-d", 3, "-k", 2, "-m", 2, "-n", 60)
    assert rec["parameter_error"] == "0" and rec["n_entries"] == 120


def test_json_hardness_outputs(tmp_path, capsys):
    inst = tmp_path / "h.json"
    formula = tmp_path / "f.cnf"
    rec = run_json(capsys, "hardness", "random", "--vars", 4, "--clauses", 3, "--planted", "--formula-out", formula,
                   "-o", inst)
    assert rec["command"] == "hardness random" and rec["variables"] == 4 and rec["clauses"] == 3
    rec = run_json(capsys, "hardness", "from-cnf", formula, "-o", inst)
    assert rec["instance"] == str(inst)
    rec = run_json(capsys, "hardness", "decide", inst, "-o", tmp_path / "d.json")
    assert rec["claim"] in ("realizes", "not-realizable") and "lps" in rec["stats"]


def test_json_errors_carry_the_exit_code(tmp_path, capsys):
    rec = run_json(capsys, "recover", tmp_path / "missing.json", "-k", 2, code=2)
    assert rec["error"] == "InvalidInput" and rec["exit_code"] == 2 and "missing.json" in rec["message"]
    ip = tmp_path / "i.json"
    write_instance(planted(d=3, k=2, m=2, n=40), ip)
    rec = run_json(capsys, "recover", ip, "-k", 1, code=1)  # rank 2 > k = 1: a certified "no", not an error
    assert rec["ok"] is False and rec["claim"] == "not-realizable" and rec["certified"] is True
    assert "rank(labels) >= 2 > k = 1" in rec["checked"]
    rounded = tmp_path / "r.json"
    inst = planted(d=3, k=2, m=2, n=40)
    Y = inst.float_labels().copy()
    Y[3, 1] += 2.0**-30  # rank 2 = k, but no network reproduces the labels: refused, nothing certified
    write_instance(Instance.from_arrays(inst.float_inputs(), Y), rounded)
    rec = run_json(capsys, "recover", rounded, "-k", 2, code=1)
    assert rec["error"] == "NotRealizable" and rec["exit_code"] == 1
    assert main(["recover", str(rounded), "-k", "2"]) == 1
    assert capsys.readouterr().out == ""  # without --json the error is one line on stderr only
