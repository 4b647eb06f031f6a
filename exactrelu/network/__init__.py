"""The model: a network of affine layers with an activation between them (any depth; two layers are depth 2).

:class:`Network` (``model.py``) holds the layers (:class:`Layer`, ``layers.py``) and the activation
(:class:`Activation`, ``activation.py``); ``evaluate.py`` evaluates it exactly and in floating point, and
``parameters.py`` is the canonical form of a two-layer network's parameters.

>>> net = Network.from_layers([([[1, -1]], None), ([[2]], [1])])
>>> net.depth, net.evaluate_exact([[3, 1]]).to_fractions()
(2, [[Fraction(5, 1)]])
"""

from .activation import RELU, Activation
from .layers import Layer
from .model import Network

__all__ = ["Activation", "RELU", "Network", "Layer"]
