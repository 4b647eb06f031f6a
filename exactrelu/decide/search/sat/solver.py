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

    Lines are kept as text until the walk back from the empty clause reaches them, and hints are renamed as the
    text they are (a dict of bytes): only the kept steps' literals are read as integers (0.035 -> 0.031 s at
    N = 200 of the reduction, 2,041 of 2,241 steps kept; the rest is the per-line work).
    """
    at: dict = {}  # a step's number as written -> (its number, its literals, its hints), the last two as text
    last = None
    try:
        for line in data.split(b"\n"):
            number, _, body = line.partition(b" ")
            if not line or body[:2] == b"d ":
                continue
            lits, sep, hints = (b" " + body).partition(b" 0 ")
            if not sep or not (hints == b"0" or hints.endswith(b" 0")):
                raise ProofFormatError("a line of the trace is cut short")
            at[number] = (int(number), lits, hints[:-1])
            if not lits:  # the empty clause
                last = number
                break
    except ValueError:
        raise ProofFormatError("the trace is not integers and deletions") from None
    if last is None:
        raise ProofFormatError("the trace derives no empty clause")
    value = {key: v[0] for key, v in at.items()}
    inputs = sorted(set(range(1, value[last])) - set(value.values()))[:len(order)]
    code = {b"%d" % h: -(order[p] + 1) for p, h in enumerate(inputs)}
    steps_at = at.keys()
    kept: list = []
    named: set = set()
    todo, seen = [last], {last}
    while todo:
        key = todo.pop()
        number, _, text = at[key]
        hints = text.split()
        if not hints:
            raise ProofFormatError(f"step {number} of the trace has no hints")
        kept.append(number)
        hs = set(hints)
        earlier = hs & steps_at
        if earlier and max(map(value.__getitem__, earlier)) >= number:
            raise ProofFormatError(f"step {number} of the trace hints a later step")
        named |= hs - earlier
        earlier -= seen
        seen |= earlier
        todo += earlier
    if not named <= code.keys():
        raise ProofFormatError(f"the trace hints {min(named - code.keys())}, no clause")
    kept.sort()
    number_of = {b"%d" % x: t for t, x in enumerate(kept)}
    number_of.update((h, code[h]) for h in named)
    try:
        steps = [(list(map(int, at[key][1].split())), list(map(number_of.__getitem__, at[key][2].split())))
                 for key in map(b"%d".__mod__, kept)]
    except ValueError:
        raise ProofFormatError("the trace is not integers and deletions") from None
    used = sorted(-code[h] - 1 for h in named)
    return used, steps
