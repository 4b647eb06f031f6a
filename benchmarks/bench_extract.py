"""exactrelu extract: queries and time against (d, k, m), beside the published figures of float extraction.

Hidden networks: float32 Gaussian weights, hidden biases and output bias (taken exactly), queried through
NetworkOracle. Columns: queries (and the ratio to k d + k, the number of first-layer parameters), the phases
(line search, Jacobians, fresh), extraction seconds, the independent check of the transcript certificate (every
query and answer), and whether the extracted network equals the hidden one in canonical form (error 0 when it
does). Carlini, Jagielski and Mironov (CRYPTO 2020, abstract): 2^18.5 queries at worst-case error 2^-40.4
for a 4,000-parameter network, 2^21.5 at 2^-25 for a 100,000-parameter MNIST network, both in float64.

Usage::

    python benchmarks/bench_extract.py [--quick] [--no-check]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _extract_common import time_extract_row  # noqa: E402
from exactrelu.equiv import canonical_form  # noqa: E402
from exactrelu.exact.matrix import QMatrix  # noqa: E402
from exactrelu.network import Network  # noqa: E402

PUBLISHED = {  # parameters: (queries log2, worst-case error log2), Carlini et al. 2020, abstract
    4_000: (18.5, -40.4),
    100_000: (21.5, -25.0),
}


def hidden(d: int, k: int, m: int, seed: int = 0) -> Network:
    rng = np.random.default_rng(seed)
    f = lambda *s: QMatrix.from_numpy(rng.standard_normal(s).astype(np.float32).astype(np.float64))  # noqa: E731
    return Network(f(m, k), f(k, d), b=f(k, 1), c=f(m, 1))


def row(d: int, k: int, m: int, check: bool) -> dict:
    net = hidden(d, k, m)
    out, res = time_extract_row(net, {"d": d, "k": k, "m": m}, check=check, expect=False, k=k, seed=0)
    if res is None:
        raise SystemExit(f"({d}, {k}, {m}): {out['error']}")
    out.update(parameters=k * d + k + m * k + m, per_first_layer_parameter=res.queries / (k * d + k),
               line=res.evidence["queries_line"], jacobians=res.evidence["queries_regions"],
               fresh=res.evidence["queries_fresh"], exact=canonical_form(res.network) == canonical_form(net),
               width_lower_bound=res.width_lower_bound, transcript_points=out["answers_certified"],
               transcript_complete=out["complete"])
    print(json.dumps({key: v for key, v in out.items() if key != "summary"}), flush=True)
    return out


def markdown(rows) -> str:
    lines = ["| (d, k, m) | parameters | queries | / (kd + k) | line, Jacobians, fresh | extract s | check s "
             "(points) | exact | published (float) |", "|" + "---|" * 9]
    for r in rows:
        pub = min(PUBLISHED, key=lambda p: abs(math.log(p / r["parameters"])))
        q, e = PUBLISHED[pub]
        near = f"2^{q} queries, error 2^{e} ({pub:,} parameters)" if abs(math.log(pub / r["parameters"])) < 0.5 else ""
        check = f"{r['check_s']:.1f} ({r['transcript_points']}{'' if r['transcript_complete'] else ', no probes'})" \
            if "check_s" in r else f"- ({r['transcript_points']})"
        lines.append(f"| ({r['d']}, {r['k']}, {r['m']}) | {r['parameters']:,} | {r['queries']:,} (2^{math.log2(r['queries']):.1f}) | "
                     f"{r['per_first_layer_parameter']:.2f} | {r['line']}, {r['jacobians']}, {r['fresh']} | "
                     f"{r['extract_s']:.1f} | {check} | {'yes, error 0' if r['exact'] else 'NO'} | {near} |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-check", action="store_true", help="skip the independent check of the certificates")
    args = p.parse_args()
    shapes = [(10, 10, 1), (100, 50, 1)] if args.quick else \
        [(10, 10, 1), (100, 50, 1), (784, 5, 1), (784, 32, 1), (1000, 100, 1), (784, 128, 1), (784, 128, 10)]
    rows = [row(d, k, m, not args.no_check) for d, k, m in shapes]
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "bench_extract.json").write_text(json.dumps(rows, indent=1))
    print(markdown(rows))


if __name__ == "__main__":
    main()
