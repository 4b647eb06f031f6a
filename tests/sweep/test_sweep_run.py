"""Running sweeps: every row exactly once on the process pool, after a killed worker, after Ctrl-C and
--resume, and on a Dask LocalCluster; certificates checked in the worker and kept when asked."""

import csv
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.sweep import parse_spec, read_rows, run_sweep
from exactrelu.sweep.results import ResultLog, table_columns

SMALL = '[sweep]\ntask = "recover"\nseeds = 3\n[grid]\nsize = [{d = 3, k = 2}, {d = 5, k = 2}]\nn = [8, 60]\n'
# about 0.1 s per task: long enough for a kill or an interrupt to land in the middle of the run
SLOW = '[sweep]\ntask = "recover"\nseeds = 8\n[grid]\nd = 8\nk = 3\nn = [2000, 2400]\n'


def ids_once(directory, spec):
    """Every task of the spec has exactly one line in results.jsonl."""
    lines = (directory / "results.jsonl").read_text().splitlines()
    counts = Counter(json.loads(line)["id"] for line in lines)
    assert set(counts) == {t.id for t in spec.tasks()}
    assert set(counts.values()) == {1}
    return [json.loads(line) for line in lines]


def test_process_pool_end_to_end_with_certificates(tmp_path):
    spec = parse_spec(SMALL.replace("seeds = 3", "seeds = 3\ncertificates = true"))
    s = run_sweep(spec, tmp_path / "out", workers=2)
    assert s.counts["failed"] == 0 and sum(s.counts.values()) == 12 and not s.interrupted
    rows = ids_once(tmp_path / "out", spec)
    assert {r["status"] for r in rows} <= {"certified", "refused"}
    assert len({r["worker"] for r in rows}) >= 1 and all(r["worker"].split(":")[1] != str(os.getpid()) for r in rows)
    certified = [r for r in rows if r["status"] == "certified"]
    assert certified and all(r["checker"].startswith("realizes:") for r in certified)
    for r in certified:  # kept certificates verify again, by the command-line checker, against the instance
        cert = tmp_path / "out" / r["certificate"]
        assert json.loads(cert.read_text())["claim"] == "realizes"
    refused = [r for r in rows if r["status"] == "refused"]
    assert refused and all(r["reason"].startswith(("AssumptionViolated", "NotRealizable", "ProposalFailed"))
                           for r in refused)
    with open(tmp_path / "out" / "results.csv") as fh:
        table = list(csv.DictReader(fh))
    assert [r["id"] for r in table] == [t.id for t in spec.tasks()]  # spec order, whatever the completion order
    assert {"status", "method", "seconds", "t_independent_check", "matches_planted", "d", "n"} <= set(table[0])
    assert (tmp_path / "out" / "spec.toml").read_text() == spec.text
    run = json.loads((tmp_path / "out" / "runs.jsonl").read_text())
    assert run["executor"] == "process pool (2 workers)" and run["rows_written"] == 12


def test_kept_certificates_check_against_regenerated_instances(tmp_path, capsys):
    spec = parse_spec(SMALL.replace("seeds = 3", "seeds = 1\ncertificates = true").replace("[8, 60]", "60"))
    run_sweep(spec, tmp_path / "out", workers=1)
    from exactrelu.instances import write_instance
    from exactrelu.sweep.tasks import planted_instance

    rows = {r["id"]: r for r in read_rows(tmp_path / "out")}
    for t in spec.tasks():
        r = rows[t.id]
        inst = tmp_path / f"{t.id}.json"
        write_instance(planted_instance(t.params, t.seed), inst)
        assert main(["check", str(tmp_path / "out" / r["certificate"]), str(inst)]) == 0
    assert capsys.readouterr().out.count("VALID") == 2


def test_resume_skips_done_rows_and_repairs_a_torn_line(tmp_path):
    spec = parse_spec(SMALL)
    out = tmp_path / "out"
    assert sum(run_sweep(spec, out, workers=1).counts.values()) == 12
    lines = (out / "results.jsonl").read_bytes().splitlines(keepends=True)
    # the process died inside the write of the last row: a torn line, and three rows never written
    (out / "results.jsonl").write_bytes(b"".join(lines[:8]) + lines[8][:25])
    assert len(read_rows(out)) == 8
    with pytest.raises(InvalidInput, match="already holds 8 rows; add --resume"):
        run_sweep(spec, out, workers=1)
    s = run_sweep(spec, out, workers=2, resume=True)
    assert s.skipped == 8 and sum(s.counts.values()) == 4
    ids_once(out, spec)
    again = run_sweep(spec, out, workers=2, resume=True)
    assert again.skipped == 12 and sum(again.counts.values()) == 0 and again.executor == ""


def test_a_grown_spec_resumes_and_the_table_follows_the_spec(tmp_path):
    out = tmp_path / "out"
    run_sweep(parse_spec(SMALL), out, workers=1)
    bigger = parse_spec(SMALL.replace("seeds = 3", "seeds = 4"))
    s = run_sweep(bigger, out, workers=1, resume=True)
    assert (s.skipped, sum(s.counts.values())) == (12, 4)
    smaller = parse_spec(SMALL.replace("seeds = 3", "seeds = 2"))
    run_sweep(smaller, out, workers=1, resume=True)
    with open(out / "results.csv") as fh:
        assert [r["id"] for r in csv.DictReader(fh)] == [t.id for t in smaller.tasks()]


def test_resume_with_another_spec_is_refused_unless_forced(tmp_path):
    out = tmp_path / "out"
    run_sweep(parse_spec(SMALL), out, workers=1)
    old_spec = (out / "spec.toml").read_text()
    other = parse_spec(SMALL.replace("seeds = 3", "seeds = [7, 8, 9]"))  # same grid, other seeds: other tasks
    with pytest.raises(InvalidInput, match=r"was made by another spec \(its spec.toml has 12 tasks, 12 of them not in "
                                           r"this spec, which has 12 new ones\).*--force"):
        run_sweep(other, out, workers=1, resume=True)
    assert (out / "spec.toml").read_text() == old_spec and len(read_rows(out)) == 12  # nothing touched
    both = parse_spec(SMALL.replace("seeds = 3", "seeds = [1, 2, 3]"))  # overlaps, neither contains the other
    with pytest.raises(InvalidInput, match="another spec"):
        run_sweep(both, out, workers=1, resume=True)
    s = run_sweep(other, out, workers=1, resume=True, force=True)
    assert (s.skipped, sum(s.counts.values())) == (0, 12) and len(read_rows(out)) == 24
    (out / "spec.toml").unlink()  # without the spec file: rows sharing no task with the spec are another sweep
    with pytest.raises(InvalidInput, match="none of its 24 rows"):
        run_sweep(parse_spec(SMALL.replace("seeds = 3", "seeds = [20]")), out, workers=1, resume=True)
    assert run_sweep(other, out, workers=1, resume=True).skipped == 12


def test_bad_directories_and_executor_arguments(tmp_path):
    spec = parse_spec(SMALL)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidInput, match="is not a directory"):
        run_sweep(spec, tmp_path / "file")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "results.jsonl").write_text('{"id": "a"}\nnot json\n')
    with pytest.raises(InvalidInput, match="line 2 is not a JSON row"):
        run_sweep(spec, tmp_path / "d", resume=True)
    (tmp_path / "d" / "results.jsonl").write_text('[1, 2]\n')
    with pytest.raises(InvalidInput, match="line 1 is not a row"):
        run_sweep(spec, tmp_path / "d", resume=True)
    with pytest.raises(InvalidInput, match="--workers must be a positive integer"):
        run_sweep(spec, tmp_path / "e", workers=0)
    with pytest.raises(InvalidInput, match="not both"):
        run_sweep(spec, tmp_path / "e", workers=2, scheduler="tcp://127.0.0.1:1")


def test_result_log_names_certificates_and_columns():
    import tempfile

    d = tempfile.mkdtemp()
    log = ResultLog(d)
    log.append({"id": "r1", "status": "certified", "certificate": {"claim": "realizes"}})
    log.close()
    (row,) = read_rows(d)
    assert row["certificate"] == "certs/r1.json"
    assert json.loads(open(os.path.join(d, "certs", "r1.json")).read()) == {"claim": "realizes"}
    cols = table_columns(["d", "n"], [{"timings": {"proposal": 1.0}, "metrics": {"rank": 2, "n": 5}}])
    assert cols[:5] == ["id", "task", "seed", "d", "n"] and "t_proposal" in cols and cols.count("n") == 1


def _start(*args):
    return subprocess.Popen([sys.executable, "-m", "exactrelu.cli", "sweep", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _wait_rows(directory, count, proc, limit=120.0):
    """Poll until results.jsonl has ``count`` rows (the limit only guards against a hang)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        rows = read_rows(directory)
        if len(rows) >= count:
            return rows
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.005)
    raise AssertionError("the sweep wrote no rows")


def test_a_killed_worker_loses_no_row_and_duplicates_none(tmp_path):
    (tmp_path / "s.toml").write_text(SLOW)
    spec = parse_spec(SLOW)
    out = tmp_path / "out"
    proc = _start(tmp_path / "s.toml", "-o", out, "--workers", "2")
    first = _wait_rows(out, 1, proc)[0]
    os.kill(int(first["worker"].split(":")[1]), signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "a worker process died; new pool of 2" in stderr
    rows = ids_once(out, spec)
    assert {r["status"] for r in rows} == {"certified"}
    assert max(r["attempts"] for r in rows) >= 1
    assert json.loads((out / "runs.jsonl").read_text())["pool_restarts"] >= 1


def test_ctrl_c_then_resume_completes_every_row_once(tmp_path):
    # 60 tasks (several seconds of work): the interrupt after 3 rows cannot arrive after the last one, even
    # when this process is starved on a loaded machine (with 16 tasks it sometimes did, and the run exited 0)
    slow = SLOW.replace("seeds = 8", "seeds = 30")
    (tmp_path / "s.toml").write_text(slow)
    spec = parse_spec(slow)
    out = tmp_path / "out"
    proc = _start(tmp_path / "s.toml", "-o", out, "--workers", "2")
    _wait_rows(out, 3, proc)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole process group, workers included
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted: run again with --resume" in stderr and "Traceback" not in stderr
    done = read_rows(out)
    assert 3 <= len(done) < len(spec.tasks())
    assert json.loads((out / "runs.jsonl").read_text())["interrupted"] is True
    assert main(["sweep", str(tmp_path / "s.toml"), "-o", str(out), "--workers", "2", "--resume", "-q"]) == 0
    rows = ids_once(out, spec)
    assert {r["status"] for r in rows} == {"certified"}


def test_dask_local_cluster_runs_the_same_sweep(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    spec = parse_spec(SMALL.replace("seeds = 3", "seeds = 2\ncertificates = true"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        s = run_sweep(spec, tmp_path / "out", scheduler=cluster.scheduler_address)
    assert s.executor.startswith("dask scheduler tcp://") and "2 worker threads" in s.executor
    rows = ids_once(tmp_path / "out", spec)
    assert s.counts["failed"] == 0 and any(r["status"] == "certified" for r in rows)
    assert all(r["worker"].split(":")[1] != str(os.getpid()) for r in rows)
    assert all((tmp_path / "out" / r["certificate"]).exists() for r in rows if r["status"] == "certified")


def test_unreachable_scheduler_is_one_line(tmp_path, monkeypatch):
    pytest.importorskip("dask.distributed")
    from exactrelu.sweep import executors

    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", "1s")
    with pytest.raises(InvalidInput, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        run_sweep(parse_spec(SMALL), tmp_path / "out", scheduler="tcp://127.0.0.1:9")


def _gone(pid, limit=30.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_sigterm_stops_like_ctrl_c_and_stops_the_workers(tmp_path):
    (tmp_path / "s.toml").write_text(SLOW)
    proc = _start(tmp_path / "s.toml", "-o", tmp_path / "out", "--workers", "2")
    first = _wait_rows(tmp_path / "out", 1, proc)[0]
    proc.send_signal(signal.SIGTERM)  # the sweep's process only, as a batch system would
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted: run again with --resume" in stderr
    assert _gone(int(first["worker"].split(":")[1]))


def test_workers_exit_when_the_sweep_is_killed(tmp_path):
    (tmp_path / "s.toml").write_text(SLOW)
    proc = _start(tmp_path / "s.toml", "-o", tmp_path / "out", "--workers", "2")
    first = _wait_rows(tmp_path / "out", 1, proc)[0]
    proc.kill()  # SIGKILL: no clean-up in the sweep's process; the workers notice on their own
    proc.communicate(timeout=60)
    assert _gone(int(first["worker"].split(":")[1]))
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert len({json.loads(line)["id"] for line in lines}) == len(lines)  # a torn last line is impossible here:
    # SIGKILL landed between two writes or inside one, and json.loads above would have failed on a torn line


def test_a_task_that_kills_its_worker_every_time_gets_a_failed_row(tmp_path):
    import importlib

    from exactrelu.sweep import TASKS

    importlib.import_module("sweep_crash_task")  # registers test-crash here; the workers import it by name
    try:
        spec = parse_spec('[sweep]\ntask = "test-crash"\nseeds = 2\n[grid]\nn = 1\n')
        s = run_sweep(spec, tmp_path / "out", workers=2)
        rows = ids_once(tmp_path / "out", spec)
        assert s.counts == {"certified": 0, "refused": 0, "failed": 2} and s.restarts >= 2
        assert all(r["status"] == "failed" and r["attempts"] == 3 for r in rows)
        assert all(r["reason"].startswith("the worker running it was lost 3 times (BrokenProcessPool") for r in rows)
    finally:
        TASKS.pop("test-crash", None)


def test_a_pool_that_breaks_during_a_submit_is_remade(tmp_path, monkeypatch):
    """A worker can die between the runner's wait and its next submit: the submit itself then raises
    (BrokenProcessPool, or OSError 'bad file descriptor' when the pool's manager thread has already closed the
    queues a new worker needs). The runner remakes the pool; the task, never started, is not an attempt."""
    import concurrent.futures as cf
    from concurrent.futures.process import BrokenProcessPool

    real = cf.ProcessPoolExecutor.submit
    failures = iter([OSError(9, "Bad file descriptor"), BrokenProcessPool("a worker died")])

    def flaky(self, fn, *args, **kwargs):
        if fn is not int:  # the pool's start-up probe passes
            exc = next(failures, None)
            if exc is not None:
                raise exc
        return real(self, fn, *args, **kwargs)

    monkeypatch.setattr(cf.ProcessPoolExecutor, "submit", flaky)
    spec = parse_spec('[sweep]\ntask = "recover"\nseeds = 3\n[grid]\nd = 3\nk = 2\nn = 40\n')
    s = run_sweep(spec, tmp_path / "out", workers=2)
    assert s.counts == {"certified": 3, "refused": 0, "failed": 0} and s.restarts == 2
    assert all(r["attempts"] == 1 for r in ids_once(tmp_path / "out", spec))
