"""Exact weights from every reader (issue 26, item 3): a weight the file holds is the weight certified.

For each format (.npz, .safetensors, PyTorch state dict, ONNX) and each dtype (int8..int64, uint8..uint64,
float16/32/64, bfloat16), the network read has exactly the values stored: 2**53 + 1 stays 2**53 + 1 (float64
would round it to 2**53), the largest uint64 stays itself, a float16 0.1 is the dyadic rational it is.
"""

from __future__ import annotations

import json
import struct
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.errors import InvalidInput
from exactrelu.io.state_dict import numbered_order
from exactrelu.io.torch_weights import state_dict_arrays
from exactrelu.io.weights import as_network, read_weights

#: dtype name -> one value of that dtype that float64 (or a narrower float) could get wrong
INTS = {"int8": -128, "int16": -32768, "int32": -(2**31), "int64": 2**53 + 1, "uint8": 255, "uint16": 65535,
        "uint32": 2**32 - 1, "uint64": 2**64 - 1}
FLOATS = ("float16", "float32", "float64")
BF16_BITS = 0x3DCD  # the bfloat16 nearest 0.1: 0x3DCD0000 as a float32
BF16 = Fraction(*struct.unpack("<f", struct.pack("<I", BF16_BITS << 16))[0].as_integer_ratio())


def _expected(dtype: str) -> Fraction:
    if dtype in INTS:
        return Fraction(INTS[dtype])
    if dtype == "bfloat16":
        return BF16
    return Fraction(*float(np.array(0.1, dtype=dtype)).as_integer_ratio())


def _value(dtype: str):
    return np.array(INTS[dtype], dtype=dtype) if dtype in INTS else np.array(0.1, dtype=dtype)


def _layers(dtype: str) -> dict[str, np.ndarray]:
    """V = [[x, 1]], b = [x], U = [[x]], c = [x] with x the test value of ``dtype`` (numpy dtypes only)."""
    x = _value(dtype)
    one = np.array(1, dtype=dtype)
    return {"0.weight": np.array([[x, one]]), "0.bias": np.array([x]), "2.weight": np.array([[x]]), "2.bias": np.array([x])}


def _assert_exact(net, want: Fraction) -> None:
    assert net.V.to_fractions() == [[want, 1]]
    assert net.U.to_fractions() == [[want]]
    assert net.b_fractions() == [want] and net.c_fractions() == [want]


NUMPY_DTYPES = [*INTS, *FLOATS]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_npz_weights_keep_every_value(tmp_path, dtype):
    layers = _layers(dtype)
    path = tmp_path / "w.npz"
    np.savez(path, V=layers["0.weight"], b=layers["0.bias"], U=layers["2.weight"], c=layers["2.bias"])
    _assert_exact(read_weights(path), _expected(dtype))


def _safetensors_bytes(tensors: dict[str, tuple[str, list, bytes]]) -> bytes:
    """A .safetensors file written by hand (the format: 8-byte header length, JSON header, data)."""
    header, data = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    head = json.dumps(header).encode()
    return struct.pack("<Q", len(head)) + head + data


ST_CODES = {"int8": "I8", "int16": "I16", "int32": "I32", "int64": "I64", "uint8": "U8", "uint16": "U16",
            "uint32": "U32", "uint64": "U64", "float16": "F16", "float32": "F32", "float64": "F64"}


@pytest.mark.parametrize("dtype", [*NUMPY_DTYPES, "bfloat16"])
def test_safetensors_weights_keep_every_value(tmp_path, dtype):
    if dtype == "bfloat16":
        x, one = struct.pack("<H", BF16_BITS), struct.pack("<H", 0x3F80)  # 0x3F80: bfloat16 1.0
        tensors = {"0.weight": ("BF16", [1, 2], x + one), "0.bias": ("BF16", [1], x), "2.weight": ("BF16", [1, 1], x),
                   "2.bias": ("BF16", [1], x)}
    else:
        tensors = {name: (ST_CODES[dtype], list(a.shape), a.astype(np.dtype(dtype).newbyteorder("<")).tobytes())
                   for name, a in _layers(dtype).items()}
    path = tmp_path / "w.safetensors"
    path.write_bytes(_safetensors_bytes(tensors))
    _assert_exact(read_weights(path), _expected(dtype))


def test_safetensors_written_by_the_package_read_the_same(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    st.save_file(_layers("int64"), str(tmp_path / "w.safetensors"))
    _assert_exact(read_weights(tmp_path / "w.safetensors"), Fraction(2**53 + 1))


def test_safetensors_malformed_files_are_one_line(tmp_path):
    path = tmp_path / "w.safetensors"
    for raw, match in [(b"\x01", "shorter"), (struct.pack("<Q", 10**9) + b"{}", "a header of"),
                       (_safetensors_bytes({"a": ("F8_E4M3", [1], b"\x00")}), "dtype 'F8_E4M3'"),
                       (_safetensors_bytes({"a": ("F32", [2], b"\x00" * 4)}), "do not hold 2 entries"),
                       (_safetensors_bytes({"a": ("F32", [1, 1, 1], b"\x00" * 4)}), "at most two"),
                       (_safetensors_bytes({"a": ("BOOL", [1], b"\x01")}), "dtype 'BOOL'")]:
        path.write_bytes(raw)
        with pytest.raises(InvalidInput, match=match):
            read_weights(path)


TORCH_DTYPES = [*INTS, *FLOATS, "bfloat16"]


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_pytorch_state_dicts_keep_every_value(tmp_path, dtype):
    torch = pytest.importorskip("torch")
    if dtype == "bfloat16":
        x = torch.tensor([BF16_BITS], dtype=torch.int16).view(torch.bfloat16)[0]
        one = torch.tensor(1, dtype=torch.bfloat16)
        state = {"0.weight": torch.stack([x, one]).reshape(1, 2), "0.bias": x.reshape(1), "2.weight": x.reshape(1, 1),
                 "2.bias": x.reshape(1)}
    else:
        if dtype in ("uint16", "uint32", "uint64") and not hasattr(torch, dtype):
            pytest.skip(f"torch has no {dtype}")
        state = {k: torch.from_numpy(np.ascontiguousarray(a)) for k, a in _layers(dtype).items()}
    path = tmp_path / "w.pt"
    torch.save(state, path)
    _assert_exact(read_weights(path), _expected(dtype))
    _assert_exact(as_network(state), _expected(dtype))  # the state dict in memory, no file


@pytest.mark.parametrize("dtype", [*NUMPY_DTYPES, "bfloat16"])
def test_onnx_weights_keep_every_value(tmp_path, dtype):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    if dtype == "bfloat16":
        x = float(BF16)
        inits = [helper.make_tensor("W1", TensorProto.BFLOAT16, [1, 2], [x, 1.0]),
                 helper.make_tensor("B1", TensorProto.BFLOAT16, [1], [x]),
                 helper.make_tensor("W2", TensorProto.BFLOAT16, [1, 1], [x]),
                 helper.make_tensor("B2", TensorProto.BFLOAT16, [1], [x])]
    else:
        layers = _layers(dtype)
        inits = [numpy_helper.from_array(layers[key], name) for key, name in
                 (("0.weight", "W1"), ("0.bias", "B1"), ("2.weight", "W2"), ("2.bias", "B2"))]
    nodes = [helper.make_node("Gemm", ["x", "W1", "B1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "W2", "B2"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 1])], inits)
    path = tmp_path / "w.onnx"
    path.write_bytes(helper.make_model(graph).SerializeToString())
    _assert_exact(read_weights(path), _expected(dtype))


def test_certify_as_given_does_not_certify_a_weight_the_file_does_not_hold(tmp_path, capsys):
    """The issue's case: int64 2**53 + 1 in a safetensors file, labels made by it; float64 would have made the
    network 2**53 and then "certified as given" a network that is not the file's."""
    from exactrelu.cli import main
    from exactrelu.instances import Instance, write_instance

    big = 2**53 + 1
    X = [[1], [2], [-1]]
    inst = Instance.from_arrays(X, [[big * max(x[0], 0)] for x in X])
    ip = write_instance(inst, tmp_path / "i.json")
    path = tmp_path / "w.safetensors"
    path.write_bytes(_safetensors_bytes({"0.weight": ("I64", [1, 1], struct.pack("<q", 1)),
                                         "2.weight": ("I64", [1, 1], struct.pack("<q", big))}))
    assert main(["certify", str(ip), "--weights", str(path), "--as-given", "-o", str(tmp_path / "c.json")]) == 0
    cert = json.loads((tmp_path / "c.json").read_text())
    assert cert["U"] == [[str(big)]]
    path.write_bytes(_safetensors_bytes({"0.weight": ("I64", [1, 1], struct.pack("<q", 1)),
                                         "2.weight": ("I64", [1, 1], struct.pack("<q", big - 1))}))
    assert main(["certify", str(ip), "--weights", str(path), "--as-given", "-o", str(tmp_path / "d.json")]) == 1


def test_layer_numbers_are_only_ascii_decimal_digits():
    """'²'.isdigit() is True but int('²') fails: the names '².weight', '³.weight' show no order, and are asked for."""
    assert numbered_order(["layer10", "layer2"]) == ["layer2", "layer10"]
    assert numbered_order(["²", "1"]) is None
    with pytest.raises(InvalidInput, match="cannot be read from their names"):
        state_dict_arrays({"².weight": np.ones((2, 3)), "³.weight": np.ones((1, 2))})
    U, V, b, c = state_dict_arrays({"².weight": np.ones((2, 3)), "³.weight": np.ones((1, 2))}, layers=["²", "³"])
    assert V.shape == (2, 3) and U.shape == (1, 2)


def test_booleans_are_not_numbers():
    with pytest.raises(InvalidInput, match="dtype bool"):
        state_dict_arrays({"0.weight": np.ones((2, 3), dtype=bool), "2.weight": np.ones((1, 2))})
