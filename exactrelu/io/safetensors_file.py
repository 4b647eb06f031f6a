"""``.safetensors`` files read exactly, every dtype, with nothing but NumPy.

The format (huggingface/safetensors): 8 bytes, the little-endian length N of a JSON header; N bytes of
header ``{"NAME": {"dtype": "F32", "shape": [...], "data_offsets": [start, end]}, ..., "__metadata__":
{...}}``; then the tensors' bytes, little-endian, each at its offsets. The safetensors package's NumPy API
refuses bfloat16 (NumPy has no such dtype) and every reader before this one widened integers to float64,
which rounds 2**53 + 1 to 2**53. Here every tensor comes back with exactly its values
(:func:`exactrelu.exact.codecs.float64.exact_values`): floats as float64 (F16, BF16 and F32 widen exactly),
integers as int64 or Python ints (U64 beyond int64). FP8 and boolean tensors are refused.

>>> import numpy as np, json, struct, tempfile, os
>>> head = json.dumps({"w": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}}).encode()
>>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
>>> _ = open(path, "wb").write(struct.pack("<Q", len(head)) + head + struct.pack("<q", 2**53 + 1))
>>> read_safetensors(path)["w"].tolist()
[9007199254740993]
"""

from __future__ import annotations

import math
import os
import struct

import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import exact_values
from ..limits import check_memory
from .files import read_bytes, read_json

__all__ = ["read_safetensors", "DTYPES"]

#: safetensors dtype -> NumPy dtype of its little-endian bytes ("BF16": the upper halves of float32s)
DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
          "I8": "i1", "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1"}
_MAX_HEADER = 100_000_000  # the safetensors package's own bound on the header


def read_safetensors(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file by name, each with exactly its values (see the module doc)."""
    raw = read_bytes(path, what="weights file")
    if len(raw) < 8:
        raise InvalidInput(f"{path}: not a .safetensors file (shorter than its 8-byte header length)")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > min(_MAX_HEADER, len(raw) - 8):
        raise InvalidInput(f"{path}: not a .safetensors file (a header of {n} bytes in a file of {len(raw)})")
    header = read_json(path, what="weights file", raw=raw[8:8 + n])
    if not isinstance(header, dict):
        raise InvalidInput(f"{path}: the .safetensors header is not a JSON object")
    data = memoryview(raw)[8 + n:]
    return {name: _tensor(path, name, spec, data) for name, spec in header.items() if name != "__metadata__"}


def _tensor(path, name: str, spec, data: memoryview) -> np.ndarray:
    where = f"{path}: tensor {name[:60]!r}"
    if not (isinstance(spec, dict) and set(spec) == {"dtype", "shape", "data_offsets"}):
        raise InvalidInput(f"{where}: expected dtype, shape and data_offsets")
    dtype, shape, offsets = spec["dtype"], spec["shape"], spec["data_offsets"]
    if dtype not in DTYPES:
        raise InvalidInput(f"{where} has dtype {str(dtype)[:12]!r}; integers or floats (F16, BF16, F32, F64) expected")
    if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape) and len(shape) <= 2):
        raise InvalidInput(f"{where}: shape must be a list of at most two non-negative integers")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(type(o) is int for o in offsets)):
        raise InvalidInput(f"{where}: data_offsets must be two integers")
    count = math.prod(shape)
    start, end = offsets
    size = np.dtype(DTYPES[dtype]).itemsize
    if not 0 <= start <= end <= len(data) or end - start != count * size:
        raise InvalidInput(f"{where}: data_offsets {offsets} do not hold {count} entries of {dtype}")
    check_memory(count * 8, f"{where} ({count:,} entries as float64)")  # the bytes hold them; the copy is 8 each
    a = np.frombuffer(data[start:end], dtype=DTYPES[dtype]).reshape(shape)
    if dtype == "BF16":  # the upper 16 bits of a float32: shift them into place, exactly
        a = (a.astype("<u4") << 16).view("<f4")
    return exact_values(a, name=where)
