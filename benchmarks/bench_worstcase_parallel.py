"""The worst-case solver's enumeration serially, on a 2-worker process pool and on a 4-worker Dask
LocalCluster (``solve_decision(..., executor=...)``, ``exactrelu solve --workers N``), side by side in one session.

    python benchmarks/bench_worstcase_parallel.py [--rounds 2] [--quick]

Instances (integer inputs, ``try_recovery=False`` so that the enumeration itself is timed):
a planted network whose units are found among many extreme rays (ray LPs dominate), and labels of
rank k that no k-unit network realizes (one planted label moved by 1/7: every ray and face refuted,
the face LPs dominate). Every run must give the same reports and certificate as the serial one.
The machine is shared: the load average is recorded beside each run; compare ratios within a round.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import asdict  # noqa: E402
from fractions import Fraction  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _dask_cluster import local_cluster  # noqa: E402

from exactrelu.exact.matrix import QMatrix  # noqa: E402
from exactrelu.instances import Instance, planted  # noqa: E402
from exactrelu.decide import solve_decision  # noqa: E402
from exactrelu.sweep.executors import Backend  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


class Counting:
    """An executor wrapper that counts the patterns sent (speculative face decisions dropped and sent
    again count twice): the work of the parallel run, against the patterns the serial run decides."""

    def __init__(self, ex):
        self.ex, self.sent = ex, 0

    def submit(self, fn, rows, den, items, *rest):
        self.sent += len(items)
        return self.ex.submit(fn, rows, den, items, *rest)


def moved(d, k, n, seed):
    inst = planted(d=d, k=k, m=k, n=n, seed=seed, inputs="integer")
    Y = inst.labels.to_fractions()
    Y[0][0] += Fraction(1, 7)
    return Instance(inst.inputs, QMatrix.from_rows(Y))


def instances(quick: bool):
    yield "planted d=3 k=6 n=40 (rays)", planted(d=3, k=6, m=6, n=40, seed=1, inputs="integer"), 6
    yield "not realizable d=3 k=4 n=40 (faces)", moved(3, 4, 40, 1), 4
    if not quick:
        yield "not realizable d=3 k=5 n=40 (faces)", moved(3, 5, 40, 1), 5


def run(inst, k, executor, workers):
    t0 = time.perf_counter()
    if executor is not None:
        executor = Counting(executor)
    res = solve_decision(inst, k, try_recovery=False, executor=executor, workers=workers)
    reports = [asdict(p) for p in res.evidence["patterns"]]
    if res.realizable:
        answer = ("realizes", reports, res.certificate["U"], res.certificate["V"])
    else:
        answer = ("not-realizable", reports, None, None)
    return time.perf_counter() - t0, answer, executor.sent if executor is not None else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    from dask.distributed import Client

    stack = contextlib.ExitStack()
    pool_backend = Backend(workers=2)
    pool = pool_backend.make()
    client = Client(stack.enter_context(local_cluster(4)), set_as_default=False)
    dask_ex = client.get_executor(pure=False)
    modes = [("serial", None, 1), ("pool, 2 workers", pool, 2), ("Dask LocalCluster, 4 workers", dask_ex, 4)]
    rows = []
    try:
        for name, inst, k in instances(args.quick):
            for _, ex, w in modes[1:]:  # warm the workers (imports) on this instance's data
                run(inst, k, ex, w)
            times = {m: [] for m, _, _ in modes}
            sent = {}
            reference = None
            for r in range(args.rounds):
                for mode, ex, w in modes:
                    load = os.getloadavg()[0]
                    t, answer, sent[mode] = run(inst, k, ex, w)
                    reference = reference or answer
                    assert answer == reference, f"{mode} differs from serial on {name}"
                    times[mode].append(t)
                    print(f"{name} round {r + 1} {mode}: {t:.2f} s (load {load:.1f})", flush=True)
            med = {m: statistics.median(v) for m, v in times.items()}
            rows.append({"instance": name, "answer": reference[0], "patterns": len(reference[1]), "sent": sent,
                         "seconds": med, "speedup": {m: med["serial"] / med[m] for m in med}, "runs": times})
    finally:
        client.close()
        stack.close()
        pool_backend.close(pool)
    RESULTS.mkdir(exist_ok=True)
    out = {"cores": os.cpu_count(), "rounds": args.rounds, "rows": rows}
    (RESULTS / "bench_worstcase_parallel.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [f"{os.cpu_count()} cores, shared and loaded; medians of {args.rounds} rounds; same reports and "
             "certificates in every mode (checked)", "",
             "| instance | answer | patterns | sent to workers (pool / Dask) | serial s | pool (2) s | speed-up "
             "| Dask (4) s | speed-up |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s, p = r["seconds"], r["speedup"]
        sent = f"{r['sent']['pool, 2 workers']} / {r['sent']['Dask LocalCluster, 4 workers']}"
        lines.append(f"| {r['instance']} | {r['answer']} | {r['patterns']} | {sent} | {s['serial']:.2f} | "
                     f"{s['pool, 2 workers']:.2f} | {p['pool, 2 workers']:.2f}x | "
                     f"{s['Dask LocalCluster, 4 workers']:.2f} | {p['Dask LocalCluster, 4 workers']:.2f}x |")
    (RESULTS / "bench_worstcase_parallel.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
