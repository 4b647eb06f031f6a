"""CNF and NAE-3SAT formulas as lists of clauses of non-zero ints (DIMACS style).

Literal ``v`` is variable ``v`` (1-based), ``-v`` its negation. An assignment is a sequence of
booleans, ``assignment[v - 1]`` the value of variable ``v``. With ``satisfiable=True`` a hidden
assignment is drawn first and every clause is made true under it (CNF: some literal true;
NAE: not all literals equal) by flipping the sign of its first literal when needed, so the
formula is satisfiable by construction without a solver.

>>> cnf_satisfied([[1, -2], [2, 3]], [True, False, True])
True
>>> nae_satisfied([[1, 2, 3]], [True, True, True])
False
"""

from __future__ import annotations

from typing import Sequence

from hypothesis import strategies as st

from ..errors import InvalidInput
from ._util import positive_int, resolve

__all__ = ["cnf_formulas", "nae3sat_formulas", "cnf_satisfied", "nae_satisfied"]

Clause = list[int]


def _value(lit: int, assignment: Sequence[bool]) -> bool:
    v = bool(assignment[abs(lit) - 1])
    return v if lit > 0 else not v


def cnf_satisfied(clauses: Sequence[Sequence[int]], assignment: Sequence[bool]) -> bool:
    """True when every clause has a true literal under ``assignment``.

    >>> cnf_satisfied([[]], [])
    False
    """
    return all(any(_value(l, assignment) for l in c) for c in clauses)


def nae_satisfied(clauses: Sequence[Sequence[int]], assignment: Sequence[bool]) -> bool:
    """True when no clause has all its literals equal under ``assignment``.

    >>> nae_satisfied([[1, -2, 3]], [True, True, False])
    True
    """
    return all(len({_value(l, assignment) for l in c}) == 2 for c in clauses)


@st.composite
def _clauses(draw, num_vars, num_clauses, clause_size, distinct, satisfiable, nae):
    n = positive_int(resolve(draw, num_vars), "num_vars")
    mc = positive_int(resolve(draw, num_clauses), "num_clauses", minimum=0)
    sat = resolve(draw, satisfiable)
    hidden = draw(st.lists(st.booleans(), min_size=n, max_size=n)) if sat else None
    out: list[Clause] = []
    for _ in range(mc):
        s = positive_int(resolve(draw, clause_size), "clause_size")
        if distinct and s > n and isinstance(clause_size, st.SearchStrategy):
            s = n  # a drawn size is capped at the number of variables
        if distinct and s > n:
            raise InvalidInput(f"a clause of {s} distinct variables needs num_vars >= {s}, got {n}")
        if distinct:
            vs = draw(st.lists(st.integers(1, n), min_size=s, max_size=s, unique=True))
        else:
            vs = draw(st.lists(st.integers(1, n), min_size=s, max_size=s))
        signs = draw(st.lists(st.booleans(), min_size=s, max_size=s))
        clause = [v if pos else -v for v, pos in zip(vs, signs)]
        if hidden is not None:
            ok = nae_satisfied([clause], hidden) if nae else cnf_satisfied([clause], hidden)
            if not ok:
                clause[0] = -clause[0]
                # (NAE with a repeated variable can stay unsatisfied: only distinct variables there)
        out.append(clause)
    return out


def cnf_formulas(
    *,
    num_vars: int | st.SearchStrategy[int] = st.integers(1, 6),
    num_clauses: int | st.SearchStrategy[int] = st.integers(0, 10),
    clause_size: int | st.SearchStrategy[int] = st.integers(1, 3),
    distinct_variables: bool = True,
    satisfiable: bool | None | st.SearchStrategy = None,
) -> st.SearchStrategy[list[Clause]]:
    """CNF formulas over variables ``1..num_vars``.

    Parameters
    ----------
    num_vars, num_clauses : ints or strategies (num_clauses may be 0: the empty formula).
    clause_size : literals per clause, an int or a strategy drawn once per clause (a drawn size
        is capped at ``num_vars`` when variables are distinct; an int larger than that raises).
    distinct_variables : no variable twice in a clause (no tautologies, no repeats).
    satisfiable : ``True`` builds a formula satisfied by a hidden assignment; ``None`` no constraint.

    >>> from hypothesis import given
    >>> @given(cnf_formulas(num_vars=4, clause_size=3, satisfiable=True))
    ... def check(f):
    ...     import itertools
    ...     assert all(len(c) == 3 and 0 < max(map(abs, c)) <= 4 for c in f)
    ...     assert any(cnf_satisfied(f, a) for a in itertools.product([False, True], repeat=4))
    >>> check()
    """
    return _clauses(num_vars, num_clauses, clause_size, distinct_variables, satisfiable, False)


def nae3sat_formulas(
    *,
    num_vars: int | st.SearchStrategy[int] = st.integers(3, 7),
    num_clauses: int | st.SearchStrategy[int] = st.integers(1, 10),
    satisfiable: bool | None | st.SearchStrategy = None,
) -> st.SearchStrategy[list[Clause]]:
    """NAE-3SAT formulas: clauses of exactly three literals on distinct variables.

    A clause is satisfied when its literals are not all equal. ``satisfiable=True`` builds the
    formula around a hidden NAE-satisfying assignment (flipping one literal of a clause whose
    three literals are equal under it makes them not all equal).

    >>> from hypothesis import given
    >>> @given(nae3sat_formulas(num_vars=3, num_clauses=2))
    ... def check(f):
    ...     assert all(len({abs(l) for l in c}) == 3 for c in f)
    >>> check()
    """
    return _clauses(num_vars, num_clauses, 3, True, satisfiable, True)
