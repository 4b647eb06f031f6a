"""Exact elimination on the equations of one system, before any LP (the generic instances' fast path).

On instances in general position (every sample has all d coordinates) propagation fixes nothing, and every
model of the lazy engine used to cost one exact LP. Most of those systems are decided by the equations
alone, so :func:`eliminate` first row-reduces them exactly (FLINT, fraction-free):

* **inconsistent equations**: every equation that is not a combination of a basis of the others
  with the same right-hand side is a core (itself and the basis rows: at most rank + 1 rows);
* **a unique solution**: every inequality it violates is a core (that row and the basis equations
  expressing its coefficients);
* otherwise (a solution space of positive dimension, or a unique point satisfying every row)
  the caller's LP decides, or the point is returned.

Each core is on the *substituted* rows (propagated variables replaced by their values); the caller
turns it into a combination of the original rows by back-substitution. Nothing here is trusted: the
multipliers are exact and the checker verifies each lemma's combination itself.

>>> rows = [(0, {"x": 1}, 1, True), (1, {"x": 1}, 2, True)]
>>> eliminate(rows, [0, 1], {})
(None, [{1: Fraction(-1, 1), 0: Fraction(1, 1)}])
>>> eliminate([(0, {"x": 2}, 2, True), (1, {"x": 1}, 0, False)], [0, 1], {})
(None, [{1: Fraction(1, 1), 0: Fraction(-1, 2)}])
"""

from __future__ import annotations

from fractions import Fraction

import flint

__all__ = ["eliminate", "substituted"]


def substituted(rows, residual: list[int], val: dict):
    """The rows ``residual`` with the fixed values ``val`` substituted, in integers.

    Returns ``(cols, lines)``: the free variables (in a fixed order) and, per residual row, ``(ri, coefficients
    over cols, integer rhs, den)`` where the integer row is ``den`` times the substituted original row.

    >>> substituted([(0, {"x": 2, "y": 1}, 1, True)], [0], {"y": Fraction(1, 3)})
    (['x'], [(0, [6], 2, 3)])
    """
    cols = sorted({key for ri in residual for key in rows[ri][1] if key not in val}, key=repr)
    index = {key: c for c, key in enumerate(cols)}
    lines = []
    for ri in residual:
        coefs, rhs = rows[ri][1], rows[ri][2]
        line = [0] * len(cols)
        if val and any(key in val for key in coefs):
            b = Fraction(rhs) - sum(a * val[key] for key, a in coefs.items() if key in val)
            num, den = b.numerator, b.denominator
        else:  # nothing to substitute (instances in general position): integers throughout
            num, den = rhs, 1
        for key, a in coefs.items():
            if key not in val:
                line[index[key]] = a * den
        lines.append((ri, line, num, den))
    return cols, lines


def eliminate(rows, residual: list[int], val: dict, max_cores: int = 256):
    """Decide the residual system by its equations when they suffice: ``(point, [])``, ``(None, cores)`` or None.

    ``rows`` are ``(tag, coefs, rhs, is_eq)`` integer rows, ``residual`` the indices still holding unknowns,
    ``val`` the propagated values. A core is ``{row index: multiplier}`` on the original rows *before* the
    propagated variables are canceled (the caller's back-substitution does that); ``y >= 0`` on
    inequalities and the substituted combination reads ``0 <= negative`` (or ``0 == negative``).
    ``point`` maps the free variables to Fractions. None: the equations leave freedom, an LP must decide.
    """
    cols, lines = substituted(rows, residual, val)
    eqs = [ln for ln in lines if rows[ln[0]][3]]
    nc = len(cols)
    if not eqs or not nc:
        return None
    ET = flint.fmpz_mat(nc, len(eqs), [eqs[q][1][c] for c in range(nc) for q in range(len(eqs))])
    R, den, rank = ET.rref()
    den = int(den)
    pivots = []
    for t in range(rank):
        pivots.append(next(q for q in range(len(eqs)) if R[t, q] != 0))
    basis = set(pivots)
    cores = []
    for q in range(len(eqs)):
        if q in basis:
            continue
        coef = [int(R[t, q]) for t in range(rank)]
        res = den * eqs[q][2] - sum(c * eqs[p][2] for c, p in zip(coef, pivots))
        if res != 0:  # E_q = sum_t (coef_t / den) E_p_t, but the right-hand sides disagree
            s = -1 if res > 0 else 1
            y = {eqs[q][0]: Fraction(s * den * eqs[q][3])}
            for c, p in zip(coef, pivots):
                if c:
                    y[eqs[p][0]] = Fraction(-s * c * eqs[p][3])
            cores.append(y)
            if len(cores) >= max_cores:
                break
    if cores or rank < nc:
        return (None, cores) if cores else None
    return _unique(rows, lines, [eqs[p] for p in pivots], cols, max_cores)


def _unique(rows, lines, basis, cols, max_cores):
    """The equations fix every free variable: the point, or the inequalities it violates as cores."""
    nc = len(cols)
    EP = flint.fmpz_mat(nc, nc, [a for ln in basis for a in ln[1]])
    bP = flint.fmpz_mat(nc, 1, [ln[2] for ln in basis])
    v = EP.solve(bP, integer=False)
    point = [Fraction(int(v[c, 0].p), int(v[c, 0].q)) for c in range(nc)]
    vq = [v[c, 0] for c in range(nc)]
    bad = []
    for ln in lines:
        if not rows[ln[0]][3]:
            lhs = sum((a * x for a, x in zip(ln[1], vq) if a), flint.fmpq(0))
            if lhs > ln[2]:
                bad.append(ln)
                if len(bad) >= max_cores:
                    break
    if not bad:
        return dict(zip(cols, point)), []
    # c with EP^T c = a_s for each violated row s: then a_s - c^T EP = 0 and b_s - c^T bP = b_s - a_s . v < 0
    A = flint.fmpz_mat(nc, len(bad), [ln[1][c] for c in range(nc) for ln in bad])
    C = EP.transpose().solve(A, integer=False)
    cores = []
    for s, ln in enumerate(bad):
        y = {ln[0]: Fraction(ln[3])}
        for t, e in enumerate(basis):
            c = C[t, s]
            if c != 0:
                y[e[0]] = y.get(e[0], 0) - Fraction(int(c.p), int(c.q)) * e[3]
        cores.append(y)
    return None, cores
