"""The sparse-corruption route at m = 4k: which fraction of corrupted label entries it recovers, for k = 6, 8, 10.

For each k: planted networks (d = 20, m = 4k, n = 5000, Gaussian inputs, seeds 0..S-1), a fraction p of the
label entries replaced (``exactrelu.instances.corruption.corrupt``), then ``recover(..., sparse_noise=True)``.
A run counts as recovered when the certificate is ``realizes-except``, the network equals the planted one in
canonical form and the excepted entries are exactly the corrupted ones (the checker verified the certificate
inside ``recover``). p grows until every seed fails. Each row also gives the bound the certificate carries
(``max_except``: by default the route's decoding radius, ``default_max_except``) and, for refusals, their reason.
The last table states, per k, the largest fraction at which every seed was recovered. Seconds are wall-clock on a
shared 2-core machine: compare them only within one run.

Usage: python benchmarks/bench_sparse_corruption.py [--quick] [--seeds 3] [--ks 6,8,10] [--n 5000]
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


def run(k: int, p: float, seed: int, n: int, d: int) -> tuple[str, float, str]:
    """(outcome, seconds, the certificate's max_except or the refusal's first words)."""
    clean = planted(d=d, k=k, m=4 * k, n=n, seed=seed)
    bad = corrupt(clean, p, seed=seed)
    t = time.perf_counter()
    try:
        res = recover(bad, k=k, sparse_noise=True, random_state=seed)
    except ExactReluError as exc:
        return f"refused ({type(exc).__name__})", time.perf_counter() - t, " ".join(str(exc).split()[:12])
    exact = (res.certificate["claim"] == "realizes-except" and res.network.equivalent(clean.planted)
             and res.except_entries == [tuple(e) for e in bad.meta["corrupted"]])
    return ("recovered" if exact else "WRONG?!"), time.perf_counter() - t, res.certificate.get("max_except", "-")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="k = 6 only, n = 2000, two fractions")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--ks", default=None, help="comma-separated k (default 6,8,10)")
    ap.add_argument("--n", type=int, default=None, help="samples (default 5000; 2000 with --quick)")
    args = ap.parse_args()
    ks, n, d = ((6,), 2000, 20) if args.quick else ((6, 8, 10), 5000, 20)
    ks = tuple(int(x) for x in args.ks.split(",")) if args.ks else ks
    n = args.n or n
    fractions = (0.05, 0.1) if args.quick else (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
    rows, best = [], {}
    for k in ks:
        for p in fractions:
            outcomes = [run(k, p, seed, n, d) for seed in range(args.seeds)]
            good = sum(o == "recovered" for o, _, _ in outcomes)
            if good == args.seeds:
                best[k] = p
            notes = sorted({note for o, _, note in outcomes if o != "recovered"})
            rows.append([k, 4 * k, n, f"{p:.2f}", f"{good}/{args.seeds}", ", ".join(sorted({o for o, _, _ in outcomes})),
                         ", ".join(sorted({str(b) for o, _, b in outcomes if o == "recovered"})) or "-",
                         "; ".join(notes) or "-", f"{sum(s for _, s, _ in outcomes) / len(outcomes):.1f}"])
            print(rows[-1], flush=True)
            if good == 0:
                break
    headers = ["k", "m", "n", "corrupted fraction", "recovered", "outcomes", "max_except written", "refusals",
               "seconds per run (mean)"]
    text = table(rows, headers)
    summary = table([[k, 4 * k, f"{best[k]:.2f}" if k in best else "< 0.05"] for k in ks],
                    ["k", "m", "largest fraction recovered on every seed"])
    print(text + "\n\n" + summary)
    save("bench_sparse_corruption" + ("_quick" if args.quick else ""), rows, headers, text + "\n\n" + summary)


if __name__ == "__main__":
    main()
