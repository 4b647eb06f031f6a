"""Hostile weights and data files (issue 34): small files that lie about what they hold, or would run code.

Each builder writes its files into a directory and returns a :class:`HostileFile`: the ``exactrelu`` command
line that reads them, the exit code it must give (2: refused in one line, before any work) and what such a file
did before. The tests run them in-process (tests/io/test_hostile_files.py); ``benchmarks/bench_hostile.py`` runs
them in child processes with a time and memory limit. Builders that need a package to write their file (``onnx``)
return None without it.

>>> import tempfile
>>> case = npy_as_weights(tempfile.mkdtemp())
>>> case.expect, case.argv[0]
(2, 'equiv')
"""

from __future__ import annotations

import json
import os
import pickle
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["HostileFile", "BUILDERS", "onnx_lying_dims", "onnx_unknown_operator", "safetensors_lying_offsets",
           "safetensors_huge_header", "pickle_that_runs_code", "zip_pickle_that_runs_code", "npz_weights_bomb",
           "npz_weights_lying_shape", "npy_as_weights", "weights_json_exponent", "unordered_layer_names",
           "csv_malformed_first_row"]


@dataclass(frozen=True)
class HostileFile:
    """One hostile file: ``argv`` for ``exactrelu`` (a list of strings), the exit code expected, what it did."""

    name: str
    argv: list[str]
    expect: int
    before: str


def _write(path: Path, data: bytes | str) -> Path:
    from ..io.files import write_bytes_atomic, write_text_atomic

    return write_text_atomic(path, data) if isinstance(data, str) else write_bytes_atomic(path, data)


def _zip(path: Path, members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> Path:
    from ..io.files import atomic_output

    with atomic_output(path, binary=True) as fh, zipfile.ZipFile(fh, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _other(directory) -> str:
    """A valid two-layer weights file (2 inputs, 2 units, 1 output) to compare the hostile one with."""
    return str(_write(Path(directory) / "other.json", json.dumps({"U": [["1", "1"]], "V": [["1", "0"], ["0", "1"]]})))


def _equiv(directory, name: str, path, before: str) -> HostileFile:
    return HostileFile(name, ["equiv", str(path), _other(directory)], 2, before)


def onnx_lying_dims(directory) -> HostileFile | None:
    """An ONNX graph whose first weight announces dims 10^6 x 10^6 and stores 24 bytes."""
    try:
        from onnx import TensorProto, helper
    except ImportError:
        return None
    lying = TensorProto(name="W1", data_type=TensorProto.FLOAT, dims=[10**6, 10**6], raw_data=bytes(24))
    w2 = helper.make_tensor("W2", TensorProto.FLOAT, [1, 2], [1.0, 1.0])
    nodes = [helper.make_node("Gemm", ["x", "W1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "W2"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 1])], [lying, w2])
    path = _write(Path(directory) / "lying.onnx", helper.make_model(graph).SerializeToString())
    return _equiv(directory, "onnx-lying-dims", path, "a traceback (numpy_helper's ValueError)")


def onnx_unknown_operator(directory) -> HostileFile | None:
    """An ONNX graph with a Conv where a layer was expected."""
    try:
        from onnx import TensorProto, helper
    except ImportError:
        return None
    w = helper.make_tensor("W", TensorProto.FLOAT, [1, 2], [1.0, 1.0])
    graph = helper.make_graph([helper.make_node("Conv", ["x", "W"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 1])], [w])
    path = _write(Path(directory) / "conv.onnx", helper.make_model(graph).SerializeToString())
    return _equiv(directory, "onnx-unknown-operator", path, "refused (one hidden layer only)")


def _safetensors(header: dict, data: bytes, length: int | None = None) -> bytes:
    head = json.dumps(header).encode()
    return struct.pack("<Q", len(head) if length is None else length) + head + data


def safetensors_lying_offsets(directory) -> HostileFile:
    """A ``.safetensors`` tensor announcing 10^10 float32 entries over 8 bytes of data."""
    path = _write(Path(directory) / "lying.safetensors", _safetensors(
        {"0.weight": {"dtype": "F32", "shape": [100000, 100000], "data_offsets": [0, 8]},
         "2.weight": {"dtype": "F32", "shape": [1, 1], "data_offsets": [0, 4]}}, bytes(8)))
    return _equiv(directory, "safetensors-lying-offsets", path, "refused (over the entries limit)")


def safetensors_huge_header(directory) -> HostileFile:
    """A ``.safetensors`` file whose 8-byte header length announces 10^15 bytes."""
    path = _write(Path(directory) / "huge.safetensors", _safetensors({}, b"", length=10**15))
    return _equiv(directory, "safetensors-huge-header", path, "refused")


class _System:
    """Pickles as a call of ``os.system``: what a hostile ``.pt`` carries."""

    def __reduce__(self):
        return (os.system, ("echo this file ran code",))


def pickle_that_runs_code(directory) -> HostileFile:
    """A ``.pt`` (legacy format: a pickle) whose object is a call of ``os.system``."""
    path = _write(Path(directory) / "evil.pt", pickle.dumps(_System(), protocol=2))
    return _equiv(directory, "pickle-runs-code", path, "refused by torch.load(weights_only=True) after importing "
                                                       "torch (about 3 s)")


def zip_pickle_that_runs_code(directory) -> HostileFile:
    """A ``.pt`` of the zip format whose ``data.pkl`` calls ``os.system``."""
    path = _zip(Path(directory) / "evil_zip.pt", {"evil/data.pkl": pickle.dumps(_System(), protocol=2),
                                                   "evil/version": b"3\n"})
    return _equiv(directory, "zip-pickle-runs-code", path, "refused by torch.load(weights_only=True) after "
                                                           "importing torch (about 3 s)")


def _npy_header(shape: tuple, descr: str = "<f8") -> bytes:
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1")


def npz_weights_bomb(directory, megabytes: int = 64) -> HostileFile:
    """An ``.npz`` of weights whose ``V.npy`` is ``megabytes`` of zeros, deflated about 1000 times."""
    rows = megabytes * 2**20 // 8
    path = _zip(Path(directory) / "bomb.npz", {"V.npy": _npy_header((rows, 1)) + bytes(8 * rows),
                                               "U.npy": _npy_header((1, rows)) + bytes(8)}, zipfile.ZIP_DEFLATED)
    return _equiv(directory, "npz-weights-bomb", path, "refused by the entries limit")


def npz_weights_lying_shape(directory) -> HostileFile:
    """An ``.npz`` of weights whose ``W0.npy`` header announces 10^9 x 10^9 entries over 8 bytes."""
    path = _zip(Path(directory) / "lying.npz", {"W0.npy": _npy_header((10**9, 10**9)) + bytes(8),
                                                "W1.npy": _npy_header((1, 1)) + bytes(8)})
    return _equiv(directory, "npz-weights-lying-shape", path, "refused")


def npy_as_weights(directory) -> HostileFile:
    """One ``.npy`` array given as a network."""
    from ..io.files import atomic_output

    path = Path(directory) / "a.npy"
    with atomic_output(path, binary=True) as fh:
        np.save(fh, np.eye(2))
    return _equiv(directory, "npy-as-weights", path, "read as a PyTorch file: 7 s and torch's message")


def weights_json_exponent(directory) -> HostileFile:
    """JSON weights with the entry ``1e999999999`` (a billion-digit integer in 11 bytes)."""
    weights = {"U": [["1e999999999", "1"]], "V": [["1", "0"], ["0", "1"]]}
    path = _write(Path(directory) / "exp.json", json.dumps(weights))
    return _equiv(directory, "weights-json-exponent", path, "refused (digits)")


def unordered_layer_names(directory) -> HostileFile:
    """A ``.safetensors`` model whose layer names show no order (``encoder``, ``decoder``: square shapes)."""
    four = struct.pack("<4f", 1.0, 2.0, 3.0, -1.0)
    path = _write(Path(directory) / "model.safetensors", _safetensors(
        {"encoder.weight": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
         "decoder.weight": {"dtype": "F32", "shape": [2, 2], "data_offsets": [16, 32]}}, four + four))
    return HostileFile("unordered-layer-names", ["equiv", str(path), str(path)], 2,
                       "read with its layers swapped: a false EQUIVALENT with a VALID certificate")


def csv_malformed_first_row(directory) -> HostileFile:
    """Inputs whose first row holds a malformed number, which was taken as a header and dropped."""
    d = Path(directory)
    _write(d / "X.csv", "1.2.3,4\n5,6\n7,8\n")
    _write(d / "Y.csv", "1\n2\n3\n")
    return HostileFile("csv-malformed-first-row", ["import", "--inputs", str(d / "X.csv"), "--labels",
                                                   str(d / "Y.csv"), "-o", str(d / "i.json")], 2,
                       "the row dropped as a header (then: rows disagree, or a silent loss)")


BUILDERS = [onnx_lying_dims, onnx_unknown_operator, safetensors_lying_offsets, safetensors_huge_header,
            pickle_that_runs_code, zip_pickle_that_runs_code, npz_weights_bomb, npz_weights_lying_shape,
            npy_as_weights, weights_json_exponent, unordered_layer_names, csv_malformed_first_row]
