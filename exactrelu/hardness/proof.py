"""Refutations with hints: the solver's LRAT trace, trimmed to what the empty clause needs (untrusted).

CaDiCaL (through python-sat) writes an LRAT trace when its option ``lrat`` is set before the
trace is connected: every learnt clause comes with the numbers of the clauses whose unit
propagation derives it. :func:`lrat_solver` makes such a solver; :func:`lrat_core` reads the
trace and walks it backwards from the empty clause, keeping only the clauses it reaches (drat-trim's
backward, core-first pass, with the search already done by the solver). When the trace is not
LRAT (another python-sat, another solver), :func:`exactrelu.hardness.trim.drup_core` computes the
same from a DRUP proof. Nothing here is trusted: the certificate's checker
(:mod:`exactrelu.certificates.trusted.lrat`) verifies every hint.

>>> clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
>>> core = refute(clauses)
>>> core.inputs, [lits for lits, _ in core.steps][-1]
([0, 1, 2, 3], [])
>>> numbered(core, {i: i + 1 for i in core.inputs}, 5)[-1][0]
0
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Core", "ProofFormatError", "lrat_solver", "lrat_core", "refute", "numbered", "solve_until"]

#: with a deadline, the SAT solver runs in slices of this many conflicts
CONFLICT_SLICE = 20000
_SENT = 1 << 62  # stands for "d" in a parsed trace


class ProofFormatError(Exception):
    """The solver's trace is not the LRAT expected (the caller falls back to DRUP and trimming)."""


class Deadline(Exception):
    """The deadline passed while solving."""


@dataclass
class Core:
    """A trimmed refutation: the input clauses it uses and its added clauses, in order.

    ``inputs`` are indices into the input clause list, increasing. ``steps`` are ``(lits, hints)``;
    a hint ``h >= 0`` names ``steps[h]`` (an earlier step), ``h < 0`` the input clause ``-h - 1``.
    The last step is the empty clause.
    """

    inputs: list
    steps: list
    stats: dict = field(default_factory=dict)


def lrat_solver(clauses, name: str = "cadical195"):
    """A python-sat CaDiCaL tracing LRAT into a temporary file, loaded with ``clauses``; or None.

    None when this python-sat has no such solver (then use DRUP: :func:`refute` does). The
    clauses are added longest first: CaDiCaL numbers original clauses in the order they are
    added, but a clause added when some of its literals are already false at the top level makes
    it derive (and number) a shorter clause in between; with the unit clauses last, only they can.
    ``solver.order`` lists the clauses' indices in the order they were added.
    """
    from pysat.solvers import Solver

    try:
        import pysolvers
    except ImportError:  # pragma: no cover - part of python-sat
        return None
    s = Solver(name=name)
    raw = getattr(s, "solver", None)
    handle = getattr(raw, "cadical", None)
    setter, tracer = getattr(pysolvers, f"{name}_set", None), getattr(pysolvers, f"{name}_tracepr", None)
    if handle is None or setter is None or tracer is None:  # pragma: no cover - other python-sat builds
        s.delete()
        return None
    setter(handle, "lrat", 1)
    setter(handle, "binary", 0)
    raw.prfile = tempfile.TemporaryFile()
    raw.prfp = tracer(handle, raw.prfile)
    s.order = sorted(range(len(clauses)), key=lambda p: -len(clauses[p]))
    s.append_formula([clauses[p] for p in s.order])
    return s


def solve_until(sat, deadline) -> bool:
    """``sat.solve()``, in slices of conflicts until ``deadline`` (a ``time.monotonic()`` value)."""
    if deadline is None:
        return sat.solve()
    while True:
        if time.monotonic() > deadline:
            raise Deadline
        sat.conf_budget(CONFLICT_SLICE)
        res = sat.solve_limited()
        if res is not None:
            return res


def trace(sat) -> bytes:
    """The proof trace a python-sat solver made so far (its temporary file), as bytes."""
    import pysolvers

    pysolvers.flushpr(sat.solver.prfp)
    fh = sat.solver.prfile
    fh.seek(0)
    return fh.read()


def lrat_core(data: bytes, order: list) -> Core:
    """Trim an LRAT trace (text) of the input clauses added in ``order`` to the clauses its empty clause needs.

    The numbers the trace never defines are the input clauses', in the order they were added.
    Raises :class:`ProofFormatError` when ``data`` is not such a trace.
    """
    text = data.replace(b" d ", b" %d " % _SENT)
    if b"d" in text:
        raise ProofFormatError("unexpected 'd' in the trace")
    expected = text.count(b" ") + text.count(b"\n") + (0 if text.endswith(b"\n") or not text else 1)
    try:
        arr = np.fromstring(text, dtype=np.int64, sep=" ") if text else np.zeros(0, np.int64)
    except ValueError:
        arr = None
    if arr is None or len(arr) != expected:
        raise ProofFormatError("the trace is not whitespace-separated integers")
    toks = arr.tolist()
    zeros = np.flatnonzero(arr == 0).tolist()
    where: dict = {}  # clause number -> (start of literals, first 0, second 0)
    empty = None
    pos = zi = 0
    try:
        while pos < len(toks):
            if zeros[zi] == pos:  # a line numbered 0 (CaDiCaL deletes tautologies before any step)
                zi += 1
            if toks[pos + 1] == _SENT:
                pos = zeros[zi] + 1
                zi += 1
                continue
            z1, z2 = zeros[zi], zeros[zi + 1]
            zi += 2
            where[toks[pos]] = (pos + 1, z1, z2)
            if z1 == pos + 1:
                empty = toks[pos]
                break
            pos = z2 + 1
    except IndexError:
        raise ProofFormatError("a line of the trace is cut short") from None
    if empty is None:
        raise ProofFormatError("the trace derives no empty clause")
    original = [h for h in range(1, empty) if h not in where][:len(order)]
    return _backward(toks, where, empty, dict(zip(original, order)))


def _backward(toks, where, empty, original: dict) -> Core:
    """The clauses reachable from ``empty`` through hints, renumbered as a :class:`Core`."""
    keep = {empty}
    inputs: set = set()
    stack = [empty]
    while stack:
        _, z1, z2 = where[stack.pop()]
        for h in toks[z1 + 1:z2]:
            if h in original:
                inputs.add(original[h])
            elif h not in keep:
                if h not in where:
                    raise ProofFormatError(f"hint {h} names no clause of the trace")
                keep.add(h)
                stack.append(h)
    ordered = sorted(keep)
    ordinal = {c: t for t, c in enumerate(ordered)}
    steps = []
    for c in ordered:
        s, z1, z2 = where[c]
        steps.append((toks[s:z1], [-original[h] - 1 if h in original else ordinal[h] for h in toks[z1 + 1:z2]]))
    return Core(sorted(inputs), steps, {"trace_steps": len(where), "core_steps": len(steps)})


def refute(clauses, deadline=None) -> Core:
    """A trimmed, hinted refutation of unsatisfiable ``clauses`` (LRAT from CaDiCaL, else DRUP + trimming)."""
    for p, c in enumerate(clauses):
        if not c:
            return Core([p], [([], [-(p + 1)])], {"trace_steps": 0, "core_steps": 1})
    sat = lrat_solver(clauses)
    if sat is not None:
        with sat:
            if solve_until(sat, deadline):  # pragma: no cover - callers pass unsatisfiable clauses
                raise AssertionError("the clauses are satisfiable")
            data = trace(sat)
        try:
            return lrat_core(data, sat.order)
        except ProofFormatError:  # pragma: no cover - other python-sat builds write DRUP
            pass
    return drup_refute(clauses, deadline)


def drup_refute(clauses, deadline=None) -> Core:
    """The same from a DRUP proof (CaDiCaL with a DRUP trace), trimmed by :mod:`exactrelu.hardness.trim`."""
    from pysat.solvers import Solver

    from .trim import drup_core

    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
        if solve_until(s, deadline):  # pragma: no cover
            raise AssertionError("the clauses are satisfiable")
        data = trace(s)
    return drup_core(clauses, data)


def numbered(core: Core, input_id: dict, first: int, *, deletions: bool = True) -> list:
    """The certificate's hinted steps: input clause p is number ``input_id[p]``, steps from ``first`` on.

    With ``deletions``, each clause is deleted (``["d", ...]``) after the step that hints it last.
    """
    ids = [first + t for t in range(len(core.steps))]
    out = []
    last: dict = {}
    rows = []
    for t, (lits, hints) in enumerate(core.steps):
        hs = [input_id[-h - 1] if h < 0 else ids[h] for h in hints]
        rows.append(lits + [0] + hs)
        if deletions:
            for h in hs:
                last[h] = t
    if not deletions:
        return rows
    dead: dict = {}
    for h, t in last.items():
        dead.setdefault(t, []).append(h)
    for t, row in enumerate(rows):
        out.append(row)
        if t in dead and t + 1 < len(rows):
            out.append(["d", *sorted(dead[t])])
    return out
