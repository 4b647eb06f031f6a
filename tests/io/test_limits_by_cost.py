"""Limits by cost per byte, not by size (issue 34 item 3): the project's own benchmark sizes are never refused by a
count; honest data are refused only by an up-front estimate against the machine's memory, with that estimate;
what is out of proportion to a file's bytes stays refused at once.

The memory of "the machine" is fixed in these tests (``machine_memory`` patched), so that they say the same on
every machine: 16 GB, a laptop's, admits every size of the issue; 1 GB does not, and the refusal gives the
estimate.
"""

from __future__ import annotations

import importlib
import multiprocessing

import numpy as np
import pytest

from exactrelu import limits
from exactrelu.certificates import checker
from exactrelu.certificates.trusted import common
from exactrelu.cli import main
from exactrelu.errors import InvalidInput


class ReachedTheWork(Exception):
    """Raised where the work begins: nothing refused the input before it."""


@pytest.fixture
def laptop(monkeypatch):
    monkeypatch.setattr(limits, "machine_memory", lambda: 16 << 30)
    monkeypatch.setattr(common, "memory_budget", lambda: 16 << 30)


@pytest.fixture
def small_machine(monkeypatch):
    monkeypatch.setattr(limits, "machine_memory", lambda: 1 << 30)


def _stop_at_drawing(monkeypatch):
    planted_module = importlib.import_module("exactrelu.instances.planted")

    def stop(*a, **k):
        raise ReachedTheWork

    monkeypatch.setattr(planted_module, "draw_inputs", stop)


@pytest.mark.parametrize("size", [(200, 20, 20, 20000), (100, 50, 50, 100000)], ids=["200x20x20x2e4", "100x50x50x1e5"])
def test_generate_at_the_benchmark_sizes_is_not_refused(tmp_path, monkeypatch, laptop, size):
    """``generate -d 200 -k 20 -m 20 -n 20000`` and ``-d 100 -k 50 -m 50 -n 100000`` exited 2 (entries=2500000)."""
    _stop_at_drawing(monkeypatch)
    d, k, m, n = size
    with pytest.raises(ReachedTheWork):
        main(["generate", "-d", str(d), "-k", str(k), "-m", str(m), "-n", str(n), "-o", str(tmp_path / "g.npz")])


@pytest.mark.parametrize("size", [(200, 20, 20, 20000), (100, 50, 50, 100000)], ids=["200x20x20x2e4", "100x50x50x1e5"])
def test_demo_at_the_benchmark_sizes_is_not_refused(monkeypatch, laptop, capsys, size):
    _stop_at_drawing(monkeypatch)
    d, k, m, n = size
    with pytest.raises(ReachedTheWork):
        main(["demo", "-d", str(d), "-k", str(k), "-m", str(m), "-n", str(n)])


def test_recovery_of_arrays_in_memory_is_not_refused(monkeypatch, laptop):
    """``recover(X, labels, k=11, bias=True)`` on arrays of (50,11,1,1e5) ran 21 s, then refused; (50,30,30,5e4)
    was refused at once."""
    front = importlib.import_module("exactrelu.recover.front_door")

    def stop(*a, **k):
        raise ReachedTheWork

    monkeypatch.setattr(front, "_route", stop)
    rng = np.random.default_rng(0)
    for d, k, m, n in ((50, 11, 1, 100_000), (50, 30, 30, 50_000)):
        X, Y = rng.standard_normal((n, d)), rng.standard_normal((n, m))
        with pytest.raises(ReachedTheWork):
            front.recover(X, Y, k=k, bias=True)


def test_the_checker_reads_what_its_bytes_hold_without_a_count(laptop):
    """The checker refused an instance over 2,500,000 entries (the library's own check at the end of a 21 s
    recovery, an extraction transcript, a 10^6-sample .npz): the shape is no longer counted."""
    row, label = ["1"] * 4, ["0"]
    from exactrelu.certificates.trusted.instance import instance_shape

    assert instance_shape([row] * 3_000_000, [label] * 3_000_000) == (3_000_000, 4, 1)


def test_honest_data_over_the_memory_there_is_are_refused_with_the_estimate(tmp_path, small_machine, capsys):
    assert main(["generate", "-d", "100", "-k", "50", "-m", "50", "-n", "100000", "-o", str(tmp_path / "g.npz")]) == 2
    err = capsys.readouterr().err
    assert "the planted instance (100000 x (100 + 50) = 15,000,000 entries) needs about 4.5 GB and " in err
    assert "(320 bytes per entry, measured: docs/limits.md), and this machine has 1.0 GB available (MemAvailable" in err
    assert not (tmp_path / "g.npz").exists()
    limits.set_limit("memory", 8 * 1024)  # EXACTRELU_MAX_MEMORY: another budget than the machine's
    try:
        limits.check_entries(100_000, 100, 50)
    finally:
        limits._limits.pop("memory"), limits._explicit.pop("memory")


def test_a_json_file_is_estimated_before_it_is_parsed(tmp_path, monkeypatch):
    from exactrelu.instances import read_instance

    path = tmp_path / "i.json"
    path.write_text('{"format": "exactrelu.instance", "version": 1, "inputs": [["1"]], "labels": [["2"]]}')
    monkeypatch.setattr(limits, "machine_memory", lambda: 100)  # bytes: less than 3 per byte of the file
    with pytest.raises(InvalidInput, match="bytes of JSON\\) needs about"):
        read_instance(path)
    monkeypatch.setattr(common, "memory_budget", lambda: 100)
    with pytest.raises(checker.UnreadableInput, match="bytes of JSON\\) needs about"):
        checker.load_instance(str(path))


def test_a_large_npz_streams_by_default_and_with_bias(tmp_path, monkeypatch):
    """``recover --stream`` of a 10^6-sample .npz was refused by the limit (streaming was "automatic above
    4,000,000 entries", which the limit never let happen); ``--stream`` refused ``--bias``."""
    core = importlib.import_module("exactrelu.commands.core")
    npz = importlib.import_module("exactrelu.io.npz")
    streaming = importlib.import_module("exactrelu.recover.streaming")
    X, Y = np.broadcast_to(np.ones(1), (1_000_000, 20)), np.broadcast_to(np.ones(1), (1_000_000, 5))
    monkeypatch.setattr(npz, "map_npz_instance", lambda path: (X, Y))
    calls = []

    def stop(path, **kw):
        calls.append(kw)
        raise ReachedTheWork

    monkeypatch.setattr(streaming, "recover_streaming", stop)
    (tmp_path / "big.npz").write_bytes(b"PK")  # never read: the mapping above stands for it
    for extra in ([], ["--bias"], ["--stream", "--bias"], ["--bias", "hidden"]):
        with pytest.raises(ReachedTheWork):
            main(["recover", str(tmp_path / "big.npz"), "-k", "5", *extra])
    assert [c["bias"] for c in calls] == [False, "both", "both", "hidden"]  # --bias alone: PyTorch's default model
    assert core  # the command module that decides to stream


def test_stream_with_bias_certifies(tmp_path, capsys):
    from exactrelu.instances import planted, write_instance

    inst = planted(d=4, k=2, m=2, n=3000, seed=1, bias=2.0, input_bits=12)
    path = write_instance(inst, tmp_path / "b.npz")
    cert = tmp_path / "b.cert.json"
    assert main(["recover", str(path), "-k", "2", "--bias", "--stream", "--subset", "400", "-o", str(cert)]) == 0
    assert "hidden biases" in capsys.readouterr().out
    assert main(["check", str(cert), str(path)]) == 0


def _limits_in_a_fresh_process(payload: dict) -> tuple:
    from exactrelu import limits as lib
    from exactrelu.certificates.trusted import common as chk
    from exactrelu.sweep.worker import apply_limits

    apply_limits(payload["limits"])
    return lib.limit("degree"), chk.limit("degree"), lib.limit("inflation")


def test_sweep_workers_get_the_parent_s_limits_without_configuration(monkeypatch):
    """A Dask worker (another machine) or a spawned pool worker starts without the parent's set_limit: the task's
    payload carries the limits, for the library and the checker."""
    from exactrelu.sweep.runner import _payload
    from exactrelu.sweep.spec import SweepTask

    monkeypatch.delenv("EXACTRELU_MAX_DEGREE", raising=False)
    limits.set_limit("degree", 7)
    limits.set_limit("inflation", 1000)
    try:
        payload = _payload(SweepTask("t", "recover", {"d": 2, "k": 1, "n": 5}, 0), False)
    finally:
        for name in ("degree", "inflation"):
            limits.set_limit(name, limits.DEFAULTS[name])
            limits._explicit.pop(name)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_limits_in_a_fresh_process, (payload,)) == (7, 7, 1000)
