"""Deep networks in the fast checker (``"layers"``: two or more hidden layers): the hidden layers in limbs against
Fractions, the reference's per-sample sizes against the reference's own hidden rows (Python integers), and both
checkers' verdicts, word for word, on valid, tampered and malformed deep claims, at the reference's bound to the bit,
on one and two workers; every block decided by the fast checker itself (docs/design.md, "The fast checker")."""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker, fast
from exactrelu.certificates.claims.realizes import (realizes_certificate, realizes_except_certificate,
                                                    residual_certificate)
from exactrelu.certificates.envelope import verify
from exactrelu.certificates.fast import blocks, deep, limbs, network, numbers
from exactrelu.certificates.fast.limbs import FastDomain
from exactrelu.certificates.trusted import common, realizes_bounds, schedule
from exactrelu.certificates.trusted import deep as trusted_deep
from exactrelu.exact import QMatrix
from exactrelu.instances import Instance
from exactrelu.instances.checker_view import checker_instance, fast_instance
from exactrelu.network import Activation, Network
from test_fast_checker import fast_only, outcome  # noqa: F401 (a fixture)

weights = st.fractions(min_value=-3, max_value=3, max_denominator=12)
#: floats of every kind a sample may hold: kinks at 0, -0.0, integers with trailing zeros, tiny and huge exponents
values = st.sampled_from([0.0, -0.0, 1.0, -2.5, 0.375, 3e-5, 2.0**40, -(2.0**-30), 6.0, -1024.0, 0.1])


def agree(cert, inst: Instance, workers: int = 1) -> tuple[str, str]:
    ref = outcome(lambda: checker.check(cert, checker_instance(inst)))
    assert outcome(lambda: fast.check(cert, fast_instance(inst), workers)) == ref
    return ref


def _layers(data, widths, c=1) -> list:
    return [([[data.draw(weights) for _ in range(a)] for _ in range(b)], [data.draw(weights) for _ in range(b)])
            for a, b in zip(widths, widths[1:])]


def _relu(v: Fraction, c: int) -> Fraction:
    return v**c if v > 0 else Fraction(0)


@settings(max_examples=60)
@given(st.data())
def test_the_hidden_layers_in_limbs_are_the_exact_values(data):
    c = data.draw(st.sampled_from([1, 1, 2]))
    widths = [data.draw(st.integers(1, 4)) for _ in range(data.draw(st.integers(2, 4)))]
    layers = _layers(data, widths)
    rows, sx = data.draw(st.integers(1, 5)), data.draw(st.integers(0, 60))
    ints = [data.draw(st.integers(-(2**80), 2**80) | st.sampled_from([0, 1, -1])) for _ in range(rows * widths[0])]
    H, G = deep.forward(deep.hidden(layers, c), limbs.from_ints(ints, (rows, widths[0])), sx)
    got = limbs.to_ints(H)
    for j in range(rows):
        h = [Fraction(v, 2**sx) for v in ints[j * widths[0]:(j + 1) * widths[0]]]
        for W, b in layers:
            h = [_relu(sum(w * v for w, v in zip(row, h)) + bi, c) for row, bi in zip(W, b)]
        assert [Fraction(v, G) for v in got[j * widths[-1]:(j + 1) * widths[-1]]] == h
    assert min(got) >= 0


@settings(max_examples=60)
@given(st.data())
def test_the_references_sizes_of_every_hidden_row_come_out_exactly(data):
    """``reference_sizes`` against the reference's own hidden rows (``trusted/deep.HiddenLayers.rows``, Python
    integers): ``bits(Dh_j) + bits(max_i Nh_ji)`` of every sample, and the reference's own measure of them."""
    c = data.draw(st.sampled_from([1, 1, 2]))
    widths = [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(1, 4)))]  # 1: no hidden layer
    layers = _layers(data, widths)
    X = np.array([[data.draw(values) for _ in range(widths[0])] for _ in range(data.draw(st.integers(1, 6)))])
    nums, _ = numbers.from_floats(X)
    Xn, sx = network.scaled(nums)
    net = deep.hidden(layers, c)
    H, _ = deep.forward(net, Xn, sx)
    s = np.maximum(nums.t, 0).reshape(nums.shape).max(axis=1)
    parsed = [([v.as_integer_ratio()[0] for v in row], [v.as_integer_ratio()[1] for v in row]) for row in X.tolist()]
    rows = trusted_deep.HiddenLayers(layers, c).rows(parsed)
    sizes = [Dh[0].bit_length() + max(map(abs, Nh)).bit_length() for Nh, Dh in rows]
    assert deep.reference_sizes(net, H, s, sx).tolist() == sizes == realizes_bounds.sample_bits(rows, None)[0]


@settings(max_examples=40)
@given(st.data())
def test_the_last_two_layers_over_any_common_denominator(data):
    """``network.outputs`` on inputs Zn / G with G not a power of two (a deep network's last hidden values)."""
    k, m, rows = (data.draw(st.integers(1, 3)) for _ in range(3))
    G = data.draw(st.integers(1, 2**70))
    (V, b), (U, offset) = _layers(data, [2, k, m])
    c = data.draw(st.sampled_from([1, 2]))
    Z = [data.draw(st.integers(0, 2**90)) for _ in range(rows * 2)]
    Y = np.array([[data.draw(values) for _ in range(m)] for _ in range(rows)])
    R, den = network.outputs(network.integers(U, [r[:] for r in V], b, offset, c), limbs.from_ints(Z, (rows, 2)), G,
                             numbers.from_floats(Y)[0])
    got = limbs.to_ints(R)
    for j in range(rows):
        h = [_relu(sum(w * Fraction(z, G) for w, z in zip(row, Z[2 * j:2 * j + 2])) + bi, c) for row, bi in zip(V, b)]
        for r in range(m):
            want = sum(u * v for u, v in zip(U[r], h)) + offset[r] - Fraction(Y[j, r])
            assert Fraction(got[j * m + r], den[r]) == want


def _torch_like(seed: int, widths=(3, 5, 4, 3, 2), activation=None) -> tuple[Network, Instance]:
    """A network with biases in every layer (PyTorch's default nn.Sequential), float32 inputs through float64
    weights, and its exact labels."""
    rng = np.random.default_rng(seed)
    net = Network.from_layers([(rng.standard_normal((b, a)) / np.sqrt(a), rng.standard_normal(b) / 4)
                               for a, b in zip(widths, widths[1:])], activation or Activation.relu())
    X = rng.standard_normal((60, widths[0])).astype(np.float32).astype(np.float64)
    X[3] = 0.0  # a row of zeros: the biases alone
    return net, Instance(QMatrix.from_numpy(X), net.evaluate_exact(QMatrix.from_numpy(X)))


def _tampered(cert: dict):
    """Every layer's first weight and first bias moved by 2^-40, a bias added where none is, a layer's row swapped."""
    for t, layer in enumerate(cert["layers"]):
        for key in ("W", "b"):
            out = copy.deepcopy(cert)
            if key not in layer:
                out["layers"][t]["b"] = ["1/4"] + ["0"] * (len(layer["W"]) - 1)
            else:
                row = out["layers"][t]["W"][0] if key == "W" else out["layers"][t]["b"]
                row[0] = str(Fraction(row[0]) + Fraction(1, 2**40))
            yield out
        if len(layer["W"]) > 1:
            out = copy.deepcopy(cert)
            W = out["layers"][t]["W"]
            W[0], W[1] = W[1], W[0]
            yield out


@pytest.mark.parametrize("workers", [1, 2])
def test_deep_claims_valid_and_tampered_decided_here_on_one_and_two_workers(workers, monkeypatch, fast_only):
    monkeypatch.setattr(blocks, "ENTRIES", 90)  # 18 samples a block: four blocks
    net, inst = _torch_like(1)
    cert = realizes_certificate(inst, net)
    assert agree(cert, inst, workers) == ("VALID", "realizes: 60 samples x 2 outputs equal exactly (layers 3-5-4-3-2, "
                                                   "activation degree 1)")
    verdicts = [agree(bad, inst, workers) for bad in _tampered(cert)]
    assert all(v[0] == "INVALID" and "differs from the label" in v[1] for v in verdicts)
    Y = inst.labels.to_fractions()
    for j, r in ((5, 1), (40, 0), (41, 1)):
        Y[j][r] += Fraction(1, 2**30)
    noisy = Instance(inst.inputs, QMatrix.from_rows(Y))
    listed = realizes_except_certificate(noisy, net, [(5, 1), (40, 0), (41, 1)])
    assert agree(listed, noisy, workers)[1].startswith("realizes-except: all 120 entries")
    for wrong in ([[5, 1], [40, 0]], [[5, 1], [40, 0], [41, 1], [59, 0]], [[5, 0], [40, 0], [41, 1]]):
        assert agree(dict(listed, **{"except": wrong}), noisy, workers)[0] == "INVALID"
    assert agree(realizes_certificate(noisy, net), noisy, workers)[1] == ("sample 5, output 1: the network's value "
                                                                         "differs from the label")
    res = residual_certificate(noisy, net)
    assert agree(res, noisy, workers)[0] == "VALID"
    stated = Fraction(res["squared_error"])
    for off in (Fraction(1, stated.denominator), Fraction(1, 2**200)):
        assert agree(dict(res, squared_error=str(stated + off)), noisy, workers)[0] == "INVALID"


def test_power_activations_and_hidden_kinks_at_zero(fast_only):
    net = Network.from_layers([([[1, -1], [2, 1], [1, 1]], [0, "-1/2", 0]), ([[1, 1, -1], ["1/2", 0, 1]], [-1, 0]),
                               ([[1, -1], [0, 1]], ["3/8", 0]), ([[3, -2]], ["1/2"])])
    X = np.array([[1.0, 1.0], [0.25, 0.0], [2.0, -1.0], [-0.0, 0.0], [0.5, 0.5], [1e-3, -1e-3]])  # units at exactly 0
    for act in (Activation.relu(), Activation.power(2)):
        power = Network.from_layers([(layer.W.to_fractions(), layer.b_fractions()) for layer in net.layers], act)
        inst = Instance.from_arrays(X, power.evaluate_exact(X.tolist()).to_fractions(), activation=act)
        cert = realizes_certificate(inst, power)
        assert agree(cert, inst)[0] == "VALID"
        assert all(agree(bad, inst)[0] == "INVALID" for bad in _tampered(cert))


@settings(max_examples=25)
@given(st.data())
def test_random_deep_networks_data_and_tampering(data):
    widths = [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(4, 5)))]
    layers = _layers(data, widths)
    act = data.draw(st.sampled_from([Activation.relu(), Activation.relu(), Activation.power(2)]))
    net = Network.from_layers(layers, act)
    X = np.array([[data.draw(values) for _ in range(widths[0])] for _ in range(data.draw(st.integers(1, 5)))])
    inst = Instance.from_arrays(X, net.evaluate_exact(X.tolist()).to_fractions(), activation=act)
    cert = realizes_certificate(inst, net)
    kind = data.draw(st.sampled_from(["valid", "W", "b", "label"]))
    if kind == "label":
        Y = inst.labels.to_fractions()
        Y[data.draw(st.integers(0, len(Y) - 1))][0] += Fraction(1, 2**60)
        inst = Instance(inst.inputs, QMatrix.from_rows(Y))
        cert = realizes_certificate(inst, net)
    elif kind != "valid":
        layer = cert["layers"][data.draw(st.integers(0, len(widths) - 2))]
        row = layer["W"][0] if kind == "W" else layer.setdefault("b", ["0"] * len(layer["W"]))
        row[0] = str(Fraction(row[0]) + data.draw(st.sampled_from([Fraction(1, 7), Fraction(-1, 2**50), 1])))
    with pytest.MonkeyPatch.context() as patch:
        if act.degree == 1 and all(q & (q - 1) == 0 for row in inst.labels.to_fractions() for q in
                                   (v.denominator for v in row)):  # dyadic rows, within the limbs: decided here
            patch.setattr(blocks, "check_rows", lambda *a: pytest.fail("a block went to the reference"))
        verdict = agree(cert, inst)
    assert verdict[0] == "VALID" or kind != "valid"


def test_malformed_deep_certificates_get_the_references_message():
    net, inst = _torch_like(2, widths=(3, 4, 3, 2))
    cert = realizes_certificate(inst, net)
    res = residual_certificate(inst, net)
    cases = [dict(cert, U=[["1"]]), dict(cert, layers=cert["layers"][1:]), dict(cert, layers=cert["layers"][:1]),
             dict(cert, layers=[{"b": ["1"]}] + cert["layers"][1:]),
             dict(cert, activation={"name": "power", "degree": 2}),
             dict(cert, claim="realizes-except", **{"except": [[0, 5]]}),
             dict(cert, claim="realizes-except", **{"except": [[1, 0], [0, 0]]}),
             {k: v for k, v in res.items() if k != "squared_error"}, dict(res, max_abs_error="x")]
    got = [agree(bad, inst) for bad in cases]
    assert all(kind == "INVALID" for kind, _ in got)
    assert got[0][1] == "a network has 'layers' or U, V, b, c, not both"


def _edge(monkeypatch, cert, inst, spans) -> str:
    """Both checkers at the reference's bound on the check's integers to the bit; the smallest bound that accepts."""
    def verdict(bits):
        for module in (realizes_bounds, trusted_deep):
            monkeypatch.setattr(module, "cap_bits", lambda: bits)
        spans.clear()
        return agree(cert, inst)

    lo, hi = 1, 6000
    assert verdict(lo)[0] == "UNREADABLE" and verdict(hi)[0] == "VALID"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if verdict(mid)[0] == "UNREADABLE" else (lo, mid)
    assert verdict(hi)[0] == "VALID" and spans == []  # at the edge: every block decided by the fast checker
    return verdict(hi - 1)[1]


@pytest.mark.parametrize("case", ["mixed exponents", "dead rows", "integers", "dead first layer", "two layers"])
def test_at_the_references_edge_a_deep_check_is_decided_here(case, monkeypatch):
    """The block's largest hidden row by the reference's measure is not the largest input row: samples of different
    exponents, rows whose units all die (a zero numerator has no bits), integer rows (denominator 1); and a first
    layer of large weights that dies on every row, where the hidden layers' own bound is the one that binds; and a
    two-layer network given by its layers, whose rows the reference measures over their common denominator (1/2^10
    beside 3: 3 2^10 has 12 bits, not 2)."""
    net = Network.from_layers([([[1, "-3/8"], [2, 1]], [1, "1/2"]), ([[1, 1], ["-5/4", 1]], [0, "1/16"]),
                               ([[3, "1/32"]], ["7/16"])])
    X = {"mixed exponents": [[2.0**-30 * 3, 2.0**20 + 1.0], [-(2.0**-12), 5.0], [0.0, -(2.0**-40)], [7.0, 9.0]],
         "dead rows": [[-(2.0**-50) * 2**40, -(2.0**30)], [3.0, 2.0**-3], [-5.0, -(2.0**-44)]],
         "integers": [[3.0, 2.0**20 + 1.0], [-7.0, 5.0], [0.0, -(2.0**40)]],
         "dead first layer": [[-1.5, -2.0], [-0.25, -3.0], [-(2.0**-20), -1.0]],
         "two layers": [[2.0**-10, 3.0], [-(2.0**-3), 2.0**30], [5.0, -7.0]]}[case]
    if case == "dead first layer":
        net = Network.from_layers([([[2**40, 2**40], [3 * 2**40, 2**40]], [-1, -1]), ([[1, 1], [1, -1]], [1, 0]),
                                   ([[1, 1]], None)])
    if case == "two layers":
        net = Network.from_rows([[3, "1/32"]], [[1, "-3/8"], [2, 1]], b=[1, "1/2"], c=["7/16"])
    inst = Instance.from_arrays(np.array(X), net.evaluate_exact(X).to_fractions())
    cert = realizes_certificate(inst, net)
    if case == "two layers":  # the same network written as "layers" (the library writes U, V, b, c for depth 2)
        cert = {**{k: v for k, v in cert.items() if k not in ("U", "V", "b", "c")},
                "layers": [{"W": cert["V"], "b": cert["b"]}, {"W": cert["U"], "b": cert["c"]}]}
    spans: list = []
    real = blocks.check_rows
    monkeypatch.setattr(blocks, "check_rows", lambda *a: spans.append(a[2:4]) or real(*a))
    message = _edge(monkeypatch, cert, inst, spans)
    bound = "the exact values of hidden layer 1" if case == "dead first layer" else "the exact check of this network"
    assert message.startswith(bound)


def test_the_librarys_own_check_of_a_deep_claim_is_the_fast_checker(monkeypatch, fast_only):
    net, inst = _torch_like(3)
    cert = realizes_certificate(inst, net)
    assert verify(cert, inst).startswith("realizes: 60 samples x 2 outputs equal exactly (layers 3-5-4-3-2")
    monkeypatch.setenv("EXACTRELU_CHECKER", "reference")
    calls = []
    monkeypatch.setattr(checker, "check", lambda *a, **k: calls.append(1) or "the reference")
    assert verify(cert, inst) == "the reference" and calls == [1]


def test_the_command_line_checks_a_deep_claim_fast_and_by_the_reference(capsys, monkeypatch):
    import json
    from pathlib import Path

    from exactrelu.cli import main

    corpus = Path(__file__).resolve().parents[1] / "corpus"
    args = [str(corpus / "valid/residual-deep-dyadic.json"), str(corpus / "instances/deep-dyadic-noisy.json"), "--json"]
    for extra, used in (([], "fast"), (["--reference"], "reference"), (["--workers", "2"], "fast")):
        with monkeypatch.context() as patch:
            if used == "fast":  # every block decided by the fast checker itself
                patch.setattr(blocks, "check_rows", lambda *a: pytest.fail("a block went to the reference"))
            assert main(["check", *args, *extra]) == 0
        record = json.loads(capsys.readouterr().out)
        assert record["checker"] == used and record["summary"].startswith("residual: 16 samples x 2 outputs")
        assert "(layers 2-3-2-2-2, activation degree 1)" in record["summary"]
    bad = [str(corpus / "invalid/residual-deep-max-off.json"), str(corpus / "instances/deep-dyadic-noisy.json")]
    assert main(["check", *bad]) == 1 and "max_abs_error is" in capsys.readouterr().out


def test_a_power_of_the_depth_beyond_int64_sizes_goes_to_the_reference(monkeypatch):
    """t^2 through 33 hidden layers: c^L = 2^33 (the sizes' int64 arithmetic needs c^L sx far below 2^63); the values
    stay 0 and 1, so the reference decides it quickly once the limit ``intermediate`` lets it."""
    monkeypatch.setitem(common._limits, "intermediate", 10**12)
    act = Activation.power(2)
    net = Network.from_layers([([[1, 1]], None)] + [([[1]], None)] * 34, act)
    X = np.array([[0.0, 1.0], [0.0, 0.0], [-1.0, 1.0]])
    inst = Instance.from_arrays(X, np.array([[1.0], [0.0], [0.0]]), activation=act)  # relu(x1 + x2)^(2^34)
    spans: list = []
    real = blocks.check_rows
    monkeypatch.setattr(blocks, "check_rows", lambda *a: spans.append(a[2:4]) or real(*a))
    assert agree(realizes_certificate(inst, net), inst)[0] == "VALID" and spans == [(0, 3)]
    with pytest.raises(FastDomain, match="34 bits"):
        deep.forward(deep.hidden([([[Fraction(1)]], [Fraction(0)])] * 33, 2), limbs.from_ints([1], (1, 1)), 0)


def test_a_denominator_beyond_the_limbs_goes_to_the_reference(monkeypatch):
    """A first layer over 2^2400 (its weight 2^-2400): the hidden values' denominator G has more than 96 limbs."""
    tiny = Fraction(1, 2**2400)
    with pytest.raises(FastDomain, match="a denominator of 2401 bits"):
        deep.forward(deep.hidden([([[tiny]], [Fraction(0)])], 1), limbs.from_ints([3], (1, 1)), 0)
    net = Network.from_layers([([[tiny, 1]], None), ([[1]], [1]), ([[2]], None)])
    X = np.array([[2.0**1000, 0.5], [1.0, -3.0]])
    inst = Instance.from_arrays(X, net.evaluate_exact(X.tolist()).to_fractions())
    spans: list = []
    real = blocks.check_rows
    monkeypatch.setattr(blocks, "check_rows", lambda *a: spans.append(a[2:4]) or real(*a))
    assert agree(realizes_certificate(inst, net), inst)[0] == "VALID" and spans == [(0, 2)]


def test_the_bounds_passed_are_kept_per_size_not_per_sum(monkeypatch):
    """t^2, one row a block: the first block has a small hidden row and a long label, the second a long hidden row
    and a short label. The reference's bound weighs the hidden size c = 2 times, so the second block can be over the
    limit although neither of its sizes exceeds the first block's other size: a pass of the first must not excuse it.
    (The reference streams one row a block too; its bound is per sample, so its blocks do not matter.)"""
    act = Activation.power(2)
    net = Network.from_layers([([[1]], None), ([[1]], None), ([[1]], None)], act)
    X = np.array([[0.5], [2.0**99]])
    inst = Instance.from_arrays(X, np.array([[2.0**-199], [0.0]]), activation=act)  # residual: any labels
    cert = residual_certificate(inst, net)
    monkeypatch.setattr(blocks, "ENTRIES", 2)
    monkeypatch.setattr(schedule, "BLOCK", 1)
    spans: list = []
    real = blocks.check_rows
    monkeypatch.setattr(blocks, "check_rows", lambda *a: spans.append(a[2:4]) or real(*a))
    assert _edge(monkeypatch, cert, inst, spans).startswith("the exact check of this network")
