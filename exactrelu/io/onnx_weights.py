"""ONNX graphs of one hidden ReLU layer, read exactly (extra ``onnx``: ``pip install exactrelu[onnx]``).

Accepted graphs (what ``torch.onnx.export`` writes for ``Sequential(Linear(d, k), ReLU(), Linear(k, m))``, and
the MatMul form other exporters write)::

    x -> Gemm(W1, B1) -> Relu -> Gemm(W2, B2) -> y
    x -> MatMul(W1) -> Add(B1) -> Relu -> MatMul(W2) -> Add(B2) -> y      (either Add may be absent)

one graph input, one output, weights as initializers or Constant nodes (float16, float32, float64 or integer;
every value taken exactly: a float is the dyadic rational it is), Gemm with ``alpha = beta = 1`` and
``transA = 0`` (``transB`` either way). Anything else, another operator, a second hidden layer, weights kept
in external files, is refused with one line naming what was found. The file is parsed by the ``onnx`` package
(protobuf); nothing in it is executed.

>>> import numpy as np, tempfile, os
>>> from onnx import helper, numpy_helper, TensorProto
>>> W1, B1, W2 = np.array([[1.0, -2.0], [0.5, 0.0]], np.float32), np.array([0.25, -1.0], np.float32), np.ones((1, 2), np.float32)
>>> nodes = [helper.make_node("Gemm", ["x", "W1", "B1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
...          helper.make_node("Gemm", ["r", "W2"], ["y"], transB=1)]
>>> graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 1])],
...     [numpy_helper.from_array(a, n) for a, n in ((W1, "W1"), (B1, "B1"), (W2, "W2"))])
>>> path = os.path.join(tempfile.mkdtemp(), "mlp.onnx")
>>> with open(path, "wb") as fh:
...     _ = fh.write(helper.make_model(graph).SerializeToString())
>>> net = read_onnx(path)
>>> net.V.to_fractions(), net.b_fractions()
([[Fraction(1, 1), Fraction(-2, 1)], [Fraction(1, 2), Fraction(0, 1)]], [Fraction(1, 4), Fraction(-1, 1)])
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import exact_values
from ..exact.matrix import QMatrix
from ..network import RELU, Activation, Network

__all__ = ["read_onnx", "onnx_arrays"]


def _onnx():
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        raise InvalidInput("reading .onnx files needs the onnx package: pip install 'exactrelu[onnx]'") from None
    return onnx, numpy_helper


def _constants(graph, onnx, numpy_helper, path) -> dict[str, np.ndarray]:
    """Initializers and Constant nodes by name, with exactly their values (floats as float64: float16, bfloat16
    and float32 widen exactly; integers as integers)."""
    tensors = list(graph.initializer)
    for node in graph.node:
        if node.op_type == "Constant":
            attrs = {a.name: a for a in node.attribute}
            if set(attrs) != {"value"}:
                raise InvalidInput(f"{path}: a Constant node with attributes {sorted(attrs)} (only 'value' is read)")
            t = onnx.helper.get_attribute_value(attrs["value"])
            t.name = node.output[0]
            tensors.append(t)
    out = {}
    for t in tensors:
        if onnx.external_data_helper.uses_external_data(t):
            raise InvalidInput(f"{path}: tensor {t.name!r} is kept in an external file; save the model with its "
                               "weights inside (onnx.save(model, path, save_as_external_data=False))")
        a = numpy_helper.to_array(t)
        if a.dtype.kind not in "fiu" and a.dtype.name != "bfloat16":
            raise InvalidInput(f"{path}: tensor {t.name!r} has dtype {a.dtype}; expected floats or integers")
        out[t.name] = exact_values(a, name=t.name)  # integers stay integers: never rounded through float64
    return out


def _gemm(node, consts, path):
    """(weight as k x d, bias or None) of a Gemm node."""
    onnx, _ = _onnx()
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    get = attrs.get
    if get("alpha", 1.0) != 1.0 or get("beta", 1.0) != 1.0 or get("transA", 0) != 0:
        raise InvalidInput(f"{path}: Gemm node {node.name!r} with alpha, beta != 1 or transA = 1 (not read)")
    W = _weight(node.input[1], consts, path)
    W = W if get("transB", 0) else W.T
    return W, (_bias(node.input[2], consts, path) if len(node.input) > 2 and node.input[2] else None)


def _weight(name, consts, path) -> np.ndarray:
    if name not in consts or consts[name].ndim != 2:
        raise InvalidInput(f"{path}: the weight {name!r} must be a constant 2-D tensor")
    return consts[name]


def _bias(name, consts, path) -> np.ndarray:
    if name not in consts:
        raise InvalidInput(f"{path}: the bias {name!r} must be a constant tensor")
    a = consts[name]
    if a.ndim > 2 or (a.ndim == 2 and a.shape[0] != 1):
        raise InvalidInput(f"{path}: the bias {name!r} has shape {a.shape}; expected a vector")
    return a.reshape(-1)


def _layer(nodes: list, i: int, consts, path):
    """One affine layer at nodes[i:]: (weight k x d, bias or None, index after it)."""
    node = nodes[i]
    if node.op_type == "Gemm":
        W, b = _gemm(node, consts, path)
        return W, b, i + 1
    if node.op_type != "MatMul":
        raise InvalidInput(f"{path}: expected Gemm or MatMul, found the operator {node.op_type!r} ({node.name!r}); "
                           "only x -> Gemm|MatMul(+Add) -> Relu -> Gemm|MatMul(+Add) is read")
    W = _weight(node.input[1], consts, path).T
    if i + 1 < len(nodes) and nodes[i + 1].op_type == "Add":
        add = nodes[i + 1]
        other = [n for n in add.input if n != node.output[0]]
        if len(other) != 1:
            raise InvalidInput(f"{path}: the Add node {add.name!r} does not add a bias to the MatMul's output")
        return W, _bias(other[0], consts, path), i + 2
    return W, None, i + 1


def onnx_arrays(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(U, V, b, c) as float64 arrays (exact copies) from an ONNX graph of one hidden ReLU layer."""
    onnx, numpy_helper = _onnx()
    path = Path(path)
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as exc:  # protobuf's DecodeError and friends: not an ONNX file
        raise InvalidInput(f"{path}: not an ONNX model ({type(exc).__name__}: {str(exc)[:80]})") from None
    graph = model.graph
    consts = _constants(graph, onnx, numpy_helper, path)
    nodes = [n for n in graph.node if n.op_type != "Constant"]
    inputs = [v.name for v in graph.input if v.name not in consts]
    if len(inputs) != 1 or len(graph.output) != 1 or not nodes:
        raise InvalidInput(f"{path}: expected one input and one output, found {len(inputs)} and {len(graph.output)}")
    V, b, i = _layer(nodes, 0, consts, path)
    if i >= len(nodes) or nodes[i].op_type != "Relu":
        found = nodes[i].op_type if i < len(nodes) else "nothing"
        raise InvalidInput(f"{path}: expected Relu after the first layer, found {found!r} (only ReLU networks are read)")
    U, c, j = _layer(nodes, i + 1, consts, path)
    if j != len(nodes):
        raise InvalidInput(f"{path}: {len(nodes) - j} more operators after the second layer ({nodes[j].op_type!r}, ...): "
                           "only one hidden layer is read")
    chain = [inputs[0]] + [n.output[0] for n in nodes]  # each operator reads the one before it
    if chain[-1] != graph.output[0].name or any(chain[t] not in nodes[t].input for t in range(len(nodes))):
        raise InvalidInput(f"{path}: the operators do not form one chain from the input to the output")
    if V.shape[0] != U.shape[1] or (b is not None and b.size != V.shape[0]) or (c is not None and c.size != U.shape[0]):
        raise InvalidInput(f"{path}: layer shapes do not fit: V {V.shape}, U {U.shape}")
    return U, V, b, c


def read_onnx(path: str | os.PathLike, activation: Activation | None = None) -> Network:
    """The network of an ONNX graph ``x -> Linear -> Relu -> Linear`` (module docstring), exactly."""
    if activation is not None and activation != RELU:
        raise InvalidInput(f"{path}: an ONNX graph with Relu is a ReLU network, not {activation}")
    U, V, b, c = onnx_arrays(path)
    col = lambda a, name: None if a is None or not a.any() else QMatrix.from_numpy(a.reshape(-1, 1), name=name)  # noqa: E731
    return Network(QMatrix.from_numpy(U, name="U"), QMatrix.from_numpy(V, name="V"), RELU, col(b, "b"), col(c, "c"))
