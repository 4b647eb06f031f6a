"""Exact decision procedure for two-layer ReLU instances, with certificates both ways.

Question: are there real weights V (k x d) -- and, when U is unknown, U (1 x k) -- with
``U relu(V x_j) = y_j`` for every sample j? The answer is proved either way:

* **realizable**: exact rational weights and a ``realizes`` certificate;
* **not realizable**: a ``not-realizable`` certificate (docs/certificates.md), verified by the
  stdlib checker: lemmas with Farkas vectors and a hinted (or DRUP) refutation of their clauses
  (the default lazy engine, :mod:`exactrelu.decide.search.lazy`), or a case tree over activation
  patterns with a Farkas vector or a learnt lemma at every leaf (``engine="tree"``).

The tree engine (``engine="tree"``, :mod:`exactrelu.decide.search.tree`) searches a case tree over
activation patterns with exact LPs, backjumping and learnt lemmas.

Unknown U (m = 1, ReLU): by positive homogeneity ``|u| relu(v . x) = relu(|u| v . x)``, so u can be
taken in {-1, 0, 1}^k, and by permuting units non-increasing: every such u is refuted in turn.

>>> from exactrelu.hardness import NAEFormula, NaeToRelu
>>> inst, _ = NaeToRelu().apply(NAEFormula(3, [(1, 2, 3)]))
>>> res = decide(inst, U=[[1, 1]])
>>> res.status, res.network.evaluate_exact(inst.inputs) == inst.labels
('realizable', True)
>>> bad, _ = NaeToRelu().apply(NAEFormula(1, [(1, 1, 1)]))
>>> res = decide(bad)  # U unknown
>>> res.status, res.certificate["claim"]
('not-realizable', 'not-realizable')
>>> verify(res.certificate, bad)
'not-realizable: ...'
"""

from __future__ import annotations

import itertools
import sys
import time
from fractions import Fraction

from ...certificates.claims.realizes import realizes_certificate
from ...certificates.claims.refutation import cases_certificate
from ...certificates.envelope import verify
from ...errors import InvalidInput, SearchLimit, TimeLimitExceeded
from ...validation import check_flag, check_k
from ...exact.matrix import QMatrix
from ...instances import Instance
from ...network import RELU, Network
from ...exact.rationals import format_rational
from ..decision import NOT_REALIZABLE, REALIZABLE, Decision
from .request import SearchRequest
from .tree import _exact_rows, _Open, _Search

__all__ = ["decide", "Decision", "sign_cases", "SearchLimit", "verify"]  # SearchLimit: errors.py's, re-exported


def sign_cases(k: int) -> list[tuple[int, ...]]:
    """Output weights in {1, 0, -1}^k, non-increasing: one per class under unit permutation.

    >>> sign_cases(2)
    [(1, 1), (1, 0), (1, -1), (0, 0), (0, -1), (-1, -1)]
    """
    return [tuple(c) for c in itertools.combinations_with_replacement((1, 0, -1), k)]


# -- the public function ---------------------------------------------------------------------------

ENGINES = ("auto", "lazy", "tree")
#: a float fit is asked which case to try first (:mod:`exactrelu.decide.search.hint`) when there are more than this many
#: activation literals (n k), or, between cases, after this many seconds: small instances are decided sooner
#: than the fit takes (the tree engine and a given U)
HINT_LITERALS = 40
HINT_AFTER = 0.25
#: unknown U, lazy engine: every case first gets QUICK_ROUNDS solver rounds of at most QUICK_CONFLICTS conflicts
#: (most cases of the reduction's instances fall to their eager lemmas at once); the cases still open then search
#: for about as long as the float fit would take (HINT_AFTER + n d k / HINT_RATE CPU seconds: 1.6 s at n = 840,
#: d = 200, k = 2, where the fit took 1.8 s on the loaded machine), and only if one is still open is the fit asked
#: (a rent-or-buy rule: at most about twice the better of the two). A fit that cannot succeed (an unsatisfiable
#: instance) cost 2.3 s of a 4.4 s decision at N = 200 when it was asked first.
QUICK_CONFLICTS = 1000
QUICK_ROUNDS = 3
HINT_RATE = 2.5e5


def decide(instance: Instance, *, U=None, k: int = 2, method: str = "auto", engine: str = "auto",
           max_nodes: int | None = None, time_limit: float | None = None, progress=None,
           proof: str = "lrat", output_bias: bool = False) -> Decision:
    """Decide exactly whether ``instance`` is realizable by k ReLU units; certify the answer.

    Parameters
    ----------
    instance : the samples (n x d) and labels (n x m); its activation must be the ReLU (or unset).
    U : the given output weights (m x k, rationals), or None for unknown output weights
        (then m must be 1; every sign vector of :func:`sign_cases` is tried).
    k : number of hidden units when U is None (with U given, k is its number of columns).
    method : LP method, ``"auto"`` or ``"exact"`` (see :func:`exactrelu.exact.lp.feasible`).
    engine : ``"lazy"`` (a CDCL SAT solver over activation literals with exact LP lemmas and a
        DRUP refutation, :mod:`exactrelu.decide.search.lazy`), ``"tree"`` (the case-tree search
        below, whose refutation is a tree), or ``"auto"`` (``"lazy"``).
    max_nodes : stop with :class:`~exactrelu.errors.SearchLimit` after this many search nodes (tree
        engine) or solver rounds (lazy engine); None: no limit.
    time_limit : stop with :class:`~exactrelu.errors.TimeLimitExceeded` after this many seconds (None: no
        limit). The SAT solver is interrupted when it passes; a certificate already found is still checked.
    progress : optional callable receiving a statistics dict while the lazy engine runs.
    proof : the lazy engine's refutation: ``"lrat"`` (hinted and trimmed, checked in linear time;
        the default) or ``"drup"`` (hints found from the solver's DRUP proof by our trimmer).
    output_bias : networks with an output bias c (``U relu(V x_j) + c = y_j``): c is one more free variable of every
        exact LP (the lazy engine; the certificate states the class, and the checker refutes with c).

    Returns
    -------
    Decision
        ``status`` ``"realizable"`` (``network`` and a ``realizes`` certificate) or
        ``"not-realizable"`` (a ``not-realizable`` certificate). Both were verified by the
        independent checker before returning; ``summary`` is its verdict line and ``evidence`` the
        search statistics (``nodes``, ``lps``, ``cases``, the lazy engine's ``rounds``, ``lemmas`` and
        seconds per phase, ``check_seconds``).
    """
    engine = _checked_arguments(instance, engine, proof, output_bias)
    X, Y = _exact_rows(instance.inputs), _exact_rows(instance.labels)
    cases, given, k = _cases(instance, U, k)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * instance.n * k + 1000))
    req = SearchRequest(X, Y, instance.d, method=method, engine=engine, proof=proof, max_nodes=max_nodes,
                        time_limit=time_limit, progress=progress, stats={"nodes": 0, "lps": 0, "cases": len(cases)},
                        output_bias=output_bias)
    try:
        found = _search(req, cases, k, given)
        if isinstance(found, Network):
            cert = realizes_certificate(instance, found, decided_by="exactrelu.decide.search.pattern_search")
            return Decision(REALIZABLE, found, cert, _checked(cert, instance, req.stats), req.stats)
    finally:
        sys.setrecursionlimit(old)
    stats = req.stats
    refuted = [found[t] for t in sorted(found)]  # the certificate lists the cases in their fixed order
    stats["engine"] = engine
    if req.deadline is not None and time.monotonic() > req.deadline:
        raise TimeLimitExceeded("the search ran out of its time limit before its certificate was checked")
    cert = cases_certificate(instance, k, given, refuted, output_bias=output_bias, engine=engine,
                             **{key: stats[key] for key in ("nodes", "rounds", "lps") if key in stats})
    return Decision(NOT_REALIZABLE, None, cert, _checked(cert, instance, stats), stats)


def _checked_arguments(instance: Instance, engine: str, proof: str, output_bias: bool = False) -> str:
    """Refuse what :func:`decide` cannot take; the engine to use ("auto" is "lazy")."""
    if not isinstance(instance, Instance):
        raise InvalidInput("decide needs an Instance")
    if engine not in ENGINES:
        raise InvalidInput(f"unknown engine {engine!r}; choose from {ENGINES}")
    if engine == "auto":
        engine = "lazy"
    if proof not in ("lrat", "drup"):
        raise InvalidInput(f"unknown proof {proof!r}; choose 'lrat' or 'drup'")
    if instance.activation is not None and instance.activation != RELU:
        raise InvalidInput(f"the decision procedure is for the ReLU; the instance has {instance.activation}")
    if check_flag(output_bias, "output_bias") and engine == "tree":
        raise InvalidInput("the tree engine decides networks without output bias; with output_bias=True use "
                           "engine='lazy'")
    return engine


def _search(req: SearchRequest, cases: list, k: int, given: bool):
    """Every output-weight case in turn: the first realizing Network, or ``{case number: refuted case}``."""
    if req.engine == "lazy" and not given and len(cases) > 1:  # every case tried briefly first, then the hint
        return _lazy_cases(req, cases, k)
    refuted, pending, hinted, phases, first = {}, list(range(1, len(cases) + 1)), False, None, None
    while pending:
        if not hinted and (len(req.X) * k > HINT_LITERALS or time.monotonic() - req.start > HINT_AFTER):
            hinted = True  # ask a float fit
            first, phases = _first_case(req.X, req.Y, k, given, req.engine, req.stats)
            if first in pending:
                pending.remove(first)
                pending.insert(0, first)
        number = pending.pop(0)
        kind, out = _case(req.for_case(number), cases[number - 1], phases if number == first else None)
        if kind == "realizable":
            return out
        refuted[number] = out
    return refuted


def _cases(instance: Instance, U, k):
    """The output-weight cases to refute: (list of m x k Fraction matrices, U given?, k)."""
    if U is None:
        k = check_k(k)
        if instance.m != 1:
            raise InvalidInput(f"unknown output weights are supported for m = 1 only (the instance has m = {instance.m}); give U")
        return [[[Fraction(x) for x in u]] for u in sign_cases(k)], False, k
    Uq = QMatrix.coerce(U, name="U")
    if Uq.shape[0] != instance.m:
        raise InvalidInput(f"U has {Uq.shape[0]} rows; the instance has m = {instance.m} outputs")
    return [Uq.to_fractions()], True, Uq.shape[1]


def _first_case(X, Y, k, given, engine, stats):
    """The case to try first (1-based) and the SAT solver's phases for it, from a float fit (unknown U, m = 1)."""
    if given or engine != "lazy" or len(Y[0]) != 1 or len(X) < 2:
        return 1, None
    import numpy as np

    from .hint import proposal_hint

    t = time.monotonic()
    hint = proposal_hint(np.array(X, dtype=np.float64), np.array(Y, dtype=np.float64), k)
    stats["hint_seconds"] = time.monotonic() - t
    if hint is None:
        return 1, None
    stats["hint_case"] = sign_cases(k).index(hint[0]) + 1
    return stats["hint_case"], hint[1]


def _case(req: SearchRequest, Uc, phases=None):
    """One output-weight case: ``("realizable", network)`` or ``("refuted", certificate case)``."""
    U_text = [[format_rational(x) for x in row] for row in Uc]
    stats, d = req.stats, req.d
    if req.engine == "lazy":
        out = _lazy_case(req, Uc, phases)
        if out.status == "realizable":
            return "realizable", _lazy_network(Uc, out.V, d, out.c)
        return "refuted", {"U": U_text, **out.case}
    s = _Search(req.X, req.Y, Uc, method=req.method,
                max_nodes=None if req.max_nodes is None else req.max_nodes - stats["nodes"])
    s.deadline = req.deadline
    res = s.run()
    stats["nodes"] += s.nodes
    stats["lps"] += s.lps
    if isinstance(res, _Open):
        return "realizable", _network(Uc, s, res.point, d)
    stats["lemma_hits"] = stats.get("lemma_hits", 0) + s.lemma_hits
    return "refuted", {"U": U_text, "lemmas": s.lemmas, "tree": res.tree}


def _lazy_cases(req: SearchRequest, cases: list, k: int):
    """Unknown U, lazy engine: the first realizing Network, or ``{case number: refuted certificate case}``.

    Each case's search is made (its eager lemmas) and given a few budgeted solver rounds, in the fixed order;
    the cases still open then search until about the time a float fit would take (:data:`HINT_RATE`); if some
    are still open, the fit orders them (:func:`_first_case`: the case it names first, on a fresh solver with
    the fit's phases) and they are resumed until decided. Every case keeps its solver and lemmas between calls.
    """
    from .lazy import CaseSearch

    runs = _CaseRuns(req, cases)
    try:
        for number, Uc in enumerate(cases, 1):
            runs.searches[number] = CaseSearch(req.for_case(number), Uc, shared=runs.shared)
            res = runs.run(number, conflicts=QUICK_CONFLICTS, rounds=QUICK_ROUNDS)
            if res is not None and (net := runs.settle(number, res)) is not None:
                return net
        still = list(runs.searches)
        # the rent is CPU time (the fit's cost is CPU work): on a loaded machine wall time would buy the fit early
        until = time.process_time() + HINT_AFTER + len(req.X) * len(req.X[0]) * k / HINT_RATE if still else None
        for number in list(still):  # rent: search as long as the fit would take
            res = runs.run(number, until=until)
            if res is not None:
                still.remove(number)
                if (net := runs.settle(number, res)) is not None:
                    return net
        if still:  # buy: a float fit names the case to resume first and its phases
            first, phases = _first_case(req.X, req.Y, k, False, "lazy", req.stats)
            if first in still:
                still.remove(first)
                still.insert(0, first)
                if phases:  # a fresh solver: phases set on one that has searched already count for little
                    runs.searches[first].reset()
                    runs.searches[first].set_phases(phases)
        for number in still:
            before = runs.searches[number].stats["rounds"]
            res = runs.run(number)
            if number == req.stats.get("hint_case"):
                req.stats["hint_case_rounds"] = res.stats["rounds"] - before  # rounds after the hint
            if (net := runs.settle(number, res)) is not None:
                return net
    finally:
        runs.close()
    return runs.refuted


class _CaseRuns:
    """The open searches of :func:`_lazy_cases` (case number -> CaseSearch, kept between calls) and the refuted."""

    def __init__(self, req: SearchRequest, cases: list):
        self.req, self.cases = req, cases
        self.shared: dict = {}
        self.searches: dict = {}
        self.refuted: dict = {}

    def run(self, number: int, **limits):
        """Resume case ``number`` within the decision's deadline and rounds: its result, or None while open."""
        search = self.searches[number]
        return search.run(deadline=self.req.deadline, max_rounds=self._budget(search), **limits)

    def _budget(self, search):
        if self.req.max_nodes is None:
            return None
        used = self.req.stats.get("rounds", 0) + sum(o.stats["rounds"] for o in self.searches.values())
        return search.stats["rounds"] + max(self.req.max_nodes - used, 0)

    def settle(self, number: int, res) -> Network | None:
        """A decided case: its statistics added up, its search closed; the Network if realizable, else None."""
        search = self.searches.pop(number)
        search.close()
        _add_stats(self.req.stats, res.stats)
        Uc = self.cases[number - 1]
        if res.status == "realizable":
            return _lazy_network(Uc, res.V, self.req.d, res.c)
        self.refuted[number] = {"U": [[format_rational(x) for x in row] for row in Uc], **res.case}
        return None

    def close(self) -> None:
        for search in self.searches.values():
            search.close()


def _lazy_network(Uc, V, d, c=None) -> Network:
    Uq = QMatrix.from_fractions([x for r in Uc for x in r], len(Uc), len(Uc[0]))
    cq = None if c is None or not any(c) else QMatrix.from_fractions(list(c), len(c), 1)
    return Network(Uq, QMatrix.from_fractions([x for r in V for x in r], len(V), d), RELU, None, cq)


def _checked(cert, instance, stats) -> str:
    """The independent checker's verdict line (raises if invalid); its time goes into ``stats["check_seconds"]``."""
    t = time.monotonic()
    summary = verify(cert, instance)
    stats["check_seconds"] = time.monotonic() - t
    return summary


def _lazy_case(req: SearchRequest, Uc, phases=None):
    """One output-weight case by the lazy engine, with the rounds the decision has left; statistics are added up."""
    from .lazy import solve_case

    out = solve_case(req.but(max_nodes=req.rounds_left()), Uc, phases=phases)
    _add_stats(req.stats, out.stats)
    return out


def _add_stats(stats: dict, more: dict) -> None:
    """Add a case's numeric statistics into the decision's."""
    for key, v in more.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            stats[key] = stats.get(key, 0) + v


def _network(Uc, s: _Search, point, d) -> Network:
    V = [[Fraction(0)] * d for _ in range(len(Uc[0]))]
    for i in s.rel:
        o = s.pos[i] * d
        V[i] = list(point[o:o + d])
    return Network(QMatrix.from_fractions([x for r in Uc for x in r], len(Uc), len(Uc[0])),
                   QMatrix.from_fractions([x for r in V for x in r], len(V), d), RELU)
