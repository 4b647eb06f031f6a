"""The exact phase of recovery at scale (issue 25): wall and CPU seconds per phase, one JSON line per run.

    python benchmarks/bench_exact_phase.py 100 50 50 100000 [LABEL]

Runs ``recover(inst.float_inputs(), inst.labels, k=k, init="auto", check=False)`` on
``planted(d, k, m, n, seed=1)`` and prints the phases "conversion", "rank", "units", "hidden", "output" with
wall (``time.perf_counter``) and CPU (``time.process_time``) seconds. To compare two versions in one session,
run it once per checkout with ``PYTHONPATH=<checkout>`` (one process each, back to back); a checkout from before
issue 34 needs ``EXACTRELU_MAX_ENTRIES=100000000`` for n = 10^5 (since then honest sizes need no variable).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

if not os.environ.get("PYTHONPATH"):  # PYTHONPATH names the checkout to measure; else this one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.recover import result as _result  # noqa: E402
import exactrelu.recover.rowspan as _rowspan  # noqa: E402

PHASES = ["conversion", "rank", "units", "hidden", "output"]
CPU: dict[str, float] = {}


class _WallAndCpu(_result.Timer):
    """The route's timer, also accumulating process CPU time per phase."""

    @staticmethod
    def start():
        return (time.perf_counter(), time.process_time())

    def add(self, name, t0):
        w, c = time.perf_counter(), time.process_time()
        self.t[name] = self.t.get(name, 0.0) + w - t0[0]
        CPU[name] = CPU.get(name, 0.0) + c - t0[1]
        return (w, c)


def main(argv: list[str]) -> dict:
    """One run; returns (and prints) the per-phase timings."""
    from exactrelu.instances import planted
    from exactrelu.recover import recover

    _rowspan.Timer = _WallAndCpu
    d, k, m, n = map(int, argv[:4])
    inst = planted(d=d, k=k, m=m, n=n, seed=1)
    res = recover(inst.float_inputs(), inst.labels, k=k, init="auto", random_state=0, check=False)
    out = {"label": argv[4] if len(argv) > 4 else "", "size": [d, k, m, n],
           "wall": {p: round(res.timings.get(p, 0.0), 2) for p in PHASES},
           "cpu": {p: round(CPU.get(p, 0.0), 2) for p in PHASES}}
    out["wall_exact"] = round(sum(out["wall"].values()), 2)
    out["cpu_exact"] = round(sum(out["cpu"].values()), 2)
    out["equivalent"] = bool(res.network.equivalent(inst.planted))
    print(json.dumps(out), flush=True)
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
