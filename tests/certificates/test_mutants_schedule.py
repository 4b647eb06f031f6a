"""The checker's forked pools (trusted/schedule.py ``forks``, ``check_on_workers``, ``stopped_on_error``,
``abandon``): each line is needed. These lines schedule and stop work; none decides a verdict, but a pool left
running, a worker left unreaped or a certificate kept after its check is a fault of its own. Each test names the
mutant of ``benchmarks/mutate_checker.py`` it kills.

Mutants left alive, each equivalent: ``min(workers, n)`` and ``max(workers, blocks)`` with their operands swapped
(they commute), and the worker handler's ``join(5)`` -> ``join(4)`` / ``join(6)`` (woken by the notifier, the handler
leaves at once: the timeout is never reached).
"""

from __future__ import annotations

import multiprocessing
import os
import time
import warnings

import pytest

from exactrelu.certificates.trusted import schedule
from exactrelu.certificates.trusted.schedule import abandon, forks, stopped_on_error

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="forked workers")


def test_forks_exactly_when_more_than_one_worker_is_asked_for():
    """Mutants: ``workers > 1`` -> ``>=`` or ``> 2``, ``and`` -> ``or``, ``"fork" in`` -> ``not in``."""
    assert [forks(w) for w in (0, 1, 2, 3)] == [False, False, True, True]


def _pool():
    return multiprocessing.get_context("fork").Pool(2)


def test_an_error_is_raised_as_it_came_and_the_pool_abandoned_at_once():
    """Mutants: the ``raise`` after ``abandon`` dropped (the error swallowed), ``abandon(pool)`` deleted; and in
    abandon the handler's wake-up (``_change_notifier.put(None)``) deleted: the handler is then waited for 5 s."""
    pool = _pool()
    pids = [p.pid for p in pool._pool]

    def fails():
        raise LookupError("a verdict known before the last block")

    t = time.monotonic()
    with pytest.raises(LookupError, match="known before the last block"):
        stopped_on_error(pool, fails)
    assert time.monotonic() - t < 4  # abandon joins the worker handler for up to 5 s: it must be woken, not waited
    assert not pool._worker_handler.is_alive()
    assert all(not os.path.exists(f"/proc/{pid}") for pid in pids) or not os.path.exists("/proc/self")


def test_an_abandoned_pool_is_left_terminated_and_its_shutdown_cancelled():
    """Mutants: ``pool._terminate.cancel()`` and ``pool._state = "TERMINATE"`` deleted (the pool's own shutdown would
    still run at exit, and a collected pool warns that it was left running)."""
    pool = _pool()
    abandon(pool)
    assert not pool._terminate.still_active()
    assert pool._state == "TERMINATE"
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        pool.__del__()  # the warning "unclosed running multiprocessing pool" would be an error here


def test_a_normal_end_returns_what_consume_returned_and_closes_the_pool():
    """Mutants: ``pool.close()`` or ``pool.join()`` deleted, ``return out`` deleted."""
    pool = _pool()
    assert stopped_on_error(pool, lambda: sum(pool.imap(abs, [-3, 4]))) == 7
    assert pool._state != "RUN"
    assert all(p.exitcode is not None for p in pool._pool)  # joined: every worker has left


def test_a_check_on_workers_keeps_nothing_of_its_certificate(monkeypatch):
    """Mutant: ``_SHARED = ()`` in the ``finally`` deleted (the certificate and instance would stay referenced by
    the module after the check: memory held for nothing)."""
    seen = []
    monkeypatch.setattr(schedule, "combine_rows", lambda cert, results: seen.append(list(results)) or "ok")
    inst = {"inputs": [["1"], ["2"], ["3"]], "labels": [["1"], ["2"], ["3"]]}
    assert schedule.check_on_workers({"claim": "x"}, inst, 2) == "ok"
    assert schedule._SHARED == ()
    assert [text for _, text, _, _ in seen[0]] == [b"1 | 1\n", b"2 | 2\n3 | 3\n"]  # cuts(3, 2), in order
