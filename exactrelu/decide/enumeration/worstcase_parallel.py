"""The worst-case solver's pattern decisions, in order, computed on a ``concurrent.futures`` executor.

Each extreme ray of the cone is decided by one small exact LP
(:func:`exactrelu.decide.enumeration.pattern_lps.unit_lp`),
each higher face by a few (:func:`exactrelu.decide.enumeration.pattern_lps.face_decision`, against the functionals
vanishing on the units found so far). :func:`ray_decisions` and :func:`face_decisions` send chunks of
patterns to the executor as plain values (the inputs as integer rows and one denominator; rays as
tuples of ints: FLINT objects do not pickle), keep a bounded window of chunks in flight, and yield the
decisions *in the patterns' order*, so that the solver reads exactly what its serial loop would have
computed and stops at the same pattern: same reports, same certificates. Faces are decided
speculatively with the units known when they were sent; when a face yields a new unit, the decisions
after it (made against the old span) are dropped and sent again. Chunks still in flight when the
solver stops are canceled (or computed and dropped).

>>> from exactrelu.exact.matrix import QMatrix
>>> from exactrelu.decide.enumeration.patterns import Ray
>>> X = QMatrix.from_rows([[1, 0], [0, 1], [-1, -1]])
>>> rays = [Ray(c=(1,), w=(1, 0, 0), support=(0,)), Ray(c=(2,), w=(1, 1, 1), support=(0, 1, 2))]
>>> [d.status for d in ray_decisions(X, rays, keep=False)]
['feasible', 'infeasible']
"""

from __future__ import annotations

import math
from collections import deque
from concurrent.futures import Executor
from typing import Iterator

from ...deadline import Deadline
from .pattern_lps import FaceDecision, RayDecision, annihilator, face_decision, ray_decision
from .patterns import Ray

__all__ = ["ray_decisions", "face_decisions", "decide_chunk", "decide_faces"]


def decide_chunk(rows: list[list[int]], den: int, chunk: list[Ray], keep: bool,
                 seconds: float | None = None) -> list[RayDecision]:
    """Decide the rays ``chunk`` for the inputs ``rows / den`` (run on a worker, within ``seconds``)."""
    import flint

    from ...exact.matrix import QMatrix

    X = QMatrix(flint.fmpz_mat(rows), den)
    deadline = Deadline(seconds, what="the chunk of extreme rays was decided")
    return [ray_decision(X, ray, keep, deadline) for ray in chunk]


def ray_decisions(X, rays: list[Ray], *, keep: bool, executor: Executor | None = None,
                  workers: int = 2, deadline: Deadline | None = None) -> Iterator[RayDecision]:
    """The decision of each ray of ``rays``, in order; on ``executor`` (``workers`` wide) when given.

    ``deadline`` is checked inside every LP; a worker gets the time left when its chunk is sent."""
    deadline = deadline or Deadline(None)
    if executor is None:
        for ray in rays:
            yield ray_decision(X, ray, keep, deadline)
        return
    rows, den = _plain(X)
    size = max(1, min(64, math.ceil(len(rays) / (8 * workers))))
    chunks = deque(rays[i:i + size] for i in range(0, len(rays), size))
    pending: deque = deque()
    try:
        while chunks or pending:
            while chunks and len(pending) < 2 * workers:
                pending.append(executor.submit(decide_chunk, rows, den, chunks.popleft(), keep, deadline.remaining()))
            yield from pending.popleft().result()
    finally:  # the solver stopped early (GeneratorExit), or a worker failed: drop what is still queued
        for fut in pending:
            fut.cancel()


def _plain(X) -> tuple[list[list[int]], int]:
    return [[int(x) for x in row] for row in X.num.tolist()], int(X.den)


def decide_faces(rows: list[list[int]], den: int, items: list, annihilators: list[list[int]], r: int,
                 keep: bool, seconds: float | None = None) -> list[FaceDecision]:
    """Decide the faces ``items`` ((support, member rays) pairs) against ``annihilators`` (run on a worker,
    within ``seconds``)."""
    import flint

    from ...exact.matrix import QMatrix
    X = QMatrix(flint.fmpz_mat(rows), den)
    deadline = Deadline(seconds, what="the chunk of faces was decided")
    return [face_decision(X, members, S, annihilators, r, keep, deadline) for S, members in items]


def face_decisions(X, faces: list, cs: list, r: int, *, keep: bool, executor: Executor | None = None,
                   workers: int = 2, deadline: Deadline | None = None) -> Iterator[FaceDecision]:
    """The :class:`~.pattern_lps.FaceDecision` of each face of ``faces`` ((support, member rays) pairs), in
    order, each decided against the span of ``cs`` and of the units found at the faces before it
    (``deadline``: as in :func:`ray_decisions`)."""
    cs = list(cs)
    A = annihilator(cs, r)
    deadline = deadline or Deadline(None)
    if executor is None:
        for S, members in faces:
            decided = face_decision(X, members, S, A, r, keep, deadline)
            yield decided
            if decided.unit:
                cs.append(decided.unit.c)
                A = annihilator(cs, r)
        return
    rows, den = _plain(X)
    size = max(1, min(32, math.ceil(len(faces) / (8 * workers))))
    pending: deque = deque()  # (index of the chunk's first face, future)
    nxt = 0
    try:
        while nxt < len(faces) or pending:
            while nxt < len(faces) and len(pending) < 2 * workers:
                pending.append((nxt, executor.submit(decide_faces, rows, den, faces[nxt:nxt + size], A, r, keep,
                                                     deadline.remaining())))
                nxt += size
            start, fut = pending.popleft()
            for j, decided in enumerate(fut.result()):
                yield decided
                if decided.unit:  # the span grew: what was decided after this face used the old one
                    cs.append(decided.unit.c)
                    A = annihilator(cs, r)
                    for _, f in pending:
                        f.cancel()
                    pending.clear()
                    nxt = start + j + 1
                    break
    finally:
        for _, f in pending:
            f.cancel()
