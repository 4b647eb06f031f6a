"""The worst-case n^O(k) solver: arbitrary inputs, labels of rank k, exact answers both ways.

Papers' orientation inside: ``X = inputs.T`` (d x n), ``A = labels.T`` (m x n). If a ReLU network
with k units realizes ``A = U relu(V X)`` and ``rank(A) = k``, then ``rowspan(A) = rowspan(W)``
for ``W = relu(V X)``: every unit's row ``W_i`` is a *non-negative* vector of the row span,
and it is *realizable*: ``W_i = relu(v X)`` for some v. Conversely any k realizable rows
spanning ``rowspan(A)`` give a network (U from one exact solve). So the solver

1. takes k independent rows of A as an exact basis ``B`` (a rank above k refutes at once), and
   when rank(A) = k first tries exact recovery from the row span (polynomial; certified as below);
2. enumerates the extreme rays of the cone ``K = {c : c^T B >= 0}``
   (:func:`exactrelu.decide.enumeration.patterns.extreme_rays`): a ray is unique up to scale, so deciding
   whether it is realizable is one tiny exact LP in v (``v . x_j = w_j`` on the support,
   ``v . x_j <= 0`` off it);
3. if the realizable rays do not span k dimensions, searches the higher faces of K: for a face
   with rays ``R`` and support S, an exact LP over ``(lambda >= 0, v)`` asks for a realizable
   ``w = sum lambda_r r`` outside the span found so far (``a . c(w) = +-1`` for each
   functional ``a`` vanishing on that span); it repeats until nothing new is found;
4. solves U exactly and certifies ``realizes`` with the independent checker; or, when the
   realizable rows span fewer than ``rank(A) = k`` dimensions, proves it: a functional ``a``
   vanishing on their span, and case trees over the samples showing that no realizable row has
   ``a . c = +-1`` (:mod:`exactrelu.decide.enumeration.span_refutation`). A realizable row that the enumeration missed
   would turn up there as a new unit, so the answer never rests on the enumeration being complete.
   :class:`~exactrelu.errors.NotRealizable` then carries a ``not-realizable`` certificate
   (``exc.certificate``) that the independent checker has verified; ``evidence`` lists every
   pattern examined.

rank(labels) > k is certified by a non-zero (k+1) x (k+1) minor. For rank(labels) < k the problem is
NP-hard: with one output the lazy decision procedure (:func:`exactrelu.decide.decide`)
answers either way with a certificate; with several outputs the solver says that nothing is
decided (AssumptionViolated), not that no network exists. Every claim is about the class asked: ``bias=``
names it (:func:`~exactrelu.certificates.claims.model.bias_class`); hidden biases are the inputs with a constant 1
column appended, an output bias the labels with a constant column 1 (rank([labels | 1]) = k + 1 in place of
rank(labels) = k, the constant vector a unit that is always there; :mod:`exactrelu.decide.enumeration.bias`).

>>> from exactrelu.instances import Instance
>>> X = [[t, 1] for t in (-2, -1, 0, 1, 2, 3)]
>>> res = solve(Instance.from_arrays(X, [[0, 0], [0, 0], [0, 0], [1, 0], [2, 1], [3, 2]]), k=2, try_recovery=False)
>>> res.summary
'realizes: 6 samples x 2 outputs equal exactly (k=2, d=2, activation degree 1)'
>>> [(p.kind, p.outcome) for p in res.patterns]
[('extreme-ray', 'refuted'), ('extreme-ray', 'unit'), ('face', 'unit')]
>>> solve(Instance.from_arrays(X, [[0, 1], [0, 0], [0, 0], [1, 0], [2, 0], [3, 1]]), k=2, try_recovery=False)  # x_2 = 1: biases too
Traceback (most recent call last):
...
exactrelu.errors.NotRealizable: no 2-unit ReLU network with hidden biases and without output bias reproduces the labels: ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint

from ...certificates.claims.model import bias_class
from ...certificates.claims.realizes import realizes_certificate
from ...certificates.envelope import verify
from ...deadline import Deadline
from ...errors import AssumptionViolated, ExactReluError, NotRealizable, TimeLimitExceeded
from ...exact.linalg import PRIMES, independent_rows, nonsingular_minor, solve_consistent
from ...exact.matrix import QMatrix
from ...instances import Instance
from ...network import RELU, Network
from ...validation import check_k
from ..decision import REALIZABLE, Decision
from .bias import constant_unit, offset_instance, offset_network
from .cone import EnumerationOptions, PatternReport, enumerate_units
from .pattern_lps import Unit, annihilator
from ...progress import LineProgress
from .refusal import decided_no, refuted
from .span_refutation import Realizable, span_refutation

__all__ = ["solve_decision", "solve", "WorstCaseResult", "PatternReport"]


@dataclass
class WorstCaseResult:
    """A certified network found by :func:`solve` and how it was found (deprecated with :func:`solve`: the
    :class:`~exactrelu.decide.decision.Decision` of :func:`solve_decision` holds the same, either way)."""

    network: Network
    certificate: dict
    summary: str
    rank: int
    patterns: list[PatternReport]


def _basis(Y: QMatrix, offset: bool = False) -> tuple[list[list[int]], int, list[int]]:
    """Exactly independent rows of ``A = Y^T`` (integers), the exact rank and the rows' indices (outputs). With
    ``offset`` the last column of Y is the constant one, and its row is taken first (it is in every basis)."""
    A = Y.num.transpose()
    r = A.rank() if A.nrows() and A.ncols() else 0
    last = A.nrows() - 1
    for p in PRIMES:
        if offset:  # the constant row first: greedy rows keep it
            order = [last] + list(range(last))
            rows = [order[i] for i in independent_rows(flint.fmpz_mat([A.tolist()[i] for i in order]), p)]
        else:
            rows = independent_rows(A, p)
        if len(rows) == r:
            lst = A.tolist()
            return [[int(x) for x in lst[i]] for i in rows], r, rows
    raise ExactReluError("internal error: no prime found the rank of the labels")  # pragma: no cover


_SOLVE_DOC = """
    Parameters
    ----------
    instance : inputs (n x d) and labels (n x m), arbitrary (no distributional assumption).
    k : number of hidden units.
    progress : progress bars on stderr.
    keep_certificates : attach the LP certificate of each refutation to the reports.
    try_recovery : when rank(labels) = k, first try exact recovery from the row span
        (:func:`exactrelu.recover.recover`, polynomial; its certificate holds for any inputs) and
        enumerate the cone's rays only if it does not certify. The enumeration grows like n^O(k)
        (thousands of rays at k = 8, n = 200); the recovery handles generic inputs at k = 20 in seconds.
    executor, workers : decide the extreme rays' LPs on this ``concurrent.futures`` executor, ``workers``
        wide (:mod:`exactrelu.decide.enumeration.worstcase_parallel`); the answer and certificates are the same.
    time_limit : seconds (or a :class:`~exactrelu.deadline.Deadline`); past it the solver stops with
        :class:`~exactrelu.errors.TimeLimitExceeded`, saying what was done (nothing claimed).
    bias : the model class (as :func:`exactrelu.recover.recover`'s): ``True`` / ``"both"`` (hidden biases and an
        output bias, PyTorch's default), ``"hidden"``, ``"output"`` or ``False``. Hidden biases: the same algorithm
        on the inputs with a constant 1 column appended (:mod:`exactrelu.decide.enumeration.bias`; a refutation is
        then about that instance, ``Decision.instance``); an output bias: on the labels' row span with the constant
        vector.
"""


def solve_decision(instance: Instance, k: int, *, progress: bool = False, keep_certificates: bool = True,
                   try_recovery: bool = True, executor=None, workers: int = 2,
                   time_limit: "float | Deadline | None" = None, bias: "bool | str" = False) -> Decision:
    """Find a k-unit ReLU network realizing the labels exactly, or prove that none exists: one record either way.

    This is the front door of the worst-case solver. It is a function of its own rather than a flag of
    :func:`solve` (``solve(..., raise_on_no=False)``) because its return type then never depends on an
    argument: a caller reads ``status`` and finds the certificate in the same place for either answer
    (cvxpy's ``Solution``), and a type checker can follow it. :func:`solve` is the raising wrapper of 0.1,
    kept for one release.
    {params}
    Returns
    -------
    Decision
        ``status`` ``"realizable"``: ``network`` (m x k, k x d; units beyond rank(labels) are zero) and its
        verified ``realizes`` certificate; ``"not-realizable"``: ``rank(labels) > k``, or ``rank(labels) = k``
        and the realizable non-negative rows of the row span span fewer than k dimensions, or (one output)
        the decision procedure's refutation, with a verified ``not-realizable`` certificate. ``summary`` is
        the checker's verdict line; ``evidence`` holds ``rank``, ``k``, ``route`` (``"rank"``,
        ``"row-span-recovery"``, ``"enumeration"`` or ``"decide"``), ``patterns`` (every pattern examined,
        with its exact reason) and, for a "no", ``reason`` (what was proved, in words, starting with the class
        excluded) and, when networks with hidden biases were certified instead, ``diagnosis``.

    Raises
    ------
    AssumptionViolated
        Non-ReLU activation (the method needs positive homogeneity and linearity on the
        support), or ``rank(labels) < k`` with several outputs and no network within the row
        span (the problem is NP-hard there; nothing is decided, nothing claimed).
    TimeLimitExceeded
        ``time_limit`` passed first.
    """
    _check_arguments(instance, k)
    model = bias_class(bias)
    if model["biases"]:
        from .bias import biased_decision, with_constant_input

        aug = with_constant_input(instance)
        inner = "output" if model["output_bias"] else False
        return biased_decision(instance, aug, solve_decision(
            aug, k, progress=progress, keep_certificates=keep_certificates, try_recovery=try_recovery,
            executor=executor, workers=workers, time_limit=time_limit, bias=inner))
    offset = model["output_bias"]
    deadline = Deadline.coerce(time_limit)
    spanned = offset_instance(instance) if offset else instance  # an output bias: the labels' constant column m
    B, r, outputs = _basis(spanned.labels, offset)
    if r > k + offset:
        return _rank_refuted(instance, k, r, spanned)
    reports: list[PatternReport] = []
    if try_recovery and r == k + offset:
        found = _recovered(instance, k, deadline, reports, model)
        if found is not None:
            return found
    units: list[Unit] = [constant_unit(outputs)] if offset else []  # the constant vector: c's "unit", always there
    if r > 0:
        opt = EnumerationOptions(progress, keep_certificates, deadline, executor, workers)
        enumerate_units(instance.inputs, B, r, units, reports, opt)
        if len(units) < r == k + offset and (no := _span_refuted(instance, k, outputs, units, reports, progress,
                                                                  deadline, spanned)):
            return no
    if len(units) < r:  # here r < k (+ 1): the case r == k (+ 1) was completed or refuted above
        return _below_rank(instance, k, r, units, reports, deadline, offset)
    net = offset_network(instance.inputs, instance.labels, units, k) if offset else \
        _network(instance.inputs, instance.labels, units, k, instance.m, instance.d)
    cert = realizes_certificate(instance, net, solver="worstcase")
    return Decision(REALIZABLE, net, cert, verify(cert, instance),
                    {"rank": r, "k": k, "route": "enumeration", "patterns": reports})


def _rank_refuted(instance: Instance, k: int, r: int, spanned: Instance) -> Decision:
    """rank(labels) = r > k, or with an output bias rank([labels | 1]) = r > k + 1 (``spanned``: the labels with their
    constant column): the certified "no" of step 1 (a non-zero minor of k + 2 rows excludes c too)."""
    offset = spanned is not instance
    what, bound = ("rank([labels | 1])", f"k + 1 = {k + 1}") if offset else ("rank(labels)", f"k = {k}")
    return refuted(instance, k, nonsingular_minor(spanned.labels, min(r, k + 2)), None,
                   f"{what} = {r} > {bound}, and relu(inputs V^T + b) U^T has rank at most k"
                   + (" (with + 1 c^T and the constant column, k + 1)" if offset else ""),
                   {"rank": r, "k": k, "patterns": []}, "rank", solver=solve_decision)


def _span_refuted(instance, k, outputs, units, reports, progress, deadline, spanned) -> Decision | None:
    """rank(labels) = k (with an output bias rank([labels | 1]) = k + 1) but the units found span fewer dimensions:
    the certified "no" of step 4, or None after the span refutation found the missing realizable rows."""
    r = len(outputs)
    span = _prove_span(spanned, outputs, units, r, reports, progress, deadline)
    if span is None:
        return None
    what = "rank([labels | 1])" if spanned is not instance else "rank(labels)"
    return refuted(instance, k, nonsingular_minor(spanned.labels, r, outputs), span,
                   f"{what} = {r}, but the realizable non-negative rows of their row span span only "
                   f"{len(units)} dimensions ({len(reports)} patterns examined, each decided exactly)",
                   {"rank": r, "k": k, "span": len(units), "patterns": reports}, "enumeration", deadline,
                   solve_decision)


def _below_rank(instance, k, r, units, reports, deadline, offset: bool = False) -> Decision:
    """rank(labels) = r < k and no network with rows in the row span: one output is decided by the search, several
    are NP-hard here and nothing is decided (AssumptionViolated)."""
    if instance.m == 1:  # one output: the lazy engine decides any k, either way, with a certificate
        return _decide_one_output(instance, k, r, reports, deadline, offset)
    raise AssumptionViolated(
        f"rank(labels) = {r} < k = {k} with {instance.m} outputs and no network with rows in the row span "
        "exists; units outside the row span are possible and the problem is NP-hard in this regime: nothing is "
        "decided (no claim either way, not certified)",
        evidence={"rank": r, "k": k, "span": len(units), "patterns": reports},
        suggestion="a smaller k (= rank), or the fixed-parameter / hardness tools",
    )


def solve(instance: Instance, k: int, *, progress: bool = False, keep_certificates: bool = True,
          try_recovery: bool = True, executor=None, workers: int = 2,
          time_limit: "float | Deadline | None" = None) -> WorstCaseResult:
    """Find a k-unit ReLU network realizing the labels exactly, or raise the proof that none exists.

    Deprecated form of :func:`solve_decision` (the interface of 0.1, kept for one release): the same
    computation, with a proved "no" raised as :class:`~exactrelu.errors.NotRealizable` instead of returned.
    {params}
    Returns
    -------
    WorstCaseResult
        ``network`` (m x k, k x d; units beyond rank(labels) are zero), its verified
        ``realizes`` certificate and the pattern reports.

    Raises
    ------
    NotRealizable
        A proved "no" (see :func:`solve_decision`): always with ``exc.certificate``, a verified
        ``not-realizable`` certificate (``evidence["patterns"]`` holds every pattern examined with its exact
        reason, ``evidence["certificate"]`` the checker's verdict line).
    AssumptionViolated, TimeLimitExceeded
        As :func:`solve_decision`.
    """
    res = solve_decision(instance, k, progress=progress, keep_certificates=keep_certificates,
                         try_recovery=try_recovery, executor=executor, workers=workers, time_limit=time_limit)
    ev = res.evidence
    if not res.realizable:
        kept = {key: v for key, v in ev.items() if key not in ("reason", "route", "search")}
        raise NotRealizable(f"{ev['reason']}; certified: {res.summary}", evidence={**kept, "certificate": res.summary},
                            certificate=res.certificate)
    return WorstCaseResult(res.network, res.certificate, res.summary, ev["rank"], ev["patterns"])


for _f in (solve_decision, solve):  # one text of the parameters for both (absent under python -OO)
    if _f.__doc__:
        _f.__doc__ = _f.__doc__.replace("    {params}", _SOLVE_DOC.rstrip())


def _check_arguments(instance: Instance, k: int) -> None:
    check_k(k)
    if instance.activation is not None and instance.activation != RELU:
        raise AssumptionViolated(
            f"the worst-case solver handles ReLU only, the instance says {instance.activation}",
            suggestion="exact recovery (exactrelu recover), which handles rectified powers",
        )


def _recovered(instance: Instance, k: int, deadline: Deadline, reports: list, model: dict) -> Decision | None:
    """Step 1's cheap exact route (rank(labels) = k): its certified Decision, or None (reported) to enumerate."""
    from ...recover.front_door import recover  # the cheaper exact route; falls back to enumeration

    try:
        res = recover(instance, k=k, activation=RELU, check=True, time_limit=deadline, bias=model)
    except TimeLimitExceeded:
        raise
    except ExactReluError as exc:
        reports.append(PatternReport((), "row-span-recovery", "not-certified",
                                     f"exact recovery gave no certificate ({type(exc).__name__}); enumerating", []))
        return None
    reports.append(PatternReport((), "row-span-recovery", "certified",
                                 f"all {k} units from row-span kernels ({res.proposer})", []))
    return Decision(REALIZABLE, res.network, res.certificate, res.checked,
                    {"rank": k, "k": k, "route": "row-span-recovery", "patterns": reports})


def _prove_span(instance, outputs, units, r, reports, progress, deadline):
    """Step 4's proof: (functional, trees) showing that no realizable row leaves the units' span, or None
    after adding the realizable rows it found instead (until the units span r dimensions)."""
    say = None if not progress else LineProgress()
    den = int(instance.labels.den)  # hidden row w = c^T A_S with A_S = B / den: c_B = c / den
    try:
        while len(units) < r:
            a = annihilator([u.c for u in units], r)[0]
            found = span_refutation(instance, outputs, a, deadline=deadline, progress=say)
            if not isinstance(found, Realizable):
                return a, found
            cb = [x / den for x in found.c]
            lam = math.lcm(*(x.denominator for x in cb))
            units.append(Unit(tuple(int(x * lam) for x in cb), [v * lam for v in found.v]))
            reports.append(PatternReport((), "span-search", "unit",
                                         "realizable row outside the span of the units so far (found by the span refutation)"))
    finally:
        if say is not None:
            say.close()
    return None


def _decide_one_output(instance, k, r, reports, deadline, offset: bool = False) -> Decision:
    """One output and no network in the row span: the lazy decision procedure, certified either way."""
    from ..search.pattern_search import decide

    res = decide(instance, k=k, time_limit=deadline.remaining(), output_bias=offset)
    reports.append(PatternReport((), "decide", res.status, "lazy engine (activation literals, exact LP lemmas)"))
    evidence = {"rank": r, "k": k, "route": "decide", "patterns": reports, "search": res.evidence}
    if res.realizable:
        return Decision(res.status, res.network, res.certificate, res.summary, evidence)
    return decided_no(instance, k, res, evidence, deadline, solve_decision)


def _network(X: QMatrix, Y: QMatrix, units, k: int, m: int, d: int) -> Network:
    t = len(units)
    Vrows = [list(u.v) for u in units] + [[0] * d for _ in range(k - t)]
    V = QMatrix.from_rows(Vrows, name="V")
    if t == 0:
        return Network(QMatrix(flint.fmpz_mat(m, k), 1), V, RELU)
    Vt = QMatrix.from_rows([list(u.v) for u in units], name="V")
    W = Network(QMatrix(flint.fmpz_mat(m, t), 1), Vt, RELU).hidden_exact(X)  # t x n
    # U W = A  <=>  W^T U^T = Y; with W = Wn / Wd, Y = Yn / Yd: U^T = sol * Wd / Yd for Wn^T sol = Yn
    sol = solve_consistent(W.num.transpose(), Y.num, what="U")
    num, den = sol.numer_denom()
    Uq = QMatrix(num.transpose() * int(W.den), int(den) * int(Y.den))
    rows = Uq.to_fractions()
    full = [row + [Fraction(0)] * (k - t) for row in rows]
    return Network(QMatrix.from_rows(full, name="U").reduced(), V, RELU)
