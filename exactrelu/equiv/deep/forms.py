"""Affine forms over the inputs and the reduced neurons, and the reduced difference of two networks.

A *form* is ``(coefficients, constant)``: a dict {variable: Fraction} and a Fraction, the variables ``0 .. d-1``
the inputs and ``d + u`` the output y_u of reduced neuron u (docs/equivalence.md, "Networks of any depth").
The reduced difference is computed by the checker's own :class:`~exactrelu.certificates.trusted.deep.Reduction`
(library -> trusted, the safe direction): the neuron numbers a case tree names are then the checker's by
construction, and the reduction is audited once, in the trusted base.

>>> from exactrelu.network import Network
>>> a = Network.from_layers([([[1], [-1]], None), ([[1, 1]], None), ([[1]], None)])
>>> b = Network.from_layers([([[2], [-3]], None), ([["1/2", "1/3"]], None), ([[1]], None)])
>>> diff = reduced_difference(a, b)
>>> len(diff.forms), diff.outputs          # relu(x) and relu(-x) = relu(x) - x: one neuron per layer
(2, [({}, Fraction(0, 1))])
"""

from __future__ import annotations

from fractions import Fraction

from ...certificates.trusted import deep as trusted_deep
from ...certificates.trusted.common import UnreadableInput
from ...errors import InvalidInput
from ...network import Network

__all__ = ["Form", "reduced_difference", "add_to", "scaled", "is_zero", "network_layers"]

Form = tuple[dict, Fraction]


def network_layers(net: Network) -> tuple[int, list]:
    """The network as the checker reads it: (degree, [(W rows of Fractions, b), ...])."""
    return net.activation.degree, [(layer.W.to_fractions(), layer.b_fractions()) for layer in net.layers]


def reduced_difference(a: Network, b: Network, deadline=None) -> trusted_deep.Reduction:
    """The reduced difference of ``a - b`` (``.forms``: the neurons' pre-activations, ``.outputs``: m forms); a
    :class:`~exactrelu.deadline.Deadline` is checked before each layer (TimeLimitExceeded, saying how far)."""
    def tick(red) -> None:
        deadline.check(lambda: f"the reduction of the two networks ({len(red.forms):,} neurons so far)")

    try:
        return trusted_deep.reduced_difference(network_layers(a), network_layers(b),
                                               None if deadline is None else tick)
    except UnreadableInput as exc:  # over the limit 'terms': the same refusal as the checker's
        raise InvalidInput(str(exc).replace("checker's limit", "limit")) from None


def add_to(acc: dict, form: dict, scale: Fraction) -> None:
    """``acc += scale * form`` (coefficients only), dropping zeros."""
    for v, a in form.items():
        x = acc.get(v, 0) + scale * a
        if x:
            acc[v] = x
        else:
            acc.pop(v, None)


def scaled(form: Form, s: Fraction) -> Form:
    """``s * form``."""
    return {v: s * a for v, a in form[0].items() if a}, s * form[1]


def is_zero(form: Form) -> bool:
    return not form[0] and form[1] == 0
