"""Which kind of weights file a path holds, told from its bytes, and its layers read by the reader of that kind.

A file's kind is read from its first bytes: ``{`` (JSON, read by :mod:`exactrelu.io.weights`), a zip archive of
``.npy`` members (``.npz``) or with a ``data.pkl`` (a PyTorch file), an 8-byte length then ``{``
(``.safetensors``), a pickle (a PyTorch file of the legacy format). Bytes that show none of these are read by the
reader the suffix names (``.json``, ``.npz``, ``.safetensors``, ``.onnx``; ``.pt``, ``.pth``, ``.bin`` for
PyTorch), which says what is wrong with the file; without such a suffix, a protobuf beginning as ONNX's
``ModelProto`` does is read as ONNX. An ``.npy`` array (one array, no layers) and anything else are refused at
once with what the file is and what to do; torch is imported only for a PyTorch file.

>>> import numpy as np, tempfile, os
>>> d = tempfile.mkdtemp()
>>> np.save(os.path.join(d, "w.npy"), np.eye(2))
>>> read_weights_stack(os.path.join(d, "w.npy"))
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: .../w.npy is an .npy array (one array), not a weights file: ...
>>> np.savez(os.path.join(d, "w.npz"), U=np.ones((1, 2)), V=np.eye(2))
>>> read_weights_stack(os.path.join(d, "w.npz")).description
'read .../w.npz: V (2 x 2) -> U (1 x 2)'
"""

from __future__ import annotations

import os
import struct
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import InvalidInput
from .files import read_bytes
from .layers import LayerStack

__all__ = ["weights_kind", "read_weights_stack", "load_float_weights", "KINDS"]

#: what :func:`weights_kind` answers
KINDS = ("json", "npz", "torch", "safetensors", "onnx")
#: the kind a suffix declares, for a file whose bytes show none (its reader then says what is wrong with it)
_SUFFIXES = {".json": "json", ".npz": "npz", ".safetensors": "safetensors", ".onnx": "onnx", ".pt": "torch",
             ".pth": "torch", ".bin": "torch"}
_KNOWN = ("exactrelu.weights JSON (or JSON with U, V), .npz (U, V, b, c or W0, b0, W1, ...), .safetensors, a PyTorch "
          "state dict (torch.save(model.state_dict(), path)) or an ONNX graph")


def weights_kind(path: str | os.PathLike) -> str:
    """One of :data:`KINDS`, read from the file's first bytes (module doc); InvalidInput for anything else."""
    path = Path(path)
    head = read_bytes(path, what="weights file", size=64)
    size = path.stat().st_size
    if head[:6] == b"\x93NUMPY":
        raise InvalidInput(f"{path} is an .npy array (one array), not a weights file: save the layers together, "
                           "numpy.savez(path, U=U, V=V, b=b, c=c) or numpy.savez(path, W0=..., b0=..., W1=..., ...)")
    if head.lstrip()[:1] in (b"{", b"["):
        return "json"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return _zip_kind(path)
    if len(head) > 8 and head[8:9] == b"{" and struct.unpack("<Q", head[:8])[0] <= size - 8:
        return "safetensors"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "torch"  # a pickle: torch.save's legacy format
    if path.suffix.lower() in _SUFFIXES:
        return _SUFFIXES[path.suffix.lower()]  # not recognized by its bytes: its reader says what is wrong with it
    if head[:1] == b"\x08":  # ONNX's ModelProto begins with field 1 (ir_version), a varint
        return "onnx"
    what = "an empty file" if not head else f"a file beginning {head[:12]!r}"
    raise InvalidInput(f"{path} is {what}, not a weights file exactrelu reads ({_KNOWN})")


def _zip_kind(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, struct.error) as exc:
        raise InvalidInput(f"{path}: a broken zip archive ({exc}); not a readable weights file") from None
    if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
        return "torch"
    if names and all(n.endswith(".npy") for n in names):
        return "npz"
    raise InvalidInput(f"{path} is a zip archive of neither .npy arrays (.npz) nor a PyTorch state dict (members "
                       f"{names[:5]}); not a weights file exactrelu reads ({_KNOWN})")


def read_weights_stack(path: str | os.PathLike, layers: Sequence[str] | None = None, *,
                       kind: str | None = None) -> LayerStack:
    """The :class:`~exactrelu.io.layers.LayerStack` of a binary weights file (``.npz``, PyTorch, ``.safetensors``,
    ONNX; ``kind`` as :func:`weights_kind` reads it). ``layers`` names the layers in order where their names do not
    show it (the state-dict rule of :mod:`exactrelu.io.state_dict`)."""
    kind = kind or weights_kind(path)
    if kind == "npz":
        from .npz_weights import read_npz_weights

        return read_npz_weights(path, layers)
    if kind == "safetensors":
        from .torch_weights import safetensors_stack

        return safetensors_stack(path, layers)
    if kind == "torch":
        from .torch_weights import torch_file_stack

        return torch_file_stack(path, layers)
    if kind == "onnx":
        from .onnx_weights import onnx_stack

        if layers is not None:
            raise InvalidInput(f"{path}: an ONNX graph orders its layers itself; --layers is for state dicts")
        return onnx_stack(path)
    raise InvalidInput(f"{path}: {kind} weights are not a binary weights file (exactrelu.io.weights reads JSON)")


def load_float_weights(path: str | os.PathLike, layers: Sequence[str] | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(U, V, b, c) with exactly the values of a two-layer binary weights file; ``b``, ``c`` None when absent.
    Floats come back as float64, integers as integers (int64, or Python ints beyond it).

    >>> import numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "w.npz")
    >>> np.savez(path, U=np.ones((2, 3)), V=np.zeros((3, 4)))
    >>> U, V, b, c = load_float_weights(path)
    >>> U.shape, V.shape, b, c
    ((2, 3), (3, 4), None, None)
    """
    return read_weights_stack(path, layers).two_layer()
