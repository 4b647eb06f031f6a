"""Certified recovery at scale: wall, phases, peak memory and the independent check's share, one size per process.

    python benchmarks/bench_scale.py                       # (50,10,10,2e4), (200,20,20,2e4), (100,50,50,1e5)
    python benchmarks/bench_scale.py --sizes 200,20,20,20000
    python benchmarks/bench_scale.py --workers 2           # also the check in 2 forked workers

For each (d, k, m, n): a planted Gaussian instance (integer weights, float64 inputs taken exactly), exactrelu's
``recover`` from the float64 inputs and exact labels (proposal, exact phase, certificate, independent check,
timed by the library), then the same certificate checked again by the independent checker in one process
(streaming blocks) and with ``--workers``. Each size runs in a fresh process: its peak resident memory
(``ru_maxrss``) is that size's alone. Prints a table and writes benchmarks/results/bench_scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZES = [(50, 10, 10, 20000), (200, 20, 20, 20000), (100, 50, 50, 100000)]


def one(d: int, k: int, m: int, n: int, workers: int) -> dict:
    """Run one size in this process; the row of the table."""
    from exactrelu.certificates import checker
    from exactrelu.certificates.envelope import checker_instance
    from exactrelu.instances import planted
    from exactrelu.recover import recover

    t0 = time.perf_counter()
    inst = planted(d=d, k=k, m=m, n=n, seed=1)
    floats = inst.float_inputs()
    t_make = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    res = recover(floats, inst.labels, k=k, init="auto", random_state=0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert res.network.equivalent(inst.planted)
    T = dict(res.timings)
    exact = sum(T.get(p, 0.0) for p in ("conversion", "rank", "units", "hidden", "output"))
    row = {"size": [d, k, m, n], "wall": wall, "cpu": cpu, "instance_s": t_make, "proposal": T.get("proposal", 0.0),
           "exact_phase": exact, "certificate": T.get("certificate", 0.0), "check": T.get("independent_check", 0.0),
           "timings": T}
    row["check_share"] = row["check"] / wall
    data = checker_instance(inst)
    t0, c0 = time.perf_counter(), time.process_time()
    checker.check(res.certificate, dict(data))
    row["recheck_1"] = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}
    if workers > 1:
        t0 = time.perf_counter()
        checker.check_parallel(res.certificate, dict(data), workers)
        row[f"recheck_{workers}"] = {"wall": time.perf_counter() - t0}
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return row


def print_row(r: dict, workers: int) -> None:
    d, k, m, n = r["size"]
    par = f" | {r[f'recheck_{workers}']['wall']:.2f}" if workers > 1 and f"recheck_{workers}" in r else ""
    print(f"| ({d},{k},{m},{n}) | {r['wall']:.2f} | {r['proposal']:.2f} | {r['exact_phase']:.2f} | "
          f"{r['certificate']:.2f} | {r['check']:.2f} ({100 * r['check_share']:.0f}%) | "
          f"{r['recheck_1']['wall']:.2f} (cpu {r['recheck_1']['cpu']:.2f}){par} | {r['peak_rss_mb']:.0f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", help="d,k,m,n (default: the three sizes above)")
    ap.add_argument("--workers", type=int, default=2, help="processes for the second re-check (default 2)")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # internal: run one size, print its row as JSON
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(*map(int, args.one.split(",")), args.workers)))
        return
    sizes = [tuple(map(int, s.split(","))) for s in args.sizes] if args.sizes else SIZES
    par = f" | re-check, {args.workers} workers s" if args.workers > 1 else ""
    print(f"| (d,k,m,n) | end to end s | proposal s | exact phase s | certificate s | independent check s (share) "
          f"| re-check, 1 process s{par} | peak RSS MB |")
    print("|---|---|---|---|---|---|---|" + ("---|" if args.workers > 1 else "") + "---|")
    rows = []
    for size in sizes:
        d, k, m, n = size
        env = dict(os.environ, EXACTRELU_MAX_ENTRIES=str(max(20_000_000, n * (d + m))))  # the size limit, raised to fit
        proc = subprocess.run([sys.executable, __file__, "--one", ",".join(map(str, size)), "--workers",
                               str(args.workers)], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(f"| {size} | failed: {proc.stderr.strip().splitlines()[-1][:100]} |", flush=True)
            continue
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print_row(rows[-1], args.workers)
    out = Path(__file__).parent / "results" / "bench_scale.json"
    old = json.loads(out.read_text()) if out.exists() else []  # rows of other sizes are kept
    done = {tuple(r["size"]) for r in rows}
    out.write_text(json.dumps([r for r in old if tuple(r["size"]) not in done] + rows, indent=1))
    print(f"saved {out}")


if __name__ == "__main__":
    main()
