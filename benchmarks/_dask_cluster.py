"""A Dask LocalCluster in a process of its own, so that its scheduler's CPU time is not counted as the
CPU time of the benchmark's own process (as it is when the LocalCluster lives in that process)."""

from __future__ import annotations

import contextlib
import subprocess
import sys

_SERVE = """
import sys
from dask.distributed import LocalCluster
cluster = LocalCluster(n_workers={n}, threads_per_worker=1, processes=True, dashboard_address=None)
print(cluster.scheduler_address, flush=True)
sys.stdin.read()  # until the benchmark closes the pipe
cluster.close()
"""


@contextlib.contextmanager
def local_cluster(n_workers: int):
    """Yield the scheduler address of a LocalCluster of ``n_workers`` single-thread worker processes."""
    proc = subprocess.Popen([sys.executable, "-c", _SERVE.format(n=n_workers)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        address = proc.stdout.readline().strip()
        if not address.startswith("tcp://"):
            raise RuntimeError(f"the LocalCluster did not start (got {address!r})")
        yield address
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
