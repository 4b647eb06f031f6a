"""Bounds of affine forms over a polyhedron ``{v : g_i(v) <= 0}``: floats screen, exact LPs prove.

:func:`screen` asks HiGHS (SciPy's ``linprog``) for the range of a form: a proposal that only chooses what to
prove. :func:`prove_at_most` proves ``T(v) <= 0`` on the polyhedron with multipliers ``mu >= 0`` such that
``sum mu_i a_i = t`` and ``tau - sum mu_i alpha_i <= 0`` (for ``g_i = a_i . v + alpha_i``, ``T = t . v + tau``),
found as the Farkas vector of the homogenized system ``{a_i . v + alpha_i s <= 0, s >= 0, t . v + tau s >= 1}``
(it has a solution exactly when T > 0 somewhere on a non-empty polyhedron, or the polyhedron is unbounded along
T) by :func:`exactrelu.exact.lp.feasible`, exactly. :func:`prove_empty` gives a Farkas vector of the polyhedron.

>>> rows = [("a", ({0: Fraction(-1)}, Fraction(0))), ("b", ({0: Fraction(1)}, Fraction(-2)))]   # 0 <= x <= 2
>>> prove_at_most(rows, ({0: Fraction(1)}, Fraction(-3)))                                     # x - 3 <= 0
{'b': Fraction(1, 1)}
>>> prove_at_most(rows, ({0: Fraction(1)}, Fraction(-1)))                                     # x - 1 <= 0?
('point', [Fraction(2, 1)])
>>> screen(rows, ({0: Fraction(1)}, Fraction(0)))
(0.0, 2.0)
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...exact.lp import feasible
from ...exact.lp_highs import feasibility_lp, new_highs

__all__ = ["screen", "prove_at_most", "prove_empty", "variables_of", "box_proof", "box_farkas"]

Row = tuple[object, tuple[dict, Fraction]]


def variables_of(rows: list[Row], *forms) -> list[int]:
    """The variables that appear in the rows and the forms, sorted."""
    seen: set = set()
    for _, (f, _) in rows:
        seen.update(f)
    for f, _ in forms:
        seen.update(f)
    return sorted(seen)


def _matrix(rows: list[Row], index: dict, extra: int = 0) -> list[list[Fraction]]:
    out = []
    for _, (f, k) in rows:
        r = [Fraction(0)] * (len(index) + extra)
        for v, a in f.items():
            r[index[v]] = a
        if extra:
            r[-1] = k
        out.append(r)
    return out


def screen(rows: list[Row], form: tuple[dict, Fraction], found: dict | None = None) -> tuple[float, float] | None:
    """(min, max) of the form over the polyhedron in floating point (+-inf when unbounded), or None when HiGHS
    calls it empty. A proposal only: nothing here decides a claim. With ``found`` (a dict), HiGHS's row duals and
    points of both solves are put there (``"min"``, ``"max"``: (row duals, {variable: value})) for the caller to
    turn into exact proofs."""
    import highspy

    index = {v: i for i, v in enumerate(variables_of(rows, form))}
    if not index:
        return (float(form[1]),) * 2
    A = np.array([[float(x) for x in r] for r in _matrix(rows, index)]) if rows else np.zeros((0, len(index)))
    b = np.array([-float(k) for _, (_, k) in rows])
    c = np.zeros(len(index))
    for v, a in form[0].items():
        c[index[v]] = float(a)
    h = new_highs()
    h.passModel(feasibility_lp(A, np.full(len(rows), -highspy.kHighsInf), b))
    out = []
    for sense in (highspy.ObjSense.kMinimize, highspy.ObjSense.kMaximize):
        h.changeObjectiveSense(sense)
        h.changeColsCost(len(c), np.arange(len(c), dtype=np.int32), c)
        h.run()
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            return None
        if status == highspy.HighsModelStatus.kOptimal:
            out.append(h.getInfo().objective_function_value + float(form[1]))
            if found is not None:
                sol = h.getSolution()
                found["min" if sense == highspy.ObjSense.kMinimize else "max"] = (
                    list(sol.row_dual), {v: sol.col_value[i] for v, i in index.items()})
        else:  # unbounded (or undecided: then no sign is claimed either way)
            out.append(-np.inf if sense == highspy.ObjSense.kMinimize else np.inf)
    return out[0], out[1]


def box_proof(rows: list[Row], target: tuple[dict, Fraction], duals: list[float], d: int,
              box: tuple[list, list], strict: bool = False) -> dict | None:
    """Multipliers {label: mu > 0} proving ``target <= 0`` (a form in the inputs 0 .. d-1) on the polyhedron, built
    from float duals: each row that reads the inputs only takes |its dual| (as the exact dyadic rational it is),
    and the box's rows absorb what is left of the coefficients exactly (the box bounds every input), so the
    combination matches ``target`` by construction; None unless its constant proves ``target <= 0`` exactly
    (``target < 0`` with ``strict``: a Farkas vector for the target 0).

    >>> rows = [(("phase", 0), ({0: Fraction(1), 1: Fraction(1)}, Fraction(-1)))]          # x0 + x1 <= 1
    >>> box_proof(rows, ({0: Fraction(1), 1: Fraction(1)}, Fraction(-1)), [-1.0], 2, ([0, 0], [2, 2]))
    {('phase', 0): Fraction(1, 1)}
    >>> box_proof(rows, ({0: Fraction(1)}, Fraction(-1)), [0.0], 2, ([0, 0], [2, 2])) is None     # x0 <= 1? no
    True
    >>> box_proof([], ({0: Fraction(-1)}, Fraction(1)), [], 1, ([1], [2]))                       # 1 - x0 <= 0
    {('lower', 0): Fraction(1, 1)}
    """
    mult: dict = {}
    acc: dict = {}
    const = Fraction(0)
    for (label, (f, k)), y in zip(rows, duals):
        if label[0] in ("lower", "upper") or not y or any(v >= d for v in f):
            continue
        m = Fraction(abs(y))
        mult[label] = m
        for v, a in f.items():
            acc[v] = acc.get(v, 0) + m * a
        const += m * k
    for t in range(d):
        r = target[0].get(t, 0) - acc.get(t, 0)
        if r:
            mult[("upper" if r > 0 else "lower", t)] = abs(r)
            const += -r * (box[1][t] if r > 0 else box[0][t])  # r (x_t - u_t), or -r (l_t - x_t) when r < 0
    return mult if (target[1] - const < 0 if strict else target[1] - const <= 0) else None


def box_farkas(rows: list[Row], d: int, box: tuple[list, list]) -> dict | None:
    """Multipliers proving the polyhedron (inside the box) empty, or None: HiGHS minimizes s subject to
    ``g_i <= s`` over the rows that are not the box's (the box as column bounds); at an optimum s* > 0 its duals
    y (sum 1) have ``sum y_i g_i >= s* > 0`` on the box, made exact by :func:`box_proof`.

    >>> rows = [(("phase", 0), ({0: Fraction(1)}, Fraction(-1))), (("phase", 1), ({0: Fraction(-1)}, Fraction(2)))]
    >>> sorted(box_farkas(rows, 1, ([0], [5])).items())                       # x <= 1 and x >= 2
    [(('phase', 0), Fraction(1, 2)), (('phase', 1), Fraction(1, 2))]
    """
    import highspy

    inner = [(label, f) for label, f in rows if label[0] not in ("lower", "upper")]
    names = sorted(set(variables_of(inner)) | set(range(d)))
    index = {v: i for i, v in enumerate(names)}
    A = np.array([[float(x) for x in r] + [-1.0] for r in _matrix(inner, index)]).reshape(len(inner), len(names) + 1)
    h = new_highs()
    lp = feasibility_lp(A, np.full(len(inner), -highspy.kHighsInf), np.array([-float(k) for _, (_, k) in inner]))
    inf = highspy.kHighsInf
    lp.col_lower_ = np.array([float(box[0][v]) if v < d else -inf for v in names] + [-inf])
    lp.col_upper_ = np.array([float(box[1][v]) if v < d else inf for v in names] + [inf])
    lp.col_cost_ = np.array([0.0] * len(names) + [1.0])
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal or h.getInfo().objective_function_value <= 0:
        return None
    return box_proof(inner, ({}, Fraction(0)), list(h.getSolution().row_dual), d, box, strict=True)


def prove_at_most(rows: list[Row], target: tuple[dict, Fraction], deadline=None) -> dict | tuple[str, list[Fraction]]:
    """Multipliers {label: mu > 0} proving ``target <= 0`` on the polyhedron; else ``("point", p)``, a point of it
    where target > 0, or ``("ray", r)``, a direction of it along which target grows (``a_i . r <= 0``,
    ``t . r >= 1``): p and r list the variables in the order of :func:`variables_of`."""
    names = variables_of(rows, target)
    index = {v: i for i, v in enumerate(names)}
    A = _matrix(rows, index, extra=1)
    n = len(names) + 1
    A.append([Fraction(0)] * (n - 1) + [Fraction(-1)])  # s >= 0
    top = [Fraction(0)] * n
    for v, a in target[0].items():
        top[index[v]] = -a
    top[-1] = -target[1]
    A.append(top)  # -(t . v + tau s) <= -1
    res = feasible(A_ub=A, b_ub=[0] * (len(A) - 1) + [-1], nvars=n, time_limit=deadline)
    if res.status == "infeasible":
        y = res.farkas[1]
        scale = y[-1]
        return {label: m / scale for (label, _), m in zip(rows, y) if m}
    s = res.point[-1]
    return ("point", [x / s for x in res.point[:-1]]) if s > 0 else ("ray", res.point[:-1])


def prove_empty(rows: list[Row], deadline=None) -> dict | tuple[str, list[Fraction]]:
    """Multipliers {label: mu > 0} with ``sum mu_i a_i = 0`` and ``sum mu_i alpha_i > 0`` (the polyhedron is
    empty), or ``("point", p)``, a point of it (the variables of :func:`variables_of`)."""
    index = {v: i for i, v in enumerate(variables_of(rows))}
    A = _matrix(rows, index)
    res = feasible(A_ub=A, b_ub=[-k for _, (_, k) in rows], nvars=len(index), time_limit=deadline)
    if res.status == "feasible":
        return "point", res.point
    return {label: m for (label, _), m in zip(rows, res.farkas[1]) if m}
