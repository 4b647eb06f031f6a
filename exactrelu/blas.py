"""How many BLAS threads the float steps use (threadpoolctl).

The float steps (proposals, fits) call BLAS on matrices of the data's size. A multi-threaded BLAS
product waits for all its threads, so when the machine's cores are busy with other work each
product waits for a thread the scheduler has not run yet: measured here (2 cores, load average
about 10, ``benchmarks/bench_blas.py``), 200 gradient-step products at n = 20000, d = 50 took 41 s
with OpenBLAS's two threads and 2.9 s with one; the review of issue 15 saw a proposal take 1.49 s
against 0.015 s. On an idle machine the extra thread only helps large products. So
:func:`small_problem_threads` uses **one BLAS thread** when the problem is small (fewer than
:data:`BLAS_SMALL` numbers) or the machine is busy (1-minute load average at least the number of
cores), and the library's default otherwise. Nothing is changed when the user chose a thread count
(``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``), and ``EXACTRELU_BLAS_THREADS``
(a number, or ``default``) overrides the rule. Exact arithmetic never uses BLAS.

>>> with small_problem_threads(1000):
...     pass
>>> (blas_threads(10**9, load=0.0, cpus=2) is None, blas_threads(10**9, load=3.0, cpus=2),
...  blas_threads(100, load=0.0, cpus=2))
(True, 1, 1)
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["BLAS_SMALL", "small_problem_threads", "fixed_threads", "blas_threads", "user_chose"]

#: Problems with fewer numbers than this (n * (d + m)) always use one BLAS thread: at the sizes of
#: benchmarks/bench_blas.py up to (50, 10, 10, 20000), 1.2 million numbers, one thread was within
#: 15% of two on a quiet machine (results/bench_blas.md), and 14x faster on a busy one.
BLAS_SMALL = 2_000_000

_USER_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def fixed_threads(n: int | None):
    """BLAS with ``n`` threads inside the block (None: leave it alone)."""
    if n is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=n, user_api="blas"):
        yield


def user_chose() -> bool:
    """Whether the user set the BLAS thread count (``EXACTRELU_BLAS_THREADS`` or one of BLAS's own variables)."""
    return os.environ.get("EXACTRELU_BLAS_THREADS") is not None or any(os.environ.get(v) for v in _USER_VARS)


def blas_threads(entries: int, *, load: float | None = None, cpus: int | None = None) -> int | None:
    """The BLAS thread count for a problem of ``entries`` numbers: 1, a number the user set, or None (default)."""
    own = os.environ.get("EXACTRELU_BLAS_THREADS")
    if own is not None:
        return int(own) if own.isdigit() and int(own) > 0 else None
    if any(os.environ.get(v) for v in _USER_VARS):
        return None  # the user decided
    if entries < BLAS_SMALL:
        return 1
    # the cores this process may run on (its affinity: a process cut to one core is busy at load 1), not the machine's
    cpus = cpus or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    load = os.getloadavg()[0] if load is None and hasattr(os, "getloadavg") else (load or 0.0)
    return 1 if load >= cpus else None


def small_problem_threads(entries: int):
    """A context with the thread count of :func:`blas_threads` for ``entries`` numbers."""
    return fixed_threads(blas_threads(entries))
