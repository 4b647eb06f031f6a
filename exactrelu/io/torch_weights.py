"""Float weights from elsewhere: ``.npz`` arrays, ``.safetensors`` files, PyTorch state dicts.

Accepted files (:func:`load_float_weights`; :func:`exactrelu.io.weights.read_weights` is the
front door, which also reads exact JSON weights):

* ``.npz`` with float arrays ``U`` (m x k), ``V`` (k x d) and optionally ``b`` (k), read with
  ``allow_pickle=False``;
* ``.safetensors`` (extra ``safetensors``), read with the safetensors package's NumPy API (no
  torch, no pickle, nothing in the file is executed): the tensors of
  ``Sequential(Linear(d, k), ReLU(), Linear(k, m, bias=False))`` as written by
  ``safetensors.torch.save_file(model.state_dict(), path)`` or ``safetensors.numpy.save_file``;
  layers are ordered by their names (``0.weight`` < ``2.weight``, ``fc1`` < ``fc2``, numbers
  compared as numbers), since the file keeps no order;
* a PyTorch state dict (``torch.save(model.state_dict(), path)``, extra ``torch``) of the same
  model, read with ``torch.load(..., weights_only=True)`` (no code runs from the file); a whole
  pickled ``nn.Module`` is refused (it needs unsafe unpickling).

Either way: exactly two 2-D weight matrices, the first k x d (V) and the second m x k (U); the
first layer's bias is the hidden bias b; a non-zero bias of the output layer is refused. The
arrays are float64 copies of what the file holds (a float32 weight is converted exactly).

>>> import numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "w.npz")
>>> np.savez(path, U=np.ones((2, 3)), V=np.zeros((3, 4)))
>>> U, V, b = load_float_weights(path)
>>> U.shape, V.shape, b
((2, 3), (3, 4), None)
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import InvalidInput
from ..exact.matrix import as_float_array

__all__ = ["state_dict_weights", "state_dict_arrays", "load_float_weights", "safetensors_state"]


def state_dict_arrays(state: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(U, V, b) as float64 arrays from a state dict of Linear(d, k) -> f -> Linear(k, m, bias=False).

    ``b`` is the first layer's bias (None when absent); a non-zero bias of the second layer is
    refused (the model has no output bias). Tensors may be torch tensors or arrays, in the dict's order.

    >>> import numpy as np
    >>> U, V, b = state_dict_arrays({"0.weight": np.ones((3, 4)), "0.bias": np.arange(3.0), "2.weight": np.ones((2, 3))})
    >>> U.shape, V.shape, b.tolist()
    ((2, 3), (3, 4), [0.0, 1.0, 2.0])
    """
    if not isinstance(state, dict):
        raise InvalidInput(f"expected a state dict (a mapping of names to tensors), got {type(state).__name__}")
    mats, biases = [], []
    for name, t in state.items():
        a = t.detach().cpu().double().numpy() if hasattr(t, "detach") else np.asarray(t)
        if a.ndim == 1:
            biases.append((name, len(mats), as_float_array(a.astype(np.float64), name=name, ndim=1)))
            continue
        if a.ndim != 2:
            raise InvalidInput(f"state dict entry {name!r} has shape {a.shape}; expected 2-D weight matrices")
        mats.append((name, as_float_array(a.astype(np.float64), name=name)))
    if len(mats) != 2:
        raise InvalidInput(f"expected exactly two weight matrices (first layer k x d, second m x k), found "
                           f"{[n for n, _ in mats]}")
    (n1, V), (n2, U) = mats
    if U.shape[1] != V.shape[0]:
        raise InvalidInput(f"{n1} is {V.shape[0]} x {V.shape[1]} but {n2} is {U.shape[0]} x {U.shape[1]}: "
                           "the second layer needs k columns where k is the first layer's rows")
    b = None
    for name, after, a in biases:
        if after == 1 and a.shape == (V.shape[0],) and b is None:
            b = a  # the first layer's bias: labels = f(inputs @ V.T + b) @ U.T
        elif np.any(a != 0):
            raise InvalidInput(f"state dict entry {name!r} is a bias the model cannot hold (only the first layer's "
                               f"bias, k = {V.shape[0]} entries, is a hidden bias; the output layer has none)")
    return U, V, b


def state_dict_weights(state: dict) -> tuple[np.ndarray, np.ndarray]:
    """(U, V) as float64 arrays from a state dict of Linear(d,k,bias=False) -> f -> Linear(k,m,bias=False).

    Tensors may be torch tensors or arrays; entries are taken in the dict's order. Biases must be
    zero here (use :func:`state_dict_arrays` for networks with hidden biases).

    >>> import numpy as np
    >>> U, V = state_dict_weights({"0.weight": np.ones((3, 4)), "2.weight": np.ones((2, 3))})
    >>> U.shape, V.shape
    ((2, 3), (3, 4))
    """
    U, V, b = state_dict_arrays(state)
    if b is not None and np.any(b != 0):
        raise InvalidInput("the state dict has a non-zero first-layer bias; read it with "
                           "exactrelu.io.weights.read_weights (or certify/recover with --bias) to keep it")
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

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def _layer_order(name: str) -> tuple:
    layer, _, kind = name.rpartition(".")
    return (_natural_key(layer), 0 if kind == "weight" else 1, name)


def safetensors_state(path: Path) -> dict:
    """The tensors of a ``.safetensors`` file as NumPy arrays, ordered layer by layer (see the module doc)."""
    try:
        from safetensors.numpy import load_file
    except ImportError:
        raise InvalidInput(f"{path}: reading .safetensors files needs safetensors: "
                           "pip install 'exactrelu[safetensors]'") from None
    try:
        tensors = load_file(str(path))
    except Exception as exc:  # safetensors raises SafetensorError, TypeError (bfloat16), ... for files it cannot read
        raise InvalidInput(f"{path}: not a readable .safetensors file ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    return {name: tensors[name] for name in sorted(tensors, key=_layer_order)}


def load_float_weights(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(U, V, b) float64 from an ``.npz`` (arrays ``U``, ``V``, optional ``b``), a ``.safetensors`` file or a
    PyTorch state-dict file (any other suffix); ``b`` is None when the file has no hidden bias."""
    path = Path(path)
    if not path.exists():
        raise InvalidInput(f"no such weights file: {path}")
    if path.suffix == ".safetensors":
        return state_dict_arrays(safetensors_state(path))
    if path.suffix != ".npz":
        return state_dict_arrays(_torch_state(path))
    from .npz import read_npz_arrays  # strict and bounded, as for instances (docs/limits.md)

    arrays = read_npz_arrays(path, ("U.npy", "V.npy"), ("b.npy",), what="weights")
    for key, a in arrays.items():
        if a.dtype.kind == "i" and (int(a.max()) >= 2**53 or int(a.min()) <= -2**53):  # float64 would round them
            raise InvalidInput(f"{path}: integer {key[:-4]} entries of 2^53 or more; write an exactrelu.weights "
                               "JSON file for exact integers that large")
    U = as_float_array(arrays["U.npy"].astype(np.float64), name=f"{path.name}: U")
    V = as_float_array(arrays["V.npy"].astype(np.float64), name=f"{path.name}: V")
    b = None
    if "b.npy" in arrays:
        if arrays["b.npy"].shape[1] != 1:
            raise InvalidInput(f"{path}: b must be a vector of k entries, got shape {arrays['b.npy'].shape}")
        b = as_float_array(arrays["b.npy"][:, 0].astype(np.float64), name=f"{path.name}: b", ndim=1)
    if U.shape[1] != V.shape[0]:
        raise InvalidInput(f"{path}: U is {U.shape[0]} x {U.shape[1]} and V is {V.shape[0]} x {V.shape[1]}; "
                           "U needs k columns where V has k rows")
    if b is not None and b.shape != (V.shape[0],):
        raise InvalidInput(f"{path}: b has {b.shape[0]} entries; V has k = {V.shape[0]} rows")
    return U, V, b

