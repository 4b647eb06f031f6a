"""Public hypothesis strategies for properties of two-layer rectified networks.

Every strategy takes keyword-only arguments that are either values or strategies, and builds
exact objects (:class:`~fractions.Fraction`, :class:`~exactrelu.exact.QMatrix`,
:class:`~exactrelu.network.Network`, :class:`~exactrelu.instances.Instance`). Rational entries
come from :func:`hypothesis.strategies.fractions`, which shrinks towards small denominators.

This module imports ``hypothesis`` (the ``test`` extra); nothing else in exactrelu imports it.
See docs/testing.md for a user's own property.

>>> from hypothesis import given
>>> from exactrelu.testing import networks, inputs
>>> @given(net=networks(k=2, activation=Activation.relu()), X=inputs(n=4, d=3))
... def relu_is_positively_homogeneous(net, X):
...     if net.d == 3:
...         assert net.evaluate_exact(QMatrix(X.num * 2, X.den)) == QMatrix(net.evaluate_exact(X).num * 2, net.evaluate_exact(X).den)
>>> relu_is_positively_homogeneous()
"""

from ..exact.matrix import QMatrix
from ..network import Activation
from .formulas import cnf_formulas, cnf_satisfied, nae3sat_formulas, nae_satisfied
from .matrices import DEGENERACIES, column_degeneracies, matrices, subspaces
from .networks import INPUT_KINDS, activations, inputs, networks, planted_instances
from .numbers import rationals

__all__ = [
    "rationals",
    "matrices",
    "subspaces",
    "column_degeneracies",
    "DEGENERACIES",
    "activations",
    "networks",
    "inputs",
    "planted_instances",
    "INPUT_KINDS",
    "cnf_formulas",
    "nae3sat_formulas",
    "cnf_satisfied",
    "nae_satisfied",
]
