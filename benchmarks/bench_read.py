"""Reading instance files: the JSON reader against json.load, the .npz reader and the entry-by-entry reader.

    python benchmarks/bench_read.py [--quick]

For each size, one planted instance written as JSON and as .npz; best of ``--reps`` runs of: ``json.load`` alone
(the floor of any JSON reader), ``read_instance`` on the .npz, ``read_instance`` on the JSON (the bulk path of
exactrelu/exact/text.py), and the JSON read entry by entry as before issue 22 (every string through
``to_fraction``, the garbage collector running), all in one process, one after the other. Absolute times depend on
the machine's load; the ratios within a run are what carries over.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from exactrelu.exact import text  # noqa: E402
from exactrelu.instances import planted, read_instance, write_instance  # noqa: E402
from exactrelu.io import instance_file  # noqa: E402


def best(f, reps: int) -> float:
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return min(out)


def entry_by_entry(path: Path):
    """The reader as it was: no bulk path, the collector on."""
    import contextlib

    saved = (text.parse_rational_strings, instance_file._no_gc)
    import exactrelu.exact.matrix as matrix

    matrix.parse_rational_strings = lambda *a: None
    instance_file._no_gc = contextlib.nullcontext
    try:
        return read_instance(path)
    finally:
        matrix.parse_rational_strings, instance_file._no_gc = saved


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    sizes = [(5000, 20, 3, 20)] if args.quick else [(50000, 20, 3, 20), (50000, 20, 3, None), (100000, 40, 3, 20)]
    print("| n x d, m | inputs | JSON MB | json.load s | .npz s | JSON (bulk) s | JSON entry by entry s | "
          "entry-by-entry / bulk | bulk / json.load |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n, d, m, bits in sizes:
            inst = planted(d=d, k=3, m=m, n=n, seed=0, input_bits=bits)
            pj, pn = Path(tmp) / "i.json", Path(tmp) / "i.npz"
            write_instance(inst, pj)
            if bits is not None:
                write_instance(inst, pn)
            t_json = best(lambda: json.loads(pj.read_bytes()), args.reps)
            t_npz = best(lambda: read_instance(pn), args.reps) if bits is not None else float("nan")
            t_bulk = best(lambda: read_instance(pj), args.reps)
            t_old = best(lambda: entry_by_entry(pj), 1)
            back = read_instance(pj)
            assert back.inputs == inst.inputs and back.labels == inst.labels  # the same values, exactly
            kind = f"dyadic 2^-{bits}" if bits is not None else "float64"
            print(f"| {n} x {d}, {m} | {kind} | {pj.stat().st_size / 1e6:.1f} | {t_json:.3f} | {t_npz:.3f} | "
                  f"{t_bulk:.3f} | {t_old:.3f} | {t_old / t_bulk:.1f}x | {t_bulk / t_json:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
