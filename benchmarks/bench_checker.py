"""Speed of the independent checker on valid certificates, this tree against another checkout.

The bounds of issue 15 must not slow down honest work. The script writes a few valid certificates
(``realizes`` on JSON and .npz instances, ``not-realizable`` with a DRUP refutation, ``lp-infeasible``)
and times ``python -m exactrelu.certificates.checker`` on each, alternating between this tree and
``--peer`` (for example a worktree of an older commit), best of ``--repeat`` runs. Times include the
interpreter start (~0.05 s).

Usage::

    git worktree add /tmp/peer <commit>
    python benchmarks/bench_checker.py --peer /tmp/peer
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", required=True, help="another checkout of exactrelu (its checker is timed beside this one)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
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
