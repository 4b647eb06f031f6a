"""The NNEquiv pairs on their own input regions (issue 37): `exactrelu equiv` with a time limit, beside NNEquiv's times.

    python benchmarks/bench_nnequiv.py                      # every pair, 100 s each (needs `onnx`)
    python benchmarks/bench_nnequiv.py --time-limit 30 --only ACAS_1_1-retrain
    python benchmarks/bench_nnequiv.py --baseline /tmp/old   # each pair also run from an older checkout, same run

The networks are NNEquiv's ONNX files in ../shared/benchmarks/nnequiv/ (``NAME.onnx`` against ``NAME-mirror.onnx``,
the pairs of its ``instances-versions.csv``, strategy ``DONT``); the input regions are NNEquiv's properties "1"
(ACAS Xu) and "9000.x" / "9200.x" (MNIST 8x8), written down as the project's own data in
``benchmarks/specs/nnequiv/prop_*.vnnlib`` (from ``examples/equiv/properties.py`` of github.com/samysweb/nnequiv).
Each pair runs as the command a user would type, ``exactrelu equiv A B --vnnlib P --epsilon E --time-limit S -o
CERT --json``, in its own process (a top-1 pair: ``--top1`` instead of ``--epsilon E``); a certificate it writes is
checked again by ``exactrelu check``. The CPU seconds of the run (``resource`` of the children) go beside them.
Times are wall-clock seconds of one run on a shared 2-core machine: say how loaded it was when you quote them.
NNEquiv's times are the ones its paper publishes. With ``--baseline DIR`` (a checkout of an older version) each
pair runs first from DIR (``python -c 'from exactrelu.cli import main'`` in DIR, DIR first on the path), then from this
checkout, one after the other; both certificates are checked by this checkout's ``exactrelu check``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
NNEQUIV = next((p / "shared" / "benchmarks" / "nnequiv" for p in HERE.parents
                if (p / "shared" / "benchmarks" / "nnequiv").is_dir()), Path("shared/benchmarks/nnequiv"))
SPECS = HERE / "specs" / "nnequiv"
EXACTRELU = str(Path(sys.executable).parent / "exactrelu")  # the command line of this environment

#: (NNEquiv's name, network file stem, property, epsilon or "top", NNEquiv's published time)
PAIRS = [
    ("ACAS_1_1-retrain", "ACASXU_run2a_1_1_batch_2000-retrain", "1", "0.05", "1567 s"),
    ("ACAS_1_2-retrain", "ACASXU_run2a_1_2_batch_2000-retrain", "1", "0.05", ""),
    ("ACAS_1_1-student", "ACASXU_run2a_1_1_batch_2000-student", "1", "0.05", "350 s"),
    ("ACAS_1_2-student", "ACASXU_run2a_1_2_batch_2000-student", "1", "0.05", ""),
    ("MNIST_large-epsilon", "mnist8x8_100_80_60_40_20_10_eps1", "9000.2", "15", ""),
    ("MNIST_small-top", "mnist8x8_student_36_10", "9000.7", "top", "37.8 s"),
    ("MNIST_medium-top", "mnist8x8_student_12_12_12_10", "9000.7", "top", ""),
    ("MNIST_large-top", "mnist8x8_100_80_60_40_20_10", "9200.2", "top", ""),
    ("MNIST_larger-top", "mnist8x8_100_200_300_200_100_10", "9200.2", "top", "> 3 h"),
]


def region(prop: str, shrink: Fraction) -> list[str]:
    """The options of the input region: the VNN-LIB file, or its box shrunk about its centre by ``shrink`` (exact)."""
    if shrink == 1:
        return ["--vnnlib", str(SPECS / f"prop_{prop}.vnnlib")]
    from exactrelu.io.vnnlib import read_vnnlib

    box = read_vnnlib(SPECS / f"prop_{prop}.vnnlib")
    mid = [(lo + hi) / 2 for lo, hi in zip(box.lower, box.upper)]
    half = [(hi - lo) / 2 * shrink for lo, hi in zip(box.lower, box.upper)]
    return [f"--lower={','.join(str(c - h) for c, h in zip(mid, half))}",
            f"--upper={','.join(str(c + h) for c, h in zip(mid, half))}"]


def _children_cpu() -> float:
    import resource

    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def run_pair(stem: str, prop: str, eps: str, seconds: float, folder: Path, shrink: Fraction = Fraction(1),
             baseline: str | None = None) -> dict:
    """One ``exactrelu equiv`` run (and ``exactrelu check`` of its certificate): what it answered, how long it took.
    With ``baseline`` (a checkout's folder) the command runs from that checkout."""
    cert = folder / f"{stem}{'.baseline' if baseline else ''}.cert.json"
    env = None
    if baseline:
        import os

        env = {**os.environ, "PYTHONPATH": str(Path(baseline).resolve())}
    exe = [sys.executable, "-c", "import sys; from exactrelu.cli import main; sys.exit(main())"] if baseline else \
        [EXACTRELU]
    cmd = [*exe, "equiv", str(NNEQUIV / f"{stem}.onnx"), str(NNEQUIV / f"{stem}-mirror.onnx"),
           *region(prop, shrink), *(["--top1"] if eps == "top" else ["--epsilon", eps]), "--time-limit", str(seconds),
           "-o", str(cert), "--json"]
    t0, cpu0 = time.monotonic(), _children_cpu()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=baseline)  # not this checkout's folder
    row = {"exit": done.returncode, "seconds": round(time.monotonic() - t0, 1),
           "cpu_seconds": round(_children_cpu() - cpu0, 1)}
    try:
        record = json.loads(done.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        record = {"status": "error", "summary": (done.stderr or done.stdout).strip()[-300:]}
    row.update({k: record.get(k) for k in ("status", "summary", "reason", "nodes", "leaves", "fixes", "splits",
                                           "closed_share", "reduced_neurons", "relaxed_leaves")})
    if done.returncode in (0, 1) and cert.exists():
        t1 = time.monotonic()
        check = subprocess.run([EXACTRELU, "check", str(cert)], capture_output=True, text=True)
        row.update(checked=check.stdout.strip()[:200], check_exit=check.returncode,
                   check_seconds=round(time.monotonic() - t1, 1))
        if record.get("witness"):
            row["witness_floats"] = [float(Fraction(v)) for v in record["witness"]][:6]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=100.0)
    ap.add_argument("--only", action="append", help="run only this pair (NNEquiv's name); may repeat")
    ap.add_argument("--shrink", type=Fraction, default=Fraction(1),
                    help="shrink each region about its centre by this factor (e.g. 1/100): where the method decides")
    ap.add_argument("--baseline", help="a checkout of an older version: each pair runs from it too, first")
    ap.add_argument("--out", default=str(HERE / "results" / "bench_nnequiv.json"))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, stem, prop, eps, theirs in PAIRS:
            if args.only and name not in args.only:
                continue
            for base in ([args.baseline] if args.baseline else []) + [None]:
                row = {"pair": name, "networks": stem, "property": prop, "question": eps, "nnequiv": theirs,
                       "code": "baseline" if base else "this checkout"}
                row.update(run_pair(stem, prop, eps, args.time_limit, Path(tmp), args.shrink, base))
                rows.append(row)
                print(json.dumps(row), flush=True)
    Path(args.out).write_text(json.dumps({"time_limit": args.time_limit, "shrink": str(args.shrink),
                                          "baseline": args.baseline, "rows": rows}, indent=1) + "\n")
    print("\n| pair | code | region | question | exactrelu | time (s) | CPU (s) | case tree | closed | relaxed "
          "leaves | check (s) | NNEquiv |\n|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        q = "top-1" if r["question"] == "top" else f"max abs diff <= {r['question']}"
        tree = f"{r.get('nodes') or 0:,} nodes, {r.get('leaves') or 0:,} leaves" if r.get("nodes") else ""
        closed = f"{r['closed_share']:.1%}" if r.get("closed_share") is not None else ""
        print(f"| {r['pair']} | {r['code']} | {r['property']} | {q} | {r['status']} | {r.get('seconds', '')} | "
              f"{r.get('cpu_seconds', '')} | {tree} | {closed} | {r.get('relaxed_leaves') or ''} | "
              f"{r.get('check_seconds', '')} | {r['nnequiv']} |")


if __name__ == "__main__":
    main()
