"""Seeded formula generators: random k-CNF, random NAE-3SAT (optionally planted), pigeonhole.

Every generator takes ``seed`` (an int or a ``numpy.random.Generator``): the same seed gives
the same formula. Random clauses use ``width`` distinct variables with independent signs.
``planted=True`` keeps only clauses that a hidden random assignment satisfies (so the formula
is satisfiable, and the hidden assignment is returned in ``formula.comments``).

>>> f = random_nae3(6, 10, seed=1, planted=True)
>>> len(f.clauses), f.satisfied_by(planted_assignment(f))
(10, True)
>>> random_kcnf(5, 4, seed=3) == random_kcnf(5, 4, seed=3)
True
>>> php = pigeonhole(2)
>>> php.num_vars, len(php.clauses)
(6, 9)
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidInput
from ..limits import check_memory, limit, over
from ..validation import as_generator, check_nonnegative_integer, check_positive_integer

#: (bytes, seconds) per random clause drawn (a tuple of small ints in a list; the draw's Python loop), measured
CLAUSE_COST = (80, 2e-6)
from .cnf import CNF, Assignment, NAEFormula, assignment_from_literals

__all__ = ["random_kcnf", "random_nae3", "pigeonhole", "planted_assignment"]

_PLANTED = "planted "


def _rng(seed) -> np.random.Generator:
    return as_generator(seed)


def _check(num_vars, num_clauses, width):
    check_nonnegative_integer(num_vars, "num_vars")
    check_nonnegative_integer(num_clauses, "num_clauses")
    if num_vars < width:
        raise InvalidInput(f"clauses of {width} distinct variables need num_vars >= {width}, got {num_vars}")
    if num_vars > limit("variables"):
        raise over("variables", f"a formula of {num_vars} variables")
    check_memory(num_clauses * CLAUSE_COST[0], f"{num_clauses:,} clauses of {width} literals",
                 seconds=num_clauses * CLAUSE_COST[1], cost=f"{CLAUSE_COST[0]} bytes per clause")


def _clauses(rng, num_vars, num_clauses, width, accept):
    hidden = rng.random(num_vars) < 0.5 if accept else None
    out = []
    while len(out) < num_clauses:
        vs = rng.choice(num_vars, size=width, replace=False) + 1
        signs = rng.choice([-1, 1], size=width)
        clause = tuple(int(v * s) for v, s in zip(vs, signs))
        if accept is None or accept(clause, hidden):
            out.append(clause)
    comments = ()
    if hidden is not None:
        comments = (_PLANTED + " ".join(str(i + 1 if h else -(i + 1)) for i, h in enumerate(hidden)),)
    return tuple(out), comments


def _lit(lit, hidden):
    v = bool(hidden[abs(lit) - 1])
    return v if lit > 0 else not v


def random_kcnf(num_vars: int, num_clauses: int, *, width: int = 3, seed=0, planted: bool = False) -> CNF:
    """A uniformly random ``width``-CNF (distinct variables per clause, random signs)."""
    _check(num_vars, num_clauses, width)
    accept = (lambda c, h: any(_lit(l, h) for l in c)) if planted else None
    clauses, comments = _clauses(_rng(seed), num_vars, num_clauses, width, accept)
    return CNF(num_vars, clauses, (f"random {width}-CNF seed={seed if isinstance(seed, int) else None}",) + comments)


def random_nae3(num_vars: int, num_clauses: int, *, seed=0, planted: bool = False) -> NAEFormula:
    """A uniformly random NAE-3SAT formula (three distinct variables per clause, random signs)."""
    _check(num_vars, num_clauses, 3)
    accept = (lambda c, h: len({_lit(l, h) for l in c}) == 2) if planted else None
    clauses, comments = _clauses(_rng(seed), num_vars, num_clauses, 3, accept)
    origin = f"random NAE-3SAT seed={seed if isinstance(seed, int) else None}"
    return NAEFormula(num_vars, clauses, (origin,) + comments)


def planted_assignment(formula: CNF | NAEFormula) -> Assignment:
    """The hidden assignment of a formula made with ``planted=True``."""
    for c in formula.comments:
        if c.startswith(_PLANTED):
            return assignment_from_literals([int(t) for t in c[len(_PLANTED):].split()], formula.num_vars)
    raise InvalidInput("this formula has no planted assignment")


def pigeonhole(holes: int) -> CNF:
    """PHP(holes + 1, holes): holes + 1 pigeons in ``holes`` holes; unsatisfiable for holes >= 1.

    Variable ``p * holes + h + 1`` says pigeon p sits in hole h.
    """
    holes = check_positive_integer(holes, "holes")
    var = lambda p, h: p * holes + h + 1  # noqa: E731
    clauses = [tuple(var(p, h) for h in range(holes)) for p in range(holes + 1)]
    for h in range(holes):
        for p in range(holes + 1):
            for q in range(p + 1, holes + 1):
                clauses.append((-var(p, h), -var(q, h)))
    return CNF((holes + 1) * holes, tuple(clauses), (f"pigeonhole {holes + 1} pigeons {holes} holes",))
