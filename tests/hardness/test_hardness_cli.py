"""`exactrelu hardness ...` end to end (exit codes 0 / 1 / 2, files written and checked)."""

import json

import pytest

from exactrelu.certificates import checker
from exactrelu.cli import main
from exactrelu.hardness import parse_assignment, read_dimacs


@pytest.fixture
def files(tmp_path):
    (tmp_path / "f.cnf").write_text("c small\np cnf 3 3\n1 2 3 0\n-1 -2 0\n2 -3 0\n")
    (tmp_path / "a.txt").write_text("s SATISFIABLE\nv 1 -2 -3 0\n")
    (tmp_path / "bad.txt").write_text("v -1 -2 -3 0\n")
    return tmp_path


def test_from_cnf_lift_decode_check(files, capsys):
    t = files
    assert main(["hardness", "from-cnf", str(t / "f.cnf"), "-o", str(t / "i.json")]) == 0
    assert main(["hardness", "lift", str(t / "f.cnf"), str(t / "a.txt"), "-o", str(t / "c.json"),
                 "--instance-out", str(t / "i2.json")]) == 0
    assert (t / "i.json").read_text() == (t / "i2.json").read_text()
    assert checker.main([str(t / "c.json"), str(t / "i.json")]) == 0
    assert main(["hardness", "decode", str(t / "f.cnf"), str(t / "c.json"), "-o", str(t / "back.txt")]) == 0
    assert parse_assignment((t / "back.txt").read_text(), 3) == (True, False, False)
    assert "v 1 -2 -3 0" in capsys.readouterr().out


def test_random_and_decide(tmp_path, capsys):
    t = tmp_path
    assert main(["hardness", "random", "--vars", "4", "--clauses", "6", "--seed", "2", "--planted",
                 "--formula-out", str(t / "r.cnf"), "-o", str(t / "r.json")]) == 0
    f = read_dimacs(t / "r.cnf")
    assert type(f).__name__ == "NAEFormula" and len(f.clauses) == 6
    assert main(["hardness", "decide", str(t / "r.json"), "-o", str(t / "d.json")]) == 0
    assert json.loads((t / "d.json").read_text())["claim"] == "realizes"
    assert checker.main([str(t / "d.json"), str(t / "r.json")]) == 0
    capsys.readouterr()
    # an unsatisfiable formula: a hinted not-realizable certificate (or DRUP), progress on stderr with -v
    (t / "u.cnf").write_text("p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
    assert main(["hardness", "from-cnf", str(t / "u.cnf"), "-o", str(t / "u.json")]) == 0
    assert main(["hardness", "decide", str(t / "u.json"), "-v", "--engine", "lazy", "-o", str(t / "n.json")]) == 0
    out = capsys.readouterr()
    assert "not-realizable" in out.out and "solver rounds" in out.out and "decide: case 6" in out.err
    assert all("lrat" in c for c in json.loads((t / "n.json").read_text())["cases"])
    assert checker.main([str(t / "n.json"), str(t / "u.json")]) == 0
    assert main(["hardness", "decide", str(t / "u.json"), "--proof", "drup", "-o", str(t / "n1.json")]) == 0
    assert all("lrat" in c for c in json.loads((t / "n1.json").read_text())["cases"])  # hints from DRUP, trimmed by us
    assert checker.main([str(t / "n1.json"), str(t / "u.json")]) == 0
    assert main(["hardness", "decide", str(t / "u.json"), "--engine", "tree", "-o", str(t / "n2.json")]) == 0
    assert "nodes" in capsys.readouterr().out
    assert main(["hardness", "decode", str(t / "r.cnf"), str(t / "d.json")]) == 0
    assert main(["hardness", "random", "--kind", "cnf", "--vars", "3", "--clauses", "2", "-o", str(t / "c.json")]) == 0
    (t / "u.cnf").write_text("p cnf 1 1\n1 1 1 0\n")
    assert main(["hardness", "from-cnf", "--as", "nae", str(t / "u.cnf"), "-o", str(t / "u.json")]) == 0
    assert main(["hardness", "decide", str(t / "u.json"), "--U", "1,1", "--method", "exact", "-o", str(t / "ud.json")]) == 0
    assert "not-realizable" in capsys.readouterr().out
    assert checker.main([str(t / "ud.json"), str(t / "u.json")]) == 0


def test_errors_and_exit_codes(files, capsys):
    t = files
    assert main(["hardness", "lift", str(t / "f.cnf"), str(t / "bad.txt"), "-o", str(t / "x.json")]) == 2
    assert "falsifies clauses [0]" in capsys.readouterr().err
    assert main(["hardness", "lift", str(t / "f.cnf"), str(t / "nope.txt"), "-o", str(t / "x.json")]) == 2
    assert main(["hardness", "decode", str(t / "f.cnf"), str(t / "a.txt")]) == 2  # not JSON
    (t / "w.json").write_text(json.dumps({"U": [["1", "1"]], "V": [["1"] * 5, ["-1"] * 5]}))
    assert main(["hardness", "decode", str(t / "f.cnf"), str(t / "w.json")]) == 1  # does not realize
    assert "NotRealizable" in capsys.readouterr().err
    (t / "l.json").write_text("[1]")
    assert main(["hardness", "decode", str(t / "f.cnf"), str(t / "l.json")]) == 2
    assert main(["hardness", "decode", str(t / "f.cnf"), str(t / "none.json")]) == 2
    assert main(["hardness", "from-cnf", str(t / "a.txt"), "-o", str(t / "x.json")]) == 2
    assert "a.txt, line 1: clause before" in capsys.readouterr().err
    assert main(["hardness"]) == 2
    assert main(["hardness", "from-cnf", str(t / "f.cnf"), "-o", str(t / "i.json")]) == 0
    # undecided: nothing claimed, exit 1
    assert main(["hardness", "decide", str(t / "i.json"), "--engine", "tree", "--max-nodes", "2", "-o", str(t / "x.json")]) == 3
    assert main(["hardness", "decide", str(t / "i.json"), "--time-limit", "0", "-o", str(t / "x.json")]) == 3
    assert not (t / "x.json").exists()
