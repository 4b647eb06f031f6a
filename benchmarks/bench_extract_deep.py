"""exactrelu extract with two or three hidden layers on issue 38's sizes, seed after seed: exact, checked, compared.

Hidden networks: float32 ``W1 ~ N(0, 1/d)``, ``b1 ~ N(0, 0.01)``, ``W2 ~ N(0, 1/k1)``, ``b2 ~ N(0, 0.01)``,
``W3 ~ N(0, 1/k2)``, ``b3 = 0``, drawn with ``numpy.random.default_rng(seed)``, for d-k1-k2-1 = 10-8-8-1,
20-16-16-1 (and 100-32-32-1 with ``--sizes``); with ``--weights int``, integer weights and biases uniform in
-3..3 and -2..2 (output bias 1) instead. A size with three hidden widths (``--sizes 6x5x4x3,10x8x6x4``) draws
``W3 ~ N(0, 1/k2)``, ``b3 ~ N(0, 0.01)``, ``W4 ~ N(0, 1/k3)``, ``b4 = 0`` (float32) and extracts with
``hidden_layers=3``. For each seed: ``extract(..., hidden_layers=2)`` (timed, no hints),
the ``transcript`` certificate checked by the independent checker (timed), and ``--expect``: the deep equivalence of
the extracted and the hidden network (``functionally_equal``, its certificate checked; timed), through
``_extract_common.time_extract_row`` (wall-clock and CPU seconds: on a shared machine CPU is what a run costs). A
refusal is recorded with its reason. ``--first-seed`` and ``--seeds`` split a size's seeds over processes. Float
attacks on deep networks (Carlini et al. 2020; Canales-Martinez et al. 2024) recover weights approximately; none
reports two hidden layers exactly.

Usage::

    python benchmarks/bench_extract_deep.py [--seeds 10] [--first-seed 0] [--sizes 10x8x8,20x16x16,100x32x32]
                                            [--out results/x.json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _extract_common import time_extract_row  # noqa: E402
from exactrelu.network import Network  # noqa: E402


def family(d: int, k1: int, k2: int, seed: int, weights: str = "float32", k3: int | None = None) -> Network:
    rng = np.random.default_rng(seed)
    if k3 is not None:  # three hidden layers, float32
        f32, sizes, layers = np.float32, (d, k1, k2, k3, 1), []
        for a, b in zip(sizes, sizes[1:]):
            layers.append(((rng.standard_normal((b, a)) / math.sqrt(a)).astype(f32),
                           (0.1 * rng.standard_normal(b)).astype(f32) if b != 1 else np.zeros(1, f32)))
        return Network.from_layers(layers)
    if weights == "int":
        return Network.from_layers([(rng.integers(-3, 4, (k1, d)), rng.integers(-2, 3, k1)),
                                    (rng.integers(-3, 4, (k2, k1)), rng.integers(-2, 3, k2)),
                                    (rng.integers(-3, 4, (1, k2)), [1])])
    f32 = np.float32
    return Network.from_layers([
        ((rng.standard_normal((k1, d)) / math.sqrt(d)).astype(f32), (0.1 * rng.standard_normal(k1)).astype(f32)),
        ((rng.standard_normal((k2, k1)) / math.sqrt(k1)).astype(f32), (0.1 * rng.standard_normal(k2)).astype(f32)),
        ((rng.standard_normal((1, k2)) / math.sqrt(k2)).astype(f32), np.zeros(1, f32))])


def run(d: int, k1: int, k2: int, seed: int, weights: str = "float32", k3: int | None = None) -> dict:
    hidden = family(d, k1, k2, seed, weights, k3)
    shape = "-".join(map(str, (d, k1, k2) + ((k3,) if k3 else ()) + (1,)))
    row = {"size": shape + (" int" if weights == "int" else ""), "seed": seed}
    row, res = time_extract_row(hidden, row, hidden_layers=3 if k3 else 2, seed=seed)
    if res is not None:
        row.update(widths=list(res.network.widths), evidence={k: v for k, v in res.evidence.items()
                                                             if k not in ("line_counts", "form")})
    return row


def markdown(rows: list[dict]) -> str:
    out = ["| size | seeds | exact (`--expect` equivalent) | refused | wrong | complete transcripts | "
           "median queries (range) | median extract s (CPU) | median check s (CPU) | check / extract (CPU) | "
           "median `--expect` s | certificate MB |", "|" + "---|" * 12]
    for size in dict.fromkeys(r["size"] for r in rows):
        rs = [r for r in rows if r["size"] == size]
        ok = [r for r in rs if r["ok"]]
        if not ok:
            out.append(f"| {size} | {len(rs)} | 0 | {len(rs)} | 0 |" + " - |" * 7)
            continue

        def med(key, f="{:,.1f}"):
            return f.format(statistics.median(r[key] for r in ok))
        q = [r["queries"] for r in ok]
        out.append(f"| {size} | {len(rs)} | {sum(r.get('expect') == 'equivalent' for r in ok)} | {len(rs) - len(ok)} | "
                   f"{sum(r.get('expect') == 'not-equivalent' for r in ok)} | {sum(r['complete'] for r in ok)} | "
                   f"{statistics.median(q):,.0f} (2^{math.log2(statistics.median(q)):.1f}; {min(q):,}-{max(q):,}) | "
                   f"{med('extract_s')} ({med('extract_cpu_s')}) | {med('check_s')} ({med('check_cpu_s')}) | "
                   f"{statistics.median(r['check_cpu_s'] / r['extract_cpu_s'] for r in ok):.2f} | {med('expect_s')} | "
                   f"{med('certificate_mb')} |")
    out += [f"\nrefused: {r['size']} seed {r['seed']}: {r['error']}" for r in rows if not r["ok"]]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--sizes", default="10x8x8,20x16x16")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--weights", choices=("float32", "int"), default="float32")
    ap.add_argument("--out", default=str(HERE / "results" / "bench_extract_deep.json"))
    args = ap.parse_args()
    rows = []
    for size in args.sizes.split(","):
        d, k1, k2, *k3 = map(int, size.split("x"))
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            rows.append(run(d, k1, k2, seed, args.weights, k3[0] if k3 else None))
            r = rows[-1]
            print(json.dumps({k: r.get(k) for k in ("size", "seed", "ok", "queries", "widths", "expect", "extract_s",
                                                     "extract_cpu_s", "check_s", "check_cpu_s", "expect_s",
                                                     "certificate_mb", "error")}), flush=True)
            r.pop("summary", None)
            Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")
    print(markdown(rows))


if __name__ == "__main__":
    main()
