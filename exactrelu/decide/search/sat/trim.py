"""Backward, core-first trimming of a DRUP proof into hints (untrusted; drat-trim's method).

Used when the solver logs DRUP only (:func:`exactrelu.decide.search.sat.proof.refute` prefers CaDiCaL's
own LRAT trace). Three phases:

1. **Forward.** Add every clause and proof step, propagating units at the top level, until the
   top level meets a conflict. Remember each top-level literal's reason and, for each step,
   how long the top-level trail was before it. Deletions are ignored: every step is then checked
   against a superset of the clauses the solver had, and the certificate deletes clauses on its
   own, after their last use.
2. **Backward.** Starting from the conflict, walk the steps from the last to the first. A step
   that some kept clause used (it is *marked*) is checked by reverse unit propagation against
   the clauses before it, **core first**: clauses already marked propagate to a fixpoint before
   any unmarked clause may propagate one literal. The conflict is analyzed back to the clauses
   it needed, in the order they became unit: those are the step's hints, and they are marked.
3. Steps never marked are dropped, and so are input clauses never marked.

>>> core = drup_core([[1, 2], [-1, 2], [1, -2], [-1, -2]], [(False, [2]), (False, [])])
>>> core.steps
[([2], [-1, -2]), ([], [0, -3, -4])]
"""

from __future__ import annotations

import numpy as np

from ....errors import ProofFormatError
from .core import Core

__all__ = ["drup_core", "parse_binary_drup"]


def parse_binary_drup(data: bytes) -> list:
    """Binary DRAT (``a``/``d``, variable-length literals, ``0``) as ``(deleted, lits)`` pairs.

    >>> parse_binary_drup(bytes([97, 2, 5, 0, 100, 3, 0]))
    [(False, [1, -2]), (True, [-1])]
    """
    b = np.frombuffer(data, dtype=np.uint8)
    if not len(b):
        return []
    ends = np.flatnonzero(b == 0)  # a literal's bytes are never 0: zeros end clauses
    starts = np.concatenate(([0], ends[:-1] + 1))
    body = np.ones(len(b), dtype=bool)
    body[starts] = False
    body[ends] = False
    idx = np.flatnonzero(body)
    if not len(idx):
        return [(m == 100, []) for m in b[starts].tolist()]
    byte = b[idx].astype(np.int64)
    last = (byte & 0x80) == 0  # the last byte of a literal
    lit_no = np.concatenate(([0], np.cumsum(last)[:-1]))
    first = np.concatenate(([True], last[:-1]))
    shift = np.arange(len(byte)) - np.maximum.accumulate(np.where(first, np.arange(len(byte)), 0))
    value = np.zeros(int(last.sum()), dtype=np.int64)
    np.add.at(value, lit_no, (byte & 0x7F) << (7 * shift))
    lits = np.where(value & 1, -(value >> 1), value >> 1).tolist()
    counts = np.bincount(np.searchsorted(ends, idx[last]), minlength=len(ends)).tolist()
    out, at = [], 0
    for marker, c in zip(b[starts].tolist(), counts):
        out.append((marker == 100, lits[at:at + c]))
        at += c
    return out


class _Trimmer:
    """The clause database, the top-level trail and two sets of watches (marked / unmarked clauses)."""

    def __init__(self, nvars: int):
        size = 2 * nvars + 1
        self.val = bytearray(size)  # val[lit]: lit true; a negative literal indexes from the end
        self.reason = [None] * size  # reason[lit]: the clause that made lit true (None: assumed)
        self.where = [0] * size  # where[lit]: its position on the trail
        self.wc = [[] for _ in range(size)]  # watches of marked clauses
        self.wn = [[] for _ in range(size)]  # watches of the others
        self.db: list = []
        self.alive = bytearray()
        self.marked = bytearray()
        self.trail: list = []

    def assign(self, lit, why):
        self.val[lit] = 1
        self.reason[lit] = why
        self.where[lit] = len(self.trail)
        self.trail.append(lit)

    def add(self, lits):
        """Add a clause at the top level; returns a conflicting clause id, or None."""
        val = self.val
        ci = len(self.db)
        c = [x for x in lits if not val[-x]] + [x for x in lits if val[-x]]  # non-false literals first
        self.db.append(c)
        self.alive.append(1)
        self.marked.append(0)
        free = [x for x in c if not val[-x]]
        if not free:
            return ci
        if len(c) > 1:
            self.wn[c[0]].append(ci)
            self.wn[c[1]].append(ci)
        if len(free) == 1 and not val[free[0]]:
            mark = len(self.trail)
            self.assign(free[0], ci)
            return self.propagate(mark)
        return None

    def mark(self, ci):
        if not self.marked[ci]:
            self.marked[ci] = 1
            c = self.db[ci]
            if len(c) > 1:
                self.wc[c[0]].append(ci)
                self.wc[c[1]].append(ci)

    def _visit(self, watches, false, core):
        """Clauses watching ``false`` (just made false): move watches; assign units. (conflict, assigned)."""
        val, db, alive, marked = self.val, self.db, self.alive, self.marked
        ws = watches[false]
        keep = []
        conflict, assigned = None, False
        for n_, ci in enumerate(ws):
            if not alive[ci] or (not core and marked[ci]):
                continue
            c = db[ci]
            if c[0] == false:
                c[0], c[1] = c[1], false
            elif c[1] != false:
                continue  # a stale watch
            first = c[0]
            if val[first]:
                keep.append(ci)
                continue
            for p in range(2, len(c)):
                x = c[p]
                if not val[-x]:
                    c[1], c[p] = x, false
                    watches[x].append(ci)
                    break
            else:
                keep.append(ci)
                if val[-first]:
                    conflict = ci
                else:
                    self.assign(first, ci)
                    assigned = True
                if conflict is not None or (assigned and not core):
                    keep.extend(ws[n_ + 1:])
                    break
        watches[false] = keep
        return conflict, assigned

    def propagate(self, q):
        """Unit propagation of trail[q:], marked clauses first; a conflicting clause id, or None."""
        qc = qn = q
        trail = self.trail
        while True:
            while qc < len(trail):
                conflict, _ = self._visit(self.wc, -trail[qc], True)
                qc += 1
                if conflict is not None:
                    return conflict
            while qn < len(trail):  # one unmarked clause may propagate, then marked ones again
                conflict, assigned = self._visit(self.wn, -trail[qn], False)
                if conflict is not None:
                    return conflict
                if assigned:
                    break
                qn += 1
            else:
                return None

    def analyze(self, ci, assumed) -> list:
        """The clauses that derive the conflict on ``ci``, in trail order, ``ci`` last; marks them."""
        reason, where = self.reason, self.where
        seen, used, stack = set(), [], [ci]
        while stack:
            c = stack.pop()
            for y in self.db[c]:
                x = -y  # true, since y is false
                if x in seen or x in assumed or reason[x] is None or reason[x] == c:
                    continue
                seen.add(x)
                used.append((where[x], reason[x]))
                stack.append(reason[x])
        used.sort()
        hints = [r for _, r in used] + [ci]
        for h in hints:
            self.mark(h)
        return hints

    def rup(self, lits) -> list:
        """Hints deriving ``lits`` by unit propagation from the live clauses (marking them)."""
        mark = len(self.trail)
        assumed = set()
        conflict = None
        for x in lits:
            if self.val[x]:  # already true at the top level: its reason conflicts with assuming it false
                conflict = self.reason[x]
                assumed.add(-x)
                break
            if not self.val[-x]:
                self.assign(-x, None)
                assumed.add(-x)
        if conflict is None:
            conflict = self.propagate(mark)
        if conflict is None:
            raise ProofFormatError(f"proof step {lits} does not follow by unit propagation")
        hints = self.analyze(conflict, assumed | {-x for x in lits})
        self.backtrack(mark)
        return hints

    def backtrack(self, size):
        for x in self.trail[size:]:
            self.val[x] = 0
            self.reason[x] = None
        del self.trail[size:]


def drup_core(clauses, proof, nvars: int | None = None) -> Core:
    """Trim a DRUP proof of ``clauses`` (``(deleted, lits)`` pairs, or python-sat's binary trace) to hints.

    Raises :class:`~exactrelu.errors.ProofFormatError` (a ValueError) when the proof does not refute the clauses.
    """
    steps = parse_binary_drup(proof) if isinstance(proof, (bytes, bytearray)) else list(proof)
    if nvars is None:
        nvars = max((abs(x) for c in clauses for x in c), default=0)
        nvars = max(nvars, max((abs(x) for _, c in steps for x in c), default=0))
    T = _Trimmer(nvars)
    conflict = None
    for c in clauses:
        conflict = T.add(list(dict.fromkeys(c)))
        if conflict is not None:
            break
    added, before = [], []  # the database ids of the steps, and the trail length before each
    if conflict is None:
        for deleted, lits in steps:
            if deleted or len(set(lits) & {-x for x in lits}):
                continue  # deletions ignored (see the module docstring); tautologies need nothing
            before.append(len(T.trail))
            added.append(len(T.db))
            conflict = T.add(list(dict.fromkeys(lits)))
            if conflict is not None:
                break
    if conflict is None:
        raise ProofFormatError("the DRUP proof does not refute the clauses")
    hints = {None: T.analyze(conflict, set())}  # the empty clause
    for t in range(len(added) - 1, -1, -1):
        ci = added[t]
        T.backtrack(before[t])
        T.alive[ci] = 0
        if T.marked[ci]:
            hints[ci] = T.rup(T.db[ci])
    kept = sorted(ci for ci in hints if ci is not None)
    ordinal = {ci: t for t, ci in enumerate(kept)}
    n = len(clauses)
    code = lambda h: -(h + 1) if h < n else ordinal[h]  # noqa: E731
    out = [(list(T.db[ci]), [code(h) for h in hints[ci]]) for ci in kept] + [([], [code(h) for h in hints[None]])]
    inputs = [ci for ci in range(min(n, len(T.db))) if T.marked[ci]]
    return Core.from_steps(inputs, out, {"trace_steps": len(added), "core_steps": len(out)})
