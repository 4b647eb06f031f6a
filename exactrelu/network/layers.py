"""One affine layer ``x -> W x + b`` of a network, exact, and the coercions that build it.

A network is a list of such layers with the activation between them and none after the last
(:class:`exactrelu.network.Network`); ``W`` has one row per output of the layer (PyTorch's ``nn.Linear``
orientation), ``b`` one entry per row, None meaning zero.

>>> layer = Layer.coerce([[1, "1/2"], [0, -1]], [3, 0], index=0)
>>> layer.shape, layer.b_fractions()
((2, 2), [Fraction(3, 1), Fraction(0, 1)])
>>> Layer.coerce([[1, 2]], [1, 2], index=1)
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: layer 1: b must have 1 entries (one per row of W), got shape (2, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import as_float_array
from ..exact.matrix import QMatrix

__all__ = ["Layer", "bias_column"]


def bias_column(b, size: int, name: str, what: str) -> QMatrix | None:
    """``b`` (None, ``size`` rationals, a vector array or a ``size`` x 1 QMatrix) as a column QMatrix, or None.

    ``what`` names the size in messages (``"k"``, ``"m"``, ``"one per row of W"``).
    """
    if b is None:
        return None
    if isinstance(b, QMatrix):
        col = b
    elif isinstance(b, np.ndarray) or (hasattr(b, "detach") and hasattr(b, "shape")):
        arr = np.asarray(b.detach().cpu().numpy() if hasattr(b, "detach") else b)
        col = QMatrix.from_numpy(as_float_array(arr.reshape(-1, 1), name=name), name=name) if arr.size else None
    elif not isinstance(b, (list, tuple)):
        raise InvalidInput(f"{name} must be a list of {what} rationals, got {type(b).__name__}")
    else:
        col = QMatrix.coerce([[x] for x in b], name=name) if len(b) else None
    if col is None or col.shape != (size, 1):
        raise InvalidInput(f"{name} must have {size} entries ({what}), got shape {None if col is None else col.shape}")
    return col


@dataclass(frozen=True)
class Layer:
    """The affine map ``x -> W x + b``: ``W`` (out x in) and ``b`` (out x 1, or None for zero), exact."""

    W: QMatrix
    b: QMatrix | None = None

    def __post_init__(self):
        if not isinstance(self.W, QMatrix):
            raise InvalidInput("a layer's W must be a QMatrix; use Layer.coerce or Network.from_layers")
        if self.b is not None and (not isinstance(self.b, QMatrix) or self.b.shape != (self.W.shape[0], 1)):
            raise InvalidInput(f"a layer's b must be a {self.W.shape[0]} x 1 QMatrix or None")

    @classmethod
    def coerce(cls, W, b=None, *, index: int = 0) -> "Layer":
        """A layer from W (rows of rationals, an array, a tensor or a QMatrix) and b (None, a list, an array)."""
        where = f"layer {index}"
        if isinstance(W, QMatrix):
            Wq = W
        else:
            try:
                Wq = QMatrix.coerce(W, name=f"{where}: W")
            except InvalidInput as exc:
                raise InvalidInput(str(exc) if str(exc).startswith(where) else f"{where}: {exc}") from None
        if Wq.shape[0] < 1 or Wq.shape[1] < 1:
            raise InvalidInput(f"{where}: W must have at least one row and one column, got shape {Wq.shape}")
        try:
            bq = bias_column(b, Wq.shape[0], "b", "one per row of W")
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc}") from None
        return cls(Wq, bq)

    @property
    def shape(self) -> tuple[int, int]:
        """(outputs, inputs) of the layer."""
        return self.W.shape

    @property
    def has_bias(self) -> bool:
        """True when some entry of b is non-zero."""
        return self.b is not None and any(x != 0 for x in self.b.num.entries())

    def b_fractions(self) -> list[Fraction]:
        """b as Fractions (zeros when None)."""
        return [Fraction(0)] * self.W.shape[0] if self.b is None else [r[0] for r in self.b.to_fractions()]

    def to_json(self) -> dict:
        """``{"W": rows, "b": entries}`` as rational strings (``"b"`` only when non-zero)."""
        out = {"W": self.W.to_strings()}
        if self.has_bias:
            out["b"] = [r[0] for r in self.b.to_strings()]
        return out
