"""The generic decision beside z3: small random instances, certified and checked, against an uncertified solver.

    python benchmarks/bench_decide.py               # the grid below, budget 30 s per tool and instance
    python benchmarks/bench_decide.py --quick       # a few small cells (a minute)
    python benchmarks/bench_decide.py --budget 60

Question: is there a k-unit ReLU network ``y = sum_i u_i relu(v_i . x)`` (m = 1, no biases, U unknown)
reproducing the labels exactly? Instances (d, k, n), inputs N(0, I) in float64 (taken exactly):

* **random**: labels N(0, 1), float64: past n = k d + a few, not realizable (unsat);
* **planted**: labels of a planted network with integer weights (sat);
* **integer** (``int``): inputs and labels integers in [-5, 5] and [-3, 3] (random labels).

Tools, on the same instance in the same run (read the ratios; the machine is shared):

* **exactrelu**: ``decide(instance, k=k)``: the lazy SAT + exact-LP engine over the output-weight sign cases,
  its certificate (``realizes`` or ``not-realizable``) verified by the independent checker before it
  answers. Phases from its statistics: hint (the float gradient fit naming the case tried first and the
  solver's first phases), SAT (CaDiCaL), elimination (exact row reduction of each model's
  equations), exact LP (HiGHS proposal + exact confirmation, or the exact simplex on small systems), the
  rest of the lemma work (building rows, compiling clusters, the HiGHS screen of the half rows, writing
  lemmas), trim (the LRAT trace walked back), write (the certificate case), check (the stdlib checker).
* **z3 real**: the honest nonlinear encoding: u_i and v_i real, ``y_j = sum_i u_i * If(p > 0, p, 0)`` with
  ``p = v_i . x_j`` (QF_NRA: z3's nlsat). Uncertified.
* **z3 sign**: the same after the reduction our engine also uses (positive homogeneity): u_i integer in
  {-1, 0, 1}, non-increasing, ``If(u_i == 1, r, If(u_i == -1, -r, 0))``: linear (QF_LIRA). Uncertified.

Writes benchmarks/results/bench_decide.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.decide import decide  # noqa: E402
from exactrelu.errors import SearchLimit, TimeLimitExceeded  # noqa: E402
from exactrelu.instances import Instance, planted  # noqa: E402

GRID = [("random", 2, 1, 8), ("random", 2, 2, 10), ("random", 3, 2, 15), ("random", 3, 2, 30), ("random", 3, 3, 15),
        ("random", 3, 3, 20), ("random", 4, 2, 20), ("int", 3, 2, 15), ("int", 3, 3, 15), ("int", 3, 3, 30),
        ("planted", 2, 2, 20), ("planted", 3, 2, 40), ("planted", 3, 3, 30), ("planted", 4, 2, 40),
        ("planted", 4, 3, 40)]
QUICK = [("random", 2, 2, 10), ("random", 3, 2, 15), ("int", 3, 2, 15), ("planted", 3, 2, 40)]


def instance(family: str, d: int, k: int, n: int, seed: int) -> Instance:
    rng = np.random.default_rng(1000 * seed + 100 * d + 10 * k + n)
    if family == "planted":
        return planted(d, k, 1, n, seed=rng)
    if family == "int":
        return Instance.from_arrays(rng.integers(-5, 6, size=(n, d)).tolist(), rng.integers(-3, 4, size=(n, 1)).tolist())
    return Instance.from_arrays(rng.standard_normal((n, d)), rng.standard_normal((n, 1)))


def z3_decide(inst: Instance, k: int, budget: float, signs: bool) -> dict:
    import z3

    X, Y = inst.inputs.to_fractions(), inst.labels.to_fractions()
    t = time.perf_counter()
    v = [[z3.Real(f"v{i}_{c}") for c in range(inst.d)] for i in range(k)]
    s = z3.Solver()
    s.set("timeout", max(1, int(budget * 1000)))
    if signs:
        u = [z3.Int(f"u{i}") for i in range(k)]
        s.add(*[z3.And(x >= -1, x <= 1) for x in u], *[u[i] >= u[i + 1] for i in range(k - 1)])
    else:
        u = [z3.Real(f"u{i}") for i in range(k)]
    for x, y in zip(X, Y):
        terms = []
        for i in range(k):
            pre = z3.Sum([z3.Q(p.numerator, p.denominator) * v[i][c] for c, p in enumerate(x) if p != 0] or [z3.RealVal(0)])
            r = z3.If(pre > 0, pre, z3.RealVal(0))
            terms.append(z3.If(u[i] == 1, r, z3.If(u[i] == -1, -r, z3.RealVal(0))) if signs else u[i] * r)
        s.add(z3.Sum(terms) == z3.Q(y[0].numerator, y[0].denominator))
    res = s.check()
    status = "realizable" if res == z3.sat else "not-realizable" if res == z3.unsat else "timeout"
    return {"status": status, "seconds": time.perf_counter() - t}


PHASES = ("hint_seconds", "solve_seconds", "elimination_seconds", "lp_seconds", "lemma_seconds", "trim_seconds", "write_seconds",
          "check_seconds")


def ours(inst: Instance, k: int, budget: float) -> dict:
    t = time.perf_counter()
    try:
        res = decide(inst, k=k, time_limit=budget)
    except (TimeLimitExceeded, SearchLimit):
        return {"status": "timeout", "seconds": time.perf_counter() - t}
    total = time.perf_counter() - t
    st = res.evidence
    out = {"status": res.status, "seconds": total, "bytes": len(json.dumps(res.certificate))}
    for key in PHASES + ("screen_seconds", "hint_case", "rounds", "lemmas", "half_lemmas", "lps", "exact_lps",
                         "eliminated", "proof_steps"):
        if key in st:
            out[key] = st[key]
    return out


TOOLS = {"exactrelu": ours, "z3 real": lambda inst, k, b: z3_decide(inst, k, b, False),
         "z3 sign": lambda inst, k, b: z3_decide(inst, k, b, True)}


def fmt(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def cell(out: dict) -> str:
    return fmt(out["seconds"]) if out["status"] in ("realizable", "not-realizable") else f"> {out['seconds']:.0f}"


def line(r: dict) -> str:
    e = r["exactrelu"]
    ok = e["status"] != "timeout"
    answer = {"realizable": "sat", "not-realizable": "unsat"}.get(r["answer"], "?")
    best = [r[z]["seconds"] for z in ("z3 real", "z3 sign") if r[z]["status"] != "timeout"]
    ratio = f"{e['seconds'] / min(best):.2f}" if ok and best else "-"
    other = e.get("lemma_seconds", 0) - e.get("elimination_seconds", 0) - e.get("lp_seconds", 0) if ok else None
    phases = [fmt(e.get(p)) if ok else "-" for p in ("hint_seconds", "solve_seconds", "elimination_seconds", "lp_seconds")]
    phases += [fmt(other)] + [fmt(e.get(p)) if ok else "-" for p in ("trim_seconds", "write_seconds", "check_seconds")]
    return "| " + " | ".join([r["family"], str(r["d"]), str(r["k"]), str(r["n"]), str(r["seed"]), answer, cell(e),
                               cell(r["z3 real"]), cell(r["z3 sign"]), ratio, *phases,
                               str(e.get("rounds", "-")), str(e.get("lemmas", "-"))]) + " |"


HEAD = ["family", "d", "k", "n", "seed", "answer", "exactrelu (certified, checked)", "z3 real", "z3 sign",
        "exactrelu / best z3", "hint", "SAT", "elimination", "exact LP", "other lemma work", "trim", "write", "check",
        "rounds", "lemmas"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--budget", type=float, default=30.0, help="seconds per tool and instance (default 30)")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "bench_decide.json"))
    args = ap.parse_args(argv)
    try:
        import z3  # noqa: F401
    except ImportError:
        print("z3-solver is not installed (pip install z3-solver): the z3 columns are skipped")
        TOOLS.pop("z3 real"), TOOLS.pop("z3 sign")
    warm = instance("random", 2, 1, 6, 0)
    for name, fn in TOOLS.items():  # imports and first calls stay out of the table
        fn(warm, 1, 5.0)
    ours(instance("planted", 2, 1, 50, 0), 1, 5.0)  # the float hint's imports too (n k > 40 literals)
    rows = []
    print("| " + " | ".join(HEAD) + " |\n|" + "---|" * len(HEAD), flush=True)
    for family, d, k, n in (QUICK if args.quick else GRID):
        for seed in range(1 if args.quick else args.seeds):
            inst = instance(family, d, k, n, seed)
            row = {"family": family, "d": d, "k": k, "n": n, "seed": seed, "answer": None}
            for name in ("exactrelu", "z3 real", "z3 sign"):
                row[name] = TOOLS[name](inst, k, args.budget) if name in TOOLS else {"status": "timeout", "seconds": 0}
                st = row[name]["status"]
                if st != "timeout":
                    assert row["answer"] in (None, st), (family, d, k, n, seed, name, row)
                    row["answer"] = st
            rows.append(row)
            print(line(row), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"budget": args.budget, "rows": rows}, indent=1), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
