"""BLAS threads on a loaded machine: the float proposal of exact recovery with OpenBLAS's default
thread count against one thread (threadpoolctl), side by side in one run.

On a machine whose cores are busy, a multi-threaded BLAS call waits for every thread it starts;
small products then cost far more than their arithmetic. The script times the proposal step
(``recover(...).timings["proposal"]``, plus the whole recovery) for several sizes, alternating the
two settings, with ``--load N`` busy processes running beside it (default: 2, one per core here), each running
BLAS products with default threads (``--load-kind blas``, another numpy user) or a Python loop.
First it times the products a gradient step makes ((X V^T)^T X, 200 times) by themselves; then
the proposal step of recover. It prints best/median times and the ratio, and writes
results/bench_blas.json and results/bench_blas.md.

Usage: python benchmarks/bench_blas.py [--load 2] [--repeat 5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

SIZES = [(10, 3, 3, 1000), (20, 5, 5, 5000), (50, 10, 10, 10000), (50, 10, 10, 20000), (100, 20, 20, 20000)]


def _busy(stop, kind):  # pragma: no cover - a load generator
    if kind == "blas":  # another numpy user: large products with OpenBLAS's default threads
        import numpy as np

        a = np.random.default_rng(0).standard_normal((600, 600))
        while not stop.is_set():
            a @ a
        return
    x = 0
    while not stop.is_set():
        for _ in range(100000):
            x += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load", type=int, default=2, help="busy processes beside the benchmark (default 2)")
    ap.add_argument("--load-kind", choices=("python", "blas"), default="blas",
                    help="what the busy processes run: pure Python loops, or BLAS products (default)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    from threadpoolctl import threadpool_info, threadpool_limits

    from exactrelu import blas
    from exactrelu.instances import planted
    from exactrelu.recover import recover

    default_threads = max((i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"), default=1)
    stop = mp.Event()
    procs = [mp.Process(target=_busy, args=(stop, args.load_kind), daemon=True) for _ in range(args.load)]
    for p in procs:
        p.start()
    rows, micro = [], []
    try:
        import numpy as np

        rng = np.random.default_rng(0)
        for n, d, k in ((1000, 10, 3), (5000, 20, 5), (20000, 50, 10)):  # a gradient step's products, 200 times
            X, V = rng.standard_normal((n, d)), rng.standard_normal((k, d))
            best = {}
            for _ in range(args.repeat):
                for setting in ("default", "one"):
                    with blas.fixed_threads(None if setting == "default" else 1):
                        t = time.perf_counter()
                        for _ in range(200):
                            (X @ V.T).T @ X
                        best.setdefault(setting, []).append(time.perf_counter() - t)
            micro.append({"n": n, "d": d, "k": k, "default": min(best["default"]), "one": min(best["one"])})
            print(f"products n={n} d={d} k={k}: {micro[-1]['default']:.3f} s ({default_threads} threads) vs "
                  f"{micro[-1]['one']:.3f} s (1 thread)", flush=True)
        for d, k, m, n in SIZES[:2] if args.quick else SIZES:
            inst = planted(d=d, k=k, m=m, n=n, seed=0)
            recover(inst, k=k, random_state=0, check=False)  # warm up (imports, caches)
            times = {"default": [], "one": []}
            for _ in range(args.repeat):
                for setting in ("default", "one"):
                    with blas.fixed_threads(None if setting == "default" else 1):
                        t = time.perf_counter()
                        res = recover(inst, k=k, random_state=0, check=False)
                        total = time.perf_counter() - t
                    times[setting].append((res.timings["proposal"], total))
            row = {"size": [d, k, m, n], "entries": n * (d + m), "proposer": res.proposer,
                   "default_threads": default_threads, "load": args.load, "load_kind": args.load_kind}
            for setting, ts in times.items():
                row[f"{setting}_proposal"] = statistics.median(t[0] for t in ts)
                row[f"{setting}_total"] = statistics.median(t[1] for t in ts)
            rows.append(row)
            print(f"({d},{k},{m},{n}) {res.proposer:24s} proposal {row['default_proposal']:.4f} s ({default_threads} threads)"
                  f" vs {row['one_proposal']:.4f} s (1 thread): {row['default_proposal'] / row['one_proposal']:.1f}x; "
                  f"recovery {row['default_total']:.3f} vs {row['one_total']:.3f} s", flush=True)
    finally:
        stop.set()
        for p in procs:
            p.join(timeout=5)
    out = HERE / "results"
    (out / "bench_blas.json").write_text(json.dumps({"load": args.load, "load_kind": args.load_kind, "cpus": os.cpu_count(),
                                                   "loadavg_end": os.getloadavg(), "rows": rows}, indent=1) + "\n")
    lines = [f"| (d,k,m,n) | proposer | proposal s, {default_threads} BLAS threads | proposal s, 1 thread | ratio | "
             "recovery s, default | recovery s, 1 thread |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| ({','.join(map(str, r['size']))}) | {r['proposer']} | {r['default_proposal']:.4f} | "
                     f"{r['one_proposal']:.4f} | {r['default_proposal'] / r['one_proposal']:.1f}x | "
                     f"{r['default_total']:.3f} | {r['one_total']:.3f} |")
    (out / "bench_blas.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
