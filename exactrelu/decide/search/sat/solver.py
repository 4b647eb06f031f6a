"""CaDiCaL (python-sat) with an LRAT trace, and the trace read back in pure Python (untrusted; no numpy).

:func:`lrat_solver` makes a solver that logs LRAT; :func:`trace` reads what it logged; :func:`trace_core` walks a
small trace back from its empty clause in pure Python, keeping the steps the empty clause needs (the vectorized
walk of large traces is :func:`exactrelu.decide.search.sat.proof.lrat_core`). Nothing here is trusted: the
certificate's checker (:mod:`exactrelu.certificates.trusted.lrat`) verifies every hint. This module imports only
the standard library and python-sat, so that a command deciding a small formula does not pay for numpy.

>>> clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
>>> sat = lrat_solver(clauses)
>>> sat.solve()
False
>>> inputs, steps = trace_core(trace(sat), sat.order)
>>> sat.delete()
>>> steps[-1][0], all(h < 0 or h < t for t, (_, hs) in enumerate(steps) for h in hs)
([], True)
"""

from __future__ import annotations

import contextlib
import tempfile
import time

from ....errors import ProofFormatError, TimeLimitExceeded

__all__ = ["lrat_solver", "sat_interrupts", "solve_until", "trace", "trace_core", "CONFLICT_SLICE"]

#: with a deadline, the SAT solver runs in slices of this many conflicts
CONFLICT_SLICE = 20000
#: stands for "d" (a deletion) in a trace read as integers
_DELETE = 1 << 62


def lrat_solver(clauses, name: str = "cadical195"):
    """A python-sat CaDiCaL tracing LRAT into a temporary file, loaded with ``clauses``; or None.

    None when this python-sat has no such solver (then use DRUP: :func:`exactrelu.decide.search.sat.proof.refute`
    does). The clauses are added longest first: CaDiCaL numbers original clauses in the order they are
    added, but a clause added when some of its literals are already false at the top level makes it derive (and
    number) a shorter clause in between; with the unit clauses last, only they can. ``solver.order`` lists the
    clauses' indices in the order they were added.
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


@contextlib.contextmanager
def sat_interrupts():
    """Ctrl-C during a python-sat solve as :class:`KeyboardInterrupt`, the way every other step reports it.

    python-sat's solvers catch SIGINT themselves while they run and raise their module's own error ("Caught keyboard
    interrupt"); the command line would take that for a crash (exit 1, issue 34).

    >>> with sat_interrupts():
    ...     pass
    """
    try:
        yield
    except Exception as exc:
        if type(exc).__module__ == "pysolvers" and "keyboard interrupt" in str(exc).lower():
            raise KeyboardInterrupt from None
        raise


def solve_until(sat, deadline) -> bool:
    """``sat.solve()``, in slices of conflicts until ``deadline`` (a ``time.monotonic()`` value), then
    :class:`~exactrelu.errors.TimeLimitExceeded`."""
    with sat_interrupts():
        if deadline is None:
            return sat.solve()
        while True:
            if time.monotonic() > deadline:
                raise TimeLimitExceeded("the search ran out of its time limit without deciding")
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


def trace_core(data: bytes, order: list) -> tuple[list, list]:
    """The steps of an LRAT trace that its first empty clause needs: ``(inputs, steps)``.

    ``order`` lists the indices of the input clauses in the order they were given to the solver; the trace's
    numbers that no line defines (below its last) are theirs, in that order. ``steps`` is a list of
    ``(literals, hints)`` in the trace's order, ending with the empty clause; a hint ``h >= 0`` names step h (an
    earlier one), ``h < 0`` the input clause ``-h - 1``. ``inputs`` are the input clauses used, increasing.
    Raises :class:`ProofFormatError` when ``data`` is not such a trace.
    """
    text = data.replace(b" d ", b" %d " % _DELETE)
    try:
        tokens = list(map(int, text.split()))
    except ValueError:
        raise ProofFormatError("the trace is not integers and deletions") from None
    at: dict = {}  # step number -> (first literal, its 0, its last 0) in tokens
    i, size, last = 0, len(tokens), None
    try:
        while i < size:  # one line: number, literals 0 hints 0; or number, DELETE, numbers 0
            z1 = tokens.index(0, i + 1)
            if tokens[i + 1] == _DELETE:
                i = z1 + 1
                continue
            z2 = tokens.index(0, z1 + 1)
            at[tokens[i]] = (i + 1, z1, z2)
            if z1 == i + 1:  # the empty clause
                last = tokens[i]
                break
            i = z2 + 1
    except (ValueError, IndexError):
        raise ProofFormatError("a line of the trace is cut short") from None
    if last is None:
        raise ProofFormatError("the trace derives no empty clause")
    steps_at = set(at)
    inputs = sorted(set(range(1, last)) - steps_at)[:len(order)]
    code = {h: -(order[p] + 1) for p, h in enumerate(inputs)}
    parsed: dict = {}
    named: set = set()  # the input clauses' numbers the kept steps hint
    todo, seen = [last], {last}
    while todo:  # backwards from the empty clause: the steps it reaches through hints (set operations, in C)
        number = todo.pop()
        a, z1, z2 = at[number]
        hints = tokens[z1 + 1:z2]
        if not hints:
            raise ProofFormatError(f"step {number} of the trace has no hints")
        parsed[number] = (tokens[a:z1], hints)
        hs = set(hints)
        earlier = hs & steps_at
        if earlier and max(earlier) >= number:
            raise ProofFormatError(f"step {number} of the trace hints a later step {max(earlier)}")
        named |= hs - earlier
        earlier -= seen
        seen |= earlier
        todo += earlier
    if not named <= code.keys():
        raise ProofFormatError(f"the trace hints {min(named - code.keys())}, no clause")
    kept = sorted(parsed)
    number_of = {x: t for t, x in enumerate(kept)}
    number_of.update((h, code[h]) for h in named)
    steps = [(parsed[x][0], list(map(number_of.__getitem__, parsed[x][1]))) for x in kept]
    used = sorted(-code[h] - 1 for h in named)
    return used, steps
