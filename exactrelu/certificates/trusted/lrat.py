"""Check of hinted (LRAT-style) refutations, in time linear in the proof. Standard library only.

A hinted refutation of a clause set names, for every clause it adds, the earlier clauses whose
unit propagation derives it, in order, so that the checker never searches. Clauses are numbered
implicitly: the input clauses 1..C in order, then each added step the next number.

``steps`` is a list of

* ``[l1, ..., lk, 0, h1, ..., hm]``: add the clause ``(l1 or ... or lk)`` (literals +-1..nvars;
  ``k = 0`` is the empty clause). Assume every
  ``l`` false; then each hint ``h`` (a number of an earlier clause, not deleted) must, in order,
  be *unit* (every literal false but one, which is unassigned and becomes true) until the last
  hint, which must be *falsified* (every literal false). That is a unit-propagation derivation
  of a conflict from the negated clause, so the clause follows from the clauses hinted.
* ``["d", h1, ...]``: delete clauses (numbers of earlier clauses not deleted yet). A deleted
  clause may not be hinted afterwards.

The proof must derive the empty clause, as its last step. The work is one pass over the steps,
each hint costing the length of its clause; that sum is counted from the hints first and bounded by the
limit ``propagations`` (docs/limits.md), so a short file citing a long clause often is refused at once.
"""

from __future__ import annotations

from .common import CheckFailed, limit, over


def _propagation_cost(clauses, steps) -> int:
    """An upper bound on the literal visits of the replay, from the hints alone: the sum, over every hint, of the
    length of the clause it names (a proof citing one 100,000-literal clause a million times is refused before
    any propagation). Malformed steps count nothing here; the replay refuses them."""
    lengths = [0] + [len(c) if isinstance(c, list) else 0 for c in clauses]
    cost = 0
    for step in steps:
        if not isinstance(step, list) or step[:1] == ["d"] or 0 not in step:
            continue
        cut = step.index(0)
        size = len(lengths)
        cost += cut + sum(lengths[h] for h in step[cut + 1:] if type(h) is int and 0 < h < size)
        lengths.append(cut)
    return cost


def check_hinted(clauses, steps, nvars: int) -> int:
    """Verify that ``steps`` derive the empty clause from ``clauses``; return the number of added steps.

    >>> check_hinted([[1, 2], [-1, 2], [1, -2], [-1, -2]], [[2, 0, 1, 2], [0, 5, 3, 4]], 2)
    2
    """
    if not isinstance(steps, list) or not steps:
        raise CheckFailed("a hinted proof must be a non-empty list of steps")
    cost = _propagation_cost(clauses, steps)
    if cost > limit("propagations"):
        raise over("propagations", f"a hinted proof needing up to {cost:,} literal visits")
    db: list = [None]  # db[h] = literals of clause h (None once deleted); number 0 is never a clause
    for c in clauses:
        db.append(_literals(c, nvars, "input clause"))
    val = bytearray(2 * nvars + 1)  # val[lit] == 1: lit is true under the current assumptions
    last = len(steps) - 1
    added = 0
    for number, step in enumerate(steps):
        if not isinstance(step, list):
            raise CheckFailed(f"step {number} is not a list")
        if step[:1] == ["d"]:
            for h in step[1:]:
                if type(h) is not int or not 0 < h < len(db) or db[h] is None:
                    raise CheckFailed(f"step {number} deletes {h!r}, not a live clause")
                db[h] = None
            continue
        try:
            cut = step.index(0)
        except ValueError:
            cut = None
        if cut is None or type(step[cut]) is not int:  # False == 0 too, and is no separator
            raise CheckFailed(f"step {number} has no 0 between its literals and its hints")
        lits = _literals(step[:cut], nvars, f"step {number}")
        if not _conflict(lits, step[cut + 1:], db, val, number):
            raise CheckFailed(f"step {number}: the hints end without a conflict")
        db.append(lits)
        added += 1
        if not lits:
            if number != last:
                raise CheckFailed(f"step {number} derives the empty clause but the proof goes on")
            return added
    raise CheckFailed("the hinted proof does not derive the empty clause")


def _literals(c, nvars, what) -> list:
    """The distinct literals of ``c``, a list of literals in range. A complementary pair needs no
    rejection: a tautology holds whatever its hints. A repeated literal is kept once (a clause is a
    set), so that checking a hint costs the distinct literals of its clause, not how often the file repeats one."""
    if not isinstance(c, list) or (c and (set(map(type, c)) != {int} or not 0 < min(map(abs, c)) <= max(map(abs, c)) <= nvars)):
        raise CheckFailed(f"malformed {what} {str(c)[:60]} (literals +-1..{nvars})")
    return list(dict.fromkeys(c))


def _conflict(lits, hints, db, val, number) -> bool:
    """Assume ``lits`` false, run the hints in order; True iff the last one is falsified."""
    if not hints:
        return False
    if set(map(type, hints)) != {int} or min(hints) <= 0 or max(hints) >= len(db):
        bad = next(h for h in hints if type(h) is not int or not 0 < h < len(db))
        raise CheckFailed(f"step {number}: hint {bad!r} is not an earlier clause")
    true = [-x for x in lits]
    for x in true:
        val[x] = 1
    try:
        for h in hints[:-1]:  # each unit: one literal not false, and it is unassigned
            c = db[h]
            if c is None:
                raise CheckFailed(f"step {number}: hint {h} is a deleted clause")
            u = 0
            for x in c:
                if not val[-x]:
                    if u:
                        raise CheckFailed(f"step {number}: hint {h} is not unit at its place")
                    u = x
            if not u:
                raise CheckFailed(f"step {number}: hint {h} is a conflict before the last hint")
            if val[u]:
                raise CheckFailed(f"step {number}: hint {h} is not unit at its place (satisfied)")
            val[u] = 1
            true.append(u)
        c = db[hints[-1]]
        if c is None:
            raise CheckFailed(f"step {number}: hint {hints[-1]} is a deleted clause")
        for x in c:  # the last: every literal false
            if not val[-x]:
                return False
        return True
    finally:
        for x in true:
            val[x] = 0
