"""The instance files of docs/design.md (JSON, exact; ``.npz``, float64), read into and written from plain parts.

This module knows the file formats and nothing about :class:`~exactrelu.instances.Instance`: a file
becomes an :class:`InstanceParts` record (exact matrices or the float arrays of an ``.npz``, the
activation, the planted network, the clean labels and the noise record as plain JSON data), and
:mod:`exactrelu.instances.files` builds the Instance from it (io/ sits below instances/ in the
import order: docs/design.md, "Instances and their files"). The rules are the independent checker's
(docs/limits.md): exact fields, bounded sizes, the strict ``.npz`` reader of :mod:`exactrelu.io.npz`.

>>> import os, tempfile
>>> from exactrelu.exact import QMatrix
>>> path = os.path.join(tempfile.mkdtemp(), "i.json")
>>> X, Y = QMatrix.from_rows([["1/2", 1]]), QMatrix.from_rows([[3]])
>>> _ = write_instance_parts(path, InstanceParts(X, Y))
>>> parts = read_instance_parts(path)
>>> parts.inputs.to_strings(), parts.labels.to_strings(), parts.planted
([['1/2', '1']], [['3']], None)
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidInput
from ..exact.matrix import QMatrix
from ..limits import COSTS, check_entries, check_memory
from ..network import RELU, Activation, Network
from .files import atomic_output, check_exact_entries, check_fields, read_bytes, read_json
from .npz import read_npz_instance

__all__ = ["InstanceParts", "read_instance_parts", "write_instance_parts", "INSTANCE_FIELDS"]

#: The fields an instance file may have (docs/design.md); ``provenance`` is free-form and not read.
INSTANCE_FIELDS = frozenset({"format", "version", "inputs", "labels", "activation", "planted", "provenance"})
_PLANTED_FIELDS = {"U", "V", "b", "c", "clean_labels", "noise"}


@dataclass(frozen=True)
class InstanceParts:
    """What an instance file holds, as plain parts.

    ``inputs`` and ``labels`` are exact :class:`QMatrix` (JSON) or float64 / int64 arrays, n x d and
    n x m, taken exactly by whoever builds the instance (``.npz``); ``noise`` is the planted noise
    record as it stands in the file (``{"kind", "scale"}``), parsed by :mod:`exactrelu.instances.noise`.
    """

    inputs: QMatrix | np.ndarray
    labels: QMatrix | np.ndarray
    activation: Activation | None = None
    planted: Network | None = None
    clean_labels: QMatrix | None = None
    noise: dict | None = None


def read_instance_parts(path: str | os.PathLike) -> InstanceParts:
    """The parts of a JSON or ``.npz`` instance file; malformed or over-limit files raise InvalidInput."""
    raw = read_bytes(path, what="instance file")
    if raw[:2] == b"PK" or Path(path).suffix == ".npz":
        X, Y = read_npz_instance(path)
        return InstanceParts(X, Y)
    if raw[:6] == b"\x93NUMPY" or Path(path).suffix.lower() in (".npy", ".csv", ".tsv", ".txt"):
        kind = "an .npy array" if raw[:6] == b"\x93NUMPY" else f"a {Path(path).suffix[1:].upper()} table"
        raise InvalidInput(f"{path} is {kind}, not an instance file: pass the arrays as --inputs X --labels Y "
                           "(.npy or CSV), or write an instance with exactrelu import --inputs X --labels Y "
                           "-o inst.npz")
    return _read_json(Path(path), raw)


#: what to say when a JSON file is not an instance: the two ways from one's own arrays
OWN_DATA_HINT = ("from float arrays, write an .npz (numpy.savez(path, inputs=X, labels=Y)) or use exactrelu import "
                 "--inputs X.npy --labels Y.npy -o inst.json")


@contextlib.contextmanager
def _no_gc():
    """The cyclic garbage collector paused (as it was before, after)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _read_json(path: Path, raw: bytes) -> InstanceParts:
    per_byte, per_second = COSTS["json"]
    check_memory(len(raw) * per_byte, f"{path} ({len(raw):,} bytes of JSON)", seconds=len(raw) * per_second,
                 cost=f"at least {per_byte} bytes per byte of JSON while it is parsed")
    with _no_gc():  # millions of small objects, none of them in a cycle: the collector only costs time (3x here)
        return _instance_parts(path, read_json(path, what="instance file", raw=raw))


def _instance_parts(path: Path, obj) -> InstanceParts:
    if not isinstance(obj, dict) or obj.get("format") != "exactrelu.instance":
        raise InvalidInput(f"{path}: not an exactrelu instance (expected \"format\": \"exactrelu.instance\"); "
                           f"{OWN_DATA_HINT}")
    if type(obj.get("version")) is not int or obj["version"] != 1:  # not true, not 1.0
        raise InvalidInput(f"{path}: unsupported instance version {obj.get('version')!r} (this reader knows 1)")
    check_fields(obj, INSTANCE_FIELDS, str(path))
    for key in ("inputs", "labels"):
        if key not in obj:
            raise InvalidInput(f"{path}: missing '{key}'")
        rows = obj[key]
        if not isinstance(rows, list) or not rows or set(map(type, rows)) != {list} or not all(rows):
            raise InvalidInput(f"{path}: '{key}' must be a non-empty list of non-empty rows")
    check_entries(len(obj["inputs"]), len(obj["inputs"][0]), len(obj["labels"][0]), str(path))
    bulk = {key: _bulk(obj[key]) for key in ("inputs", "labels")}
    for key in ("inputs", "labels"):
        if bulk[key] is not None:
            continue  # canonical rational strings, every one
        if not set(map(type, itertools.chain.from_iterable(obj[key]))) <= {str, int}:
            i, x = next((i, x) for i, r in enumerate(obj[key]) for x in r if type(x) not in (str, int))
            raise InvalidInput(f"{path}: '{key}' row {i} has {str(x)[:40]}; entries must be rational strings "
                               f"or integers (a JSON float is not exact); {OWN_DATA_HINT}")
    X = bulk["inputs"] or QMatrix.from_rows(obj["inputs"], name=f"{path.name}: inputs")
    Y = bulk["labels"] or QMatrix.from_rows(obj["labels"], name=f"{path.name}: labels")
    act = Activation.from_json(obj["activation"]) if "activation" in obj else None
    if "planted" not in obj:
        return InstanceParts(X, Y, act)
    net, clean, noise = _read_planted(path, obj["planted"], act)
    return InstanceParts(X, Y, act, net, clean, noise)


def _bulk(rows: list) -> QMatrix | None:
    """The matrix of ``rows`` (a non-empty list of non-empty lists) when every entry is a canonical rational string,
    read in bulk (exactrelu/exact/codecs/text.py) without a flat list or a type check of its own (the join refuses any
    entry that is not a string); else None, and the caller checks and reads the rows entry by entry."""
    ncols = len(rows[0])
    if set(map(len, rows)) != {ncols}:
        return None
    try:
        data = ",".join(map(",".join, rows)).encode("ascii")
    except (TypeError, UnicodeEncodeError):
        return None
    from ..exact.codecs.text import parse_rational_bytes

    parsed = parse_rational_bytes(data, len(rows), ncols)
    if parsed is None:
        return None
    return QMatrix.from_numpy(parsed, lazy=True) if isinstance(parsed, np.ndarray) else QMatrix(*parsed)


def _read_planted(path: Path, pl, act) -> tuple[Network | None, QMatrix | None, dict | None]:
    """The planted record: network (U, V, b, c), clean labels and noise record, each optional but strict."""
    if not isinstance(pl, dict):
        raise InvalidInput(f"{path}: 'planted' must be an object")
    unknown = set(pl) - _PLANTED_FIELDS
    if unknown:
        raise InvalidInput(f"{path}: unknown fields {sorted(unknown)} in 'planted' (known: {sorted(_PLANTED_FIELDS)})")
    check_exact_entries(pl, ("U", "V", "b", "c", "clean_labels"), f"{path}: planted")
    net = Network.from_json(pl, act or RELU) if ("U" in pl or "V" in pl) else None
    clean = None
    if "clean_labels" in pl:
        rows = pl["clean_labels"]
        if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
            raise InvalidInput(f"{path}: 'planted.clean_labels' must be a non-empty list of rows")
        clean = QMatrix.from_rows(rows, name=f"{path.name}: planted.clean_labels")
    return net, clean, pl.get("noise")


def write_instance_parts(path: str | os.PathLike, parts: InstanceParts) -> Path:
    """Write ``parts`` as JSON (exact, any suffix but ``.npz``) or ``.npz`` (float64 inputs and labels only).

    Writing ``.npz`` refuses inputs or labels that are not exactly float64 (rather than rounding them);
    ``parts.inputs`` and ``parts.labels`` are exact matrices.
    """
    path = Path(path)
    if path.suffix == ".npz":
        arrays = {name: _float64_exactly(getattr(parts, name), name) for name in ("inputs", "labels")}
        with atomic_output(path, binary=True, what="instance file") as fh:
            np.savez(fh, **arrays)
        return path
    obj: dict[str, Any] = {
        "format": "exactrelu.instance",
        "version": 1,
        "inputs": parts.inputs.to_strings(),
        "labels": parts.labels.to_strings(),
    }
    if parts.activation is not None:
        obj["activation"] = parts.activation.to_json()
    if parts.planted is not None:
        obj["planted"] = {"U": parts.planted.U.to_strings(), "V": parts.planted.V.to_strings()}
        obj["planted"].update({key: v for key, v in parts.planted.to_json().items() if key in ("b", "c")})
    if parts.clean_labels is not None:
        obj.setdefault("planted", {})["clean_labels"] = parts.clean_labels.to_strings()
        if parts.noise is not None:
            obj["planted"]["noise"] = parts.noise
    with atomic_output(path, what="instance file") as fh:
        json.dump(obj, fh, separators=(",", ":"))
        fh.write("\n")
    return path


def _float64_exactly(exact: QMatrix, name: str) -> np.ndarray:
    """The float64 array equal to ``exact`` entry by entry; InvalidInput when there is none."""
    src = exact.float_source  # the float64 array the matrix was made from: equal by construction
    arr = src[0] if src is not None else exact.to_float()
    if src is None and QMatrix.from_numpy(arr) != exact:
        raise InvalidInput(f"{name} are not exactly representable as float64; write a .json instance instead")
    return arr
