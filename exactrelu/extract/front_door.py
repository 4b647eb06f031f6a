"""``extract``: the exact weights of a two-layer ReLU network from query access, with what the answers prove.

1. A random rational line x(t) = p + t q; every kink on it found exactly (:mod:`.line_search`).
2. The Jacobian of each linear region the line crosses, by d probes; the jumps give each hyperplane and its
   coefficient, the first region the affine part (:mod:`.regions`). Probes found afterwards to have left their
   region are repeated with a step below their exact distance to the hyperplanes found.
3. The canonical form is written as the smallest network found (:func:`exactrelu.equiv.minimize.network_from_form`).
4. Fresh random queries, asked only now, must all be reproduced exactly; then the transcript (every query and
   answer) is an instance, and the network's ``realizes`` certificate on it is checked by the independent
   checker.

What this proves, and what not, is :attr:`Extraction.statement` (docs/extraction.md, "What is proved").

>>> from exactrelu.network import Network
>>> from exactrelu.extract.oracles import NetworkOracle
>>> hidden = Network.from_rows(U=[[2, -1]], V=[[1, 1], [1, -2]], b=["1/2", 0], c=[3])
>>> res = extract(NetworkOracle(hidden))
>>> res.network.k, res.width_lower_bound, res.summary.startswith("realizes")
(2, 2, True)
>>> from exactrelu.equiv import functionally_equal
>>> functionally_equal(res.network, hidden).status
'equivalent'
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..certificates.claims.realizes import realizes_certificate
from ..certificates.envelope import verify
from ..equiv.canonical import CanonicalForm
from ..equiv.minimize import network_from_form
from ..errors import AssumptionViolated, InvalidInput, NotRealizable
from ..validation import as_generator, check_k
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import RELU, Network
from .line_search import Line, Piece, kinks
from .oracles import Oracle
from .regions import region_jacobians

__all__ = ["Extraction", "extract"]

#: the certificate's instance holds every query up to this many numbers n (d + m); above, the d-point probe
#: batches are left out (the line points, region points and fresh queries stay): the checker's work is n k d
CERTIFIED_ENTRIES = 2_000_000


@dataclass
class Extraction:
    """The extracted network and what the answers prove about it.

    Attributes
    ----------
    network : the smallest network found computing the function seen (exact weights, biases, output bias).
    canonical : its canonical form (hyperplanes, coefficients, affine part).
    queries : oracle calls made, fresh ones included.
    width_lower_bound : every network reproducing the transcript has at least this many units (proved by
        exact collinearity tests on the search line).
    certificate : ``realizes`` of ``network`` on ``instance``, checked by the independent checker.
    instance : the transcript as an instance (all queries, or all but the probe batches: ``evidence``).
    summary : the checker's verdict line.
    statement : what is proved and what is not, one sentence per line.
    evidence : the line, kinks, query counts by phase, seconds.
    """

    network: Network
    canonical: CanonicalForm
    queries: int
    width_lower_bound: int
    certificate: dict
    instance: Instance
    summary: str
    statement: str
    evidence: dict = field(default_factory=dict)

    @property
    def units(self) -> int:
        return self.network.k


def _line(d: int, rng: np.random.Generator) -> Line:
    """A random line: p on a coarse dyadic grid (|p_i| <= 4), q with 2^17 values per entry, none zero (a line
    parallel to a hyperplane misses its kink: with integer weights a coarse q would often be)."""
    p = [Fraction(int(v), 64) for v in rng.integers(-256, 257, size=d)]
    q = [Fraction(int(v) or 1, 2**14) for v in rng.integers(-2**16, 2**16 + 1, size=d)]
    return Line(p, q)


def _windows(found) -> int:
    """Kinks whose three window points have answers that are not collinear (exact). The windows are disjoint open
    intervals of the search line, each needs a kink of any network reproducing the answers, and a unit has one
    kink on a line: so at least this many units."""
    count = 0
    for kink in found:
        (a, t, b), (ya, yt, yb) = kink.window, kink.answers
        if Piece.through(a, ya, b, yb)(t) != yt:
            count += 1
    return count


def _fresh(oracle: Oracle, net: Network, count: int, rng: np.random.Generator) -> int:
    points = [[Fraction(int(v), 64) for v in rng.integers(-512, 513, size=oracle.d)] for _ in range(count)]
    got = oracle(points)
    want = net.evaluate_exact(QMatrix.from_fractions([x for p in points for x in p], count, oracle.d)).to_fractions()
    for x, a, b in zip(points, got, want):
        if a != b:
            raise AssumptionViolated("the extracted network differs from the oracle at a fresh query: the oracle is "
                                     "not a two-layer ReLU network, or a unit was missed (its kink beyond the search "
                                     "range, or a slab of parallel units between queries)",
                                     evidence={"point": [str(v) for v in x], "oracle": [str(v) for v in a],
                                               "extracted": [str(v) for v in b], "line_specific": True})
    return count


def _within_k(net: Network, form: CanonicalForm, lower: int, k: int | None) -> None:
    """Refuse a network found with more units than the ``k`` asked for, saying what is and is not known.

    The network's own function needs ``lower`` units (minimize's bound on its canonical form); the oracle is known
    only at the queries, so nothing is claimed about a k-unit network for the oracle: a line where a probe left its
    region unseen gives a wrong form that can still reproduce every query, and another line is drawn."""
    if k is None or net.k <= k:
        return
    extra = net.k - form.units
    raise AssumptionViolated(
        f"the network found reproduces every answer but has {net.k} units, more than k = {k} ({form.units} "
        f"hyperplanes and {extra} more for its affine part). Not proved: that no {k}-unit network reproduces the "
        "oracle (the oracle is known only at the queries)",
        evidence={"hyperplanes": form.units, "units_found": net.k, "lower_bound_form": lower, "line_specific": True})


def _transcript(oracle: Oracle) -> tuple[Instance, bool]:
    complete = oracle.queries * (oracle.d + oracle.m) <= CERTIFIED_ENTRIES
    if complete:
        X, Y = oracle.points()
    else:
        X, Y = oracle.points(axes=False)
    n, d, m = len(X), oracle.d, oracle.m
    inst = Instance(QMatrix.from_fractions([v for x in X for v in x], n, d), QMatrix.from_fractions([v for y in Y for v in y], n, m),
                    activation=RELU)
    # the canonical strings straight from the Fractions (str(Fraction) is canonical): the instance's one common
    # denominator is large (kink points have their own), so QMatrix.to_strings would reduce every entry by a gcd
    inst._cache["_input_strings"] = [[str(v) for v in x] for x in X]
    inst._cache["_label_strings"] = [[str(v) for v in y] for y in Y]
    return inst, complete


def _statement(K: int, units: int, lower: int, optimal: bool, k: int | None, fresh: int, n: int, complete: bool) -> str:
    parts = [f"proved: the extracted network reproduces the oracle exactly at the {n} queries of the transcript "
             f"({'all of them' if complete else 'all but the probe batches'}; the realizes certificate) and at "
             f"{fresh} fresh random queries asked after the extraction"]
    parts.append(f"proved: every network reproducing these answers has at least {K} units ({K} disjoint windows of the "
                 "search line where three answers are not collinear; a unit has one kink on a line)"
                 + (", so none has fewer units than the extracted one" if units == K else ""))
    if units > K:
        parts.append(f"not proved (a bound on the extracted network, not on the oracle): the extracted network's "
                     f"function needs at least {lower} units of this form (its affine part is written back as units)"
                     f"{'; the extracted network has that many' if optimal else ''}")
    if k is not None and units < k:
        parts.append(f"{k - units} of the k = {k} units are not seen: dead, with zero output weights, cancelling, or "
                     "folded into the affine part (they do not change the function)")
    parts.append("not proved: that the oracle equals the extracted network everywhere (no finite set of queries "
                 "proves it: a kink beyond the search range, or a slab of parallel units between queries, stays unseen); "
                 "for a network you believe the oracle is, exactrelu equiv gives a certificate either way")
    return "\n".join(parts)


def _one_line(oracle: Oracle, rng, k, progress):
    """Steps 1-3 of the module docstring on one random line."""
    line = _line(oracle.d, rng)
    q0 = oracle.queries
    found = kinks(oracle, line)
    q_line = oracle.queries - q0
    if progress:
        progress(f"extract: {len(found)} kinks on the search line, {oracle.queries} queries")
    if k is not None and len(found) > k:
        raise NotRealizable(f"the oracle has {len(found)} kinks on one line: no network with k = {k} units reproduces "
                            "its answers (each unit has at most one kink on a line)", evidence={"kinks": len(found), "k": k})
    form = region_jacobians(oracle, line, found, progress)
    if progress:
        progress(f"extract: {form.units} hyperplanes, writing the network, {oracle.queries} queries")
    net, lower, optimal = network_from_form(form)
    phases = {"queries_line": q_line, "queries_regions": oracle.queries - q0 - q_line}
    return line, found, form, net, lower, optimal, phases


def extract(oracle: Oracle, *, k: int | None = None, seed: int = 0, fresh: int | None = None, check: bool = True,
            progress=None, lines: int = 3) -> Extraction:
    """Extract the exact weights of the two-layer ReLU network behind ``oracle`` (module docstring).

    Parameters
    ----------
    oracle : an :class:`~exactrelu.extract.oracles.Oracle` (its budget and time limit apply to every query).
    k : the number of hidden units, if known; more kinks than k on one line is a proof that no k-unit network
        reproduces the answers (NotRealizable). None: found from the answers.
    seed : seed of the search line and of the fresh queries.
    fresh : fresh verification queries (default 64: a unit that was missed is active at about half of them).
    check : run the independent checker on the certificate (default True).
    progress : a callable receiving progress lines with the query count.
    lines : random lines to try before giving up (a line parallel to a hyperplane, or two kinks too close, fails
        the fresh queries or the checks; another line is drawn).

    Returns
    -------
    Extraction
        The network, the queries used, the proved lower bound on the width, the checked certificate, and the
        statement of what is proved.

    Raises
    ------
    NotRealizable
        More than k kinks on the search line.
    AssumptionViolated
        The oracle is not affine far out, kinks accumulate, probes keep leaving their region, a fresh query
        differs, or the query budget is exhausted: nothing is claimed.
    """
    if not isinstance(oracle, Oracle):
        raise InvalidInput("extract needs an Oracle (CallableOracle, NetworkOracle or CommandOracle)")
    k = None if k is None else check_k(k)
    rng = as_generator(seed)
    t0 = time.perf_counter()
    for attempt in range(lines):
        try:
            line, found, form, net, lower, optimal, phases = _one_line(oracle, rng, k, progress)
            count = fresh if fresh is not None else 64
            if progress:
                progress(f"extract: {count} fresh queries")
            _fresh(oracle, net, count, rng)
            _within_k(net, form, lower, k)
            break
        except AssumptionViolated as exc:
            if attempt == lines - 1 or not exc.evidence.get("line_specific"):
                raise
            if progress:
                progress(f"extract: line {attempt + 1} failed ({str(exc)[:60]}...), trying another")
    if progress:
        progress(f"extract: the transcript of {oracle.queries} queries and its certificate")
    inst, complete = _transcript(oracle)
    cert = realizes_certificate(inst, net, method="extract", seed=seed, queries=oracle.queries)
    summary = verify(cert, inst) if check else "realizes (not checked: check=False)"
    K = _windows(found)
    statement = _statement(K, net.k, lower, optimal, k, count, inst.n, complete)
    evidence = {"kinks": len(found), "hyperplanes": form.units, **phases, "lines": attempt + 1,
                "queries_fresh": count, "transcript_complete": complete, "lower_bound_form": lower,
                "optimal_form": optimal, "seconds": time.perf_counter() - t0,
                "line": {"p": [str(v) for v in line.p], "q": [str(v) for v in line.q]}}
    return Extraction(net, form, oracle.queries, K, cert, inst, summary, statement, evidence)
