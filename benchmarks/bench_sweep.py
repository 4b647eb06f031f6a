"""exactrelu sweep: one recovery phase-transition grid run serially, on a 2-worker process pool and on a
2-worker Dask LocalCluster, side by side in one session.

    python benchmarks/bench_sweep.py                 # benchmarks/specs/phase_transition.toml, 3 rounds
    python benchmarks/bench_sweep.py --rounds 1 --spec benchmarks/specs/worstcase.toml

For each round the three executors run the same spec in turn (serial, pool, dask), each into a fresh
directory; the rows must agree (same ids, same status for every id). Reported per executor (medians over
rounds): wall time of run_sweep (the pool's start included; the LocalCluster is started once, before,
in a process of its own, like a cluster that already exists), the sum of the seconds the tasks took on their workers, the speed-up
against serial, and the scheduling overhead per task = (wall x workers - sum of task seconds) / tasks:
the worker time not spent in tasks (start-up, submission, pickling, collecting rows, idle tail).

The machine is shared, and Linux shares the CPU between sessions (autogroup scheduling) before it
shares it between processes: when other sessions keep the cores busy, two workers of this session get
about the CPU one would, and no wall-clock speed-up can show. So CPU time is measured too: the tasks'
CPU seconds (``cpu_seconds`` of the rows) and this process's CPU time (submitting, pickling, writing
rows). ``idle estimate`` = serial CPU seconds / (task CPU seconds / workers + this process's CPU
seconds): the speed-up the same run would have on free cores (an estimate, not a measurement).
"""

from __future__ import annotations

import os

# one BLAS thread in every mode: the workers get it from exactrelu.sweep.executors; this process (the
# serial run) and the LocalCluster's workers (started from it) from here. With the default two threads,
# OpenBLAS spinning on a loaded machine made the serial run 3-8x slower than it is.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _dask_cluster import local_cluster  # noqa: E402

from exactrelu.sweep import load_spec, parse_spec, read_rows, run_sweep  # noqa: E402
from exactrelu.sweep.plots import plot_directory  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def one_run(spec, mode: str, workers: int, scheduler: str | None, keep: Path | None) -> dict:
    out = Path(tempfile.mkdtemp(prefix=f"sweep-{mode}-"))
    load = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    s = run_sweep(spec, out, workers=None if scheduler else workers, scheduler=scheduler)
    wall, main_cpu = time.perf_counter() - t0, time.process_time() - c0
    rows = read_rows(out)
    busy = sum(r["seconds"] for r in rows)
    cpu = sum(r["cpu_seconds"] for r in rows)
    n = len(rows)
    if mode == "serial":
        main_cpu -= cpu  # this process ran the tasks too
    result = {"mode": mode, "workers": workers, "wall_s": wall, "task_s": busy, "task_cpu_s": cpu, "tasks": n,
              "main_cpu_ms_per_task": 1000 * main_cpu / n, "load_before": load,
              "overhead_per_task_ms": 1000 * (wall * workers - busy) / n, "counts": s.counts, "executor": s.executor,
              "status": {r["id"]: r["status"] for r in rows}}
    if keep is not None:
        shutil.rmtree(keep, ignore_errors=True)
        shutil.copytree(out, keep)
    shutil.rmtree(out, ignore_errors=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default=str(HERE / "specs" / "phase_transition.toml"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    spec = load_spec(args.spec)
    warm = parse_spec('[sweep]\ntask = "recover"\nseeds = 2\n[grid]\nd = 4\nk = 2\nn = 50\n')
    run_sweep(warm, tempfile.mkdtemp(), workers=1)  # warm-up: this process's imports
    t0 = time.perf_counter()
    runs = []
    name = Path(args.spec).stem
    with local_cluster(args.workers) as address:
        cluster_start = time.perf_counter() - t0
        for r in range(args.rounds):
            last = r == args.rounds - 1
            runs.append(one_run(spec, "serial", 1, None, None))
            runs.append(one_run(spec, "pool", args.workers, None, RESULTS / f"sweep_{name}" if last else None))
            runs.append(one_run(spec, "dask", args.workers, address, None))
            for x in runs[-3:]:
                print(f"round {r + 1} {x['mode']:6s}: wall {x['wall_s']:7.2f} s, task seconds {x['task_s']:7.2f} "
                      f"(CPU {x['task_cpu_s']:7.2f}), overhead {x['overhead_per_task_ms']:6.1f} ms/task, main CPU "
                      f"{x['main_cpu_ms_per_task']:5.2f} ms/task, load {x['load_before']:.2f}", flush=True)
    statuses = [x.pop("status") for x in runs]
    assert all(s == statuses[0] for s in statuses), "executors disagree on some row"
    plot_directory(RESULTS / f"sweep_{name}")
    summary = {}
    for mode in ("serial", "pool", "dask"):
        xs = [x for x in runs if x["mode"] == mode]
        summary[mode] = {key: statistics.median(x[key] for x in xs)
                         for key in ("wall_s", "task_s", "task_cpu_s", "main_cpu_ms_per_task", "overhead_per_task_ms",
                                     "load_before")}
    n = len(spec.tasks())
    for mode, s in summary.items():
        s["speedup"] = summary["serial"]["wall_s"] / s["wall_s"]
        w = 1 if mode == "serial" else args.workers
        s["idle_estimate"] = summary["serial"]["task_cpu_s"] / (s["task_cpu_s"] / w + s["main_cpu_ms_per_task"] * n / 1000)
    out = {"spec": str(Path(args.spec).relative_to(HERE.parent)), "tasks": len(spec.tasks()), "rounds": args.rounds,
           "workers": args.workers, "cores": os.cpu_count(), "local_cluster_start_s": cluster_start,
           "rows_agree": True, "runs": runs, "summary": summary}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"bench_sweep_{name}.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [f"{len(spec.tasks())} tasks ({out['spec']}), {args.rounds} rounds, medians; {args.workers} workers on "
             f"{os.cpu_count()} cores; LocalCluster start {cluster_start:.1f} s (not in its wall time)", "",
             "| executor | wall s | task seconds (sum) | task CPU s (sum) | wall speed-up | overhead ms/task (wall) "
             "| this process's CPU ms/task | idle estimate | load avg before |",
             "|---|---|---|---|---|---|---|---|---|"]
    for mode, label in (("serial", "serial (--workers 1)"), ("pool", f"process pool (--workers {args.workers})"),
                        ("dask", f"Dask LocalCluster ({args.workers} workers x 1 thread)")):
        s = summary[mode]
        lines.append(f"| {label} | {s['wall_s']:.2f} | {s['task_s']:.2f} | {s['task_cpu_s']:.2f} | {s['speedup']:.2f}x | "
                     f"{s['overhead_per_task_ms']:.1f} | {s['main_cpu_ms_per_task']:.2f} | {s['idle_estimate']:.2f}x | "
                     f"{s['load_before']:.2f} |")
    (RESULTS / f"bench_sweep_{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
