"""The exactrelu command: exit codes 0 / 1 / 2, one-line errors, no tracebacks."""

import json

import pytest

from exactrelu.cli import build_parser, main


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_demo_small(capsys, tmp_path):
    code, out, _ = run(capsys, "demo", "-d", 6, "-k", 3, "-m", 3, "-n", 400, "-o", tmp_path / "c.json")
    assert code == 0
    assert "parameter error vs planted    0" in out
    assert "1200 of 1200" in out and "independent checker" in out
    assert json.loads((tmp_path / "c.json").read_text())["claim"] == "realizes"


def test_generate_recover_check(capsys, tmp_path):
    inst = tmp_path / "i.json"
    assert run(capsys, "generate", "-d", 4, "-k", 2, "-m", 3, "-n", 150, "--seed", 3, "-o", inst)[0] == 0
    cert = tmp_path / "c.json"
    code, out, _ = run(capsys, "recover", inst, "-k", 2, "-o", cert, "-v")
    assert code == 0 and "certified" in out and "parameter error vs planted (canonical form): 0" in out
    code, out, _ = run(capsys, "check", cert, inst)
    assert code == 0 and out.startswith("VALID")
    # default output name
    assert run(capsys, "recover", inst, "-k", 2)[0] == 0
    assert (tmp_path / "i.json.cert.json").exists()


def test_generate_npz_and_power(capsys, tmp_path):
    p = tmp_path / "i.npz"
    assert run(capsys, "generate", "-d", 3, "-k", 2, "-m", 2, "-n", 100, "--input-bits", 10, "-o", p)[0] == 0
    assert run(capsys, "recover", p, "-k", 2, "-o", tmp_path / "c.json")[0] == 0
    q = tmp_path / "p.json"
    assert run(capsys, "generate", "-d", 3, "-k", 2, "-m", 2, "-n", 100, "--activation", "power:2", "-o", q)[0] == 0
    code, out, _ = run(capsys, "recover", q, "-k", 2, "-o", tmp_path / "c2.json")
    assert code == 0
    code, _, err = run(capsys, "recover", q, "-k", 2, "--activation", "relu")
    assert code == 2 and "differs" in err


def test_failed_check_exits_1(capsys, tmp_path):
    inst = tmp_path / "i.json"
    run(capsys, "generate", "-d", 3, "-k", 2, "-m", 2, "-n", 80, "-o", inst)
    cert = tmp_path / "c.json"
    run(capsys, "recover", inst, "-k", 2, "-o", cert)
    obj = json.loads(cert.read_text())
    obj["U"][0][0] = "12345"
    cert.write_text(json.dumps(obj))
    code, out, _ = run(capsys, "check", cert, inst)
    assert code == 1 and out.startswith("INVALID")


def test_rank_over_k_exits_1_with_a_not_realizable_certificate(capsys, tmp_path):
    inst = tmp_path / "i.json"
    run(capsys, "generate", "-d", 3, "-k", 3, "-m", 3, "-n", 200, "-o", inst)
    code, out, err = run(capsys, "recover", inst, "-k", 2, "-o", tmp_path / "c.json")
    assert code == 1 and "NOT REALIZABLE (certified)" in out and "Traceback" not in err
    assert json.loads((tmp_path / "c.json").read_text())["claim"] == "not-realizable"
    code, out, _ = run(capsys, "check", tmp_path / "c.json", inst)
    assert code == 0 and out.startswith("VALID: not-realizable")
    code, _, err = run(capsys, "recover", inst, "-k", 4, "-o", tmp_path / "c.json")
    assert code == 1 and "AssumptionViolated" in err and "rank" in err


@pytest.mark.parametrize("args,needle", [
    (["recover", "missing.json", "-k", "2"], "no such instance"),
    (["generate", "-d", "2", "-k", "1", "-m", "1", "-n", "5", "-o", "x.txt"], ".json or .npz"),
    (["generate", "-d", "2", "-k", "1", "-m", "1", "-n", "5", "--activation", "tanh", "-o", "x.json"], "activation"),
    (["check", "missing-cert.json", "missing.json"], "cannot read"),
    (["demo", "--activation", "power:0"], "activation"),
])
def test_bad_input_exits_2(capsys, tmp_path, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *args)
    assert code == 2 and needle in err and "Traceback" not in err


def test_malformed_instance_file_exits_2(capsys, tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"format": "exactrelu.instance", "version": 1, "inputs": [[1, 2]], "labels": [[1], [2]]}')
    code, _, err = run(capsys, "recover", p, "-k", 1)
    assert code == 2 and "samples" in err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["recover"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:  # counts are refused by the argparse type, before the command runs
        main(["generate", "-d", "0", "-k", "1", "-m", "1", "-n", "5", "-o", "x.json"])
    assert e.value.code == 2 and "argument -d: must be a positive integer, got '0'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["no-such-command"])
    assert e.value.code == 2
    assert main([]) == 2


@pytest.mark.parametrize("cmd", ["demo", "generate", "recover", "check"])
def test_help(cmd, capsys):
    with pytest.raises(SystemExit) as e:
        main([cmd, "--help"])
    assert e.value.code == 0 and "usage" in capsys.readouterr().out


def test_parser_lists_commands():
    text = build_parser().format_help()
    for cmd in ("demo", "generate", "recover", "check"):
        assert cmd in text
