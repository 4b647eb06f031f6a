"""The worst-case solver's pattern decisions, in order, computed on a ``concurrent.futures`` executor.

Each extreme ray of the cone is decided by one small exact LP (:func:`exactrelu.decide.pattern_lps.unit_lp`),
each higher face by a few (:func:`exactrelu.decide.pattern_lps.face_decision`, against the functionals
vanishing on the units found so far). :func:`ray_decisions` and :func:`face_decisions` send chunks of
patterns to the executor as plain values (the inputs as integer rows and one denominator; rays as
tuples of ints: FLINT objects do not pickle), keep a bounded window of chunks in flight, and yield the
decisions *in the patterns' order*, so that the solver reads exactly what its serial loop would have
computed and stops at the same pattern: same reports, same certificates. Faces are decided
speculatively with the units known when they were sent; when a face yields a new unit, the decisions
after it (made against the old span) are dropped and sent again. Chunks still in flight when the
solver stops are cancelled (or computed and dropped).

>>> from exactrelu.exact.matrix import QMatrix
>>> from exactrelu.decide.patterns import Ray
>>> X = QMatrix.from_rows([[1, 0], [0, 1], [-1, -1]])
>>> rays = [Ray(c=(1,), w=(1, 0, 0), support=(0,)), Ray(c=(2,), w=(1, 1, 1), support=(0, 1, 2))]
>>> [d[0] for d in ray_decisions(X, rays, keep=False)]
['feasible', 'infeasible']
"""

from __future__ import annotations

import math
from collections import deque
from concurrent.futures import Executor
from typing import Iterator

from ..certificates.claims.lp import lp_certificate
from .pattern_lps import annihilator, face_decision, unit_lp

__all__ = ["ray_decisions", "face_decisions", "decide_chunk", "decide_faces"]

#: A decision: the LP's status, its point (when feasible) and its certificates (when kept).
Decision = tuple


def _decide(X, w, support, keep: bool) -> Decision:
    res = unit_lp(X, w, support)
    return res.status, res.point, [lp_certificate(res)] if keep else []


def decide_chunk(rows: list[list[int]], den: int, chunk: list[tuple[tuple[int, ...], tuple[int, ...]]],
                 keep: bool) -> list[Decision]:
    """Decide the rays ``chunk`` ((w, support) pairs) for the inputs ``rows / den`` (run on a worker)."""
    import flint

    from ..exact.matrix import QMatrix

    X = QMatrix(flint.fmpz_mat(rows), den)
    return [_decide(X, w, support, keep) for w, support in chunk]


def ray_decisions(X, rays, *, keep: bool, executor: Executor | None = None, workers: int = 2) -> Iterator[Decision]:
    """The decision of each ray of ``rays``, in order; on ``executor`` (``workers`` wide) when given."""
    if executor is None:
        for ray in rays:
            yield _decide(X, ray.w, ray.support, keep)
        return
    rows, den = _plain(X)
    size = max(1, min(64, math.ceil(len(rays) / (8 * workers))))
    chunks = deque([(tuple(r.w), tuple(r.support)) for r in rays[i:i + size]] for i in range(0, len(rays), size))
    pending: deque = deque()
    try:
        while chunks or pending:
            while chunks and len(pending) < 2 * workers:
                pending.append(executor.submit(decide_chunk, rows, den, chunks.popleft(), keep))
            yield from pending.popleft().result()
    finally:  # the solver stopped early (GeneratorExit), or a worker failed: drop what is still queued
        for fut in pending:
            fut.cancel()


def _plain(X) -> tuple[list[list[int]], int]:
    return [[int(x) for x in row] for row in X.num.tolist()], int(X.den)


def decide_faces(rows: list[list[int]], den: int, items: list, annihilators: list[list[int]], r: int,
                 keep: bool) -> list[tuple]:
    """Decide the faces ``items`` ((support, member rays) pairs) against ``annihilators`` (run on a worker)."""
    import flint

    from ..exact.matrix import QMatrix
    X = QMatrix(flint.fmpz_mat(rows), den)
    return [face_decision(X, members, S, annihilators, r, keep) for S, members in items]


def face_decisions(X, faces: list, cs: list, r: int, *, keep: bool, executor: Executor | None = None,
                   workers: int = 2) -> Iterator[tuple]:
    """``(support, found, certificates)`` for each face of ``faces`` ((support, member rays) pairs), in order,
    each decided against the span of ``cs`` and of the units found at the faces before it."""
    cs = list(cs)
    A = annihilator(cs, r)
    if executor is None:
        for S, members in faces:
            found, certs = face_decision(X, members, S, A, r, keep)
            yield S, found, certs
            if found:
                cs.append(found[0])
                A = annihilator(cs, r)
        return
    rows, den = _plain(X)
    size = max(1, min(32, math.ceil(len(faces) / (8 * workers))))
    pending: deque = deque()  # (index of the chunk's first face, future)
    nxt = 0
    try:
        while nxt < len(faces) or pending:
            while nxt < len(faces) and len(pending) < 2 * workers:
                pending.append((nxt, executor.submit(decide_faces, rows, den, faces[nxt:nxt + size], A, r, keep)))
                nxt += size
            start, fut = pending.popleft()
            for j, (found, certs) in enumerate(fut.result()):
                yield faces[start + j][0], found, certs
                if found:  # the span grew: what was decided after this face used the old one
                    cs.append(found[0])
                    A = annihilator(cs, r)
                    for _, f in pending:
                        f.cancel()
                    pending.clear()
                    nxt = start + j + 1
                    break
    finally:
        for _, f in pending:
            f.cancel()
