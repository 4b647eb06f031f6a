"""The checker's work is bounded by its files (issues 15 and 26): every size is checked before the work, a file over
a limit is one UnreadableInput line (exit 2), and what is in the limits costs time and memory in proportion to the
file. Checked by the *memory* used (tracemalloc, deterministic) or, for CPU loops, under a generous watchdog (60 s
for work that takes well under a second): no assertion depends on timing. The library's limits are tested in
tests/io/test_limits.py."""

from __future__ import annotations

import contextlib
import json
import signal
import tracemalloc

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.trusted import common
from exactrelu.certificates.trusted.lrat import check_hinted
from exactrelu.instances import planted, write_instance


@contextlib.contextmanager
def watchdog(seconds: int = 60):
    """Fail (instead of hanging for hours) if the block runs longer than ``seconds``."""
    def fire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: the work is not bounded")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def peak_memory_below(megabytes: float):
    tracemalloc.start()
    try:
        yield
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < megabytes * 2**20, f"peak {peak / 2**20:.0f} MB"


@pytest.fixture
def small(tmp_path):
    inst = planted(d=3, k=2, m=2, n=12, seed=0, input_bits=6)
    path = write_instance(inst, tmp_path / "small.json", include_planted=False)
    from exactrelu.certificates.claims.realizes import realizes_certificate

    cert = realizes_certificate(inst, inst.planted)
    return inst, path, json.loads(path.read_text()), cert


def _nr(path, k, cases, mode="given"):
    inst = checker.load_instance(str(path))
    return {"format": "exactrelu.certificate", "version": 1, "claim": "not-realizable",
            "instance_sha256": checker.instance_sha256(inst["inputs"], inst["labels"]),
            "activation": {"name": "relu"}, "k": k, "output_weights": mode, "cases": cases}


def _m1(tmp_path, n):
    obj = {"format": "exactrelu.instance", "version": 1, "inputs": [[str(j), "1"] for j in range(n)],
           "labels": [["0"] for _ in range(n)]}
    p = tmp_path / f"m1_{n}.json"
    p.write_text(json.dumps(obj))
    return p


def test_lp_infeasible_with_many_variables_and_no_rows_is_refuted_at_once():
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "lp-infeasible",
            "system": {"nvars": 10**12, "A_eq": [], "b_eq": [], "A_ub": [], "b_ub": []}, "y_eq": [], "y_ub": []}
    with watchdog():
        with pytest.raises(checker.CheckFailed, match="not negative"):
            checker.check(cert, None)



def test_unknown_output_weights_count_cases_before_building_them(tmp_path):
    p = _m1(tmp_path, 3)
    with peak_memory_below(20), watchdog():
        with pytest.raises(checker.CheckFailed, match="501501 cases"):
            checker.check(_nr(p, 1000, [], "unknown"), checker.load_instance(str(p)))



def test_refutation_literals_are_bounded(tmp_path, monkeypatch):
    p = _m1(tmp_path, 10)
    cert = _nr(p, 3, [{"U": [["0"] * 3], "lemmas": [], "lrat": [[0]]}])
    monkeypatch.setitem(common._limits, "literals", 29)
    with pytest.raises(checker.UnreadableInput, match="limit literals"):
        checker.check(cert, checker.load_instance(str(p)))
    monkeypatch.setitem(common._limits, "literals", 30)
    with pytest.raises(checker.CheckFailed, match="without a conflict"):
        checker.check(cert, checker.load_instance(str(p)))



def test_a_long_hinted_step_is_checked_in_linear_time():
    step = list(range(1, 10**6 + 1))
    with watchdog():
        with pytest.raises(checker.CheckFailed, match="without a conflict"):
            check_hinted([], [[*step, 0]], 10**6)
        assert check_hinted([[1], [-1]], [[*step, 0, 1], [0, 1, 2]], 10**6) == 2



def test_hinted_check_memory_follows_the_literals_given():
    with peak_memory_below(60):  # 2 * 10^7 + 1 bytes of assignment, nothing per variable beyond that
        assert check_hinted([[5], [-5]], [[0, 1, 2]], 10**7) == 1



def test_deeply_nested_case_tree_is_read_in_linear_space(tmp_path):
    p = _m1(tmp_path, 200)
    tree = [{"split": [j, i]} for j in range(200) for i in range(100)] + [{"farkas": []}] * 20001
    cert = _nr(p, 100, [{"U": [["0"] * 100], "tree": tree}])
    inst = checker.load_instance(str(p))
    with peak_memory_below(60), watchdog():  # before: a copy of the decisions per open subtree (2 GB)
        with pytest.raises(checker.CheckFailed, match="Farkas combination"):
            checker.check(cert, inst)



def test_checker_maps_memory_errors_to_exit_2(monkeypatch, capsys, small, tmp_path):
    _, path, _, cert = small
    cpath = tmp_path / "c.json"
    cpath.write_text(json.dumps(cert))

    def fail(*a):
        raise MemoryError

    monkeypatch.setattr(checker, "check", fail)
    assert checker.main([str(cpath), str(path)]) == 2
    assert "out of memory" in capsys.readouterr().err
