"""The certificate phase of recover at scale (issue 25): the instance hash made ahead in a forked child, and the
canonical strings of float64 inputs and dyadic labels. Ratios from one process, before/after side by side.

    python benchmarks/bench_certificate_phase.py 200 20 20 20000 [REPEATS=2]

1. recover(check=False) with and without the hash ahead (twice each, alternating): the 'certificate' timing and the
   whole call (wall, this process's CPU, the forked child's CPU apart);
2. the instance hash with the previous string makers (copied below as they were) and with the present ones;
3. the string makers alone: float64 inputs and dyadic labels.
"""

from __future__ import annotations

import contextlib
import hashlib
import resource
import sys
import time
from operator import add

import flint
import numpy as np

from exactrelu import parallel
from exactrelu.certificates import envelope
from exactrelu.instances import checker_view, planted
from exactrelu.recover import front_door, recover


def previous_float_strings(a: np.ndarray) -> list[list[str]]:
    """float_strings before issue 25 (one str per mantissa, a denominator looked up)."""
    mant, ex = np.frexp(a)
    M = (mant * 2.0**53).astype(np.int64)
    e = ex.astype(np.int64) - 53
    nz = M != 0
    low = M[nz] & -M[nz]
    tz = np.zeros_like(e)
    tz[nz] = np.frexp(low.astype(np.float64))[1] - 1
    M >>= tz
    e = np.where(nz, e + tz, 0)
    dens = [""] + [f"/{1 << t}" for t in range(1, 1075)]
    text = list(map(add, map(str, M.ravel().tolist()), map(dens.__getitem__, np.maximum(-e, 0).ravel().tolist())))
    for i in np.flatnonzero(e > 0).tolist():
        text[i] = str(int(M.flat[i]) << int(e.flat[i]))
    d = a.shape[1]
    return [text[i:i + d] for i in range(0, len(text), d)]


def previous_dyadic_row_strings(Q, start: int, stop: int) -> list[list[str]]:
    """QMatrix.row_strings of a dyadic matrix before issue 25: a block fmpz_mat, then per-entry Python integers."""
    num, c = Q.num, Q.num.ncols()
    block = flint.fmpz_mat(stop - start, c, [num[i, j] for i in range(start, stop) for j in range(c)])
    s = int(Q.den).bit_length() - 1
    qs = [""] + [f"/{1 << e}" for e in range(1, s + 1)]
    out = []
    for row in block.tolist():
        r = []
        for x in row:
            x = int(x)
            t = min((x & -x).bit_length() - 1, s) if x else s
            r.append(f"{x >> t}{qs[s - t]}")
        out.append(r)
    return out


def previous_sha256(inst) -> str:
    h = hashlib.sha256()
    h.update(f"exactrelu.instance.v1\n{inst.n} {inst.d} {inst.m}\n".encode())
    X, Y = inst.inputs.float_source[0], inst.labels
    for a in range(0, inst.n, 8192):
        b = min(a + 8192, inst.n)
        xs, ys = previous_float_strings(X[a:b]), previous_dyadic_row_strings(Y, a, b)
        h.update("".join(f"{' '.join(x)} | {' '.join(y)}\n" for x, y in zip(xs, ys)).encode())
    return h.hexdigest()


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(f, *args) -> tuple:
    w, c = time.perf_counter(), time.process_time()
    out = f(*args)
    return out, round(time.perf_counter() - w, 3), round(time.process_time() - c, 3)


def run_recover(inst, k: int, ahead: bool) -> dict:
    saved, idle = front_door.instance_hash_ahead, parallel.idle_core
    if not ahead:
        front_door.instance_hash_ahead = lambda inst: contextlib.nullcontext()
    parallel.idle_core = lambda: True  # the child is forked whatever the load (the library asks for an idle core)
    try:
        inst._cache.clear()
        cc = _children_cpu()
        res, wall, cpu = timed(lambda: recover(inst.float_inputs(), inst.labels, k=k, init="auto", random_state=0,
                                               check=False))
        return {"certificate_s": round(res.timings["certificate"], 3), "wall_s": wall, "cpu_s": cpu,
                "child_cpu_s": round(_children_cpu() - cc, 3), "sha": res.certificate["instance_sha256"][:12]}
    finally:
        front_door.instance_hash_ahead, parallel.idle_core = saved, idle


def main(argv: list[str]) -> None:
    d, k, m, n = map(int, argv[:4])
    repeats = int(argv[4]) if len(argv) > 4 else 2
    inst = planted(d=d, k=k, m=m, n=n, seed=1)
    print({"n": n, "d": d, "k": k, "m": m, "entries": n * (d + m), "streamed": checker_view.streamed(inst)})
    for ahead in (False, True) * repeats:
        print({"recover, hash ahead": ahead, **run_recover(inst, k, ahead)}, flush=True)
    for name, f in (("previous", previous_sha256), ("now", envelope.instance_sha256)) * repeats:
        sha, wall, cpu = timed(f, inst)
        print({"instance_sha256": name, "wall_s": wall, "cpu_s": cpu, "sha": sha[:12]}, flush=True)
    X, Y, b = inst.inputs.float_source[0], inst.labels, min(n, 8192)
    for name, f, args in (("inputs: previous float_strings", previous_float_strings, (X[:b],)),
                          ("inputs: float_strings", inst.inputs.row_strings, (0, b)),
                          ("inputs: row_texts", inst.inputs.row_texts, (0, b)),
                          ("labels: previous row_strings", previous_dyadic_row_strings, (Y, 0, b)),
                          ("labels: row_strings", Y.row_strings, (0, b)),
                          ("labels: row_texts", Y.row_texts, (0, b))):
        _, wall, cpu = timed(f, *args)
        print({"strings": name, "rows": b, "wall_s": wall, "cpu_s": cpu}, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
