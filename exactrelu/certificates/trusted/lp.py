"""The claims ``lp-feasible`` and ``lp-infeasible`` (inline linear systems). Standard library only."""

from __future__ import annotations

from operator import mul

from .common import CheckFailed, read_matrix, only_fields, read_vector


def _lp_system(cert, extra):
    """The inline system of an LP claim: (n, A_eq, b_eq, A_ub, b_ub)."""
    only_fields(cert, {"format", "version", "claim", "system", "provenance"} | extra)
    s = cert.get("system")
    if not isinstance(s, dict) or set(s) != {"nvars", "A_eq", "b_eq", "A_ub", "b_ub"}:
        raise CheckFailed("system must have exactly nvars, A_eq, b_eq, A_ub, b_ub")
    n = s["nvars"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise CheckFailed("nvars must be a non-negative integer")
    out = [n]
    for a, b in (("A_eq", "b_eq"), ("A_ub", "b_ub")):
        if not isinstance(s[a], list):
            raise CheckFailed(f"{a} must be a list of rows")
        rows = len(s[a])
        out += [read_matrix(s[a], rows, n, a), read_vector(s[b], rows, b)]
    return out


def check_lp_feasible(cert: dict, instance=None) -> str:
    """Verify ``lp-feasible``: every constraint of the inline system holds at ``point``."""
    n, Ae, be, Au, bu = _lp_system(cert, {"point"})
    x = read_vector(cert.get("point"), n, "point")
    for i, (row, b) in enumerate(zip(Ae, be)):
        if sum(map(mul, row, x)) != b:
            raise CheckFailed(f"equation {i} fails at the point")
    for i, (row, b) in enumerate(zip(Au, bu)):
        if sum(map(mul, row, x)) > b:
            raise CheckFailed(f"inequality {i} fails at the point")
    return f"lp-feasible: {len(Ae)} equations, {len(Au)} inequalities in {n} variables hold at the point"


def check_lp_infeasible(cert: dict, instance=None) -> str:
    """Verify ``lp-infeasible``: the Farkas vector (y_eq, y_ub) proves that no point exists."""
    n, Ae, be, Au, bu = _lp_system(cert, {"y_eq", "y_ub"})
    ye = read_vector(cert.get("y_eq"), len(Ae), "y_eq")
    yu = read_vector(cert.get("y_ub"), len(Au), "y_ub")
    if any(v < 0 for v in yu):
        raise CheckFailed("y_ub has a negative entry")
    for j, column in enumerate(zip(*(Ae + Au))):  # no rows: the combination is zero (work ~ the entries given)
        if sum(map(mul, ye + yu, column)) != 0:
            raise CheckFailed(f"the combination y^T A is not zero in column {j}")
    if sum(map(mul, ye + yu, be + bu)) >= 0:
        raise CheckFailed("the combination y^T b is not negative")
    return f"lp-infeasible: {len(Ae)} equations, {len(Au)} inequalities in {n} variables have no solution (Farkas vector checked)"

