"""Integer matrices over one power-of-two scale (QMatrix) versus fmpq_mat: conversion, product, solve; and every
construction path of python-flint from a NumPy array, ns per entry (issue 36 item 4).

    python benchmarks/bench_conversion.py [--quick]
    python benchmarks/bench_conversion.py --paths [--entries N]

Decides the representation of exact matrices (exactrelu.exact.matrix): the faster one is used. ``--paths``: an
(N^0.5 x N^0.5) int64 array of 23-bit integers (the inputs of bench_scale's instances scaled by 2^20) and of
Gaussian float64, through each constructor python-flint has (a flat list, a list of rows, fmpz_vec, fmpz_poly,
nmod_mat modulo a 31-bit and a 62-bit prime, from an fmpz_mat, from strings, arb_mat from floats), the library's
``QMatrix.from_numpy(a).num`` beside them; best of 3.
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


def paths(entries: int) -> None:
    """ns per entry of every python-flint construction path from a NumPy array (see the module)."""
    side = int(entries ** 0.5)
    rng = np.random.default_rng(0)
    a = np.round(rng.standard_normal((side, side)) * 2**20).astype(np.int64)
    g = rng.standard_normal((side, side))
    flat, rows, resid = a.ravel().tolist(), a.tolist(), (a % 2147483647).ravel().tolist()
    M = flint.fmpz_mat(side, side, flat)
    strs = [str(x) for x in flat[: side * 10]]
    cases = [
        ("ndarray.tolist() alone (no FLINT object)", lambda: a.ravel().tolist(), a.size),
        ("fmpz_mat(r, c, flat list of ints)", lambda: flint.fmpz_mat(side, side, flat), a.size),
        ("fmpz_mat(list of rows)", lambda: flint.fmpz_mat(rows), a.size),
        ("tolist + fmpz_mat(r, c, flat) (the library's path for < 2^62)", lambda: flint.fmpz_mat(
            side, side, a.ravel().tolist()), a.size),
        ("fmpz_vec(flat list)", lambda: flint.fmpz_vec(flat), a.size),
        ("fmpz_poly(flat list)", lambda: flint.fmpz_poly(flat), a.size),
        ("nmod_mat(r, c, residues, 31-bit p)", lambda: flint.nmod_mat(side, side, resid, 2147483647), a.size),
        ("nmod_mat(r, c, flat, 62-bit p)", lambda: flint.nmod_mat(side, side, flat, 4611686018427387847), a.size),
        ("nmod_mat(fmpz_mat, p) (FLINT to FLINT)", lambda: flint.nmod_mat(M, 4611686018427387847), a.size),
        ("fmpz_mat(10 x side, strings)", lambda: flint.fmpz_mat(10, side, strs), len(strs)),
        ("arb_mat(list of float rows)", lambda: flint.arb_mat(g.tolist()), g.size),
        ("QMatrix.from_numpy(23-bit floats).num", lambda: QMatrix.from_numpy(np.ldexp(a.astype(np.float64), -20),
                                                                             lazy=True).num, a.size),
        ("QMatrix.from_numpy(Gaussian float64).num", lambda: QMatrix.from_numpy(g, lazy=True).num, g.size),
    ]
    print(f"| path ({side} x {side}) | ns per entry |")
    print("|---|---|")
    for name, f, count in cases:
        try:
            t = best(f)
        except (TypeError, ValueError) as exc:
            print(f"| {name} | refused: {type(exc).__name__}: {str(exc)[:60]} |", flush=True)
            continue
        print(f"| {name} | {1e9 * t / count:.0f} |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--paths", action="store_true", help="python-flint's construction paths, ns per entry")
    ap.add_argument("--entries", type=int, default=10**6, help="with --paths: entries of the array (default 10^6)")
    args = ap.parse_args()
    if args.paths:
        paths(args.entries)
        return
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
