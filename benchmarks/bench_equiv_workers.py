"""`exactrelu equiv --workers`: one case split on 1 and on 2 processes, the same tree (issue 37 item 6).

    python benchmarks/bench_equiv_workers.py                 # 3-10-10-4 against 2 f + 1, --top1 on [-2, 2]^3
    python benchmarks/bench_equiv_workers.py --widths 3-8-8-4 --workers 1,2,4

The pair: a random network f (integer-over-small weights, seed 7) and 2 f + 1, which has f's argmax everywhere, so
the answer is "equivalent" and the whole tree is searched. Each run is one call of ``deep_equivalence(...,
top1=True, workers=N)``; wall seconds, this process's CPU seconds and the pool workers' CPU seconds (measured in each
worker: they are the fork server's children, not ours) are printed, and the trees are compared byte for byte. The
machine is shared: quote the load with the times.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from fractions import Fraction
from pathlib import Path


def _net(rng: random.Random, widths: list[int]):
    from exactrelu.network import Network

    def q() -> str:
        return str(Fraction(rng.randint(-4, 4), rng.randint(1, 3)))

    return Network.from_layers([([[q() for _ in range(widths[i])] for _ in range(widths[i + 1])],
                                 [q() for _ in range(widths[i + 1])]) for i in range(len(widths) - 1)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--widths", default="3-10-10-4")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from exactrelu.equiv.deep import deep_equivalence
    from exactrelu.network import Network

    widths = [int(w) for w in args.widths.split("-")]
    f = _net(random.Random(args.seed), widths)
    W, b = f.layers[-1].W.to_fractions(), f.layers[-1].b_fractions()
    layers = [(layer.W.to_fractions(), layer.b_fractions()) for layer in f.layers[:-1]]
    g = Network.from_layers([([[str(v) for v in r] for r in L], [str(v) for v in c]) for L, c in layers]
                            + [([[str(2 * v) for v in r] for r in W], [str(2 * v + 1) for v in b])])
    box = {"lower": [-2] * widths[0], "upper": [2] * widths[0]}
    trees = {}
    for n in (int(w) for w in args.workers.split(",")):
        t0, c0 = time.monotonic(), time.process_time()
        res = deep_equivalence(f, g, top1=True, workers=n, **box)
        row = {"workers": n, "status": res.status, "nodes": res.stats.get("nodes"), "leaves": res.stats.get("leaves"),
               "wall_seconds": round(time.monotonic() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1),
               "worker_cpu_seconds": round(res.stats.get("worker_cpu_seconds", 0.0), 1)}
        trees[n] = json.dumps(res.tree)
        print(json.dumps(row), flush=True)
    print("the same tree for every number of workers:", len(set(trees.values())) == 1)


if __name__ == "__main__":
    main()
