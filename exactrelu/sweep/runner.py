"""Run a sweep: submit every task not yet done, write each row once, survive dead workers and Ctrl-C.

A bounded window of tasks is in flight (twice the workers), so that a dead worker or an interrupt loses
little. When a local worker process dies, the pool breaks: the rows already returned are kept, the
tasks that were in flight are submitted again to a new pool, and a task lost ``MAX_ATTEMPTS`` times
gets a ``failed`` row saying so. (A Dask cluster reschedules a dead worker's tasks itself.) On Ctrl-C
the workers are stopped, nothing half-done is written, and ``--resume`` continues. A time limit
(``time_limit=``, ``--time-limit``) stops the sweep the same way when it passes (checked at least once a
second, and between tasks when they run in this process): the finished rows are kept, the summary says
``timed_out``, and ``--resume`` continues.

>>> import tempfile
>>> from exactrelu.sweep.spec import parse_spec
>>> spec = parse_spec('[sweep]\\ntask = "recover"\\nseeds = 2\\n[grid]\\nd = 3\\nk = 2\\nn = [30, 60]')
>>> out = tempfile.mkdtemp()
>>> s = run_sweep(spec, out, workers=1)
>>> s.counts, s.skipped
({'certified': 4, 'refused': 0, 'failed': 0}, 0)
>>> run_sweep(spec, out, workers=1, resume=True).skipped
4
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import platform
import time
from collections import Counter, deque
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .._version import __version__
from ..deadline import Deadline
from ..errors import InvalidInput
from ..io.files import write_text_atomic
from .display import SweepProgress
from .executors import Backend
from .results import RUNS, SPEC, TABLE, ResultLog, read_rows, write_table
from .spec import Spec, SweepTask
from .worker import run_task

__all__ = ["run_sweep", "SweepSummary", "write_results_table", "MAX_ATTEMPTS"]

#: A task whose worker died this many times gets a ``failed`` row.
MAX_ATTEMPTS = 3


@dataclass
class SweepSummary:
    """What one call of :func:`run_sweep` did."""

    directory: Path
    total: int
    skipped: int
    counts: dict[str, int] = field(default_factory=dict)
    interrupted: bool = False
    timed_out: bool = False
    restarts: int = 0
    seconds: float = 0.0
    executor: str = ""


def _payload(t: SweepTask, keep: bool) -> dict:
    from .tasks import get_task

    from ..limits import explicit_limits

    return {"id": t.id, "task": t.task, "module": get_task(t.task).module, "params": t.params, "seed": t.seed,
            "keep_certificate": keep, "limits": explicit_limits()}  # a worker elsewhere gets this process's limits


def _prepare(spec: Spec, directory: Path, resume: bool, force: bool = False) -> list[dict]:
    """Check DIR, keep the spec beside the rows, and return the rows already there."""
    if directory.exists() and not directory.is_dir():
        raise InvalidInput(f"{directory} exists and is not a directory")
    done = read_rows(directory, repair=resume)
    if done and not resume:
        raise InvalidInput(f"{directory} already holds {len(done)} rows; add --resume to continue, or choose "
                           "another -o")
    if resume and not force:
        _same_spec(spec, directory, done)
    directory.mkdir(parents=True, exist_ok=True)
    write_text_atomic(directory / SPEC, spec.text, what="sweep spec")
    return done


def _same_spec(spec: Spec, directory: Path, done: list[dict]) -> None:
    """Refuse to resume DIR with a spec other than the one that made it (rows of two sweeps would mix).

    A grown spec (more seeds, more values: every old task is still in it) or a shrunk one (every new task
    was in the old spec) continues the same sweep; any other change of tasks, parameters or seeds does
    not. Without DIR/spec.toml, the rows must share at least one task with the spec.
    """
    from .spec import parse_spec

    old_path = directory / SPEC
    ids = {t.id for t in spec.tasks()}
    if old_path.is_file():
        try:
            old_ids = {t.id for t in parse_spec(old_path.read_text(encoding="utf-8"), source=str(old_path)).tasks()}
        except (InvalidInput, OSError, UnicodeDecodeError) as exc:
            why = f"its {SPEC} cannot be read: {str(exc)[:100]}"
        else:
            if old_ids <= ids or ids <= old_ids:
                return
            why = (f"its {SPEC} has {len(old_ids)} tasks, {len(old_ids - ids)} of them not in this spec, which has "
                   f"{len(ids - old_ids)} new ones")
    elif not done or any(r["id"] in ids for r in done):
        return
    else:
        why = f"none of its {len(done)} rows is a task of this spec"
    raise InvalidInput(f"{directory} was made by another spec ({why}); resume it with its own spec (or one that only "
                       "adds or removes tasks), choose another -o, or add --force to mix the rows")


def run_sweep(spec: Spec, directory: str | os.PathLike, *, workers: int | None = None, scheduler: str | None = None,
              resume: bool = False, progress: bool | SweepProgress = False, force: bool = False,
              time_limit: Deadline | float | None = None) -> SweepSummary:
    """Run every task of ``spec`` not yet in ``directory`` and write DIR/results.jsonl and DIR/results.csv.

    Parameters
    ----------
    spec : a checked spec (:func:`~exactrelu.sweep.spec.load_spec`).
    directory : where rows, certificates and the table go (created if needed).
    workers : local worker processes (default: the cores available; 1 runs in this process).
    scheduler : address of a Dask scheduler (``tcp://host:8786``) instead of local workers.
    resume : continue a sweep in ``directory``, skipping every task that has a row; refused (InvalidInput) when
        ``directory`` was made by another spec (other tasks, parameters or seeds), unless ``force``.
    progress : show the progress line on stderr (or give a :class:`SweepProgress`).
    time_limit : seconds (or a :class:`~exactrelu.deadline.Deadline`): when they pass, the tasks in flight are
        stopped (their rows are not written) and the call returns with ``timed_out`` and ``interrupted`` set.

    Returns
    -------
    SweepSummary
        counts of the rows written by this call, by status; ``interrupted`` after Ctrl-C or the time limit.
    """
    deadline = Deadline.coerce(time_limit)
    directory = Path(directory)
    backend = Backend(workers=workers, scheduler=scheduler)
    done = {r["id"] for r in _prepare(spec, directory, resume, force)}
    tasks = spec.tasks()
    todo = deque(_payload(t, spec.certificates) for t in tasks if t.id not in done)
    summary = SweepSummary(directory, len(tasks), len(tasks) - len(todo))
    show = progress if isinstance(progress, SweepProgress) else (
        SweepProgress(len(tasks), skipped=summary.skipped) if progress else None)
    started, t0 = datetime.now(timezone.utc), time.monotonic()
    counts: Counter = Counter({s: 0 for s in ("certified", "refused", "failed")})
    log, ex = ResultLog(directory), None
    try:
        ex = backend.make() if todo else None
        summary.executor = backend.describe() if ex is not None else ""
        ex = _drive(todo, ex, backend, log, counts, show, summary, deadline)
    except KeyboardInterrupt:
        summary.interrupted = True
    except _TimeUp:
        summary.interrupted = summary.timed_out = True
    finally:
        backend.close(ex, interrupted=summary.interrupted)
        log.close()
    summary.counts, summary.seconds = dict(counts), time.monotonic() - t0
    if show is not None:
        show(counts, final=True)
    write_results_table(spec, directory)
    _record_run(directory, summary, started)
    return summary


class _TimeUp(Exception):
    """The sweep's time limit passed (stops the scheduling loop like Ctrl-C)."""


def _drive(todo: deque, ex, backend: Backend, log: ResultLog, counts: Counter, show, summary: SweepSummary,
           deadline: Deadline | None = None):
    """The scheduling loop; returns the executor in use at the end (it may have been remade)."""
    deadline = deadline or Deadline(None)
    window = 2 * (backend.workers or 1)
    inflight: dict[cf.Future, dict] = {}
    attempts: Counter = Counter()
    failed_submits = 0
    while todo or inflight:
        if deadline.expired():
            _keep_finished(inflight, log, counts, attempts)
            raise _TimeUp
        submit_failed = False
        while todo and len(inflight) < window and not deadline.expired():
            p = todo.popleft()
            try:
                inflight[ex.submit(run_task, p)] = p
            except (BrokenProcessPool, OSError):
                # the pool broke while we were handing it work: a worker died between the last wait and this
                # submit, and the pool's manager thread may already have closed the queues whose descriptors
                # a new worker needs (OSError: bad file descriptor). The task never started: not an attempt.
                if not backend.restartable or failed_submits >= MAX_ATTEMPTS:
                    raise
                todo.appendleft(p)
                submit_failed = True
                failed_submits += 1
                break
        else:
            failed_submits = 0
        wait = 1.0 if deadline.end is None else min(1.0, deadline.remaining())
        finished, _ = cf.wait(inflight, timeout=0 if submit_failed else wait, return_when=cf.FIRST_COMPLETED)
        lost, broken = [], submit_failed
        for fut in finished:
            p = inflight.pop(fut)
            try:
                row = fut.result()
            except Exception as exc:  # noqa: BLE001 - the worker, not the task, failed (run_task returns every outcome)
                lost.append((p, exc))
                broken = broken or isinstance(exc, BrokenProcessPool)
                continue
            row["attempts"] = attempts[p["id"]] + 1
            log.append(row)
            counts[row["status"]] += 1
        if broken and backend.restartable:
            lost += _collect_broken(inflight, log, counts, attempts)
            ex.shutdown(wait=False, cancel_futures=True)
            ex = backend.make()
            summary.restarts += 1
            if show is not None:
                show.note(f"a worker process died; new pool of {backend.workers}, {len(lost)} tasks submitted again")
        for p, exc in lost:
            attempts[p["id"]] += 1
            if attempts[p["id"]] < MAX_ATTEMPTS:
                todo.appendleft(p)
            else:
                log.append(_lost_row(p, exc, attempts[p["id"]]))
                counts["failed"] += 1
        if show is not None:
            show(counts)
    return ex


def _keep_finished(inflight: dict, log: ResultLog, counts: Counter, attempts: Counter) -> None:
    """At the time limit: write the rows of the tasks that have finished (the others are stopped)."""
    for fut in [f for f in inflight if f.done()]:
        p = inflight.pop(fut)
        try:
            row = fut.result()
        except Exception:  # noqa: BLE001 - a lost worker: the task has no row and runs again on --resume
            continue
        row["attempts"] = attempts[p["id"]] + 1
        log.append(row)
        counts[row["status"]] += 1


def _collect_broken(inflight: dict, log: ResultLog, counts: Counter, attempts: Counter) -> list:
    """After a pool broke: keep the rows it still returned, and list the other tasks as lost."""
    lost = []
    for fut in cf.wait(list(inflight)).done:
        p = inflight.pop(fut)
        try:
            row = fut.result()
        except Exception as exc:  # noqa: BLE001
            lost.append((p, exc))
        else:
            row["attempts"] = attempts[p["id"]] + 1
            log.append(row)
            counts[row["status"]] += 1
    return lost


def _lost_row(p: dict, exc: BaseException, attempts: int) -> dict:
    reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    return {"id": p["id"], "task": p["task"], "seed": p["seed"], "params": p["params"], "status": "failed",
            "outcome": "", "method": "", "reason": f"the worker running it was lost {attempts} times ({reason})",
            "timings": {}, "metrics": {}, "checker": "", "worker": "", "seconds": None, "cpu_seconds": None,
            "attempts": attempts}


def write_results_table(spec: Spec, directory: str | os.PathLike) -> Path:
    """DIR/results.csv from DIR/results.jsonl: the spec's tasks that have a row, in spec order."""
    directory = Path(directory)
    rows = {r["id"]: r for r in read_rows(directory)}
    ordered = [rows[t.id] for t in spec.tasks() if t.id in rows]
    return write_table(directory / TABLE, spec.registered.keys(), ordered)


def _record_run(directory: Path, s: SweepSummary, started: datetime) -> None:
    """One line per invocation in DIR/runs.jsonl: where and how it ran (provenance)."""
    entry = {"started": started.isoformat(timespec="seconds"), "seconds": round(s.seconds, 3),
             "executor": s.executor, "rows_written": sum(s.counts.values()), "counts": s.counts,
             "skipped": s.skipped, "interrupted": s.interrupted, "timed_out": s.timed_out, "pool_restarts": s.restarts,
             "exactrelu_version": __version__, "python": platform.python_version(), "host": platform.node()}
    with open(directory / RUNS, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, sort_keys=True) + "\n")

