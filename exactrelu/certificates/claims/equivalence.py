"""Writers of the claims ``equivalent`` and ``not-equivalent`` about two networks (both inline, no instance).

Read by the trusted :mod:`exactrelu.certificates.trusted.equivalence` (docs/certificates.md):

* ``equivalent``: ``"networks": [NET1, NET2]`` and ``"canonical"``, the canonical form of their common function
  (:meth:`exactrelu.equiv.CanonicalForm.to_json`); the checker recomputes both forms itself and compares.
* ``not-equivalent``: the networks, ``"witness"`` (d rationals) and ``"values"`` (the two outputs there, m
  rationals each, different); the checker evaluates both networks at the witness.

Each NET is :meth:`exactrelu.network.Network.to_json` (U, V, activation, and b, c when non-zero). Networks of
other depths (:func:`deep_equivalent_certificate`, :func:`deep_not_equivalent_certificate`) are written with
``"layers"`` and the claim names its ``"domain"`` (``{"kind": "R^d"}``) and ``"property"`` (``{"kind":
"equal"}``); ``equivalent`` then carries ``"tree"``, the case tree over the neuron phases of the networks' reduced
difference (docs/certificates.md).

>>> from exactrelu.network import Network
>>> a = Network.from_rows(U=[[1]], V=[[1]])
>>> cert = not_equivalent_certificate(a, a.without_output_bias(), ["1"], [["1"], ["2"]])
>>> cert["claim"], cert["witness"]
('not-equivalent', ['1'])
>>> verify_equivalence(cert)
Traceback (most recent call last):
...
exactrelu.errors.CertificateInvalid: network 2 at the witness is 1, not the stated 2
"""

from __future__ import annotations

from ...errors import CertificateInvalid, InvalidInput
from ...exact.rationals import format_rational
from ...network import Network
from .. import checker
from ..envelope import envelope, provenance

__all__ = ["equivalent_certificate", "not_equivalent_certificate", "verify_equivalence", "deep_equivalent_certificate",
           "deep_not_equivalent_certificate", "DOMAIN", "PROPERTY",
           "domain_json", "property_json"]

#: the domain and the property of the deep claims written here
DOMAIN, PROPERTY = {"kind": "R^d"}, {"kind": "equal"}


def equivalent_certificate(net1: Network, net2: Network, canonical: dict, **prov) -> dict:
    """``equivalent``: ``net1`` and ``net2`` compute the same function on all of R^d, whose canonical form is
    ``canonical`` (not verified here: see :func:`verify_equivalence`)."""
    return {**envelope("equivalent", networks=[net1.to_json(), net2.to_json()], canonical=canonical),
            "provenance": provenance(**prov)}


def not_equivalent_certificate(net1: Network, net2: Network, witness, values, **prov) -> dict:
    """``not-equivalent``: at ``witness`` (d rationals) the networks output ``values[0]`` and ``values[1]``."""
    return {**envelope("not-equivalent", networks=[net1.to_json(), net2.to_json()],
                       witness=[format_rational(x) for x in witness],
                       values=[[format_rational(x) for x in v] for v in values]),
            "provenance": provenance(**prov)}


def domain_json(box=None) -> dict:
    """The certificate's ``"domain"``: all of R^d (``box`` None) or the box ``(lower, upper)``.

    >>> domain_json(([0, 1], ["1/2", 2]))
    {'kind': 'box', 'lower': ['0', '1'], 'upper': ['1/2', '2']}
    """
    if box is None:
        return dict(DOMAIN)
    return {"kind": "box", "lower": [format_rational(v) for v in box[0]], "upper": [format_rational(v) for v in box[1]]}


def property_json(epsilon=None, top1: bool = False) -> dict:
    """The certificate's ``"property"``: equal (``epsilon`` None), max over the outputs of |f - g| <= epsilon, or
    top1 (some class is a largest output of both networks at every point).

    >>> property_json("1/20")
    {'kind': 'epsilon', 'epsilon': '1/20', 'norm': 'max'}
    >>> property_json(top1=True)
    {'kind': 'top1'}
    """
    if top1:
        return {"kind": "top1"}
    return dict(PROPERTY) if epsilon is None else {"kind": "epsilon", "epsilon": format_rational(epsilon), "norm": "max"}


def deep_equivalent_certificate(net1: Network, net2: Network, tree: list, *, lemmas: list | None = None,
                                box=None, epsilon=None, top1: bool = False, **prov) -> dict:
    """``equivalent`` on R^d (or the box; within epsilon) for networks of any depth, proved by ``tree`` and
    ``lemmas`` (not verified here).

    >>> net = Network.from_layers([([[1]], None), ([[1]], None), ([[2]], None)])
    >>> cert = deep_equivalent_certificate(net, net, [{"equal": [{}]}])
    >>> verify_equivalence(cert)
    'equivalent: the two networks (widths 1-1-1-1 and 1-1-1-1, relu) are the same function on all of R^d (reduced difference: 1 neuron; case tree of 1 leaf checked)'
    """
    cert = envelope("equivalent", networks=[net1.to_json(layered=True), net2.to_json(layered=True)],
                    domain=domain_json(box), property=property_json(epsilon, top1))
    if lemmas:
        cert["lemmas"] = lemmas
    return {**cert, "tree": tree, "provenance": provenance(**prov)}


def deep_not_equivalent_certificate(net1: Network, net2: Network, witness, values, *, box=None, epsilon=None,
                                    top1: bool = False, **prov) -> dict:
    """``not-equivalent`` on R^d (or the box; by more than epsilon) for networks of any depth: at ``witness`` they
    output ``values[0]``, ``values[1]``."""
    return {**envelope("not-equivalent", networks=[net1.to_json(layered=True), net2.to_json(layered=True)],
                       domain=domain_json(box), property=property_json(epsilon, top1), witness=[format_rational(x) for x in witness],
                       values=[[format_rational(x) for x in v] for v in values]),
            "provenance": provenance(**prov)}


def verify_equivalence(cert: dict) -> str:
    """Run the independent checker on an equivalence certificate; its summary, or CertificateInvalid."""
    try:
        return checker.check(cert, None)
    except checker.CheckFailed as exc:
        raise CertificateInvalid(str(exc)) from None
    except checker.UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None
