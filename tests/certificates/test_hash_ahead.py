"""The instance hash made ahead in a forked child (envelope.instance_hash_ahead, exactrelu.parallel): the same hash, a failed child falls
back to the hash computed here, and leaving the block any way (an error, a time limit) leaves no child behind."""

from __future__ import annotations

import os
import time

import pytest

from exactrelu import parallel
from exactrelu.certificates import envelope
from exactrelu.errors import TimeLimitExceeded
from exactrelu.instances import planted
from exactrelu.recover import recover


@pytest.fixture
def forking(monkeypatch):
    """instance_hash_ahead forks for every instance (whatever the cores, threads and sizes of the test machine);
    the jobs it starts are recorded."""
    jobs = []
    real = parallel.start
    monkeypatch.setattr(parallel, "check_workers", lambda entries: 2)
    monkeypatch.setattr(parallel, "idle_core", lambda: True)
    monkeypatch.setattr(parallel, "start", lambda *a, **kw: jobs.append(real(*a, **kw)) or jobs[-1])
    return jobs


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # reaped already: no such child of ours
    return False


def test_recover_takes_the_hash_of_the_child_and_it_is_the_same(forking, monkeypatch):
    inst = planted(d=4, k=2, m=2, n=200, seed=5)
    plain = envelope.instance_sha256(inst)
    taken = []
    real = parallel.Ahead.result
    monkeypatch.setattr(parallel.Ahead, "result", lambda self: taken.append(real(self)) or taken[-1])
    res = recover(inst, k=2, random_state=0)
    assert res.certificate["instance_sha256"] == plain
    assert taken == [plain]  # the child's digest, validated, is the one in the certificate
    assert len(forking) == 1 and forking[0].pid is None  # joined and reaped
    assert envelope.AHEAD_KEY not in inst._cache


@pytest.mark.parametrize("failure", ["raises", "wrong text", "killed"])
def test_a_failed_child_means_the_hash_is_computed_here(monkeypatch, failure):
    inst = planted(d=3, k=2, m=2, n=60, seed=2)
    plain = envelope.instance_sha256(inst)

    def bad(instance):
        if failure == "raises":
            raise MemoryError
        if failure == "killed":
            os.kill(os.getpid(), 9)
        return "ab" * 32 + "\n"  # not exactly a hex digest

    real, jobs = parallel.start, []
    monkeypatch.setattr(parallel, "check_workers", lambda entries: 2)
    monkeypatch.setattr(parallel, "idle_core", lambda: True)
    monkeypatch.setattr(parallel, "start", lambda compute, arg, valid: jobs.append(real(bad, arg, valid)) or jobs[-1])
    with envelope.instance_hash_ahead(inst):
        assert envelope.instance_sha256(inst) == plain
    assert len(jobs) == 1 and jobs[0].pid is None


def test_an_error_in_the_block_kills_the_child(forking, monkeypatch):
    inst = planted(d=3, k=2, m=2, n=60, seed=2)
    monkeypatch.setattr(envelope, "_text_sha256", lambda instance: time.sleep(60) or "0" * 64)
    with pytest.raises(KeyboardInterrupt):
        with envelope.instance_hash_ahead(inst):
            pid = inst._cache[envelope.AHEAD_KEY].pid
            raise KeyboardInterrupt
    assert _gone(pid) and envelope.AHEAD_KEY not in inst._cache


def test_a_time_limit_leaves_no_child(forking, monkeypatch):
    inst = planted(d=6, k=4, m=4, n=400, seed=1)
    monkeypatch.setattr(envelope, "_text_sha256", lambda instance: time.sleep(60) or "0" * 64)
    with pytest.raises(TimeLimitExceeded):
        recover(inst, k=4, random_state=0, time_limit=1e-9)
    assert forking and all(job.pid is None for job in forking)
    assert envelope.AHEAD_KEY not in inst._cache


def test_no_fork_below_the_threshold_or_when_asked_not_to(monkeypatch):
    inst = planted(d=3, k=2, m=2, n=40, seed=1)
    started = []
    monkeypatch.setattr(parallel, "start", lambda *a, **kw: started.append(a))
    with envelope.instance_hash_ahead(inst):  # 200 entries: under the threshold
        assert envelope.AHEAD_KEY not in inst._cache
    monkeypatch.setattr(parallel, "PARALLEL_CHECK_ENTRIES", 10)
    for asked in ("1", "many"):  # one process asked for, or a malformed value (verify() reports it): no fork
        monkeypatch.setenv("EXACTRELU_CHECK_WORKERS", asked)
        with envelope.instance_hash_ahead(inst):
            assert envelope.AHEAD_KEY not in inst._cache
    monkeypatch.delenv("EXACTRELU_CHECK_WORKERS")
    monkeypatch.setattr(parallel, "check_workers", lambda entries: 2)
    monkeypatch.setattr(parallel, "_runnable", lambda: 3)  # this process and two others runnable: no fork
    with envelope.instance_hash_ahead(inst):
        assert envelope.AHEAD_KEY not in inst._cache
    assert started == []
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    readings = iter([1, 2, 1])  # one reading of two runnable tasks in three: not idle
    monkeypatch.setattr(parallel, "_runnable", lambda: next(readings))
    assert not parallel.idle_core()
    monkeypatch.setattr(parallel, "_runnable", lambda: 1)  # only this process: the other core is idle
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (5.0, 5.0, 5.0))  # (a job that ended: not counted)
    assert parallel.idle_core()


def test_without_proc_loadavg_the_load_average_decides(monkeypatch):
    def missing():
        raise OSError("no /proc/loadavg")

    monkeypatch.setattr(parallel, "_runnable", missing)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (5.0, 5.0, 5.0))
    assert not parallel.idle_core()
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    assert parallel.idle_core()


@pytest.mark.skipif(not os.path.exists("/proc/loadavg"), reason="no /proc/loadavg")
def test_the_runnable_tasks_count_this_process():
    assert parallel._runnable() >= 1
    assert parallel._own_running_threads() >= 1  # the thread reading is running


def test_this_process_s_own_runnable_threads_are_counted_once(monkeypatch):
    import io

    # /proc/loadavg says 4 runnable tasks; 3 of them are this process's threads (BLAS spinning after a float step)
    monkeypatch.setattr(parallel, "open", lambda path: io.StringIO("0.50 0.40 0.30 4/300 12345\n"), raising=False)
    monkeypatch.setattr(parallel, "_own_running_threads", lambda: 3)
    assert parallel._runnable() == 2  # this process once, and one other task
    monkeypatch.setattr(parallel, "_own_running_threads", lambda: 10**6)
    assert parallel._runnable() == 1  # never below this process
    calls = iter([1, 3])  # a thread that started or stopped between the two readings: the fewer is subtracted
    monkeypatch.setattr(parallel, "_own_running_threads", lambda: next(calls))
    assert parallel._runnable() == 4


def test_cancel_kills_a_running_child_and_result_is_then_none():
    job = parallel.start(lambda s: time.sleep(60) or s, "x")
    pid = job.pid
    job.cancel()
    assert _gone(pid) and job.result() is None
    job.cancel()  # idempotent


def test_a_child_not_finished_is_waited_for_at_full_priority_or_killed(monkeypatch):
    job = parallel.start(lambda s: time.sleep(0.5) or s, "done")
    assert os.getpriority(os.PRIO_PROCESS, job.pid) >= os.getpriority(os.PRIO_PROCESS, 0)  # the child yields
    assert job.result() == "done"  # not finished at the join: raised back (permitted here) and waited for
    job = parallel.start(lambda s: time.sleep(60) or s, "never")
    pid = job.pid

    def refused(*args):
        raise PermissionError("not permitted")

    monkeypatch.setattr(parallel.os, "setpriority", refused)
    t0 = time.monotonic()
    assert job.result() is None and _gone(pid)  # killed: the caller computes the text itself
    assert time.monotonic() - t0 < 30
