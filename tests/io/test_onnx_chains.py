"""ONNX chains of any depth (issue 34 item 1): Gemm with its alpha, beta, transA, transB; MatMul + Add; Relu,
Flatten, Identity; everything else refused by name, and a tensor whose dims disagree with its data in one line."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from exactrelu.cli import main  # noqa: E402
from exactrelu.errors import InvalidInput  # noqa: E402
from exactrelu.io.binary_weights import read_weights_stack  # noqa: E402
from exactrelu.io.weights import read_weights  # noqa: E402

W1 = np.array([[1.0, -2.0, 0.5], [0.25, 0.0, 1.0]])   # k x d = 2 x 3
B1 = np.array([0.5, -1.0])
W2 = np.array([[2.0, -0.75]])                         # m x k = 1 x 2
B2 = np.array([0.125])


def save(tmp_path, nodes, inits, in_shape=(None, 3), out_shape=(None, 1), dtype=np.float32):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(in_shape))],
                              [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, list(out_shape))],
                              [numpy_helper.from_array(np.asarray(a, dtype), n) if isinstance(a, np.ndarray) else a
                               for n, a in inits.items()])
    path = tmp_path / "m.onnx"
    path.write_bytes(helper.make_model(graph).SerializeToString())
    return path


def exact_outputs(path, X):
    return read_weights(path).evaluate_exact(X).to_fractions()


def reference_outputs(path, X):
    """ONNX's own evaluation, in float32: exact here (dyadic values of few bits)."""
    out = ReferenceEvaluator(str(path)).run(None, {"x": np.asarray(X, np.float32)})[0]
    return [[Fraction(float(v)) for v in row] for row in out]


X = [[1.0, 2.0, -1.0], [0.5, -0.25, 2.0], [-1.0, 0.0, 0.0]]


def test_gemm_alpha_beta_and_untransposed_weights_are_honored(tmp_path):
    nodes = [helper.make_node("Gemm", ["x", "A1", "B1"], ["h"], alpha=0.5, beta=2.0),  # transB = 0: A1 is d x k
             helper.make_node("Relu", ["h"], ["r"]), helper.make_node("Gemm", ["r", "W2", "C"], ["y"], transB=1)]
    path = save(tmp_path, nodes, {"A1": W1.T, "B1": B1, "W2": W2, "C": np.array([0.125])})
    assert exact_outputs(path, X) == reference_outputs(path, X)
    net = read_weights(path)
    assert net.V.to_fractions() == [[Fraction(x) / 2 for x in row] for row in W1]
    assert net.b_fractions() == [Fraction(x) * 2 for x in B1]
    assert "A1 x 0.5 (2 x 3) + B1 x 2.0" in read_weights_stack(path).description


def test_alpha_times_float64_weights_is_exact_not_rounded(tmp_path):
    third = np.array([[1 / 3, 1.0]])
    nodes = [helper.make_node("Gemm", ["x", "A", ""], ["h"], transB=1, alpha=0.1),
             helper.make_node("Relu", ["h"], ["r"]), helper.make_node("Gemm", ["r", "B"], ["y"], transB=1)]
    path = save(tmp_path, nodes, {"A": third, "B": np.ones((1, 1))}, in_shape=(None, 2), dtype=np.float64)
    alpha = Fraction(float(np.float32(0.1)))  # the attribute is a float32
    assert read_weights(path).V.to_fractions() == [[alpha * Fraction(1 / 3), alpha]]


def test_trans_a_on_the_first_layer_takes_the_input_as_columns(tmp_path):
    nodes = [helper.make_node("Gemm", ["x", "W1", "B1"], ["h"], transA=1, transB=1),
             helper.make_node("Relu", ["h"], ["r"]), helper.make_node("Gemm", ["r", "W2", "B2"], ["y"], transB=1)]
    path = save(tmp_path, nodes, {"W1": W1, "B1": B1, "W2": W2, "B2": B2}, in_shape=(3, None))
    out = ReferenceEvaluator(str(path)).run(None, {"x": np.asarray(X, np.float32).T})[0]
    assert exact_outputs(path, X) == [[Fraction(float(v)) for v in row] for row in out]
    assert "the input taken as columns (transA = 1)" in read_weights_stack(path).description
    nodes[2] = helper.make_node("Gemm", ["r", "W2", "B2"], ["y"], transA=1, transB=1)
    with pytest.raises(InvalidInput, match="transA = 1 after the first layer, which mixes samples"):
        read_weights(save(tmp_path, nodes, {"W1": W1, "B1": B1, "W2": W2, "B2": B2}, in_shape=(3, None)))


def test_matmul_add_chains_of_any_depth_with_flatten_and_identity(tmp_path):
    W3 = np.array([[1.0], [-1.0]])  # 2 x 1: the third layer maps m = 1 to 2 outputs
    nodes = [helper.make_node("Flatten", ["x"], ["f"], axis=1), helper.make_node("MatMul", ["f", "A1"], ["h"]),
             helper.make_node("Add", ["h", "B1"], ["hb"]), helper.make_node("Relu", ["hb"], ["r"]),
             helper.make_node("Identity", ["r"], ["ri"]), helper.make_node("MatMul", ["ri", "A2"], ["s"]),
             helper.make_node("Add", ["C2", "s"], ["sb"]), helper.make_node("Relu", ["sb"], ["t"]),
             helper.make_node("MatMul", ["t", "A3"], ["y"])]
    path = save(tmp_path, nodes, {"A1": W1.T, "B1": B1, "A2": W2.T, "C2": B2, "A3": W3.T}, out_shape=(None, 2))
    stack = read_weights_stack(path)
    assert stack.depth == 3 and stack.widths == (3, 2, 1, 2)
    assert stack.description == f"read {path}: A1 (2 x 3) + B1 -> A2 (1 x 2) + C2 -> A3 (2 x 1)"
    net = read_weights(path)  # any depth
    assert net.widths == (3, 2, 1, 2)
    assert net.layers[2].W.to_fractions() == [[Fraction(float(v)) for v in row] for row in W3]
    with pytest.raises(InvalidInput, match=r"depth 3 \(widths 3-2-1-2"):
        net.V


@pytest.mark.parametrize("change, match", [
    ("add after gemm", "the operator 'Add' .* is not read"),
    ("relu at the end", "ends with a Relu"),
    ("two relus", "a Relu after a Relu"),
    ("no relu", "two affine layers without a Relu between them"),
    ("flatten axis 2", "Flatten node .* with axis 2"),
    ("weight first", "reads the data as its input 2; read are x -> MatMul\\(x, W\\), the data first"),
    ("bias of 3", "the bias 'B' has shape \\(3,\\); expected a vector of 2 entries"),
])
def test_other_chains_are_refused_by_name(tmp_path, change, match):
    inits = {"W1": W1, "B1": B1, "W2": W2, "B": np.ones(3)}
    first = helper.make_node("Gemm", ["x", "W1", "B1"], ["h"], transB=1)
    relu = helper.make_node("Relu", ["h"], ["r"])
    last = helper.make_node("Gemm", ["r", "W2"], ["y"], transB=1)
    nodes = {"add after gemm": [first, helper.make_node("Add", ["h", "B1"], ["y"])],
             "relu at the end": [first, relu],
             "two relus": [first, relu, helper.make_node("Relu", ["r"], ["y"])],
             "no relu": [first, helper.make_node("Gemm", ["h", "W2"], ["y"], transB=1)],
             "flatten axis 2": [helper.make_node("Flatten", ["x"], ["f"], axis=2)],
             "weight first": [helper.make_node("MatMul", ["W2", "x"], ["y"])],
             "bias of 3": [helper.make_node("Gemm", ["x", "W1", "B"], ["h"], transB=1), relu, last]}[change]
    with pytest.raises(InvalidInput, match=match):
        read_weights(save(tmp_path, nodes, inits))


@pytest.mark.parametrize("how", ["raw", "float_data", "dims"])
def test_dims_that_disagree_with_the_data_are_one_line(tmp_path, capsys, how):
    lying = TensorProto(name="W1", data_type=TensorProto.FLOAT)
    lying.dims.extend([10**6, 10**6] if how == "dims" else [2, 3])  # dims: 10^12 entries announced, 6 stored
    if how == "float_data":
        lying.float_data.extend([1.0] * 5)
    else:
        lying.raw_data = np.ones(4 if how == "raw" else 6, np.float32).tobytes()
    nodes = [helper.make_node("Gemm", ["x", "W1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "W2"], ["y"], transB=1)]
    path = save(tmp_path, nodes, {"W1": lying, "W2": W2})
    assert main(["minimize", str(path), "-o", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tensor 'W1' has dims" in err and "Traceback" not in err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("raw", [True, False], ids=["raw_data", "typed field"])
def test_the_wire_reader_reads_every_tensor_as_onnx_does(dtype, raw):
    """io/onnx_wire.py against the onnx package's own numpy_helper, on extreme values of every dtype, both ways
    a tensor can store its data."""
    from exactrelu.io.onnx_wire import parse_tensor, tensor_array

    info = np.finfo(dtype) if dtype.startswith("float") else np.iinfo(dtype)
    a = np.array([[info.min, info.max, 0], [1, -1 if info.min < 0 else 2, info.max // 3 if dtype[0] != "f" else 0.5]],
                 dtype=dtype)
    code = helper.np_dtype_to_tensor_dtype(a.dtype)
    t = helper.make_tensor("t", code, a.shape, a.tobytes() if raw else a.ravel().tolist(), raw=raw)
    got = tensor_array(parse_tensor(t.SerializeToString(), "m"), "m")
    want = numpy_helper.to_array(t)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_a_damaged_file_is_one_line(tmp_path):
    good = save(tmp_path, [helper.make_node("Gemm", ["x", "W1"], ["h"], transB=1),
                           helper.make_node("Relu", ["h"], ["r"]), helper.make_node("Gemm", ["r", "W2"], ["y"],
                                                                                  transB=1)],
                {"W1": W1, "W2": W2}).read_bytes()
    for raw, match in [(good[: len(good) // 2], "not an ONNX model"), (b"\x08\xff\xff\xff", "not an ONNX model"),
                       (b"\x0f", "not an ONNX model"), (b"", "no graph")]:
        (tmp_path / "bad.onnx").write_bytes(raw)
        with pytest.raises(InvalidInput, match=match):
            read_weights(tmp_path / "bad.onnx")
