"""Reading instance files: the JSON reader against json.load, orjson, msgspec, the .npz reader and the older readers.

    python benchmarks/bench_read.py [--quick] [--output FILE.md]

For each size, one planted instance written as JSON and as .npz; best of ``--reps`` runs (wall and CPU seconds,
``time.process_time``) of: ``json.loads`` alone (the floor of a reader that makes Python strings), ``orjson.loads``
and ``msgspec.json.decode`` alone when installed (a faster JSON layer, measured, not used: see below),
``read_instance`` on the .npz, ``read_instance`` on the JSON (json.loads with the checker's hooks, then the bulk
parser of exactrelu/exact/codecs/text.py), and the JSON read entry by entry as at the issue's filing (every string through
``to_fraction``, the garbage collector running), all in one process, one after the other. Absolute times depend on
the machine's load; the ratios within a run carry over.

A faster JSON parser is not a dependency: json.loads is a fifth to a third of the reader's time, and neither
orjson (repeated keys kept, not refused; integers over 64 bits refused) nor msgspec would keep the reader's
semantics without checks around it that cost what it saves. Reading the big arrays straight from the file's bytes
(skipping the JSON strings) was tried and measured no faster: the time is in the passes over the bytes.
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


def best(f, reps: int) -> tuple[float, float]:
    """(wall, CPU) seconds of the fastest of ``reps`` runs."""
    out = []
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        f()
        out.append((time.perf_counter() - t, time.process_time() - c))
    return min(out)


def entry_by_entry(path: Path):
    """The reader as it was: no bulk path, the collector on."""
    import contextlib

    saved = (text.parse_rational_strings, instance_file._no_gc, instance_file._bulk)
    import exactrelu.exact.matrix as matrix

    matrix.parse_rational_strings = lambda *a: None
    instance_file._no_gc = contextlib.nullcontext
    instance_file._bulk = lambda rows: None
    try:
        return read_instance(path)
    finally:
        matrix.parse_rational_strings, instance_file._no_gc, instance_file._bulk = saved


def previous_reader(text_py: str):
    """The reader with the bulk parser of an earlier text codec (``--previous FILE``, e.g. from
    ``git show 47063e4:exactrelu/exact/text.py``, its path before exact/codecs/), the rest as now: the same run
    measures the step it made."""
    import importlib.util

    import exactrelu.exact.matrix as matrix

    spec = importlib.util.spec_from_file_location(f"{matrix.__package__}._previous_text", text_py)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def read(path: Path):
        saved = (matrix.parse_rational_strings, instance_file._bulk)
        matrix.parse_rational_strings, instance_file._bulk = module.parse_rational_strings, lambda rows: None
        try:
            return read_instance(path)
        finally:
            matrix.parse_rational_strings, instance_file._bulk = saved

    return read


def _peer(name: str):
    try:
        if name == "orjson":
            import orjson

            return orjson.loads
        import msgspec

        return msgspec.json.decode
    except ImportError:
        return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--output", help="also write the table (with the run's load) to this markdown file")
    ap.add_argument("--previous", metavar="TEXT_PY", help="an earlier exactrelu/exact/codecs/text.py: its reader as a column")
    args = ap.parse_args()
    sizes = [(5000, 20, 3, 20)] if args.quick else [(50000, 20, 3, 20), (50000, 20, 3, None), (100000, 40, 3, 20)]
    previous = previous_reader(args.previous) if args.previous else None
    lines = ["| n x d, m | inputs | JSON MB | json.loads | orjson.loads | msgspec | .npz | JSON reader | "
             "previous reader | entry by entry (at filing) | filing / reader (wall) | filing / reader (CPU) | "
             "previous / reader (CPU) | reader / json.loads (CPU) | reader / .npz (CPU) |", "|" + "---|" * 15]
    print("\n".join(lines), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for n, d, m, bits in sizes:
            inst = planted(d=d, k=3, m=m, n=n, seed=0, input_bits=bits)
            pj, pn = Path(tmp) / "i.json", Path(tmp) / "i.npz"
            write_instance(inst, pj)
            if bits is not None:
                write_instance(inst, pn)
            raw = pj.read_bytes()
            t_json = best(lambda: json.loads(raw), args.reps)
            peers = [_peer("orjson"), _peer("msgspec")]
            t_peers = [best(lambda: f(raw), args.reps) if f is not None else None for f in peers]
            t_npz = best(lambda: read_instance(pn), args.reps) if bits is not None else None
            t_new = best(lambda: read_instance(pj), args.reps)
            t_prev = best(lambda: previous(pj), args.reps) if previous else None
            t_old = best(lambda: entry_by_entry(pj), 1)
            back = read_instance(pj)
            assert back.inputs == inst.inputs and back.labels == inst.labels  # the same values, exactly
            kind = f"dyadic 2^-{bits}" if bits is not None else "float64"
            cells = [t_json, *t_peers, t_npz, t_new, t_prev, t_old]
            shown = " | ".join("-" if c is None else f"{c[0]:.3f} s ({c[1]:.3f} CPU)" for c in cells)
            line = (f"| {n} x {d}, {m} | {kind} | {len(raw) / 1e6:.1f} | {shown} | {t_old[0] / t_new[0]:.1f}x | "
                    f"{t_old[1] / t_new[1]:.1f}x | {'-' if t_prev is None else f'{t_prev[1] / t_new[1]:.1f}x'} | "
                    f"{t_new[1] / t_json[1]:.2f} | {'-' if t_npz is None else f'{t_new[1] / t_npz[1]:.1f}'} |")
            print(line, flush=True)
            lines.append(line)
    if args.output:
        import os

        head = (f"benchmarks/bench_read.py, one run, {time.strftime('%Y-%m-%d')}, loaded 2-core machine (load at the "
                f"end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}); best of {args.reps} (entry by entry: 1 run); "
                "wall seconds (CPU seconds, time.process_time)\n\n")
        Path(args.output).write_text(head + "\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
