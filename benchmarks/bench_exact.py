"""Exact recovery, phase by phase, beside the same exact steps in SymPy's DomainMatrix over QQ.

    python benchmarks/bench_exact.py            # sizes of issue 2 (a few minutes)
    python benchmarks/bench_exact.py --quick    # small sizes only (written to results/bench_exact_quick.json)

For each size: a planted Gaussian instance (integer weights, float64 inputs taken exactly),
exactrelu's recovery from the float64 inputs and exact labels with its timings per phase
(conversion = inputs from NumPy into FLINT plus float views for the proposal), the independent checker, and - on the same
zero sets and solve samples exactrelu chose - the exact algebra through
``sympy.polys.matrices.DomainMatrix`` over QQ (the exact linear algebra a Python user would reach
for; with python-flint installed SymPy uses FLINT's fmpq as its QQ elements). Prints a table and
writes benchmarks/results/bench_exact.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.instances import planted  # noqa: E402
from exactrelu.recover import recover  # noqa: E402

SIZES = [(10, 3, 3, 1000), (20, 5, 5, 5000), (50, 10, 10, 10000), (50, 10, 10, 20000), (200, 20, 20, 20000)]
QUICK = [(10, 3, 3, 1000), (20, 5, 5, 5000)]


def sympy_pipeline(inst, res, k, budget):
    """The exact steps of recovery through DomainMatrix (QQ), on the samples exactrelu chose."""
    from sympy import QQ
    from sympy.polys.matrices import DomainMatrix

    t = {}
    t0 = time.perf_counter()
    X = inst.inputs.to_fractions()  # n x d
    A = inst.labels.to_fractions()  # n x m
    XT = DomainMatrix([[QQ(x.numerator, x.denominator) for x in col] for col in zip(*X)], (inst.d, inst.n), QQ)
    AT = DomainMatrix([[QQ(x.numerator, x.denominator) for x in col] for col in zip(*A)], (inst.m, inst.n), QQ)
    t["conversion"] = time.perf_counter() - t0
    if t["conversion"] > budget:
        return t, "over budget"
    t0 = time.perf_counter()
    _, piv = AT.transpose().rref()  # rank and independent rows of A
    rows = list(piv)
    B = AT.extract(rows, list(range(inst.n)))
    t["rank"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    Vrows = []
    for u in res.units:
        Z = u.zeros
        M = B.extract(list(range(k)), Z).transpose()
        N = M.nullspace()
        c = N.to_dense().extract([0], list(range(k)))
        y = c * B
        if any(x < 0 for x in y.to_list()[0]):
            y = -y
        S = u.solved_on
        Msq = XT.extract(list(range(inst.d)), S).transpose()
        rhs = y.extract([0], S).transpose()
        v = Msq.lu_solve(rhs)
        Vrows.append(v.transpose())
        if time.perf_counter() - t0 > budget:
            return t, "over budget"
    t["units"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    V = DomainMatrix.vstack(*Vrows)
    P = V * XT
    Fl = [[max(x, QQ(0)) for x in row] for row in P.to_list()]
    F = DomainMatrix(Fl, P.shape, QQ)
    t["hidden"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cols = list(F.rref()[1])[:k] if inst.n < 3000 else list(F.extract(list(range(k)), list(range(min(inst.n, 4 * k)))).rref()[1])
    Fs = F.extract(list(range(k)), cols).transpose()
    Zs = Fs.lu_solve(AT.extract(list(range(inst.m)), cols).transpose())
    ok = (Zs.transpose() * F) == AT
    t["output"] = time.perf_counter() - t0
    return t, "verified" if ok else "MISMATCH"


def run(sizes, budget, with_sympy=True, init_default="auto"):
    rows = []
    for d, k, m, n in sizes:
        inst = planted(d=d, k=k, m=m, n=n, seed=1)
        init = init_default
        t0 = time.perf_counter()
        # float64 inputs as a user has them: their exact conversion is part of the timed work
        res = recover(inst.float_inputs(), inst.labels, k=k, init=init, random_state=0)
        wall = time.perf_counter() - t0
        assert res.network.equivalent(inst.planted)
        T = res.timings
        exact_phase = T["conversion"] + T["rank"] + T["units"] + T["hidden"] + T["output"]
        row = {"size": [d, k, m, n], "proposal_kind": res.proposer, "tries": res.tries, "wall": wall,
               "exact_phase": exact_phase, **{f"t_{a}": b for a, b in T.items()}}
        if with_sympy:
            st, status = sympy_pipeline(inst, res, k, budget)
            row["sympy"] = st
            row["sympy_status"] = status
            row["sympy_exact_phase"] = sum(st.values())
        rows.append(row)
        print_row(row)
    return rows


def print_row(r):
    d, k, m, n = r["size"]
    sym = r.get("sympy_exact_phase")
    status = r.get("sympy_status", "-")
    ratio = f"{sym / r['exact_phase']:.0f}x" if sym and status == "verified" else (">" + f"{sym / r['exact_phase']:.0f}x" if sym else "-")
    print(f"| ({d},{k},{m},{n}) | {r['t_conversion']:.3f} | {r['t_proposal']:.3f} ({r['proposal_kind']}{', %d tries' % r['tries'] if r['tries'] else ''}) | "
          f"{r['t_rank'] + r['t_units'] + r['t_hidden'] + r['t_output']:.3f} | {r['exact_phase']:.3f} | {r['t_certificate']:.3f} | "
          f"{r.get('t_independent_check', 0):.3f} | {r['wall']:.2f} | {sym if sym is None else round(sym, 2)} ({status}) | {ratio} |",
          flush=True)


def plot(rows, path):
    """Grouped bars per size (log scale): exactrelu's exact phase, SymPy's on the same steps, and
    exactrelu end to end (proposal, certificate and independent check included)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"({','.join(map(str, r['size']))})" for r in rows]
    series = [("exactrelu: exact phase", [r["exact_phase"] for r in rows], "tab:blue"),
              ("SymPy DomainMatrix: same exact steps", [r.get("sympy_exact_phase") or np.nan for r in rows], "0.6"),
              ("exactrelu: end to end (proposal, certificate, independent check)", [r["wall"] for r in rows], "tab:orange")]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    x = np.arange(len(rows))
    for i, (name, vals, color) in enumerate(series):
        ax.bar(x + (i - 1) * 0.27, vals, 0.27, label=name, color=color)
    for xi, r in zip(x, rows):
        if r.get("sympy_exact_phase"):
            ax.annotate(f"{r['sympy_exact_phase'] / r['exact_phase']:.0f}x", (xi, r["sympy_exact_phase"]),
                        ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, labels)
    ax.set_xlabel("(d, k, m, n)")
    ax.set_ylabel("seconds (log scale)")
    ax.set_yscale("log")
    ax.set_title("Exact recovery: exactrelu vs SymPy DomainMatrix (one run, 2 cores)")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"saved {path}")


RESULTS = Path(__file__).parent / "results"


def results_path(quick: bool, output: str | None = None) -> Path:
    """Where a run writes: ``output`` if given, else the committed results for a full run and a scratch file
    (``bench_exact_quick.json``, ignored by git) for ``--quick``, so that a quick check never replaces them."""
    if output is not None:
        return Path(output)
    return RESULTS / ("bench_exact_quick.json" if quick else "bench_exact.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-sympy", action="store_true")
    ap.add_argument("--budget", type=float, default=120.0, help="seconds per SymPy phase before giving up")
    ap.add_argument("--init", default="auto", help="proposal for recovery (default auto)")
    ap.add_argument("--plot-only", action="store_true", help="redraw the plot from results/bench_exact.json")
    ap.add_argument("-o", "--output", help="results file (default results/bench_exact.json; with --quick "
                    "results/bench_exact_quick.json, never the committed full results)")
    args = ap.parse_args()
    out = results_path(args.quick, args.output)
    if args.plot_only:
        plot(json.loads(out.read_text()), out.with_suffix(".png"))
        return
    print("| (d,k,m,n) | conversion s | proposal s | exact algebra s | exact phase s | certificate s | independent check s "
          "| end to end s | SymPy DomainMatrix exact phase s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = run(QUICK if args.quick else SIZES, args.budget, not args.no_sympy, args.init)
    out.write_text(json.dumps(rows, indent=1))
    print(f"saved {out}")
    try:
        plot(rows, out.with_suffix(".png"))
    except ImportError:
        print("matplotlib not installed: no plot (pip install 'exactrelu[bench]')")


if __name__ == "__main__":
    main()
