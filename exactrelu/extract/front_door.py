"""``extract``: the exact weights of a two-layer ReLU network from query access, with what the answers prove.

1. A random rational line x(t) = p + t q; every kink on it found exactly (:mod:`.line_search`).
2. The Jacobian of each linear region the line crosses, by d probes; the jumps give each hyperplane and its
   coefficient, the first region the affine part (:mod:`.regions`). Probes that left their region (seen along the
   line or against the hyperplanes found) are repeated with a smaller step.
3. The canonical form is written as the smallest network found (:func:`exactrelu.equiv.minimize.network_from_form`).
4. Fresh random queries, asked only now, must all be reproduced exactly; then the transcript (every query and
   answer, in compact blocks: the line, the axis batches, the points) goes into a ``transcript`` certificate with the
   network and the windows of the lower bound, checked by the independent checker.

What this proves, and what not, is :attr:`Extraction.statement` (docs/extraction.md, "What is proved").

>>> from exactrelu.network import Network
>>> from exactrelu.extract.oracles import NetworkOracle
>>> hidden = Network.from_rows(U=[[2, -1]], V=[[1, 1], [1, -2]], b=["1/2", 0], c=[3])
>>> res = extract(NetworkOracle(hidden))
>>> res.network.k, res.width_lower_bound, res.summary.startswith("transcript")
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

from ..certificates.claims.transcript import transcript_certificate, verify_transcript
from ..equiv.canonical import CanonicalForm
from ..equiv.minimize import network_from_form
from ..errors import AssumptionViolated, CertificateInvalid, InvalidInput, NotRealizable
from ..validation import as_generator, check_positive_integer
from ..exact.matrix import QMatrix
from ..network import Network
from .line_search import Line, Piece, kinks, random_line
from .deep import two_hidden_layers
from .deeper import hidden_layers
from .oracles import Oracle
from .regions import region_jacobians

__all__ = ["Extraction", "extract", "MAX_HIDDEN_LAYERS"]

#: the deepest oracle extracted (each level multiplies the work; a deeper network is refused before any query)
MAX_HIDDEN_LAYERS = 8


@dataclass
class Extraction:
    """The extracted network and what the answers prove about it.

    Attributes
    ----------
    network : the smallest network found computing the function seen (exact weights, biases, output bias).
    canonical : its canonical form (hyperplanes, coefficients, affine part); for two hidden layers, the canonical
        form of the second layer as a function of the first layer's outputs.
    queries : oracle calls made, fresh ones included.
    width_lower_bound : every network ``U relu(V x + b) + c`` giving the oracle's answers has at least this many
        units (disjoint windows of the search line where three answers are not collinear; in the certificate). None
        for two hidden layers (no lower bound is stated).
    certificate : the ``transcript`` certificate: every query and answer, the network said to give every one, and
        the windows of the lower bound; checked by the independent checker unless ``check=False``.
    summary : the checker's verdict line.
    statement : what is certified and what is not, one sentence per line.
    evidence : the line, kinks, query counts by phase, seconds.
    """

    network: Network
    canonical: CanonicalForm
    queries: int
    width_lower_bound: int | None
    certificate: dict
    summary: str
    statement: str
    evidence: dict = field(default_factory=dict)

    @property
    def units(self) -> int:
        """The hidden units (all hidden layers together)."""
        return sum(self.network.widths[1:-1])


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


def _certificate(oracle: Oracle, line: Line, found, net: Network | None, seed: int, check: bool):
    """(certificate, checker's summary or None, K): the transcript of every query, with ``net`` and the windows of
    the kinks on ``line`` whose three answers are not collinear (K of them; all of them, by construction)."""
    blocks, lines, bases = oracle.blocks()
    index, where = lines[(line.p, line.q)] if found else (None, {})
    windows = [[where[a], where[t], where[b]] for kink in found for (a, t, b) in [kink.window]
               if Piece.through(a, kink.answers[0], b, kink.answers[2])(t) != kink.answers[1]]
    cert = transcript_certificate(oracle.d, oracle.m, blocks, network=net, bases=bases,
                                  windows={"block": index, "points": windows} if windows else None,
                                  method="extract", seed=seed, queries=oracle.queries)
    return cert, verify_transcript(cert) if check else None, len(windows)


def _statement(K: int, units: int, lower: int, optimal: bool, k: int | None, fresh: int, n: int, checked: bool) -> str:
    said = "certified" if checked else "in the certificate (not checked: check=False)"
    parts = [f"{said}: the extracted network gives the oracle's answer exactly at every one of the {n} queries (the "
             f"transcript certificate holds them all, the {fresh} fresh random queries asked after the extraction too)"]
    parts.append(f"{said}: every network U relu(V x + b) + c giving these answers has at least {K} units ({K} disjoint "
                 "windows of the search line where three answers are not collinear; a unit has one kink on a line)"
                 + (", so none has fewer units than the extracted one" if units == K else ""))
    if units > K:
        parts.append(f"not proved (a bound on the extracted network, not on the oracle): the extracted network's "
                     f"function needs at least {lower} units of this form (its affine part is written back as units)"
                     f"{'; the extracted network has that many' if optimal else ''}")
    if k is not None and units < k:
        parts.append(f"not proved: that the {k - units} of the k = {k} units not seen leave the function unchanged "
                     "(dead, with zero output weights, cancelling, or folded into the affine part; or with their kink "
                     "beyond the search range)")
    parts.append("not proved: that the oracle equals the extracted network everywhere (no finite set of queries "
                 "proves it: a kink beyond the search range, or a slab of parallel units between queries, stays "
                 "unseen); for a network you believe the oracle is, exactrelu equiv gives a certificate either way")
    return "\n".join(parts)


def _one_line(oracle: Oracle, rng, k, progress, seed: int, check: bool):
    """Steps 1-3 of the module docstring on one random line."""
    line = random_line(oracle.d, rng)
    q0 = oracle.queries
    found = kinks(oracle, line)
    q_line = oracle.queries - q0
    if progress:
        progress(f"extract: {len(found)} kinks on the search line, {oracle.queries} queries")
    if k is not None and len(found) > k:
        cert, summary, K = _certificate(oracle, line, found, None, seed, check)
        raise NotRealizable(f"the oracle has {K} kinks on one line: no network with k = {k} units gives its answers "
                            f"(each unit has at most one kink on a line; {'certified' if check else 'not checked'}: "
                            f"the transcript certificate)", evidence={"kinks": K, "k": k, "summary": summary},
                            certificate=cert)
    form = region_jacobians(oracle, line, found, progress)
    if progress:
        progress(f"extract: {form.units} hyperplanes, writing the network, {oracle.queries} queries")
    net, lower, optimal = network_from_form(form)
    phases = {"queries_line": q_line, "queries_regions": oracle.queries - q0 - q_line}
    return line, found, form, net, lower, optimal, phases


def _lines(oracle: Oracle, rng, k, progress, seed: int, check: bool, count: int, lines: int):
    """:func:`_one_line`, its fresh queries and the check against k, on up to ``lines`` lines (another one after a
    line-specific failure); the phases gain the number of lines tried."""
    attempt = 0
    while True:
        attempt += 1
        try:
            line, found, form, net, lower, optimal, phases = _one_line(oracle, rng, k, progress, seed, check)
            if progress:
                progress(f"extract: {count} fresh queries")
            _fresh(oracle, net, count, rng)
            _within_k(net, form, lower, k)
            return line, found, form, net, lower, optimal, {**phases, "lines": attempt}
        except AssumptionViolated as exc:
            if attempt >= lines or not exc.evidence.get("line_specific"):
                raise
            if progress:
                progress(f"extract: line {attempt} failed ({str(exc)[:60]}...), trying another")


def _deep_statement(net: Network, n: int, fresh: int, widths, checked: bool) -> str:
    said = "certified" if checked else "in the certificate (not checked: check=False)"
    shape = "-".join(map(str, net.widths))
    depth = len(net.widths) - 2
    parts = [f"{said}: the extracted network ({shape}) gives the oracle's answer exactly at every one of the {n} "
             f"queries (the transcript certificate holds them all, the last {fresh} fresh random queries asked after "
             "the network was built too)",
             f"not proved: that no network with fewer neurons gives these answers (no lower bound is stated for "
             f"{depth} hidden layers)"]
    if widths is not None and len(widths) == depth and net.widths[depth] < widths[-1]:
        parts.append(f"not proved: that the {widths[-1] - net.widths[depth]} units of the last hidden layer of the "
                     f"{widths[-1]} asked for and not seen leave the function unchanged (off or constant wherever the "
                     "layers below reach)")
    parts.append("not proved: that the oracle equals the extracted network everywhere (no finite set of queries proves "
                 "it: a neuron active only where no line or chord went stays unseen); for a network you believe the "
                 "oracle is, exactrelu equiv gives a certificate either way")
    return "\n".join(parts)


def _extract_deep(oracle: Oracle, depth: int, widths, seed: int, count: int, check: bool, progress) -> Extraction:
    """Two hidden layers (:mod:`.deep`) or more (:mod:`.deeper`), with the transcript certificate of the deep
    network."""
    t0 = time.perf_counter()
    if depth == 2:
        net, evidence = two_hidden_layers(oracle, as_generator(seed), width=widths[0] if widths else None,
                                          fresh=count, progress=progress)
    else:
        net, evidence = hidden_layers(oracle, as_generator(seed), depth, widths=widths, fresh=count,
                                      progress=progress)
    if widths is not None and len(widths) == depth and net.widths[depth] > widths[-1]:
        raise AssumptionViolated(f"the network found reproduces every answer but has {net.widths[depth]} units in its "
                                 f"last hidden layer, more than the {widths[-1]} asked for. Not proved: that no such "
                                 f"network with {widths[-1]} reproduces the oracle (the oracle is known only at the "
                                 "queries)", evidence={"widths": list(net.widths)})
    if progress:
        progress(f"extract: the transcript of {oracle.queries} queries and its certificate")
    blocks, _, bases = oracle.blocks()
    cert = transcript_certificate(oracle.d, oracle.m, blocks, network=net, bases=bases, method="extract", seed=seed,
                                  queries=oracle.queries, hidden_layers=depth)
    try:
        summary = verify_transcript(cert) if check else "transcript (not checked: check=False)"
    except CertificateInvalid as exc:  # a bug: nothing is claimed
        raise AssumptionViolated(f"the network found does not give every answer of the transcript ({exc}); nothing "
                                 "is claimed") from None
    evidence["seconds"] = time.perf_counter() - t0
    return Extraction(net, evidence.pop("form"), oracle.queries, None, cert, summary,
                      _deep_statement(net, oracle.queries, count, widths, check), evidence)


def extract(oracle: Oracle, *, k: int | None = None, seed: int = 0, fresh: int | None = None, check: bool = True,
            progress=None, lines: int = 3, hidden_layers: int = 1, widths: tuple[int, ...] | None = None) -> Extraction:
    """Extract the exact weights of the two-layer ReLU network behind ``oracle`` (module docstring).

    Parameters
    ----------
    oracle : an :class:`~exactrelu.extract.oracles.Oracle` (its budget and time limit apply to every query).
    k : the number of hidden units, if known; more kinks than k on one line is a proof that no k-unit network
        reproduces the answers (NotRealizable). None: found from the answers.
    seed : seed of the search line and of the fresh queries.
    fresh : fresh verification queries (default 64: a unit that was missed is active at about half of them; 512 for
        two hidden layers, where a missed second-layer neuron may change f only in a small part of the space; 4,096
        for three or more, where a missed neuron of a middle layer changed f at 0.06 % of the inputs).
    check : run the independent checker on the certificate (default True).
    progress : a callable receiving progress lines with the query count.
    lines : random lines to try before giving up (a line parallel to a hyperplane, or two kinks too close, fails
        the fresh queries or the checks; another line is drawn).
    hidden_layers : 1 (``U relu(V x + b) + c``), 2 (``W3 relu(W2 relu(W1 x + b1) + b2) + b3``, docs/extraction.md,
        "Two hidden layers") or more, up to :data:`MAX_HIDDEN_LAYERS` ("More hidden layers"); ``k`` and ``lines``
        are then not used.
    widths : for two or more hidden layers, the first widths (k1, k2, ...) if known: each picks that many neurons of
        its layer; more units than the last one asked for found in the last hidden layer is refused
        (AssumptionViolated). None: found from the answers.

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
    _arguments(oracle, k, fresh, lines, hidden_layers, widths)
    count = fresh if fresh is not None else {1: 64, 2: 512}.get(hidden_layers, 4096)
    if hidden_layers >= 2:
        return _extract_deep(oracle, hidden_layers, widths, seed, count, check, progress)
    return _extract_one(oracle, k, seed, count, check, progress, lines)


def _arguments(oracle, k, fresh, lines, hidden_layers, widths) -> None:
    """Refuse the arguments of :func:`extract` that are not of their kind, before any query (InvalidInput)."""
    if not isinstance(oracle, Oracle):
        raise InvalidInput("extract needs an Oracle (CallableOracle, NetworkOracle or CommandOracle)")
    for name, value in (("k", k), ("lines", lines), ("fresh", fresh)):
        if value is not None:
            check_positive_integer(value, name)
    if type(hidden_layers) is not int or not 1 <= hidden_layers <= MAX_HIDDEN_LAYERS:
        raise InvalidInput(f"hidden_layers must be an integer from 1 to {MAX_HIDDEN_LAYERS}, got {hidden_layers!r}")
    if hidden_layers >= 2 and k is not None:
        raise InvalidInput("k is the width of one hidden layer; for hidden_layers >= 2 give widths=(k1, k2, ...)")
    if widths is not None:
        if hidden_layers < 2 or not isinstance(widths, (tuple, list)) or not 1 <= len(widths) <= hidden_layers:
            raise InvalidInput(f"widths must be 1 to hidden_layers positive integers, for hidden_layers >= 2; got "
                               f"{widths!r}")
        for w in widths:
            check_positive_integer(w, "each of widths")


def _extract_one(oracle: Oracle, k, seed: int, count: int, check: bool, progress, lines: int) -> Extraction:
    """One hidden layer (module docstring): the lines, the transcript certificate, the statement."""
    t0 = time.perf_counter()
    line, found, form, net, lower, optimal, phases = _lines(oracle, as_generator(seed), k, progress, seed,
                                                            check, count, lines)
    if progress:
        progress(f"extract: the transcript of {oracle.queries} queries and its certificate")
    try:
        cert, summary, K = _certificate(oracle, line, found, net, seed, check)
    except CertificateInvalid as exc:  # an answer of an earlier line, or a bug: either way nothing is claimed
        raise AssumptionViolated(f"the network found does not give every answer of the transcript ({exc}); nothing "
                                 "is claimed") from None
    statement = _statement(K, net.k, lower, optimal, k, count, oracle.queries, check)
    evidence = {"kinks": len(found), "hyperplanes": form.units, **phases,
                "queries_fresh": count, "lower_bound_form": lower, "optimal_form": optimal,
                "seconds": time.perf_counter() - t0,
                "line": {"p": [str(v) for v in line.p], "q": [str(v) for v in line.q]}}
    return Extraction(net, form, oracle.queries, K, cert, summary or "transcript (not checked: check=False)",
                      statement, evidence)
