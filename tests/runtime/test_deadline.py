"""Every long command has a time limit (issue 15, finding 7): ``time_limit=`` / ``--time-limit`` on
recover, solve, patterns, certify and fit stop with TimeLimitExceeded (exit 1, nothing claimed, what
was done so far). A limit of 0 s has passed at the first check, so these tests do not depend on
timing."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.deadline import Deadline, with_deadline
from exactrelu.errors import InvalidInput, TimeLimitExceeded
from exactrelu.exact.matrix import QMatrix
from exactrelu.fit import fit
from exactrelu.instances import Instance, planted, write_instance
from exactrelu.decide.enumeration.patterns import extreme_rays, nonnegative_patterns, sign_patterns
from exactrelu.recover import recover
from exactrelu.exact.linalg import nonsingular_minor
from exactrelu.decide.enumeration.span_refutation import span_refutation
from exactrelu.recover.given_weights import certify_weights
from exactrelu.decide import solve, solve_decision

LINE = [[t, 1] for t in (-2, -1, 0, 1, 2, 3)]


def _random_labels(n=12, k=2, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, (n, 2))
    Y = rng.integers(-2, 3, (n, k)) @ rng.integers(-2, 3, (k, k))
    return Instance(QMatrix.from_numpy(X), QMatrix.from_numpy(Y))


def test_deadline_object():
    for bad in (-1, math.nan, math.inf, True, "3"):
        with pytest.raises(InvalidInput, match="time limit"):
            Deadline(bad)
    d = Deadline(10)
    assert not d.expired() and 0 < d.remaining() <= 10 and d.elapsed() >= 0
    with pytest.raises(TimeLimitExceeded, match="done so far: half") as exc:
        Deadline(0).check(lambda: "half")
    assert exc.value.done == "half"
    seen = []
    with pytest.raises(TimeLimitExceeded, match="step 1"):
        with_deadline(seen.append, Deadline(0))("step 1")
    assert seen == []


def test_solve_and_patterns_stop_at_the_limit():
    inst = _random_labels()
    with pytest.raises(TimeLimitExceeded, match="done so far"):
        solve_decision(inst, 2, try_recovery=False, time_limit=0)
    with pytest.raises(TimeLimitExceeded, match="done so far"):
        solve(inst, 2, try_recovery=False, time_limit=0)
    B = QMatrix.from_rows([[1, 1, 0], [0, 1, 1]])
    with pytest.raises(TimeLimitExceeded, match="extreme rays"):
        extreme_rays(QMatrix.from_rows([[1, 0, 1, 2], [0, 1, 1, -1]]), deadline=Deadline(0))
    with pytest.raises(TimeLimitExceeded, match="faces"):
        nonnegative_patterns(B, rays=extreme_rays(B), deadline=Deadline(0))
    with pytest.raises(TimeLimitExceeded, match="sign patterns"):
        list(sign_patterns([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]], deadline=Deadline(0)))
    unreal = Instance.from_arrays(LINE, [[0, 1], [0, 0], [0, 0], [1, 0], [2, 0], [3, 1]])
    outputs, _ = nonsingular_minor(unreal.labels, 2)
    with pytest.raises(TimeLimitExceeded, match="span refutation"):
        span_refutation(unreal, outputs, [0, 1], deadline=Deadline(0))


def test_recover_certify_and_fit_stop_at_the_limit():
    inst = planted(d=4, k=2, m=2, n=60, seed=2)
    with pytest.raises(TimeLimitExceeded, match="done so far: proposal"):
        recover(inst, k=2, init="search", time_limit=0)
    V = inst.planted.V.to_float() * 1.01 + 1e-3  # not exact: recovery from the first layer runs
    with pytest.raises(TimeLimitExceeded):
        certify_weights(inst, inst.planted.U.to_float(), V, time_limit=0)
    with pytest.raises(TimeLimitExceeded):
        fit(inst, 2, method="gradient", time_limit=0)
    assert recover(inst, k=2, time_limit=1e6).certificate["claim"] == "realizes"  # a generous limit changes nothing


def test_time_limit_on_the_command_line(tmp_path, capsys):
    inst = planted(d=4, k=2, m=2, n=60, seed=2)
    path = write_instance(inst, tmp_path / "i.json")
    hard = write_instance(_random_labels(), tmp_path / "h.json")
    out = str(tmp_path / "c.json")
    for argv in (["recover", str(path), "-k", "2", "--init", "search", "-o", out],
                 ["solve", str(hard), "-k", "2", "--enumerate-only", "-o", out],
                 ["patterns", str(hard), "--nonnegative"],
                 ["fit", str(path), "-k", "2", "--method", "gradient", "-o", out]):
        assert main(argv + ["--time-limit", "0"]) == 3, argv
        err = capsys.readouterr().err
        assert "TimeLimitExceeded" in err and "nothing is claimed" in err and err.count("\n") == 1, err
        assert not (tmp_path / "c.json").exists()
    cert = tmp_path / "w.cert.json"
    cert.write_text(json.dumps({"U": inst.planted.U.to_strings(), "V": [[str(float(x) * 1.01) for x in row]
                                                                        for row in inst.planted.V.to_fractions()]}))
    assert main(["certify", str(path), "--weights", str(cert), "--time-limit", "0", "-o", str(tmp_path / "c.json")]) == 3
    with pytest.raises(SystemExit) as exc:  # a usage error (argparse), before the command runs
        main(["solve", str(hard), "-k", "2", "--time-limit", "-1"])
    assert exc.value.code == 2
