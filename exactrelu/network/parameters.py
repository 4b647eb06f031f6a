"""The canonical form of a two-layer network's *parameters* (docs/design.md, "Identifiability and canonical form").

Each unit's (V_i, b_i) is divided by the absolute value of the first non-zero entry of V_i and U's column i is
multiplied by that value to the power c; a unit with V_i = 0 is a constant, scaled to b_i = 1 when b_i > 0; a
dead unit (zero column of U, or V_i = 0 and b_i <= 0) is written all zero; units are sorted by (V_i, b_i, U's
column). Plain lists of Fractions in and out: :meth:`exactrelu.network.Network.canonical` builds the network.

>>> canonical_units([[Fraction(2)]], [[Fraction(4), Fraction(0)]], [Fraction(2)], 1)
[([Fraction(1, 1), Fraction(0, 1)], Fraction(1, 2), [Fraction(8, 1)])]
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["canonical_units", "largest_difference"]

Unit = tuple[list[Fraction], Fraction, list[Fraction]]


def canonical_units(U: list[list[Fraction]], V: list[list[Fraction]], b: list[Fraction], degree: int) -> list[Unit]:
    """The units ``(V_i, b_i, U's column i)`` of the canonical form, sorted (module docstring)."""
    d, m = len(V[0]), len(U)
    zero_v, zero_u = [Fraction(0)] * d, [Fraction(0)] * m
    units = []
    for i, row in enumerate(V):
        col = [U[r][i] for r in range(m)]
        if all(x == 0 for x in col) or (all(x == 0 for x in row) and b[i] <= 0):
            units.append((zero_v, Fraction(0), zero_u))  # a dead unit computes 0: zero it all
            continue
        s = next((abs(x) for x in row if x != 0), b[i])  # V_i = 0: a constant unit, scaled to b_i = 1
        units.append(([x / s for x in row], b[i] / s, [x * s**degree for x in col]))
    units.sort(key=lambda u: (u[0], u[1], u[2]))
    return units


def largest_difference(pairs) -> Fraction:
    """The largest ``|x - y|`` over pairs of equally shaped matrices (rows of Fractions).

    >>> largest_difference([([[1, 2]], [[1, Fraction(5, 2)]])])
    Fraction(1, 2)
    """
    err = Fraction(0)
    for A, B in pairs:
        for ra, rb in zip(A, B):
            for x, y in zip(ra, rb):
                err = max(err, abs(Fraction(x) - Fraction(y)))
    return err
