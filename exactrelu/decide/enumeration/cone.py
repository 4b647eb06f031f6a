"""Steps 2 and 3 of the worst-case solver: the realizable extreme rays of the cone K, then its higher faces.

:func:`enumerate_units` adds realizable rows of the labels' row span to ``units`` until they span r dimensions, and
reports every pattern it examined with its exact reason (:class:`PatternReport`); the rays and faces are decided by
small exact LPs (``pattern_lps.py``), on an executor when one is given (``worstcase_parallel.py``), always in the
patterns' order. :func:`exactrelu.decide.enumeration.worstcase.solve_decision` is the front door.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import flint

from ...deadline import Deadline
from ...exact.matrix import QMatrix
from .pattern_lps import Unit
from .patterns import _Progress, extreme_rays, nonnegative_patterns

__all__ = ["PatternReport", "EnumerationOptions", "enumerate_units"]


@dataclass
class PatternReport:
    """What was decided about one pattern (a support of non-negative vectors of the row span)."""

    support: tuple[int, ...]
    kind: str  # "extreme-ray" or "face"
    outcome: str  # "unit" (used), "in-span" (realizable, dependent), "refuted"
    reason: str
    certificates: list[dict] = field(default_factory=list)  # lp-feasible / lp-infeasible


@dataclass(frozen=True)
class EnumerationOptions:
    """How the enumeration runs (none of it changes the answer)."""

    progress: bool
    keep: bool
    deadline: Deadline
    executor: object
    workers: int


def _rank(cs: list[tuple[int, ...]]) -> int:
    return flint.fmpz_mat([list(c) for c in cs]).rank() if cs else 0


def enumerate_units(X: QMatrix, B, r: int, units: list, reports: list, opt: EnumerationOptions) -> None:
    """Steps 2 and 3: realizable extreme rays, then higher faces, until the units span r dimensions."""
    from .worstcase_parallel import ray_decisions

    deadline = opt.deadline
    rays = extreme_rays(B, deadline=deadline)
    bar = _Progress(len(rays), opt.progress, "extreme rays")
    decisions = ray_decisions(X, rays, keep=opt.keep, executor=opt.executor, workers=opt.workers, deadline=deadline)
    try:
        for number, (ray, decided) in enumerate(zip(rays, decisions)):
            bar(1)
            deadline.check(lambda: f"rank(labels) = {r}; {number} of {len(rays)} extreme rays decided, "
                                   f"{len(units)} units")
            certs = decided.certificates
            if decided.status == "infeasible":
                reports.append(PatternReport(ray.support, "extreme-ray", "refuted",
                                             "no v with v.x_j = w_j on the support and v.x_j <= 0 off it "
                                             "(Farkas vector)", certs))
            elif _rank([u.c for u in units] + [ray.c]) > len(units):
                units.append(Unit(ray.c, decided.point))
                reports.append(PatternReport(ray.support, "extreme-ray", "unit",
                                             "realizable; independent of the units so far", certs))
            else:
                reports.append(PatternReport(ray.support, "extreme-ray", "in-span",
                                             "realizable; in the span of the units so far", certs))
            if len(units) == r:
                break
    finally:
        decisions.close()  # stop the parallel decisions still in flight
    bar.close()
    if len(units) < r:
        _search_faces(X, B, rays, r, units, reports, opt)


def _search_faces(X, B, rays, r, units, reports, opt: EnumerationOptions) -> None:
    """Step 3: realizable rows inside higher faces, outside the current span, until none is left."""
    from .worstcase_parallel import face_decisions

    deadline = opt.deadline
    supports = [s for s in nonnegative_patterns(B, rays=rays, deadline=deadline) if s]
    ray_support = {rr.support for rr in rays}
    faces = [(S, [rr for rr in rays if set(rr.support) <= set(S)]) for S in supports if S not in ray_support]
    bar = _Progress(len(faces), opt.progress, "faces")
    changed = True
    final: dict[tuple[int, ...], PatternReport] = {}
    while changed and len(units) < r:
        changed = False
        decisions = face_decisions(X, faces, [u.c for u in units], r, keep=opt.keep, executor=opt.executor,
                                   workers=opt.workers, deadline=deadline)
        try:
            for decided in decisions:
                bar(1)
                deadline.check(lambda: f"rank(labels) = {r}; {len(units)} units; faces of the cone being searched")
                S, certs = decided.support, decided.certificates
                if decided.unit:
                    units.append(decided.unit)
                    final[S] = PatternReport(S, "face", "unit", "realizable row outside the span of the units so far",
                                             certs)
                    changed = True
                    if len(units) == r:
                        break
                else:
                    final[S] = PatternReport(S, "face", "refuted",
                                             f"every realizable row of this face lies in the span of the "
                                             f"{len(units)} units so far (Farkas vectors for both signs of every "
                                             "functional vanishing on that span)", certs)
        finally:
            decisions.close()  # stop the parallel decisions still in flight
    bar.close()
    reports.extend(final.values())
