"""Exact and float evaluation of a network of affine layers with the activation between them.

The papers' orientation inside: a layer maps the columns of ``H`` (one per sample) to ``W H + b 1^T``.
Every step is one FLINT integer product over one common denominator, so the exact pass has no Python loop
over entries. :func:`check_exact_size` refuses, before any product, an evaluation whose integers would be
over the limit ``intermediate`` (docs/limits.md).

>>> from exactrelu.network.layers import Layer
>>> from exactrelu.network.activation import RELU
>>> layers = (Layer.coerce([[1, -1], [1, 1]], [0, -1]), Layer.coerce([[1, 1]], None, index=1))
>>> forward_exact(layers, RELU, QMatrix.from_rows([[2, 1], [0, 3]])).to_fractions()
[[Fraction(3, 1)], [Fraction(2, 1)]]
"""

from __future__ import annotations

import flint
import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import as_float_array, int_times_dyadic
from ..exact.matrix import QMatrix
from ..limits import limit, over
from .activation import Activation
from .layers import Layer

__all__ = ["first_pre_activations", "next_pre_activations", "forward_exact", "forward_float", "check_exact_size"]


def _shifted(P: flint.fmpz_mat, den: int, b: QMatrix | None) -> QMatrix:
    """``P / den + b 1^T`` (P: out x n) as one QMatrix; b None or all zero adds nothing."""
    if b is None or not any(x != 0 for x in b.num.entries()):
        return QMatrix(P, den)
    bd = int(b.den)
    shift = flint.fmpz_mat(P.nrows(), 1, [int(x) * den for x in b.num.entries()])  # b_i * bd * den
    ones = flint.fmpz_mat(1, P.ncols(), [1] * P.ncols())
    return QMatrix(P * bd + shift * ones, den * bd)  # FLINT products: no Python loop over the entries


def first_pre_activations(W: QMatrix, b: QMatrix | None, inputs: QMatrix) -> QMatrix:
    """``W X + b 1^T`` (out x n) exactly, X = inputs.T; float64 inputs are multiplied from their floats."""
    if inputs.shape[1] != W.shape[1]:
        raise InvalidInput(f"inputs have {inputs.shape[1]} columns, the network expects d = {W.shape[1]}")
    src = inputs.float_source
    P = int_times_dyadic(W.num.tolist(), *src) if src is not None else None
    if P is None:
        P = W.num * inputs.num.transpose()
    return _shifted(P, int(W.den) * int(inputs.den), b)


def next_pre_activations(W: QMatrix, b: QMatrix | None, H: QMatrix) -> QMatrix:
    """``W H + b 1^T`` for the activations H (in x n) of the layer below."""
    return _shifted(W.num * H.num, int(W.den) * int(H.den), b)


def forward_exact(layers: tuple[Layer, ...], activation: Activation, inputs: QMatrix) -> QMatrix:
    """The network's outputs (n x m) at the rows of ``inputs``, exactly."""
    Z = first_pre_activations(layers[0].W, layers[0].b, inputs)
    c = activation.degree
    for layer in layers[1:]:
        H = QMatrix(activation.apply_fmpz_mat(Z.num), int(Z.den) ** c)
        Z = next_pre_activations(layer.W, layer.b, H)
    return Z.transpose()


def forward_float(layers: tuple[Layer, ...], activation: Activation, inputs) -> np.ndarray:
    """The outputs in floating point (for display and proposals, never for claims)."""
    H = as_float_array(inputs, name="inputs")
    if H.ndim != 2 or H.shape[1] != layers[0].W.shape[1]:
        raise InvalidInput(f"inputs must be n x {layers[0].W.shape[1]}, got shape {H.shape}")
    for t, layer in enumerate(layers):
        if t:
            H = activation.apply_float(H)
        H = H @ layer.W.to_float().T
        if layer.has_bias:
            H = H + layer.b.to_float()[:, 0]
    return H


def _bits(M: QMatrix | None) -> int:
    return 0 if M is None else max([0, *(x.bit_length() for x in M.num.entries())])


def check_exact_size(layers: tuple[Layer, ...], activation: Activation, inputs: QMatrix) -> None:
    """Refuse, before computing anything, an exact evaluation whose integers would have more decimal digits
    than the limit ``intermediate``.

    Bounds from the entries' sizes: the first layer's pre-activations as for two layers (numerator and
    denominator), then for each further layer the activation's power c of the layer below, times W, plus b.
    The bound stops at the last hidden layer: the output layer adds the sizes of its W and b, which the
    reader bounded.
    """
    X, c = QMatrix.coerce(inputs, name="inputs"), activation.degree
    W, b = layers[0].W, layers[0].b if layers[0].has_bias else None
    den = int(W.den).bit_length() + int(X.den).bit_length() + (int(b.den).bit_length() if b is not None else 0)
    num = _bits(W) + _bits(X) + (W.shape[1] + 1).bit_length()
    num += _bits(b) + int(b.den).bit_length() if b is not None else 0
    cap = limit("intermediate") * 3322 // 1000 + 1
    for layer in layers[1:-1]:  # Z' = (Nw N^c Db + Nb Dw D^c) / (Dw D^c Db) for Z = N / D
        if c * max(num, den) > cap:
            break
        lb = layer.b if layer.has_bias else None
        wden, bden = int(layer.W.den).bit_length(), int(lb.den).bit_length() if lb is not None else 0
        num = max(_bits(layer.W) + c * num + bden, _bits(lb) + wden + c * den) + (layer.W.shape[1] + 1).bit_length()
        den = wden + c * den + bden
    top = max(num, den)
    if c * top > cap:
        digits = (top * 30103 + 99999) // 100000
        raise over("intermediate", f"the exact evaluation (pre-activations of up to about {digits:,} digits, to the power {c})")
