"""Public hypothesis strategies for properties of two-layer rectified networks.

Every strategy takes keyword-only arguments that are either values or strategies, and builds
exact objects (:class:`~fractions.Fraction`, :class:`~exactrelu.exact.QMatrix`,
:class:`~exactrelu.network.Network`, :class:`~exactrelu.instances.Instance`). Rational entries
come from :func:`hypothesis.strategies.fractions`, which shrinks towards small denominators.

This module imports ``hypothesis`` (the ``test`` extra); nothing else in exactrelu imports it.
See docs/testing.md for a user's own property.

>>> from hypothesis import given, strategies as st
>>> from exactrelu.testing import networks, inputs, rationals
>>> @given(data=st.data(), net=networks(), lam=rationals(min_value="1/8", max_value=8))
... def positively_homogeneous(data, net, lam):
...     X = data.draw(inputs(n=4, d=net.d, distribution="rational"))
...     c, Y = net.activation.degree, net.evaluate_exact(X)
...     scaled = QMatrix(X.num * lam.numerator, X.den * lam.denominator)
...     assert net.evaluate_exact(scaled) == QMatrix(Y.num * lam.numerator**c, Y.den * lam.denominator**c)
>>> positively_homogeneous()
"""

from ..exact.matrix import QMatrix
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
