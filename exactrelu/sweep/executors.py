"""Where tasks run: in this process, on a local process pool, or on a Dask cluster.

All three are :class:`concurrent.futures.Executor`: the runner submits :func:`~exactrelu.sweep.worker.run_task`
with plain values and collects rows, whichever it is. A Dask cluster is reached through
``dask.distributed.Client(address).get_executor()`` (``pip install 'exactrelu[dask]'``).

>>> from exactrelu.sweep.executors import Backend
>>> b = Backend(workers=1)
>>> ex = b.make()
>>> ex.submit(sum, [1, 2, 3]).result(), b.describe()
(6, 'serial (in this process)')
>>> b.close(ex)
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import signal
import socket
import threading

from ..errors import InvalidInput
from ..parallel import terminate_pool as _terminate, usable_cores
from ..validation import check_positive_integer
from ..arguments import scheduler_address
from .worker import init_worker

__all__ = ["Backend", "SerialExecutor", "default_workers"]

#: Environment given to local worker processes unless already set: one BLAS thread each.
WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


#: Imported once by the fork server, so that each worker starts with them loaded (the tasks import
#: SciPy and HiGHS lazily: 0.4 s in each new worker otherwise).
PRELOAD = ["exactrelu.sweep.tasks", "exactrelu.recover.front_door", "exactrelu.decide.enumeration.worstcase",
           "exactrelu.decide.search.pattern_search",
           "exactrelu.certificates.checker", "scipy.optimize", "scipy.linalg", "highspy"]
#: How long to try to reach a Dask scheduler.
CONNECT_TIMEOUT = "20s"


def default_workers() -> int:
    """The cores this process may use (:func:`exactrelu.parallel.usable_cores`)."""
    return usable_cores()


class SerialExecutor(cf.Executor):
    """Runs each call at once, in this process (``--workers 1``: no pickling, no start-up)."""

    def submit(self, fn, /, *args, **kwargs):
        fut = cf.Future()
        fut.set_result(fn(*args, **kwargs))  # exceptions propagate: run_task returns every outcome as a row
        return fut


class Backend:
    """Makes (and remakes, after a worker died) the executor of a run; ``close`` releases it."""

    def __init__(self, *, workers: int | None = None, scheduler: str | None = None):
        check_positive_integer(workers, "--workers", none_ok=True)
        if scheduler is not None and workers is not None:
            raise InvalidInput("give --workers or --scheduler, not both (a Dask cluster has its own workers)")
        self.scheduler = scheduler
        self.workers = workers or (None if scheduler else default_workers())
        self._client = None

    @property
    def restartable(self) -> bool:
        """A local process pool breaks when one of its processes dies, and is then made anew."""
        return self.scheduler is None and self.workers > 1

    def make(self) -> cf.Executor:
        if self.scheduler is not None:
            return self._dask()
        if self.workers == 1:
            return SerialExecutor()
        try:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
        except ValueError:  # pragma: no cover - platforms without fork
            ctx = multiprocessing.get_context("spawn")
        saved = {k: os.environ.get(k) for k in WORKER_ENV}
        os.environ.update({k: v for k, v in WORKER_ENV.items() if saved[k] is None})
        try:
            _start_servers(ctx)
            ex = _Pool(self.workers, mp_context=ctx, initializer=init_worker, initargs=(os.getpid(),))
            started = ex.submit(int)  # start the pool now, under this environment
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
        try:
            started.result()
        except BaseException:
            _terminate(ex)
            raise
        return ex

    def _dask(self) -> cf.Executor:
        try:
            from dask.distributed import Client
        except ImportError:
            raise InvalidInput("--scheduler needs Dask: pip install 'exactrelu[dask]'") from None
        if self._client is None:
            host, port = scheduler_address(self.scheduler)  # a malformed address or an unknown host: at once
            try:
                socket.getaddrinfo(host, port)
            except OSError as exc:
                raise InvalidInput(f"cannot reach the Dask scheduler at {self.scheduler}: "
                                   f"{exc.strerror or exc}") from None
            try:
                self._client = Client(self.scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise InvalidInput(f"cannot reach the Dask scheduler at {self.scheduler}: {exc}") from None
            self.workers = max(1, sum(self._client.nthreads().values()))
        return self._client.get_executor(pure=False)

    def describe(self) -> str:
        if self.scheduler is not None:
            return f"dask scheduler {self.scheduler} ({self.workers} worker threads)"
        return "serial (in this process)" if self.workers == 1 else f"process pool ({self.workers} workers)"

    def close(self, ex: cf.Executor | None, *, interrupted: bool = False) -> None:
        """Shut ``ex`` down; when interrupted, stop running tasks instead of waiting for them."""
        if isinstance(ex, cf.ProcessPoolExecutor):
            _terminate(ex) if interrupted else ex.shutdown(wait=True, cancel_futures=True)
        elif ex is not None:
            ex.shutdown(wait=not interrupted)
        if self._client is not None:
            self._client.close()
            self._client = None


class _Pool(cf.ProcessPoolExecutor):
    """A process pool whose ``submit`` (which may start a worker) finishes before a Ctrl-C is raised: a worker forked
    while its parent gave up could not read its start-up data and printed a traceback."""

    def submit(self, fn, /, *args, **kwargs):
        with _sigint_deferred():
            return super().submit(fn, *args, **kwargs)


@contextlib.contextmanager
def _sigint_deferred():
    """A Ctrl-C inside the block is raised as KeyboardInterrupt when the block ends (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if caught:
            raise KeyboardInterrupt


def _start_servers(ctx) -> None:
    """Start the fork server and the resource tracker with Ctrl-C ignored, which they keep: the fork server preloads
    SciPy for seconds before it ignores Ctrl-C itself (a Ctrl-C meanwhile printed its traceback), and the workers it
    forks inherit it (the parent stops them). Only the spawning is shielded (milliseconds), not the wait for them."""
    if ctx.get_start_method() != "forkserver" or threading.current_thread() is not threading.main_thread():
        return
    from multiprocessing import forkserver

    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, old)
