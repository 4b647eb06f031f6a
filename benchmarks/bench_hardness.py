"""Hardness instances: sizes, lift / decode times, and exact decision beside z3.

    python benchmarks/bench_hardness.py            # growing sizes, 60 s per instance (long)
    python benchmarks/bench_hardness.py --quick    # small sizes, 10 s per instance (a few minutes)

Part 1 (reduction): random 3-CNF with a planted solution, N variables and M = 4.2 N clauses;
instance size (n, d) of CNF -> NAE-3SAT -> ReLU; time to reduce, to solve the CNF with
python-sat (Minisat22), to lift the model to exact weights + a checked ``realizes``
certificate, and to decode the weights back.

Part 2 (decision): random NAE-3SAT at M = 2.1 N clauses (near the threshold: satisfiable and
unsatisfiable mixed) and planted satisfiable ones; the instance with given U = [1, 1] and with
U unknown, decided by exactrelu (exact, certified either way) and by z3 (linear real arithmetic
with if-then-else for the ReLU; unknown output weights as integers in {-1, 0, 1}, which is exact
by positive homogeneity, with u1 >= u2 to break the unit symmetry). z3's answers are not
certified. Answers are compared with python-sat on the NAE formula (N <= 250; above, with each
other). exactrelu's time includes the independent checker, which decide() runs before it answers
(the "of which checking" column). Each solver runs on each series (kind x U) until it first needs
more than the budget; the table reports median times, the ratio and the largest N each decided.
``--tree`` adds the older case-tree engine. Writes benchmarks/results/bench_hardness.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.certificates.envelope import realizes_certificate, verify  # noqa: E402
from exactrelu.hardness import (NaeToRelu, assignment_from_literals, random_kcnf, random_nae3,  # noqa: E402
                                reduction_for)
from exactrelu.hardness.decide import SearchLimit, decide  # noqa: E402


def nae_sat(f) -> bool:
    from pysat.solvers import Minisat22

    with Minisat22() as s:
        for c in f.clauses:
            s.add_clause(list(c))
            s.add_clause([-l for l in c])
        return s.solve()


def z3_decide(inst, unknown_u: bool, budget: float):
    import z3

    X = inst.inputs.to_fractions()
    Y = inst.labels.to_fractions()
    d = inst.d
    v = [[z3.Real(f"v{i}_{t}") for t in range(d)] for i in range(2)]
    s = z3.Solver()
    s.set("timeout", int(budget * 1000))
    if unknown_u:
        u = [z3.Int(f"u{i}") for i in range(2)]
        s.add(*[z3.And(x >= -1, x <= 1) for x in u], u[0] >= u[1])
    for x, y in zip(X, Y):
        terms = []
        for i in range(2):
            pre = z3.Sum([z3.Q(p.numerator, p.denominator) * v[i][t] for t, p in enumerate(x) if p != 0]) if any(x) else z3.RealVal(0)
            r = z3.If(pre > 0, pre, z3.RealVal(0))
            terms.append(z3.If(u[i] == 1, r, z3.If(u[i] == -1, -r, z3.RealVal(0))) if unknown_u else r)
        s.add(terms[0] + terms[1] == z3.Q(y[0].numerator, y[0].denominator))
    res = s.check()
    return "realizable" if res == z3.sat else "not-realizable" if res == z3.unsat else "timeout"


def ours(inst, unknown_u: bool, budget: float, engine: str = "lazy"):
    """Decide and certify (decide() runs the independent checker before returning: included)."""
    try:
        t = time.perf_counter()
        res = decide(inst, U=None if unknown_u else [[1, 1]], time_limit=budget, engine=engine)
        if time.perf_counter() - t > budget:  # the proof and its check are not interrupted
            return "timeout", res.stats
        return res.status, res.stats
    except SearchLimit:
        return "timeout", {}


def ours_tree(inst, unknown_u: bool, budget: float):
    return ours(inst, unknown_u, budget, engine="tree")


def timed(fn, *a):
    t = time.perf_counter()
    out = fn(*a)
    return out, time.perf_counter() - t


def part_reduction(sizes):
    from pysat.solvers import Minisat22

    rows = []
    for N in sizes:
        f = random_kcnf(N, int(4.2 * N), seed=N, planted=True)
        chain = reduction_for(f)
        (inst, data), t_red = timed(chain.apply, f)
        with Minisat22(bootstrap_with=[list(c) for c in f.clauses]) as s:
            t = time.perf_counter()
            s.solve()
            sigma = assignment_from_literals(s.get_model(), N)
            t_sat = time.perf_counter() - t
        t = time.perf_counter()
        net = chain.lift(sigma, data)
        verify(realizes_certificate(inst, net), inst)
        t_lift = time.perf_counter() - t
        back, t_dec = timed(chain.invert, net, data)
        assert f.satisfied_by(back)
        rows.append({"N": N, "M": len(f.clauses), "n": inst.n, "d": inst.d, "reduce_s": t_red, "sat_s": t_sat,
                     "lift_and_check_s": t_lift, "decode_s": t_dec})
    return rows


SOLVERS = {"exactrelu": ours, "exactrelu-tree": ours_tree, "z3": z3_decide}


def part_decision(sizes, seeds, budget, solvers=("exactrelu", "z3")):
    """Every solver on every instance until it first exceeds the budget on that (kind, U) series."""
    rows = []
    alive = {(name, unknown, kind): True for name in solvers for unknown in (False, True) for kind in ("random", "planted")}
    for N in sizes:
        for kind in ("random", "planted"):
            for seed in range(seeds):
                f = random_nae3(N, round(2.1 * N), seed=1000 * N + seed, planted=kind == "planted")
                truth = None
                inst = None
                for unknown in (False, True):
                    if not any(alive[(name, unknown, kind)] for name in solvers):
                        continue
                    if inst is None:  # truth from python-sat where it is quick; planted ones are satisfiable
                        truth = True if kind == "planted" else nae_sat(f) if N <= 250 else None
                        inst, _ = NaeToRelu().apply(f)
                    row = {"N": N, "M": len(f.clauses), "kind": kind, "seed": seed, "U": "unknown" if unknown else "given",
                           "satisfiable": truth}
                    for name in solvers:
                        if not alive[(name, unknown, kind)]:
                            row[name] = {"status": "skipped"}
                            continue
                        out, t = timed(SOLVERS[name], inst, unknown, budget)
                        status, stats = out if isinstance(out, tuple) else (out, {})
                        if status != "timeout":
                            if truth is None:  # the first answer (certified, if exactrelu's) sets it; the rest must agree
                                truth = row["satisfiable"] = status == "realizable"
                            assert (status == "realizable") == truth, (name, N, seed, status, truth)
                        row[name] = {"status": status, "seconds": t}
                        if "check_seconds" in stats:
                            row[name]["check_seconds"] = stats["check_seconds"]
                        print(f"  N={N} {kind} seed={seed} U={row['U']} sat={truth}: {name} {status} {t:.2f} s", flush=True)
                        if status == "timeout":
                            alive[(name, unknown, kind)] = False
                    rows.append(row)
        if not any(alive.values()):
            break
    return rows


def summarise(rows, solvers=("exactrelu", "z3")):
    table = []
    keys = sorted({(r["N"], r["U"], r["satisfiable"]) for r in rows}, key=lambda t: (t[0], t[1], str(t[2])))
    for N, U, sat in keys:
        sel = [r for r in rows if (r["N"], r["U"], r["satisfiable"]) == (N, U, sat)]
        line = {"N": N, "U": U, "sat": sat, "count": len(sel)}
        for name in solvers:
            ts = [r[name]["seconds"] for r in sel if r[name]["status"] not in ("timeout", "skipped")]
            to = sum(r[name]["status"] == "timeout" for r in sel)
            sk = sum(r[name]["status"] == "skipped" for r in sel)
            line[name] = statistics.median(ts) if ts and not to and not sk else None
            line[name + "_timeouts"] = to
            checks = [r[name]["check_seconds"] for r in sel if "check_seconds" in r[name]]
            if checks and line[name] is not None:
                line[name + "_check"] = statistics.median(checks)
        if line.get("exactrelu") and line.get("z3"):
            line["ratio"] = line["exactrelu"] / line["z3"]
        table.append(line)
    return table


def plot(dec, budget, path) -> None:
    """Seconds per instance against N (log-log), exactrelu vs z3, one panel per U mode."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    styles = {"exactrelu": ("tab:blue", "exactrelu (certified + checked)"), "z3": ("tab:red", "z3 (uncertified)"),
              "exactrelu-tree": ("tab:gray", "exactrelu tree engine")}
    for ax, U in zip(axes, ("given", "unknown")):
        for name, (color, label) in styles.items():
            for sat, marker in ((False, "x"), (True, "o")):
                pts = [(r["N"], r[name]["seconds"]) for r in dec if name in r and r["U"] == U and r["satisfiable"] == sat
                       and r[name]["status"] in ("realizable", "not-realizable")]
                if pts:
                    ax.scatter(*zip(*pts), color=color, marker=marker, s=18, alpha=0.8,
                               label=f"{label}, {'satisfiable' if sat else 'unsatisfiable'}")
        ax.axhline(budget, color="black", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("NAE-3SAT variables N (M = 2.1 N clauses)")
        ax.set_title(f"U {U}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds per instance")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"Deciding the reduction's ReLU instances (budget {budget:.0f} s, dashed)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--skip-reduction", action="store_true", help="only part 2")
    p.add_argument("--skip-decision", action="store_true", help="only part 1")
    p.add_argument("--tree", action="store_true", help="also the tree engine (engine='tree')")
    p.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "bench_hardness.json"))
    p.add_argument("--plot-only", action="store_true", help="redraw the table and plot from --out and stop")
    p.add_argument("--sizes", type=int, nargs="+", help="decision sizes N (default: the growing list)")
    args = p.parse_args(argv)
    png = Path(args.out).with_suffix(".png")
    if args.plot_only:
        data = json.loads(Path(args.out).read_text())
        solvers = tuple(n for n in SOLVERS if any(n in r for r in data["decision"]))
        print_table(summarise(data["decision"], solvers), solvers, data["budget_s"])
        plot(data["decision"], data["budget_s"], png)
        print(f"plot written to {png}")
        return 0
    if args.quick:
        red_sizes, dec_sizes, seeds, budget = [10, 50, 200], [4, 8, 16, 32, 64], 2, 10.0
    else:
        red_sizes, dec_sizes, seeds, budget = [10, 50, 100, 200, 400], [4, 8, 16, 32, 64, 100, 150, 200, 250, 300, 400,
                                                                          600, 800, 1000, 1500, 2000], 3, 60.0
    solvers = ("exactrelu", "z3") + (("exactrelu-tree",) if args.tree else ())
    if args.sizes:
        dec_sizes = args.sizes
    red = part_reduction(red_sizes) if not args.skip_reduction else []
    print("Part 1: 3-CNF (planted, M = 4.2 N) -> NAE-3SAT -> ReLU instance; lift = exact weights + checked certificate")
    print(f"{'N':>5} {'M':>5} {'n':>6} {'d':>6} {'reduce s':>9} {'SAT s':>8} {'lift+check s':>13} {'decode s':>9}")
    for r in red:
        print(f"{r['N']:>5} {r['M']:>5} {r['n']:>6} {r['d']:>6} {r['reduce_s']:>9.3f} {r['sat_s']:>8.4f} {r['lift_and_check_s']:>13.3f} {r['decode_s']:>9.3f}")
    dec = part_decision(dec_sizes, seeds, budget, solvers) if not args.skip_decision else []
    table = summarise(dec, solvers)
    print_table(table, solvers, budget)
    largest = {}
    for name in solvers:
        for U in ("given", "unknown"):
            ok = [r["N"] for r in dec if r["U"] == U and r[name]["status"] in ("realizable", "not-realizable")]
            largest[f"{name}/{U}"] = max(ok) if ok else None
    print("\nLargest N decided within the budget:", json.dumps(largest))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"quick": args.quick, "budget_s": budget, "reduction": red, "decision": dec,
                               "summary": table, "largest": largest}, indent=1) + "\n")
    print(f"results written to {out}")
    if dec:
        try:
            plot(dec, budget, png)
            print(f"plot written to {png}")
        except ImportError:  # pragma: no cover - matplotlib is in the bench extra
            print("matplotlib not installed: no plot")
    return 0


def print_table(table, solvers, budget) -> None:
    print(f"\nPart 2: NAE-3SAT (M = 2.1 N) instances decided exactly (exactrelu, certified and checked) and by z3;"
          f" budget {budget:.0f} s; median seconds per instance (-: a timeout or skip in the group)")
    print("| N | U | satisfiable | instances | " + " | ".join(f"{n} s" for n in solvers)
          + " | of which checking s | exactrelu / z3 | timeouts " + "/".join(solvers) + " |")
    print("|---" * (7 + len(solvers)) + "|")
    fmt = lambda x: f"{x:.3f}" if x is not None else "-"  # noqa: E731
    for t in table:
        print(f"| {t['N']} | {t['U']} | {t['sat']} | {t['count']} | " + " | ".join(fmt(t[n]) for n in solvers)
              + f" | {fmt(t.get('exactrelu_check'))} | {(format(t['ratio'], '.2f') if 'ratio' in t else '-')} | "
              + "/".join(str(t[n + '_timeouts']) for n in solvers) + " |")


if __name__ == "__main__":
    sys.exit(main())
