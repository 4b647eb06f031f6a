"""Speed of the independent checker on valid certificates, this tree against another checkout.

The bounds of issue 15 must not slow down honest work. The script writes a few valid certificates
(``realizes`` on JSON and .npz instances, ``not-realizable`` with a DRUP refutation, ``lp-infeasible``)
and times ``python -m exactrelu.certificates.checker`` on each, alternating between this tree and
``--peer`` (for example a worktree of an older commit), best of ``--repeat`` runs. Times include the
interpreter start (~0.05 s).

``--deep`` times instead the check of a deep ``realizes`` certificate (a network d-w1-w2-m with biases in every layer,
float64 weights, n float32 inputs, its exact labels) in this process, as the library's own check runs it: the fast
checker (NumPy, one BLAS thread per process) on 1 and 2 workers against the reference (standard library) on 1 and 2
workers, all in one run, every verdict the same line; the table goes to results/bench_checker_deep.md.

Usage::

    git worktree add /tmp/peer <commit>
    python benchmarks/bench_checker.py --peer /tmp/peer
    python benchmarks/bench_checker.py --deep 20,16,16,4,10000 100,64,64,10,100000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))


def certificates(tmp: Path, quick: bool):
    from exactrelu.certificates.claims.realizes import realizes_certificate
    from exactrelu.certificates.envelope import write_certificate
    from exactrelu.certificates.claims.lp import lp_certificate
    from exactrelu.exact.lp import feasible
    from exactrelu.hardness import NaeToRelu
    from exactrelu.decide.search.pattern_search import decide
    from exactrelu.hardness.generators import random_nae3
    from exactrelu.instances import planted, write_instance

    out = []
    for d, k, m, n in ([(10, 3, 3, 2000)] if quick else [(10, 3, 3, 2000), (50, 10, 10, 20000)]):
        inst = planted(d=d, k=k, m=m, n=n, seed=0, input_bits=12)
        cert = write_certificate(realizes_certificate(inst, inst.planted), tmp / f"r{n}.json")
        for suffix in (".json", ".npz"):
            out.append((f"realizes ({d},{k},{m},{n}) {suffix}", cert, write_instance(inst, tmp / f"i{n}{suffix}")))
    for seed in range(40):  # an unsatisfiable random NAE-3SAT formula: a not-realizable certificate
        f = random_nae3(12 if quick else 30, 25 if quick else 66, seed=seed)
        inst, _ = NaeToRelu().apply(f)
        res = decide(inst, U=[[1, 1]])
        if res.status == "not-realizable":
            case = res.certificate["cases"][0]
            kind = "LRAT" if "lrat" in case else "DRUP"
            steps = len(case.get("lrat") or case.get("rup") or [])
            cert = write_certificate(res.certificate, tmp / "nr.json")
            out.append((f"not-realizable (NAE N={f.num_vars}, {steps} {kind} steps)", cert, write_instance(inst, tmp / "nr_i.json")))
            break
    A = [[(i * 7 + j * 3) % 11 - 5 for j in range(60)] for i in range(400)]
    res = feasible(A_ub=A + [[-x for x in row] for row in A], b_ub=[-1] * 400 + [0] * 400)
    cert = tmp / "lp.json"
    cert.write_text(json.dumps(lp_certificate(res)))
    out.append((f"{lp_certificate(res)['claim']} (800 x 60)", cert, None))
    return out


def timed(root: Path, cert: Path, inst: Path | None) -> float:
    argv = [sys.executable, "-m", "exactrelu.certificates.checker", str(cert)] + ([str(inst)] if inst else [])
    t = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(root)), cwd=root)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"{root}: {p.stdout}{p.stderr}")
    return dt


# --- deep networks: the fast checker against the reference, in-process (issue 36 item 2) ---------------------------

def deep_case(d: int, w1: int, w2: int, m: int, n: int, seed: int = 0):
    """A network d-w1-w2-m with biases in every layer (PyTorch's default nn.Sequential, float64 weights), n float32
    inputs (held as float64), and its exact labels (dyadic: the network's values at those inputs)."""
    import numpy as np

    from exactrelu.certificates.claims.realizes import realizes_certificate
    from exactrelu.exact import QMatrix
    from exactrelu.instances import Instance
    from exactrelu.network import Network

    rng = np.random.default_rng(seed)
    widths = (d, w1, w2, m)
    net = Network.from_layers([(rng.standard_normal((b, a)) / np.sqrt(a), rng.standard_normal(b) / 10)
                               for a, b in zip(widths, widths[1:])])
    X = QMatrix.from_numpy(rng.standard_normal((n, d)).astype(np.float32).astype(np.float64))
    inst = Instance(X, net.evaluate_exact(X))
    return realizes_certificate(inst, net), inst


def cpu_seconds() -> float:
    """CPU time of this process and of its waited-for children (forked workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def timed_check(run) -> tuple[float, float, str]:
    wall, cpu = time.perf_counter(), cpu_seconds()
    summary = run()
    return time.perf_counter() - wall, cpu_seconds() - cpu, summary


def deep_rows(sizes: list, workers: list, reference: bool) -> list:
    """Each size: the fast checker on 1 and 2 workers (one BLAS thread each, as the library's own check of a large
    instance), then the reference on 1 and 2 workers, all on the same certificate and instance as the library holds
    them; every verdict must be the same line."""
    from exactrelu import blas
    from exactrelu.certificates import checker, fast
    from exactrelu.instances.checker_view import checker_instance, fast_instance

    rows = []
    for size in sizes:
        cert, inst = deep_case(*size)
        row = {"size": size, "fast": {}, "reference": {}}
        for w in workers:
            with blas.fixed_threads(1):
                row["fast"][w] = timed_check(lambda: fast.check(cert, fast_instance(inst), w))
            print(size, "fast", w, row["fast"][w][:2], flush=True)
        for w in workers if reference else []:
            data = checker_instance(inst)
            row["reference"][w] = timed_check(lambda: checker.check_parallel(cert, data, w) if w > 1 else
                                              checker.check(cert, data))
            print(size, "reference", w, row["reference"][w][:2], flush=True)
        lines = {r[2] for part in ("fast", "reference") for r in row[part].values()}
        if len(lines) != 1:
            raise SystemExit(f"the checkers disagree on {size}: {lines}")
        row["summary"] = lines.pop()
        rows.append(row)
    return rows


def deep_table(rows: list, load: str) -> str:
    out = [f"Load average before the run: {load}.", "",
           "| (d, widths, m, n) | fast, 1 process: wall s (CPU s) | fast, 2 workers | reference, 1 process | "
           "reference, 2 workers | reference / fast, 1 process: wall, CPU | 2 workers: wall, CPU |",
           "|---|---|---|---|---|---|---|"]
    for row in rows:
        d, w1, w2, m, n = row["size"]
        f, r = row["fast"], row["reference"]
        cells = [f"{f[w][0]:.2f} ({f[w][1]:.2f})" for w in (1, 2)]
        cells += [f"{r[w][0]:.2f} ({r[w][1]:.2f})" if w in r else "-" for w in (1, 2)]
        ratios = [f"{r[w][0] / f[w][0]:.1f}x, {r[w][1] / f[w][1]:.1f}x" if w in r else "-" for w in (1, 2)]
        out.append(f"| ({d}, {w1}-{w2}, {m}, {n:,}) | " + " | ".join(cells + ratios) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", help="another checkout of exactrelu (its checker is timed beside this one)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--deep", nargs="+", metavar="D,W1,W2,M,N",
                    help="time deep realizes certificates of these sizes instead (fast checker against the reference)")
    ap.add_argument("--no-reference", action="store_true", help="with --deep: the fast checker only")
    args = ap.parse_args()
    if args.deep:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        rows = deep_rows([tuple(int(float(v)) for v in size.split(",")) for size in args.deep], [1, 2],
                         not args.no_reference)
        after = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        table = deep_table(rows, load) + f"\n\nLoad average after the run: {after}."
        (HERE / "results" / "bench_checker_deep.md").write_text(table + "\n")
        print(table)
        return
    if not args.peer:
        ap.error("--peer is needed (or --deep)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-checker-"))
    rows = []
    for name, cert, inst in certificates(tmp, args.quick):
        here, peer = [], []
        for _ in range(args.repeat):
            here.append(timed(ROOT, cert, inst))
            peer.append(timed(Path(args.peer), cert, inst))
        rows.append((name, min(peer), min(here)))
        print(f"{name:48s} peer {min(peer):7.3f} s   this {min(here):7.3f} s   ratio {min(here) / min(peer):5.2f}", flush=True)
    lines = ["| certificate | peer s | this tree s | this / peer |", "|---|---|---|---|"]
    lines += [f"| {n} | {a:.3f} | {b:.3f} | {b / a:.2f} |" for n, a, b in rows]
    (HERE / "results" / "bench_checker.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
