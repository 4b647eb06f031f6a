"""Exact routes beyond rank(labels) = k, side by side with PyTorch training; samples vs kappa; corruption.

Parts (all write JSON rows to benchmarks/results/routes_<part>.json and print markdown tables):

* ``routes``: time of each phase of ``exactrelu.recover.recover`` (route auto) at the sizes of
  issue 10, biased and unbiased, beside PyTorch training of the same architecture on the same data
  (``Linear(d, k, bias) -> ReLU -> Linear(k, m, bias=False)``, float64, full batch, Adam to 1e-3 then
  L-BFGS to relative error 1e-12, one thread, at most 20 s: bench_proposers.torch_train): medians, failures, and the ratio of our time to
  PyTorch's time on its successes, all from one run.
* ``kappa``: the fewest samples with which the row-span route certifies, against kappa(V), for V of
  nearly parallel rows (exactrelu.instances.conditioning.ill_conditioned), with a plot. The proposal is the planted V
  perturbed by 1e-3 (an oracle), so that the count measures what the exact step needs, not a proposer.
* ``kneeds``: the fewest samples the sparse-columns route (no proposal) and the pattern-linearized
  route need, against k, at m = 2 < k.
* ``corruption``: share of seeds certified with ``sparse_noise=True`` against the corrupted fraction.

Usage: python benchmarks/bench_routes.py [routes|kappa|kneeds|corruption|all] [--seeds N] [--quick] [--plot-only]
The machine is shared: absolute times are noisy, ratios come from the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.instances.conditioning import ill_conditioned  # noqa: E402
from exactrelu.instances.corruption import corrupt  # noqa: E402
from exactrelu.errors import ExactReluError  # noqa: E402
from exactrelu.instances import planted  # noqa: E402
from exactrelu.recover import recover  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_proposers import torch_train  # noqa: E402  (the same PyTorch protocol, with hidden biases)

RESULTS = Path(__file__).resolve().parent / "results"
SIZES = [(10, 3, 1, 20000), (20, 5, 1, 50000), (20, 5, 3, 50000)]


def _ours(inst, k, bias, seed):
    t0 = time.perf_counter()
    try:
        res = recover(inst, k=k, bias=bias, random_state=seed)
    except ExactReluError as exc:
        return {"ok": False, "wall": time.perf_counter() - t0, "error": f"{type(exc).__name__}: {str(exc)[:160]}"}
    wall = time.perf_counter() - t0
    return {"ok": bool(res.network.equivalent(inst.planted)), "wall": wall, "route": res.route,
            "proposer": res.proposer, "starts": res.tries, "phases": res.timings,
            "wall_without_checker": wall - res.timings.get("independent_check", 0.0)}


def _live_seeds(d, k, m, n, bias, count):
    """The first ``count`` seeds whose planted U has no zero column (integer weights in [-3, 3] give one in
    37% of (k, m) = (3, 1) draws: such labels come from fewer units, and recovery rightly refuses k)."""
    out, seed = [], 0
    while len(out) < count:
        U = planted(d, k, m, n, seed=seed, bias=1.5 if bias else None).planted.U.to_float()
        if (abs(U).sum(axis=0) > 0).all():
            out.append(seed)
        seed += 1
    return out


def part_routes(seeds: int, quick: bool) -> list[dict]:
    rows = []
    plan = [(s, b, seeds if (s, b) == (SIZES[0], True) else max(2, seeds // 7)) for s in SIZES for b in (True, False)]
    if quick:
        plan = [(SIZES[0], True, seeds)]
    for (d, k, m, n), bias, ns in plan:
        for seed in _live_seeds(d, k, m, n, bias, ns):
            inst = planted(d, k, m, n, seed=seed, bias=1.5 if bias else None)
            row = {"size": [d, k, m, n], "bias": bias, "seed": seed, "ours": _ours(inst, k, bias, seed)}
            t, err, ok = torch_train(inst.float_inputs(), inst.float_labels(), k, seed, cap=20.0, bias=bias)
            row["torch"] = {"wall": t, "rel_err": err, "ok": bool(ok)}
            rows.append(row)
            print(json.dumps({**row, "ours": {a: b for a, b in row["ours"].items() if a != "phases"}}), flush=True)
    return rows


def table_routes(rows: list[dict]) -> str:
    out = ["| d,k,m,n | biases | seeds | route(s) | ours median s (with checker) | ours median s (no checker) | "
           "ours fails | torch median s (successes) | torch fails | ratio ours/torch | median phases (s) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(tuple(r["size"]), r["bias"]) for r in rows}, key=lambda t: (t[0], not t[1]))
    for size, bias in keys:
        rs = [r for r in rows if tuple(r["size"]) == size and r["bias"] == bias]
        ours = [r["ours"] for r in rs]
        ok = [o for o in ours if o["ok"]]
        ts = [r["torch"]["wall"] for r in rs if r["torch"]["ok"]]
        med = lambda a: float(np.median(a)) if a else float("nan")  # noqa: E731
        ow, on, tw = med([o["wall"] for o in ok]), med([o["wall_without_checker"] for o in ok]), med(ts)
        phases = {}
        for o in ok:
            for p, v in o["phases"].items():
                phases.setdefault(p, []).append(v)
        ph = ", ".join(f"{p} {med(v):.2f}" for p, v in phases.items() if med(v) >= 0.01)
        routes = "/".join(sorted({o.get("route", "-") for o in ok}))
        out.append(f"| {','.join(map(str, size))} | {'yes' if bias else 'no'} | {len(rs)} | {routes} | {ow:.2f} | {on:.2f} "
                   f"| {len(ours) - len(ok)} | {tw:.2f} | {len(rs) - len(ts)} | {ow / tw:.2f} | {ph} |")
    return "\n".join(out)


def _fewest(make, k, bias, route, grid, oracle=False):
    """Smallest n of ``grid`` at which ``route`` certifies the planted network of make(n); None if none.

    ``oracle``: the proposal is the planted V perturbed by 1e-3 (measures what the exact step needs).
    """
    for n in grid:
        inst = make(n)
        init = "auto"
        if oracle:
            V = inst.planted.V.to_float()
            init = V + 1e-3 * np.random.default_rng(n).standard_normal(V.shape)
        try:
            res = recover(inst, k=k, bias=bias, route=route, check=False, init=init)
        except ExactReluError:
            continue
        if res.network.equivalent(inst.planted):
            return n
    return None


def part_kappa(seeds: int, quick: bool) -> list[dict]:
    rows = []
    kappas = [1, 4, 16, 64] if quick else [1, 2, 4, 8, 16, 32, 64, 128]
    grid = [int(25 * 2 ** (j / 2)) for j in range(0, 26)]
    d, k, m = 4, 3, 3
    for kappa in kappas:
        for seed in range(seeds):
            need = _fewest(lambda n: ill_conditioned(d, k, m, n, kappa=kappa, seed=seed), k, False, "rowspan", grid,
                           oracle=True)
            true_kappa = float(np.linalg.cond(ill_conditioned(d, k, m, 10, kappa=kappa, seed=seed).planted.V.to_float()))
            rows.append({"kappa": kappa, "kappa_V": true_kappa, "seed": seed, "n_needed": need, "d": d, "k": k, "m": m})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def table_kappa(rows):
    out = ["| kappa (asked) | kappa(V) median | samples needed: median (seeds) | per kappa |", "|---|---|---|---|"]
    for kappa in sorted({r["kappa"] for r in rows}):
        rs = [r for r in rows if r["kappa"] == kappa]
        ns = [r["n_needed"] for r in rs if r["n_needed"] is not None]
        med = float(np.median(ns)) if ns else float("nan")
        out.append(f"| {kappa} | {np.median([r['kappa_V'] for r in rs]):.1f} | {med:.0f} ({len(ns)}/{len(rs)}) | "
                   f"{med / kappa:.0f} |")
    return "\n".join(out)


def plot_kappa(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = sorted({r["kappa"] for r in rows})
    med = [np.median([r["n_needed"] for r in rows if r["kappa"] == k and r["n_needed"]] or [np.nan]) for k in ks]
    kv = [np.median([r["kappa_V"] for r in rows if r["kappa"] == k]) for k in ks]
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for r in rows:
        if r["n_needed"]:
            ax.plot(r["kappa_V"], r["n_needed"], ".", color="0.7")
    ax.plot(kv, med, "o-", label="median samples for a certificate")
    ax.plot(kv, [med[0] * x / kv[0] for x in kv], "--", label="linear in kappa")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("kappa(V)")
    ax.set_ylabel("samples n")
    ax.set_title("row-span route, (d,k,m) = (4,3,3), oracle proposal")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def part_kneeds(seeds: int, quick: bool) -> list[dict]:
    rows = []
    grid = [int(25 * 2 ** (j / 2)) for j in range(0, 22)]
    for k in ([2, 3] if quick else [2, 3, 4, 5]):
        for seed in range(seeds):
            for route in ("sparse-columns", "linearized"):
                need = _fewest(lambda n: planted(4, k, 2, n, seed=seed, bias=1.0), k, True, route, grid)
                rows.append({"k": k, "seed": seed, "route": route, "n_needed": need})
                print(json.dumps(rows[-1]), flush=True)
    return rows


def table_kneeds(rows):
    out = ["| k | sparse-columns: median n (seeds) | linearized: median n (seeds) |", "|---|---|---|"]
    for k in sorted({r["k"] for r in rows}):
        cells = []
        for route in ("sparse-columns", "linearized"):
            rs = [r for r in rows if r["k"] == k and r["route"] == route]
            ns = [r["n_needed"] for r in rs if r["n_needed"] is not None]
            cells.append(f"{np.median(ns):.0f} ({len(ns)}/{len(rs)})" if ns else f"- (0/{len(rs)})")
        out.append(f"| {k} | {cells[0]} | {cells[1]} |")
    return "\n".join(out)


def part_corruption(seeds: int, quick: bool) -> list[dict]:
    rows = []
    plan = [((6, 3, 12, 3000), [0.05, 0.1, 0.15, 0.2, 0.25, 0.3], seeds),
            ((20, 5, 40, 20000), [0.1, 0.2, 0.25], max(1, seeds // 2))]
    if quick:
        plan = plan[:1]
    for (d, k, m, n), fracs, ns in plan:
        for frac in fracs:
            for seed in range(ns):
                clean = planted(d, k, m, n, seed=seed)
                bad = corrupt(clean, frac, seed=seed)
                t0 = time.perf_counter()
                try:
                    res = recover(bad, k=k, sparse_noise=True, random_state=seed)
                    ok = res.network.equivalent(clean.planted) and res.except_entries == [tuple(e) for e in bad.meta["corrupted"]]
                    err = None
                except ExactReluError as exc:
                    ok, err = False, f"{type(exc).__name__}: {str(exc)[:120]}"
                rows.append({"size": [d, k, m, n], "fraction": frac, "seed": seed, "ok": bool(ok),
                             "wall": time.perf_counter() - t0, "error": err})
                print(json.dumps(rows[-1]), flush=True)
    return rows


def table_corruption(rows):
    out = ["| d,k,m,n | corrupted fraction of entries | certified with exactly the corrupted entries listed | median s |",
           "|---|---|---|---|"]
    for size in sorted({tuple(r["size"]) for r in rows}):
        for frac in sorted({r["fraction"] for r in rows if tuple(r["size"]) == size}):
            rs = [r for r in rows if tuple(r["size"]) == size and r["fraction"] == frac]
            out.append(f"| {','.join(map(str, size))} | {frac:.2f} | {sum(r['ok'] for r in rs)}/{len(rs)} | "
                       f"{np.median([r['wall'] for r in rs]):.1f} |")
    return "\n".join(out)


PARTS = {"routes": (part_routes, table_routes), "kappa": (part_kappa, table_kappa),
         "kneeds": (part_kneeds, table_kneeds), "corruption": (part_corruption, table_corruption)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", nargs="?", default="all", choices=[*PARTS, "all"])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--plot-only", action="store_true", help="tables and plots from the saved results")
    args = ap.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    for name in (PARTS if args.part == "all" else [args.part]):
        run, table = PARTS[name]
        path = RESULTS / f"routes_{name}.json"
        if args.plot_only:
            rows = json.loads(path.read_text())
        else:
            rows = run(args.seeds, args.quick)
            path.write_text(json.dumps(rows, indent=1) + "\n")
        print(f"\n### {name}\n\n{table(rows)}\n")
        if name == "kappa":
            plot_kappa(rows, RESULTS / "routes_kappa.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
