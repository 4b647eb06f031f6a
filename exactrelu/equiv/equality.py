"""The front door of ``exactrelu equiv``: are two networks the same function on all of R^d? One record either way.

:func:`functionally_equal` compares the canonical forms (:mod:`exactrelu.equiv.canonical`). Equal forms: the
record carries the form and an ``equivalent`` certificate. Different forms: an exact witness x with
f1(x) != f2(x) (:mod:`exactrelu.equiv.witness`), both values, and a ``not-equivalent`` certificate. Either
certificate is checked by the independent checker before the record is returned (``check=False`` skips it,
for timing the decision alone; the summary then says so).

Networks of other depths (ReLU only) go to :func:`exactrelu.equiv.deep.deep_equivalence`: the reduced
difference, a float search for a witness checked exactly, then the exact case-split search, whose tree is the
``equivalent`` certificate; with a budget (``time_limit``, ``max_nodes``) the record may say ``unknown``.

This is equality of *functions*. :meth:`exactrelu.network.Network.equivalent` answers a narrower question,
equality of *parameters* up to permutation and positive rescaling of units: ``relu(z) - relu(-z)`` and
``relu(z) - relu(-z) + relu(2z) - 2 relu(z)`` are the same function but not the same parameters.

>>> from exactrelu.network import Network
>>> a = Network.from_rows(U=[[1, -1]], V=[[1, 2], [-1, -2]], b=[1, -1])          # relu(z) - relu(-z) = z
>>> b = Network.from_rows(U=[[1, 1]], V=[[1, 0], [0, 2]], c=[1])                 # ... for x, y >= 0 only
>>> functionally_equal(a, a).status
'equivalent'
>>> res = functionally_equal(a, b)
>>> res.status, len(res.witness), res.values[0] != res.values[1]
('not-equivalent', 2, True)
>>> res.summary
'not-equivalent: the two networks (k = 2 and 2 units, d = 2, m = 1, relu) differ at the witness (both evaluated exactly)'
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from ..certificates.claims.equivalence import (deep_equivalent_certificate, deep_not_equivalent_certificate,
                                               equivalent_certificate, not_equivalent_certificate, verify_equivalence)
from ..errors import AssumptionViolated, InvalidInput
from ..network import Network
from .canonical import CanonicalForm, canonical_form
from .witness import candidate_points, difference, evaluate_at

__all__ = ["Equivalence", "functionally_equal", "STATUSES"]

STATUSES = ("equivalent", "not-equivalent", "unknown")


@dataclass
class Equivalence:
    """The answer to "do these two networks compute the same function on R^d?", either way.

    Attributes
    ----------
    status : ``"equivalent"``, ``"not-equivalent"`` or ``"unknown"`` (networks deeper than two layers, when the
        budget ran out: no certificate, ``evidence`` says how far the search got).
    canonical : the canonical form of the common function (``equivalent``), else None.
    witness : d rationals where the networks differ (``not-equivalent``), else None.
    values : the two networks' outputs at the witness (m rationals each), else None.
    certificate : the ``equivalent`` or ``not-equivalent`` certificate (both networks inline); {} when unknown.
    summary : the independent checker's verdict on ``certificate`` (or, with ``check=False``, what is claimed).
    evidence : how the answer was found: which part of the canonical forms differs, the number of
        hyperplanes on each side, seconds spent in each step.

    >>> Equivalence("same", None, None, None, {}, "")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: an Equivalence's status is 'equivalent', 'not-equivalent' or 'unknown', got 'same'
    """

    status: str
    canonical: CanonicalForm | None
    witness: list[Fraction] | None
    values: tuple[list[Fraction], list[Fraction]] | None
    certificate: dict
    summary: str
    evidence: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise InvalidInput("an Equivalence's status is 'equivalent', 'not-equivalent' or 'unknown', "
                               f"got {self.status!r}")

    @property
    def equal(self) -> bool:
        """True when the networks are the same function."""
        return self.status == "equivalent"


def _comparable(a: Network, b: Network) -> None:
    if not isinstance(a, Network) or not isinstance(b, Network):
        raise InvalidInput("functionally_equal compares two Network objects (exactrelu.io.weights.read_weights reads files)")
    if a.activation != b.activation:
        raise InvalidInput(f"the networks have different activations ({a.activation} and {b.activation}); "
                           "equivalence is decided within one activation")
    if a.d != b.d or a.m != b.m:
        raise InvalidInput(f"the networks map R^{a.d} -> R^{a.m} and R^{b.d} -> R^{b.m}: not comparable")


def _what_differs(hyper, powers, linear, offset) -> str:
    if hyper:
        return "hyperplanes"
    if any(offset) or any(any(r) for r in linear):
        return "affine part" if linear else "offset"
    return "power terms"


def _witness(a: Network, b: Network, fa: CanonicalForm, fb: CanonicalForm, seed: int):
    """(x, value of a, value of b) at the first candidate point where they differ, or None."""
    points = candidate_points(fa, fb, seed=seed)
    va, vb = evaluate_at(a, points), evaluate_at(b, points)
    for x, ya, yb in zip(points, va, vb):
        if ya != yb:
            return x, ya, yb
    return None


def _undecided(a: Network, hyper_equal: bool, powers: dict) -> AssumptionViolated:
    c = a.activation.degree
    return AssumptionViolated(
        f"undecided: for t^{c} the hyperplane parts agree and the networks agree at every point tried, but their "
        f"polynomial parts are grouped differently ({len(powers)} terms (q . (x, 1))^{c} differ); proving such a "
        "sum of powers zero needs its monomial expansion, which is not implemented (docs/equivalence.md)",
        evidence={"hyperplanes_equal": hyper_equal, "power_terms_differing": len(powers)},
        suggestion="compare the networks on data (exactrelu certify) or ask for the ReLU")


def _deep(net1: Network, net2: Network, check: bool, seed: int, budget: dict, where: dict, prov) -> Equivalence:
    from .deep import deep_equivalence, read_box, read_epsilon

    box, eps = read_box(where["lower"], where["upper"], net1.d), read_epsilon(where["epsilon"])
    top1 = bool(where["top1"])
    ans = deep_equivalence(net1, net2, seed=seed, lower=box and box[0], upper=box and box[1], epsilon=eps, top1=top1,
                           **budget)
    evidence = {"depths": [net1.depth, net2.depth], **ans.stats}
    if ans.status == "unknown":
        summary = (f"unknown: {ans.reason} after {ans.stats.get('nodes', 0):,} case-tree nodes "
                   f"({ans.stats.get('closed_share', 0):.1%} of the tree closed); nothing is claimed")
        return Equivalence("unknown", None, None, None, {}, summary, {**evidence, "reason": ans.reason})
    if ans.status == "equivalent":
        cert = deep_equivalent_certificate(net1, net2, ans.tree, lemmas=ans.lemmas, box=box, epsilon=eps, top1=top1,
                                           **prov)
    else:
        cert = deep_not_equivalent_certificate(net1, net2, ans.witness, ans.values, box=box, epsilon=eps, top1=top1,
                                               **prov)
    summary = verify_equivalence(cert) if check else f"{ans.status} (not checked: check=False)"
    return Equivalence(ans.status, None, ans.witness, ans.values, cert, summary, evidence)


def functionally_equal(net1: Network, net2: Network, *, check: bool = True, seed: int = 0, time_limit=None,
                       max_nodes: int | None = None, progress=None, lower=None, upper=None, epsilon=None,
                       top1: bool = False, workers: int | None = None, **prov) -> Equivalence:
    """Decide exactly whether ``net1`` and ``net2`` are the same function on all of R^d; certify the answer.

    Parameters
    ----------
    net1, net2 : networks with the same activation, d and m (any numbers of units, biases, output biases).
    check : run the independent checker on the certificate before returning (default True).
    seed : seed of the random points the witness search uses (the answer does not depend on it).
    time_limit, max_nodes, progress : the budget (seconds, case-tree nodes) and a progress line of the case-split
        search for networks deeper than two layers; when it runs out the status is ``"unknown"``.
    lower, upper : a box (d rationals each) instead of all of R^d (ReLU networks of any depth, by the case split).
    epsilon : ask whether max over the outputs of |net1(x) - net2(x)| <= epsilon instead of equality (ReLU).
    top1 : ask instead whether at every x some class is a largest output of both networks (ReLU; ties: their sets
        of largest outputs meet; without ties, the same argmax).
    workers : processes for the independent subtrees of a large case split (deeper networks or a box; None: every
        idle core); the certificate is the one of one process.
    **prov : extra provenance recorded in the certificate.

    Returns
    -------
    Equivalence
        ``equivalent`` with the canonical form (two layers) or the case tree in the certificate (deeper), or
        ``not-equivalent`` with an exact witness and both values, or ``unknown`` (deeper, budget spent).

    Raises
    ------
    InvalidInput
        Different activations or shapes; a network deeper than two layers with a rectified power.
    AssumptionViolated
        Rectified powers t^c (c >= 2) whose hyperplane parts agree but whose power terms are grouped
        differently and agree at every point tried: not decided (docs/equivalence.md). Never for the ReLU.

    Examples
    --------
    >>> from exactrelu.network import Network
    >>> a = Network.from_rows(U=[[2]], V=[[3, -6]], b=[3], c=[1])
    >>> b = Network.from_rows(U=[[6, 5]], V=[[1, -2], [0, 0]], b=[1, "1/5"])
    >>> functionally_equal(a, b).equal
    True
    """
    _comparable(net1, net2)
    where = {"lower": lower, "upper": upper, "epsilon": epsilon, "top1": top1 or None}
    if net1.depth != 2 or net2.depth != 2 or any(v is not None for v in where.values()):
        budget = {"time_limit": time_limit, "max_nodes": max_nodes, "progress": progress, "workers": workers}
        return _deep(net1, net2, check, seed, budget, where, prov)
    t0 = time.perf_counter()
    fa, fb = canonical_form(net1), canonical_form(net2)
    evidence = {"hyperplanes": [fa.units, fb.units], "seconds_canonical": time.perf_counter() - t0}
    if fa == fb:
        cert = equivalent_certificate(net1, net2, fa.to_json(), **prov)
        status, canonical, witness, values = "equivalent", fa, None, None
    else:
        hyper, powers, linear, offset = difference(fa, fb)
        evidence["differs_in"] = _what_differs(hyper, powers, linear, offset)
        t1 = time.perf_counter()
        found = _witness(net1, net2, fa, fb, seed)
        evidence["seconds_witness"] = time.perf_counter() - t1
        if found is None:
            raise _undecided(net1, not hyper, powers)
        witness, ya, yb = found
        values = (ya, yb)
        cert = not_equivalent_certificate(net1, net2, witness, values, **prov)
        status, canonical = "not-equivalent", None
    return Equivalence(status, canonical, witness, values, cert, _summary(cert, status, check, evidence), evidence)


def _summary(cert: dict, status: str, check: bool, evidence: dict) -> str:
    """The independent checker's verdict line (its time in ``evidence``), or what was asked instead of a check."""
    if not check:
        return f"{status} (not checked: check=False)"
    t = time.perf_counter()
    summary = verify_equivalence(cert)
    evidence["seconds_check"] = time.perf_counter() - t
    return summary
