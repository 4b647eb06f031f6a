"""PyTorch's default model learned exactly (issue 33): certified recovery with an output bias c, beside PyTorch.

    python benchmarks/bench_output_bias.py                 # the three sizes of issue 33, 5 seeds
    python benchmarks/bench_output_bias.py --seeds 2 --sizes 10,3,1,20000

On each planted instance (Gaussian float64 inputs, integer weights, hidden biases b in [-1, 1] and an output bias
c in [-2, 2], rounded to quarters: c != 0, exact labels), in the same run:

* **ours, with c**: ``recover(inst, k, bias=True)`` (the class of ``nn.Sequential(Linear, ReLU, Linear)``), time to
  a certificate checked by the independent checker, and whether it certified (and the network is the planted one);
* **ours, without c**: the same seed's network with c = 0 (the draws are the same: c is drawn last) and
  ``recover(..., bias="hidden")``: the time the output bias costs (issue 33 asks for at most 1.5x);
* **PyTorch**: ``nn.Sequential(nn.Linear(d, k), nn.ReLU(), nn.Linear(k, m))`` (both biases, PyTorch's default) in
  float64, full batch, Adam then L-BFGS, until the relative error |pred - Y| / |Y| <= 1e-12 (or 120 s / a stall):
  time, and whether it got there.

One BLAS / torch thread (the machine is shared): ratios from one run, not absolute times. Results: a table on
stdout and benchmarks/results/bench_output_bias.json.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.errors import ExactReluError  # noqa: E402
from exactrelu.instances import planted  # noqa: E402
from exactrelu.recover import recover  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SIZES = [(10, 3, 1, 20000), (20, 5, 5, 5000), (50, 10, 10, 20000)]


def torch_default(X, Y, k, seed, target=1e-12, cap=120.0):
    """PyTorch's default two-layer model in float64 (bench_proposers.torch_train with both biases): (seconds, error,
    reached ``target``)."""
    from bench_proposers import torch_train

    return torch_train(X, Y, k, seed, target, cap, bias=True, output_bias=True)


def ours(inst, k, bias, seed):
    """(seconds to a checked certificate, certified and equal to the planted network)."""
    t0 = time.perf_counter()
    try:
        res = recover(inst, k=k, bias=bias, random_state=seed, check=True)
    except ExactReluError:
        return time.perf_counter() - t0, False
    return time.perf_counter() - t0, bool(res.network.equivalent(inst.planted))


def run(sizes, seeds: int) -> list[dict]:
    rows = []
    print("| d,k,m,n | seeds | certified with c | median s with c | median s without c | ratio c / no c | "
          "torch at 1e-12 | torch median s | ours with c / torch |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d, k, m, n in sizes:
        with_c, without_c, torch_t, got, reached = [], [], [], 0, 0
        for seed in range(seeds):
            inst = planted(d, k, m, n, seed=seed, bias=1.0, output_bias=2.0)
            plain = planted(d, k, m, n, seed=seed, bias=1.0)  # the same draws, c = 0
            assert plain.planted.V == inst.planted.V and inst.planted.has_output_bias
            t, ok = ours(inst, k, True, seed)
            with_c.append(t)
            got += ok
            without_c.append(ours(plain, k, "hidden", seed)[0])
            tt, _, fine = torch_default(inst.float_inputs(), inst.float_labels(), k, seed)
            torch_t.append(tt)
            reached += fine
            print(f"  seed {seed}: ours {t:.2f} s ({'certified' if ok else 'FAILED'}), without c {without_c[-1]:.2f} s, "
                  f"torch {tt:.2f} s ({'1e-12' if fine else 'not reached'})", file=sys.stderr, flush=True)
        r = {"size": [d, k, m, n], "seeds": seeds, "certified": got, "with_c_median_s": float(np.median(with_c)),
             "without_c_median_s": float(np.median(without_c)), "torch_reached": reached,
             "torch_median_s": float(np.median(torch_t)), "with_c": with_c, "without_c": without_c, "torch": torch_t}
        rows.append(r)
        print(f"| {d},{k},{m},{n} | {seeds} | {got}/{seeds} | {r['with_c_median_s']:.2f} | "
              f"{r['without_c_median_s']:.2f} | {r['with_c_median_s'] / r['without_c_median_s']:.2f} | "
              f"{reached}/{seeds} | {r['torch_median_s']:.2f} | {r['with_c_median_s'] / r['torch_median_s']:.2f} |",
              flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds per size (default 5)")
    ap.add_argument("--sizes", help="d,k,m,n[;d,k,m,n...] (default: the three of issue 33)")
    ap.add_argument("--out", default=str(RESULTS / "bench_output_bias.json"), help="JSON results file")
    args = ap.parse_args()
    sizes = [tuple(int(x) for x in s.split(",")) for s in args.sizes.split(";")] if args.sizes else SIZES
    rows = run(sizes, args.seeds)
    Path(args.out).write_text(json.dumps({"rows": rows, "load": os.getloadavg()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
