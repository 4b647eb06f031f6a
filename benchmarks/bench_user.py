"""Certified recovery as a user runs it (issue 36): ``exactrelu recover FILE.npz -k K`` as a process, the checks
of its certificate, PyTorch on the same file, and the numpy -> FLINT conversion's cost per entry.

    python benchmarks/bench_user.py                          # (200,20,20,2e4) and (100,50,50,1e5)
    python benchmarks/bench_user.py --sizes 50,10,10,20000 --torch-cap 60
    python benchmarks/bench_user.py --conversion-only        # the conversion's ns per entry only
    python benchmarks/bench_user.py --peer /path/to/main --rounds 2   # recover and check: another checkout vs this

For each (d, k, m, n): a planted instance stored as an .npz (bench_scale.make_npz: Gaussian inputs rounded to
multiples of 2^-20, integer weights in [-3, 3], labels exact in float64), made in a process of its own; then, each
a fresh process timed from outside (wall; CPU and peak RSS from ``wait4``, the process's own and its children's
that it waited for; the one-minute load average before each; bytecode compiled once before, as an installed
package has it):

* ``recover``: ``exactrelu recover FILE.npz -k K -o CERT --json``, the default settings (reading, streaming above
  4M entries, exact phase, every sample verified, certificate written, the independent check);
* ``recover_1core`` (and ``recover_2core`` on machines of more than 2 cores): the same command with its CPU
  affinity cut to 1 (2) cores, which the library's worker counts read (issue 36 item 3: 1, 2 and all cores);
* ``check``: ``exactrelu check CERT FILE.npz`` (the library's default check of that certificate) and
  ``check --workers 1`` (one process);
* ``reference``: ``exactrelu check --reference`` when the installed version has that flag (issue 36 item 2);
* ``conversions``: the recovery again without the check, in one process, every numpy -> FLINT conversion counted
  (entries, seconds, where);
* ``torch``: PyTorch float64 (bench_proposers.torch_train: Adam, then L-BFGS to relative error 1e-12, capped by
  ``--torch-cap`` seconds, one thread) on the same file's arrays.

Always, first and in a process of its own: the numpy -> FLINT conversion of arrays of the largest size, ns per entry
(``QMatrix.from_numpy(a).num``, the best of 3). Writes benchmarks/results/bench_user.json.
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
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

SIZES = [(200, 20, 20, 20000), (100, 50, 50, 100000)]
EXE = [sys.executable, "-c", "import sys; from exactrelu.cli import main; sys.exit(main())"]


#: the children's environment: bytecode may be written (an installed package has its sources compiled; the
#: session's PYTHONDONTWRITEBYTECODE made every timed process compile the package, 0.3-0.4 s)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def warm() -> None:
    """Compile the package's sources once (as an installed package has them), so no timed process pays for it."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "exactrelu")], env=ENV, check=True)


def timed(cmd: list[str], cores: int | None = None, env: dict | None = None, cwd: str | None = None) -> dict:
    """Run ``cmd`` (on the first ``cores`` CPUs only when given: its affinity, which the library's worker counts
    read); wall, CPU (user + system, its waited-for children included) and peak RSS from ``wait4``, the exit status,
    stdout's JSON record and the one-minute load average before it started."""
    pin = None if cores is None else (lambda: os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:cores]))
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env or ENV, preexec_fn=pin,
                                cwd=cwd)
        out = proc.stdout.read()  # a JSON record: small
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        message = err.read()
    row = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024,
           "exit": proc.returncode, "load_before": load}
    try:
        row["record"] = json.loads(out) if out.strip().startswith("{") else None
    except json.JSONDecodeError:
        row["record"] = None
    if proc.returncode:
        row["error"] = (message.strip() or out.strip())[-300:]
    return row


def torch_row(npz: str, k: int, cap: float) -> dict:
    """PyTorch on the .npz's arrays, in this (fresh) process."""
    import numpy as np
    from bench_proposers import torch_train

    with np.load(npz) as f:
        X, Y = f["inputs"], f["labels"]
    seconds, err, ok = torch_train(X, Y, k, seed=0, cap=cap)
    return {"wall": seconds, "rel_error": err, "reached": bool(ok), "cap": cap}


def conversion_row(d: int, m: int, n: int) -> dict:
    """ns per entry of the numpy -> FLINT conversion of Gaussian float64 inputs and of exact integer-valued labels."""
    import numpy as np
    from exactrelu.exact.matrix import QMatrix

    rng = np.random.default_rng(1)
    arrays = {"inputs, Gaussian float64": rng.standard_normal((n, d)),
              "inputs, multiples of 2^-20": np.ldexp(np.round(np.ldexp(rng.standard_normal((n, d)), 20)), -20),
              "labels, integers below 2^20": np.round(rng.standard_normal((n, m)) * 2**18)}
    out = {}
    for name, a in arrays.items():
        best = []
        for _ in range(3):
            Q = QMatrix.from_numpy(a, lazy=True)
            t0 = time.perf_counter()
            Q.num  # noqa: B018 - the conversion measured
            best.append(time.perf_counter() - t0)
        out[name] = {"entries": a.size, "bits": Q.float_source[2], "ns_per_entry": 1e9 * min(best) / a.size}
    return out


def size_row(d: int, k: int, m: int, n: int, tmp: Path, cap: float, reference: bool) -> dict:
    npz, cert = tmp / f"user_{d}_{k}_{m}_{n}.npz", tmp / f"user_{d}_{k}_{m}_{n}.cert.json"
    subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(HERE)!r}); import bench_scale; "
                    f"bench_scale.make_npz({str(npz)!r}, {n}, d={d}, k={k}, m={m})"], check=True)
    row = {"size": [d, k, m, n], "file_mb": npz.stat().st_size / 2**20}
    row["recover"] = timed(EXE + ["recover", str(npz), "-k", str(k), "-o", str(cert), "--json"])
    for cores in (1, 2):  # the same command on 1 and 2 of the machine's cores (its affinity); "all" is the above
        if cores < len(os.sched_getaffinity(0)) or cores == 1:
            other = cert.with_suffix(f".{cores}core.json")
            row[f"recover_{cores}core"] = timed(EXE + ["recover", str(npz), "-k", str(k), "-o", str(other), "--json"],
                                                cores)
            # the same verdict and the same certificate (but its provenance: the command line names the output)
            row[f"recover_{cores}core"]["same_certificate"] = other.exists() and _claim(other) == _claim(cert)
    row["check"] = timed(EXE + ["check", str(cert), str(npz), "--json"])
    row["check_1"] = timed(EXE + ["check", str(cert), str(npz), "--workers", "1", "--json"])
    if reference:
        row["reference"] = timed(EXE + ["check", "--reference", str(cert), str(npz), "--json"])
    proc = subprocess.run([sys.executable, __file__, "--count", f"{npz},{k}"], capture_output=True, text=True)
    ok = proc.returncode == 0
    row["conversions"] = json.loads(proc.stdout.strip().splitlines()[-1]) if ok else proc.stderr[-200:]
    proc = subprocess.run([sys.executable, __file__, "--one-torch", f"{npz},{k},{cap}"], capture_output=True,
                          text=True)
    row["torch"] = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else proc.stderr[-200:]
    return row


def _claim(path: Path) -> dict:
    """A certificate without its provenance (which names the command line)."""
    return {k: v for k, v in json.loads(path.read_text()).items() if k != "provenance"}


def count_conversions(npz: str, k: int) -> dict:
    """``recover NPZ -k K --no-check`` in this process, every numpy -> FLINT conversion counted: entries, seconds and
    where (QMatrix.num of float64 or limb matrices, and the row views' blocks)."""
    import contextlib
    import io

    from exactrelu import cli
    from exactrelu.exact import matrix
    from exactrelu.exact.codecs import limbs
    from exactrelu.recover import views

    seen: dict = {}

    def counted(module, name: str) -> None:
        f = getattr(module, name)

        def wrapper(*a, **kw):
            t0 = time.perf_counter()
            out = f(*a, **kw)
            row = seen.setdefault(f"{module.__name__.split('.')[-1]}.{name}", [0, 0, 0.0])
            row[0], row[1], row[2] = row[0] + 1, row[1] + out.nrows() * out.ncols(), row[2] + time.perf_counter() - t0
            return out
        setattr(module, name, wrapper)

    counted(matrix, "convert_scaled")
    counted(limbs, "to_fmpz_mat")
    counted(views, "fmpz_mat_from_scaled")
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        t0 = time.perf_counter()
        code = cli.main(["recover", npz, "-k", str(k), "-o", str(Path(tmp) / "c.json"), "--no-check", "--json"])
        wall = time.perf_counter() - t0
    return {"exit": code, "wall": wall, "entries": sum(v[1] for v in seen.values()),
            "seconds": sum(v[2] for v in seen.values()),
            "where": {k: {"calls": v[0], "entries": v[1], "seconds": v[2]} for k, v in seen.items()}}


def peer_rows(d: int, k: int, m: int, n: int, peer: str, rounds: int) -> list:
    """``recover FILE.npz -k K`` and ``check`` (its default workers and one) by another checkout (``PYTHONPATH`` =
    ``peer``: "before") and by this tree ("after"), interleaved, ``rounds`` times, on one file: the ratios of one
    run."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        npz = Path(tmp) / "peer.npz"
        subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(HERE)!r}); import bench_scale; "
                        f"bench_scale.make_npz({str(npz)!r}, {n}, d={d}, k={k}, m={m})"], check=True)
        for _ in range(rounds):
            for name, env in (("before", {**ENV, "PYTHONPATH": peer}), ("after", ENV)):
                cert = Path(tmp) / f"{name}.json"
                # run in the temporary directory: "-c" puts the working directory first on sys.path, before PYTHONPATH
                row = timed(EXE + ["recover", str(npz), "-k", str(k), "-o", str(cert), "--json"], env=env, cwd=tmp)
                T = (row.get("record") or {}).get("timings") or {}
                check = T.get("independent_check", float("nan"))
                line = {"version": name, "recover": row, "check_share": check / row["wall"]}
                for workers in ([], ["--workers", "1"]):
                    line["check" + "".join(workers)] = timed(EXE + ["check", str(cert), str(npz)] + workers, env=env,
                                                             cwd=tmp)
                rows.append(line)
                print(f"{name}: recover {row['wall']:.1f} s ({row['cpu']:.1f} CPU, load {row['load_before']:.1f}), "
                      f"check {check:.1f} s = {line['check_share']:.0%}; check {line['check']['wall']:.1f} "
                      f"({line['check']['cpu']:.1f}), one process {line['check--workers1']['wall']:.1f} "
                      f"({line['check--workers1']['cpu']:.1f}); peak {row['peak_rss_mb']:.0f} MB", flush=True)
    return rows


def has_reference() -> bool:
    proc = subprocess.run(EXE + ["check", "--help"], capture_output=True, text=True)
    return "--reference" in proc.stdout


def print_table(rows: list) -> None:
    print("\n| (d,k,m,n) | recover FILE.npz -k K (CPU) | its phases | on 1 core (CPU) | check (CPU) | check, 1 process "
          "| reference | peak MB | PyTorch wall, rel. error | ours / PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        rec = r["recover"]
        T = (rec.get("record") or {}).get("timings") or {}
        phases = ", ".join(f"{k} {v:.1f}" for k, v in T.items() if isinstance(v, (int, float)) and v >= 0.05)
        record = rec.get("record") or {}
        phases += f"; subset {record.get('subset')}" + (f" after {record['subsets_tried']}" if record.get(
            "subsets_tried") else "")
        t = r["torch"]
        torch = t if isinstance(t, str) else f"{t['wall']:.1f}, {t['rel_error']:.1e}" + (
            "" if t["reached"] else f" (not reached, cap {t['cap']:.0f})")
        ref = f"{r['reference']['wall']:.1f}" if "reference" in r else "-"
        ratio = f"{rec['wall'] / t['wall']:.2f}" if isinstance(t, dict) else "-"
        conv = r["conversions"]
        if isinstance(conv, dict):
            print(f"  numpy -> FLINT in recover --no-check {r['size']}: {conv['entries']:,} entries, "
                  f"{conv['seconds']:.2f} s of {conv['wall']:.1f} s; {conv['where']}")
        one = r.get("recover_1core")
        one = f"{one['wall']:.1f} ({one['cpu']:.1f}), same certificate: {one.get('same_certificate')}" if one else "-"
        print(f"| ({','.join(map(str, r['size']))}) | {rec['wall']:.1f} ({rec['cpu']:.1f}) exit {rec['exit']} | "
              f"{phases} | {one} | {r['check']['wall']:.1f} ({r['check']['cpu']:.1f}) | {r['check_1']['wall']:.1f} | "
              f"{ref} | "
              f"{rec['peak_rss_mb']:.0f} | {torch} | {ratio} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", help="d,k,m,n (default: the two sizes of issue 36)")
    ap.add_argument("--torch-cap", type=float, default=300.0, help="PyTorch's cap per size, seconds (default 300)")
    ap.add_argument("--conversion-only", action="store_true", help="only the conversion's ns per entry")
    ap.add_argument("--peer", help="a checkout of another version: recover and check by it and by this tree, "
                                   "interleaved, at the largest size (nothing else)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of --peer (default 2)")
    ap.add_argument("--one-torch", help=argparse.SUPPRESS)  # internal: NPZ,K,CAP
    ap.add_argument("--count", help=argparse.SUPPRESS)  # internal: NPZ,K
    ap.add_argument("--conversion", help=argparse.SUPPRESS)  # internal: D,M,N
    args = ap.parse_args()
    if args.count:
        npz, k = args.count.rsplit(",", 1)
        print(json.dumps(count_conversions(npz, int(k))))
        return
    if args.one_torch:
        npz, k, cap = args.one_torch.rsplit(",", 2)
        print(json.dumps(torch_row(npz, int(k), float(cap))))
        return
    sizes = [tuple(map(int, s.split(","))) for s in args.sizes] if args.sizes else SIZES
    if args.peer:
        warm()
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(args.peer) / "exactrelu")], env=ENV,
                       check=True)
        rows = peer_rows(*max(sizes, key=lambda s: s[3]), args.peer, args.rounds)
        (HERE / "results" / "bench_user_peer.json").write_text(json.dumps(rows, indent=1))
        return
    if args.conversion:
        print(json.dumps(conversion_row(*map(int, args.conversion.split(",")))))
        return
    d, _, m, n = max(sizes, key=lambda s: s[3])
    # in a process of its own: a child's peak RSS (wait4) starts at its parent's, and these arrays take 2 GB
    proc = subprocess.run([sys.executable, __file__, "--conversion", f"{d},{m},{n}"], capture_output=True, text=True,
                          check=True)
    result = {"loadavg_before": os.getloadavg(), "conversion": json.loads(proc.stdout.strip().splitlines()[-1])}
    for name, c in result["conversion"].items():
        print(f"numpy -> FLINT, {name}: {c['ns_per_entry']:.0f} ns per entry ({c['entries']:,} entries, "
              f"{c['bits']} bits)", flush=True)
    rows = []
    if not args.conversion_only:  # (this process holds no large array: its children's peak RSS is their own)
        reference = has_reference()
        warm()
        with tempfile.TemporaryDirectory() as tmp:
            for size in sizes:
                rows.append(size_row(*size, Path(tmp), args.torch_cap, reference))
                print(json.dumps({k: v for k, v in rows[-1].items()})[:400], flush=True)
        print_table(rows)
    result["rows"], result["loadavg_after"] = rows, os.getloadavg()
    out = HERE / "results" / "bench_user.json"
    out.write_text(json.dumps(result, indent=1))
    print(f"load average before {result['loadavg_before']}, after {result['loadavg_after']}; saved {out}")


if __name__ == "__main__":
    main()
