"""The fixed cost of ``exactrelu hardness decide`` beside a bare python + python-sat process (issue 25 item 5).

    python benchmarks/bench_hardness_fixed.py                        # N = 100, 200, 300 x 2 seeds
    python benchmarks/bench_hardness_fixed.py --baseline /tmp/old    # and an older checkout, same run
    python benchmarks/bench_hardness_fixed.py --table-only           # the table from the results

For each random NAE-3SAT formula of the decision benchmark (bench_hardness.py: N variables, M = 2.2 N clauses,
seed 1000 N + s), every tool is a fresh process, timed from outside (wall: perf_counter around the process;
CPU: the children's user + system seconds from getrusage), the median of ``--repeats`` runs (one run above
``--small``, where the solver's own time dominates):

* **peer**: ``python -c`` importing python-sat, reading the DIMACS file, and refuting the source formula (NAE as
  CNF: each clause and its complement) with CaDiCaL 1.9.5 logging a proof, read back: the bare floor;
* **peer (x_f)**: the same with the unit clause (x_f) added, f the variable in most clauses (NAE is unchanged by
  complementing every variable): the symmetry our route uses, given to the bare process too (beside the table, not
  the issue's measure);
* **ours**: ``exactrelu hardness decide INSTANCE.json -o CERT.json`` (U given = [1, 1], and U unknown), end to
  end: start-up and imports, the exact read, the decision, the independent check, the write; with a warm cache
  of compiled shapes (the first run of a machine fills it; docs/hardness.md) and, once, cold (an empty cache).
  Since issue 36 item 5 the command decides a reduction's image by its source formula (no shapes, no cache);
* **baseline** (``--baseline DIR``, a checkout of an older version): the same command run from DIR;
* **phases**: one more in-process run of ours: imports, read, each phase of the decision, write (CPU seconds).

Bytecode: the child processes may write ``__pycache__`` (the environment's PYTHONDONTWRITEBYTECODE is dropped for
them) and every tool runs once before it is timed, so no tool pays for compiling its sources (an installed
package has them compiled). The machine is shared: read the ratios within one row. Writes
benchmarks/results/bench_hardness_fixed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PEER = r"""
import sys
from pysat.solvers import Solver
clauses = []
for line in open(sys.argv[1]):
    if line[:1] in "cp" or not line.strip():
        continue
    c = [int(x) for x in line.split()[:-1]]
    clauses += [c, [-x for x in c]]
with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
    sat = s.solve()
    proof = s.get_proof()
print("sat" if sat else "unsat", len(proof))
"""
PEER_X1 = PEER.replace("with Solver(", """import collections
count = collections.Counter(abs(x) for c in clauses for x in set(c))
clauses.append([min(v for v in count if count[v] == max(count.values()))])
with Solver(""")

PHASES = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import exactrelu.cli as cli
cli.build_parser("hardness")  # the program builds the parser of `hardness` alone
from exactrelu.certificates.checker import load_instance
from exactrelu.decide.search.source import decide_source, write_json
out = {"import": time.process_time() - c0}
c = time.process_time()
inst = load_instance(sys.argv[1])  # the checker's reader: the route reads the file once
out["read"] = time.process_time() - c
c = time.process_time()
res = decide_source(inst, given=sys.argv[2] != "unknown")
out["decide"] = time.process_time() - c
c = time.process_time()
write_json(res.certificate, sys.argv[3])
out["write"] = time.process_time() - c
out["total_cpu"] = time.process_time() - c0
out["total_wall"] = time.perf_counter() - t0
out["status"] = res.status
out.update({k: v for k, v in res.evidence.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
print(json.dumps(out))
"""


def _env(pythonpath: str | None = None, cache: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    if cache:
        env["EXACTRELU_CACHE"] = cache
    return env


def timed(cmd: list[str], env: dict, cwd: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{cmd} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def median_run(cmd, env, cwd, repeats: int) -> dict:
    runs = [timed(cmd, env, cwd) for _ in range(repeats)]
    return {"wall": statistics.median(r[0] for r in runs), "cpu": statistics.median(r[1] for r in runs),
            "runs": [[round(r[0], 4), round(r[1], 4)] for r in runs], "out": runs[-1][2].strip()[-300:]}


def make_instances(folder: Path, sizes, seeds):
    from exactrelu.hardness import NaeToRelu, random_nae3, write_dimacs
    from exactrelu.instances import write_instance

    for N in sizes:
        for s in range(seeds):
            f = random_nae3(N, round(2.2 * N), seed=1000 * N + s)
            cnf, inst = folder / f"F{N}-{s}.cnf", folder / f"I{N}-{s}.json"
            write_dimacs(f, cnf)
            write_instance(NaeToRelu().apply(f)[0], inst)
            yield N, s, cnf, inst


def run(args) -> dict:
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="bench-hardness-fixed-"))
    warm_cache, cwd = str(work / "cache"), str(work)
    ours_env = _env(str(ROOT), warm_cache)
    base_env = _env(args.baseline, str(work / "cache-baseline")) if args.baseline else None
    rows = []
    for N, s, cnf, inst in make_instances(work, args.sizes, args.seeds):
        reps = args.repeats if N <= args.small else 1
        cert = str(work / "cert.json")
        peer_cmd = [py, "-c", PEER, str(cnf)]
        if N <= args.small:
            timed(peer_cmd, _env(), cwd)  # warm-up: bytecode and the page cache
        row = {"N": N, "seed": s, "M": round(2.2 * N), "peer": median_run(peer_cmd, _env(), cwd, reps),
               "peer_x1": median_run([py, "-c", PEER_X1, str(cnf)], _env(), cwd, reps)}
        small = N <= args.small
        for U in ("given", "unknown"):
            cli = [py, "-m", "exactrelu.cli", "hardness", "decide", str(inst), "-o", cert] + (
                ["--U", "1,1"] if U == "given" else [])
            if small:  # above, the solver dominates: no cold run, no warm-up (the shapes are the smaller N's)
                cold = str(work / f"cache-cold-{N}-{s}-{U}")
                row[f"cold_{U}"] = median_run(cli, _env(str(ROOT), cold), cwd, 1)  # an empty cache: compiles, fills
                timed(cli, ours_env, cwd)  # warm-up (fills the warm cache)
            row[f"ours_{U}"] = median_run(cli, ours_env, cwd, reps)
            if base_env is not None:
                if small:
                    timed(cli, base_env, cwd)
                row[f"baseline_{U}"] = median_run(cli, base_env, cwd, reps)
            _, _, out = timed([py, "-c", PHASES, str(inst), U, cert], ours_env, cwd)
            row[f"phases_{U}"] = json.loads(out.strip().splitlines()[-1])
        rows.append(row)
        print("  " + line(row, bool(args.baseline)), flush=True)
        Path(args.out).write_text(json.dumps({"partial": True, "rows": rows}, indent=1) + "\n")  # so far
    return {"sizes": args.sizes, "seeds": args.seeds, "repeats": args.repeats, "baseline": args.baseline,
            "python": sys.version.split()[0], "load_average": os.getloadavg(), "rows": rows}


def line(r: dict, baseline: bool) -> str:
    p = r["peer"]
    cells = [str(r["N"]), str(r["seed"]), f"{p['wall']:.2f} / {p['cpu']:.2f}"]
    if "peer_x1" in r:
        cells.append(f"{r['peer_x1']['wall']:.2f} / {r['peer_x1']['cpu']:.2f}")
    for U in ("given", "unknown"):
        o = r[f"ours_{U}"]
        cells.append(f"{o['wall']:.2f} / {o['cpu']:.2f}")
        cells.append(f"{o['wall'] / p['wall']:.1f}x / {o['cpu'] / p['cpu']:.1f}x")
        cells.append(f"{r[f'cold_{U}']['cpu']:.2f}" if f"cold_{U}" in r else "-")
        if baseline:
            b = r[f"baseline_{U}"]
            cells.append(f"{b['wall']:.2f} / {b['cpu']:.2f} ({b['cpu'] / o['cpu']:.1f}x)")
    return "| " + " | ".join(cells) + " |"


def header(baseline: bool) -> str:
    head = ["N", "seed", "peer wall / CPU s", "peer (x_f) wall / CPU s"]
    for U in ("given", "unknown"):
        head += [f"ours, U {U}: wall / CPU s", f"ours / peer (wall / CPU)", f"cold cache CPU s"]
        if baseline:
            head.append(f"before, U {U}: wall / CPU s (before / ours CPU)")
    return "| " + " | ".join(head) + " |\n|" + "---|" * len(head)


def phase_table(rows) -> str:
    keys = [("import", "imports"), ("read", "read"), ("solve_seconds", "SAT"), ("trim_seconds", "trim"),
            ("write_seconds", "certificate made"), ("check_seconds", "check"), ("write", "write"),
            ("total_cpu", "total CPU")]
    out = ["| N | seed | U | " + " | ".join(k[1] for k in keys) + " | shapes cached |", "|" + "---|" * (len(keys) + 4)]
    for r in rows:
        for U in ("given", "unknown"):
            ph = r[f"phases_{U}"]
            out.append(f"| {r['N']} | {r['seed']} | {U} | " + " | ".join(f"{ph.get(k, 0):.3f}" for k, _ in keys)
                       + f" | {ph.get('shapes_cached', 0)} |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 300])
    p.add_argument("--seeds", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3, help="runs per tool (median) for N <= --small; one above")
    p.add_argument("--small", type=int, default=200, help="above this N: one run per tool, no warm-up, no cold run")
    p.add_argument("--baseline", help="a checkout of an older exactrelu, run the same way (PYTHONPATH)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "bench_hardness_fixed.json"))
    p.add_argument("--table-only", action="store_true")
    args = p.parse_args(argv)
    if args.table_only:
        data = json.loads(Path(args.out).read_text())
    else:
        data = run(args)
        Path(args.out).write_text(json.dumps(data, indent=1) + "\n")
    print(header(bool(data["baseline"])))
    for r in data["rows"]:
        print(line(r, bool(data["baseline"])))
    print()
    print(phase_table(data["rows"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
