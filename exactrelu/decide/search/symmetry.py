"""Symmetry of the search: units whose output-weight columns are equal can be permuted without changing the network.

On one chosen sample (the first input that is not all zeros) such units are taken sorted, active first; the
certificate states the classes and the sample, and the checker verifies that the columns are equal
(:mod:`exactrelu.certificates.trusted.refutation`). Used by :mod:`exactrelu.decide.search.lazy`.
"""

from __future__ import annotations

from .rows import Rows

__all__ = ["symmetry_classes", "symmetry_clauses"]


def symmetry_classes(R: Rows):
    """Classes of units with equal output-weight columns (size >= 2), and a sample to sort them on."""
    cols: dict = {}
    for i in R.rel:
        cols.setdefault(tuple(R.U[r][i] for r in range(R.m)), []).append(i)
    classes = [c for c in cols.values() if len(c) > 1]
    if not classes:
        return None
    j0 = next((j for j in range(R.n) if R.supp[j]), None)
    if j0 is None:
        return None
    return {"sample": j0, "classes": classes}


def symmetry_clauses(R: Rows, sym) -> list[list[int]]:
    """On the chosen sample, the units of a class are taken sorted, active first: "a active or b inactive" for each
    neighbouring pair (a, b) of the class (the checker verifies the columns are equal and adds the same clauses)."""
    j0 = sym["sample"]
    return [[R.lit(j0, a), -R.lit(j0, b)] for cls in sym["classes"] for a, b in zip(cls, cls[1:])]
