"""Exact LP feasibility: exactrelu.exact.lp against pycddlib (GMP) and z3, in one run.

Two families (issue 4):
* pattern LPs of planted instances (d = 10, k = 5): the unit LP of the worst-case solver,
  ``v . x_j = w_j`` on a support and ``v . x_j <= 0`` off it, for a true support (feasible)
  and a wrong one (two indices moved: infeasible), at n = 1000 and 5000;
* random dense ``A x <= b`` (200 x 20, 2000 x 50), feasible (b = A x0 + slack) and infeasible.

Our time includes the exact proof of the answer (point re-solved and checked, or Farkas vector);
the "cert+check" column adds writing the certificate and the independent stdlib checker.
Usage: python benchmarks/bench_lp.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _lp_peers import cdd_feasible, save, table, timed, z3_feasible  # noqa: E402

from exactrelu.certificates import checker  # noqa: E402
from exactrelu.certificates.claims.lp import lp_certificate  # noqa: E402
from exactrelu.exact.lp import feasible  # noqa: E402
from exactrelu.instances import planted  # noqa: E402


def pattern_lp(n, seed, wrong):
    inst = planted(d=10, k=5, m=5, n=n, seed=seed)
    W = inst.planted.hidden_exact(inst.inputs)
    w = W.to_fractions()[0]
    S = [j for j, v in enumerate(w) if v > 0]
    if wrong:  # move two indices across the support
        off = [j for j, v in enumerate(w) if v == 0]
        S = sorted(set(S[2:]) | set(off[:2]))
        w = [Fraction(0) if j not in S else (w[j] if w[j] else Fraction(1)) for j in range(n)]
    Xf = inst.float_inputs()
    Sset = set(S)
    on = [j for j in range(n) if j in Sset]
    off = [j for j in range(n) if j not in Sset]
    return dict(A_eq=Xf[on], b_eq=[w[j] for j in on], A_ub=Xf[off], b_ub=[0] * len(off)), 10


def dense(m, n, seed, feas):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n))
    b = A @ rng.standard_normal(n) + rng.random(m) if feas else rng.standard_normal(m) - 3
    return dict(A_ub=A, b_ub=b), n


def as_fractions(kw):
    f = lambda M: [[Fraction(float(v)) if not isinstance(v, Fraction) else v for v in row] for row in M]
    v = lambda b: [Fraction(float(x)) if not isinstance(x, Fraction) else x for x in b]
    return (f(kw["A_eq"]) if "A_eq" in kw else [], v(kw["b_eq"]) if "b_eq" in kw else [],
            f(kw["A_ub"]), v(kw["b_ub"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes, one repeat")
    args = ap.parse_args()
    cases = []
    for n in ([1000] if args.quick else [1000, 5000]):
        for wrong in (False, True):
            cases.append((f"pattern n={n} {'wrong' if wrong else 'true'}", *pattern_lp(n, 1, wrong)))
    for (m, n) in ([(200, 20)] if args.quick else [(200, 20), (2000, 50)]):
        for feas in (True, False):
            cases.append((f"dense {m}x{n} {'feas' if feas else 'infeas'}", *dense(m, n, 2, feas)))
    rows = []
    for name, kw, nv in cases:
        t_ours, res = timed(lambda: feasible(**kw), repeat=1 if args.quick else 3)
        t_cert, _ = timed(lambda: checker.check(lp_certificate(res), None))
        Ae, be, Au, bu = as_fractions(kw)
        t_cdd, a_cdd = timed(cdd_feasible, Ae, be, Au, bu, nv)
        # z3 needs 15 s on one pattern LP at n = 1000: measured on the smaller cases only
        small = len(Ae) + len(Au) <= 1000 and not name.startswith("pattern n=5000")
        t_z3, a_z3 = timed(z3_feasible, Ae, be, Au, bu, nv) if small and (not args.quick or len(Ae) + len(Au) <= 200) else (0, None)
        agree = all(a in (None, "timeout", res.status) for a in (a_cdd, a_z3))
        rows.append([name, res.status, res.method, f"{t_ours * 1e3:.1f}", f"{t_cert * 1e3:.0f}",
                     f"{t_cdd * 1e3:.0f}" if a_cdd else "n/a", f"{t_cdd / t_ours:.1f}x" if a_cdd else "",
                     (f"{t_z3 * 1e3:.0f}" if a_z3 != "timeout" else ">20000") if a_z3 else "n/a",
                     f"{t_z3 / t_ours:.1f}x" if a_z3 and a_z3 != "timeout" else "", "yes" if agree else "NO"])
        print(rows[-1], flush=True)
    headers = ["case", "answer", "method", "ours ms", "cert+check ms", "cddlib ms", "cdd/ours", "z3 ms", "z3/ours", "agree"]
    text = table(rows, headers)
    print(text)
    save("bench_lp" + ("_quick" if args.quick else ""), rows, headers, text)


if __name__ == "__main__":
    main()
