"""The float proposal at scale (issue 25 item 4): ``init="auto"`` of this checkout beside an older one.

Each measurement is a fresh process that builds the planted instance (seed 1), runs
``AutoProposer(k, random_state=0).fit`` with one BLAS thread and prints wall and CPU time
(time.process_time), what auto chose, how many rows passed the float screen and the largest angle to the
planted rows. The two checkouts alternate (before, after, before, after, ...) in one run, on the same
instances, so that a loaded machine loads both alike. Writes results/bench_proposal_scale.json
(results/bench_proposal_scale_quick.json with --quick).

Usage: python benchmarks/bench_proposal_scale.py --before DIR [--repeat 2] [--quick]
(DIR is a checkout of the previous version, e.g. ``git worktree add /tmp/before main``.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = [(200, 20, 20, 20000), (100, 50, 50, 100000)]
QUICK = [(50, 10, 10, 10000)]

CHILD = r"""
import json, sys, time
from exactrelu.blas import fixed_threads
from exactrelu.instances import planted
from exactrelu.propose.auto import AutoProposer
from exactrelu.propose.floats import angular_errors
d, k, m, n = map(int, sys.argv[1:5])
inst = planted(d=d, k=k, m=m, n=n, seed=1)
X, Y = inst.float_inputs(), inst.float_labels()
with fixed_threads(1):
    t0, c0 = time.perf_counter(), time.process_time()
    est = AutoProposer(k, random_state=0).fit(X, Y)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"wall": wall, "cpu": cpu, "chosen": est.chosen_, "screened": int(est.screened_.sum()),
                  "max_angle": float(angular_errors(est.V_, inst.planted.V.to_float()).max())}))
"""


def run(path: Path, size) -> dict:
    # checkouts from before issue 34 refused n = 10^5 by a count; later ones ignore the variable
    env = dict(os.environ, PYTHONPATH=str(path), EXACTRELU_MAX_ENTRIES="100000000")
    out = subprocess.run([sys.executable, "-c", CHILD, *map(str, size)], env=env, cwd="/", capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, type=Path, help="a checkout of the previous version")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rows = []
    for size in QUICK if args.quick else SIZES:
        for rep in range(args.repeat):
            for name, path in (("before", args.before.resolve()), ("after", HERE.parent)):
                r = dict(run(path, size), version=name, size=list(size), repeat=rep)
                rows.append(r)
                print(f"{str(size):24} {name:6} wall {r['wall']:7.2f} s  cpu {r['cpu']:7.2f} s  {r['chosen']}, "
                      f"{r['screened']} screened, max angle {r['max_angle']:.1e}", flush=True)
    out = HERE / "results" / ("bench_proposal_scale_quick.json" if args.quick else "bench_proposal_scale.json")
    out.write_text(json.dumps({"load_average": os.getloadavg(), "rows": rows}, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
