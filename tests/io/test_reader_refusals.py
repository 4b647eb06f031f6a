"""Every refusal of the weights readers (issue 34): one line that says what the file is and what to do."""

from __future__ import annotations

import pickle
import struct

import numpy as np
import pytest

from exactrelu import limits
from exactrelu.errors import InvalidInput
from exactrelu.io.binary_weights import read_weights_stack
from exactrelu.io.files import atomic_output
from exactrelu.io.layers import AffineLayer, LayerStack
from exactrelu.io.onnx_wire import Tensor, _field, _varint, parse_model, parse_tensor, tensor_array
from exactrelu.io.state_dict import parse_layer_names
from exactrelu.io.weights import as_network, read_weights


@pytest.mark.parametrize("state, match", [
    ({}, "no tensors"),
    ({1: np.eye(2)}, "the key 1 is not a name"),
    ({"0.weight": np.eye(2), "0.bias": np.ones((2, 1)), "2.weight": np.ones((1, 2))}, "0.bias has shape \\(2, 1\\); "
                                                                                      "a Linear layer's bias is a vector"),
    ({"0.weight": np.zeros((0, 2)), "2.weight": np.ones((1, 0))}, "a layer's weight is a non-empty out x in matrix"),
])
def test_state_dicts_that_are_no_network(state, match):
    with pytest.raises(InvalidInput, match=match):
        as_network(state)


def test_an_empty_stack_and_bad_layer_names():
    with pytest.raises(InvalidInput, match="no affine layer found"):
        LayerStack((), "m")
    assert LayerStack((AffineLayer("W0", np.eye(2)),), "m").widths == (2, 2)
    for bad in ("a,a", ",b", ""):
        with pytest.raises(InvalidInput, match="--layers takes distinct layer names"):
            parse_layer_names(bad)


def test_npz_layouts_refused_by_name(tmp_path):
    path = tmp_path / "w.npz"
    for arrays, match in [({"W0": np.ones(3), "W1": np.ones((1, 3))}, "W0 must be a matrix"),
                          ({"U": np.ones(3), "V": np.eye(3)}, "U has shape \\(3,\\); expected a matrix"),
                          ({"U": np.ones((1, 2)), "V": np.eye(2), "c": np.ones((1, 1))}, "c must be a vector")]:
        np.savez(path, **arrays)
        with pytest.raises(InvalidInput, match=match):
            read_weights(path)
    np.savez(path, W0=np.eye(2), W1=np.ones((1, 2)))
    with pytest.raises(InvalidInput, match="--layers W1,W0 differs from the order the names give"):
        read_weights(path, layers=["W1", "W0"])
    assert read_weights(path, layers=["W0", "W1"]).k == 2  # the order the names give, said again: accepted


def test_a_broken_zip_and_a_broken_pickle_say_what_they_are(tmp_path):
    (tmp_path / "z.npz").write_bytes(b"PK\x03\x04" + bytes(30))
    with pytest.raises(InvalidInput, match="a broken zip archive"):
        read_weights(tmp_path / "z.npz")
    (tmp_path / "m.pt").write_bytes(b"\x80\x02whatever")
    with pytest.raises(InvalidInput, match="not a PyTorch file \\(a broken pickle"):
        read_weights(tmp_path / "m.pt")


def test_a_pytorch_file_holding_something_else_than_a_state_dict(tmp_path):
    torch = pytest.importorskip("torch")
    torch.save([torch.ones(2)], tmp_path / "list.pt")
    with pytest.raises(InvalidInput, match="holds a list, not a state dict"):
        read_weights(tmp_path / "list.pt")


def test_an_onnx_graph_takes_no_layer_names(tmp_path):
    (tmp_path / "m.onnx").write_bytes(b"")
    with pytest.raises(InvalidInput, match="an ONNX graph orders its layers itself"):
        read_weights_stack(tmp_path / "m.onnx", ["a", "b"])


@pytest.mark.parametrize("tensor, match", [
    (Tensor("t", [1], 8, b"x"), "data type 8, not one of the number types read"),
    (Tensor("t", [-1], 1, b""), "negative dims"),
    (Tensor("t", [1], 3, None, [300]), "stores a value out of the range of int8"),
])
def test_tensors_the_wire_reader_refuses(tensor, match):
    with pytest.raises(InvalidInput, match=match):
        tensor_array(tensor, "m.onnx")


def test_the_wire_reader_refuses_what_does_not_fit():
    with pytest.raises(InvalidInput, match="field 4: 3 bytes of 4-byte numbers"):
        parse_tensor(_field(4, 2, b"abc"), "m")
    with pytest.raises(InvalidInput, match="a name that is not UTF-8 text"):
        parse_tensor(_field(8, 2, b"\xff\xfe"), "m")
    with pytest.raises(InvalidInput, match="a truncated or overlong number"):
        parse_tensor(_varint(1 << 3) + b"\xff" * 11, "m")
    assert parse_tensor(_field(13, 0, _varint(1)), "m").external
    graph = _field(15, 2, b"")  # a sparse initializer
    assert parse_model(_field(7, 2, graph), "m").sparse


def test_onnx_graphs_refused_by_what_they_hold(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    def save(nodes, inits, sparse=False):
        graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
                                  [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, [None, 1])],
                                  [numpy_helper.from_array(np.asarray(a, np.float32), n) for n, a in inits.items()])
        if sparse:
            graph.sparse_initializer.add()
        path = tmp_path / "m.onnx"
        path.write_bytes(helper.make_model(graph).SerializeToString())
        return path

    W, B = np.ones((1, 2)), np.ones(1)
    cases = [([helper.make_node("Identity", ["x"], ["y"])], {}, False, "no Gemm or MatMul layer"),
             ([helper.make_node("Gemm", ["x", "W"], ["y"], transB=1, foo=1)], {"W": W}, False,
              "Gemm node '' has attributes \\['foo'\\]"),
             ([helper.make_node("Gemm", ["x", "W"], ["y"], transB=1)], {"W": W}, True, "sparse initializers"),
             ([helper.make_node("Constant", [], ["W"], value_float=1.0),
               helper.make_node("Gemm", ["x", "W"], ["y"], transB=1)], {}, False, "a Constant node with attributes"),
             ([helper.make_node("MatMul", ["x", "A"], ["h"]), helper.make_node("Add", ["h", "h"], ["y"])],
              {"A": W.T}, False, "does not add a bias"),
             ([helper.make_node("Gemm", ["x", "W", "B"], ["y"], transB=1)], {"W": W}, False,
              "the bias 'B' must be a constant tensor")]
    for nodes, inits, sparse, match in cases:
        with pytest.raises(InvalidInput, match=match):
            read_weights(save(nodes, inits, sparse))
    assert onnx


def test_atomic_output_refuses_a_directory(tmp_path):
    with pytest.raises(InvalidInput, match="it is a directory, not a file"):
        with atomic_output(tmp_path):
            pass


def test_entries_is_no_limit_any_more():
    with pytest.raises(InvalidInput, match="'entries' is no longer a limit: honest sizes are limited by the memory"):
        limits.set_limit("entries", 10**8)
    with pytest.raises(InvalidInput, match="unknown limit 'color'"):
        limits.limit("color")
    assert pickle and struct  # the modules the cases above build files with
