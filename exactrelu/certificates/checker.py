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

``not-realizable``
    no real weights give ``sum_i U[r][i] relu(V[i] . x_j) == labels[j][r]``: for U given, or for
    any U when m = 1 (cases u in {1, 0, -1}^k, non-increasing). Each case carries a case tree over
    activation patterns with a Farkas vector (or a proved lemma) at every leaf, or lemmas (each a
    Farkas vector) and a DRUP refutation of their clauses, replayed here by unit propagation
    (docs/certificates.md).
``lp-feasible``
    the inline linear system {x : A_eq x = b_eq, A_ub x <= b_ub} holds at ``point``.
``lp-infeasible``
    ``y_ub >= 0``, ``y_eq^T A_eq + y_ub^T A_ub = 0`` and ``y_eq^T b_eq + y_ub^T b_ub < 0``
    (a Farkas vector: the system has no solution). LP claims carry their data and need no instance.
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


def _only_fields(cert: dict, allowed: set) -> None:
    if set(cert) - allowed:
        raise CheckFailed(f"unknown fields {sorted(set(cert) - allowed)}")


def _bound_instance(cert: dict, instance: dict | None, claim: str):
    """The parsed instance a claim is about, after checking that its hash is the certificate's."""
    if instance is None:
        raise CheckFailed(f"claim '{claim}' needs its instance")
    X, Y, digest = parsed_instance(instance["inputs"], instance["labels"])
    if cert.get("instance_sha256") != digest:
        raise CheckFailed("instance_sha256 does not match the instance")
    return X, Y


def check_realizes(cert: dict, instance: dict) -> str:
    """Verify the claim ``realizes``; return a one-line summary or raise CheckFailed."""
    _only_fields(cert, {"format", "version", "claim", "instance_sha256", "activation", "U", "V", "provenance"})
    X, Y = _bound_instance(cert, instance, "realizes")
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


def _refute_leaf(leaf, dec, X, Y, U, k):
    """A Farkas combination of the leaf's rows must read 0 <= negative (or 0 == non-zero).

    ``X`` holds each sample as its non-zero entries ``[(t, x_t), ...]``.
    """
    rows = leaf.get("farkas") if isinstance(leaf, dict) and set(leaf) == {"farkas"} else None
    if not isinstance(rows, list):
        raise CheckFailed("a leaf must be {'farkas': [[kind, j, index, multiplier], ...]}")
    acc: dict = {}  # (unit, coordinate) -> coefficient of V[unit][coordinate]
    rhs = Fraction(0)
    for row in rows:
        if not (isinstance(row, list) and len(row) == 4 and row[0] in ("eq", "sign")
                and all(isinstance(t, int) and not isinstance(t, bool) for t in row[1:3])):
            raise CheckFailed(f"malformed Farkas row {row!r}")
        kind, j, x, y = row[0], row[1], row[2], parse_rational(row[3])
        if not (0 <= j < len(X) and 0 <= x < (len(Y[0]) if kind == "eq" else k)):
            raise CheckFailed(f"Farkas row {row!r} out of range")
        if kind == "sign":  # active: -v_x . x_j <= 0 ; inactive: v_x . x_j <= 0
            if (j, x) not in dec or y < 0:
                raise CheckFailed(f"sign row {row!r} undecided on this branch or with a negative multiplier")
            s = -y if dec[(j, x)] else y
            for t, v in X[j]:
                acc[(x, t)] = acc.get((x, t), 0) + s * v
        else:  # sum over active units i of U[x][i] v_i . x_j == labels[j][x]
            if any(U[x][i] != 0 and (j, i) not in dec for i in range(k)):
                raise CheckFailed(f"equation {row!r} used before all its units are decided")
            for i in range(k):
                if U[x][i] != 0 and dec[(j, i)]:
                    for t, v in X[j]:
                        acc[(i, t)] = acc.get((i, t), 0) + y * U[x][i] * v
            rhs += y * Y[j][x]
    if any(a != 0 for a in acc.values()) or rhs >= 0:
        raise CheckFailed("a leaf's Farkas combination is not 0 <= negative")


def check_not_realizable(cert: dict, instance: dict) -> str:
    """Verify the claim ``not-realizable`` (ReLU): every case tree covers all patterns and refutes each."""
    _only_fields(cert, {"format", "version", "claim", "instance_sha256", "activation", "k", "output_weights", "cases",
                        "provenance"})
    Xp, Yp = _bound_instance(cert, instance, "not-realizable")
    X, Y = ([[Fraction(p, q) for p, q in zip(*row)] for row in R] for R in (Xp, Yp))
    X = [[(t, v) for t, v in enumerate(row) if v] for row in X]  # sparse rows
    if _degree(cert.get("activation")) != 1 or (instance.get("activation") is not None and _degree(instance["activation"]) != 1):
        raise CheckFailed("not-realizable is a claim about the ReLU")
    k, m, cases, mode = cert.get("k"), len(Y[0]), cert.get("cases"), cert.get("output_weights")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or not isinstance(cases, list):
        raise CheckFailed("k must be a positive integer and cases a list")
    Us = [_matrix(c.get("U") if isinstance(c, dict) else None, m, k, "U") for c in cases]
    if mode == "unknown":  # positive homogeneity + unit permutation: u in {1,0,-1}^k non-increasing
        import itertools
        expect = [[list(map(Fraction, u))] for u in itertools.combinations_with_replacement((1, 0, -1), k)]
        if m != 1 or Us != expect:
            raise CheckFailed("unknown output weights need m = 1 and exactly the cases {1,0,-1}^k, non-increasing")
    elif mode != "given" or len(cases) != 1:
        raise CheckFailed("output_weights must be 'given' (one case) or 'unknown'")
    leaves = steps = 0
    shapes = ({"U", "tree"}, {"U", "tree", "lemmas"}, {"U", "lemmas", "rup"}, {"U", "lemmas", "rup", "symmetry"})
    for c, U in zip(cases, Us):
        if not (isinstance(c, dict) and set(c) in shapes and isinstance(c.get("lemmas", []), list)):
            raise CheckFailed("a case is {'U', 'tree', optional 'lemmas'} or {'U', 'lemmas', 'rup', optional 'symmetry'}")
        proved = []  # assumptions of the lemmas verified so far, in order
        for lemma in c.get("lemmas", []):
            assume = lemma.get("assume") if isinstance(lemma, dict) and set(lemma) == {"assume", "tree"} else None
            if not isinstance(assume, list) or not all(
                    isinstance(a, list) and len(a) == 3 and isinstance(a[2], bool) and _pair(a[:2], len(X), k) for a in assume):
                raise CheckFailed("a lemma is {'assume': [[j, i, active], ...], 'tree': [...]}")
            dec = {(a[0], a[1]): a[2] for a in assume}
            if len(dec) != len(assume):
                raise CheckFailed("a lemma assumes the same split twice")
            leaves += _check_tree(lemma["tree"], dec, proved, X, Y, U, k)
            proved.append(dec)
        if "tree" in c:
            leaves += _check_tree(c["tree"], {}, proved, X, Y, U, k)
            continue
        # every full assignment of the literals (j, i) -> active violates a clause: not(lemma assumptions),
        # plus, under symmetry, "sorted on one sample"; the DRUP steps show that clause set unsatisfiable
        clauses = [[-(j * k + i + 1) if a else j * k + i + 1 for (j, i), a in dec.items()] for dec in proved]
        if "symmetry" in c:
            clauses += _symmetry_clauses(c["symmetry"], U, len(X), k)
        steps += _check_rup(clauses, c["rup"], len(X) * k)
    rup = f", {steps} DRUP steps replayed" if steps else ""
    return f"not-realizable: {len(cases)} output-weight case(s) ({mode}), {leaves} leaves refuted{rup} (k={k}, {len(X)} samples)"


def _symmetry_clauses(sym, U, n, k) -> list[list[int]]:
    """Units with equal output-weight columns may be permuted: on sample j0, take them active first.

    A permutation inside each class of equal columns leaves every output unchanged; choosing the
    one that sorts the class by "active at sample j0" (active: V[i] . x_j0 >= 0) shows that if any
    V realises the labels, one does with ``active(j0, a) or not active(j0, b)`` for consecutive a, b.
    """
    if not (isinstance(sym, dict) and set(sym) == {"sample", "classes"} and _pair([sym["sample"], 0], n, k)
            and isinstance(sym["classes"], list)):
        raise CheckFailed("symmetry is {'sample': j, 'classes': [[i, i2, ...], ...]}")
    used: set = set()
    out = []
    for cls in sym["classes"]:
        if not (isinstance(cls, list) and len(cls) >= 2 and all(_pair([0, i], 1, k) for i in cls)) or used & set(cls) \
                or len(set(cls)) != len(cls):
            raise CheckFailed(f"bad symmetry class {cls!r} (units in range, disjoint classes)")
        used |= set(cls)
        if any(row[i] != row[cls[0]] for row in U for i in cls):
            raise CheckFailed(f"units {cls} do not have equal output-weight columns: no symmetry")
        j0 = sym["sample"]
        out += [[j0 * k + a + 1, -(j0 * k + b + 1)] for a, b in zip(cls, cls[1:])]
    return out


def _check_rup(clauses, proof, nvars) -> int:
    """Replay DRUP steps: each added clause must follow by unit propagation; then a conflict.

    ``proof`` is a list of steps ``[l1, l2, ...]`` (add; literal +-(variable), variables 1..nvars)
    or ``["d", l1, ...]`` (delete: deleting can only make later steps fail, so it is trusted).
    The clause set is refuted once unit propagation at the top level meets a conflict (the
    empty clause ``[]`` ends a proof but may be left out). Returns the number of steps.
    Two watched literals per clause; top-level assignments stay (they follow from the clauses).
    """
    if not isinstance(proof, list) or not proof:
        raise CheckFailed("rup must be a non-empty list of steps")
    size = 2 * nvars + 1
    val = bytearray(size)  # val[lit] == 1: lit is true; negative literals index from the end
    watches: list = [[] for _ in range(size)]
    db: list = []
    alive = bytearray()
    index: dict = {}
    trail: list = []

    def lits(c, what):
        if not (isinstance(c, list) and all(type(x) is int and 0 < abs(x) <= nvars for x in c)):
            raise CheckFailed(f"malformed {what} {c!r} (literals +-1..{nvars})")
        return list(dict.fromkeys(c))

    def propagate(q):
        """Unit propagation of trail[q:]; False on a conflict."""
        while q < len(trail):
            false = -trail[q]
            q += 1
            ws = watches[false]
            if not ws:
                continue
            keep = []
            for n_, ci in enumerate(ws):
                if not alive[ci]:
                    continue
                c = db[ci]
                if c[0] == false:
                    c[0] = c[1]
                    c[1] = false
                first = c[0]
                if val[first]:
                    keep.append(ci)
                    continue
                for p in range(2, len(c)):
                    x = c[p]
                    if not val[-x]:
                        c[1] = x
                        c[p] = false
                        watches[x].append(ci)
                        break
                else:
                    keep.append(ci)
                    if val[-first]:
                        keep.extend(ws[n_ + 1:])
                        watches[false] = keep
                        return False
                    val[first] = 1
                    trail.append(first)
            watches[false] = keep
        return True

    def add(c):
        """Add a clause at the top level; True once the clause set is refuted."""
        true = [x for x in c if val[x]]
        free = true + [x for x in c if not val[x] and not val[-x]]
        if not free:
            return True
        ci = len(db)
        db.append(free + [x for x in c if val[-x]])
        alive.append(1)
        index.setdefault(tuple(sorted(c)), []).append(ci)
        if len(free) == 1:
            if not true:
                mark = len(trail)
                val[free[0]] = 1
                trail.append(free[0])
                return not propagate(mark)
            return False
        watches[free[0]].append(ci)
        watches[free[1]].append(ci)
        return False

    refuted = False
    for c in clauses:
        if add(lits(c, "clause")):
            refuted = True
            break
    steps = 0
    for step in proof:
        if refuted:
            break
        steps += 1
        if type(step) is list and step[:1] == ["d"]:
            key = tuple(sorted(lits(step[1:], "deletion")))
            found = index.get(key)
            if found:
                alive[found.pop()] = 0
            continue
        c = lits(step, "proof step")
        mark = len(trail)
        ok = any(val[x] for x in c) or any(-x in c for x in c)
        if not ok:
            for x in c:
                if not val[-x]:
                    val[-x] = 1
                    trail.append(-x)
            ok = not propagate(mark)
        for x in trail[mark:]:
            val[x] = 0
        del trail[mark:]
        if not ok:
            raise CheckFailed(f"proof step {c} does not follow by unit propagation")
        if add(c):
            refuted = True
    if not refuted:
        raise CheckFailed("the DRUP steps do not refute the clauses (no conflict by unit propagation at the end)")
    return steps


def _pair(p, n, k):
    return all(isinstance(t, int) and not isinstance(t, bool) for t in p) and 0 <= p[0] < n and 0 <= p[1] < k


def _check_tree(tree, dec0, proved, X, Y, U, k) -> int:
    """Read a preorder case tree under the decisions dec0; return the number of leaves refuted.

    A leaf is a Farkas vector, or {'lemma': t}: an earlier proved lemma whose assumptions all hold here.
    """
    if not isinstance(tree, list):
        raise CheckFailed("a tree is a list of nodes in preorder")
    stack, leaves = [dec0], 0  # decided (j, i) -> active, for each subtree still to read
    for node in tree:
        if not stack:
            raise CheckFailed("the tree has nodes after it is complete")
        dec = stack.pop()
        keys = set(node) if isinstance(node, dict) else None
        if keys == {"lemma"}:
            t = node["lemma"]
            if not (isinstance(t, int) and not isinstance(t, bool) and 0 <= t < len(proved)) or \
                    any(dec.get(key) is not a for key, a in proved[t].items()):
                raise CheckFailed(f"lemma {t!r} is not proved before, or its assumptions do not hold here")
        elif keys == {"split"}:
            split = node["split"]
            if not (isinstance(split, list) and len(split) == 2 and _pair(split, len(X), k) and tuple(split) not in dec):
                raise CheckFailed(f"bad split {split!r}")
            stack += [{**dec, tuple(split): False}, {**dec, tuple(split): True}]  # active child first
            continue
        else:
            _refute_leaf(node, dec, X, Y, U, k)
        leaves += 1
    if stack:
        raise CheckFailed("the tree is incomplete")
    return leaves


def _vector(obj, size, name):
    if not isinstance(obj, list) or len(obj) != size:
        raise CheckFailed(f"{name} must be a list of {size} rationals")
    return [parse_rational(x) for x in obj]


def _lp_system(cert, extra):
    """The inline system of an LP claim: (n, A_eq, b_eq, A_ub, b_ub)."""
    _only_fields(cert, {"format", "version", "claim", "system", "provenance"} | extra)
    s = cert.get("system")
    if not isinstance(s, dict) or set(s) != {"nvars", "A_eq", "b_eq", "A_ub", "b_ub"}:
        raise CheckFailed("system must have exactly nvars, A_eq, b_eq, A_ub, b_ub")
    n = s["nvars"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise CheckFailed("nvars must be a non-negative integer")
    out = [n]
    for a, b in (("A_eq", "b_eq"), ("A_ub", "b_ub")):
        if not isinstance(s[a], list):
            raise CheckFailed(f"{a} must be a list of rows")
        rows = len(s[a])
        out += [_matrix(s[a], rows, n, a), _vector(s[b], rows, b)]
    return out


def check_lp_feasible(cert: dict, instance=None) -> str:
    """Verify ``lp-feasible``: every constraint of the inline system holds at ``point``."""
    n, Ae, be, Au, bu = _lp_system(cert, {"point"})
    x = _vector(cert.get("point"), n, "point")
    for i, (row, b) in enumerate(zip(Ae, be)):
        if sum(map(mul, row, x)) != b:
            raise CheckFailed(f"equation {i} fails at the point")
    for i, (row, b) in enumerate(zip(Au, bu)):
        if sum(map(mul, row, x)) > b:
            raise CheckFailed(f"inequality {i} fails at the point")
    return f"lp-feasible: {len(Ae)} equations, {len(Au)} inequalities in {n} variables hold at the point"


def check_lp_infeasible(cert: dict, instance=None) -> str:
    """Verify ``lp-infeasible``: the Farkas vector (y_eq, y_ub) proves that no point exists."""
    n, Ae, be, Au, bu = _lp_system(cert, {"y_eq", "y_ub"})
    ye = _vector(cert.get("y_eq"), len(Ae), "y_eq")
    yu = _vector(cert.get("y_ub"), len(Au), "y_ub")
    if any(v < 0 for v in yu):
        raise CheckFailed("y_ub has a negative entry")
    for j in range(n):
        if sum(v * row[j] for v, row in zip(ye + yu, Ae + Au)) != 0:
            raise CheckFailed(f"the combination y^T A is not zero in column {j}")
    if sum(map(mul, ye + yu, be + bu)) >= 0:
        raise CheckFailed("the combination y^T b is not negative")
    return f"lp-infeasible: {len(Ae)} equations, {len(Au)} inequalities in {n} variables have no solution (Farkas vector checked)"


CLAIMS = {"realizes": check_realizes, "lp-feasible": check_lp_feasible, "lp-infeasible": check_lp_infeasible,
          "not-realizable": check_not_realizable}


def check(cert: dict, instance: dict | None) -> str:
    """Verify a certificate (a parsed JSON object) against a loaded instance (None for claims that carry their data)."""
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise CheckFailed(f"not an {FORMAT}")
    if cert.get("version") != 1:
        raise CheckFailed(f"unsupported certificate version {cert.get('version')!r}")
    claim = cert.get("claim")
    if claim not in CLAIMS:
        raise CheckFailed(f"unknown claim {claim!r}; this checker knows {sorted(CLAIMS)}")
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
