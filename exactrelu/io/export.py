"""Certified networks out again: PyTorch state dicts, ``.safetensors`` and ONNX, with every rounding stated.

A network is written as its ordered list of affine layers ``(W_i, b_i)``, the activation (ReLU) between them and
none after the last (:func:`affine_layers`): the two-layer network (U, V, b, c) is ``[(V, b), (U, c)]``, and a
deeper network (one with a ``layers`` attribute of ``(W, b)`` pairs) goes through the same writers, so no format
needs code per depth. Layer i is ``nn.Sequential``'s module ``2 i``: the keys are ``0.weight, 0.bias, 2.weight,
2.bias, ...``, what ``nn.Sequential(nn.Linear(d, k), nn.ReLU(), nn.Linear(k, m)).state_dict()`` holds, so
``model.load_state_dict(torch.load(FILE))`` (or ``safetensors.torch.load_file(FILE)``) loads it. ONNX is the chain
``Gemm, Relu, Gemm, ...`` (``transB = 1``: W as PyTorch stores it).

Every exact rational is rounded to the nearest float of the dtype (ties to even; computed exactly, never through
another rounding), and the export says how: exact when the dtype holds every value, else the largest absolute
rounding error, an exact rational (:class:`Rounding`). A value beyond the dtype's range is refused.

Writers: ``.safetensors`` by hand (8 bytes of header length, the JSON header, the little-endian data: nothing to
install); ``.onnx`` through the ``onnx`` package (``pip install exactrelu[onnx]``); ``.pt`` through ``torch``
(refused in one line without it: ``.safetensors`` is the same state dict, ``safetensors.torch.load_file``).

>>> import os, tempfile
>>> from exactrelu.network import Network
>>> net = Network.from_rows([[2, "-1/3"]], [[1, 0], [0, 1]], b=["1/2", 0], c=[3])
>>> path = os.path.join(tempfile.mkdtemp(), "net.safetensors")
>>> rep = export_network(net, path, dtype="float32")
>>> rep.exact, rep.rounded, rep.worst_where
(False, 1, 'layer 1 weight [0][1]')
>>> from exactrelu.io.weights import read_weights
>>> read_weights(path).c_fractions(), read_weights(path).U.to_fractions()[0][1] == rep.values[1][0][0][1]
([Fraction(3, 1)], True)
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import InvalidInput
from ..network import RELU
from .files import atomic_output, write_bytes_atomic

__all__ = ["affine_layers", "round_to", "Rounding", "export_network", "FORMATS", "DTYPES"]

#: the file formats, by suffix
FORMATS = {".pt": "PyTorch state dict", ".pth": "PyTorch state dict", ".safetensors": "safetensors state dict",
           ".onnx": "ONNX graph"}
#: dtype -> (mantissa bits with the hidden one, smallest normal exponent, largest exponent, NumPy dtype, safetensors)
DTYPES = {"float32": (24, -126, 127, np.float32, "F32"), "float64": (53, -1022, 1023, np.float64, "F64")}


def affine_layers(net) -> list[tuple[list[list[Fraction]], list[Fraction]]]:
    """The network's affine layers in order, ``[(W, b), ...]`` of Fractions (W: out x in); the activation sits between.

    A network with a ``layers`` attribute (pairs ``(W, b)`` or objects with ``W`` and ``b``; W a QMatrix or rows) is
    read as it stands; the two-layer :class:`~exactrelu.network.Network` is ``[(V, b), (U, c)]``.
    """
    layers = getattr(net, "layers", None)
    if layers is not None:
        return [_layer(*(item if isinstance(item, tuple) else (item.W, item.b))) for item in layers]
    return [(net.V.to_fractions(), net.b_fractions()), (net.U.to_fractions(), net.c_fractions())]


def _layer(W, b) -> tuple[list[list[Fraction]], list[Fraction]]:
    rows = W.to_fractions() if hasattr(W, "to_fractions") else [[Fraction(x) for x in r] for r in W]
    if b is None:
        return rows, [Fraction(0)] * len(rows)
    col = b.to_fractions() if hasattr(b, "to_fractions") else b
    return rows, [Fraction(x[0] if isinstance(x, list) else x) for x in col]


def round_to(x: Fraction, dtype: str = "float32") -> float:
    """The float of ``dtype`` nearest to the rational x (ties to an even significand), exactly; InvalidInput past
    the dtype's range.

    >>> round_to(Fraction(1, 3)) == float(np.float32(1 / 3)), round_to(Fraction(16777217)), round_to(Fraction(-1, 2))
    (True, 16777216.0, -0.5)
    """
    bits, emin, emax, _, _ = DTYPES[dtype]
    if x == 0:
        return 0.0
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2^(e-1) < a < 2^(e+1)
    if a >= Fraction(2) ** e:
        e += 1
    e = max(e - 1, emin)  # a in [2^e, 2^(e+1)) for normals; the subnormal grid below 2^emin
    q = Fraction(2) ** (e - bits + 1)  # the spacing of the floats around a
    t = a / q
    n, r = divmod(t.numerator, t.denominator)
    if 2 * r > t.denominator or (2 * r == t.denominator and n % 2):
        n += 1
    v = n * q
    if v >= Fraction(2) ** (emax + 1):
        raise InvalidInput(f"{float(x):.4g} does not fit {dtype} (largest about 2^{emax + 1})")
    return float(v) if x > 0 else -float(v)


@dataclass
class Rounding:
    """How a network was rounded to a dtype: ``exact`` when every value is held exactly, else ``rounded`` values,
    the largest absolute error ``worst`` (an exact rational) and where (``worst_where``); ``values``: the exact
    rationals of every written float, layer by layer, ``[(W, b), ...]``."""

    dtype: str
    count: int
    rounded: int
    worst: Fraction
    worst_where: str
    values: list

    @property
    def exact(self) -> bool:
        return self.rounded == 0

    def text(self) -> str:
        """One line: 'exact: all 17 values are float32 numbers ...' or 'rounded to float32: 3 of 17 values, ...'."""
        if self.exact:
            return f"exact: all {self.count} values are {self.dtype} numbers (nothing rounded)"
        from ..certificates.trusted.common import approx  # the one bounded display of a rational

        return (f"rounded to {self.dtype}: {self.rounded} of {self.count} values, largest rounding error "
                f"{_rational(self.worst)} (~{approx(self.worst)}) at {self.worst_where}")


def _rational(x: Fraction) -> str:
    return str(x) if max(x.numerator.bit_length(), x.denominator.bit_length()) < 2000 else "(a long rational)"


def rounded_layers(layers, dtype: str) -> tuple[list[tuple[np.ndarray, np.ndarray]], Rounding]:
    """Each layer's (W, b) as arrays of ``dtype`` (nearest floats), and the :class:`Rounding` that made them."""
    if dtype not in DTYPES:
        raise InvalidInput(f"dtype must be float32 or float64, got {dtype!r}")
    npd = DTYPES[dtype][3]
    out, values, count, rounded, worst, where = [], [], 0, 0, Fraction(0), ""
    for i, (W, b) in enumerate(layers):
        arrays, exact = [], []
        for name, rows in (("weight", W), ("bias", [b])):
            floats = [[round_to(x, dtype) for x in row] for row in rows]
            for r, (row, frow) in enumerate(zip(rows, floats)):
                for t, (x, f) in enumerate(zip(row, frow)):
                    count += 1
                    err = abs(Fraction(f) - x)
                    if err:
                        rounded += 1
                        if err > worst:
                            worst = err
                            where = f"layer {i} weight [{r}][{t}]" if name == "weight" else f"layer {i} bias [{t}]"
            arrays.append(np.array(floats, dtype=npd).reshape(len(rows), -1) if rows else np.zeros((0, 0), npd))
            exact.append([[Fraction(f) for f in row] for row in floats])
        out.append((arrays[0].reshape(len(W), -1), arrays[1].reshape(-1)))
        values.append((exact[0], exact[1][0]))
    return out, Rounding(dtype, count, rounded, worst, where, values)


def export_network(net, path: str | os.PathLike, *, dtype: str = "float32") -> Rounding:
    """Write ``net`` (any network the project reads; ReLU) to ``path``: ``.pt``/``.pth``, ``.safetensors`` or
    ``.onnx`` (by the suffix), every value rounded to ``dtype``; returns the :class:`Rounding` (nothing claimed)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InvalidInput(f"cannot tell the format of {path.name}: use .pt (PyTorch), .safetensors or .onnx")
    if net.activation is not None and net.activation != RELU:
        raise InvalidInput(f"export writes Linear -> ReLU -> Linear chains; the network's activation is "
                           f"{net.activation}, which PyTorch and ONNX have no layer for")
    if suffix in (".pt", ".pth"):
        try:
            import torch
        except ImportError:
            raise InvalidInput("writing a .pt file needs PyTorch (pip install torch); write FILE.safetensors instead, "
                               "which PyTorch loads with safetensors.torch.load_file") from None
    arrays, rounding = rounded_layers(affine_layers(net), dtype)
    state = {}
    for i, (W, b) in enumerate(arrays):
        state[f"{2 * i}.weight"], state[f"{2 * i}.bias"] = W, b
    if suffix == ".safetensors":
        write_bytes_atomic(path, safetensors_bytes(state, DTYPES[dtype][4]), what="safetensors file")
    elif suffix == ".onnx":
        write_bytes_atomic(path, onnx_bytes(arrays), what="ONNX file")
    else:
        with atomic_output(path, binary=True, what="PyTorch state dict") as fh:
            torch.save({key: torch.from_numpy(np.ascontiguousarray(a)) for key, a in state.items()}, fh)
    return rounding


def safetensors_bytes(state: dict[str, np.ndarray], code: str) -> bytes:
    """A ``.safetensors`` file of the arrays (all of the safetensors dtype ``code``), in order, little-endian.

    >>> raw = safetensors_bytes({"w": np.array([[1.5]], np.float32)}, "F32")
    >>> from exactrelu.io.safetensors_file import DTYPES
    >>> struct.unpack("<Q", raw[:8])[0] % 8, raw[-4:] == np.float32(1.5).tobytes()
    (0, True)
    """
    header, blobs, offset = {}, [], 0
    for name, a in state.items():
        data = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": code, "shape": list(a.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt", "written_by": "exactrelu export"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % 8)  # the data starts 8-aligned, as safetensors writes it
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def onnx_bytes(arrays: list[tuple[np.ndarray, np.ndarray]]) -> bytes:
    """The ONNX model ``x -> Gemm -> Relu -> ... -> Gemm -> y`` of the layers (``transB = 1``), opset 13."""
    try:
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        raise InvalidInput("writing an ONNX file needs the onnx package (pip install 'exactrelu[onnx]')") from None
    elem = TensorProto.FLOAT if arrays[0][0].dtype == np.float32 else TensorProto.DOUBLE
    nodes, inits, last = [], [], "x"
    for i, (W, b) in enumerate(arrays):
        inits += [numpy_helper.from_array(W, f"W{i}"), numpy_helper.from_array(b, f"B{i}")]
        out = "y" if i == len(arrays) - 1 else f"h{i}"
        nodes.append(helper.make_node("Gemm", [last, f"W{i}", f"B{i}"], [out], transB=1, name=f"linear{i}"))
        if out != "y":
            nodes.append(helper.make_node("Relu", [out], [f"r{i}"], name=f"relu{i}"))
            last = f"r{i}"
    x = helper.make_tensor_value_info("x", elem, [None, arrays[0][0].shape[1]])
    y = helper.make_tensor_value_info("y", elem, [None, arrays[-1][0].shape[0]])
    graph = helper.make_graph(nodes, "exactrelu", [x], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="exactrelu")
    model.ir_version = 8
    return model.SerializeToString()
