"""solve_decision(..., executor=...): the extreme rays and faces decided on worker processes give the same
patterns, reports and certificates as the serial solver (decisions are read in order; speculative face
decisions made against an outdated span are dropped)."""

from dataclasses import asdict
from fractions import Fraction

import pytest

from exactrelu.cli import main
from exactrelu.exact.matrix import QMatrix
from exactrelu.instances import Instance, planted, write_instance
from exactrelu.decide import solve_decision as solve
from exactrelu.sweep.executors import Backend


@pytest.fixture(scope="module")
def pool():
    backend = Backend(workers=2)
    ex = backend.make()
    yield ex
    backend.close(ex)


def same(a, b):
    strip = lambda cert: {k: v for k, v in cert.items() if k != "provenance"}  # noqa: E731
    assert strip(a.certificate) == strip(b.certificate)
    assert a.status == b.status and a.summary == b.summary
    assert [asdict(p) for p in a.evidence["patterns"]] == [asdict(p) for p in b.evidence["patterns"]]


def test_units_found_in_faces_before_the_last_one(pool):
    inst = planted(d=2, k=3, m=3, n=12, seed=12, inputs="integer")  # units in faces 2, 4 and 5 of 5
    serial = solve(inst, 3, try_recovery=False)
    kinds = [(p.kind, p.outcome) for p in serial.evidence["patterns"]]
    assert kinds.count(("face", "unit")) == 3 and kinds[-1] == ("face", "unit") and ("face", "refuted") in kinds
    same(serial, solve(inst, 3, try_recovery=False, executor=pool, workers=2))


def test_many_extreme_rays(pool):
    inst = planted(d=3, k=5, m=5, n=40, seed=1, inputs="integer")
    serial = solve(inst, 5, try_recovery=False)
    assert sum(p.kind == "extreme-ray" for p in serial.evidence["patterns"]) > 20
    same(serial, solve(inst, 5, try_recovery=False, executor=pool, workers=2))
    same(solve(inst, 5, try_recovery=False, keep_certificates=False),
         solve(inst, 5, try_recovery=False, keep_certificates=False, executor=pool, workers=2))


def test_the_same_refutation(pool):
    inst = planted(d=2, k=2, m=2, n=14, seed=3, inputs="integer")
    Y = inst.labels.to_fractions()
    Y[0][0] += Fraction(1, 7)  # rank 2 still; no 2-unit network now
    bad = Instance(inst.inputs, QMatrix.from_rows(Y))
    serial = solve(bad, 2, try_recovery=False)
    parallel = solve(bad, 2, try_recovery=False, executor=pool, workers=2)
    assert serial.status == parallel.status == "not-realizable"
    assert (serial.evidence["reason"], serial.summary) == (parallel.evidence["reason"], parallel.summary)
    reports = [asdict(p) for p in serial.evidence["patterns"]]
    assert reports and reports == [asdict(p) for p in parallel.evidence["patterns"]]


def test_solve_workers_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "i.json"
    write_instance(planted(d=2, k=3, m=3, n=12, seed=12, inputs="integer"), path)
    assert main(["solve", str(path), "-k", "3", "--enumerate-only", "-o", str(tmp_path / "a.json")]) == 0
    assert main(["solve", str(path), "-k", "3", "--enumerate-only", "--workers", "2", "-o", str(tmp_path / "b.json")]) == 0
    import json

    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert a["U"] == b["U"] and a["V"] == b["V"]
    assert capsys.readouterr().out.count("VALID") == 2
    with pytest.raises(SystemExit) as exc:  # a usage error (the argparse type), before the command runs
        main(["solve", str(path), "-k", "3", "--workers", "0"])
    assert exc.value.code == 2
