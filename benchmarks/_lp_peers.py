"""Exact LP peers for the benchmarks: pycddlib (GMP rationals) and z3 (linear real arithmetic).

Both are optional (``pip install exactrelu[bench]``; pycddlib needs Debian's libcdd-dev and
libgmp-dev). Each function decides {x : A_eq x = b_eq, A_ub x <= b_ub} exactly and returns
"feasible" / "infeasible", or None when the peer is not installed.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path


def cdd_feasible(Ae, be, Au, bu, n):
    try:
        import cdd
        import cdd.gmp
    except ImportError:
        return None
    # cdd rows [b, -a] mean b - a.x >= 0; equations are listed in lin_set
    rows = [[b] + [-a for a in row] for row, b in zip(Ae, be)] + [[b] + [-a for a in row] for row, b in zip(Au, bu)]
    mat = cdd.gmp.matrix_from_array(rows, rep_type=cdd.RepType.INEQUALITY, lin_set=set(range(len(Ae))),
                                    obj_type=cdd.LPObjType.MAX, obj_func=[0] * (n + 1))
    lp = cdd.gmp.linprog_from_matrix(mat)
    cdd.gmp.linprog_solve(lp)
    if lp.status == cdd.LPStatusType.OPTIMAL:
        return "feasible"
    if lp.status in (cdd.LPStatusType.INCONSISTENT, cdd.LPStatusType.STRUC_INCONSISTENT):
        return "infeasible"
    return f"cdd:{lp.status}"


def z3_feasible(Ae, be, Au, bu, n):
    try:
        import z3
    except ImportError:
        return None
    x = [z3.Real(f"x{j}") for j in range(n)]
    s = z3.Solver()
    s.set("timeout", 20000)  # ms: z3 took > 2 min on a dense 200 x 20 system
    for row, b in zip(Ae, be):
        s.add(z3.Sum([z3.Q(a.numerator, a.denominator) * v for a, v in zip(row, x) if a]) == z3.Q(b.numerator, b.denominator))
    for row, b in zip(Au, bu):
        s.add(z3.Sum([z3.Q(a.numerator, a.denominator) * v for a, v in zip(row, x) if a]) <= z3.Q(b.numerator, b.denominator))
    r = s.check()
    return "feasible" if r == z3.sat else "infeasible" if r == z3.unsat else "timeout"


def timed(fn, *args, repeat=1):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t)
    return best, out


def table(rows, headers):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    line = " | ".join(str(h).ljust(w) for h, w in zip(headers, widths))
    out = [line, "-|-".join("-" * w for w in widths)]
    out += [" | ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def save(name, rows, headers, text):
    d = Path(__file__).parent / "results"
    d.mkdir(exist_ok=True)
    (d / f"{name}.json").write_text(json.dumps({"headers": headers, "rows": rows}, indent=1, default=str) + "\n")
    (d / f"{name}.md").write_text(text + "\n")


def fractions_of(M):
    return [[Fraction(v) for v in row] for row in M]
