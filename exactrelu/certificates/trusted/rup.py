"""Replay of DRUP refutations by unit propagation (two watched literals). Standard library only."""

from __future__ import annotations

from .common import CheckFailed


def check_rup(clauses, proof, nvars) -> int:
    """Replay DRUP steps: each added clause must follow by unit propagation; then a conflict.

    ``proof`` is a list of steps ``[l1, l2, ...]`` (add; literal +-(variable), variables 1..nvars)
    or ``["d", l1, ...]`` (delete: deleting can only make later steps fail, so it is trusted).
    The clause set is refuted once unit propagation at the top level meets a conflict (the
    empty clause ``[]`` ends a proof but may be left out). Returns the number of steps.
    Two watched literals per clause; top-level assignments stay (they follow from the clauses).
    """
    if not isinstance(proof, list) or not proof:
        raise CheckFailed("rup must be a non-empty list of steps")
    size = 2 * nvars + 1
    val = bytearray(size)  # val[lit] == 1: lit is true; negative literals index from the end
    watches: dict = {}  # literal -> clauses watching it (a dict: memory follows the clauses, not nvars)
    db: list = []
    alive = bytearray()
    index: dict = {}
    trail: list = []

    def lits(c, what):
        if not (isinstance(c, list) and all(type(x) is int and 0 < abs(x) <= nvars for x in c)):
            raise CheckFailed(f"malformed {what} {c!r} (literals +-1..{nvars})")
        return list(dict.fromkeys(c))

    def propagate(q):
        """Unit propagation of trail[q:]; False on a conflict."""
        while q < len(trail):
            false = -trail[q]
            q += 1
            ws = watches.get(false)
            if not ws:
                continue
            keep = []
            for n_, ci in enumerate(ws):
                if not alive[ci]:
                    continue
                c = db[ci]
                if c[0] == false:
                    c[0] = c[1]
                    c[1] = false
                first = c[0]
                if val[first]:
                    keep.append(ci)
                    continue
                for p in range(2, len(c)):
                    x = c[p]
                    if not val[-x]:
                        c[1] = x
                        c[p] = false
                        watches.setdefault(x, []).append(ci)
                        break
                else:
                    keep.append(ci)
                    if val[-first]:
                        keep.extend(ws[n_ + 1:])
                        watches[false] = keep
                        return False
                    val[first] = 1
                    trail.append(first)
            watches[false] = keep
        return True

    def add(c):
        """Add a clause at the top level; True once the clause set is refuted."""
        true = [x for x in c if val[x]]
        free = true + [x for x in c if not val[x] and not val[-x]]
        if not free:
            return True
        ci = len(db)
        db.append(free + [x for x in c if val[-x]])
        alive.append(1)
        index.setdefault(tuple(sorted(c)), []).append(ci)
        if len(free) == 1:
            if not true:
                mark = len(trail)
                val[free[0]] = 1
                trail.append(free[0])
                return not propagate(mark)
            return False
        watches.setdefault(free[0], []).append(ci)
        watches.setdefault(free[1], []).append(ci)
        return False

    refuted = False
    for c in clauses:
        if add(lits(c, "clause")):
            refuted = True
            break
    steps = 0
    for step in proof:
        if refuted:
            break
        steps += 1
        if type(step) is list and step[:1] == ["d"]:
            key = tuple(sorted(lits(step[1:], "deletion")))
            found = index.get(key)
            if found:
                alive[found.pop()] = 0
            continue
        c = lits(step, "proof step")
        mark = len(trail)
        ok = any(val[x] for x in c) or not set(c).isdisjoint([-x for x in c])  # satisfied, or a tautology
        if not ok:
            for x in c:
                if not val[-x]:
                    val[-x] = 1
                    trail.append(-x)
            ok = not propagate(mark)
        for x in trail[mark:]:
            val[x] = 0
        del trail[mark:]
        if not ok:
            raise CheckFailed(f"proof step {c} does not follow by unit propagation")
        if add(c):
            refuted = True
    if not refuted:
        raise CheckFailed("the DRUP steps do not refute the clauses (no conflict by unit propagation at the end)")
    return steps

