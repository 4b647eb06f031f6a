"""The library's own independent check runs on forked workers for large instances, every idle core: same verdict,
same refusals."""

from __future__ import annotations

import threading

import pytest

from exactrelu import parallel
from exactrelu.certificates import checker, envelope, fast
from exactrelu.errors import CertificateInvalid, InvalidInput
from exactrelu.instances import planted
from exactrelu.instances.checker_view import checker_instance


def _cert(inst):
    return {**envelope.network_fields(inst, inst.planted, "realizes"), "provenance": envelope.provenance()}


def _entries(inst):
    return inst.n * (inst.d + inst.m)


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.delenv("EXACTRELU_CHECK_WORKERS", raising=False)
    monkeypatch.setattr(parallel, "PARALLEL_CHECK_ENTRIES", 100)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # threads other tests left behind do not count here
    monkeypatch.setattr(parallel, "_runnable", lambda: 1)  # only this process runs: every core is idle


def test_large_instances_are_checked_on_two_workers_with_the_same_verdict(small_threshold, monkeypatch):
    inst = planted(d=4, k=2, m=2, n=300, seed=3)
    cert = _cert(inst)
    one = checker.check(cert, checker_instance(inst))
    calls = []
    real = fast.check
    monkeypatch.setattr(fast, "check", lambda c, i, w: calls.append(w) or real(c, i, w))
    assert parallel.check_workers(_entries(inst)) == 2
    assert envelope.verify(cert, inst) == one
    assert calls == [2]


def test_every_idle_core_checks(small_threshold, monkeypatch):
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert parallel.idle_cores() == 8 and parallel.check_workers(10**6) == 8
    monkeypatch.setattr(parallel, "_runnable", lambda: 6)  # five other tasks run: three cores are idle
    assert parallel.idle_cores() == 3 and parallel.check_workers(10**6) == 3
    monkeypatch.setattr(parallel, "_runnable", lambda: 30)  # a loaded machine: this process alone
    assert parallel.idle_cores() == 1 and parallel.check_workers(10**6) == 1

    def missing():
        raise OSError("no /proc/loadavg")

    monkeypatch.setattr(parallel, "_runnable", missing)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (2.5, 0.0, 0.0))
    assert parallel.idle_cores() == 6


def test_a_false_claim_is_refused_on_workers_too(small_threshold):
    inst = planted(d=4, k=2, m=2, n=300, seed=3)
    cert = _cert(inst)
    cert["U"] = [list(row) for row in cert["U"]]
    cert["U"][0][0] = str(envelope.Fraction(cert["U"][0][0]) + 1)
    with pytest.raises(CertificateInvalid, match="differs from the label"):
        envelope.verify(cert, inst)


def test_small_instances_threads_and_the_environment_decide_one_process(small_threshold, monkeypatch):
    assert parallel.check_workers(10 * (3 + 2)) == 1  # 50 entries: under the threshold
    inst = planted(d=4, k=2, m=2, n=300, seed=3)
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert parallel.check_workers(_entries(inst)) == 1  # another thread runs: no fork
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert parallel.check_workers(_entries(inst)) == 2
    monkeypatch.setenv("EXACTRELU_CHECK_WORKERS", "1")
    assert parallel.check_workers(_entries(inst)) == 1
    monkeypatch.setenv("EXACTRELU_CHECK_WORKERS", "3")
    assert parallel.check_workers(_entries(inst)) == 3
    for bad in ("0", "many", "-2", "65"):
        monkeypatch.setenv("EXACTRELU_CHECK_WORKERS", bad)
        with pytest.raises(InvalidInput, match="EXACTRELU_CHECK_WORKERS"):
            parallel.check_workers(_entries(inst))


def test_the_library_checks_with_the_checker_it_is_told(monkeypatch):
    inst = planted(d=3, k=2, m=2, n=30, seed=2)
    cert = _cert(inst)
    used = []
    real_fast, real_ref = fast.check, checker.check
    monkeypatch.setattr(fast, "check", lambda *a: used.append("fast") or real_fast(*a))
    monkeypatch.setattr(checker, "check", lambda *a: used.append("reference") or real_ref(*a))
    for name, want in (("", "fast"), ("fast", "fast"), ("reference", "reference")):
        monkeypatch.setenv("EXACTRELU_CHECKER", name)
        assert envelope.verify(cert, inst).startswith("realizes: 30 samples") and used.pop() == want
    monkeypatch.setenv("EXACTRELU_CHECKER", "quick")
    with pytest.raises(InvalidInput, match="EXACTRELU_CHECKER must be"):
        envelope.verify(cert, inst)
