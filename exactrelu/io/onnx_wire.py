"""The parts of an ONNX file a ReLU network needs, read from the protobuf wire format with the standard library.

An ONNX file is a serialized ``ModelProto`` (onnx/onnx.proto). This reader decodes exactly the fields
:mod:`exactrelu.io.onnx_weights` uses (the graph's nodes, initializers, inputs and outputs; a node's inputs,
outputs, name, operator and attributes; a tensor's name, dims, data type and data) and skips every other field by
its wire type, so that it needs no package (importing ``onnx`` takes seconds) and executes nothing. Every length is
checked against the bytes that hold it, and a tensor's dims against the data it stores, before any array is made:
a file that lies about what it holds is refused in one line, at the cost of reading its bytes once.

>>> import struct
>>> t = _field(1, 0, _varint(2)) + _field(1, 0, _varint(3)) + _field(2, 0, _varint(11)) + \\
...     _field(8, 2, b"W") + _field(9, 2, struct.pack("<6d", *range(6)))
>>> tensor_array(parse_tensor(t, "m.onnx"), "m.onnx").tolist()
[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidInput

__all__ = ["Node", "Tensor", "Graph", "parse_model", "parse_tensor", "tensor_array", "DTYPES"]

#: ONNX data types read, by number: (name, NumPy dtype of the raw little-endian bytes, typed field, its kind)
DTYPES = {1: ("float32", "<f4", 4, "f32"), 2: ("uint8", "u1", 5, "varint"), 3: ("int8", "i1", 5, "varint"),
          4: ("uint16", "<u2", 5, "varint"), 5: ("int16", "<i2", 5, "varint"), 6: ("int32", "<i4", 5, "varint"),
          7: ("int64", "<i8", 7, "varint"), 10: ("float16", "<f2", 5, "varint"), 11: ("float64", "<f8", 10, "f64"),
          12: ("uint32", "<u4", 11, "varint"), 13: ("uint64", "<u8", 11, "varint"),
          16: ("bfloat16", "<u2", 5, "varint")}


@dataclass
class Tensor:
    """A TensorProto: name, dims, data type, and its data as stored (raw bytes, or the values of a typed field)."""

    name: str = ""
    dims: list = field(default_factory=list)
    data_type: int = 0
    raw: bytes | None = None
    values: list = field(default_factory=list)
    external: bool = False


@dataclass
class Node:
    """A NodeProto: operator, name, inputs, outputs and attributes (numbers, bytes or :class:`Tensor`)."""

    op_type: str = ""
    name: str = ""
    input: list = field(default_factory=list)
    output: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)


@dataclass
class Graph:
    """A GraphProto: nodes, initializers, input and output names; ``sparse``: whether it has sparse initializers."""

    node: list = field(default_factory=list)
    initializer: list = field(default_factory=list)
    input: list = field(default_factory=list)
    output: list = field(default_factory=list)
    sparse: bool = False


def _varint(n: int) -> bytes:
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(number: int, wire: int, payload: bytes) -> bytes:
    """One field's bytes (for the doctests): key, then a length for wire type 2, then the payload."""
    return _varint(number << 3 | wire) + (_varint(len(payload)) if wire == 2 else b"") + payload


class _Reader:
    def __init__(self, data: bytes, where: str):
        self.data, self.pos, self.where = memoryview(data), 0, where

    def fail(self, what: str):
        raise InvalidInput(f"{self.where}: not an ONNX model ({what} at byte {self.pos})")

    def varint(self) -> int:
        shift = result = 0
        while True:
            if self.pos >= len(self.data) or shift > 63:
                self.fail("a truncated or overlong number")
            b = self.data[self.pos]
            self.pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result
            shift += 7

    def fields(self):
        """(field number, wire type, value): an int (0), 8 or 4 bytes (1, 5), or a memoryview (2)."""
        while self.pos < len(self.data):
            key = self.varint()
            number, wire = key >> 3, key & 7
            if wire == 0:
                yield number, wire, self.varint()
                continue
            size = {1: 8, 5: 4}.get(wire)
            if size is None and wire == 2:
                size = self.varint()
            if size is None or self.pos + size > len(self.data):
                self.fail(f"field {number} of wire type {wire} does not fit the file")
            value = self.data[self.pos:self.pos + size]
            self.pos += size
            yield number, wire, value


def _signed(n: int) -> int:
    return n - (1 << 64) if n >= 1 << 63 else n


def _text(value, r: _Reader) -> str:
    try:
        return bytes(value).decode("utf-8")
    except (UnicodeDecodeError, TypeError):
        r.fail("a name that is not UTF-8 text")


def _packed(number, wire, value, kind: str, where: str) -> list:
    """The values of a repeated numeric field, packed (wire type 2) or one at a time."""
    if kind == "varint":
        if wire == 0:
            return [value]
        sub, out = _Reader(bytes(value), where), []
        while sub.pos < len(sub.data):
            out.append(sub.varint())
        return out
    size, fmt = (4, "<f") if kind == "f32" else (8, "<d")
    raw = bytes(value)
    if len(raw) % size:
        raise InvalidInput(f"{where}: not an ONNX model (field {number}: {len(raw)} bytes of {size}-byte numbers)")
    return [x for (x,) in struct.iter_unpack(fmt, raw)]


def parse_tensor(data, where: str) -> Tensor:
    """A TensorProto's fields (module doc); its data is checked by :func:`tensor_array`."""
    t, r = Tensor(), _Reader(bytes(data), where)
    typed = {4: "f32", 5: "varint", 7: "varint", 10: "f64", 11: "varint"}
    for number, wire, value in r.fields():
        if number == 1:
            t.dims += [_signed(v) for v in _packed(number, wire, value, "varint", where)]
        elif number == 2 and wire == 0:
            t.data_type = value
        elif number == 8 and wire == 2:
            t.name = _text(value, r)
        elif number == 9 and wire == 2:
            t.raw = bytes(value)
        elif number in typed:
            t.values += _packed(number, wire, value, typed[number], where)
        elif number == 13 and wire == 0:
            t.external = t.external or value == 1
        elif number == 14:
            t.external = True
    return t


def tensor_array(t: Tensor, where: str) -> np.ndarray:
    """The tensor's values as an array of its dims; refused when the dims disagree with the data it stores."""
    name = t.name[:60]
    if t.data_type not in DTYPES:
        raise InvalidInput(f"{where}: tensor {name!r} has data type {t.data_type}, not one of the number types read "
                           "(float16/32/64, bfloat16, integers)")
    label, dtype, _, _ = DTYPES[t.data_type]
    if any(d < 0 for d in t.dims):
        raise InvalidInput(f"{where}: tensor {name!r} has negative dims {t.dims[:6]}")
    count, size = math.prod(t.dims), np.dtype(dtype).itemsize
    stored = len(t.raw) if t.raw is not None else len(t.values) * size
    if stored != count * size:
        raise InvalidInput(f"{where}: tensor {name!r} has dims {t.dims[:6]} ({count} entries of {label}) but stores "
                           f"{stored} bytes of data; the file is damaged or was not written by an exporter")
    try:
        if t.raw is not None:
            a = np.frombuffer(t.raw, dtype=dtype)
        elif label in ("float16", "bfloat16"):  # int32_data holds their 16 bits
            a = np.array([v & 0xFFFF for v in t.values], dtype="<u2").view(dtype)
        elif label.startswith("int"):  # sign-extended 64-bit varints
            a = np.array([_signed(v) for v in t.values], dtype=dtype)
        else:
            a = np.array(t.values, dtype=dtype)
    except OverflowError:
        raise InvalidInput(f"{where}: tensor {name!r} stores a value out of the range of {label}") from None
    if label == "bfloat16":  # the upper 16 bits of a float32: shift them into place, exactly
        a = (a.astype("<u4") << 16).view("<f4")
    return a.reshape(t.dims)


def _node(data, where: str) -> Node:
    n, r = Node(), _Reader(bytes(data), where)
    for number, wire, value in r.fields():
        if wire != 2:
            continue
        if number in (1, 2):
            (n.input if number == 1 else n.output).append(_text(value, r))
        elif number == 3:
            n.name = _text(value, r)
        elif number == 4:
            n.op_type = _text(value, r)
        elif number == 5:
            name, val = _attribute(value, where)
            n.attrs[name] = val
    return n


def _attribute(data, where: str):
    """(name, value) of an AttributeProto: a float (f), an int (i), bytes (s) or a Tensor (t); lists are skipped."""
    r, name, val = _Reader(bytes(data), where), "", None
    for number, wire, value in r.fields():
        if number == 1 and wire == 2:
            name = _text(value, r)
        elif number == 2 and wire == 5:
            val = struct.unpack("<f", bytes(value))[0]
        elif number == 3 and wire == 0:
            val = _signed(value)
        elif number == 4 and wire == 2:
            val = bytes(value)
        elif number == 5 and wire == 2:
            val = parse_tensor(value, where)
    return name, val


def _value_name(data, where: str) -> str:
    r = _Reader(bytes(data), where)
    return next((_text(v, r) for number, wire, v in r.fields() if number == 1 and wire == 2), "")


def parse_model(data: bytes, where: str) -> Graph:
    """The graph of a serialized ModelProto (module doc)."""
    r, graph = _Reader(data, where), None
    for number, wire, value in r.fields():
        if number == 7 and wire == 2:
            graph = value
    if graph is None:
        raise InvalidInput(f"{where}: not an ONNX model (no graph)")
    g, r = Graph(), _Reader(bytes(graph), where)
    for number, wire, value in r.fields():
        if wire != 2:
            continue
        if number == 1:
            g.node.append(_node(value, where))
        elif number == 5:
            g.initializer.append(parse_tensor(value, where))
        elif number in (11, 12):
            (g.input if number == 11 else g.output).append(_value_name(value, where))
        elif number == 15:
            g.sparse = True
    return g
