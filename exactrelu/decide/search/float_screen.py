"""A float screen for the lazy engine's optional checks: HiGHS says which systems are worth an exact LP.

The half-row check of :mod:`exactrelu.decide.search.lazy` (each output's positive units alone, then its negative
units alone) only looks for *shorter* lemmas; the whole system is decided exactly after it either way.
So a float answer may choose whether to spend an exact LP on it: :func:`probably_feasible` asks HiGHS,
and only a system HiGHS does not find feasible goes to the exact decision. A wrong float answer costs
a shorter lemma or one exact LP, never an answer (float proposes, exact decides).

>>> probably_feasible([("a", {"x": 1}, 1, False), ("b", {"x": -1}, -2, False)])   # x <= 1 and x >= 2
False
>>> probably_feasible([("a", {"x": 1, "y": 1}, 1, False)])
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["probably_feasible"]

_SOLVER: list = []  # one HiGHS object, reused (making one costs more than solving a small system)


def probably_feasible(rows) -> bool:
    """HiGHS' opinion on ``{v : rows}`` (``(tag, coefs, rhs, is_eq)`` integer rows): True if it finds a point."""
    import highspy

    from ...exact.lp_highs import feasibility_lp, new_highs, scale_rows

    keys = sorted({key for r in rows for key in r[1]}, key=repr)
    if not keys:
        return all((r[2] == 0) if r[3] else (r[2] >= 0) for r in rows)
    index = {key: c for c, key in enumerate(keys)}
    m, n = len(rows), len(keys)
    try:
        A = np.zeros((m, n))
        b = np.array([float(r[2]) for r in rows])
        for t, r in enumerate(rows):
            for key, a in r[1].items():
                A[t, index[key]] = float(a)
    except OverflowError:
        return False
    scale_rows(A, b)
    if not _SOLVER:
        _SOLVER.append(new_highs())
    h = _SOLVER[0]
    h.clearModel()
    eq = np.array([bool(r[3]) for r in rows])
    h.passModel(feasibility_lp(A, np.where(eq, b, -highspy.kHighsInf), b))
    h.run()
    return h.getModelStatus() == highspy.HighsModelStatus.kOptimal
