"""Exact matrices (:class:`~exactrelu.exact.QMatrix`) and subspaces, generic or degenerate.

A subspace of Q^n is given, in the papers' orientation, by a ``dim x n`` matrix whose rows are
a basis (rank exactly ``dim``, checked over Q). Its *columns* are the coordinates (samples):
a **degenerate** subspace has a zero column (a coordinate that vanishes on the whole subspace),
two equal columns, or two parallel columns (one a non-zero multiple other than 1 of the other).
Those are the cases where sign patterns and exact recovery stop behaving generically.

>>> from hypothesis import given
>>> @given(subspaces(dim=2, ambient=5, degenerate="zero"))
... def check(B):
...     assert B.shape == (2, 5) and B.num.rank() == 2
...     assert any(all(B.num[i, j] == 0 for i in range(2)) for j in range(5))
>>> check()
"""

from __future__ import annotations

from fractions import Fraction

import flint
from hypothesis import strategies as st

from ..errors import InvalidInput
from ..exact.matrix import QMatrix
from ..exact.rationals import to_fraction
from ._util import positive_int, resolve
from .numbers import rationals

__all__ = ["matrices", "subspaces", "column_degeneracies", "DEGENERACIES"]

#: The kinds of deliberate degeneracy :func:`subspaces` can build.
DEGENERACIES = ("repeated", "parallel", "zero")


def _full_rank(entries: list[Fraction], r: int, c: int) -> bool:
    return QMatrix.from_fractions(entries, r, c).num.rank() == min(r, c)


@st.composite
def _matrices(draw, rows, cols, elements, full_rank):
    r = positive_int(resolve(draw, rows), "rows")
    c = positive_int(resolve(draw, cols), "cols")
    elems = (elements if elements is not None else rationals()).map(to_fraction)
    flat = st.lists(elems, min_size=r * c, max_size=r * c)
    if full_rank:
        flat = flat.filter(lambda e: _full_rank(e, r, c))
    return QMatrix.from_fractions(draw(flat), r, c)


def matrices(
    *,
    rows: int | st.SearchStrategy[int] = st.integers(1, 4),
    cols: int | st.SearchStrategy[int] = st.integers(1, 4),
    elements: st.SearchStrategy | None = None,
    full_rank: bool = False,
) -> st.SearchStrategy[QMatrix]:
    """Exact ``rows x cols`` matrices with entries drawn from ``elements``.

    Parameters
    ----------
    rows, cols : sizes, ints or strategies of ints (default 1 to 4).
    elements : strategy of rationals (anything :func:`~exactrelu.exact.to_fraction` accepts);
        default :func:`~exactrelu.testing.rationals`.
    full_rank : only matrices of rank ``min(rows, cols)`` over Q (checked exactly).

    >>> from hypothesis import given
    >>> @given(matrices(rows=3, cols=2, full_rank=True))
    ... def check(M):
    ...     assert M.shape == (3, 2) and M.num.rank() == 2
    >>> check()
    """
    return _matrices(rows, cols, elements, full_rank)


def _columns(M: QMatrix) -> list[list[Fraction]]:
    return [list(col) for col in zip(*M.to_fractions())]


@st.composite
def _subspaces(draw, dim, ambient, degenerate, elements):
    k = positive_int(resolve(draw, dim), "dim")
    n = positive_int(resolve(draw, ambient), "ambient")
    kind = resolve(draw, degenerate)
    if kind == "any":
        kind = draw(st.sampled_from(DEGENERACIES))
    if kind is not None and kind not in DEGENERACIES:
        raise InvalidInput(f"degenerate must be None, 'any' or one of {DEGENERACIES}, got {kind!r}")
    if kind is None:
        if k > n:
            raise InvalidInput(f"a {k}-dimensional subspace does not fit in Q^{n}")
        return draw(matrices(rows=k, cols=n, elements=elements, full_rank=True))
    if k > n - 1:
        raise InvalidInput(f"a degenerate {k}-dimensional subspace needs ambient >= {k + 1}, got {n}")
    extra = draw(st.integers(1, n - k))  # number of degenerate columns
    base = draw(matrices(rows=k, cols=n - extra, elements=elements, full_rank=True).filter(
        lambda M: kind == "zero" or all(any(x != 0 for x in col) for col in _columns(M))))
    cols = _columns(base)
    for _ in range(extra):
        if kind == "zero":
            cols.append([Fraction(0)] * k)
            continue
        src = cols[draw(st.integers(0, n - extra - 1))]
        if kind == "repeated":
            cols.append(list(src))
        else:
            s = draw(rationals(min_value=-4, max_value=4, nonzero=True).filter(lambda x: x != 1))
            cols.append([s * x for x in src])
    order = draw(st.permutations(range(n)))
    cols = [cols[j] for j in order]
    return QMatrix.from_fractions([cols[j][i] for i in range(k) for j in range(n)], k, n)


def subspaces(
    *,
    dim: int | st.SearchStrategy[int] = st.integers(1, 3),
    ambient: int | st.SearchStrategy[int] = st.integers(4, 7),
    degenerate: str | None | st.SearchStrategy = None,
    elements: st.SearchStrategy | None = None,
) -> st.SearchStrategy[QMatrix]:
    """Subspaces of Q^ambient of dimension ``dim``, as a ``dim x ambient`` basis matrix (rank ``dim``).

    Parameters
    ----------
    dim, ambient : ints or strategies of ints.
    degenerate : ``None`` (generic: random rational basis), ``"zero"`` (at least one zero column),
        ``"repeated"`` (a column equal to another), ``"parallel"`` (a column equal to ``s`` times
        another, ``s`` a non-zero rational other than 1), ``"any"`` (one of these), or a strategy.
        Degenerate subspaces need ``ambient >= dim + 1``; columns are shuffled.
    elements : strategy of rational entries (default :func:`~exactrelu.testing.rationals`).

    Notes
    -----
    "Generic" means random, not guaranteed general position: small rationals can still give
    a vanishing minor, which is what a property should survive.

    >>> from hypothesis import given
    >>> @given(subspaces(dim=2, ambient=4, degenerate="repeated"))
    ... def check(B):
    ...     cols = list(zip(*B.to_fractions()))
    ...     assert len(set(cols)) < 4 and B.num.rank() == 2
    >>> check()
    """
    return _subspaces(dim, ambient, degenerate, elements)


def column_degeneracies(B: QMatrix) -> dict[str, bool]:
    """Which degeneracies the columns of ``B`` show: ``{"zero": ..., "repeated": ..., "parallel": ...}``.

    ``parallel`` counts pairs of non-zero columns whose 2-column submatrix has rank 1, including
    equal ones. Exact (integer ranks).

    >>> column_degeneracies(QMatrix.from_rows([[1, 2, 0], [1, 2, 0]]))
    {'zero': True, 'repeated': False, 'parallel': True}
    """
    cols = [tuple(c) for c in _columns(B)]
    nz = [c for c in cols if any(x != 0 for x in c)]
    par = False
    for a in range(len(nz)):
        for b in range(a + 1, len(nz)):
            M = flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in nz[a]],
                                [flint.fmpq(x.numerator, x.denominator) for x in nz[b]]])
            if M.rank() == 1:
                par = True
    return {"zero": len(nz) < len(cols), "repeated": len(set(cols)) < len(cols), "parallel": par}
