"""Weights from elsewhere, with exactly their values: ``.npz`` arrays, ``.safetensors`` files, PyTorch state
dicts and modules.

Accepted files (:func:`load_float_weights`; :func:`exactrelu.io.weights.read_weights` is the
front door, which also reads exact JSON weights):

* ``.npz`` with arrays ``U`` (m x k), ``V`` (k x d) and optionally ``b`` (k) and ``c`` (m), of any integer
  or float dtype, read by the strict reader of :mod:`exactrelu.io.npz` (no pickle);
* ``.safetensors``, read by :mod:`exactrelu.io.safetensors_file` (NumPy only: no torch, no pickle, nothing
  in the file is executed; bfloat16 too): the tensors of ``Sequential(Linear(d, k), ReLU(), Linear(k, m))``
  as written by ``safetensors.torch.save_file(model.state_dict(), path)``; layers are ordered by their names
  (``0.weight`` < ``2.weight``, ``fc1`` < ``fc2``, numbers compared as numbers), since the file keeps no order;
* a PyTorch state dict (``torch.save(model.state_dict(), path)``, extra ``torch``) of the same
  model, read with ``torch.load(..., weights_only=True)`` (no code runs from the file); a whole
  pickled ``nn.Module`` is refused (it needs unsafe unpickling). In Python, the module itself or its state
  dict is accepted directly (:func:`state_dict_arrays`).

Either way: exactly two 2-D weight matrices, the first k x d (V) and the second m x k (U); the first
layer's bias is the hidden bias b and the second's the output bias c (``nn.Linear``'s default). Every
value is taken exactly: floats as float64 (float16, bfloat16 and float32 widen exactly), integers as
integers (an int64 2**53 + 1 stays 2**53 + 1; it is never passed through float64).

>>> import numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "w.npz")
>>> np.savez(path, U=np.ones((2, 3)), V=np.zeros((3, 4)))
>>> U, V, b, c = load_float_weights(path)
>>> U.shape, V.shape, b, c
((2, 3), (3, 4), None, None)
"""

from __future__ import annotations

import os
from pathlib import Path

from collections.abc import Mapping

import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import exact_values

__all__ = ["state_dict_weights", "state_dict_arrays", "load_float_weights", "safetensors_state"]


def state_dict_arrays(state) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(U, V, b, c) with exactly the values of a state dict of Linear(d, k) -> f -> Linear(k, m), or of the
    ``nn.Module`` itself (its ``state_dict()``).

    ``b`` is the first layer's bias and ``c`` the second's, PyTorch's default output bias (None when absent).
    Tensors may be torch tensors (any dtype, any device) or arrays, in the dict's order; floats come back as
    float64 (float16, bfloat16, float32 widen exactly), integers as integers (never rounded through float64).

    >>> import numpy as np
    >>> state = {"0.weight": np.ones((3, 4)), "0.bias": np.arange(3.0),
    ...          "2.weight": np.ones((2, 3)), "2.bias": np.ones(2)}
    >>> U, V, b, c = state_dict_arrays(state)
    >>> U.shape, V.shape, b.tolist(), c.tolist()
    ((2, 3), (3, 4), [0.0, 1.0, 2.0], [1.0, 1.0])
    """
    state = _module_state(state)
    if not isinstance(state, Mapping):
        raise InvalidInput(f"expected a state dict (a mapping of names to tensors) or an nn.Module, got "
                           f"{type(state).__name__}")
    mats, biases = [], []
    for name, t in state.items():
        a = exact_values(t, name=str(name))
        if a.ndim == 1:
            biases.append((name, len(mats), a))
            continue
        if a.ndim != 2:
            raise InvalidInput(f"state dict entry {name!r} has shape {a.shape}; expected 2-D weight matrices")
        mats.append((name, a))
    if len(mats) != 2:
        raise InvalidInput(f"expected exactly two weight matrices (first layer k x d, second m x k), found "
                           f"{[n for n, _ in mats]}")
    (n1, V), (n2, U) = mats
    if U.shape[1] != V.shape[0]:
        raise InvalidInput(f"{n1} is {V.shape[0]} x {V.shape[1]} but {n2} is {U.shape[0]} x {U.shape[1]}: "
                           "the second layer needs k columns where k is the first layer's rows")
    b = c = None
    for name, after, a in biases:
        if after == 1 and a.shape == (V.shape[0],) and b is None:
            b = a  # the first layer's bias: labels = f(inputs @ V.T + b) @ U.T + c
        elif after == 2 and a.shape == (U.shape[0],) and c is None:
            c = a  # the second layer's bias, nn.Linear's default: the output bias c
        else:
            raise InvalidInput(f"state dict entry {name!r} of shape {a.shape} is not a bias of either layer (the "
                               f"first layer's has k = {V.shape[0]} entries, the second's m = {U.shape[0]})")
    return U, V, b, c


def _module_state(obj):
    """An ``nn.Module``'s state dict (refusing a Sequential whose middle layer is not ReLU); anything else as is."""
    if not callable(getattr(obj, "state_dict", None)) or isinstance(obj, Mapping):
        return obj
    children = list(obj.children()) if callable(getattr(obj, "children", None)) else []
    if type(obj).__name__ == "Sequential" and len(children) == 3 and type(children[1]).__name__ != "ReLU":
        raise InvalidInput(f"the module's middle layer is {type(children[1]).__name__}, not ReLU: only "
                           "Linear -> ReLU -> Linear is read from a module (pass a state dict and activation= for t^c)")
    return obj.state_dict()


def state_dict_weights(state) -> tuple[np.ndarray, np.ndarray]:
    """(U, V) from a state dict of Linear(d,k,bias=False) -> f -> Linear(k,m,bias=False).

    Tensors may be torch tensors or arrays; entries are taken in the dict's order. Biases must be
    zero here (use :func:`state_dict_arrays` for networks with biases).

    >>> import numpy as np
    >>> U, V = state_dict_weights({"0.weight": np.ones((3, 4)), "2.weight": np.ones((2, 3))})
    >>> U.shape, V.shape
    ((2, 3), (3, 4))
    """
    U, V, b, c = state_dict_arrays(state)
    if any(x is not None and np.any(x != 0) for x in (b, c)):
        raise InvalidInput("the state dict has a non-zero bias; read it with exactrelu.io.weights.read_weights "
                           "(or certify/recover with --bias) to keep it")
    return U, V


def _torch_state(path: Path) -> dict:
    try:
        import torch
    except ImportError:
        raise InvalidInput(f"{path}: reading PyTorch files needs torch: pip install 'exactrelu[torch]'") from None
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises UnpicklingError, RuntimeError, ... for unsafe or broken files
        raise InvalidInput(f"{path}: not a PyTorch state dict readable with weights_only=True "
                           f"(save model.state_dict(), not the model): {str(exc).splitlines()[0]}") from None
    if isinstance(obj, dict) and "state_dict" in obj and isinstance(obj["state_dict"], dict):
        obj = obj["state_dict"]
    return obj


def _natural_key(text: str) -> list:
    """Sort key comparing runs of digits as numbers: "2.weight" < "10.weight"."""
    import re

    return [int(t) if t.isdecimal() else t for t in re.split(r"(\d+)", text)]  # '²' is a digit, not decimal


def _layer_order(name: str) -> tuple:
    layer, _, kind = name.rpartition(".")
    return (_natural_key(layer), 0 if kind == "weight" else 1, name)


def safetensors_state(path: Path) -> dict:
    """The tensors of a ``.safetensors`` file with exactly their values, ordered layer by layer (module doc)."""
    from .safetensors_file import read_safetensors

    tensors = read_safetensors(path)
    return {name: tensors[name] for name in sorted(tensors, key=_layer_order)}


def load_float_weights(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(U, V, b, c) with exactly the values of an ``.npz`` (arrays ``U``, ``V``, optional ``b``, ``c``), a
    ``.safetensors`` file or a PyTorch state-dict file (any other suffix); ``b``, ``c`` None when absent.
    Floats come back as float64, integers as integers (int64, or Python ints beyond it)."""
    path = Path(path)
    if not path.exists():
        raise InvalidInput(f"no such weights file: {path}")
    if path.suffix == ".safetensors":
        return state_dict_arrays(safetensors_state(path))
    if path.suffix != ".npz":
        return state_dict_arrays(_torch_state(path))
    from .npz import WEIGHT_DTYPES, read_npz_arrays  # strict and bounded, as for instances (docs/limits.md)

    arrays = read_npz_arrays(path, ("U.npy", "V.npy"), ("b.npy", "c.npy"), what="weights", dtypes=WEIGHT_DTYPES)
    U = exact_values(arrays["U.npy"], name=f"{path.name}: U")
    V = exact_values(arrays["V.npy"], name=f"{path.name}: V")
    b, c = (exact_values(arrays[key][:, 0], name=f"{path.name}: {key[0]}") if key in arrays else None
            for key in ("b.npy", "c.npy"))
    for key, vec, want in (("b", b, V.shape[0]), ("c", c, U.shape[0])):
        if vec is not None and arrays[f"{key}.npy"].shape[1] != 1:
            raise InvalidInput(f"{path}: {key} must be a vector of {want} entries, got shape "
                               f"{arrays[f'{key}.npy'].shape}")
        if vec is not None and vec.shape != (want,):
            raise InvalidInput(f"{path}: {key} has {vec.shape[0]} entries; {'V has k' if key == 'b' else 'U has m'} = "
                               f"{want} rows")
    if U.shape[1] != V.shape[0]:
        raise InvalidInput(f"{path}: U is {U.shape[0]} x {U.shape[1]} and V is {V.shape[0]} x {V.shape[1]}; "
                           "U needs k columns where V has k rows")
    return U, V, b, c
