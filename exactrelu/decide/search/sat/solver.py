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

__all__ = ["lrat_solver", "raw_lrat_solver", "RawCadical", "sat_interrupts", "solve_until", "trace", "trace_core",
           "trace_walk", "TraceCore", "CONFLICT_SLICE"]

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


class RawCadical:
    """CaDiCaL 1.9.5 with an LRAT trace, driven through python-sat's C module alone (``pysolvers``): one solve.

    :func:`lrat_solver`'s :class:`pysat.solvers.Solver` imports pysat's formula and engine modules first: 25 ms of
    the 0.26 s of ``hardness decide`` at N = 200, for a wrapper whose calls are these (python-sat 1.9's
    ``Cadical195``: ``cadical195_new``, ``_set``, ``_tracepr``, ``_add_cl``, ``_solve``, ``_cbudget``,
    ``_solve_lim``, ``_model``, ``_del``). It answers what :func:`solve_until`, :func:`trace` and the source route
    ask: ``solve``, ``conf_budget``, ``solve_limited``, ``get_model``, ``delete``, ``solver.prfp``/``prfile``,
    ``order``. Made by :func:`raw_lrat_solver`.
    """

    def __init__(self, api, clauses, order: list) -> None:
        import threading

        self._api, self.order, self.solver = api, order, self
        self._main = int(threading.current_thread() is threading.main_thread())  # the wrapper's MainThread.check
        self.handle = api.cadical195_new()
        api.cadical195_set(self.handle, "lrat", 1)
        api.cadical195_set(self.handle, "binary", 0)
        self.prfile = tempfile.TemporaryFile()
        self.prfp = api.cadical195_tracepr(self.handle, self.prfile)
        self.status = None
        for p in order:
            if api.cadical195_add_cl(self.handle, clauses[p]) is False:
                self.status = False

    def solve(self) -> bool:
        self.status = bool(self._api.cadical195_solve(self.handle, [], self._main))
        return self.status

    def conf_budget(self, budget: int) -> None:
        self._api.cadical195_cbudget(self.handle, budget)

    def solve_limited(self):
        status = self._api.cadical195_solve_lim(self.handle, [], self._main)
        self.status = None if status == 0 else status > 0
        return self.status

    def get_model(self) -> list:
        return (self._api.cadical195_model(self.handle) or []) if self.status else []

    def delete(self) -> None:
        if self.handle is not None:
            self._api.cadical195_del(self.handle, self.prfile)
            self.handle = None
            self.prfile.close()


def raw_lrat_solver(clauses):
    """:func:`lrat_solver` as a :class:`RawCadical` when python-sat's C module has every function it calls (else
    :func:`lrat_solver` itself): the same clauses in the same order, the same options and trace.

    >>> sat = raw_lrat_solver([[1, 2], [-1, 2], [1, -2], [-1, -2]])
    >>> sat.solve(), trace_core(trace(sat), sat.order)[1][-1][0]
    (False, [])
    >>> sat.delete()
    """
    names = ("new", "set", "tracepr", "add_cl", "solve", "cbudget", "solve_lim", "model", "del")
    try:
        import pysolvers
    except ImportError:  # pragma: no cover - part of python-sat
        return None
    if not all(hasattr(pysolvers, f"cadical195_{n}") for n in names) or not hasattr(pysolvers, "flushpr"):
        return lrat_solver(clauses)  # pragma: no cover - other python-sat builds
    return RawCadical(pysolvers, clauses, sorted(range(len(clauses)), key=lambda p: -len(clauses[p])))


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


class TraceCore:
    """The steps an LRAT trace's first empty clause needs (:func:`trace_walk`), kept as the trace's text.

    ``used``: the input clauses they hint (indices, increasing); :meth:`rows` writes the steps with any numbering,
    reading each literal and hint once (the source route names them straight as its certificate does).
    """

    def __init__(self, used: list, kept: list, at: dict, hints: dict, inputs: dict) -> None:
        self.used, self._kept, self._at, self._hints, self._inputs = used, kept, at, hints, inputs

    def __len__(self) -> int:
        return len(self._kept)

    def rows(self, literal=None, clause=None, first: int = 0) -> list:
        """Each kept step as one list: its literals, 0, its hints (in the trace's order).

        A hint of kept step t reads ``first + t``, of input clause p ``clause[p]``; a literal x reads ``literal[x]``
        (``literal`` and ``clause`` are dicts, or lists for ``clause``; None: x itself and ``-p - 1``).
        """
        names = {b"%d" % x: first + t for t, x in enumerate(self._kept)}
        names.update((h, -p - 1 if clause is None else clause[p]) for h, p in self._inputs.items())
        lits = None if literal is None else {b"%d" % x: y for x, y in literal.items()}
        out = []
        try:
            for x in self._kept:
                text = self._at[b"%d" % x][1].split()
                head = list(map(int, text)) if lits is None else list(map(lits.__getitem__, text))
                out.append(head + [0] + list(map(names.__getitem__, self._hints[x])))
        except (ValueError, KeyError):
            raise ProofFormatError("the trace is not integers and deletions") from None
        return out


def trace_core(data: bytes, order: list) -> tuple[list, list]:
    """The steps of an LRAT trace that its first empty clause needs: ``(inputs, steps)``.

    ``order`` lists the indices of the input clauses in the order they were given to the solver; the trace's
    numbers that no line defines (below its last) are theirs, in that order. ``steps`` is a list of
    ``(literals, hints)`` in the trace's order, ending with the empty clause; a hint ``h >= 0`` names step h (an
    earlier one), ``h < 0`` the input clause ``-h - 1``. ``inputs`` are the input clauses used, increasing.
    Raises :class:`ProofFormatError` when ``data`` is not such a trace. (:func:`trace_walk`, written out.)
    """
    core = trace_walk(data, order)
    rows = core.rows()
    return core.used, [(row[:row.index(0)], row[row.index(0) + 1:]) for row in rows]


def trace_walk(data: bytes, order: list) -> TraceCore:
    """:func:`trace_core`'s walk, its steps left as text (:class:`TraceCore`).

    Lines are kept as text until the walk back from the empty clause reaches them, and hints are renamed as the
    text they are (a dict of bytes): only the kept steps are read, once, straight into the numbering their reader
    asks for (0.035 -> 0.031 s at N = 200 of the reduction, 2,041 of 2,241 steps kept, before :meth:`TraceCore.rows`
    named them as the certificate does; the rest is the per-line work).
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
    split: dict = {}  # a kept step's number -> its hints, as text
    named: set = set()
    todo, seen = [last], {last}
    while todo:
        key = todo.pop()
        number, _, text = at[key]
        hints = split[number] = text.split()
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
    inputs = {h: -code[h] - 1 for h in named}
    return TraceCore(sorted(inputs.values()), kept, at, split, inputs)
