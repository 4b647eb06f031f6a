"""Independent subtrees of the case split on a process pool, with the certificate of one process.

:func:`search_tree` first searches in this process up to :data:`SERIAL_NODES` nodes: most trees end there, and a
pool would only cost its start. A larger tree is searched again with a *cut*: below ``cut`` splits on a path, the
subtree is not searched but recorded (the path's decisions, in order) and left as a placeholder. Each recorded subtree
goes to a worker, which replays the path's decisions on its own :class:`~.search.Search` and searches below them
exactly as one process would there (the search below a node depends only on the node's decisions). The subtrees come
back in preorder and replace their placeholders: the tree, and so the certificate, is the one-process tree, byte for
byte. The first subtree in preorder that finds a witness, runs out of budget or sticks decides the answer, as it would
in one process; a witness found above the cut sends the search back to one process, so that the witness is the
one-process witness too. The budget: ``--time-limit`` is one deadline for all (each worker gets what is left);
``--max-nodes`` bounds this process's nodes and each worker's (what is left when the pool starts).

>>> cut_depth(1), cut_depth(2), cut_depth(4)
(2, 3, 4)
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import multiprocessing
import sys
import time
from fractions import Fraction

from ...deadline import Deadline
from ...parallel import terminate_pool as _stop
from .search import Stats, _Found, _Spent, _Stuck
from .top1 import argmax_set

__all__ = ["SERIAL_NODES", "cut_depth", "search_tree", "Differ"]

#: a search that ends within this many nodes ends in this process (a pool costs about a second to start)
SERIAL_NODES = 400


def cut_depth(workers: int) -> int:
    """The number of splits above the cut: about four subtrees per worker."""
    return max(1, math.ceil(math.log2(4 * workers)))


class Differ:
    """``differ(x)`` of a search, picklable: the two networks' layers (Fractions), rebuilt in the worker and evaluated
    exactly at x as in one process; True when they differ by more than ``slack`` in some output, or (``top1``) when
    their argmax sets do not meet."""

    def __init__(self, a, b, slack=Fraction(0), top1: bool = False):
        self.a, self.b, self.slack, self.top1, self.nets = a, b, slack, top1, None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "nets": None}

    def __call__(self, x) -> bool:
        from ...network import Network
        from . import _exact_values

        if self.nets is None:
            self.nets = [Network.from_layers([([[str(v) for v in row] for row in W], [str(v) for v in b])
                                              for W, b in layers]) for _, layers in (self.a, self.b)]
        va, vb = (_exact_values(net, list(x)) for net in self.nets)
        if self.top1:
            return not argmax_set(va) & argmax_set(vb)
        return max(abs(p - q) for p, q in zip(va, vb)) > self.slack


def _cutting(cls, cut: int):
    """``cls`` whose subtrees at ``cut`` splits are recorded in ``.cuts`` (their decisions) instead of searched."""

    class Cutting(cls):
        def subtree(self, splits: int = 0) -> list:
            if splits == cut:
                self.cuts.append((list(self.dec.items()), splits))
                return [{"cut": len(self.cuts) - 1}]
            return super().subtree(splits)

    return Cutting


def _run(task) -> tuple:
    """A worker: replay the path, search below it; ("tree", nodes, stats), ("found", x), ("spent", why) or
    ("stuck", why)."""
    cls, red, differ, kwargs, seconds, path, splits = task
    cpu = time.process_time()
    search = cls(red, differ, deadline=Deadline(seconds) if seconds is not None else None, **kwargs)
    for u, active in path:
        search.push(u, active)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3 * len(red.forms) + 1000))
    try:
        tree = search.subtree(splits)
        search.stats.worker_cpu = time.process_time() - cpu
        return "tree", tree, search.stats
    except _Found as found:
        return "found", found.x
    except _Spent as spent:
        return "spent", str(spent)
    except _Stuck as stuck:
        return "stuck", str(stuck)


def _add(stats: Stats, more: Stats) -> None:
    for name in ("nodes", "leaves", "splits", "fixes", "farkas", "lps", "relaxed", "closed", "worker_cpu"):
        setattr(stats, name, getattr(stats, name) + getattr(more, name))
    stats.deepest = max(stats.deepest, more.deepest)


def search_tree(search, make, workers: int, differ: Differ) -> list:
    """The tree of ``search`` (a :class:`~.search.Search` not started), on ``workers`` processes when it is large.

    ``make(cls=None, **overrides)`` makes a fresh search like ``search`` (of class ``cls``, with some keyword arguments
    replaced); ``differ`` is its picklable witness test. Raises what :meth:`Search.subtree` raises.
    """
    if workers <= 1 or search.relaxing:  # relaxed leaves: nodes of seconds, a probe of 400 would spend the budget
        return search.subtree()
    limit, deadline = search.max_nodes, search.deadline
    probe = make(max_nodes=SERIAL_NODES if limit is None else min(limit, SERIAL_NODES))
    try:
        tree = probe.subtree()
        _add(search.stats, probe.stats)
        return tree
    except _Spent:
        if (limit is not None and limit <= SERIAL_NODES) or (deadline is not None and deadline.expired()):
            _add(search.stats, probe.stats)
            raise
    cut = cut_depth(workers)
    top = make(cls=_cutting(type(search), cut))
    top.cuts = []
    try:
        prefix = top.subtree()
    except _Found:  # above the cut: the one-process witness is the one the whole search finds first
        return search.subtree()
    finally:
        _add(search.stats, top.stats)
    if not top.cuts:  # the tree ended above the cut (a relaxed leaf can close a whole subtree)
        return prefix
    return _assemble(search, top, prefix, workers, differ)


def _assemble(search, top, prefix: list, workers: int, differ: Differ) -> list:
    """Search the recorded subtrees on a pool (in preorder), and put them in place of their placeholders."""
    deadline, left = search.deadline, None if search.max_nodes is None else max(1, search.max_nodes - top.stats.nodes)
    kwargs = {"box": search.box, "slack": search.slack, "max_nodes": left, **_extra(search)}
    seconds = None if deadline is None or deadline.seconds is None else max(0.0, deadline.remaining())
    tasks = [(type(search), search.red, differ, kwargs, seconds, path, splits) for path, splits in top.cuts]
    pool = cf.ProcessPoolExecutor(min(workers, len(tasks)), mp_context=multiprocessing.get_context("forkserver"))
    subtrees = []
    try:
        futures = [pool.submit(_run, t) for t in tasks]
        for done, future in enumerate(futures):
            kind, *rest = future.result()
            if kind == "found":
                raise _Found(rest[0])
            if kind == "spent":  # the user's budget, not the worker's share of it
                nodes = "node budget" in rest[0]
                raise _Spent(f"the node budget of {search.max_nodes:,} ran out" if nodes else rest[0])
            if kind == "stuck":
                raise _Stuck(rest[0])
            subtrees.append(rest[0])
            _add(search.stats, rest[1])
            if search.progress is not None:
                search.progress(f"equiv: {done + 1} of {len(tasks)} subtrees on {workers} workers, "
                                f"{search.stats.nodes:,} nodes")
    finally:
        _stop(pool)
    out = []
    for node in prefix:
        out += subtrees[node["cut"]] if set(node) == {"cut"} else [node]
    return out


def _extra(search) -> dict:
    """The keyword arguments a worker's search needs beyond the defaults (a lemma's targets are never cut)."""
    return {} if type(search).__name__ == "Top1Search" or search.targets is search.red.outputs else \
        {"targets": search.targets}
