"""Hermite-tensor learning of biased networks (issue 12): error vs n, exact step, PyTorch, large |b|, overcomplete.

    python benchmarks/bench_hermite.py --part error        # parameter error vs n, (10,3) and (20,5); a plot
    python benchmarks/bench_hermite.py --part exact        # exact step (recover --bias --init hermite) vs n
    python benchmarks/bench_hermite.py --part torch        # PyTorch Adam + L-BFGS side by side, 20 seeds
    python benchmarks/bench_hermite.py --part large        # L2 error of the k + 2 unit network vs |b|
    python benchmarks/bench_hermite.py --part overcomplete # l = 2, d = 5, k = 6 (and d = 6, k = 9)
    python benchmarks/bench_hermite.py --part order4       # tensor proposer order 4 at (20,5,5)
    python benchmarks/bench_hermite.py --plot-only         # redraw from results/bench_hermite.json

Planted networks: rows of norm exactly 1 (rational), biases exactly 0, 1, -1 for the first units and
uniform in [-1.5, 1.5] (quarters) for the rest, non-zero integer output weights in [-3, 3], inputs
N(0, I). Parameter error: the largest error of matched unit-normalized parameters (rows, biases,
output weights relative to the largest), after sign resolution. One BLAS / torch thread; the
machine is shared and loaded, so times are from one run and only their ratios mean something.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.errors import ExactReluError  # noqa: E402
from exactrelu.propose.hermite import HermiteProposer, network_parameter_error  # noqa: E402
from exactrelu.instances.hermite import planted_biased, rational_unit_rows  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "bench_hermite.json"


def float_planted(d, k, n, seed, bias=1.5, special=(0.0, 1.0, -1.0)):
    """Float version of planted_biased (same network), for the error-vs-n part (no exact labels needed)."""
    rng = np.random.default_rng(seed)
    V = np.array(rational_unit_rows(rng, k, d), dtype=float)
    sp = list(special)[:k]
    b = np.array(sp + list(np.round(4 * rng.uniform(-bias, bias, k - len(sp))) / 4))
    a = rng.choice([-3, -2, -1, 1, 2, 3], k).astype(float)
    X = rng.standard_normal((n, d))
    return X, np.maximum(X @ V.T + b, 0) @ a, V, b, a


def _error(est, V, b, a):
    from exactrelu.network import Network

    net = Network.from_rows([a.tolist()], V.tolist(), b=b.tolist())
    return network_parameter_error(est.V_, est.b_, est.U_, net)


def part_error(ns, seeds, out):
    rows = []
    print("\n## Parameter error vs n (moment estimators, Jennrich + ALS, signs; no refinement)\n")
    print("| d,k | n | seeds | median error | 90% error | unit count wrong | median s |")
    print("|---|---|---|---|---|---|---|")
    for d, k in [(10, 3), (20, 5)]:
        for n in ns:
            errs, times, wrong = [], [], 0
            for seed in range(seeds):
                X, Y, V, b, a = float_planted(d, k, n, seed)
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = HermiteProposer(k, random_state=seed).fit(X, Y)
                times.append(time.perf_counter() - t0)
                e = _error(est, V, b, a)
                wrong += not np.isfinite(e)
                errs.append(e)
            fin = [e for e in errs if np.isfinite(e)] or [np.inf]
            r = {"d": d, "k": k, "n": n, "seeds": seeds, "median": float(np.median(fin)),
                 "p90": float(np.quantile(fin, 0.9)), "wrong_units": wrong, "median_s": float(np.median(times)),
                 "errors": [float(e) for e in errs]}
            rows.append(r)
            print(f"| {d},{k} | {n:.0e} | {seeds} | {r['median']:.3g} | {r['p90']:.3g} | {wrong} | {r['median_s']:.2f} |",
                  flush=True)
    out["error"] = rows


def part_exact(ns, seeds, out):
    """recover(..., bias=True, init=HermiteProposer) on exact labels at (10,3,1); needs the pattern-linearized route."""
    from exactrelu.recover import ROUTES, recover

    rows = []
    print(f"\n## Exact step (recover --bias --init hermite), (10,3,1); routes available: {list(ROUTES)}\n")
    print("| n | seeds | certified | median s | failures (first message) |")
    print("|---|---|---|---|---|")
    for n in ns:
        ok, times, first = 0, [], ""
        for seed in range(seeds):
            inst = planted_biased(10, 3, n, seed=seed)
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = recover(inst, k=3, bias=True, init=HermiteProposer(3, random_state=seed), check=False)
                ok += bool(res.network.equivalent(inst.planted))
            except ExactReluError as exc:
                first = first or str(exc).splitlines()[0][:100]
            times.append(time.perf_counter() - t0)
        rows.append({"n": n, "seeds": seeds, "certified": ok, "median_s": float(np.median(times)), "first_failure": first})
        print(f"| {n:.0e} | {seeds} | {ok}/{seeds} | {np.median(times):.2f} | {first} |", flush=True)
    out["exact"] = rows


def torch_train(X, Y, k, seed, target=1e-12, cap=60.0):
    """bench_proposers' PyTorch training (Adam to 1e-3, then L-BFGS to ``target``) with a first-layer bias.

    Returns (seconds, relative error).
    """
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_proposers import torch_train as train

    seconds, err, _ = train(X, Y, k, seed, target=target, cap=cap, bias=True)
    return seconds, err


def part_torch(seeds, n, out):
    rows = []
    print(f"\n## PyTorch (Adam then L-BFGS, float64) vs Hermite (+ pattern-linearized refinement), (10,3,1), n = {n:.0e}\n")
    print("| seeds | torch median s | torch reached 1e-12 | hermite+refine median s | hermite reached 1e-12 | ratio |")
    print("|---|---|---|---|---|---|")
    tt, te, ht, he = [], [], [], []
    for seed in range(seeds):
        X, Y, V, b, a = float_planted(10, 3, n, seed)
        Y = Y[:, None]
        s, e = torch_train(X, Y, 3, seed)
        tt.append(s)
        te.append(e)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = HermiteProposer(3, random_state=seed, refine=10).fit(X, Y)
        ht.append(time.perf_counter() - t0)
        he.append(float(np.linalg.norm(est.evaluate(X) - Y) / np.linalg.norm(Y)))
    r = {"seeds": seeds, "n": n, "torch_median_s": float(np.median(tt)), "torch_ok": int(np.sum(np.array(te) <= 1e-12)),
         "hermite_median_s": float(np.median(ht)), "hermite_ok": int(np.sum(np.array(he) <= 1e-12)),
         "torch_errors": te, "hermite_errors": he}
    r["ratio"] = r["hermite_median_s"] / r["torch_median_s"]
    rows.append(r)
    print(f"| {seeds} | {r['torch_median_s']:.2f} | {r['torch_ok']}/{seeds} | {r['hermite_median_s']:.2f} | "
          f"{r['hermite_ok']}/{seeds} | {r['ratio']:.3f} |", flush=True)
    out["torch"] = rows


def part_large(seeds, n, out):
    rows = []
    print(f"\n## Large |b|: relative L2 error (fresh samples) of the learned network, (8,3,1), n = {n:.0e}\n")
    print("| |b| of two units | seeds | k' (units) | rel. L2 error, large-|b| stage | rel. L2 error, k units kept |")
    print("|---|---|---|---|---|")
    for big in (1.5, 2.5, 3.5, 4.5, 6.0):
        e1, e2, ks = [], [], []
        for seed in range(seeds):
            X, Y, V, b, a = float_planted(8, 3, n + 20000, seed, special=(0.5, big, -big))
            Xf, Yf, Xt, Yt = X[:n], Y[:n], X[n:], Y[n:]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = HermiteProposer(3, random_state=seed).fit(Xf, Yf)
                keep = HermiteProposer(3, random_state=seed, large_bias=False).fit(Xf, Yf)
            nrm = np.sqrt(np.mean(Yt**2))
            e1.append(float(np.sqrt(np.mean((est.evaluate(Xt)[:, 0] - Yt) ** 2)) / nrm))
            e2.append(float(np.sqrt(np.mean((keep.evaluate(Xt)[:, 0] - Yt) ** 2)) / nrm))
            ks.append(est.n_units_)
        r = {"big": big, "seeds": seeds, "units": ks, "err_stage": float(np.median(e1)), "err_keep": float(np.median(e2))}
        rows.append(r)
        print(f"| {big} | {seeds} | {sorted(set(ks))} | {r['err_stage']:.3g} | {r['err_keep']:.3g} |", flush=True)
    out["large"] = rows


def part_overcomplete(seeds, ns, out):
    from exactrelu.propose.hermite.overcomplete import fit_overcomplete

    rows = []
    print("\n## Overcomplete (l = 2), smoothed rows: units recovered (angle and bias error < 0.1), medians per unit\n")
    print("| d,k | n | seeds | units recovered | median unit angle (rad) | median bias error | median s |")
    print("|---|---|---|---|---|---|---|")
    for d, k in [(5, 6), (6, 9)]:
        for n in ns:
            angs, berr, times = [], [], []
            for seed in range(seeds):
                rng = np.random.default_rng(seed)
                U = rng.standard_normal((k, d)) + 0.3 * rng.standard_normal((k, d))  # smoothed
                U /= np.linalg.norm(U, axis=1, keepdims=True)
                beta = rng.uniform(-1.5, 1.5, k)
                beta[:3] = [0.0, 1.0, -1.0]
                alpha = rng.choice([-2.0, -1.0, 1.0, 2.0], k)
                X = rng.standard_normal((n, d))
                t0 = time.perf_counter()
                res = fit_overcomplete(X, np.maximum(X @ U.T + beta, 0) @ alpha, k, random_state=seed)
                times.append(time.perf_counter() - t0)
                from scipy.optimize import linear_sum_assignment

                C = res.U @ U.T
                rr, cc = linear_sum_assignment(-C)  # signs count
                angs += np.arccos(np.clip(C[rr, cc], -1, 1)).tolist()
                berr += np.abs(res.beta[rr] - beta[cc]).tolist()
            good = int(np.sum((np.array(angs) < 0.1) & (np.array(berr) < 0.1)))
            r = {"d": d, "k": k, "n": n, "seeds": seeds, "angle": float(np.median(angs)), "bias_err": float(np.median(berr)),
                 "units_good": good, "units": len(angs), "median_s": float(np.median(times)), "angles": angs}
            rows.append(r)
            print(f"| {d},{k} | {n:.0e} | {seeds} | {good}/{len(angs)} | {r['angle']:.3g} | {r['bias_err']:.3g} | "
                  f"{r['median_s']:.1f} |", flush=True)
    out["overcomplete"] = rows


def part_order4(seeds, ns, out):
    from exactrelu.errors import ProposalFailed
    from exactrelu.instances import planted
    from exactrelu.propose.floats import angular_errors
    from exactrelu.propose.search import SearchProposer
    from exactrelu.propose.tensor import TensorProposer
    from exactrelu.recover import rowspan
    from exactrelu.recover import recover

    class _NoSearch(SearchProposer):
        def fit(self, X, y):
            raise ProposalFailed("search fallback disabled in this benchmark")

    rows = []
    print("\n## Tensor proposer, order 4, at (20,5,5): exact recovery from the proposal alone (no search fallback)\n")
    print("| n | seeds | certified | median max angle |")
    print("|---|---|---|---|")
    saved = rowspan.SearchProposer
    rowspan.SearchProposer = _NoSearch
    try:
        for n in ns:
            ok, angs = 0, []
            for seed in range(seeds):
                inst = planted(20, 5, 5, n, seed=seed)
                est = TensorProposer(5, random_state=seed, order=4).fit(inst.float_inputs(), inst.float_labels())
                angs.append(float(angular_errors(est.V_, inst.planted.V.to_float()).max()))
                try:
                    ok += bool(recover(inst, k=5, init=est, random_state=seed, check=False).network.equivalent(inst.planted))
                except ExactReluError:
                    pass
            rows.append({"n": n, "seeds": seeds, "certified": ok, "angle": float(np.median(angs))})
            print(f"| {n:.0e} | {seeds} | {ok}/{seeds} | {np.median(angs):.3g} |", flush=True)
    finally:
        rowspan.SearchProposer = saved
    out["order4"] = rows


def plot(out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = out.get("error", [])
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for (d, k), mark in zip([(10, 3), (20, 5)], "os"):
        pts = [r for r in rows if (r["d"], r["k"]) == (d, k)]
        ns = np.array([r["n"] for r in pts], dtype=float)
        med = np.array([r["median"] for r in pts])
        ax.loglog(ns, med, marker=mark, label=f"(d,k) = ({d},{k}), median of {pts[0]['seeds']} seeds")
        ax.fill_between(ns, med, [r["p90"] for r in pts], alpha=0.15)
        c = med[-1] * np.sqrt(ns[-1])
        ax.loglog(ns, c / np.sqrt(ns), ls="--", color=ax.lines[-1].get_color(), lw=1,
                  label=f"C / sqrt(n) through the last point ({d},{k})")
    ax.set_xlabel("samples n")
    ax.set_ylabel("parameter error (max over units, after signs)")
    ax.set_title("Hermite tensors, biases 0, +-1 and U[-1.5, 1.5]")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(RESULTS / "hermite_error_vs_n.png", dpi=120)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", action="append", choices=["error", "exact", "torch", "large", "overcomplete", "order4"])
    p.add_argument("--seeds", type=int, default=None, help="seeds per point (default per part)")
    p.add_argument("--plot-only", action="store_true")
    p.add_argument("--out", type=Path, default=OUT, help="results JSON (parts already in it are kept)")
    args = p.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    target = args.out
    out = json.loads(target.read_text()) if target.exists() else {}
    if not args.plot_only:
        parts = args.part or ["error", "exact", "torch", "large", "overcomplete", "order4"]
        s = args.seeds
        for part in parts:
            if part == "error":
                part_error([1000, 10000, 100000, 1000000], s or 10, out)
            elif part == "exact":
                part_exact([10000, 30000, 100000], s or 20, out)
            elif part == "torch":
                part_torch(s or 20, 20000, out)
            elif part == "large":
                part_large(s or 5, 100000, out)
            elif part == "overcomplete":
                part_overcomplete(s or 2, [100000, 500000], out)
            elif part == "order4":
                part_order4(s or 20, [5000, 10000, 20000], out)
            target.write_text(json.dumps(out, indent=1) + "\n")
    plot(out)


if __name__ == "__main__":
    main()
