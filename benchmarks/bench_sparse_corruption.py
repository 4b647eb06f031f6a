"""The sparse-corruption route at m = 4k: which fraction of corrupted label entries it recovers, for k = 6, 8, 10.

For each k: planted networks (d = 20, m = 4k, n = 5000, Gaussian inputs, seeds 0..S-1), a fraction p of the
label entries replaced (``exactrelu.instances.corruption.corrupt``), then ``recover(..., sparse_noise=True)``.
A run counts as recovered when the certificate is ``realizes-except``, the network equals the planted one in
canonical form and the excepted entries are exactly the corrupted ones (the checker verified the certificate
inside ``recover``). p grows until every seed fails. Seconds are wall-clock on a shared 2-core machine: compare
them only within one run.

Usage: python benchmarks/bench_sparse_corruption.py [--quick] [--seeds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _lp_peers import save, table  # noqa: E402

from exactrelu.errors import ExactReluError  # noqa: E402
from exactrelu.instances import planted  # noqa: E402
from exactrelu.instances.corruption import corrupt  # noqa: E402
from exactrelu.recover import recover  # noqa: E402


def run(k: int, p: float, seed: int, n: int, d: int) -> tuple[str, float]:
    clean = planted(d=d, k=k, m=4 * k, n=n, seed=seed)
    bad = corrupt(clean, p, seed=seed)
    t = time.perf_counter()
    try:
        res = recover(bad, k=k, sparse_noise=True, random_state=seed)
    except ExactReluError as exc:
        return f"refused ({type(exc).__name__})", time.perf_counter() - t
    exact = (res.certificate["claim"] == "realizes-except" and res.network.equivalent(clean.planted)
             and res.except_entries == [tuple(e) for e in bad.meta["corrupted"]])
    return ("recovered" if exact else "WRONG?!"), time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="k = 6 only, n = 2000, two fractions")
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    ks, n, d = ((6,), 2000, 20) if args.quick else ((6, 8, 10), 5000, 20)
    fractions = (0.05, 0.1) if args.quick else (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35)
    rows = []
    for k in ks:
        for p in fractions:
            outcomes = [run(k, p, seed, n, d) for seed in range(args.seeds)]
            good = sum(o == "recovered" for o, _ in outcomes)
            rows.append([k, 4 * k, f"{p:.2f}", f"{good}/{args.seeds}", ", ".join(sorted({o for o, _ in outcomes})),
                         f"{sum(s for _, s in outcomes) / len(outcomes):.1f}"])
            print(rows[-1], flush=True)
            if good == 0:
                break
    headers = ["k", "m", "corrupted fraction", "recovered", "outcomes", "seconds per run (mean)"]
    text = table(rows, headers)
    print(text)
    save("bench_sparse_corruption" + ("_quick" if args.quick else ""), rows, headers, text)


if __name__ == "__main__":
    main()
