"""ONNX graphs of ReLU networks of any depth, read exactly, by the standard-library protobuf reader of
:mod:`exactrelu.io.onnx_wire` (no ``onnx`` package needed; nothing in the file is executed).

Accepted graphs: one chain from the one input to the one output of affine layers with one Relu between each
two, as ``torch.onnx.export`` writes for ``Sequential(Linear, ReLU, Linear, ...)`` and other exporters in the
MatMul form::

    x -> Gemm(W1, B1) -> Relu -> Gemm(W2, B2) -> ... -> y
    x -> MatMul(A1) -> Add(B1) -> Relu -> MatMul(A2) -> Add(B2) -> y        (any Add may be absent)

with Flatten (axis 1), Identity, and Sub or Add of a constant of zeros anywhere (no-ops on a batch of samples; a
Flatten at the input flattens each sample) and weights as initializers or Constant nodes (float16, bfloat16,
float32, float64 or integers; every
value taken exactly: a float is the dyadic rational it is). A Gemm ``Y = alpha A' B' + beta C`` is read with its
``alpha``, ``beta`` (exactly: the weight times alpha, the bias times beta), ``transB``, ``transA`` on the first
layer (the input taken as columns), and C a vector or one number broadcast. Any other operator is refused by
name, as are weights kept in external files and a tensor whose dims disagree with its stored data.

>>> import numpy as np, tempfile, os
>>> from onnx import helper, numpy_helper, TensorProto
>>> W1, B1 = np.array([[1.0, -2.0], [0.5, 0.0]], np.float32), np.array([0.25, -1.0], np.float32)
>>> W2 = np.ones((1, 2), np.float32)
>>> nodes = [helper.make_node("Gemm", ["x", "W1", "B1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
...          helper.make_node("Gemm", ["r", "W2"], ["y"], transB=1)]
>>> graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 1])],
...     [numpy_helper.from_array(a, n) for a, n in ((W1, "W1"), (B1, "B1"), (W2, "W2"))])
>>> path = os.path.join(tempfile.mkdtemp(), "mlp.onnx")
>>> with open(path, "wb") as fh:
...     _ = fh.write(helper.make_model(graph).SerializeToString())
>>> stack = onnx_stack(path)
>>> stack.description
'read .../mlp.onnx: W1 (2 x 2) + B1 -> W2 (1 x 2)'
>>> stack.layers[0].W.tolist(), stack.layers[0].b.tolist()
([[1.0, -2.0], [0.5, 0.0]], [0.25, -1.0])
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import exact_values
from ..network import RELU
from .files import read_bytes
from .layers import AffineLayer, LayerStack
from .onnx_wire import Graph, Tensor, parse_model, tensor_array

__all__ = ["onnx_stack"]

_NO_OPS = ("Identity", "Flatten")
_CHAIN = "Gemm, MatMul (+ Add), Relu, Flatten or Identity"


def _constants(graph: Graph, path) -> dict[str, np.ndarray]:
    """Initializers and Constant nodes by name, with exactly their values (floats as float64: float16, bfloat16
    and float32 widen exactly; integers as integers)."""
    if graph.sparse:
        raise InvalidInput(f"{path}: sparse initializers are not read; export the weights dense")
    tensors = list(graph.initializer)
    for node in graph.node:
        if node.op_type == "Constant":
            if set(node.attrs) != {"value"} or not isinstance(node.attrs["value"], Tensor):
                raise InvalidInput(f"{path}: a Constant node with attributes {sorted(node.attrs)} (only a tensor "
                                   "'value' is read)")
            node.attrs["value"].name = node.output[0] if node.output else ""
            tensors.append(node.attrs["value"])
    out = {}
    for t in tensors:
        if t.external:
            raise InvalidInput(f"{path}: tensor {t.name!r} is kept in an external file; save the model with its "
                               "weights inside (onnx.save(model, path, save_as_external_data=False))")
        out[t.name] = exact_values(tensor_array(t, path), name=t.name)  # integers stay integers
    return out


def _scaled(a: np.ndarray, factor: float) -> np.ndarray:
    """``factor * a`` exactly (an object array of Fractions unless factor is 1)."""
    if factor == 1.0:
        return a
    f = Fraction(factor)
    return np.array([f * Fraction(x) for x in a.reshape(-1).tolist()], dtype=object).reshape(a.shape)


def _weight(name, consts, path, node) -> np.ndarray:
    if name not in consts or consts[name].ndim != 2:
        raise InvalidInput(f"{path}: the weight {name!r} of {node.op_type} node {node.name!r} must be a constant "
                           f"2-D tensor (the data comes first: x -> {node.op_type}(x, W))")
    return consts[name]


def _bias(name, consts, path, out: int) -> np.ndarray:
    if name not in consts:
        raise InvalidInput(f"{path}: the bias {name!r} must be a constant tensor")
    a = consts[name]
    if a.size == 1:
        return np.repeat(a.reshape(1), out)  # one number, broadcast to every output
    if a.ndim > 2 or (a.ndim == 2 and a.shape[0] != 1) or a.size != out:
        raise InvalidInput(f"{path}: the bias {name!r} has shape {a.shape}; expected a vector of {out} entries")
    return a.reshape(-1)


def _gemm(node, consts, path, first: bool) -> tuple[AffineLayer, str]:
    """The layer of a Gemm node ``Y = alpha A' B' + beta C`` whose A is the data, and a note."""
    attrs = node.attrs
    unknown = set(attrs) - {"alpha", "beta", "transA", "transB"}
    if unknown:
        raise InvalidInput(f"{path}: Gemm node {node.name!r} has attributes {sorted(unknown)} (not read)")
    alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
    if attrs.get("transA", 0) and not first:
        raise InvalidInput(f"{path}: Gemm node {node.name!r} has transA = 1 after the first layer, which mixes "
                           "samples: not a network applied to each sample")
    W = _weight(node.input[1], consts, path, node)
    W = _scaled(W if attrs.get("transB", 0) else W.T, alpha)
    has_c = len(node.input) > 2 and node.input[2]
    b = _scaled(_bias(node.input[2], consts, path, W.shape[0]), beta) if has_c else None
    label = node.input[1] + (f" x {attrs['alpha']}" if alpha != 1.0 else "")
    note = "the input taken as columns (transA = 1)" if attrs.get("transA", 0) else ""
    return AffineLayer(node.input[1], W, b, label, (node.input[2] if has_c else "") + (
        f" x {attrs['beta']}" if has_c and beta != 1.0 else "")), note


def _matmul(nodes, i, consts, path) -> tuple[AffineLayer, int]:
    """The layer of a MatMul node (and of the Add after it, if any); the index after it."""
    node = nodes[i]
    W = _weight(node.input[1], consts, path, node).T
    if i + 1 < len(nodes) and nodes[i + 1].op_type == "Add" and node.output[0] in nodes[i + 1].input:
        add = nodes[i + 1]
        other = [n for n in add.input if n != node.output[0]]
        if len(other) != 1:
            raise InvalidInput(f"{path}: the Add node {add.name!r} does not add a bias to the MatMul's output")
        return AffineLayer(node.input[1], W, _bias(other[0], consts, path, W.shape[0]), node.input[1], other[0]), i + 2
    return AffineLayer(node.input[1], W, None, node.input[1]), i + 1


def _zero_constant(name: str, consts) -> bool:
    """True when ``name`` is a constant of zeros (``x - 0``: the input normalization of ACAS Xu exports)."""
    a = consts.get(name)
    return a is not None and not np.asarray(a).any()


def _chain(nodes, start: str, consts, path) -> tuple[list[AffineLayer], str, list[str]]:
    """Walk the chain from the graph input: (layers, the name of the last output, notes)."""
    layers: list[AffineLayer] = []
    current, i, relu, notes = start, 0, False, []
    while i < len(nodes):
        node = nodes[i]
        if node.input and node.input[0] != current and current in node.input:
            raise InvalidInput(f"{path}: {node.op_type} node {node.name!r} reads the data as its input "
                               f"{list(node.input).index(current) + 1}; read are x -> {node.op_type}(x, W), the data "
                               "first")
        if not node.input or node.input[0] != current:
            raise InvalidInput(f"{path}: the operators do not form one chain from the input to the output "
                               f"({node.op_type} node {node.name!r} does not read {current!r})")
        if node.op_type in ("Sub", "Add") and len(node.input) == 2 and _zero_constant(node.input[1], consts):
            notes.append(f"{node.op_type} of the zero constant {node.input[1]!r} read as a no-op")
            current, i = node.output[0], i + 1
            continue
        if node.op_type in _NO_OPS:
            axis = node.attrs.get("axis", 1)
            if node.op_type == "Flatten" and axis != 1:
                raise InvalidInput(f"{path}: Flatten node {node.name!r} with axis {axis} (only axis 1 is read)")
            current, i = node.output[0], i + 1
            continue
        if node.op_type == "Relu":
            if not layers or relu:
                raise InvalidInput(f"{path}: a Relu {'before any layer' if not layers else 'after a Relu'} "
                                   f"(node {node.name!r}): expected layer, Relu, layer, ...")
            current, i, relu = node.output[0], i + 1, True
            continue
        if node.op_type not in ("Gemm", "MatMul"):
            raise InvalidInput(f"{path}: the operator {node.op_type!r} (node {node.name!r}) is not read; a ReLU "
                               f"network is a chain of {_CHAIN}")
        if layers and not relu:
            raise InvalidInput(f"{path}: two affine layers without a Relu between them (node {node.name!r})")
        if node.op_type == "Gemm":
            layer, note = _gemm(node, consts, path, first=not layers)
            notes += [note] if note else []
            i += 1
        else:
            layer, i = _matmul(nodes, i, consts, path)
        layers.append(layer)
        current, relu = nodes[i - 1].output[0], False
    if relu:
        raise InvalidInput(f"{path}: the graph ends with a Relu; the network's last layer is affine")
    return layers, current, notes


def onnx_stack(path: str | os.PathLike) -> LayerStack:
    """The :class:`~exactrelu.io.layers.LayerStack` of an ONNX graph of a ReLU network (module doc), exactly."""
    path = Path(path)
    graph = parse_model(read_bytes(path, what="ONNX file"), str(path))
    consts = _constants(graph, path)
    nodes = [n for n in graph.node if n.op_type != "Constant"]
    inputs = [name for name in graph.input if name not in consts]
    if len(inputs) != 1 or len(graph.output) != 1 or not nodes:
        raise InvalidInput(f"{path}: expected one input and one output, found {len(inputs)} and {len(graph.output)}")
    layers, last, notes = _chain(nodes, inputs[0], consts, path)
    if last != graph.output[0]:
        raise InvalidInput(f"{path}: the operators do not form one chain from the input to the output")
    if not layers:
        raise InvalidInput(f"{path}: no Gemm or MatMul layer in the graph")
    return LayerStack(tuple(layers), str(path), RELU, "; ".join(notes))
