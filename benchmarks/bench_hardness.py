"""Hardness instances: sizes, lift / decode times, and certified "not realizable" beside CaDiCaL and z3.

    python benchmarks/bench_hardness.py                 # N = 100, 200, 300, 400 and pigeonhole (long)
    python benchmarks/bench_hardness.py --quick         # small sizes (a minute)
    python benchmarks/bench_hardness.py --plot-only     # redraw table and plot from the results

Part 1 (reduction): random 3-CNF with a planted solution, N variables and M = 4.2 N clauses;
instance size (n, d) of CNF -> NAE-3SAT -> ReLU; time to reduce, to solve the CNF with
python-sat (Minisat22), to lift the model to exact weights + a checked ``realizes``
certificate, and to decode the weights back.

Part 2 (decision), one row per instance, all tools on the same instance in the same run: random
NAE-3SAT at M = 2.2 N (past the threshold: almost all unsatisfiable) and pigeonhole formulas
through the CNF chain. Columns:

* **CaDiCaL + proof**: the physical floor. CaDiCaL (python-sat) on the *source* formula (NAE as
  CNF: each clause and its complement; pigeonhole as it is), logging a proof (DRUP), until it
  answers; the proof file is read back as bytes.
* **exactrelu**: ``decide`` on the ReLU instance (U given = [1, 1], or unknown), certified and
  checked, by phase: lemmas (compiling cluster shapes into template lemmas, checking models),
  SAT (CaDiCaL on the lemma clauses, logging LRAT), trim (reading the trace, keeping what the
  empty clause needs), write (the certificate case; JSON text), check (the independent stdlib
  checker, run by ``decide`` before it answers). ``--drup`` adds the older unhinted DRUP
  certificate (``proof="drup"``) for comparison.
* **z3**: linear real arithmetic with if-then-else for the ReLU; unknown output weights as
  integers in {-1, 0, 1} (exact by positive homogeneity), u1 >= u2; uncertified.

A series (tool x U x family) stops at its first instance over the budget. The machine is shared:
read the ratios within one row, not the absolute times. Writes benchmarks/results/bench_hardness.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.envelope import verify  # noqa: E402
from exactrelu.hardness import (NaeToRelu, assignment_from_literals, pigeonhole, random_kcnf, random_nae3,  # noqa: E402
                                reduction_for)
from exactrelu.decide.search.pattern_search import SearchLimit, decide  # noqa: E402


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


def ours(inst, unknown_u: bool, budget: float, proof: str = "lrat"):
    """Decide and certify; phases from ``decide``'s statistics, plus the certificate's JSON text."""
    try:
        t = time.perf_counter()
        res = decide(inst, U=None if unknown_u else [[1, 1]], time_limit=budget, proof=proof)
        t1 = time.perf_counter()
        text = json.dumps(res.certificate)
        total = time.perf_counter() - t
    except SearchLimit:
        return {"status": "timeout"}
    st = res.evidence
    out = {"status": "timeout" if total > budget else res.status, "seconds": total, "json_seconds": total - (t1 - t),
           "bytes": len(text)}
    for key in ("lemma_seconds", "solve_seconds", "trim_seconds", "write_seconds", "check_seconds", "lemmas",
                "trace_steps", "core_steps", "proof_steps"):
        if key in st:
            out[key] = st[key]
    if res.status == "not-realizable":
        cases = res.certificate["cases"]
        out["lemmas_kept"] = sum(len(c["lemmas"]) + sum(len(t["lemmas"]) * len(t["instances"]) for t in c.get("templates", []))
                                 for c in cases)
        out["templates"] = sum(len(c.get("templates", [])) for c in cases)
    return out


def ours_drup(inst, unknown_u: bool, budget: float):
    return ours(inst, unknown_u, budget, proof="drup")


def cadical_source(clauses, cap: float):
    """CaDiCaL with a DRUP proof on the source formula, for at most ``cap`` seconds; the proof read back as bytes."""
    from pysat.solvers import Solver

    from exactrelu.decide.search.sat.solver import solve_until
    from exactrelu.errors import TimeLimitExceeded

    t = time.perf_counter()
    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
        try:
            sat = solve_until(s, time.monotonic() + cap)
        except TimeLimitExceeded:
            return {"status": "timeout", "seconds": time.perf_counter() - t}
        if not sat:
            s.solver.prfile.flush()
            s.solver.prfile.seek(0)
            size = len(s.solver.prfile.read())
        else:
            size = 0
    return {"status": "realizable" if sat else "not-realizable", "seconds": time.perf_counter() - t, "proof_bytes": size}


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


SOLVERS = ("cadical", "exactrelu", "exactrelu-drup", "z3")


def instances(sizes, seeds, holes):
    """(family, N, seed, source CNF clauses, ReLU instance) for the decision part."""
    for N in sizes:
        for seed in range(seeds):
            f = random_nae3(N, round(2.2 * N), seed=1000 * N + seed)
            yield "nae", N, seed, [list(c) for c in f.clauses] + [[-x for x in c] for c in f.clauses], NaeToRelu().apply(f)[0]
    for h in holes:
        f = pigeonhole(h)
        yield "pigeonhole", h, 0, [list(c) for c in f.clauses], reduction_for(f).apply(f)[0]


def part_decision(sizes, seeds, holes, budget, solvers):
    """Every tool on every instance until it first exceeds the budget on that (family, U) series."""
    rows = []
    alive = {}
    warm, _ = NaeToRelu().apply(random_nae3(4, 9, seed=0))
    decide(warm), decide(warm, U=[[1, 1]], proof="drup")  # imports and first-call costs stay out of the table
    for family, N, seed, cnf, inst in instances(sizes, seeds, holes):
        source = cadical_source(cnf, 2 * budget)
        for unknown in (False, True):
            row = {"family": family, "N": N, "seed": seed, "U": "unknown" if unknown else "given", "n": inst.n, "d": inst.d,
                   "satisfiable": {"realizable": True, "not-realizable": False}.get(source["status"]), "cadical": source}
            for name in solvers:
                if name == "cadical":
                    continue
                if not alive.get((name, unknown, family), True):
                    row[name] = {"status": "skipped"}
                    continue
                if name == "z3":
                    t = time.perf_counter()
                    out = {"status": z3_decide(inst, unknown, budget)}
                    out["seconds"] = time.perf_counter() - t
                else:
                    out = (ours if name == "exactrelu" else ours_drup)(inst, unknown, budget)
                if out["status"] != "timeout":
                    if row["satisfiable"] is None:  # the source solver ran out: the first certified answer sets it
                        row["satisfiable"] = out["status"] == "realizable"
                    assert (out["status"] == "realizable") == row["satisfiable"], (name, family, N, seed, out)
                else:
                    alive[(name, unknown, family)] = False
                row[name] = out
            rows.append(row)
            print("  " + line(row, solvers), flush=True)
    return rows


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def line(r, solvers) -> str:
    """One table row (markdown)."""
    e, c = r.get("exactrelu", {}), r["cadical"]
    ok = e.get("status") in ("realizable", "not-realizable")
    get = lambda k: e.get(k) if ok else None  # noqa: E731
    write = (e.get("write_seconds", 0) + e.get("json_seconds", 0)) if ok else None
    answer = {True: "sat", False: "unsat", None: "?"}[r["satisfiable"]]
    floor = fmt(c["seconds"]) if c["status"] != "timeout" else f"> {c['seconds']:.0f}"
    cells = [r["family"], str(r["N"]), str(r["seed"]), r["U"], answer, floor,
             fmt(get("seconds")), fmt(get("lemma_seconds")), fmt(get("solve_seconds")), fmt(get("trim_seconds")), fmt(write),
             fmt(get("check_seconds")),
             f"{get('check_seconds') / e['seconds']:.0%}" if ok and "check_seconds" in e else "-",
             f"{e['seconds'] / c['seconds']:.1f}x" if ok and c["status"] != "timeout" else "-"]
    if "exactrelu-drup" in solvers:
        d = r.get("exactrelu-drup", {})
        cells.append(fmt(d.get("seconds")) if d.get("status") in ("realizable", "not-realizable") else d.get("status", "-"))
    z = r.get("z3", {})
    cells.append(fmt(z.get("seconds")) if z.get("status") in ("realizable", "not-realizable") else z.get("status", "-"))
    if ok and "core_steps" in e:
        cells.append(f"{e['core_steps']}/{e['trace_steps']}, {e.get('lemmas_kept', 0)}/{e['lemmas']}")
    else:
        cells.append("-")
    return "| " + " | ".join(cells) + " |"


def print_table(rows, solvers, budget) -> None:
    print(f"\nPart 2: certified decision beside CaDiCaL on the source formula and z3 (budget {budget:.0f} s; seconds)")
    head = ["family", "N", "seed", "U", "answer", "CaDiCaL + proof", "exactrelu total", "lemmas", "SAT", "trim", "write",
            "check", "check share", "exactrelu / CaDiCaL"]
    head += ["exactrelu DRUP"] if "exactrelu-drup" in solvers else []
    head += ["z3", "steps kept / traced, lemmas kept / derived"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print(line(r, solvers))


def plot(dec, budget, path) -> None:
    """Seconds per instance against N: CaDiCaL on the source, exactrelu (and its check), z3; one panel per U."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    styles = {"cadical": ("tab:green", "CaDiCaL + proof, source formula"), "exactrelu": ("tab:blue", "exactrelu, certified + checked"),
              "check": ("tab:cyan", "of which the independent check"), "exactrelu-drup": ("tab:gray", "exactrelu, DRUP certificate"),
              "z3": ("tab:red", "z3 (uncertified)")}
    nae = [r for r in dec if r["family"] == "nae"]
    for ax, U in zip(axes, ("given", "unknown")):
        for name, (color, label) in styles.items():
            key = "exactrelu" if name == "check" else name
            pts = [(r["N"], r[key]["check_seconds" if name == "check" else "seconds"]) for r in nae if r["U"] == U and key in r
                   and r[key].get("status") in ("realizable", "not-realizable") and (name != "check" or "check_seconds" in r[key])]
            if pts:
                ax.scatter(*zip(*pts), color=color, s=20, alpha=0.8, label=label)
        ax.axhline(budget, color="black", lw=0.8, ls="--")
        ax.set_yscale("log")
        ax.set_xlabel("NAE-3SAT variables N (M = 2.2 N clauses)")
        ax.set_title(f"U {U}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds per instance")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"Certified 'not realizable' vs the bare solver (budget {budget:.0f} s, dashed)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--skip-reduction", action="store_true", help="only part 2")
    p.add_argument("--skip-decision", action="store_true", help="only part 1")
    p.add_argument("--drup", action="store_true", help="also exactrelu with the older DRUP certificate")
    p.add_argument("--sizes", type=int, nargs="+", help="NAE sizes N (default 100 200 300 400)")
    p.add_argument("--seeds", type=int, default=None, help="instances per N (default 2)")
    p.add_argument("--holes", type=int, nargs="*", default=None, help="pigeonhole sizes (default 5 6 7)")
    p.add_argument("--budget", type=float, default=None, help="seconds per instance (default 60)")
    p.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "bench_hardness.json"))
    p.add_argument("--plot-only", action="store_true", help="redraw the table and plot from --out and stop")
    args = p.parse_args(argv)
    png = Path(args.out).with_suffix(".png")
    if args.plot_only:
        data = json.loads(Path(args.out).read_text())
        print_table(data["decision"], data["solvers"], data["budget_s"])
        plot(data["decision"], data["budget_s"], png)
        print(f"plot written to {png}")
        return 0
    if args.quick:
        red_sizes, sizes, seeds, holes, budget = [10, 50, 200], [20, 50, 100], 1, [4, 5], 10.0
    else:
        red_sizes, sizes, seeds, holes, budget = [10, 50, 100, 200, 400], [100, 200, 300, 400], 2, [5, 6, 7], 60.0
    sizes = args.sizes or sizes
    seeds = args.seeds if args.seeds is not None else seeds
    holes = args.holes if args.holes is not None else holes
    budget = args.budget or budget
    solvers = tuple(n for n in SOLVERS if n != "exactrelu-drup" or args.drup)
    red = part_reduction(red_sizes) if not args.skip_reduction else []
    print("Part 1: 3-CNF (planted, M = 4.2 N) -> NAE-3SAT -> ReLU instance; lift = exact weights + checked certificate")
    print(f"{'N':>5} {'M':>5} {'n':>6} {'d':>6} {'reduce s':>9} {'SAT s':>8} {'lift+check s':>13} {'decode s':>9}")
    for r in red:
        print(f"{r['N']:>5} {r['M']:>5} {r['n']:>6} {r['d']:>6} {r['reduce_s']:>9.3f} {r['sat_s']:>8.4f} {r['lift_and_check_s']:>13.3f} {r['decode_s']:>9.3f}")
    dec = part_decision(sizes, seeds, holes, budget, solvers) if not args.skip_decision else []
    print_table(dec, solvers, budget)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"quick": args.quick, "budget_s": budget, "solvers": solvers, "reduction": red,
                               "decision": dec}, indent=1) + "\n")
    print(f"results written to {out}")
    if dec:
        try:
            plot(dec, budget, png)
            print(f"plot written to {png}")
        except ImportError:  # pragma: no cover - matplotlib is in the bench extra
            print("matplotlib not installed: no plot")
    return 0


if __name__ == "__main__":
    sys.exit(main())
