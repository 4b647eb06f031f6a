"""BLAS threads (issue 15, finding 8): one thread for small problems and on a busy machine."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info

from exactrelu import blas
from exactrelu.instances import planted
from exactrelu.recover import recover


def _threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_rule(monkeypatch):
    for v in ("EXACTRELU_BLAS_THREADS",) + blas._USER_VARS:
        monkeypatch.delenv(v, raising=False)
    assert blas.blas_threads(1000, load=0.0, cpus=2) == 1
    assert blas.blas_threads(blas.BLAS_SMALL, load=0.5, cpus=2) is None
    assert blas.blas_threads(blas.BLAS_SMALL, load=2.0, cpus=2) == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert blas.blas_threads(1000) is None
    monkeypatch.setenv("EXACTRELU_BLAS_THREADS", "3")
    assert blas.blas_threads(1000) == 3
    monkeypatch.setenv("EXACTRELU_BLAS_THREADS", "default")
    assert blas.blas_threads(1000) is None


def test_the_rule_reads_the_process_affinity(monkeypatch):
    """A process cut to one core (``taskset``, bench_user.py's 1-core row) is busy at load 1: one thread."""
    import os

    for v in ("EXACTRELU_BLAS_THREADS",) + blas._USER_VARS:
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert blas.blas_threads(blas.BLAS_SMALL, load=1.0) == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert blas.blas_threads(blas.BLAS_SMALL, load=1.0) is None


def test_recovery_runs_its_float_steps_with_one_thread(monkeypatch):
    for v in ("EXACTRELU_BLAS_THREADS",) + blas._USER_VARS:
        monkeypatch.delenv(v, raising=False)
    if not _threads():
        pytest.skip("no BLAS library that threadpoolctl can control")
    before = _threads()
    seen = []
    import exactrelu.recover.rowspan as rowspan

    real = rowspan.run_proposer

    def spy(*a, **k):
        seen.append(_threads())
        return real(*a, **k)

    monkeypatch.setattr(rowspan, "run_proposer", spy)
    inst = planted(d=3, k=2, m=2, n=50, seed=0)
    recover(inst, k=2)
    assert seen and all(t == [1] * len(t) for t in seen)
    assert _threads() == before  # restored afterwards
