"""Float proposers for exact recovery: PyTorch training side by side, success and angular error vs n.

    python benchmarks/bench_proposers.py --quick      # a few minutes: 3 seeds, small sizes
    python benchmarks/bench_proposers.py              # the sizes and seed counts of issue 3 (long)
    python benchmarks/bench_proposers.py --part torch --seeds 20 --sizes 20,5,5,5000

Part ``torch``: on the same planted instances (Gaussian inputs, integer weights), PyTorch full-batch
training of Linear(d,k,bias=False) -> ReLU -> Linear(k,m,bias=False) in float64 (Adam, then
L-BFGS with strong Wolfe line search) until the relative error |pred - Y| / |Y| <= 1e-12, beside
exactrelu's time to a certificate (``recover(init="auto")``), with and without the second,
independent (pure-Python) check. A torch run fails when it stops above 1e-12 (bad local minimum
or the time cap); exactrelu fails when it raises.

Part ``success``: for each proposer alone (the exact step's own search fallback is switched off
here, so a miss counts as a failure), whether exact recovery certifies all k units, against n;
and the largest angle between proposed and planted rows. Plots go to benchmarks/results/.

Both use one BLAS / torch thread (the machine is shared); ratios from one run, not absolute times.
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

from exactrelu.recover import rowspan as rowspan_mod  # noqa: E402
from exactrelu.errors import ExactReluError, ProposalFailed  # noqa: E402
from exactrelu.instances import planted  # noqa: E402
from exactrelu.propose.floats import angular_errors  # noqa: E402
from exactrelu.propose.gradient import GradientProposer  # noqa: E402
from exactrelu.propose.search import SearchProposer  # noqa: E402
from exactrelu.propose.tensor import TensorProposer  # noqa: E402
from exactrelu.recover import recover  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
TORCH_SIZES = [(10, 3, 3, 2000), (20, 5, 5, 5000), (50, 10, 10, 20000), (50, 30, 30, 50000)]
TORCH_QUICK = [(10, 3, 3, 2000), (20, 5, 5, 5000), (50, 10, 10, 20000)]


# -- PyTorch, the practitioner's way -------------------------------------------------------------

def torch_train(X, Y, k, seed, target=1e-12, cap=120.0, bias=False, output_bias=False):
    """Full-batch float64 training: Adam to 1e-3, then L-BFGS to ``target``. Returns (seconds, rel_err, ok).

    ``bias``: the hidden layer has biases (``Linear(d, k, bias=True)``), as in bench_routes.py; ``output_bias``: the
    output layer too (both: PyTorch's default ``Sequential(Linear, ReLU, Linear)``, bench_output_bias.py)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    Xt, Yt = torch.from_numpy(X), torch.from_numpy(Y)
    d, m = X.shape[1], Y.shape[1]
    model = torch.nn.Sequential(torch.nn.Linear(d, k, bias=bias), torch.nn.ReLU(),
                                torch.nn.Linear(k, m, bias=output_bias)).double()
    ynorm = torch.linalg.norm(Yt)

    def rel():
        with torch.no_grad():
            return float(torch.linalg.norm(model(Xt) - Yt) / ynorm)

    t0 = time.perf_counter()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(5000):
        opt.zero_grad()
        loss = ((model(Xt) - Yt) ** 2).mean()
        loss.backward()
        opt.step()
        if step % 50 == 0 and (rel() < 1e-3 or time.perf_counter() - t0 > cap):
            break
    def closure():
        opt.zero_grad()
        loss = ((model(Xt) - Yt) ** 2).sum() / ynorm**2
        loss.backward()
        return loss

    err, stalls = rel(), 0
    while err > target and time.perf_counter() - t0 < cap and stalls < 3:
        # a fresh L-BFGS after every 100 iterations: its line search gives up near the rounding floor otherwise
        opt = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=100, history_size=50, tolerance_grad=0,
                                tolerance_change=0, line_search_fn="strong_wolfe")
        before = err
        opt.step(closure)
        err = rel()
        stalls = stalls + 1 if not err < before * 0.5 else 0  # three stalls: a bad local minimum
    return time.perf_counter() - t0, err, err <= target


def part_torch(sizes, seeds, out):
    rows = []
    print("\n## PyTorch training to relative error 1e-12 vs exactrelu certificate (init=auto)\n")
    print("| d,k,m,n | seeds | torch median s | torch fails | ours median s (checked) | ours median s (no 2nd check) "
          "| ours fails | ratio ours/torch (checked) | ratio (no 2nd check) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (d, k, m, n) in sizes:
        tt, tf, ours, ours_nc, of = [], 0, [], [], 0
        for seed in range(seeds):
            inst = planted(d, k, m, n, seed=seed)
            X, Y = inst.float_inputs(), inst.labels.to_float()
            t, err, ok = torch_train(X, Y, k, seed)
            tt.append(t)
            tf += not ok
            t0 = time.perf_counter()
            try:
                res = recover(inst, k=k, init="auto", random_state=seed, check=True)
                ok2 = res.network.equivalent(inst.planted)
            except ExactReluError:
                ok2, res = False, None
            t_ours = time.perf_counter() - t0
            ours.append(t_ours)
            ours_nc.append(t_ours - (res.timings.get("independent_check", 0.0) if res else 0.0))
            of += not ok2
        r = {"size": [d, k, m, n], "seeds": seeds, "torch_median_s": float(np.median(tt)), "torch_fails": tf,
             "ours_median_s": float(np.median(ours)), "ours_median_no_second_check_s": float(np.median(ours_nc)),
             "ours_fails": of, "torch_times": tt, "ours_times": ours}
        rows.append(r)
        print(f"| {d},{k},{m},{n} | {seeds} | {r['torch_median_s']:.2f} | {tf} | {r['ours_median_s']:.2f} | "
              f"{r['ours_median_no_second_check_s']:.2f} | {of} | {r['ours_median_s'] / r['torch_median_s']:.2f} | "
              f"{r['ours_median_no_second_check_s'] / r['torch_median_s']:.2f} |", flush=True)
    out["torch"] = rows


# -- success and angular error against n ----------------------------------------------------------

class _NoSearch(SearchProposer):
    def fit(self, inputs, labels):
        raise ProposalFailed("search fallback disabled in this benchmark")


PROPOSERS = {
    "gradient": lambda k, s: GradientProposer(k, random_state=s),
    "tensor (order 2)": lambda k, s: TensorProposer(k, random_state=s, order=2),
    "tensor (order 4)": lambda k, s: TensorProposer(k, random_state=s, order=4),
    "search": lambda k, s: SearchProposer(k, random_state=s),
}


def part_success(sizes, ns, seeds, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    rowspan_mod.SearchProposer = _NoSearch  # a proposal's misses count as failures here
    try:
        for (d, k, m) in sizes:
            for n in ns:
                if n < 4 * d:
                    continue
                for name, make in PROPOSERS.items():
                    if name == "search" and k > 5:
                        continue
                    succ, angles, times = 0, [], []
                    for seed in range(seeds):
                        inst = planted(d, k, m, n, seed=seed)
                        X, Y = inst.float_inputs(), inst.float_labels()
                        t0 = time.perf_counter()
                        try:
                            est = make(k, seed).fit(X, Y)
                            V = est.V_
                            if V.shape[0] == k:
                                angles.append(float(angular_errors(V, inst.planted.V.to_float()).max()))
                            res = recover(inst, k=k, init=est, random_state=seed, check=False)
                            succ += bool(res.network.equivalent(inst.planted))
                        except ExactReluError:
                            pass
                        times.append(time.perf_counter() - t0)
                    r = {"size": [d, k, m], "n": n, "proposer": name, "seeds": seeds, "success": succ / seeds,
                         "max_angle_median": float(np.median(angles)) if angles else None,
                         "median_s": float(np.median(times))}
                    rows.append(r)
                    ang = "-" if r["max_angle_median"] is None else f"{r['max_angle_median']:.3g}"
                    print(f"| {d},{k},{m} | {n} | {name} | {succ}/{seeds} | {ang} | {r['median_s']:.2f} |", flush=True)
    finally:
        rowspan_mod.SearchProposer = SearchProposer
    out["success"] = rows
    fig, axes = plt.subplots(2, len(sizes), figsize=(4.5 * len(sizes), 7), squeeze=False)
    for j, (d, k, m) in enumerate(sizes):
        for q, (name, mark) in enumerate(zip(PROPOSERS, "osD^")):
            pts = [r for r in rows if r["size"] == [d, k, m] and r["proposer"] == name]
            if not pts:
                continue
            off = 0.015 * (q - 1.5)  # small vertical offsets so that coinciding curves stay visible
            axes[0][j].plot([r["n"] for r in pts], [r["success"] + off for r in pts], marker=mark, label=name)
            a = [(r["n"], max(r["max_angle_median"], 1e-9)) for r in pts if r["max_angle_median"] is not None]
            if a:
                axes[1][j].plot(*zip(*a), "o-", label=name)
        axes[0][j].set(xscale="log", title=f"(d,k,m) = ({d},{k},{m})", ylabel="exact recovery success", ylim=(-0.05, 1.05))
        axes[1][j].set(xscale="log", yscale="log", xlabel="n", ylabel="max angle to planted rows (median, rad; floor 1e-9)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    RESULTS.mkdir(exist_ok=True)
    fig.savefig(RESULTS / "proposers_success_vs_n.png", dpi=110)
    print(f"\nplot: {RESULTS / 'proposers_success_vs_n.png'}")


def part_reliability(seeds, out, size=(20, 5, 5, 5000)):
    """Our failures over many seeds (the issue's target: 0 in 100 at (20,5,5,5000))."""
    d, k, m, n = size
    fails, times, chosen = [], [], {}
    for seed in range(seeds):
        inst = planted(d, k, m, n, seed=seed)
        t0 = time.perf_counter()
        try:
            res = recover(inst, k=k, init="auto", random_state=seed, check=True)
            ok = res.network.equivalent(inst.planted)
            chosen[res.proposer] = chosen.get(res.proposer, 0) + 1
        except ExactReluError:
            ok = False
        times.append(time.perf_counter() - t0)
        if not ok:
            fails.append(seed)
    out["reliability"] = {"size": list(size), "seeds": seeds, "failed_seeds": fails, "median_s": float(np.median(times)),
                          "max_s": float(max(times)), "proposers": chosen}
    print(f"\n## Reliability at {size}: {len(fails)} failures in {seeds} seeds (init=auto, checked certificate); "
          f"median {np.median(times):.2f} s, max {max(times):.2f} s; proposals {chosen}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--part", choices=["torch", "success", "reliability", "all"], default="all")
    ap.add_argument("--success-sizes", help="success part only: d,k,m[;d,k,m...]")
    ap.add_argument("--ns", help="success part only: comma-separated sample counts")
    ap.add_argument("--seeds", type=int, help="seeds per size (default: 3 quick, 20 torch / 10 success full)")
    ap.add_argument("--sizes", help="torch part only: d,k,m,n[;d,k,m,n...]")
    args = ap.parse_args()
    out = {"quick": args.quick}
    if args.part in ("torch", "all"):
        sizes = [tuple(int(x) for x in s.split(",")) for s in args.sizes.split(";")] if args.sizes else (
            TORCH_QUICK if args.quick else TORCH_SIZES)
        part_torch(sizes, args.seeds or (3 if args.quick else 20), out)
    if args.part in ("success", "all"):
        print("\n## Exact recovery success (proposal alone) and max angular error vs n\n")
        print("| d,k,m | n | proposer | certified | max angle (median, rad) | median s |")
        print("|---|---|---|---|---|---|")
        sizes = [(10, 3, 3), (20, 5, 5)] if args.quick else [(10, 3, 3), (20, 5, 5), (50, 10, 10)]
        ns = [1000, 4000, 16000, 64000] if args.quick else [1000, 4000, 16000, 64000, 256000]
        if args.success_sizes:
            sizes = [tuple(int(x) for x in s.split(",")) for s in args.success_sizes.split(";")]
        if args.ns:
            ns = [int(x) for x in args.ns.split(",")]
        part_success(sizes, ns, args.seeds or (3 if args.quick else 10), out)
    if args.part in ("reliability", "all"):
        part_reliability(args.seeds or (10 if args.quick else 100), out)
    RESULTS.mkdir(exist_ok=True)
    tag = "" if not args.sizes else "_" + args.sizes.replace(",", "-").replace(";", "_")
    name = "bench_proposers_quick.json" if args.quick else f"bench_proposers_{args.part}{tag}.json"
    (RESULTS / name).write_text(json.dumps(out, indent=1))
    print(f"results: {RESULTS / name}")


if __name__ == "__main__":
    main()
