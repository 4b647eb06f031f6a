"""The certificate phase of recover at scale (issue 25): the instance hash made ahead in a forked child, and the
canonical strings of float64 inputs and dyadic labels. Ratios from one process, before/after side by side.

    EXACTRELU_MAX_ENTRIES=100000000 python benchmarks/bench_certificate_phase.py 200 20 20 20000

Prints, for recover(check=False) with and without the hash ahead, the 'certificate' timing and the whole call
(wall and this process's CPU; the child's CPU is reported apart), then the string makers alone.
"""

from __future__ import annotations

import contextlib
import resource
import sys
import time

from exactrelu.instances import planted
from exactrelu.recover import front_door, recover


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_recover(inst, k: int, ahead: bool) -> dict:
    saved = front_door.instance_hash_ahead
    if not ahead:
        front_door.instance_hash_ahead = lambda inst: contextlib.nullcontext()
    try:
        inst._cache.clear()
        w, c, cc = time.perf_counter(), time.process_time(), _children_cpu()
        res = recover(inst.float_inputs(), inst.labels, k=k, init="auto", random_state=0, check=False)
        return {"certificate_s": res.timings["certificate"], "wall_s": time.perf_counter() - w,
                "cpu_s": time.process_time() - c, "child_cpu_s": _children_cpu() - cc,
                "sha": res.certificate["instance_sha256"][:12]}
    finally:
        front_door.instance_hash_ahead = saved


def main(argv: list[str]) -> None:
    d, k, m, n = map(int, argv[:4])
    inst = planted(d=d, k=k, m=m, n=n, seed=1)
    for ahead in (False, True, False, True):
        print({"hash_ahead": ahead, **run_recover(inst, k, ahead)}, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
