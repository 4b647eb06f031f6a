"""The fast checker and the reference give the same verdict, word for word, on every corpus certificate and on
tampered ones: a changed entry of U, V, b or c, a changed label or input (with the hash recomputed, and without), a
wrong hash, a wrong ``except`` list, a squared error off by 1/q; on JSON, .npz and in-memory instances, on one
process and on forked workers, at the reference's size limits, and where the fast checker hands rows to the
reference (other numbers than dyadic ones, non-canonical text)."""

from __future__ import annotations

import copy
import hashlib
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker, fast
from exactrelu.certificates.claims.realizes import (realizes_certificate, realizes_except_certificate,
                                                    residual_certificate)
from exactrelu.certificates.claims.residual import exact_residual
from exactrelu.certificates.fast import blocks
from exactrelu.certificates.fast.sources import reference_view
from exactrelu.certificates.trusted import common
from exactrelu.certificates.trusted.instance import instance_sha256
from exactrelu.exact import QMatrix
from exactrelu.instances import Instance, planted
from exactrelu.instances.checker_view import checker_instance, fast_instance
from exactrelu.network import RELU, Activation, Network

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
ROWS = json.loads((CORPUS / "MANIFEST.json").read_text())
_VALID = [(r, json.loads((CORPUS / r["certificate"]).read_text())) for r in ROWS if r["certificate"].startswith("valid/")]
#: the two-layer bulk claims; DEEP: the same claims about a network given by its layers (decided by the fast checker on
#: dyadic rows, handed to the reference on rows of other numbers: docs/design.md, "The fast checker")
BULK = [r for r, c in _VALID if c["claim"] in fast.CLAIMS and "layers" not in c]
DEEP = [r for r, c in _VALID if c["claim"] in fast.CLAIMS and "layers" in c]


def outcome(run) -> tuple[str, str]:
    try:
        return "VALID", run()
    except checker.CheckFailed as exc:
        return "INVALID", str(exc)
    except checker.UnreadableInput as exc:
        return "UNREADABLE", str(exc)


def agree(cert, instance, workers: int = 1) -> tuple[str, str]:
    """Both checkers on the same certificate and instance (a fresh copy each): their verdict, which must be one."""
    ref = outcome(lambda: checker.check_parallel(cert, reference_view(copy.copy(instance)), workers))
    got = outcome(lambda: fast.check(cert, copy.copy(instance), workers))
    assert got == ref
    return ref


@pytest.fixture
def fast_only(monkeypatch):
    """Fails the test when the fast checker hands a block to the reference."""
    def refuse(*args, **kwargs):
        raise AssertionError("a block went to the reference")
    monkeypatch.setattr(blocks, "check_rows", refuse)


@pytest.mark.parametrize("row", ROWS, ids=[r["certificate"] for r in ROWS])
def test_every_corpus_certificate_gets_the_references_verdict(row):
    args = (str(CORPUS / row["certificate"]), str(CORPUS / row["instance"]) if row["instance"] else None)
    ref, got = outcome(lambda: checker.check_files(*args)), outcome(lambda: fast.check_files(*args))
    assert got == ref
    kind, line = {0: ("VALID", "VALID: "), 1: ("INVALID", "INVALID: "), 2: ("UNREADABLE", "error: ")}[row["exit"]]
    assert got[0] == kind and row["expect"] in line + got[1]  # the manifest's text, as the command prints it


def _load(row):
    cert = json.loads((CORPUS / row["certificate"]).read_text())
    return cert, checker.load_instance(str(CORPUS / row["instance"]), parse=False)


def _tampered_weights(cert):
    """One changed entry of U, V, b or c at a time (+1/3, then negated), and a b or c added where there is none."""
    for key in ("U", "V", "b", "c"):
        if key not in cert:
            out = copy.deepcopy(cert)
            width = len(cert["V"]) if key == "b" else len(cert["U"])
            out[key] = ["1/4"] + ["0"] * (width - 1)
            yield out
            continue
        rows = cert[key] if key in ("U", "V") else [cert[key]]
        for i, row in enumerate(rows):
            for j, x in enumerate(row):
                for new in (Fraction(x) + Fraction(1, 3), -Fraction(x) - 1):
                    out = copy.deepcopy(cert)
                    target = out[key][i] if key in ("U", "V") else out[key]
                    target[j] = str(new)
                    yield out


@pytest.mark.parametrize("row", BULK, ids=[r["certificate"] for r in BULK])
def test_tampered_weights_hash_and_claims(row, fast_only):
    cert, inst = _load(row)
    assert agree(cert, inst)[0] == "VALID"
    verdicts = {agree(bad, inst)[1] for bad in _tampered_weights(cert)}
    assert any("differs" in v or "squared_error" in v or "reproduces" in v for v in verdicts)
    bad = dict(cert, instance_sha256=("0" if cert["instance_sha256"][0] != "0" else "1") + cert["instance_sha256"][1:])
    assert agree(bad, inst) == ("INVALID", "instance_sha256 does not match the instance")
    if cert["claim"] == "realizes-except":
        listed = cert["except"]
        for wrong in (listed[1:], listed[:-1], sorted(listed + [[0, 1]]), [[0, 0]] + listed[1:]):
            assert agree(dict(cert, **{"except": wrong}), inst)[0] == "INVALID"
    if cert["claim"] == "residual":
        for key in ("squared_error", "max_abs_error"):
            stated = Fraction(cert[key])
            for off in (Fraction(1, stated.denominator), -Fraction(1, stated.denominator), Fraction(1, 2**80)):
                assert agree(dict(cert, **{key: str(stated + off)}), inst)[0] == "INVALID"


def _tampered_layers(cert):
    """One changed entry of a layer's W or b at a time (+1/3), and a bias added to a layer that has none."""
    for t, layer in enumerate(cert["layers"]):
        for key in ("W", "b"):
            if key not in layer:
                out = copy.deepcopy(cert)
                out["layers"][t]["b"] = ["1/4"] + ["0"] * (len(layer["W"]) - 1)
                yield out
                continue
            rows = layer[key] if key == "W" else [layer[key]]
            for i, row in enumerate(rows):
                for j, x in enumerate(row):
                    out = copy.deepcopy(cert)
                    target = out["layers"][t][key][i] if key == "W" else out["layers"][t][key]
                    target[j] = str(Fraction(x) + Fraction(1, 3))
                    yield out


@pytest.mark.parametrize("row", DEEP, ids=[r["certificate"] for r in DEEP])
def test_deep_certificates_tampered_get_the_references_verdict(row, monkeypatch):
    cert, inst = _load(row)
    handed = []
    original = blocks.check_rows
    monkeypatch.setattr(blocks, "check_rows", lambda *a, **k: handed.append(a[2:4]) or original(*a, **k))
    assert agree(cert, inst)[0] == "VALID"
    assert bool(handed) == (row["instance"] == "instances/deep.json")  # its rows hold thirds: the reference's
    verdicts = [agree(bad, inst) for bad in _tampered_layers(cert)]
    assert any(v[0] == "INVALID" for v in verdicts)
    mixed = dict(cert, V=[["1"] * len(cert["layers"][0]["W"][0])])
    assert agree(mixed, inst) == ("INVALID", "a network has 'layers' or U, V, b, c, not both")


def _rehashed(cert, inputs, labels):
    return dict(cert, instance_sha256=instance_sha256(inputs, labels))


@pytest.mark.parametrize("row", [r for r in BULK if r["instance"].endswith(".json")],
                         ids=[r["certificate"] for r in BULK if r["instance"].endswith(".json")])
def test_one_changed_label_or_input(row, fast_only):
    cert, inst = _load(row)
    for name in ("labels", "inputs"):
        for j in range(0, len(inst[name]), 3):
            rows = [list(r) for r in inst[name]]
            rows[j][-1] = str(Fraction(rows[j][-1]) + Fraction(1, 1024))
            changed = dict(inst, **{name: rows})
            assert agree(cert, changed) == ("INVALID", "instance_sha256 does not match the instance")
            agree(_rehashed(cert, changed["inputs"], changed["labels"]), changed)


def test_an_npz_instance_changed_and_rehashed(tmp_path, fast_only):
    row = next(r for r in BULK if r["instance"].endswith(".npz"))
    cert, _ = _load(row)
    with np.load(CORPUS / row["instance"]) as z:
        X, Y = z["inputs"], z["labels"]
    for name, arr in (("labels", Y), ("inputs", X)):
        for j in (0, len(arr) - 1):
            new = arr.copy()
            new[j, -1] += 0.5
            data = {"inputs": X, "labels": Y, name: new}
            for compress in (np.savez, np.savez_compressed):
                path = tmp_path / f"{name}{j}{compress.__name__}.npz"
                compress(path, **data)
                inst = checker.load_instance(str(path), parse=False)
                assert agree(cert, inst)[0] == "INVALID"
                rehashed = _rehashed(cert, data["inputs"].tolist(), data["labels"].tolist())
                assert agree(rehashed, checker.load_instance(str(path), parse=False))[0] == "INVALID"
    for dtype in (np.float32, np.int64, np.int32):  # the same values in other dtypes: the same instance
        path = tmp_path / f"{np.dtype(dtype).name}.npz"
        np.savez(path, inputs=X.astype(dtype), labels=Y.astype(dtype))
        assert agree(cert, checker.load_instance(str(path), parse=False))[0] == "VALID"


def _library_cases(n=900, seed=5):
    """In-memory instances as the library hands them over: float64 inputs, exact labels as text rows, and float64
    labels; the three claims, with biases."""
    inst = planted(d=4, k=3, m=3, n=n, seed=seed, bias=1.0)
    net = inst.planted
    Y = inst.labels.to_fractions()
    Y[n // 2][1] += Fraction(1, 1024)
    Y[n - 1][0] -= Fraction(5, 2**70)
    noisy = Instance(inst.inputs, QMatrix.from_rows(Y))
    res = exact_residual(net, noisy, max_listed=None)
    floats = Instance.from_arrays(inst.float_inputs(), np.round(inst.float_labels(), 3))
    float_res = exact_residual(net, floats, max_listed=None)
    return [(realizes_certificate(inst, net), inst), (realizes_except_certificate(noisy, net, res.failing), noisy),
            (residual_certificate(noisy, net, residual=res), noisy), (realizes_certificate(noisy, net), noisy),
            (residual_certificate(floats, net, residual=float_res), floats)]


@pytest.mark.parametrize("workers", [1, 2])
def test_library_instances_in_many_blocks_one_and_two_workers(workers, monkeypatch, fast_only):
    monkeypatch.setattr(blocks, "ENTRIES", 2000)  # 200 samples a block
    verdicts = []
    for cert, inst in _library_cases():
        data = fast_instance(inst)
        assert isinstance(data["inputs"], np.ndarray)
        ref = outcome(lambda: checker.check(cert, checker_instance(inst)))
        assert outcome(lambda: fast.check(cert, data, workers)) == ref
        verdicts.append(ref)
    assert [v[0] for v in verdicts] == ["VALID", "VALID", "VALID", "INVALID", "VALID"]
    assert verdicts[3][1] == "sample 450, output 1: the network's value differs from the label"


def test_kinks_at_zero_extreme_floats_and_powers():
    extreme = np.array([[1.0, -1.0], [5e-324, 0.0], [-0.0, 2.0**60], [1e300, -1e300], [0.5, 0.5], [3.0, 1.0]])
    mild = np.array([[1.0, -1.0], [2.0**-60, 0.0], [-0.0, 2.0**60], [1e10, -1e10], [0.5, 0.5], [3.0, 1.0]])
    for degree, X in ((1, extreme), (2, mild), (3, mild)):
        act = Activation.power(degree) if degree > 1 else RELU
        net = Network.from_rows([[1, -2], [3, 1]], [[1, 1], [1, -1]], b=[0, 0], activation=act)  # V.x = 0 on row 0
        inst = Instance.from_arrays(X, net.evaluate_exact(X.tolist()).to_fractions(), activation=act)
        cert = realizes_certificate(inst, net)
        assert agree(cert, fast_instance(inst))[0] == "VALID"
        for key, i, j in (("V", 0, 1), ("U", 1, 0)):
            bad = copy.deepcopy(cert)
            bad[key][i][j] = str(Fraction(bad[key][i][j]) + Fraction(1, 2**1074))
            assert agree(bad, fast_instance(inst))[0] == "INVALID"


def test_rows_the_fast_checker_does_not_read_go_to_the_reference(monkeypatch):
    cert, inst = _load(next(r for r in BULK if r["certificate"] == "valid/realizes.json"))
    used = []
    real = blocks.check_rows
    monkeypatch.setattr(blocks, "check_rows", lambda *a: used.append(1) or real(*a))
    variants = {"a non-canonical number": lambda v: "+" + v if not v.startswith("-") else v,
                "a decimal": lambda v: str(float(Fraction(v))),
                "a JSON integer": lambda v: int(Fraction(v)) if Fraction(v).denominator == 1 else v,
                "a third": lambda v: str(Fraction(v) + Fraction(1, 3))}
    for name, change in variants.items():
        rows = [list(r) for r in inst["labels"]]
        rows[4][0] = change(rows[4][0])
        changed = dict(inst, labels=rows)
        agree(cert, changed)
        agree(_rehashed(cert, inst["inputs"], [[common.parse_rational(x) for x in r] for r in rows]), changed)
    assert used
    X = np.array([[1.0, 2.0**-1074, 2.0**1000]])  # squares too wide for the limbs: the reference reads the row
    net = Network.from_rows([[1]], [[1, 1, 1]], activation=Activation.power(2))
    inst = Instance.from_arrays(X, net.evaluate_exact(X.tolist()).to_fractions(), activation=Activation.power(2))
    used.clear()
    assert agree(realizes_certificate(inst, net), fast_instance(inst))[0] == "VALID" and used


def test_the_references_intermediate_limit_is_kept_at_its_edge(monkeypatch):
    cert, inst = _load(next(r for r in BULK if r["certificate"] == "valid/realizes-bc.json"))

    def verdict(cap):
        monkeypatch.setitem(common._limits, "intermediate", cap)
        return agree(cert, inst)[0]

    lo, hi = 1, 400  # the reference refuses at 1 digit and accepts at 400: find its edge
    assert verdict(lo) == "UNREADABLE" and verdict(hi) == "VALID"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if verdict(mid) == "UNREADABLE" else (lo, mid)
    assert verdict(hi - 1) == "UNREADABLE" and verdict(hi) == "VALID"


weights = st.fractions(min_value=-4, max_value=4, max_denominator=6)


@settings(max_examples=30)
@given(st.data())
def test_random_networks_data_and_tampering(data):
    d, k, m, n = (data.draw(st.integers(1, 3)) for _ in range(4))
    V = [[data.draw(weights) for _ in range(d)] for _ in range(k)]
    U = [[data.draw(weights) for _ in range(k)] for _ in range(m)]
    b, c = [data.draw(weights) for _ in range(k)], [data.draw(weights) for _ in range(m)]
    net = Network.from_rows(U, V, b=b, c=c)
    X = np.array([[data.draw(st.sampled_from([0.0, -0.0, 1.0, -2.5, 0.1, 3e-5, 2.0**40, -(2.0**-30)]))
                   for _ in range(d)] for _ in range(n)])
    inst = Instance.from_arrays(X, net.evaluate_exact(X.tolist()).to_fractions())
    cert = realizes_certificate(inst, net)
    kind = data.draw(st.sampled_from(["valid", "U", "V", "b", "c", "label"]))
    if kind == "label":
        Y = inst.labels.to_fractions()
        Y[data.draw(st.integers(0, n - 1))][data.draw(st.integers(0, m - 1))] += Fraction(1, 2**60)
        inst = Instance(inst.inputs, QMatrix.from_rows(Y))
        cert = realizes_certificate(inst, net) if data.draw(st.booleans()) else cert
    elif kind != "valid":
        rows = cert.setdefault(kind, ["0"] * (k if kind == "b" else m))
        row = rows[data.draw(st.integers(0, len(rows) - 1))] if kind in ("U", "V") else rows
        i = data.draw(st.integers(0, len(row) - 1))
        row[i] = str(Fraction(row[i]) + data.draw(st.sampled_from([Fraction(1, 7), Fraction(-1, 2**50), 1])))
    assert agree(cert, fast_instance(inst)) == agree(cert, checker_instance(inst))


def test_the_command_line_checks_fast_and_by_the_reference(capsys):
    from exactrelu.cli import main

    args = [str(CORPUS / "valid/residual.json"), str(CORPUS / "instances/noisy.json"), "--json"]
    for extra, used in (([], "fast"), (["--reference"], "reference"), (["--workers", "2"], "fast")):
        assert main(["check", *args, *extra]) == 0
        record = json.loads(capsys.readouterr().out)
        assert record["checker"] == used and record["summary"].startswith("residual: 12 samples")
    bad = [str(CORPUS / "invalid/residual-max.json"), str(CORPUS / "instances/noisy.json")]
    assert main(["check", *bad]) == 1 and "max_abs_error is 0" in capsys.readouterr().out


def test_the_hash_binds_the_blocks_in_order():
    row = next(r for r in BULK if r["certificate"] == "valid/realizes.json")
    cert, inst = _load(row)
    text = b"".join(b"%s | %s\n" % (" ".join(x).encode(), " ".join(y).encode())
                    for x, y in zip(inst["inputs"], inst["labels"]))
    n, d, m = len(inst["inputs"]), len(inst["inputs"][0]), len(inst["labels"][0])
    digest = hashlib.sha256(f"exactrelu.instance.v1\n{n} {d} {m}\n".encode() + text).hexdigest()
    assert digest == cert["instance_sha256"]
    swapped = dict(inst, inputs=inst["inputs"][1:] + inst["inputs"][:1], labels=inst["labels"][1:] + inst["labels"][:1])
    assert agree(cert, swapped) == ("INVALID", "instance_sha256 does not match the instance")


def test_the_fast_checker_loads_no_flint_no_solver_and_no_exact_package():
    import subprocess
    import sys

    code = ("import sys, exactrelu.certificates.fast; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('flint', 'scipy', 'highspy', 'pysat') "
            "or m.startswith(('exactrelu.exact', 'exactrelu.recover', 'exactrelu.decide', 'exactrelu.network'))); "
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
