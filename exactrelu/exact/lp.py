"""Exact linear-programming feasibility with certificates.

Decide, over the rationals, whether ``{x : A_eq x = b_eq, A_ub x <= b_ub}`` (x free) is
empty, and prove the answer:

* **feasible**: a rational point satisfying every constraint exactly;
* **infeasible**: a Farkas vector ``(y_eq, y_ub)`` with ``y_ub >= 0``,
  ``y_eq^T A_eq + y_ub^T A_ub = 0`` and ``y_eq^T b_eq + y_ub^T b_ub < 0``
  (adding the constraints with these weights gives ``0 <= negative``).

Float proposes, exact disposes (docs/design.md). The methods, tried in order:

1. ``"highs"``: HiGHS (dual simplex, presolve off: faster on our LPs) proposes a basis or a dual ray. A
   feasible basis is re-solved exactly (its active rows and the free columns it keeps at
   zero form a square system, solved in FLINT) and the point is checked against every
   constraint. A dual ray is re-solved exactly on its support (the left kernel of the
   support rows, or a small exact LP on them when the kernel is larger than a line).
   Rounding the float point itself was measured to verify in 2 cases of 23: it is never used.
2. ``"highs-presolve"``: the same with presolve, when the first proposal does not verify
   (HiGHS' presolve was once seen to call a feasible system infeasible: the exact check
   catches such answers whichever path gives them).
3. ``"exact-simplex"``: our own rational simplex (Bland's rule, FLINT ``fmpq``) on the
   Farkas system ``{y : y^T [A | b] = (0, -1), y_ub >= 0}`` -- only ``nvars + 1`` rows, so it
   suits systems with many constraints and few variables (pattern LPs: samples x dimension).
   Phase 1 either finds a Farkas vector or ends with duals that *are* a feasible point.
   It always decides; its answer is checked exactly like the others.

The jobs live in their own modules: the system in integer form and the exact checks of witnesses
(:mod:`.lp_system`), the HiGHS proposal and its exact confirmation (:mod:`.lp_highs`), the exact simplex
(:mod:`.lp_simplex`); this module is the front door that chains them.

Whatever path decides, the returned witness has been verified exactly here;
:func:`exactrelu.certificates.claims.lp.lp_certificate` writes it into the JSON envelope (claims
``lp-feasible`` and ``lp-infeasible``) that the independent stdlib checker verifies again.

>>> res = feasible(A_ub=[[1, 1], [-1, 0], [0, -1]], b_ub=[1, 0, 0])
>>> res.status, all(v >= 0 for v in res.point), sum(res.point) <= 1
('feasible', True, True)
>>> res = feasible(A_eq=[[1, 1]], b_eq=[3], A_ub=[[1, 0], [0, 1]], b_ub=[1, 1])
>>> res.status, res.farkas
('infeasible', ([Fraction(-1, 1)], [Fraction(1, 1), Fraction(1, 1)]))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from ..deadline import Deadline
from ..errors import ExactReluError, InvalidInput
from .lp_highs import Proposal, confirm_point, confirm_ray, highs_propose
from .lp_simplex import exact_simplex
from .lp_system import LPSystem, build_system, check_farkas, check_point

__all__ = ["feasible", "LPResult", "METHODS"]

#: Methods accepted by :func:`feasible`: ``"auto"`` (HiGHS proposals, then the exact simplex)
#: or ``"exact"`` (the exact simplex only, no floating point at all).
METHODS = ("auto", "exact")

# -- the public function ----------------------------------------------------------------------------

@dataclass
class LPResult:
    """The exact answer of :func:`feasible`, with its witness.

    Attributes
    ----------
    status : ``"feasible"`` or ``"infeasible"`` (never undecided).
    point : a point satisfying every constraint exactly (feasible), else None.
    farkas : ``(y_eq, y_ub)`` (infeasible), else None: ``y_ub >= 0``,
        ``y_eq^T A_eq + y_ub^T A_ub = 0``, ``y_eq^T b_eq + y_ub^T b_ub < 0``.
    method : which path decided: ``"trivial"``, ``"highs"``, ``"highs-presolve"``,
        ``"exact-simplex"``.
    """

    status: str
    point: list[Fraction] | None
    farkas: tuple[list[Fraction], list[Fraction]] | None
    method: str
    nvars: int
    system: tuple = field(repr=False, default=())


def _feasible_result(S: LPSystem, num: list[int], den: int, method: str) -> LPResult:
    return LPResult("feasible", [Fraction(v, den) for v in num], None, method, S.n, S.user)


def _infeasible_result(S: LPSystem, y: list[int], method: str) -> LPResult:
    ye = [v * S.scale_eq for v in y[: S.m_eq]]
    yu = [v * S.scale_ub for v in y[S.m_eq:]]
    g = 0
    for v in ye + yu:
        g = math.gcd(g, v)
    farkas = ([Fraction(v // g) for v in ye], [Fraction(v // g) for v in yu])
    return LPResult("infeasible", None, farkas, method, S.n, S.user)


def _decide_trivial(S: LPSystem) -> LPResult | None:
    if S.m == 0:
        return _feasible_result(S, [0] * S.n, 1, "trivial")
    if S.n == 0:
        for i, b in enumerate(S.r):
            if (b != 0) if i < S.m_eq else (b < 0):
                y = [0] * S.m
                y[i] = -1 if (i < S.m_eq and b > 0) else 1
                return _infeasible_result(S, y, "trivial")
        return _feasible_result(S, [], 1, "trivial")
    return None


#: the float proposer (a module attribute so tests can replace it by a liar)
_propose: Callable[[LPSystem, bool], Proposal] = highs_propose


def _proposed(S: LPSystem) -> LPResult | None:
    """HiGHS proposes, FLINT confirms: the confirmed result, or None (the exact simplex decides then)."""
    # without presolve first: 17 ms against 48 ms on pattern LPs at n = 1000 (benchmarks/bench_lp.py),
    # and HiGHS' presolve was once seen to call a feasible system infeasible; presolve is the retry
    for presolve, name in ((False, "highs"), (True, "highs-presolve")):
        prop = _propose(S, presolve)
        if prop.status == "feasible":
            pt = confirm_point(S, prop.active_rows, prop.zero_cols)
            if pt is None and prop.tight_rows:
                pt = confirm_point(S, prop.tight_rows, [])
            if pt is not None:
                return _feasible_result(S, *pt, name)
        elif prop.status == "infeasible":
            y = confirm_ray(S, prop.ray)
            if y is not None:
                return _infeasible_result(S, y, name)
    return None


def feasible(A_eq=None, b_eq=None, A_ub=None, b_ub=None, *, nvars: int | None = None, method: str = "auto",
             time_limit: "float | Deadline | None" = None) -> LPResult:
    """Decide exactly whether ``{x : A_eq x = b_eq, A_ub x <= b_ub}`` has a point (x free).

    Parameters
    ----------
    A_eq, A_ub : QMatrix, FLINT ``fmpz_mat``/``fmpq_mat``, NumPy array (floats taken exactly)
        or nested lists of rationals (ints, Fractions, strings such as ``"2/3"``); may be None.
    b_eq, b_ub : one entry per row: a 1-D list or array, an ``m x 1`` matrix, or None with its matrix.
    nvars : number of variables; needed only when no matrix is given.
    method : ``"auto"`` (HiGHS proposes, FLINT proves, exact simplex as the last resort) or
        ``"exact"`` (the exact simplex only).
    time_limit : seconds (or a :class:`~exactrelu.deadline.Deadline`, shared with the caller's other work):
        HiGHS gets what is left, and the exact simplex checks it before every pivot.

    Returns
    -------
    LPResult
        ``status`` is ``"feasible"`` (with ``point``) or ``"infeasible"`` (with ``farkas``);
        the witness was verified exactly before returning.

    Raises
    ------
    InvalidInput
        Malformed or inconsistent shapes, non-finite numbers, unknown method.
    TimeLimitExceeded
        ``time_limit`` passed before the answer (nothing is claimed).

    Examples
    --------
    >>> feasible(A_eq=[["1/2", 1]], b_eq=[1], A_ub=[[-1, 0]], b_ub=[0]).status
    'feasible'
    >>> feasible(A_ub=[[1], [-1]], b_ub=[-1, 0]).farkas
    ([], [Fraction(1, 1), Fraction(1, 1)])
    >>> feasible(nvars=3).point
    [Fraction(0, 1), Fraction(0, 1), Fraction(0, 1)]
    """
    if method not in METHODS:
        raise InvalidInput(f"unknown LP method {method!r}; choose from {METHODS}")
    S = build_system(A_eq, b_eq, A_ub, b_ub, nvars)
    S.deadline = None if time_limit is None else Deadline.coerce(time_limit)
    res = _decide_trivial(S)
    if res is not None:
        return res
    if method == "auto":
        res = _proposed(S)
        if res is not None:
            return res
    status, w = exact_simplex(S, S.deadline)
    if status == "feasible" and check_point(S, *w):
        return _feasible_result(S, *w, "exact-simplex")
    if status == "infeasible" and check_farkas(S, w):
        return _infeasible_result(S, w, "exact-simplex")
    raise ExactReluError(  # pragma: no cover - the exact simplex is exact; this guards against bugs
        "internal error: the exact simplex produced a witness that does not verify; please report this system"
    )
