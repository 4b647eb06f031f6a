"""A checker's pool of forked workers stops at once on an error, even when a dead worker holds a queue's lock."""

import multiprocessing
import os
import threading

import pytest

from exactrelu.certificates.trusted.schedule import abandon, stopped_on_error

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="forked workers")


def _pids(pool):
    return [p.pid for p in pool._pool]


def _gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:  # a zombie is still listed: reaped means no entry
            return False if fh.read() else True
    except OSError:
        return True


def test_normal_end_closes_and_joins():
    pool = multiprocessing.get_context("fork").Pool(2)
    assert stopped_on_error(pool, lambda: list(pool.imap(abs, range(-5, 5)))) == [5, 4, 3, 2, 1, 0, 1, 2, 3, 4]
    assert all(not p.is_alive() for p in pool._pool)


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="/proc")
def test_an_error_abandons_the_pool_even_with_the_result_lock_held():
    """Pool.terminate() would wait for ever here: the result queue's write lock is held (as by a worker killed while
    it wrote a result) and the pool's task thread must take it to finish. The pool is abandoned instead: its workers
    killed and reaped, at once."""
    pool = multiprocessing.get_context("fork").Pool(2)
    pids = _pids(pool)
    assert pool._outqueue._wlock.acquire(timeout=5)  # never released, like a dead holder's
    done = threading.Event()

    def interrupted():
        raise KeyboardInterrupt

    def run():
        with pytest.raises(KeyboardInterrupt):
            stopped_on_error(pool, interrupted)
        done.set()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    assert done.wait(20), "the pool's stop hung"
    assert all(_gone(pid) for pid in pids)
    assert [p.pid for p in pool._pool] == pids  # no worker was started in place of the killed ones
    assert not pool._worker_handler.is_alive()
    abandon(pool)  # twice is harmless
