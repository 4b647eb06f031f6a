"""The worst-case solver on planted instances: time for (n, k, d) = (50, 2, 3), (200, 3, 5),
(1000, 5, 10), with the certificate checked by the independent checker; and the time to refute
unrealizable labels (random labels of rank k on integer inputs).

Usage: python benchmarks/bench_worstcase.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _lp_peers import save, table  # noqa: E402

from exactrelu.exact.matrix import QMatrix  # noqa: E402
from exactrelu.instances import Instance, planted  # noqa: E402
from exactrelu.decide import solve_decision  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rows = []
    sizes = [(50, 2, 3), (200, 3, 5)] if args.quick else [(50, 2, 3), (200, 3, 5), (1000, 5, 10)]
    for n, k, d in sizes:
        for inputs in ("gaussian", "integer"):
            inst = planted(d=d, k=k, m=k, n=n, seed=5, inputs=inputs)
            t = time.perf_counter()
            res = solve_decision(inst, k, keep_certificates=False)
            pats = len(res.evidence["patterns"])
            if res.realizable:
                out = "realizes" + (" (= planted)" if res.network.equivalent(inst.planted) else "")
            else:  # pragma: no cover - a planted instance is realizable
                out = f"NOT REALIZABLE?! {res.evidence['reason']}"
            rows.append([f"planted n={n} k={k} d={d} {inputs}", out, pats, f"{time.perf_counter() - t:.3f}"])
            print(rows[-1], flush=True)
    rng = np.random.default_rng(3)
    for n, k, d in ([(12, 2, 2)] if args.quick else [(12, 2, 2), (30, 2, 3), (40, 3, 3)]):
        X = rng.integers(-3, 4, (n, d))
        Y = rng.integers(-2, 3, (n, k)) @ rng.integers(-2, 3, (k, k))
        inst = Instance(QMatrix.from_numpy(X), QMatrix.from_numpy(Y))
        t = time.perf_counter()
        res = solve_decision(inst, k, keep_certificates=False)
        ev = res.evidence
        pats = len(ev["patterns"])
        if res.realizable:
            out = "realizes"
        else:
            out = f"not realizable (span {ev.get('span')} < {k})" if "span" in ev else "not realizable (rank)"
        rows.append([f"random labels n={n} k={k} d={d}", out, pats, f"{time.perf_counter() - t:.3f}"])
        print(rows[-1], flush=True)
    headers = ["instance", "answer", "patterns examined", "seconds (incl. certificate check)"]
    text = table(rows, headers)
    print(text)
    save("bench_worstcase" + ("_quick" if args.quick else ""), rows, headers, text)


if __name__ == "__main__":
    main()
