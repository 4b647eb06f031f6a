"""The exact bulk steps' threads (parallel.bulk_workers, exact/bulk.py map_blocks): every idle core, the same
results."""

import threading

import pytest

from exactrelu import parallel
from exactrelu.errors import InvalidInput
from exactrelu.exact.bulk import map_blocks


def test_small_steps_one_thread_large_ones_the_idle_cores_and_the_environment_decides(monkeypatch):
    monkeypatch.delenv("EXACTRELU_BULK_WORKERS", raising=False)
    assert parallel.bulk_workers(parallel.BULK_ENTRIES - 1) == 1
    monkeypatch.setattr(parallel, "usable_cores", lambda: 8)
    monkeypatch.setattr(parallel, "_runnable", lambda: 3)  # this process and two other tasks: 6 cores idle
    assert parallel.bulk_workers(parallel.BULK_ENTRIES) == 6
    monkeypatch.setattr(parallel, "_runnable", lambda: 40)  # a loaded machine: this process alone
    assert parallel.bulk_workers(10**9) == 1
    monkeypatch.setenv("EXACTRELU_BULK_WORKERS", "5")
    assert parallel.bulk_workers(10) == 5
    for bad in ("0", "-2", "many", "257"):
        monkeypatch.setenv("EXACTRELU_BULK_WORKERS", bad)
        with pytest.raises(InvalidInput, match="EXACTRELU_BULK_WORKERS"):
            parallel.bulk_workers(10**9)


def test_blocks_come_back_in_order_whatever_the_threads():
    seen = set()

    def block(a, b):
        seen.add(threading.get_ident())
        return list(range(a, b))

    for workers in (1, 2, 5):
        out = list(map_blocks(block, 103, 7, workers))
        assert sum(out, []) == list(range(103)) and len(out) == 15
    assert list(map_blocks(block, 0, 7, 3)) == []


def test_an_error_in_a_block_reaches_the_caller():
    def block(a, b):
        if a == 14:
            raise InvalidInput("block 2")
        return a

    with pytest.raises(InvalidInput, match="block 2"):
        list(map_blocks(block, 50, 7, 3))
