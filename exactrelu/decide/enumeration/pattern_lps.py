"""The exact LPs of the worst-case solver: is one sign pattern (an extreme ray, or a face) realizable?

An extreme ray w of the cone of non-negative vectors of the labels' row span is realizable when some v
has ``v . x_j = w_j`` on its support and ``v . x_j <= 0`` off it (:func:`unit_lp`). A higher face with
rays R is searched for a realizable ``w = sum lambda_r r`` outside the span found so far, one LP per
functional vanishing on that span and sign (:func:`face_lp`, :func:`face_decision`). Each LP is
decided exactly (:func:`exactrelu.exact.lp.feasible`) and its certificate kept on request. Used by the
serial solver (:mod:`.worstcase`) and its parallel runner (:mod:`.worstcase_parallel`).

>>> from exactrelu.exact.matrix import QMatrix
>>> X = QMatrix.from_rows([[1, 0], [0, 1], [-1, -1]])
>>> unit_lp(X, [1, 0, 0], (0,)).status, unit_lp(X, [1, 1, 1], (0, 1, 2)).status
('feasible', 'infeasible')
>>> annihilator([(1, 0)], 2)
[[0, -1]]
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import flint

from ...certificates.claims.lp import lp_certificate
from ...deadline import Deadline
from ...exact.lp import LPResult, feasible
from ...exact.matrix import QMatrix
from .patterns import Ray

__all__ = ["unit_lp", "face_lp", "annihilator", "face_decision", "ray_decision", "Unit", "RayDecision", "FaceDecision"]


class Unit(NamedTuple):
    """A realizable non-negative row of the labels' row span: ``w = c^T B`` (``c`` integers, ``B`` the basis of
    the solver) and weights ``v`` with ``relu(v X) = w``."""

    c: tuple[int, ...]
    v: list[Fraction]


class RayDecision(NamedTuple):
    """One extreme ray decided: the LP's ``status``, its ``point`` v (when feasible), its certificates (when kept)."""

    status: str
    point: list[Fraction] | None
    certificates: list[dict]


class FaceDecision(NamedTuple):
    """One face decided: its ``support``, the realizable row outside the span it holds (or None), the certificates."""

    support: tuple[int, ...]
    unit: Unit | None
    certificates: list[dict]


def unit_lp(X: QMatrix, w: list[Fraction] | tuple[int, ...], support, deadline: Deadline | None = None) -> LPResult:
    """Is there v with ``v . x_j = w_j`` on the support and ``v . x_j <= 0`` off it? (``deadline``: the exact
    LP checks it before every pivot, HiGHS gets what is left.)"""
    n = X.shape[0]
    S = set(support)
    # any positive multiple of w will do: scale it near 1 by a power of two (exact) so that
    # the float proposal sees well-scaled numbers
    top = max((abs(x) for x in w), default=0)
    if top:
        e = top.numerator.bit_length() - top.denominator.bit_length() if isinstance(top, Fraction) else top.bit_length()
        w = [Fraction(x) / Fraction(2) ** e for x in w]
    on = [j for j in range(n) if j in S]
    off = [j for j in range(n) if j not in S]
    return feasible(
        A_eq=X.take_rows(on) if on else None, b_eq=[w[j] for j in on] if on else None,
        A_ub=X.take_rows(off) if off else None, b_ub=[0] * len(off) if off else None, nvars=X.shape[1],
        time_limit=deadline,
    )


def face_lp(X: QMatrix, rays: list[Ray], support, a: list[int], sign: int,
            deadline: Deadline | None = None) -> LPResult:
    """Exists ``lambda >= 0, v``: ``w = sum lambda_r w_r``, ``v . x_j = w_j`` on S, ``<= 0`` off S,
    and ``a . c(w) = sign``? Variables ``(lambda, v)``."""
    n, d = X.shape
    q = len(rays)
    Xr = X.to_fractions()
    S = set(support)
    Ae, be, Au, bu = [], [], [], []
    for j in range(n):
        if j in S:
            Ae.append([-Fraction(r.w[j]) for r in rays] + Xr[j])
            be.append(0)
        else:
            Au.append([Fraction(0)] * q + Xr[j])
            bu.append(0)
    for i in range(q):
        Au.append([Fraction(-1 if t == i else 0) for t in range(q)] + [Fraction(0)] * d)
        bu.append(0)
    Ae.append([Fraction(sum(x * y for x, y in zip(a, r.c))) for r in rays] + [Fraction(0)] * d)
    be.append(sign)
    return feasible(A_eq=Ae, b_eq=be, A_ub=Au, b_ub=bu, time_limit=deadline)


def annihilator(cs: list[tuple[int, ...]], r: int) -> list[list[int]]:
    """Integer vectors a with ``a . c = 0`` for every c in ``cs`` (a basis), in Q^r."""
    if not cs:
        return [[int(i == j) for j in range(r)] for i in range(r)]
    N, nullity = flint.fmpz_mat([list(c) for c in cs]).nullspace()
    return [[int(N[i, j]) for i in range(r)] for j in range(int(nullity))]


def ray_decision(X: QMatrix, ray: Ray, keep: bool, deadline: Deadline | None = None) -> RayDecision:
    """One extreme ray: is it realizable (:func:`unit_lp`)? With its LP certificate when ``keep``."""
    res = unit_lp(X, ray.w, ray.support, deadline)
    return RayDecision(res.status, res.point, [lp_certificate(res)] if keep else [])


def face_decision(X: QMatrix, members: list[Ray], S: tuple[int, ...], annihilators: list[list[int]], r: int,
                  keep: bool, deadline: Deadline | None = None) -> FaceDecision:
    """One face: a realizable row outside the span (a :class:`Unit`) or None, and the LP certificates
    (``deadline``: checked before every LP and inside each)."""
    certs = []
    for a in annihilators:
        for sign in (1, -1):
            if deadline is not None:
                deadline.check(lambda: f"a face of {len(members)} extreme rays being decided")
            res = face_lp(X, members, S, a, sign, deadline)
            if keep:
                certs.append(lp_certificate(res))
            if res.status == "feasible":
                lam = res.point[: len(members)]
                c = [sum(l * rr.c[i] for l, rr in zip(lam, members)) for i in range(r)]
                den = math.lcm(*(x.denominator for x in c))
                unit = Unit(tuple(int(x * den) for x in c), [v * den for v in res.point[len(members):]])
                return FaceDecision(tuple(S), unit, certs)
    return FaceDecision(tuple(S), None, certs)
