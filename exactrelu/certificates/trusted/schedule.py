"""How the checker schedules its work: ranges of samples, streaming, forked workers, the collector pause.

Standard library only, like every trusted module. A claim about one network on an instance (``realizes``,
``realizes-except``, ``residual``: :data:`~exactrelu.certificates.trusted.realizes.RANGE_CLAIMS`) is checked range by
range: each range of rows is parsed, hashed and checked alone (:func:`check_rows`), and :func:`combine_rows` binds
the ranges to the certificate. The same two functions serve one process streaming blocks of rows
(:func:`check_streaming`), forked workers (:func:`check_on_workers`) and a cluster's tasks (:func:`range_task`).

What decides soundness here, and what only schedules:

* **decides** -- :func:`check_rows`: the range must lie in 0 <= START < STOP <= n; its rows are parsed by
  ``trusted/instance.py`` (which also gives their canonical text) and judged by ``realizes.part_of_rows``; a failure
  is kept as ``("unreadable" | "failed", message)``, never dropped.
* **decides** -- :func:`combine_rows`: every range is about one instance shape; an unreadable row makes the whole
  input unreadable; the rows' text, hashed in the order the ranges come, must be ``instance_sha256``; any refuted
  range refutes the claim; the ranges must come in sample order (else their rows were not hashed in order); and
  ``realizes.combine`` checks that they tile 0..n-1 exactly and totals the verdict.
* **only schedules** -- :data:`BLOCK` and :func:`check_streaming` (how many rows are parsed at a time), :func:`cuts`
  (where the ranges are cut: any cut is checked by :func:`combine_rows`), :func:`forks` and :func:`check_on_workers` (a forked
  ``multiprocessing`` pool; ``imap`` hands the results back in order, and an out-of-order one would be refused),
  :func:`range_task` (reads the files in a cluster task), and :func:`collector_paused` (the cyclic garbage collector
  paused during a check: memory and time only). Changing any of these changes how fast a verdict comes, never which.

>>> cuts(10, 3)
[(0, 3), (3, 6), (6, 10)]
"""

from __future__ import annotations

import functools
import gc
import hashlib
import os
import signal

from .common import CheckFailed, UnreadableInput, read_certificate
from .instance import hash_header, instance_shape, load_instance, parsed_rows
from .realizes import combine, part_of_rows

__all__ = ["BLOCK", "collector_paused", "check_rows", "combine_rows", "check_streaming", "forks", "check_on_workers",
           "range_task", "cuts"]

#: Rows parsed and checked at a time by a check that streams (the exact rows held at once).
BLOCK = 2048


def collector_paused(check_function):
    """Run ``check_function`` with the cyclic garbage collector paused, and restore it after.

    A check makes millions of short-lived objects (rows of integers, their text), all acyclic and freed by reference
    counting as each block of rows ends; what the collector adds is its full passes over every object of the process
    (a library process holds hundreds of thousands, and a worker forked from it inherits them): 10-18% of a residual
    check (benchmarks/README.md). Nothing the check holds on to depends on the collector, and forked workers inherit
    the paused state.
    """
    @functools.wraps(check_function)
    def paused(*args, **kwargs):
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return check_function(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()
    return paused


def check_rows(cert: dict, instance: dict, start: int, stop: int, where: str = "the instance") -> tuple:
    """Parse and check rows start..stop-1 only: ((n, d, m), their hashed text, verdict, error), for
    :func:`combine_rows`, which binds the rows to ``instance_sha256``; nothing here is a verdict on its own."""
    shape = n, d, m = instance_shape(instance["inputs"], instance["labels"], where)
    if not (type(start) is int and type(stop) is int and 0 <= start < stop <= n):
        raise UnreadableInput(f"the range {start}:{stop} is not one of samples 0 <= START < STOP <= {n}")
    try:
        X, Y, text = parsed_rows(instance["inputs"][start:stop], instance["labels"][start:stop], d, m, where)
    except UnreadableInput as exc:
        return shape, None, None, ("unreadable", str(exc))
    try:
        return shape, text, part_of_rows(cert, X, Y, instance.get("activation"), start, n), None
    except CheckFailed as exc:
        return shape, text, None, ("failed", str(exc))


def combine_rows(cert: dict, results) -> str:
    """The verdict on the whole claim from :func:`check_rows` of ranges, in sample order, that tile 0..n-1.

    ``results`` may be an iterator (each range's text is hashed as it comes, then dropped). A malformed row is
    unreadable (UnreadableInput); then the rows' text, hashed in order, must be the certificate's
    ``instance_sha256``; then the first refuted range refutes the claim.
    """
    shape, digest, errors, verdicts = None, None, [], []
    for got, text, verdict, error in results:
        if shape is None:
            shape, digest = got, hashlib.sha256(hash_header(*got))
        if got != shape:
            raise CheckFailed("the ranges' results are not all about one instance")
        if error:
            errors.append(error)
        if text is not None:
            digest.update(text)
        if verdict is not None:
            verdicts.append(verdict)
    if shape is None:
        raise CheckFailed("nothing to combine")
    if any(kind == "unreadable" for kind, _ in errors):
        raise UnreadableInput(next(text for kind, text in errors if kind == "unreadable"))
    if cert.get("instance_sha256") != digest.hexdigest():
        raise CheckFailed("instance_sha256 does not match the instance")
    if errors:
        raise CheckFailed(errors[0][1])
    if [v["samples"] for v in verdicts] != sorted(v["samples"] for v in verdicts):
        raise CheckFailed("the ranges' results are not in sample order: their rows were not hashed in order")
    return combine(cert, verdicts)  # combine checks that the ranges tile 0..n-1


def check_streaming(cert: dict, instance: dict, where: str = "the instance") -> str:
    """The check of a claim checked by ranges on an instance whose numbers are not parsed yet: blocks of
    :data:`BLOCK` rows are parsed, hashed and checked one after the other, so that only one block's exact rows
    are held at once."""
    n = instance_shape(instance["inputs"], instance["labels"], where)[0]
    return combine_rows(cert, (check_rows(cert, instance, a, min(a + BLOCK, n), where) for a in range(0, n, BLOCK)))


@collector_paused
def range_task(cert_path: str, instance_path: str, start: int, stop: int) -> tuple:
    """:func:`check_rows` on files: one task of a check in ranges on a cluster (each task reads the files)."""
    return check_rows(read_certificate(cert_path), load_instance(instance_path, parse=False), start, stop, instance_path)


def cuts(n: int, pieces: int) -> list:
    """``pieces`` (at most n) ranges of nearly equal size that tile 0..n-1, as (start, stop) pairs."""
    bounds = sorted({n * i // max(1, min(pieces, n)) for i in range(min(pieces, n) + 1)})
    return list(zip(bounds, bounds[1:]))


_SHARED: tuple = ()  # (certificate, instance, where) of check_on_workers, inherited by the forked workers


def _quiet_worker() -> None:
    """Scheduling only: a worker leaves Ctrl-C to its parent, which stops the pool (a worker's own KeyboardInterrupt
    printed a traceback per worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _shared_rows_of(span: tuple) -> tuple:
    return check_rows(*_SHARED[:2], *span, _SHARED[2])


def forks(workers: int) -> bool:
    """Whether a check asked for ``workers`` processes forks them: more than one, on a platform with ``fork``."""
    import multiprocessing  # here: a check in one process (most of them) does not load it (15 ms)

    return workers > 1 and "fork" in multiprocessing.get_all_start_methods()


def check_on_workers(cert: dict, instance: dict, workers: int, where: str = "the instance") -> str:
    """The check of a claim checked by ranges on an instance not parsed yet, its samples split into ranges that
    ``workers`` forked processes (:func:`forks`) parse and check (:func:`check_rows`), bound and combined here
    (:func:`combine_rows`)."""
    import multiprocessing

    global _SHARED
    n = instance_shape(instance["inputs"], instance["labels"], where)[0]
    _SHARED = (cert, instance, where)
    try:
        pool = multiprocessing.get_context("fork").Pool(min(workers, n), initializer=_quiet_worker)
        ranges = cuts(n, max(workers, -(-n // BLOCK)))  # at most BLOCK rows each, in order: each text hashed here
        return stopped_on_error(pool, lambda: combine_rows(cert, pool.imap(_shared_rows_of, ranges)))
    finally:
        _SHARED = ()


def stopped_on_error(pool, consume):
    """``consume()`` (which reads the results of ``pool``, a ``multiprocessing`` Pool of forked workers), then the pool
    closed and joined (every task done: the workers are idle and leave on its sentinels); when ``consume`` raises
    (Ctrl-C, a verdict known before the last block), the pool is *abandoned* (:func:`abandon`) and the error raised.

    ``Pool.terminate()``, which ``with Pool(...)`` calls, can hang for ever: it terminates the workers first, and one
    killed while it writes a result holds the result queue's lock, which the pool's task thread then waits for
    (seen under load after Ctrl-C: two dead workers and a parent waiting in ``_terminate_pool``).

    >>> import multiprocessing
    >>> pool = multiprocessing.get_context("fork").Pool(1)
    >>> stopped_on_error(pool, lambda: list(pool.imap(abs, [-1, 2])))
    [1, 2]
    """
    try:
        out = consume()
    except BaseException:
        abandon(pool)
        raise
    pool.close()
    pool.join()
    return out


def abandon(pool) -> None:
    """Stop a ``multiprocessing`` Pool's worker handler (else it replaces the workers killed), kill and reap its
    workers, and cancel the pool's own shutdown (:func:`stopped_on_error`). CPython's Pool internals (3.11-3.14)."""
    pool._worker_handler._state = "TERMINATE"
    pool._change_notifier.put(None)  # wakes the handler (only this process writes there: no worker holds that lock)
    pool._worker_handler.join(5)
    for p in list(pool._pool):
        try:
            os.kill(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.join()
    pool._terminate.cancel()
    pool._state = "TERMINATE"  # as terminate() leaves it: no "unclosed running pool" warning when it is collected
