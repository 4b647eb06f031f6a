"""PyTorch weights with exactly their values: state dict files, ``.safetensors`` files, state dicts and modules in
memory.

* a PyTorch state dict file (``torch.save(model.state_dict(), path)``, extra ``torch``), read with
  ``torch.load(..., weights_only=True)`` (no code runs from the file); a whole pickled ``nn.Module`` is refused
  (it needs unsafe unpickling);
* ``.safetensors``, read by :mod:`exactrelu.io.safetensors_file` (NumPy only: no torch, no pickle; bfloat16 too);
* in Python, an ``nn.Module`` or its state dict (:func:`state_dict_stack`).

The layers and their order are read by the state-dict rule of :mod:`exactrelu.io.state_dict`: keys
``LAYER.weight`` / ``LAYER.bias`` (pruned layers: ``weight_orig * weight_mask``), the order from numbered names
(``0``, ``2`` of ``nn.Sequential``; ``fc1``, ``fc2``; ``layers.0``, ...) or given (``layers=``, ``--layers``),
never from the order of the keys. Every value is taken exactly: floats as float64 (float16, bfloat16 and float32
widen exactly), integers as integers (an int64 2**53 + 1 stays 2**53 + 1; it is never passed through float64).

>>> import numpy as np
>>> state = {"0.weight": np.ones((3, 4)), "0.bias": np.arange(3.0), "2.weight": np.ones((2, 3)), "2.bias": np.ones(2)}
>>> state_dict_stack(state).description
'read the state dict: 0.weight (3 x 4) + 0.bias -> 2.weight (2 x 3) + 2.bias'
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..errors import InvalidInput
from ..limits import check_inflation
from .layers import LayerStack
from .state_dict import stack_of_state

__all__ = ["state_dict_stack", "state_dict_arrays", "state_dict_weights", "torch_file_stack", "safetensors_stack"]

#: modules of an nn.Sequential that are the identity at inference, between or around the Linear layers
_NO_OPS = {"Identity", "Dropout", "Flatten"}


def state_dict_stack(state, layers: Sequence[str] | None = None, *, source: str = "the state dict") -> LayerStack:
    """The :class:`~exactrelu.io.layers.LayerStack` of a state dict of Linear layers, or of the ``nn.Module`` itself
    (its ``state_dict()``); ``layers`` names the layers in order where the names do not show it.

    Tensors may be torch tensors (any dtype, any device) or arrays; the dict's order is never used.
    """
    state = _module_state(state)
    if not isinstance(state, Mapping):
        raise InvalidInput(f"expected a state dict (a mapping of names to tensors) or an nn.Module, got "
                           f"{type(state).__name__}")
    return stack_of_state(state, source, layers)


def state_dict_arrays(state, layers: Sequence[str] | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(U, V, b, c) with exactly the values of a state dict of Linear(d, k) -> f -> Linear(k, m), or of the
    ``nn.Module`` itself; ``b`` is the first layer's bias and ``c`` the second's, PyTorch's default output bias
    (None when absent). Another depth is refused with its widths.

    >>> import numpy as np
    >>> state = {"2.bias": np.ones(2), "0.weight": np.ones((3, 4)), "0.bias": np.arange(3.0),
    ...          "2.weight": np.ones((2, 3))}
    >>> U, V, b, c = state_dict_arrays(state)
    >>> U.shape, V.shape, b.tolist(), c.tolist()
    ((2, 3), (3, 4), [0.0, 1.0, 2.0], [1.0, 1.0])
    """
    return state_dict_stack(state, layers).two_layer()


def _module_state(obj):
    """An ``nn.Module``'s state dict (refusing an nn.Sequential with a module that is not Linear, ReLU or a no-op);
    anything else as is."""
    if not callable(getattr(obj, "state_dict", None)) or isinstance(obj, Mapping):
        return obj
    children = list(obj.children()) if callable(getattr(obj, "children", None)) else []
    if type(obj).__name__ == "Sequential":
        kinds = [type(c).__name__ for c in children]
        other = [k for k in kinds if k not in {"Linear", "ReLU", *_NO_OPS}]
        core = [k for k in kinds if k in ("Linear", "ReLU")]
        if other or core != ["Linear", "ReLU"] * (len(core) // 2) + ["Linear"]:
            raise InvalidInput(f"the module is Sequential({', '.join(kinds)}): only Linear layers with ReLU between "
                               "them are read from a module (pass its state dict and activation= for t^c)")
    return obj.state_dict()


def state_dict_weights(state) -> tuple[np.ndarray, np.ndarray]:
    """(U, V) from a state dict of Linear(d,k,bias=False) -> f -> Linear(k,m,bias=False).

    Biases must be zero here (use :func:`state_dict_arrays` for networks with biases).

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


def torch_file_stack(path: str | os.PathLike, layers: Sequence[str] | None = None) -> LayerStack:
    """The layers of a PyTorch state dict file (module doc)."""
    return stack_of_state(_torch_state(Path(path)), str(path), layers)


def safetensors_stack(path: str | os.PathLike, layers: Sequence[str] | None = None) -> LayerStack:
    """The layers of a ``.safetensors`` file (module doc): the file sorts its names, so the order is read from them."""
    from .safetensors_file import read_safetensors

    return stack_of_state(read_safetensors(path), str(path), layers)


#: what a state dict's pickle may name (torch's own rebuild functions and storages; a dict; bytes), checked before
#: torch is imported: anything else (``os.system``, ``builtins.eval``) is a file that would run code when loaded
_SAFE_BUILTINS = {"set", "frozenset", "tuple", "list", "dict", "int", "float", "bool", "complex", "slice", "bytearray"}


def _allowed(module: str, name: str) -> bool:
    return (module == "torch" or module.startswith("torch.")) or (module, name) in {
        ("collections", "OrderedDict"), ("_codecs", "encode")} or (module in ("builtins", "__builtin__")
                                                                   and name in _SAFE_BUILTINS)


def _pickles(path: Path) -> list[bytes]:
    """The pickles of a PyTorch file: the ``data.pkl`` of its zip archive, or the file itself (the legacy format:
    five pickles, then the tensors' bytes)."""
    import zipfile

    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            infos = [i for i in z.infolist() if i.filename == "data.pkl" or i.filename.endswith("/data.pkl")]
            for info in infos:
                if info.compress_type == zipfile.ZIP_DEFLATED:
                    check_inflation(info.compress_size, info.file_size, f"{path}: member {info.filename}")
            return [z.read(i) for i in infos]
    return [Path(path).read_bytes()]


def refuse_code(path: Path) -> None:
    """Refuse, without importing torch, a PyTorch file whose pickles name anything but what a state dict needs
    (``os.system``, ``builtins.eval``, a class of some package): loading it would run that code. The read itself
    is ``torch.load(weights_only=True)``, which refuses such files too, after seconds of importing torch.

    >>> import os, pickle, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "evil.pt")
    >>> with open(path, "wb") as fh:
    ...     pickle.dump(os.system, fh, protocol=2)
    >>> refuse_code(Path(path))
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: ...evil.pt: its pickle names ...system, which loading it would run:
    not a state dict ...
    """
    import io
    import pickletools

    for data in _pickles(path):
        stream = io.BytesIO(data)
        for i in range(5):  # the legacy format: magic, version, system info, the object, storage keys
            if stream.tell() >= len(data):
                break
            try:
                ops = [(op.name, arg) for op, arg, _ in pickletools.genops(stream)]
            except (ValueError, EOFError, UnicodeDecodeError) as exc:
                if i > 0:
                    break  # past the pickles: the tensors' bytes of the legacy format
                raise InvalidInput(f"{path}: not a PyTorch file (a broken pickle: {exc})") from None
            for name, arg in ops:
                if name in ("GLOBAL", "INST") and not _allowed(*str(arg).split(" ", 1)):
                    raise InvalidInput(f"{path}: its pickle names {str(arg).replace(' ', '.')[:80]}, which loading it "
                                       "would run: not a state dict (refused without loading; save "
                                       "model.state_dict(), or use safetensors)")


def _torch_state(path: Path) -> dict:
    refuse_code(path)
    try:
        import torch
    except ImportError:
        raise InvalidInput(f"{path} is a PyTorch file: reading it needs torch: pip install 'exactrelu[torch]' (or "
                           "save the state dict with safetensors.torch.save_file, read without torch)") from None
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises UnpicklingError, RuntimeError, ... for unsafe or broken files
        raise InvalidInput(f"{path}: not a PyTorch state dict readable with weights_only=True "
                           f"(save model.state_dict(), not the model): {str(exc).splitlines()[0]}") from None
    if isinstance(obj, dict) and "state_dict" in obj and isinstance(obj["state_dict"], dict):
        obj = obj["state_dict"]
    if not isinstance(obj, Mapping):
        raise InvalidInput(f"{path} holds a {type(obj).__name__}, not a state dict: save model.state_dict()")
    return obj
