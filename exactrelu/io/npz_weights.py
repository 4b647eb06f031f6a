"""Weights in an ``.npz`` archive (``numpy.savez``), read by the strict reader of :mod:`exactrelu.io.npz`.

Three layouts, told apart by the members' names (never by their order):

* ``U`` (m x k), ``V`` (k x d) and optionally ``b`` (k) and ``c`` (m): the two-layer network ``U f(V x + b) + c``;
* ``W0, b0, W1, b1, ...`` (or from ``W1``): numbered layers, ``W_i`` out x in, each bias optional, the numbers
  consecutive (they are the order);
* names of a state dict (``numpy.savez(path, **{k: v.numpy() for k, v in model.state_dict().items()})``:
  ``0.weight``, ``0.bias``, ...), read by the state-dict rule of :mod:`exactrelu.io.state_dict`.

Any integer or float dtype but long doubles; every value taken exactly.

>>> import numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "w.npz")
>>> np.savez(path, W0=np.ones((3, 2)), b0=np.zeros(3), W1=np.ones((1, 3)))
>>> read_npz_weights(path).description
'read ...w.npz: W0 (3 x 2) + b0 -> W1 (1 x 3)'
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from ..errors import InvalidInput
from ..exact.codecs.float64 import exact_values
from .layers import AffineLayer, LayerStack
from .npz import WEIGHT_DTYPES, read_npz_arrays
from .state_dict import parse_layer_names, stack_of_state

__all__ = ["read_npz_weights"]

_NUMBERED = re.compile(r"([Wb])(0|[1-9][0-9]*)")  # no leading zeros: W01 and W1 would be one layer
_TWO_LAYER = ("U", "V", "b", "c")


def read_npz_weights(path: str | os.PathLike, layers: Sequence[str] | None = None) -> LayerStack:
    """The :class:`~exactrelu.io.layers.LayerStack` of an ``.npz`` weights file (module doc)."""
    arrays = read_npz_arrays(path, None, what="weights", dtypes=WEIGHT_DTYPES, keep_shape=True)
    arrays = {name[:-len(".npy")]: exact_values(a, name=f"{path}: {name[:-len('.npy')]}") for name, a in arrays.items()}
    names = set(arrays)
    asked = parse_layer_names(layers)
    if names <= {"inputs", "labels"}:
        raise InvalidInput(f"{path} is an instance (members inputs and labels), not a weights file")
    if names & {"U", "V"}:
        stack = _two_layer(path, arrays)
    elif all(_NUMBERED.fullmatch(n) for n in names):
        stack = _numbered(path, arrays)
    elif any(_NUMBERED.fullmatch(n) for n in names):
        others = sorted(n for n in names if not _NUMBERED.fullmatch(n))
        raise InvalidInput(f"{path}: numbered layers (W0, b0, W1, ...) and other members {others[:5]} in one file; "
                           "an .npz weights file holds one layout")
    else:
        return stack_of_state(arrays, str(path), asked)
    if asked is not None and asked != tuple(layer.name for layer in stack.layers):
        raise InvalidInput(f"{path}: --layers {','.join(asked)} differs from the order the names give "
                           f"({stack.description}); --layers is for files whose names do not show the order")
    return stack


def _two_layer(path, arrays: dict) -> LayerStack:
    names = sorted(arrays)
    if not {"U", "V"} <= set(names) or not set(names) <= set(_TWO_LAYER):
        raise InvalidInput(f"{path}: an .npz weights file has exactly the members U.npy and V.npy (and optionally "
                           f"b.npy, c.npy), found {[n + '.npy' for n in names][:10]}; or W0, b0, W1, b1, ...; or "
                           "the names of a state dict (0.weight, 0.bias, ...)")
    U, V = arrays["U"], arrays["V"]
    for key in ("U", "V"):
        if arrays[key].ndim != 2:
            raise InvalidInput(f"{path}: {key} has shape {arrays[key].shape}; expected a matrix")
    for key, want, of in (("b", V.shape[0], "V has k"), ("c", U.shape[0], "U has m")):
        if key in arrays and arrays[key].ndim != 1:
            raise InvalidInput(f"{path}: {key} must be a vector of {want} entries, got shape {arrays[key].shape}")
        if key in arrays and arrays[key].shape != (want,):
            raise InvalidInput(f"{path}: {key} has {arrays[key].shape[0]} entries; {of} = {want} rows")
    if U.shape[1] != V.shape[0]:
        raise InvalidInput(f"{path}: U is {U.shape[0]} x {U.shape[1]} and V is {V.shape[0]} x {V.shape[1]}; "
                           "U needs k columns where V has k rows")
    return LayerStack((AffineLayer("V", V, arrays.get("b"), "V", "b"), AffineLayer("U", U, arrays.get("c"), "U", "c")),
                      str(path))


def _numbered(path, arrays: dict) -> LayerStack:
    weights = {int(m.group(2)): name for name in arrays if (m := _NUMBERED.fullmatch(name)) and m.group(1) == "W"}
    first = min(weights, default=0)
    if not weights or first not in (0, 1) or sorted(weights) != list(range(first, first + len(weights))):
        raise InvalidInput(f"{path}: numbered weights are W0, W1, ... (or W1, W2, ...) without gaps, found "
                           f"{sorted(arrays)[:10]}")
    layers = []
    for i in range(first, first + len(weights)):
        W, bias = arrays[weights[i]], arrays.get(f"b{i}")
        if W.ndim != 2 or (bias is not None and bias.ndim != 1):
            raise InvalidInput(f"{path}: W{i} must be a matrix (out x in) and b{i} a vector, got shapes {W.shape}"
                               f"{'' if bias is None else f' and {bias.shape}'}")
        layers.append(AffineLayer(f"W{i}", W, bias, f"W{i}", f"b{i}"))
    stray = sorted(n for n in arrays if n.startswith("b") and f"W{n[1:]}" not in arrays)
    if stray:
        raise InvalidInput(f"{path}: {stray} without their weights W{stray[0][1:]}")
    return LayerStack(tuple(layers), str(path))
