"""(k = 8 is left out: the cone then has ~1500 extreme rays at n = 200 and our enumeration took
30 s; the solver should not enumerate there.)

Sign-pattern enumeration: cells per second against brute force (one exact LP per orthant),
counts against Cover's formula, and extreme rays of the non-negative cone against cddlib.

Usage: python benchmarks/bench_patterns.py [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _lp_peers import save, table, timed  # noqa: E402

from exactrelu.exact.lp import feasible  # noqa: E402
from exactrelu.instances import planted  # noqa: E402
from exactrelu.decide.enumeration.patterns import count_sign_patterns, cover_count, extreme_rays, integer_basis  # noqa: E402


def brute(B):
    k, n = len(B), len(B[0])
    c = 0
    for s in itertools.product((-1, 1), repeat=n):
        A = [[-s[j] * B[i][j] for i in range(k)] for j in range(n)]
        c += feasible(A_ub=A, b_ub=[-1] * n).status == "feasible"
    return c


def cdd_rays(Bint):
    try:
        import cdd
        import cdd.gmp
    except ImportError:
        return None
    k, n = len(Bint), len(Bint[0])
    rows = [[0] + [Bint[i][j] for i in range(k)] for j in range(n)]  # b_j . c >= 0
    P = cdd.gmp.polyhedron_from_matrix(cdd.gmp.matrix_from_array(rows, rep_type=cdd.RepType.INEQUALITY))
    return len(cdd.gmp.copy_generators(P).array)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    sizes = [(10, 2), (10, 3), (40, 3)] if args.quick else [(10, 2), (12, 3), (14, 4), (60, 3), (120, 3), (40, 4)]
    for n, k in sizes:
        B = [[Fraction(int(rng.integers(-10**6, 10**6)), int(rng.integers(1, 1000))) for _ in range(n)] for _ in range(k)]
        t, c = timed(count_sign_patterns, B)
        if n <= 14:
            tb, cb = timed(brute, integer_basis(B))
            bs = f"{tb:.2f}", f"{cb / tb:.0f}", "yes" if cb == c else "NO"
        else:
            bs = "-", "-", "-"
        rows.append([f"orthants n={n} k={k}", c, cover_count(n, k), "yes" if c == cover_count(n, k) else "no",
                     f"{t:.3f}", f"{c / t:.0f}", *bs])
        print(rows[-1], flush=True)
    headers = ["subspace (generic)", "cells", "Cover", "equal", "ours s", "ours cells/s", "brute s", "brute cells/s", "brute agrees"]
    text1 = table(rows, headers)
    rrows = []
    ray_sizes = [(200, 3, 5), (1000, 5, 10)] if args.quick else [(200, 3, 5), (1000, 5, 10), (5000, 5, 10)]
    for n, k, d in ray_sizes:
        inst = planted(d=d, k=k, m=k, n=n, seed=1)
        Bint = integer_basis(inst.labels.T)
        t, R = timed(extreme_rays, Bint)
        tc, rc = timed(cdd_rays, Bint)
        rrows.append([f"planted n={n} k={k} d={d}", len(R), f"{t:.3f}", rc if rc is not None else "n/a",
                      f"{tc:.3f}" if rc is not None else "n/a", f"{tc / t:.1f}x" if rc is not None else ""])
        print(rrows[-1], flush=True)
    h2 = ["cone of the labels' row span", "extreme rays", "ours s", "cddlib rays", "cddlib s", "cdd/ours"]
    text = text1 + "\n\n" + table(rrows, h2)
    print(text)
    save("bench_patterns" + ("_quick" if args.quick else ""), rows + rrows, headers + h2, text)


if __name__ == "__main__":
    main()
