"""Instance files (JSON and .npz) and the instance hash. Standard library only.

The readers are strict and bound every size before doing the work (docs/limits.md); the library's
readers (``exactrelu/instances/instance.py``, ``exactrelu/io/npz.py``) follow the same rules, written separately:

* JSON: exactly the fields of DESIGN.md; inputs and labels non-empty lists of equal-length,
  non-empty rows of rational strings or JSON integers.
* .npz: exactly the members ``inputs.npy`` and ``labels.npy`` (stored or deflated), each an .npy
  array (version 1.0 or 2.0), 1-D or 2-D, of float64, float32, int64 or int32 in either byte
  order, C or Fortran order, whose data are exactly the bytes the shape announces; declared sizes
  are checked before decompressing. Floats are read exactly (a float is a dyadic rational); NaN
  and infinities are refused.
"""

from __future__ import annotations

import ast
import hashlib
import math
import struct
import zipfile
from fractions import Fraction

from .common import CheckFailed, UnreadableInput, activation_degree, canonical, limit, over, parse_rational, read_json

#: The fields an instance file may have (``provenance`` is free-form and not read).
INSTANCE_FIELDS = {"format", "version", "inputs", "labels", "activation", "planted", "provenance"}
NPZ_MEMBERS = ("inputs.npy", "labels.npy")
_DTYPES = {"f8": "d", "f4": "f", "i8": "q", "i4": "i"}


def npy_header(data: bytes, name: str) -> tuple[str, bool, tuple, int]:
    """(dtype descr such as '<f8', fortran order, shape, data offset) of an .npy file, checked: version 1.0 or
    2.0, a header within the limit, a 1-D or 2-D shape, dtype float64, float32, int64 or int32 (the library's
    .npz reader calls this too, so that both accept the same files)."""
    if data[:6] != b"\x93NUMPY" or data[6:8] not in (b"\x01\x00", b"\x02\x00"):
        raise UnreadableInput(f"{name}: not a .npy array (version 1.0 or 2.0)")
    wide = data[6] == 2
    start = 12 if wide else 10
    if len(data) < start:
        raise UnreadableInput(f"{name}: truncated .npy header")
    (hlen,) = struct.unpack("<I" if wide else "<H", data[8:start])
    if hlen > limit("header"):
        raise over("header", f"{name}: an .npy header of {hlen} bytes")
    if start + hlen > len(data):
        raise UnreadableInput(f"{name}: truncated .npy header")
    try:
        header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise UnreadableInput(f"{name}: malformed .npy header") from None
    if not (isinstance(header, dict) and set(header) == {"descr", "fortran_order", "shape"}
            and isinstance(header["descr"], str) and isinstance(header["fortran_order"], bool)
            and isinstance(header["shape"], tuple) and len(header["shape"]) in (1, 2)
            and all(type(s) is int and s >= 0 for s in header["shape"])):
        raise UnreadableInput(f"{name}: malformed .npy header (descr, fortran_order, and a 1-D or 2-D shape)")
    descr = header["descr"]
    if len(descr) != 3 or descr[0] not in "<>" or descr[1:] not in _DTYPES:
        raise UnreadableInput(f"{name}: dtype {descr!r} not supported (float64, float32, int64 or int32)")
    return descr, header["fortran_order"], header["shape"], start + hlen


def _read_npy(data: bytes, name: str) -> list:
    """Rows of a 1-D (one column) or 2-D array with at least one row and one column."""
    descr, fortran, shape, start = npy_header(data, name)
    fmt, size = descr[0] + _DTYPES[descr[1:]], int(descr[2])
    if len(shape) == 1:
        shape = (shape[0], 1)
    r, c = shape
    if r == 0 or c == 0:
        raise UnreadableInput(f"{name}: shape {shape} has no entries (at least one sample and one column)")
    if r * c > limit("entries"):
        raise over("entries", f"{name}: {r} x {c} entries")
    if len(data) - start != r * c * size:
        raise UnreadableInput(f"{name}: shape {shape} needs {r * c * size} data bytes, the file has {len(data) - start}")
    values = struct.unpack(f"{fmt[0]}{r * c}{fmt[1]}", data[start:])
    if fortran:
        return [[values[i + j * r] for j in range(c)] for i in range(r)]
    return [list(values[i * c:(i + 1) * c]) for i in range(r)]


def _read_npz(path: str) -> dict:
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if sorted(i.filename for i in infos) != list(NPZ_MEMBERS):
                raise UnreadableInput(f"{path}: an .npz instance has exactly the members inputs.npy and labels.npy, "
                                      f"found {sorted(i.filename for i in infos)[:10]}")
            cap = 8 * limit("entries") + 12 + limit("header")  # no member of an instance within the limits is larger
            arrays = {}
            for info in infos:
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise UnreadableInput(f"{path}: member {info.filename} is neither stored nor deflated")
                if info.file_size > cap:
                    raise over("entries", f"{path}: member {info.filename} of {info.file_size} bytes")
                with z.open(info) as fh:
                    data = fh.read(info.file_size + 1)
                if len(data) != info.file_size:
                    raise UnreadableInput(f"{path}: member {info.filename} is not the size its header says")
                arrays[info.filename] = _read_npy(data, info.filename[:-4])
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError, struct.error,
            ValueError) as exc:
        raise UnreadableInput(f"{path}: not a valid .npz instance ({exc})") from None
    return {"inputs": arrays["inputs.npy"], "labels": arrays["labels.npy"], "activation": None}


def entry(x, digits: int = 0) -> tuple[int, int, str]:
    """(numerator, denominator, canonical text) of one instance entry: a str, int or finite float.

    ``digits`` is the limit "digits" when the caller has read it (once per instance, not per entry).

    >>> entry("3/4"), entry(0.5), entry("0.25")
    ((3, 4, '3/4'), (1, 2, '1/2'), (1, 4, '1/4'))
    """
    t = type(x)
    if t is str:
        p, sep, q = x.partition("/")
        if len(x) <= (digits or limit("digits")):  # int() below is then cheap and within Python's limit
            try:
                pi = int(p)
                qi = int(q) if sep else 1
            except ValueError:
                pi = None
            # int() also reads "+1", " 1", "1_0": only the canonical text itself takes this path
            if pi is not None and str(pi) == p and (not sep or (str(qi) == q and qi > 1 and math.gcd(pi, qi) == 1)):
                return pi, qi, x  # already canonical: hash the text as it is
        f = parse_rational(x)
        return f.numerator, f.denominator, canonical(f)
    if t is int:
        return x, 1, str(x)
    if t is float:
        if x != x or x in (float("inf"), float("-inf")):
            raise CheckFailed(f"non-finite value {x}")
        p, q = x.as_integer_ratio()
        return p, q, (str(p) if q == 1 else f"{p}/{q}")
    if t is Fraction:
        return x.numerator, x.denominator, canonical(x)
    raise CheckFailed(f"not a rational: {str(x)[:40]}")


def _rows(obj, name: str, path: str) -> list:
    rows = obj.get(name)
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) and r for r in rows):
        raise UnreadableInput(f"{path}: '{name}' must be a non-empty list of non-empty rows")
    return rows


def load_instance(path: str) -> dict:
    """Read an instance file: {'inputs': rows of entries, 'labels': ..., 'activation': dict or None, 'parsed'}.

    Everything about the file is checked here (fields, shapes, numbers, limits): a bad instance is
    unreadable (exit 2), never an invalid certificate.
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise UnreadableInput(f"cannot read {path}: {exc}") from None
    if raw[:2] == b"PK":
        instance = _read_npz(path)
    else:
        obj = read_json(raw, path)
        if not isinstance(obj, dict) or obj.get("format") != "exactrelu.instance" or type(obj.get("version")) is not int \
                or obj["version"] != 1:
            raise UnreadableInput(f"{path}: not an exactrelu.instance version 1")
        if set(obj) - INSTANCE_FIELDS:
            raise UnreadableInput(f"{path}: unknown fields {sorted(set(obj) - INSTANCE_FIELDS)[:5]} in the instance")
        instance = {"inputs": _rows(obj, "inputs", path), "labels": _rows(obj, "labels", path),
                    "activation": obj.get("activation")}
        for name in ("inputs", "labels"):
            if not all(type(x) in (str, int) for row in instance[name] for x in row):
                raise UnreadableInput(f"{path}: '{name}' entries must be rational strings or JSON integers")
        if instance["activation"] is not None:
            try:
                activation_degree(instance["activation"])
            except CheckFailed as exc:
                raise UnreadableInput(f"{path}: {exc}") from None
    instance["parsed"] = parsed_instance(instance["inputs"], instance["labels"], where=path)  # every number, now
    return instance


def parsed_instance(inputs, labels, where: str = "the instance"):
    """Parse every entry once: rows of (nums, dens) for inputs and labels, and the SHA-256.

    A malformed instance raises UnreadableInput: bad numbers or shapes are not a false claim.
    """
    n = len(inputs)
    if n == 0 or len(labels) != n:
        raise UnreadableInput(f"{where}: an instance has n >= 1 samples and as many label rows")
    d, m = len(inputs[0]), len(labels[0])
    if d == 0 or m == 0:
        raise UnreadableInput(f"{where}: inputs and labels need at least one column each")
    if n * (d + m) > limit("entries"):
        raise over("entries", f"{where}: {n} x ({d} + {m}) entries")
    digits = limit("digits")
    h = hashlib.sha256()
    h.update(f"exactrelu.instance.v1\n{n} {d} {m}\n".encode())
    X, Y = [], []
    try:
        for x, y in zip(inputs, labels):
            if len(x) != d or len(y) != m:
                raise UnreadableInput(f"{where}: instance rows have unequal lengths")
            ex, ey = [entry(v, digits) for v in x], [entry(v, digits) for v in y]
            h.update((" ".join([e[2] for e in ex]) + " | " + " ".join([e[2] for e in ey]) + "\n").encode())
            X.append(([e[0] for e in ex], [e[1] for e in ex]))
            Y.append(([e[0] for e in ey], [e[1] for e in ey]))
    except CheckFailed as exc:
        raise UnreadableInput(f"{where}: {exc}") from None
    return X, Y, h.hexdigest()


def instance_sha256(inputs, labels) -> str:
    """SHA-256 of the canonical instance text (docs/design.md, "Certificates")."""
    return parsed_instance(inputs, labels)[2]


def bound_instance(cert: dict, instance: dict | None, claim: str):
    """The parsed instance a claim is about, after checking that its hash is the certificate's."""
    if instance is None:
        raise CheckFailed(f"claim '{claim}' needs its instance")
    X, Y, digest = instance.get("parsed") or parsed_instance(instance["inputs"], instance["labels"])
    if cert.get("instance_sha256") != digest:
        raise CheckFailed("instance_sha256 does not match the instance")
    return X, Y
