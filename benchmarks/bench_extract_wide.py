"""exactrelu extract on networks whose first hidden layer is wider than the input (k1 > d), seed after seed.

Hidden networks: PyTorch's default initialisation, float32 (``torch.nn.Linear``: weights and biases uniform in
``+-1/sqrt(fan_in)``) under ``torch.manual_seed(seed)``, for the sizes given (d-k1-...-m). One hidden layer
(3-8-1, 4-8-3, 5-50-1) is the route of docs/extraction.md ("The algorithm"); two hidden layers with k1 > d
(4-8-6-3, and with one output 4-8-6-1, 3-6-4-1) the route of "A first layer wider than its input". For each seed:
``extract`` (timed, no hints), the ``transcript`` certificate checked by the independent checker (timed), and
``--expect``: the exact equivalence of the extracted and the hidden network (through
``_extract_common.time_extract_row``). A refusal is recorded with its
reason; "wrong" counts networks printed as extracted that ``--expect`` finds not equal.

Usage::

    python benchmarks/bench_extract_wide.py [--seeds 10] [--sizes 3-8-1,4-8-3,5-50-1,4-8-6-3] [--out results/x.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _extract_common import time_extract_row  # noqa: E402
from exactrelu.network import Network  # noqa: E402


def torch_default(sizes, seed: int) -> Network:
    import torch

    torch.manual_seed(seed)
    layers = []
    for a, b in zip(sizes, sizes[1:]):
        lin = torch.nn.Linear(a, b)
        layers.append((lin.weight.detach().numpy().astype(np.float32), lin.bias.detach().numpy().astype(np.float32)))
    return Network.from_layers(layers)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--sizes", default="3-8-1,4-8-3,5-50-1,4-8-6-3")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = []
    for size in args.sizes.split(","):
        sizes = tuple(int(v) for v in size.split("-"))
        for seed in range(args.seeds):
            row, _ = time_extract_row(torch_default(sizes, seed), {"size": size, "seed": seed},
                                      hidden_layers=len(sizes) - 2, seed=seed)
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "summary"}), flush=True)
    print("| size | seeds | exact (`--expect` equivalent) | refused | wrong | median queries (range) | "
          "median extract s (CPU) | median check s |")
    print("|---|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        mine = [r for r in rows if r["size"] == size]
        ok = [r for r in mine if r.get("ok") and r.get("expect") == "equivalent"]
        wrong = sum(1 for r in mine if r.get("ok") and r.get("expect") != "equivalent")
        q = [r["queries"] for r in ok]
        med = (lambda k: statistics.median(r[k] for r in ok)) if ok else (lambda k: float("nan"))
        print(f"| {size} | {len(mine)} | {len(ok)} | {sum(1 for r in mine if not r.get('ok'))} | {wrong} | "
              f"{statistics.median(q) if q else '-'} ({min(q, default='-')}-{max(q, default='-')}) | "
              f"{med('extract_s'):.1f} ({med('extract_cpu_s'):.1f}) | {med('check_s'):.1f} |")
        reasons = Counter(r["error"][:90] for r in mine if not r.get("ok"))
        for why, n in reasons.most_common():
            print(f"|   refused {n}x: {why} |")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
