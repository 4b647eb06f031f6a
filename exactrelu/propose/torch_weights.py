"""Weights from elsewhere: plain ``.npz`` arrays, or a PyTorch state dict (optional extra ``torch``).

Accepted files:

* ``.npz`` with float arrays ``U`` (m x k) and ``V`` (k x d) (read with ``allow_pickle=False``);
* a PyTorch state dict (``torch.save(model.state_dict(), path)``) of
  ``Sequential(Linear(d, k, bias=False), ReLU(), Linear(k, m, bias=False))``: exactly two 2-D
  weight tensors, the first k x d (V) and the second m x k (U). Read with
  ``torch.load(..., weights_only=True)`` (no code runs from the file). Biases are refused unless
  all zero. A whole pickled ``nn.Module`` is refused (it needs unsafe unpickling).

The arrays are float64 copies of what the file holds (a float32 weight is converted exactly).

>>> import numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "w.npz")
>>> np.savez(path, U=np.ones((2, 3)), V=np.zeros((3, 4)))
>>> U, V = load_weights(path)
>>> U.shape, V.shape
((2, 3), (3, 4))
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from ..errors import InvalidInput
from ..exact.matrix import as_float_array

__all__ = ["load_weights", "state_dict_weights", "state_dict_arrays", "load_float_weights"]


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
                           "exactrelu.weights_file.read_weights (or certify/recover with --bias) to keep it")
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


def load_exact_weights(path: str | os.PathLike):
    """(U, V) as exact QMatrix from a JSON file with ``"U"`` and ``"V"`` rows of rationals (for example a
    ``realizes`` certificate, or ``{"U": [["1/3", ...]], "V": [...]}``); None if the file is not JSON."""
    from ..exact.matrix import QMatrix
    from ..files import read_bytes

    path = Path(path)
    head = read_bytes(path, what="weights file")[:64].lstrip()
    if not head.startswith(b"{"):
        return None
    from ..files import read_json

    obj = read_json(path, what="weights file")
    if not isinstance(obj, dict) or "U" not in obj or "V" not in obj:
        raise InvalidInput(f"{path}: JSON weights need 'U' (m x k) and 'V' (k x d) rows of rationals")
    return QMatrix.from_rows(obj["U"], name=f"{path.name}: U"), QMatrix.from_rows(obj["V"], name=f"{path.name}: V")


def load_float_weights(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(U, V, b) float64 from an ``.npz`` (arrays ``U``, ``V``, optional ``b``) or a PyTorch state-dict file."""
    path = Path(path)
    if not path.exists():
        raise InvalidInput(f"no such weights file: {path}")
    if path.suffix != ".npz":
        return state_dict_arrays(_torch_state(path))
    try:
        with np.load(path, allow_pickle=False) as z:
            if not {"U", "V"} <= set(z.files) or set(z.files) - {"U", "V", "b"}:
                raise InvalidInput(f"{path}: an .npz of weights holds arrays 'U' (m x k), 'V' (k x d) and optionally "
                                   f"'b' (k), found {sorted(z.files)}")
            U = as_float_array(z["U"], name=f"{path.name}: U")
            V = as_float_array(z["V"], name=f"{path.name}: V")
            b = as_float_array(z["b"], name=f"{path.name}: b", ndim=1) if "b" in z.files else None
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        if isinstance(exc, InvalidInput):
            raise
        raise InvalidInput(f"{path}: not a readable .npz file ({exc})") from None
    if U.shape[1] != V.shape[0]:
        raise InvalidInput(f"{path}: U is {U.shape[0]} x {U.shape[1]} and V is {V.shape[0]} x {V.shape[1]}; "
                           "U needs k columns where V has k rows")
    if b is not None and b.shape != (V.shape[0],):
        raise InvalidInput(f"{path}: b has {b.shape[0]} entries; V has k = {V.shape[0]} rows")
    return U, V, b


def load_weights(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """(U, V) float64 from an ``.npz`` (arrays ``U``, ``V``), a JSON file of rational rows, or a PyTorch
    state-dict file."""
    path = Path(path)
    if not path.exists():
        raise InvalidInput(f"no such weights file: {path}")
    exact = load_exact_weights(path)
    if exact is not None:
        return exact[0].to_float(), exact[1].to_float()
    if path.suffix == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                if not {"U", "V"} <= set(z.files):
                    raise InvalidInput(f"{path}: an .npz of weights needs arrays 'U' (m x k) and 'V' (k x d), "
                                       f"found {sorted(z.files)}")
                U = as_float_array(z["U"], name=f"{path.name}: U")
                V = as_float_array(z["V"], name=f"{path.name}: V")
        except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
            if isinstance(exc, InvalidInput):
                raise
            raise InvalidInput(f"{path}: not a readable .npz file ({exc})") from None
        if U.shape[1] != V.shape[0]:
            raise InvalidInput(f"{path}: U is {U.shape[0]} x {U.shape[1]} and V is {V.shape[0]} x {V.shape[1]}; "
                               "U needs k columns where V has k rows")
        return U, V
    return state_dict_weights(_torch_state(path))
