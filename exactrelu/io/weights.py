"""Weights files: ``exactrelu.weights`` JSON (exact), and the other files weights come in.

The format (docs/design.md, "Weights files")::

    {"format": "exactrelu.weights", "version": 1, "activation": {"name": "relu"},
     "U": [["p/q", ...], ...], "V": [[...], ...], "b": ["p/q", ...] (optional), "c": [...] (optional),
     "provenance": {...} (optional, not interpreted)}

or, for any depth, ``"layers": [{"W": [[...], ...], "b": [...] (optional)}, ...]`` instead of U, V, b, c (the
two-layer network is ``[{"W": V, "b": b}, {"W": U, "b": c}]``; :func:`write_weights` writes U, V for depth 2).

Entries are rational strings or JSON integers (decimal strings such as "0.25" are read exactly).
:func:`read_weights` also takes any JSON object with ``U`` and ``V`` (and ``b``), such as a
certificate; an ``.npz`` with arrays ``U``, ``V`` and optionally ``b``, ``c`` (every value taken exactly); a
``.safetensors`` file; an ONNX graph; and a PyTorch state dict ``Linear(d, k) -> f -> Linear(k, m)`` (the
first layer's bias is the hidden bias b, the second's the output bias c; needs the ``torch`` extra).
:func:`as_network` also takes an ``nn.Module`` or a state dict in memory.

>>> import os, tempfile
>>> from exactrelu.network import Network
>>> net = Network.from_rows(U=[[1, "1/3"]], V=[[1, 0], [0, -1]], b=["1/7", 0])
>>> path = write_weights(net, os.path.join(tempfile.mkdtemp(), "w.json"))
>>> back = read_weights(path)
>>> back.equivalent(net), back.b_fractions()[0]
(True, Fraction(1, 7))
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .._version import __version__
from ..errors import InvalidInput
from ..exact.matrix import QMatrix
from ..network import RELU, Activation, Network

__all__ = ["WEIGHTS_FORMAT", "write_weights", "read_weights", "weights_json", "as_network"]

WEIGHTS_FORMAT = "exactrelu.weights"
_FIELDS = {"format", "version", "activation", "U", "V", "b", "c", "layers", "provenance"}


def weights_json(network: Network, **provenance) -> dict:
    """The ``exactrelu.weights`` object of ``network`` (``"b"``, ``"c"`` only when some hidden, output bias is non-zero)."""
    obj = {"format": WEIGHTS_FORMAT, "version": 1, **network.to_json()}
    obj["provenance"] = {"exactrelu_version": __version__, **{k: v for k, v in provenance.items() if v is not None}}
    return obj


def write_weights(network: Network, path: str | os.PathLike, **provenance) -> Path:
    """Write ``network`` as an ``exactrelu.weights`` JSON file (exact rationals); return the path."""
    from .files import atomic_output

    path = Path(path)
    with atomic_output(path, what="weights file") as fh:  # a kill leaves the old file or the new one
        json.dump(weights_json(network, **provenance), fh, indent=1)
        fh.write("\n")
    return path


def read_weights(path: str | os.PathLike, activation: Activation | None = None) -> Network:
    """Read weights exactly from a weights file, a certificate, an ``.npz`` or a PyTorch state dict.

    ``activation`` is used when the file names none (JSON without ``"activation"``, ``.npz``,
    state dicts); when the file names one that differs, InvalidInput is raised.
    """
    path = Path(path)
    if not path.is_file():
        raise InvalidInput(f"no such weights file: {path}" if not path.exists() else f"{path} is not a file")
    with open(path, "rb") as fh:
        head = fh.read(64).lstrip()
    if path.suffix.lower() == ".json" or head.startswith(b"{") or head.startswith(b"["):
        return _from_json_file(path, activation)
    if path.suffix.lower() == ".onnx":
        from .onnx_weights import read_onnx

        return read_onnx(path, activation)
    from .torch_weights import load_float_weights  # .npz, .safetensors and state dicts

    return _network(*load_float_weights(path), activation)


def _network(U, V, b, c, activation: Activation | None) -> Network:
    """The Network of exact arrays (U, V, b, c): b and c dropped when absent or zero."""
    col = lambda a, name: None if a is None or not a.any() else QMatrix.from_numpy(a.reshape(-1, 1), name=name)  # noqa: E731
    return Network(QMatrix.from_numpy(U, name="U"), QMatrix.from_numpy(V, name="V"), activation or RELU,
                   col(b, "b"), col(c, "c"))


def as_network(weights, activation: Activation | None = None) -> Network:
    """Weights given any way the library accepts them, as a :class:`Network`: a Network (returned as is), the
    path of a weights file (:func:`read_weights`), a PyTorch ``nn.Module`` of Linear -> ReLU -> Linear or its
    state dict (torch tensors on any device, or arrays), every value taken exactly.

    >>> import numpy as np
    >>> net = as_network({"0.weight": np.eye(2), "0.bias": np.zeros(2), "2.weight": np.ones((1, 2)), "2.bias": [0.5]})
    >>> net.k, net.c_fractions()
    (2, [Fraction(1, 2)])
    """
    if isinstance(weights, Network):
        return weights
    if isinstance(weights, (str, os.PathLike)):
        return read_weights(weights, activation)
    from .torch_weights import state_dict_arrays

    return _network(*state_dict_arrays(weights), activation)


def _from_json_file(path: Path, activation: Activation | None) -> Network:
    from .files import check_exact_entries, read_json

    obj = read_json(path, what="weights file")  # bounded: digits, nesting (docs/limits.md)
    if not isinstance(obj, dict):
        raise InvalidInput(f"{path}: weights must be a JSON object with 'U' and 'V', got a {type(obj).__name__}")
    if obj.get("format") == WEIGHTS_FORMAT:
        if type(obj.get("version")) is not int or obj["version"] != 1:  # not true, not 1.0
            raise InvalidInput(f"{path}: unsupported weights version {obj.get('version')!r} (this reader knows 1)")
        unknown = set(obj) - _FIELDS
        if unknown:
            raise InvalidInput(f"{path}: unknown fields {sorted(unknown)} in an {WEIGHTS_FORMAT} file")
    if "layers" not in obj and ("U" not in obj or "V" not in obj):
        raise InvalidInput(f"{path}: JSON weights need 'U' (m x k) and 'V' (k x d) rows of rationals, or 'layers'")
    check_exact_entries(obj, ("U", "V", "b", "c", "layers"), str(path))  # a JSON float is no exact weight
    named = Activation.from_json(obj["activation"]) if "activation" in obj else None
    if named is not None and activation is not None and named != activation:
        raise InvalidInput(f"{path}: the file's activation {named} differs from the one asked for, {activation}")
    try:
        fields = {k: obj[k] for k in ("U", "V", "b", "c", "layers") if k in obj}
        return Network.from_json(fields, named or activation or RELU)
    except InvalidInput as exc:
        raise InvalidInput(f"{path}: {exc}") from None
