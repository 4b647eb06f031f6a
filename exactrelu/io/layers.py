"""What a weights file holds, at any depth: the ordered affine layers, the activation, and what was read.

Every binary reader (``.safetensors``, PyTorch state dicts, ``.npz``, ONNX) returns one :class:`LayerStack`:
the affine layers ``(name, W, b)`` in the order the network applies them, ``W`` the ``out x in`` matrix of
``nn.Linear.weight`` and ``b`` its bias (None when the layer has none), the activation between layers when the
file names one (ONNX's Relu; None otherwise) and a one-line description of what was read, which every verdict
about the file prints. The network computes ``x -> W_L f(... f(W_1 x + b_1) ...) + b_L``: the activation between
layers, none after the last. Values are exactly the file's: ``W`` and ``b`` are float64 (every float16,
bfloat16, float32 and float64 widens exactly), int64, or object arrays of Python ints or Fractions (integers
beyond int64, or a Gemm's ``alpha`` times its weights); nothing is rounded.

Two-layer consumers take :meth:`LayerStack.two_layer` (the network ``U f(V x + b) + c``: ``V, b = W_1, b_1`` and
``U, c = W_2, b_2``), which refuses any other depth with a message naming it and the widths; deeper records are
for the consumers of networks of any depth.

>>> import numpy as np
>>> stack = LayerStack((AffineLayer("0", np.ones((3, 2)), np.zeros(3), "0.weight", "0.bias"),
...                     AffineLayer("2", np.ones((1, 3)), None, "2.weight")), "m.pt")
>>> stack.depth, stack.widths
(2, (2, 3, 1))
>>> stack.description
'read m.pt: 0.weight (3 x 2) + 0.bias -> 2.weight (1 x 3)'
>>> U, V, b, c = stack.two_layer()
>>> U.shape, V.shape, c is None
((1, 3), (3, 2), True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvalidInput
from ..network import Activation

__all__ = ["AffineLayer", "LayerStack"]


@dataclass(frozen=True)
class AffineLayer:
    """One affine layer ``x -> W x + b`` of a weights file.

    ``name`` is the layer's name in the file (``"0"``, ``"fc1"``, ``"W0"``, an ONNX weight's name); ``W`` its
    ``out x in`` matrix and ``b`` its bias vector or None, with exactly the file's values; ``label`` says where
    the weight came from, for messages (``"0.weight"``, ``"0.weight_orig * 0.weight_mask"``; default: ``name``).
    """

    name: str
    W: np.ndarray
    b: np.ndarray | None = None
    label: str = ""
    bias_label: str = ""

    @property
    def shape(self) -> tuple[int, int]:
        """(out, in)."""
        return self.W.shape

    def describe(self) -> str:
        """``0.weight (3 x 2) + 0.bias``."""
        text = f"{self.label or self.name} ({self.W.shape[0]} x {self.W.shape[1]})"
        return text + (f" + {self.bias_label or 'bias'}" if self.b is not None else "")


@dataclass(frozen=True)
class LayerStack:
    """The affine layers of a weights file in the order the network applies them, checked to chain.

    ``source`` names what was read (a path, or ``"the state dict"``); ``activation`` is the activation the file
    names (None: the file names none, the caller's default applies); ``note`` is added to the description (how
    the order was found, what was ignored as a no-op).
    """

    layers: tuple[AffineLayer, ...]
    source: str
    activation: Activation | None = None
    note: str = ""

    def __post_init__(self):
        if not self.layers:
            raise InvalidInput(f"{self.source}: no affine layer found")
        for i, layer in enumerate(self.layers):
            if layer.W.ndim != 2 or 0 in layer.W.shape:
                raise InvalidInput(f"{self.source}: {layer.label or layer.name} has shape {layer.W.shape}; a "
                                   "layer's weight is a non-empty out x in matrix")
            if layer.b is not None and layer.b.shape != (layer.W.shape[0],):
                raise InvalidInput(f"{self.source}: {layer.bias_label or 'the bias of ' + (layer.label or layer.name)} "
                                   f"has shape {layer.b.shape}; {layer.label or layer.name} has {layer.W.shape[0]} "
                                   "rows (a layer's bias has one entry per row of its weight)")
            if i and layer.W.shape[1] != self.layers[i - 1].W.shape[0]:
                before = self.layers[i - 1]
                raise InvalidInput(f"{self.source}: {before.describe()} -> {layer.describe()} do not chain: the "
                                   f"second takes {layer.W.shape[1]} inputs, the first gives {before.W.shape[0]}")

    @property
    def depth(self) -> int:
        """The number of affine layers (2 for ``U f(V x + b) + c``)."""
        return len(self.layers)

    @property
    def widths(self) -> tuple[int, ...]:
        """(d, hidden widths..., m)."""
        return (self.layers[0].W.shape[1], *(layer.W.shape[0] for layer in self.layers))

    @property
    def description(self) -> str:
        """``read model.safetensors: 0.weight (20 x 10) + 0.bias -> 2.weight (1 x 20) + 2.bias``."""
        text = f"read {self.source}: " + " -> ".join(layer.describe() for layer in self.layers)
        return text + (f" ({self.note})" if self.note else "")

    def two_layer(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """(U, V, b, c) of a depth-2 stack; InvalidInput naming the depth and widths for any other depth."""
        if self.depth != 2:
            widths = " -> ".join(map(str, self.widths))
            raise InvalidInput(f"{self.source} holds a network of depth {self.depth} (widths {widths}; "
                               f"{self.description}); this command reads two-layer networks U f(V x + b) + c")
        (first, second) = self.layers
        return second.W, first.W, first.b, second.b
