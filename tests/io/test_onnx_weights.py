"""ONNX graphs of one hidden ReLU layer are read exactly; every other graph is refused with one line."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from exactrelu.cli import main  # noqa: E402
from exactrelu.equiv import functionally_equal  # noqa: E402
from exactrelu.errors import InvalidInput  # noqa: E402
from exactrelu.io.weights import read_weights, write_weights  # noqa: E402
from exactrelu.network import Activation, Network  # noqa: E402

RNG = np.random.default_rng(5)
W1 = RNG.standard_normal((4, 3)).astype(np.float32)   # k x d, as PyTorch stores Linear(3, 4).weight
B1 = RNG.standard_normal(4).astype(np.float32)
W2 = RNG.standard_normal((2, 4)).astype(np.float32)   # m x k
B2 = RNG.standard_normal(2).astype(np.float32)


def save(tmp_path, nodes, inits, name="m.onnx", inputs=("x",)):
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info(i, TensorProto.FLOAT, [None, 3]) for i in inputs],
                              [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, [None, 2])],
                              [numpy_helper.from_array(a, n) for n, a in inits.items()])
    path = tmp_path / name
    path.write_bytes(helper.make_model(graph).SerializeToString())
    return path


def gemm_model(tmp_path, **kw):
    nodes = [helper.make_node("Gemm", ["x", "W1", "B1"], ["h"], transB=1, **kw), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "W2", "B2"], ["y"], transB=1)]
    return save(tmp_path, nodes, {"W1": W1, "B1": B1, "W2": W2, "B2": B2})


def expected() -> Network:
    return Network.from_rows(U=W2.astype(np.float64), V=W1.astype(np.float64), b=B1.astype(np.float64).tolist(),
                             c=B2.astype(np.float64).tolist())


def test_a_gemm_graph_is_read_exactly(tmp_path):
    net = read_weights(gemm_model(tmp_path))
    want = expected()
    assert net.V == want.V and net.U == want.U and net.b_fractions() == want.b_fractions()
    assert net.c_fractions() == [Fraction(float(x)) for x in B2]          # float32 values, exactly
    assert functionally_equal(net, want).equal


def test_a_matmul_add_graph_with_swapped_operands_is_read(tmp_path):
    nodes = [helper.make_node("MatMul", ["x", "A1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "A2"], ["s"]), helper.make_node("Add", ["C2", "s"], ["y"])]
    path = save(tmp_path, nodes, {"A1": W1.T.copy(), "A2": W2.T.copy(), "C2": B2})
    net = read_weights(path)
    assert net.V == expected().V and not net.has_bias and net.c_fractions() == expected().c_fractions()


def test_float16_weights_and_constant_nodes(tmp_path):
    half = W1.astype(np.float16)
    nodes = [helper.make_node("Constant", [], ["W1"], value=numpy_helper.from_array(half, "W1")),
             helper.make_node("Gemm", ["x", "W1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "W2"], ["y"], transB=1)]
    net = read_weights(save(tmp_path, nodes, {"W2": W2}))
    assert net.V.to_fractions() == [[Fraction(float(x)) for x in row] for row in half]


def test_the_command_line_compares_onnx_with_json(tmp_path, capsys):
    model = gemm_model(tmp_path)
    exact = write_weights(expected(), tmp_path / "w.json")
    assert main(["equiv", str(model), str(exact)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("EQUIVALENT") and f"read {model}: W1 (4 x 3) + B1 -> W2 (2 x 4) + B2" in out


@pytest.mark.parametrize("change, match", [
    ("sigmoid", "the operator 'Sigmoid' .* is not read"),
    ("sub of a non-zero constant", "the operator 'Sub' .* is not read"),
    ("two inputs", "one input and one output"),
    ("not a chain", "one chain"),
    ("conv", "the operator 'Conv' .* is not read"),
])
def test_other_graphs_are_refused(tmp_path, change, match):
    inits = {"W1": W1, "B1": B1, "W2": W2, "B2": B2}
    first = helper.make_node("Gemm", ["x", "W1", "B1"], ["h"], transB=1)
    act = helper.make_node("Sigmoid" if change == "sigmoid" else "Relu", ["h"], ["r"])
    last = helper.make_node("Gemm", ["x" if change == "not a chain" else "r", "W2", "B2"], ["y"], transB=1)
    nodes = [first, act, last]
    if change == "sub of a non-zero constant":
        inits["M"] = np.ones(3, np.float32)
        nodes = [helper.make_node("Sub", ["x", "M"], ["xs"]), helper.make_node("Gemm", ["xs", "W1", "B1"], ["h"],
                                                                             transB=1), act, last]
    if change == "conv":
        nodes = [helper.make_node("Conv", ["x", "W1"], ["h"]), act, last]
    path = save(tmp_path, nodes, inits, inputs=("x", "x2") if change == "two inputs" else ("x",))
    with pytest.raises(InvalidInput, match=match):
        read_weights(path)


def test_unreadable_files_and_activations_are_refused(tmp_path):
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x08\x07not protobuf at all\xff\xff")
    with pytest.raises(InvalidInput, match="not an ONNX model"):
        read_weights(junk)
    with pytest.raises(InvalidInput, match="the file's activation relu differs from the one asked for, power:2"):
        read_weights(gemm_model(tmp_path), activation=Activation.power(2))


def test_external_data_is_refused(tmp_path):
    from onnx.external_data_helper import convert_model_to_external_data

    model = onnx.load(str(gemm_model(tmp_path)))
    convert_model_to_external_data(model, all_tensors_to_one_file=True, location="w.bin", size_threshold=0)
    path = tmp_path / "ext.onnx"
    onnx.save(model, str(path))
    with pytest.raises(InvalidInput, match="external file"):
        read_weights(path)


def test_two_hidden_layers_after_a_zero_sub_are_read_as_a_deep_network(tmp_path):
    """ACAS Xu exports subtract a constant of zeros first (``input_Sub``): a no-op, said in the 'read' line."""
    W3 = np.ones((2, 2), np.float32)
    nodes = [helper.make_node("Sub", ["x", "Z"], ["xs"]), helper.make_node("Gemm", ["xs", "W1", "B1"], ["h"], transB=1),
             helper.make_node("Relu", ["h"], ["r"]), helper.make_node("Gemm", ["r", "W2", "B2"], ["z"], transB=1),
             helper.make_node("Relu", ["z"], ["s"]), helper.make_node("Gemm", ["s", "W3"], ["y"], transB=1)]
    path = save(tmp_path, nodes, {"Z": np.zeros((1, 3), np.float32), "W1": W1, "B1": B1, "W2": W2, "B2": B2, "W3": W3})
    net = read_weights(path)
    assert net.widths == (3, 4, 2, 2) and net.layers[2].W.to_fractions() == [[1, 1], [1, 1]]
    x = RNG.standard_normal((5, 3))
    want = np.maximum(np.maximum(x @ W1.T + B1, 0) @ W2.T + B2, 0) @ W3.T
    assert np.allclose(net.predict(x), want, atol=1e-5)
    assert main(["equiv", str(path), str(path)]) == 0

