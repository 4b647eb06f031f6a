"""Integer matrices over one power-of-two scale (QMatrix) versus fmpq_mat: conversion, product, solve.

    python benchmarks/bench_conversion.py [--quick]

Decides the representation of exact matrices (exactrelu.exact.matrix): the faster one is used.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import flint
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from exactrelu.exact.matrix import QMatrix  # noqa: E402


def best(f, reps=3):
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return min(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    sizes = [(2000, 20, 5)] if args.quick else [(5000, 20, 5), (20000, 50, 10), (20000, 200, 20)]
    print("| n x d (k) | step | fmpz_mat + scale s | fmpq_mat s | fmpq / fmpz |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for n, d, k in sizes:
        X = rng.standard_normal((n, d))
        V = rng.integers(-3, 4, (k, d))
        t_z = best(lambda: QMatrix.from_numpy(X), 2)
        t_q = best(lambda: flint.fmpq_mat(n, d, [flint.fmpq(*x.as_integer_ratio()) for x in X.ravel().tolist()]), 2)
        rows = [("conversion from numpy", t_z, t_q)]
        Q = QMatrix.from_numpy(X)
        Fq = flint.fmpq_mat(n, d, [flint.fmpq(*x.as_integer_ratio()) for x in X.ravel().tolist()])
        Vz = flint.fmpz_mat(V.tolist())
        Vq = flint.fmpq_mat(Vz)
        XTz, XTq = Q.num.transpose(), Fq.transpose()
        rows.append(("product V X (k x n)", best(lambda: Vz * XTz), best(lambda: Vq * XTq)))
        Mz = flint.fmpz_mat([[Q.num[i, j] for j in range(d)] for i in range(d)])
        Mq = flint.fmpq_mat([[Fq[i, j] for j in range(d)] for i in range(d)])
        bz = flint.fmpz_mat([[i + 1] for i in range(d)])
        rows.append((f"solve {d} x {d}", best(lambda: Mz.solve(bz)), best(lambda: Mq.solve(flint.fmpq_mat(bz)))))
        for name, a, b in rows:
            print(f"| {n} x {d} ({k}) | {name} | {a:.4f} | {b:.4f} | {b / a:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
