"""Instance files (JSON and .npz) and the instance hash. Standard library only."""

from __future__ import annotations

import ast
import hashlib
import json
import math
import struct
import zipfile
from fractions import Fraction

from .common import CheckFailed, UnreadableInput, canonical, parse_rational


def _read_npy(data: bytes, name: str) -> list:
    if data[:6] != b"\x93NUMPY":
        raise UnreadableInput(f"{name}: not a .npy array")
    major = data[6]
    if major == 1:
        (hlen,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    descr, fortran, shape = header["descr"], header["fortran_order"], tuple(header["shape"])
    fmt = {"<f8": "d", "<i8": "q", "<i4": "i"}.get(descr)
    if fmt is None:
        raise UnreadableInput(f"{name}: dtype {descr} not supported (use little-endian float64)")
    count = 1
    for s in shape:
        count *= s
    body = data[start + hlen:]
    values = list(struct.unpack(f"<{count}{fmt}", body[: count * struct.calcsize(fmt)]))
    if len(shape) == 1:
        shape = (shape[0], 1)
    if len(shape) != 2:
        raise UnreadableInput(f"{name}: expected a 2-D array, got shape {shape}")
    r, c = shape
    if fortran:
        return [[values[i + j * r] for j in range(c)] for i in range(r)]
    return [values[i * c:(i + 1) * c] for i in range(r)]


def entry(x) -> tuple[int, int, str]:
    """(numerator, denominator, canonical text) of one instance entry: a str, int or finite float."""
    t = type(x)
    if t is str:
        p, sep, q = x.partition("/")
        try:
            pi = int(p)
            qi = int(q) if sep else 1
        except ValueError:
            pi = None
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
    raise CheckFailed(f"not a rational: {x!r}")


def load_instance(path: str) -> dict:
    """Read an instance file: {'inputs': rows of Fractions, 'labels': ..., 'activation': dict or None}."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise UnreadableInput(f"cannot read {path}: {exc}") from None
    if raw[:2] == b"PK":
        try:
            with zipfile.ZipFile(path) as z:
                X = _read_npy(z.read("inputs.npy"), "inputs")
                Y = _read_npy(z.read("labels.npy"), "labels")
        except (KeyError, zipfile.BadZipFile, ValueError, struct.error) as exc:
            raise UnreadableInput(f"{path}: not a valid .npz instance ({exc})") from None
        return {"inputs": X, "labels": Y, "activation": None}
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UnreadableInput(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(obj, dict) or obj.get("format") != "exactrelu.instance" or obj.get("version") != 1:
        raise UnreadableInput(f"{path}: not an exactrelu.instance version 1")
    X, Y = obj.get("inputs"), obj.get("labels")
    for name, rows in (("inputs", X), ("labels", Y)):
        if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
            raise UnreadableInput(f"{path}: '{name}' must be a non-empty list of rows")
    return {"inputs": X, "labels": Y, "activation": obj.get("activation")}


def parsed_instance(inputs, labels):
    """Parse every entry once: rows of (nums, dens) for inputs and labels, and the SHA-256."""
    n = len(inputs)
    if n == 0 or len(labels) != n:
        raise CheckFailed("instance must have n >= 1 samples and as many label rows")
    d, m = len(inputs[0]), len(labels[0])
    h = hashlib.sha256()
    h.update(f"exactrelu.instance.v1\n{n} {d} {m}\n".encode())
    X, Y = [], []
    for x, y in zip(inputs, labels):
        if len(x) != d or len(y) != m:
            raise CheckFailed("instance rows have unequal lengths")
        ex, ey = [entry(v) for v in x], [entry(v) for v in y]
        h.update((" ".join([e[2] for e in ex]) + " | " + " ".join([e[2] for e in ey]) + "\n").encode())
        X.append(([e[0] for e in ex], [e[1] for e in ex]))
        Y.append(([e[0] for e in ey], [e[1] for e in ey]))
    return X, Y, h.hexdigest()


def instance_sha256(inputs, labels) -> str:
    """SHA-256 of the canonical instance text (docs/design.md, "Certificates")."""
    return parsed_instance(inputs, labels)[2]


def _bound_instance(cert: dict, instance: dict | None, claim: str):
    """The parsed instance a claim is about, after checking that its hash is the certificate's."""
    if instance is None:
        raise CheckFailed(f"claim '{claim}' needs its instance")
    X, Y, digest = parsed_instance(instance["inputs"], instance["labels"])
    if cert.get("instance_sha256") != digest:
        raise CheckFailed("instance_sha256 does not match the instance")
    return X, Y

