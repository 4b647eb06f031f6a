"""Certified recovery at scale: wall, phases, peak memory and the independent check's share, one size per process.

    python benchmarks/bench_scale.py                       # (50,10,10,2e4), (200,20,20,2e4), (100,50,50,1e5)
    python benchmarks/bench_scale.py --sizes 200,20,20,20000
    python benchmarks/bench_scale.py --workers 2           # also the check in 2 forked workers
    python benchmarks/bench_scale.py --reference           # the library's own check by the reference checker
    python benchmarks/bench_scale.py --torch --fit         # PyTorch beside each size, and the noisy fit at n = 10^6
    python benchmarks/bench_scale.py --stream 10000000     # (20,5,5,n) from an .npz: recover + check, two processes

For each (d, k, m, n): a planted Gaussian instance (integer weights, float64 inputs taken exactly), exactrelu's
``recover`` from the float64 inputs and exact labels (proposal, exact phase, certificate, independent check,
timed by the library: the fast checker, or with ``--reference`` the standard-library one), then the same certificate
checked again, as the library's own check hands it over, by the fast checker and by the reference on 1, 2 and all
usable cores (``--workers`` sets the middle count): wall and CPU (this process and its forked workers), and the
machine's runnable tasks before each size (``/proc/loadavg``: the machine may be shared). Each size runs in a fresh
process: its peak resident memory (``ru_maxrss``) is that size's alone. Prints a table and writes
benchmarks/results/bench_scale.json.

``--torch``: PyTorch on the same instance in its own process, right after ours (bench_proposers.torch_train: Adam,
then L-BFGS to relative error 1e-12, capped by ``--torch-cap`` seconds, one thread), and the ratio of the walls.
``--fit``: the noisy ``fit`` (issue 25): (d, k, m) = (10, 3, 5), n = 10^6, float64 inputs and labels (as an .npz
holds them, noise sigma = 0.05), ``fit`` with its residual certificate and the independent check; phases, the check's
share and peak memory; then, in the same process, the exact residual again by the previous in-memory FLINT
computation (``exact_residual(..., method="flint", chunk=n)``), the peer of the streamed one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZES = [(50, 10, 10, 20000), (200, 20, 20, 20000), (100, 50, 50, 100000)]
FIT_SIZE = (10, 3, 5, 1_000_000)  # bench_noisy.py's (10, 3, 5) at n = 10^6, where the exact residual took 106 s


def one(d: int, k: int, m: int, n: int, workers: int) -> dict:
    """Run one size in this process; the row of the table."""
    from exactrelu.instances import planted
    from exactrelu.recover import recover

    t0 = time.perf_counter()
    inst = planted(d=d, k=k, m=m, n=n, seed=1)
    floats = inst.float_inputs()
    t_make = time.perf_counter() - t0
    load = _load()
    t0, c0 = time.perf_counter(), time.process_time()
    res = recover(floats, inst.labels, k=k, init="auto", random_state=0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert res.network.equivalent(inst.planted)
    T = dict(res.timings)
    exact = sum(T.get(p, 0.0) for p in ("conversion", "rank", "units", "hidden", "output"))
    row = {"size": [d, k, m, n], "wall": wall, "cpu": cpu, "instance_s": t_make, "proposal": T.get("proposal", 0.0),
           "exact_phase": exact, "certificate": T.get("certificate", 0.0), "check": T.get("independent_check", 0.0),
           "timings": T, "load_before": load, "checker": os.environ.get("EXACTRELU_CHECKER", "fast")}
    row["check_share"] = row["check"] / wall
    row["rechecks"] = rechecks(res.certificate, res.instance if hasattr(res, "instance") else inst, workers)
    row["recheck_1"] = row["rechecks"]["reference 1"]
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return row


def _load() -> str:
    """The machine's load as /proc/loadavg states it (1, 5, 15-minute averages, runnable/total tasks)."""
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return "unknown"


def rechecks(cert: dict, inst, workers: int) -> dict:
    """The certificate checked again, as the library's own check hands the instance over, by the fast checker and by
    the reference, on 1, ``workers`` and all usable cores: {"fast 1": {"wall", "cpu"}, ...}; CPU seconds count this
    process and the forked workers (reaped when their pool closes)."""
    from exactrelu import blas
    from exactrelu.certificates import checker, fast
    from exactrelu.instances.checker_view import checker_instance, fast_instance
    from exactrelu.parallel import usable_cores

    counts = sorted({1, workers, usable_cores()})
    out = {}
    for name in ("fast", "reference"):
        for w in counts:
            data = fast_instance(inst) if name == "fast" else checker_instance(inst)
            t0, c0 = time.perf_counter(), _cpu()
            with blas.fixed_threads(1 if w > 1 or name == "fast" else None):
                verdict = (fast.check(cert, data, w) if name == "fast" else
                           checker.check_parallel(cert, data, w) if w > 1 else checker.check(cert, data))
            out[f"{name} {w}"] = {"wall": time.perf_counter() - t0, "cpu": _cpu() - c0, "verdict": verdict}
    assert len({r["verdict"] for r in out.values()}) == 1, out
    return out


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def noisy_floats(d: int, k: int, m: int, n: int, sigma: float = 0.05, seed: int = 1):
    """float64 inputs and labels as an .npz holds them: Gaussian inputs, integer weights in [-3, 3], labels
    ``relu(X V^T) U^T`` plus Gaussian noise of standard deviation ``sigma``, rounded to float64."""
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    V = rng.integers(-3, 4, (k, d)).astype(np.float64)
    U = rng.integers(-3, 4, (m, k)).astype(np.float64)
    return X, np.maximum(X @ V.T, 0.0) @ U.T + sigma * rng.standard_normal((n, m))


def one_fit(d: int, k: int, m: int, n: int, workers: int = 1) -> dict:
    """The noisy fit in this process: ``fit`` with certificate and check, the check again in ``workers`` processes,
    then the in-memory FLINT residual peer."""
    from exactrelu.certificates.claims.residual import exact_residual
    from exactrelu.fit import fit
    from exactrelu.instances import Instance

    t0 = time.perf_counter()
    X, Y = noisy_floats(d, k, m, n)
    inst = Instance.from_arrays(X, Y)
    t_make = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    res = fit(inst, k, random_state=0, noise=0.05)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    T = dict(res.timings)
    row = {"kind": "fit", "size": [d, k, m, n], "wall": wall, "cpu": cpu, "instance_s": t_make, "timings": T,
           "float_stages": sum(st.seconds for st in res.stages), "exact_residual": T["exact residual"],
           "certificate": T.get("certificate", 0.0), "check": T.get("independent_check", 0.0),
           "relative_error": res.residual.relative(), "checked": res.checked}
    row["check_share"] = row["check"] / wall
    row["residual_and_check"] = row["exact_residual"] + row["check"]
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    from exactrelu.certificates import checker
    from exactrelu.instances.checker_view import checker_instance

    t0, c0 = time.perf_counter(), time.process_time()  # the same certificate checked again: its CPU seconds
    checker.check(res.certificate, dict(checker_instance(inst)))
    row["recheck_1"] = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}
    if workers > 1:  # and in forked workers (checker --workers)
        t0 = time.perf_counter()
        checker.check_parallel(res.certificate, dict(checker_instance(inst)), workers)
        row[f"recheck_{workers}"] = {"wall": time.perf_counter() - t0}
    t0, c0 = time.perf_counter(), time.process_time()
    peer = exact_residual(res.network, inst, max_listed=0, method="flint", chunk=n)  # the previous computation
    row["flint_in_memory"] = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                              "equal": peer == res.residual,
                              "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    return row


def one_torch(d: int, k: int, m: int, n: int, cap: float) -> dict:
    """PyTorch on the instance of :func:`one` (same seed): bench_proposers' Adam then L-BFGS to 1e-12, capped."""
    from bench_proposers import torch_train
    from exactrelu.instances import planted

    inst = planted(d=d, k=k, m=m, n=n, seed=1)
    X, Y = inst.float_inputs(), inst.float_labels()
    c0 = time.process_time()
    seconds, err, ok = torch_train(X, Y, k, seed=0, cap=cap)
    return {"wall": seconds, "cpu": time.process_time() - c0, "rel_error": err, "reached": ok, "cap": cap}


def _subprocess_row(flag: str, size, extra: list, env: dict) -> dict | str:
    """Run ``--FLAG size`` in a fresh process; its JSON row, or the last line of its error."""
    proc = subprocess.run([sys.executable, __file__, flag, ",".join(map(str, size)), *extra], capture_output=True,
                          text=True, env=env)
    if proc.returncode != 0:
        return (proc.stderr.strip().splitlines() or ["(no output)"])[-1][:160]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def print_summary(rows: list) -> None:
    """The issue-25 table: ours end to end (CPU), phases, check share, peak MB, PyTorch beside it, ratio."""
    print("\n| (d,k,m,n) | ours end to end s (CPU s) | phases s | check share | peak MB | PyTorch wall s, rel. error "
          "reached | ratio ours/PyTorch |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        d, k, m, n = r["size"]
        if r.get("kind") == "fit":
            phases = (f"float {r['float_stages']:.1f}, exact residual {r['exact_residual']:.1f}, certificate "
                      f"{r['certificate']:.1f}, check {r['check']:.1f}")
            torch = "- (noisy labels: 1e-12 is below the noise)"
        else:
            phases = (f"proposal {r['proposal']:.1f}, exact {r['exact_phase']:.1f}, certificate {r['certificate']:.1f}, "
                      f"check {r['check']:.1f}")
            t = r.get("torch")
            torch = "not run" if t is None else (t if isinstance(t, str) else
                                                 f"{t['wall']:.1f}, {t['rel_error']:.1e}" + ("" if t["reached"] else
                                                                                              f" (not reached, cap {t['cap']:.0f} s)"))
        ratio = f"{r['wall'] / r['torch']['wall']:.2f}" if isinstance(r.get("torch"), dict) else "-"
        name = "fit " if r.get("kind") == "fit" else ""
        print(f"| {name}({d},{k},{m},{n}) | {r['wall']:.1f} ({r['cpu']:.1f}) | {phases} | {100 * r['check_share']:.0f}% | "
              f"{r['peak_rss_mb']:.0f} | {torch} | {ratio} |", flush=True)


def make_npz(path: str, n: int, d: int = 20, k: int = 5, m: int = 5, bits: int = 20, seed: int = 1) -> None:
    """A planted (d, k, m, n) instance as a stored .npz: Gaussian inputs rounded to multiples of 2^-bits, integer
    weights in [-3, 3], labels computed in float64 and exact there (every partial sum is a multiple of 2^-bits below
    2^(53 - bits) in magnitude, so no float operation rounds; the recovery and the checker verify it anyway)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    V = rng.integers(-3, 4, (k, d)).astype(np.float64)
    U = rng.integers(-3, 4, (m, k)).astype(np.float64)
    while np.linalg.matrix_rank(U) < k:
        U = rng.integers(-3, 4, (m, k)).astype(np.float64)
    X, Y = np.empty((n, d)), np.empty((n, m))
    for a in range(0, n, 1 << 20):
        x = np.ldexp(np.round(np.ldexp(rng.standard_normal((min(1 << 20, n - a), d)), bits)), -bits)
        X[a:a + len(x)], Y[a:a + len(x)] = x, np.maximum(x @ V.T, 0) @ U.T
    np.savez(path, inputs=X, labels=Y)


def stream_row(n: int, workdir: str | None = None) -> dict:
    """The (20, 5, 5, n) row from an .npz file: ``exactrelu recover --json`` (streaming: the exact phase on a subset,
    every sample verified in blocks, no in-process check) and ``exactrelu check`` (the independent checker, reading
    the .npz a block of rows at a time), each in its own process: wall, CPU, phases and peak RSS of each."""
    import tempfile

    tmp = Path(workdir or tempfile.mkdtemp())
    path, cert = tmp / f"scale_{n}.npz", tmp / f"scale_{n}.cert.json"
    t0 = time.perf_counter()
    if not path.exists():  # in a process of its own: a child's peak RSS (wait4's ru_maxrss) starts at its parent's,
        # so a parent that held the arrays would give both measured commands its own 2 GB peak (the 10^7 rows of
        # issue 25's second and third sessions: 2.26 and 2.18 GB were this process's, not theirs)
        subprocess.run([sys.executable, __file__, "--make-npz", f"{path},{n}"], check=True)
    row = {"size": [20, 5, 5, n], "streamed": True, "instance_s": time.perf_counter() - t0,
           "file_mb": path.stat().st_size / 2**20}
    env = dict(os.environ)  # no limit to raise: honest sizes are limited by memory only (issue 34)
    exe = [sys.executable, "-c", "import sys; from exactrelu.cli import main; sys.exit(main())"]
    for name, args in (("recover", ["recover", str(path), "-k", "5", "-o", str(cert), "--no-check", "--json"]),
                       ("check", ["check", str(cert), str(path), "--json"])):
        t0 = time.perf_counter()
        proc = subprocess.Popen(exe + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        out, err = proc.stdout.read(), proc.stderr.read()  # (small: a JSON record, progress lines)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        record = json.loads(out) if out.strip().startswith("{") else {"error": err.strip()[-300:]}
        row[name] = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024,
                     "exit": proc.returncode, "timings": record.get("timings"), "result": record.get("summary") or
                     record.get("checked") or record.get("message")}
    return row


def print_row(r: dict, workers: int) -> None:
    d, k, m, n = r["size"]
    checks = " | ".join(f"{v['wall']:.2f} ({v['cpu']:.2f})" for v in r["rechecks"].values())
    print(f"| ({d},{k},{m},{n}) | {r['wall']:.2f} | {r['proposal']:.2f} | {r['exact_phase']:.2f} | "
          f"{r['certificate']:.2f} | {r['check']:.2f} ({100 * r['check_share']:.0f}%, {r['checker']}) | {checks} | "
          f"{r['peak_rss_mb']:.0f} | {r['load_before']} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", help="d,k,m,n (default: the three sizes above; none with --only-fit)")
    ap.add_argument("--workers", type=int, default=2, help="processes for the middle re-checks (default 2)")
    ap.add_argument("--reference", action="store_true", help="the library's own check by the reference checker "
                    "(EXACTRELU_CHECKER=reference in the size's process)")
    ap.add_argument("--torch", action="store_true", help="PyTorch beside each size, in its own process")
    ap.add_argument("--torch-cap", type=float, default=300.0, help="PyTorch's time cap per size, seconds (default 300)")
    ap.add_argument("--fit", action="store_true", help="also the noisy fit at (10, 3, 5, 10^6)")
    ap.add_argument("--only-fit", action="store_true", help="only the noisy fit")
    ap.add_argument("--stream", type=int, metavar="N", help="only the (20,5,5,N) row from an .npz, streamed")
    ap.add_argument("--workdir", help="with --stream: where the .npz is made (kept; reused when present)")
    ap.add_argument("--make-npz", help=argparse.SUPPRESS)  # internal: PATH,N, the (20,5,5,N) .npz of --stream
    ap.add_argument("--one", help=argparse.SUPPRESS)  # internal: run one size, print its row as JSON
    ap.add_argument("--one-fit", help=argparse.SUPPRESS)
    ap.add_argument("--one-torch", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make_npz:
        where, count = args.make_npz.rsplit(",", 1)
        make_npz(where, int(count))
        return
    if args.one:
        print(json.dumps(one(*map(int, args.one.split(",")), args.workers)))
        return
    if args.stream:
        row = stream_row(args.stream, args.workdir)
        for name in ("recover", "check"):
            r = row[name]
            print(f"{name}: wall {r['wall']:.1f} s, cpu {r['cpu']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB, exit "
                  f"{r['exit']}, {r['result']}; phases {r['timings']}")
        out = Path(__file__).parent / "results" / "bench_scale_stream.json"
        old = json.loads(out.read_text()) if out.exists() else []
        out.write_text(json.dumps([r for r in old if r["size"] != row["size"]] + [row], indent=1))
        print(f"saved {out}")
        return
    if args.one_fit:
        print(json.dumps(one_fit(*map(int, args.one_fit.split(",")), args.workers)))
        return
    if args.one_torch:
        print(json.dumps(one_torch(*map(int, args.one_torch.split(",")), args.torch_cap)))
        return
    sizes = [tuple(map(int, s.split(","))) for s in args.sizes] if args.sizes else ([] if args.only_fit else SIZES)
    from exactrelu.parallel import usable_cores

    counts = sorted({1, args.workers, usable_cores()})
    heads = " | ".join(f"{name} {w} s (CPU)" for name in ("fast", "reference") for w in counts)
    print(f"| (d,k,m,n) | end to end s | proposal s | exact phase s | certificate s | independent check s (share, "
          f"checker) | {heads} | peak RSS MB | load before |")
    print("|---|---|---|---|---|---|" + "---|" * (2 * len(counts)) + "---|---|")
    rows = []
    for size in sizes:
        d, k, m, n = size
        env = dict(os.environ)  # the default limits (issue 34: the benchmark sizes need no variable)
        if args.reference:
            env["EXACTRELU_CHECKER"] = "reference"
        row = _subprocess_row("--one", size, ["--workers", str(args.workers)], env)
        if isinstance(row, str):
            print(f"| {size} | failed: {row[:100]} |", flush=True)
            continue
        rows.append(row)
        print_row(rows[-1], args.workers)
        if args.torch:
            rows[-1]["torch"] = _subprocess_row("--one-torch", size, ["--torch-cap", str(args.torch_cap)], env)
    if args.fit or args.only_fit:
        d, k, m, n = FIT_SIZE
        env = dict(os.environ)
        row = _subprocess_row("--one-fit", FIT_SIZE, ["--workers", str(args.workers)], env)
        if isinstance(row, str):
            print(f"| fit {FIT_SIZE} | failed: {row[:100]} |", flush=True)
        else:
            rows.append(row)
    print_summary(rows)
    out = Path(__file__).parent / "results" / "bench_scale.json"
    old = json.loads(out.read_text()) if out.exists() else []  # rows of other sizes are kept

    def key(r: dict) -> tuple:
        return r.get("kind", "recover"), tuple(r["size"])

    done = {key(r) for r in rows}
    out.write_text(json.dumps([r for r in old if key(r) not in done] + rows, indent=1))
    print(f"saved {out}")


if __name__ == "__main__":
    main()
