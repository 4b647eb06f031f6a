"""Independent checker for exactrelu certificates. Standard library only.

This file imports nothing from exactrelu and no numeric library: it re-reads the
instance, recomputes its SHA-256, and verifies each claim with Python integers and
fractions. It shares no code with the solver, so a bug in the solver cannot hide here.

Usage::

    python -m exactrelu.certificates.checker CERT.json INSTANCE.(json|npz)

Exit status: 0 the certificate holds, 1 it does not, 2 the files cannot be read.

Claims known (every other claim is rejected):

``realizes``
    for every sample j and output r, ``sum_i U[r][i] f(V[i] . x_j) == labels[j][r]``,
    f = ReLU or the rectified power t^c (DESIGN.md, "Certificates").
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import struct
import sys
import zipfile
from fractions import Fraction
from operator import mul

FORMAT = "exactrelu.certificate"


class CheckFailed(Exception):
    """The certificate does not verify (the claim is false, or the file is not a valid certificate)."""


class UnreadableInput(Exception):
    """An instance or certificate file cannot be read at all."""


# -- rationals ------------------------------------------------------------------------------

def parse_rational(x) -> Fraction:
    """A JSON integer, or a string 'p/q', 'p' or a decimal, read exactly."""
    if isinstance(x, bool):
        raise CheckFailed(f"not a rational: {x!r}")
    if isinstance(x, int):
        return Fraction(x)
    if not isinstance(x, str):
        raise CheckFailed(f"not a rational: {x!r}")
    try:
        if "/" in x:
            p, q = x.split("/")
            if int(q) <= 0:
                raise CheckFailed(f"non-positive denominator in {x!r}")
            return Fraction(int(p), int(q))
        return Fraction(x)
    except (ValueError, ZeroDivisionError):
        raise CheckFailed(f"not a rational: {x!r}") from None


def canonical(f: Fraction) -> str:
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


# -- instances ------------------------------------------------------------------------------

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
    """SHA-256 of the canonical instance text (DESIGN.md, "Certificates")."""
    return parsed_instance(inputs, labels)[2]


# -- claims ---------------------------------------------------------------------------------

def _matrix(obj, rows, cols, name):
    if not isinstance(obj, list) or len(obj) != rows:
        raise CheckFailed(f"{name} must have {rows} rows")
    out = []
    for r in obj:
        if not isinstance(r, list) or len(r) != cols:
            raise CheckFailed(f"every row of {name} must have {cols} entries")
        out.append([parse_rational(x) for x in r])
    return out


def _degree(act) -> int:
    if act == {"name": "relu"}:
        return 1
    if isinstance(act, dict) and set(act) == {"name", "degree"} and act["name"] == "power":
        c = act["degree"]
        if isinstance(c, int) and not isinstance(c, bool) and c >= 1:
            return c
    raise CheckFailed(f"unknown activation {act!r}")


def check_realizes(cert: dict, instance: dict) -> str:
    """Verify the claim ``realizes``; return a one-line summary or raise CheckFailed."""
    allowed = {"format", "version", "claim", "instance_sha256", "activation", "U", "V", "provenance"}
    if set(cert) - allowed:
        raise CheckFailed(f"unknown fields {sorted(set(cert) - allowed)}")
    X, Y, digest = parsed_instance(instance["inputs"], instance["labels"])
    if cert.get("instance_sha256") != digest:
        raise CheckFailed("instance_sha256 does not match the instance")
    c = _degree(cert.get("activation"))
    if instance.get("activation") is not None and _degree(instance["activation"]) != c:
        raise CheckFailed("the certificate's activation differs from the instance's")
    n, d, m = len(X), len(X[0][0]), len(Y[0][0])
    Uraw, Vraw = cert.get("U"), cert.get("V")
    if not isinstance(Vraw, list) or not Vraw:
        raise CheckFailed("V must be a non-empty list of rows")
    k = len(Vraw)
    U = _matrix(Uraw, m, k, "U")
    V = _matrix(Vraw, k, d, "V")
    # integer form: V_i = Nv_i / Dv_i ; U_ri / Dv_i^c = Na_ri / Du_r ; x_j = Nx_j / Dx_j
    Dv = [math.lcm(*(f.denominator for f in row)) for row in V]
    Nv = [[f.numerator * (D // f.denominator) for f in row] for row, D in zip(V, Dv)]
    A = [[U[r][i] / Fraction(Dv[i]) ** c for i in range(k)] for r in range(m)]
    Du = [math.lcm(*(f.denominator for f in row)) for row in A]
    Na = [[f.numerator * (D // f.denominator) for f in row] for row, D in zip(A, Du)]
    for j in range(n):
        nums, dens = X[j]
        Dx = math.lcm(*dens)
        Nx = nums if Dx == 1 else [p * (Dx // q) for p, q in zip(nums, dens)]
        h = []
        for i in range(k):
            t = sum(map(mul, Nv[i], Nx))
            h.append(t**c if t > 0 else 0)
        scale = Dx**c
        ynum, yden = Y[j]
        for r in range(m):
            if ynum[r] * Du[r] * scale != yden[r] * sum(map(mul, Na[r], h)):
                raise CheckFailed(f"sample {j}, output {r}: the network's value differs from the label")
    return f"realizes: {n} samples x {m} outputs equal exactly (k={k}, d={d}, activation degree {c})"


CLAIMS = {"realizes": check_realizes}


def check(cert: dict, instance: dict | None) -> str:
    """Verify a certificate (a parsed JSON object) against a loaded instance."""
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise CheckFailed(f"not an {FORMAT}")
    if cert.get("version") != 1:
        raise CheckFailed(f"unsupported certificate version {cert.get('version')!r}")
    claim = cert.get("claim")
    if claim not in CLAIMS:
        raise CheckFailed(f"unknown claim {claim!r}; this checker knows {sorted(CLAIMS)}")
    if instance is None:
        raise CheckFailed(f"claim {claim!r} needs its instance")
    return CLAIMS[claim](cert, instance)


def check_files(cert_path: str, instance_path: str | None) -> str:
    try:
        with open(cert_path, encoding="utf-8") as fh:
            cert = json.load(fh)
    except OSError as exc:
        raise UnreadableInput(f"cannot read {cert_path}: {exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckFailed(f"{cert_path}: not valid JSON ({exc})") from None
    instance = load_instance(instance_path) if instance_path is not None else None
    return check(cert, instance)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (1, 2) or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0])
        print("usage: python -m exactrelu.certificates.checker CERT [INSTANCE]")
        return 2
    try:
        summary = check_files(argv[0], argv[1] if len(argv) == 2 else None)
    except UnreadableInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except CheckFailed as exc:
        print(f"INVALID: {exc}")
        return 1
    print(f"VALID: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
