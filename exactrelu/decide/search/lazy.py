"""Lazy clause generation: a CDCL SAT solver over activation literals, exact LP as the theory.

This is the default engine of :func:`exactrelu.decide.decide`. The Boolean variable of
the pair (sample j, unit i) says "unit i is active on sample j" (``v_i . x_j >= 0``); its negation
"inactive" (``v_i . x_j <= 0``). Every V falls in the region of at least one full assignment, and
inside a region the instance's equations are linear in V. So:

1. **Eager lemmas** (:mod:`exactrelu.decide.search.clusters`). Every small cluster of samples (and
   every other sample alone) is compiled: each of its activation patterns is an exact LP, and the
   refuted ones become clauses before the search. Clusters with the same data share one
   compilation: its lemmas are *templates*, instantiated on every cluster of that shape.
2. **Lazy lemmas.** A SAT solver (CaDiCaL through python-sat) proposes a full assignment. The
   clusters left uncompiled are checked first (clusters with equal data share a cache), then the
   whole system. A refuted system yields a Farkas vector; the literals its rows depend on form a
   lemma, whose negation is a clause handed back to the solver. Exact constraint propagation
   (equations with one unknown fix it) runs before every LP and explains each violated row by
   back-substitution, so one model usually yields many small lemmas at once.
3. **Answer.** A model whose whole system is feasible gives exact weights (``realizes``). An
   unsatisfiable clause set gives a hinted refutation (:mod:`exactrelu.decide.search.sat.proof`): the
   solver's LRAT trace, walked back from the empty clause so that only the lemmas and steps it
   uses go into the ``not-realizable`` certificate, which the stdlib checker verifies in one
   linear pass (docs/certificates.md). ``proof="drup"`` finds the hints from the solver's DRUP proof
   instead, with our backward trimmer (the checker no longer replays DRUP itself).

Symmetry: units whose output-weight columns are equal can be permuted without changing the
network, so on one chosen sample they are taken sorted, active first; the certificate states
this and the checker verifies the columns are equal.

>>> from exactrelu.hardness import NAEFormula, NaeToRelu
>>> inst, _ = NaeToRelu().apply(NAEFormula(3, [(1, 2, 3), (-1, -2, -3)]))
>>> from fractions import Fraction
>>> request = SearchRequest(inst.inputs.to_fractions(), inst.labels.to_fractions())
>>> out = solve_case(request, [[Fraction(1), Fraction(1)]])
>>> out.status, out.stats["rounds"] >= 1
('realizable', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from ...errors import ProofFormatError, RoundLimit, SearchLimit, TimeLimitExceeded
from .clusters import clusters, singletons
from .sat.proof import drup_refute, lrat_core, lrat_solver, refute, sat_interrupts, solve_until, trace
from .float_screen import probably_feasible
from .rows import Rows, decide_rows
from .lemma_store import LemmaStore
from .symmetry import symmetry_classes, symmetry_clauses
from .request import SearchRequest

__all__ = ["solve_case", "CaseSearch", "CaseResult", "SearchRequest", "decide_rows", "RoundLimit", "PROOFS"]  # RoundLimit: deprecated alias of
# errors.SearchLimit, kept for one release

_TIMED_OUT = "the search ran out of its time limit without deciding"

#: clusters with at most this many literals (samples x units) are compiled before the search,
#: with at most this many case-tree nodes per shape; the others are checked lazily
EAGER_LITERALS = 16
EAGER_NODES = 20000
#: conflicts per solver call of a search that may pause (:meth:`CaseSearch.run` with ``until``)
PAUSE_SLICE = 2000
#: where :func:`solve_case` takes the hints of its refutation: the solver's LRAT trace, or its DRUP proof trimmed by us
PROOFS = ("lrat", "drup")


@dataclass
class CaseResult:
    """Outcome of :func:`solve_case` for one output-weight matrix."""

    status: str  # "realizable" | "not-realizable"
    V: list | None = None  # k x d Fractions (realizable)
    c: list | None = None  # m Fractions, the output bias (realizable, with an output bias)
    case: dict = field(default_factory=dict)  # the certificate case without "U" (not-realizable)
    stats: dict = field(default_factory=dict)


def _eager(R: Rows, store: LemmaStore, method: str, stats: dict, shared: dict | None = None) -> list:
    """Compile every small cluster (once per shape, through :mod:`exactrelu.decide.search.lemma_cache`) into template
    lemmas; return the clusters left lazy. ``shared`` keeps the clusters for the other cases of the instance."""
    from .lemma_cache import compiled as compile_shape

    compiled: dict = {}
    lazy: list = []
    covered: set = set()

    def eager(c):
        if c.shape not in compiled:
            small = len(c.members) * len(R.rel) <= EAGER_LITERALS
            compiled[c.shape] = compile_shape(R, c.members, c.coords, method, stats, EAGER_NODES) if small else None
        done = compiled[c.shape]
        if done is None:
            lazy.append(c)
            return
        covered.update(c.members)
        store.instance(c.shape, done, c.members, c.coords)

    found = None if shared is None else shared.get("clusters")
    if found is None:
        found = clusters(R)
        if shared is not None:
            shared["clusters"] = found
    for c in found:
        eager(c)
    for c in singletons(R, covered):
        eager(c)
    stats["shapes_compiled"] = sum(v is not None for v in compiled.values())
    return [c for c in lazy if len(c.members) > 1]


def _refute_model(R: Rows, store: LemmaStore, lazy: list, cache: dict, active: dict, method: str, stats: dict):
    """New clauses refuting the solver's model ``active`` (clusters first, then the whole system), or a point."""
    new = []
    for c in lazy:
        key = (c.shape, tuple(active[(j, i)] for j in c.members for i in R.rel))
        res = cache.get(key)
        if res is None:
            rows, scales = R.rows(c.members, active)
            stats["lps"] += 1
            _, cores = decide_rows(rows, method=method, stats=stats)
            pos = {j: p for p, j in enumerate(c.members)}
            # stored by position and on original rows (multiplier x scale)
            res = cache[key] = [[((t[0], pos[t[1]], t[2]), y * scales[t]) for t, y in core] for core in cores]
        else:
            stats["cluster_hits"] += 1
        for core in res:
            moved = [((t[0], c.members[t[1]], t[2]), y) for t, y in core]
            cl = store.plain(moved, {tag: Fraction(1) for tag, _ in moved}, active)
            if cl is not None:
                new.append(cl)
    if new:
        return None, new
    if R.mixed:  # shorter lemmas first: each sign's units alone (half rows), if HiGHS finds no point
        rows, scales = R.half_rows(range(R.n), active)
        t = time.perf_counter()
        screened = probably_feasible(rows)
        stats["screen_seconds"] = stats.get("screen_seconds", 0) + time.perf_counter() - t
        point, cores = (True, None) if screened else decide_rows(rows, method=method, stats=stats)
        if point is None:
            cores = _shortest_prefix(R, active, method, stats, cores, scales, R.half_rows, screen=True)
            new = [cl for cl in (store.plain(core, scales, active) for core in cores) if cl is not None]
            if new:
                stats["half_lemmas"] = stats.get("half_lemmas", 0) + len(new)
                return None, new
    rows, scales = R.rows(range(R.n), active)
    stats["lps"] += 1
    point, cores = decide_rows(rows, method=method, stats=stats)
    if point is not None:
        return point, []
    cores = _shortest_prefix(R, active, method, stats, cores, scales, R.rows)
    new = [cl for cl in (store.plain(core, scales, active) for core in cores) if cl is not None]
    if not new:  # pragma: no cover - a refuted model always yields a clause it violates
        raise AssertionError("a refutation gave no new clause")
    return None, new


def _shortest_prefix(R: Rows, active: dict, method: str, stats: dict, cores: list, scales: dict, build,
                     screen: bool = False) -> list:
    """Cores of the shortest infeasible prefix of the samples (binary search): lemmas on fewer samples.

    A refuted model's whole system gives cores over many samples (a basis of its equations); the first
    samples alone (in the order :attr:`Rows.order`) are often refuted already, and their cores name fewer
    literals, so their clauses cut more. ``build`` makes the rows of some samples (:meth:`Rows.rows` or
    :meth:`Rows.half_rows`). Without ``screen`` a prefix counts as refuted when propagation and elimination
    refute it (no LP); with ``screen`` (inequalities only) the search asks HiGHS and only the prefix it ends
    on is decided exactly (if that one is feasible after all, the given ``cores`` stay). ``scales`` is updated with the rows
    of the prefix (the same rows, the same scales).
    """
    lo, hi = 1, R.n  # the prefix of hi samples is infeasible
    best = cores
    while lo < hi:
        mid = (lo + hi) // 2
        rows, sc = build(R.order[:mid], active)
        if screen:
            t = time.perf_counter()
            infeasible = not probably_feasible(rows)
            stats["screen_seconds"] = stats.get("screen_seconds", 0) + time.perf_counter() - t
        else:  # propagation and elimination only: the shortest prefix they refute
            point, found = decide_rows(rows, method=method, stats=stats, lp=False)
            infeasible = bool(found)
        if infeasible:
            hi = mid
            if not screen:
                best = found
                scales.update(sc)
        else:
            lo = mid + 1
    if screen and hi < R.n:
        rows, sc = build(R.order[:hi], active)
        stats["lps"] += 1
        point, found = decide_rows(rows, method=method, stats=stats)
        if point is None:
            best = found
            scales.update(sc)
    return best


def _active(R: Rows, model) -> dict:
    """A solver model as ``{(j, i): active}``."""
    truth = bytearray(R.n * R.k + 1)
    for v in model:
        if 0 < v <= R.n * R.k:
            truth[v] = 1
    return {(j, i): bool(truth[R.lit(j, i)]) for j in range(R.n) for i in R.rel}


def solve_case(request: SearchRequest, U, *, phases: dict | None = None, shared: dict | None = None) -> CaseResult:
    """Decide one output-weight case exactly: the samples and labels of ``request`` (rows of Fractions, X n x d,
    Y n x m) and U (m x k Fractions).

    Raises :class:`~exactrelu.errors.TimeLimitExceeded` when ``request.deadline`` (a ``time.monotonic()`` value)
    passes, :class:`~exactrelu.errors.SearchLimit` after ``request.max_nodes`` solver rounds of this case.
    ``request.proof`` is ``"lrat"`` (hints from the solver's LRAT trace) or ``"drup"`` (from its DRUP proof,
    trimmed by :mod:`exactrelu.decide.search.sat.trim`); both write a hinted case.
    ``stats`` records the seconds of each phase: ``lemma_seconds`` (compiling clusters, checking
    models), ``solve_seconds`` (the SAT solver), ``trim_seconds`` (reading and trimming its proof)
    and ``write_seconds`` (the certificate case). ``phases`` (``{(j, i): active}``, e.g. from a float fit,
    :mod:`exactrelu.decide.search.hint`) are the solver's first guesses; they change the search, never the answer.
    ``shared`` (a dict, the same for every case of one instance) keeps what the cases share: the clusters and
    the integer rows of X. See the module docstring for the method; :class:`CaseSearch` is the same search,
    resumable.
    """
    search = CaseSearch(request, U, shared=shared)
    try:
        if phases:
            search.set_phases(phases)
        return search.run(deadline=request.deadline, max_rounds=request.max_nodes)
    finally:
        search.close()


class CaseSearch:
    """The search of :func:`solve_case`, resumable: :meth:`run` with a conflict budget may stop undecided.

    The eager phase runs when it is made; every :meth:`run` continues the same solver (its LRAT trace
    grows), so a case tried briefly and resumed later loses no work. :meth:`close` frees the solver.

    >>> from exactrelu.hardness import NAEFormula, NaeToRelu
    >>> inst, _ = NaeToRelu().apply(NAEFormula(1, [(1, 1, 1)]))
    >>> request = SearchRequest(inst.inputs.to_fractions(), inst.labels.to_fractions())
    >>> s = CaseSearch(request, [[Fraction(1), Fraction(0)]])
    >>> s.run(conflicts=1000, rounds=5).status   # a few brief rounds refute u = (1, 0)
    'not-realizable'
    >>> s.close()
    """

    def __init__(self, request: SearchRequest, U, *, shared: dict | None = None):
        t0 = time.monotonic()
        method = request.method
        self.method, self.proof, self.progress = method, request.proof, request.progress
        self.R = R = Rows(request.X, request.Y, U, like=None if shared is None else shared.get("rows"),
                          offset=request.output_bias)
        if shared is not None:
            shared.setdefault("rows", R)
        self.stats = stats = {"rounds": 0, "lps": 0, "lemmas": 0, "cluster_hits": 0, "solve_seconds": 0.0}
        self.store = store = LemmaStore(R)
        self.lazy = _eager(R, store, method, stats, shared)
        stats["clusters"] = len(self.lazy)
        sym = symmetry_classes(R) if request.symmetry else None
        if sym:
            store.add_symmetry(sym, symmetry_clauses(R, sym))
        stats["lemma_seconds"] = time.monotonic() - t0
        self.sat = None
        self.cache: dict = {}
        self.result: CaseResult | None = None
        self.reset()

    def reset(self) -> None:
        """A new solver on the clauses so far (its own trace from the start; no learnt clause kept)."""
        self.close()
        clauses = self.store.clauses
        traced = lrat_solver(clauses) if self.proof == "lrat" and all(clauses) else None
        self.fresh = traced is not None  # the trace numbers exactly store.clauses while no clause is added
        if traced is None:
            from pysat.solvers import Solver

            traced = Solver(name="cadical195", bootstrap_with=clauses)
        self.sat = traced

    def set_phases(self, phases: dict) -> None:
        """The solver's next guesses ``{(j, i): active}`` (they change the search, never the answer)."""
        R = self.R
        self.sat.set_phases([R.lit(j, i) if a else -R.lit(j, i) for (j, i), a in phases.items() if i in R.rel])

    def close(self) -> None:
        if self.sat is not None:
            self.sat.delete()
            self.sat = None

    def run(self, **budget) -> CaseResult | None:
        """:meth:`_run` (its keywords are the budget), with Ctrl-C in the SAT solver as KeyboardInterrupt."""
        with sat_interrupts():
            return self._run(**budget)

    def _run(self, *, deadline: float | None = None, max_rounds: int | None = None,
             conflicts: int | None = None, rounds: int = 1, until: float | None = None) -> CaseResult | None:
        """Continue the search: its :class:`CaseResult`, or None when it pauses undecided.

        It pauses after ``rounds`` solver rounds of at most ``conflicts`` conflicts each (a budget for this call;
        each model found is refuted and its lemmas added), or, with ``until`` (a ``time.process_time()`` value:
        CPU seconds, so that a loaded machine does not shorten it), at the first slice of :data:`PAUSE_SLICE`
        conflicts or round that ends after it. Otherwise until decided.
        A solver call cut short is not a round; ``max_rounds`` counts this case's rounds."""
        if self.result is not None:
            return self.result
        R, store, stats, sat = self.R, self.store, self.stats, self.sat
        left = rounds
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeLimitExceeded(_TIMED_OUT)
            if max_rounds is not None and stats["rounds"] >= max_rounds:
                raise SearchLimit(f"the search used its {max_rounds} solver rounds without deciding")
            stats["rounds"] += 1
            stats["lemmas"] = len(store.clauses)
            if self.progress is not None:
                self.progress(stats)
            t = time.monotonic()
            if conflicts is not None:
                sat.conf_budget(conflicts)
                found = sat.solve_limited()
            elif until is not None:
                found = _solve_paused(sat, deadline, until)
            else:
                found = solve_until(sat, deadline)
            stats["solve_seconds"] += time.monotonic() - t
            if found is None:  # the budget ran out: undecided for now
                stats["rounds"] -= 1
                return None
            if not found:
                break
            t = time.monotonic()
            point, new = _refute_model(R, store, self.lazy, self.cache, _active(R, sat.get_model()), self.method, stats)
            stats["lemma_seconds"] += time.monotonic() - t
            if point is not None:
                V = [[Fraction(point.get((i, t), 0)) for t in range(R.d)] if i in R.rel else [Fraction(0)] * R.d
                     for i in range(R.k)]
                stats["lemmas"] = len(store.clauses)
                c = [Fraction(point.get(("c", r), 0)) for r in range(R.m)] if R.offset else None
                self.result = CaseResult("realizable", V=V, c=c, stats=stats)
                return self.result
            self.fresh = False
            for cl in new:
                sat.add_clause(cl)
            left -= 1
            if (conflicts is not None and left <= 0) or (until is not None and time.process_time() > until):
                return None
        data = (trace(sat), sat.order) if self.fresh else None
        self.close()
        stats["lemmas"] = len(store.clauses)
        if deadline is not None and time.monotonic() > deadline:
            raise TimeLimitExceeded(_TIMED_OUT)
        self.result = _refutation(store, self.proof, data, deadline, stats)
        return self.result


def _solve_paused(sat, deadline, until):
    """``sat.solve()`` in slices of :data:`PAUSE_SLICE` conflicts; None once a slice ends after ``until`` (CPU time)."""
    while True:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeLimitExceeded(_TIMED_OUT)
        sat.conf_budget(PAUSE_SLICE)
        res = sat.solve_limited()
        if res is not None:
            return res
        if time.process_time() > until:
            return None


def _refutation(store: LemmaStore, proof: str, data, deadline, stats) -> CaseResult:
    """The not-realizable case: a trimmed hinted refutation (from the solver's LRAT trace, or its DRUP proof)."""
    t = time.monotonic()
    if proof == "drup":  # the solver's DRUP proof, trimmed to hints by our backward trimmer (untrusted)
        core = drup_refute(store.clauses, deadline)
    else:
        try:
            core = lrat_core(*data) if data is not None else None
        except ProofFormatError:  # pragma: no cover - another python-sat build: re-solve, DRUP if need be
            core = None
        core = core or refute(store.clauses, deadline)
    t1 = time.monotonic()
    stats["trim_seconds"] = t1 - t
    stats.update(core.stats)
    case = store.case(core)
    stats["write_seconds"] = time.monotonic() - t1
    stats["proof_steps"] = len(case["lrat"])
    return CaseResult("not-realizable", case=case, stats=stats)
