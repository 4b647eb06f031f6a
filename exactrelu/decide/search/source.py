"""Deciding a reduction's instance by its source formula: CaDiCaL on the formula, the answer certified on the instance.

An instance that is *exactly* the image of the NAE -> ReLU reduction (:mod:`exactrelu.hardness.nae_to_relu`: m = 1,
every label 1, rows ``e_v``, ``-e_v`` for v = 1..N, then clause points, integer vectors whose entries' absolute
values add up to 3) is the formula written as points, and that formula (N variables, two CNF clauses per point) is
far smaller than the n k activation literals the general engine works on (200 variables and 880 clauses at
N = 200, against 1,680 and 8,001). :func:`decide_source` recognizes such an instance from the checker's own
reading of the file (nothing is guessed: any other instance gives None, and the caller takes the general path,
:func:`exactrelu.decide.decide`), solves the formula with CaDiCaL logging LRAT, and certifies the answer on the
instance:

* satisfiable: ``V = [s, -s]`` with ``s_v = +1`` iff v is true, ``U = [[1, 1]]``: a ``realizes`` certificate;
* unsatisfiable: a ``not-realizable`` certificate in the existing format (docs/certificates.md): the reduction's
  lemmas as templates, written in closed form (:mod:`.source_proof`), and the solver's refutation mapped onto the
  literals ``A(e_v, unit 0)``, behind one hinted step per source clause that derives it from the lemmas.

Either certificate is verified by the standard-library checker (:func:`exactrelu.certificates.checker.check`) before
it is returned, with its existing rules: nothing new is trusted. Only the standard library and python-sat are
imported (no numpy, FLINT or SciPy), unless the answer is "realizable" (the :class:`~exactrelu.network.Network`).

>>> import json, os, tempfile
>>> from exactrelu.certificates.checker import load_instance
>>> from exactrelu.hardness import NAEFormula, NaeToRelu
>>> from exactrelu.instances import write_instance
>>> path = os.path.join(tempfile.mkdtemp(), "i.json")
>>> f = NAEFormula(3, [(1, 2, 3), (1, 2, -3), (1, -2, 3), (1, -2, -3)])  # every sign pattern: unsatisfiable
>>> _ = write_instance(NaeToRelu().apply(f)[0], path)
>>> res = decide_source(load_instance(path), given=True)
>>> res.status, res.evidence["engine"], res.summary.split(";")[0]  # doctest: +NORMALIZE_WHITESPACE
('not-realizable', 'source', 'not-realizable: no 2-unit ReLU network without hidden biases and without output
  bias reproduces the labels (10 samples, the given output weights)')
>>> _ = write_instance(NaeToRelu().apply(NAEFormula(2, [(1, 1, 2)]))[0], path)  # x1 != x2
>>> res = decide_source(load_instance(path), given=False)
>>> res.status, res.certificate["V"]
('realizable', [['1', '-1'], ['-1', '1']])
>>> decide_source({"parsed": ([([1], [1])], [([2], [1])], "0" * 64), "activation": None}, given=True) is None
True
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import NamedTuple

from ...certificates import checker
from ...certificates.trusted.common import CheckFailed, activation_degree
from ...errors import ProofFormatError
from ..statuses import NOT_REALIZABLE, REALIZABLE
from .sat.solver import lrat_solver, solve_until, trace, trace_core
from .source_proof import case_refutation, other_case

__all__ = ["SourceFormula", "SourceAnswer", "recognize", "decide_source", "answer_by_source", "write_json"]

#: the sign cases of unknown output weights, in the checker's order ({1, 0, -1}^2, non-increasing)
SIGN_CASES = list(itertools.combinations_with_replacement((1, 0, -1), 2))


class SourceFormula(NamedTuple):
    """The NAE formula an instance is the image of: N variables and its clause points.

    ``points[r] = (j, coordinates, values)``: sample j is the point of clause r, non-zero exactly at
    ``coordinates`` (0-based variables), with ``values`` there, sorted down (ties by coordinate).
    """

    num_vars: int
    points: tuple

    def clauses(self) -> list[list[int]]:
        """The formula as CNF: for point r, clause 2r "not all false" and 2r + 1 "not all true" (DIMACS literals).

        >>> SourceFormula(3, ((6, (0, 2), (2, -1)),)).clauses()
        [[1, -3], [-1, 3]]
        """
        out = []
        for _, ts, values in self.points:
            lits = [t + 1 if c > 0 else -(t + 1) for t, c in zip(ts, values)]
            out += [lits, [-x for x in lits]]
        return out

    def most_frequent(self) -> int:
        """The (0-based) variable in the most clauses, the first of them on a tie; 0 without clauses. Fixing it
        (the symmetry) cut CaDiCaL's LRAT hints at N = 200 by 42% over eight seeds, against 26% for variable 0.

        >>> SourceFormula(3, ((6, (0, 2), (2, -1)), (7, (1, 2, 0), (1, 1, 1)))).most_frequent()
        0
        """
        count = [0] * self.num_vars
        for _, ts, _ in self.points:
            for t in ts:
                count[t] += 1
        return count.index(max(count)) if count else 0


def recognize(instance: dict) -> SourceFormula | None:
    """The formula whose reduction ``instance`` is, exactly, or None.

    ``instance`` is the checker's reading of the file (:func:`exactrelu.certificates.checker.load_instance`, with
    ``"parsed"``). Required: the ReLU (or no activation), one output, every label 1, d = N, rows 2v and 2v + 1 equal
    to ``e_v`` and ``-e_v``, every later row an integer vector whose entries' absolute values add up to 3 (a clause
    of three literals on distinct or repeated variables, none complementary). Nothing is inferred beyond that.
    """
    act = instance.get("activation")
    if act is not None and activation_degree(act) != 1:
        return None
    X, Y, _ = instance["parsed"]
    d, n = len(X[0][0]), len(X)
    if n < 2 * d or any(y != ([1], [1]) for y in Y):
        return None
    for v in range(d):
        for (nums, dens), s in ((X[2 * v], 1), (X[2 * v + 1], -1)):
            if nums[v] != s or nums.count(0) != d - 1 or dens.count(1) != d:
                return None
    points = []
    for j in range(2 * d, n):
        nums, dens = X[j]
        if dens.count(1) != d or nums.count(0) < d - 3:
            return None
        support = sorted([(-nums[t], t) for t in itertools.compress(range(d), nums)])  # the non-zeros
        if sum(abs(x) for x, _ in support) != 3:
            return None
        points.append((j, tuple(t for _, t in support), tuple(-x for x, _ in support)))
    return SourceFormula(d, tuple(points))


class SourceAnswer(NamedTuple):
    """A checked answer of the source route: ``status`` (``"realizable"`` or ``"not-realizable"``), the certificate,
    the checker's summary of it, and the route's ``evidence`` (sizes, seconds)."""

    status: str
    certificate: dict
    summary: str
    evidence: dict


def decide_source(instance: dict, *, given: bool, deadline: float | None = None, command: str | None = None,
                  network: bool = True):
    """Decide a reduction's instance by its source formula: a checked :class:`~exactrelu.decide.Decision`, or None.

    ``given``: the output weights are the given ``U = [[1, 1]]`` (else unknown, k = 2, the six sign cases). None
    when the instance is not exactly a reduction's image (:func:`recognize`), when this python-sat cannot trace
    LRAT or its trace cannot be read, or when the checker refuses the certificate (a bug, never an answer): the
    caller then decides by the general path. ``deadline`` (``time.monotonic()``) bounds the solver
    (:class:`~exactrelu.errors.TimeLimitExceeded`). ``command`` is recorded in the certificate's provenance.
    ``network=False`` leaves the realizing :class:`~exactrelu.network.Network` out of a "realizable" answer (its
    weights are in the certificate; building it imports FLINT, 0.2 s).
    """
    answer = answer_by_source(instance, given=given, deadline=deadline, command=command)
    if answer is None:
        return None
    from ..decision import Decision

    net = _network(answer.certificate) if network and answer.status == REALIZABLE else None
    return Decision(answer.status, net, answer.certificate, answer.summary, answer.evidence)


def answer_by_source(instance: dict, *, given: bool, deadline: float | None = None,
                     command: str | None = None) -> SourceAnswer | None:
    """:func:`decide_source` as a :class:`SourceAnswer`, with no network and no :class:`~exactrelu.decide.Decision`
    (whose module imports :mod:`dataclasses` and :mod:`inspect`: 6 ms of the command line's 0.3 s)."""
    formula = recognize(instance)
    if formula is None:
        return None
    stats = {"engine": "source", "source_variables": formula.num_vars, "source_clauses": 2 * len(formula.points),
             "rounds": 1, "lps": 0, "nodes": 0}
    fixed = formula.most_frequent()  # (x_f): NAE is unchanged by complementing all variables (the symmetry)
    clauses = formula.clauses() + [[fixed + 1]]
    t = time.monotonic()
    sat = lrat_solver(clauses)
    if sat is None:  # pragma: no cover - a python-sat without CaDiCaL's LRAT tracer
        return None
    try:
        found = solve_until(sat, deadline)
        stats["solve_seconds"] = time.monotonic() - t
        t = time.monotonic()
        if found:
            model = set(x for x in sat.get_model() if x > 0)
            cert = _realizes(formula, instance, model, command)
        else:
            used, steps = trace_core(trace(sat), sat.order)
            stats["trim_seconds"] = time.monotonic() - t
            t = time.monotonic()
            cert = _refutation(formula, instance, used, steps, given, command, fixed)
            stats.update(core_steps=len(steps), proof_steps=len(cert["cases"][0]["lrat"]))
    except ProofFormatError:  # pragma: no cover - another python-sat build's trace
        return None
    finally:
        sat.delete()
    stats["write_seconds"] = time.monotonic() - t
    t = time.monotonic()
    try:
        summary = checker.check(cert, instance)
    except CheckFailed:  # our certificate is wrong: a bug, never an answer; the general path decides
        return None
    stats["check_seconds"] = time.monotonic() - t
    return SourceAnswer(REALIZABLE if cert["claim"] == "realizes" else NOT_REALIZABLE, cert, summary, stats)


def _provenance(command: str | None) -> dict:
    from ..._version import __version__

    out = {"exactrelu_version": __version__, "decided_by": "exactrelu.decide.search.source", "engine": "source",
           "route": "the source formula (CaDiCaL, LRAT) mapped onto the reduction's lemmas"}
    if command:
        out["command"] = command
    return out


def _realizes(formula: SourceFormula, instance: dict, true: set, command) -> dict:
    """``realizes`` for ``V = [s, -s]``, ``s_v = 1`` iff variable v + 1 is true (a variable of no clause: false)."""
    s = [1 if v + 1 in true else -1 for v in range(formula.num_vars)]
    return {"format": "exactrelu.certificate", "version": 1, "claim": "realizes",
            "instance_sha256": instance["parsed"][2], "activation": {"name": "relu"}, "U": [["1", "1"]],
            "V": [[str(x) for x in s], [str(-x) for x in s]], "provenance": _provenance(command)}


def _refutation(formula: SourceFormula, instance: dict, used: list, steps: list, given: bool, command,
                fixed: int) -> dict:
    """``not-realizable`` from the source refutation (:func:`exactrelu.decide.search.source_proof.case_refutation`)."""
    main = case_refutation(list(formula.points), used, steps, fixed)
    if given:
        cases = [{"U": [["1", "1"]], **main}]
    else:
        cases = [{"U": [[str(a), str(b)]], **(main if (a, b) == (1, 1) else other_case((a, b)))} for a, b in SIGN_CASES]
    return {"format": "exactrelu.certificate", "version": 1, "claim": "not-realizable",
            "instance_sha256": instance["parsed"][2], "activation": {"name": "relu"}, "k": 2,
            "output_weights": "given" if given else "unknown", "cases": cases,
            "model": {"biases": False, "output_bias": False},  # e_v and -e_v: no input column is constant
            "provenance": _provenance(command)}


def _network(cert: dict):
    """The certificate's weights as a :class:`~exactrelu.network.Network` (FLINT: imported only here)."""
    from ...network import RELU, Network

    return Network.from_rows([[1, 1]], [[int(x) for x in row] for row in cert["V"]], RELU)


def write_json(cert: dict, path) -> Path:
    """Write a certificate as :func:`exactrelu.certificates.envelope.write_certificate` does (atomically, laid out),
    without importing what the envelope needs (numpy, FLINT)."""
    from ...io.files import atomic_output
    from ...io.layout import dump_layout

    path = Path(path)
    with atomic_output(path, what="certificate") as fh:
        dump_layout(cert, fh)
        fh.write("\n")
    return path
