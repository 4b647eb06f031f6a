"""The layers of a state dict (PyTorch, ``.safetensors``, an ``.npz`` of named arrays), in an order that is read,
never guessed.

A state dict maps names to tensors and keeps no reliable order (``prune.remove`` leaves ``0.bias, 0.weight,
2.weight, 2.bias``; a ``.safetensors`` file sorts its names). Each key is ``LAYER.KIND``: KIND one of
``weight`` (out x in) and ``bias`` of an ``nn.Linear``, or ``weight_orig`` and ``weight_mask`` (``bias_orig``,
``bias_mask``) of a layer pruned with ``torch.nn.utils.prune``, read as the pruned weight ``orig * mask`` (the
mask must hold only 0 and 1). Any other key (a BatchNorm's ``running_mean``, a bare ``W``) is refused by name.

The order of the layers comes from their names when they follow one known numbered pattern: the names are the
same but for one number, which orders them (``0``, ``2``, ``4`` of ``nn.Sequential``; ``fc1``, ``fc2``;
``layers.0``, ``layers.1``; ``net.0``, ``net.3``; numbers compared as numbers, ``2 < 10``). Otherwise
(``encoder``, ``decoder``; ``fc1``, ``out``; two numbers that vary) the order is asked for: ``layers=[...]``
(the command line's ``--layers FIRST,SECOND,...``) names every layer, in the order the network applies them.

>>> import numpy as np
>>> state = {"2.bias": np.ones(1), "0.weight": np.ones((3, 2)), "2.weight": np.ones((1, 3)), "0.bias": np.zeros(3)}
>>> stack_of_state(state, "m.pt").description
'read m.pt: 0.weight (3 x 2) + 0.bias -> 2.weight (1 x 3) + 2.bias'
>>> stack_of_state({"encoder.weight": np.eye(2), "decoder.weight": np.eye(2)}, "m.safetensors")
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: m.safetensors: the order of its layers cannot be read from their names ...
>>> stack_of_state({"encoder.weight": np.eye(2), "decoder.weight": np.eye(2)}, "m", ["encoder", "decoder"]).widths
(2, 2, 2)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import exact_values
from .layers import AffineLayer, LayerStack

__all__ = ["stack_of_state", "KINDS", "parse_layer_names", "LAYERS_HELP"]

#: what a key's last part may be
KINDS = ("weight", "bias", "weight_orig", "weight_mask", "bias_orig", "bias_mask")
#: the known numbered patterns, for messages
PATTERNS = "nn.Sequential's 0, 2, ...; fc1, fc2, ...; layers.0, layers.1, ..."
LAYERS_HELP = ("the layers of a weights file in the order the network applies them, by name (e.g. "
               "--layers encoder,decoder): needed when their names do not show the order (" + PATTERNS + ")")
_NUMBER = re.compile(r"([0-9]+)")  # ASCII digits only: '²'.isdigit() is True, and it is no layer number


def parse_layer_names(text: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``"a,b"`` (or a sequence of names) as a tuple of names; None stays None.

    >>> parse_layer_names("fc1, fc2.weight")
    ('fc1', 'fc2')
    """
    if text is None:
        return None
    names = [t.strip() for t in (text.split(",") if isinstance(text, str) else text)]
    names = [n[:-len(".weight")] if n.endswith(".weight") else n for n in names]
    if not names or "" in names or len(set(names)) != len(names):
        raise InvalidInput(f"--layers takes distinct layer names separated by commas, got {text!r}")
    return tuple(names)


def stack_of_state(state: Mapping, source: str, layers: Sequence[str] | None = None) -> LayerStack:
    """The :class:`LayerStack` of a state dict (module doc); ``layers`` names the layers in order when given."""
    groups = _groups(state, source)
    order = _ordered(groups, source, parse_layer_names(layers))
    return LayerStack(tuple(_layer(prefix, groups[prefix], source) for prefix in order), source)


def _groups(state: Mapping, source: str) -> dict[str, dict[str, tuple[str, np.ndarray]]]:
    """{layer name: {kind: (key, exact array)}}, refusing keys that are no Linear layer's."""
    groups: dict[str, dict] = {}
    for key, tensor in state.items():
        if not isinstance(key, str):
            raise InvalidInput(f"{source}: the key {key!r} is not a name; a state dict maps names to tensors")
        prefix, _, kind = key.rpartition(".")
        if kind not in KINDS:
            raise InvalidInput(f"{source}: {key[:80]!r} is not the weight or bias of a Linear layer (keys LAYER.weight "
                               "and LAYER.bias; pruned: LAYER.weight_orig and LAYER.weight_mask); only networks of "
                               "Linear layers with the activation between them are read (nn.Sequential(nn.Linear, "
                               "nn.ReLU, nn.Linear, ...))")
        groups.setdefault(prefix, {})[kind] = (key, exact_values(tensor, name=f"{source}: {key[:80]}"))
    if not groups:
        raise InvalidInput(f"{source}: no tensors: expected the state dict of nn.Sequential(nn.Linear, nn.ReLU, "
                           "nn.Linear, ...)")
    return groups


def _part(group: dict, name: str, prefix: str, source: str, ndim: int) -> tuple[str, np.ndarray] | None:
    """(label, array) of a layer's weight or bias: as stored, or its pruned form ``orig * mask``."""
    plain, orig, mask = group.get(name), group.get(name + "_orig"), group.get(name + "_mask")
    where = f"{source}: layer {prefix or '(unnamed)'!r}"
    if plain is not None and (orig is not None or mask is not None):
        raise InvalidInput(f"{where} holds both {name} and {name}_orig/{name}_mask: two values for one {name}")
    if (orig is None) != (mask is None):
        have = (orig or mask)[0]
        raise InvalidInput(f"{where}: {have} without its {'mask' if mask is None else 'orig'}: a pruned layer "
                           f"stores {name}_orig and {name}_mask (or call torch.nn.utils.prune.remove first)")
    if plain is None and orig is None:
        return None
    key, value = plain if plain is not None else orig
    if value.ndim != ndim:
        kind = "an out x in matrix" if ndim == 2 else "a vector"
        raise InvalidInput(f"{source}: {key} has shape {value.shape}; a Linear layer's {name} is {kind}")
    if plain is not None:
        return key, value
    mkey, m = mask
    if m.shape != value.shape or not np.all((m == 0) | (m == 1)):
        raise InvalidInput(f"{source}: {mkey} must be a 0/1 mask of the shape of {key} {value.shape}")
    zero = 0 if value.dtype != np.float64 else 0.0
    return f"{key} * {mkey}", np.where(m == 0, zero, value).astype(value.dtype)


def _layer(prefix: str, group: dict, source: str) -> AffineLayer:
    weight = _part(group, "weight", prefix, source, 2)
    if weight is None:
        keys = ", ".join(key for key, _ in group.values())
        raise InvalidInput(f"{source}: {keys} without a weight: a Linear layer stores LAYER.weight (out x in)")
    bias = _part(group, "bias", prefix, source, 1)
    return AffineLayer(prefix, weight[1], None if bias is None else bias[1], weight[0], "" if bias is None else bias[0])


def _ordered(groups: dict, source: str, asked: tuple[str, ...] | None) -> list[str]:
    """The layer names in the order the network applies them: ``asked`` (checked) or read from the names."""
    names = list(groups)
    if asked is not None:
        missing = [n for n in asked if n not in groups]
        left = [n for n in names if n not in asked]
        if missing or left:
            what = f"names {missing} that are not layers of the file" if missing else f"leaves out {left}"
            raise InvalidInput(f"{source}: --layers {','.join(asked)} {what}; the file's layers are "
                               f"{_listing(groups)} (name every one, in the order the network applies them)")
        return list(asked)
    order = numbered_order(names)
    if order is None:
        raise InvalidInput(f"{source}: the order of its layers cannot be read from their names ({_listing(groups)}; "
                           f"known patterns: {PATTERNS}): give it with --layers FIRST,SECOND,... (in Python: "
                           "layers=[...]), every layer in the order the network applies them")
    return order


def _listing(groups: dict) -> str:
    parts = []
    for prefix, group in sorted(groups.items()):
        w = group.get("weight") or group.get("weight_orig")
        parts.append(f"{prefix or '(unnamed)'} ({w[1].shape[0]} x {w[1].shape[1]})" if w and w[1].ndim == 2
                     else prefix or "(unnamed)")
    return ", ".join(parts)


def numbered_order(names: Sequence[str]) -> list[str] | None:
    """``names`` ordered by the one number in which they differ, or None when that is not how they differ.

    >>> numbered_order(["fc10", "fc2"]), numbered_order(["net.3", "net.0"]), numbered_order(["encoder", "decoder"])
    (['fc2', 'fc10'], ['net.0', 'net.3'], None)
    >>> numbered_order(["a1.0", "a2.1"]) is None, numbered_order(["fc1", "out"]) is None
    (True, True)
    """
    if len(names) == 1:
        return list(names)
    parts = [_NUMBER.split(n) for n in names]
    templates = {tuple(p[0::2]) for p in parts}
    if len(templates) != 1:
        return None
    numbers = [tuple(int(x) for x in p[1::2]) for p in parts]
    varying = [i for i in range(len(numbers[0])) if len({t[i] for t in numbers}) > 1]
    if len(varying) != 1 or len({t[varying[0]] for t in numbers}) != len(names):
        return None  # "fc01" and "fc1" would be one number twice
    return [n for _, n in sorted(zip((t[varying[0]] for t in numbers), names))]
