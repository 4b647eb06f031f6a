"""Weights files: ``exactrelu.weights`` JSON (exact), and the other files weights come in.

The format (docs/design.md, "Weights files")::

    {"format": "exactrelu.weights", "version": 1, "activation": {"name": "relu"},
     "U": [["p/q", ...], ...], "V": [[...], ...], "b": ["p/q", ...] (optional), "c": [...] (optional),
     "provenance": {...} (optional, not interpreted)}

or, for any depth, ``"layers": [{"W": [[...], ...], "b": [...] (optional)}, ...]`` instead of U, V, b, c (the
two-layer network is ``[{"W": V, "b": b}, {"W": U, "b": c}]``; :func:`write_weights` writes U, V for depth 2).

Entries are rational strings or JSON integers (decimal strings such as "0.25" are read exactly).
:func:`read_weights` also takes any JSON object with ``U`` and ``V`` (and ``b``, ``c``), such as a
certificate, and the binary files of :mod:`exactrelu.io.binary_weights` (``.npz``, ``.safetensors``, PyTorch
state dicts, ONNX graphs), each read into a :class:`~exactrelu.io.layers.LayerStack` (the layers in an order
read from the file, never guessed: :mod:`exactrelu.io.state_dict`) and taken as ``Linear(d, k) -> f ->
Linear(k, m)``: the first layer's bias is the hidden bias b, the second's the output bias c.
:func:`read_network` also returns the line that says which layers were read, which every verdict about a file
prints. :func:`as_network` also takes an ``nn.Module`` or a state dict in memory.

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
from collections.abc import Sequence
from pathlib import Path

from .._version import __version__
from ..errors import InvalidInput
from ..exact.matrix import QMatrix
from ..network import RELU, Activation, Network
from .layers import LayerStack

__all__ = ["WEIGHTS_FORMAT", "write_weights", "read_weights", "read_network", "network_of", "weights_json",
           "as_network"]

WEIGHTS_FORMAT = "exactrelu.weights"
_FIELDS = {"format", "version", "activation", "U", "V", "b", "c", "layers", "provenance"}


def weights_json(network: Network, **provenance) -> dict:
    """The ``exactrelu.weights`` object of ``network`` (``"b"``, ``"c"`` only when some hidden, output bias is
    non-zero)."""
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


def read_weights(path: str | os.PathLike, activation: Activation | None = None,
                 layers: Sequence[str] | None = None) -> Network:
    """Read weights exactly from a weights file, a certificate, an ``.npz``, a ``.safetensors`` file, a PyTorch
    state dict or an ONNX graph (:func:`read_network`, without the description)."""
    return read_network(path, activation, layers)[0]


def read_network(path: str | os.PathLike, activation: Activation | None = None,
                 layers: Sequence[str] | None = None) -> tuple[Network, str]:
    """The network (any depth) of a weights file and the one line that says what was read from it.

    The kind of file is read from its bytes (:func:`exactrelu.io.binary_weights.weights_kind`); the layers of a
    state dict come in the order their numbered names give, or ``layers`` names them in order
    (:mod:`exactrelu.io.state_dict`); any depth is read (:func:`network_of`). ``activation`` is used
    when the file names none (JSON without ``"activation"``, ``.npz``, state dicts); when the file names one that
    differs, InvalidInput is raised.

    >>> import numpy as np, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.npz")
    >>> np.savez(path, **{"2.weight": np.ones((1, 3)), "0.weight": np.ones((3, 2)), "0.bias": np.zeros(3)})
    >>> net, line = read_network(path)
    >>> net.k, line.split(": ", 1)[1]
    (3, '0.weight (3 x 2) + 0.bias -> 2.weight (1 x 3)')
    """
    from .binary_weights import read_weights_stack, weights_kind

    path = Path(path)
    kind = weights_kind(path)
    if kind == "json":
        if layers is not None:
            raise InvalidInput(f"{path}: JSON weights name their layers (V, then U); --layers is for state dicts")
        net = _from_json_file(path, activation)
        return net, _json_description(path, net)
    stack = read_weights_stack(path, layers, kind=kind)
    return network_of(stack, activation), stack.description


def network_of(stack: LayerStack, activation: Activation | None = None) -> Network:
    """The :class:`Network` of a :class:`~exactrelu.io.layers.LayerStack`, of any depth (depth 2 is ``U f(V x + b)
    + c``; consumers of two-layer networks refuse other depths with their widths); ``activation`` applies when the
    stack names none, and must agree when it does.

    >>> import numpy as np
    >>> from exactrelu.io.layers import AffineLayer, LayerStack
    >>> stack = LayerStack(tuple(AffineLayer(str(i), np.ones((2, 2))) for i in range(3)), "m.npz")
    >>> network_of(stack).widths
    (2, 2, 2, 2)
    """
    if activation is not None and stack.activation is not None and activation != stack.activation:
        raise InvalidInput(f"{stack.source}: the file's activation {stack.activation} differs from the one asked for, "
                           f"{activation}")
    if stack.depth == 2:
        return _network(*stack.two_layer(), stack.activation or activation)
    return Network.from_layers([(_exact(layer.W, "W"), None if layer.b is None or not layer.b.any() else
                                 _exact(layer.b.reshape(-1, 1), "b")) for layer in stack.layers],
                               stack.activation or activation or RELU)


def _exact(a, name: str) -> QMatrix:
    return QMatrix.from_numpy(a, name=name)


def _json_description(path: Path, net: Network) -> str:
    if net.depth != 2:
        return f"read {path}: {net.depth} layers, widths {'-'.join(map(str, net.widths))}"
    bias = " + b" if net.has_bias else ""
    out = " + c" if net.has_output_bias else ""
    return f"read {path}: V ({net.k} x {net.d}){bias} -> U ({net.m} x {net.k}){out}"


def _network(U, V, b, c, activation: Activation | None) -> Network:
    """The Network of exact arrays (U, V, b, c): b and c dropped when absent or zero."""
    def col(a, name):
        return None if a is None or not a.any() else QMatrix.from_numpy(a.reshape(-1, 1), name=name)

    return Network(QMatrix.from_numpy(U, name="U"), QMatrix.from_numpy(V, name="V"), activation or RELU,
                   col(b, "b"), col(c, "c"))


def as_network(weights, activation: Activation | None = None, layers: Sequence[str] | None = None) -> Network:
    """Weights given any way the library accepts them, as a :class:`Network`: a Network (returned as is), the
    path of a weights file (:func:`read_weights`), a PyTorch ``nn.Module`` of Linear -> ReLU -> Linear or its
    state dict (torch tensors on any device, or arrays), every value taken exactly; ``layers`` names the layers of
    a state dict in order where their names do not show it.

    >>> import numpy as np
    >>> net = as_network({"0.weight": np.eye(2), "0.bias": np.zeros(2), "2.weight": np.ones((1, 2)), "2.bias": [0.5]})
    >>> net.k, net.c_fractions()
    (2, [Fraction(1, 2)])
    """
    if isinstance(weights, Network):
        return weights
    if isinstance(weights, (str, os.PathLike)):
        return read_weights(weights, activation, layers)
    from .torch_weights import state_dict_stack

    return network_of(state_dict_stack(weights, layers), activation)


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
