"""Every verdict names its model class and extent (issue 23, item 1 and 3; the checker's side).

A ``not-realizable`` certificate may state ``"model": {"biases": ..., "output_bias": ...}``; the checker
accepts it only when the proof it verified covers that class, prints the class in its VALID line, and
reads a certificate without ``model`` with its old meaning, saying so. ``realizes-except`` prints how many
of how many entries are excepted and honors an optional ``max_except``.
"""

from __future__ import annotations

import copy
import json

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.claims.span import not_realizable_certificate
from exactrelu.certificates.envelope import verify
from exactrelu.certificates.trusted.model import constant_column
from exactrelu.decide import decide, solve
from exactrelu.errors import CertificateInvalid, NotRealizable
from exactrelu.exact.linalg import nonsingular_minor
from exactrelu.instances import Instance
from exactrelu.instances.checker_view import checker_instance

GRID = [(x, y) for x in range(-4, 4) for y in range(-2, 3)]  # 40 samples, kinks on grid points


def _relu(t):
    return max(t, 0)


@pytest.fixture(scope="module")
def biased_grid():
    """Issue 23, item 1: 40 grid samples labeled by two units *with* hidden biases."""
    labels = [[_relu(x + y - 1) + 2 * _relu(-x + 2 * y + 1)] for x, y in GRID]
    inst = Instance.from_arrays(GRID, labels)
    with pytest.raises(NotRealizable) as exc:
        solve(inst, k=2)
    return inst, exc.value.certificate


def _with_model(cert, biases, output_bias):
    out = copy.deepcopy(cert)
    out["model"] = {"biases": biases, "output_bias": output_bias}
    return out


def _old(cert):
    """The certificate as the library wrote it before model classes: without ``model``."""
    return {key: v for key, v in cert.items() if key != "model"}


def test_the_bias_free_refutation_says_without_hidden_biases(biased_grid):
    inst, cert = biased_grid
    assert cert["model"] == {"biases": False, "output_bias": False}  # the library states the class (item 1)
    line = verify(cert, inst)
    assert line.startswith("not-realizable: no 2-unit ReLU network without hidden biases and without output bias "
                           "reproduces the labels (40 samples, any output weights)")
    assert "no model field" not in line
    old = verify(_old(cert), inst)
    assert old.startswith(line[:100]) and "[no model field: read with its meaning before model classes]" in old


@pytest.mark.parametrize("biases, output_bias, why", [
    (True, False, "without hidden biases, and no input column is one non-zero constant"),
    (False, True, "Farkas combination is not 0 <= negative"),  # checked with c free: its equations leave c
    (True, True, "wider than its proof"),
])
def test_a_case_refutation_claiming_a_wider_class_is_refused(biased_grid, biases, output_bias, why):
    inst, cert = biased_grid
    with pytest.raises(CertificateInvalid, match=why):
        verify(_with_model(cert, biases, output_bias), inst)


@pytest.mark.parametrize("model", [{"biases": False}, {"biases": 0, "output_bias": False}, [False, False],
                                   {"biases": False, "output_bias": False, "c": False}, None])
def test_a_malformed_model_is_refused(biased_grid, model):
    inst, cert = biased_grid
    bad = dict(cert, model=model)
    with pytest.raises(CertificateInvalid, match="model must be"):
        verify(bad, inst)


def test_a_constant_input_column_makes_hidden_biases_part_of_the_claim():
    """With x_t = kappa != 0 at every sample, V_i . x + b_i = (V_i + b_i / kappa e_t) . x: a refutation of bias-free
    networks on these inputs refutes biased ones (what ``solve --bias`` relies on)."""
    pts = [(x, y, 2) for x, y in GRID]
    labels = [[_relu(x + y - 1) + 2 * _relu(-x + 2 * y + 1) - _relu(x - 2)] for x, y, _ in pts]
    inst = Instance.from_arrays(pts, labels)
    res = decide(inst, k=1)
    assert res.status == "not-realizable"
    line = verify(_with_model(res.certificate, True, False), inst)
    assert line.startswith("not-realizable: no 1-unit ReLU network with hidden biases and without output bias")
    with pytest.raises(CertificateInvalid, match="not 0 <= negative"):  # checked with c free: c is left over
        verify(_with_model(res.certificate, True, True), inst)
    assert constant_column([[(t, v) for t, v in enumerate(row) if v] for row in inst.inputs.to_fractions()])
    assert not constant_column([[(0, 1), (1, 2)], [(0, 3)]])  # x_1 = 0 at the second sample, x_0 differs
    assert not constant_column([[(0, 1)], [(0, -1)]])  # equal up to sign is not constant


def _rank_instance(t):
    """Labels with a non-zero t x t minor: the identity on t samples, t outputs."""
    inputs = [[i + 1, 1] for i in range(t)]
    return Instance.from_arrays(inputs, [[int(i == r) for r in range(t)] for i in range(t)])


def test_a_rank_witness_excludes_hidden_biases_and_a_larger_one_an_output_bias():
    inst = _rank_instance(3)
    k1 = not_realizable_certificate(inst, 2, *nonsingular_minor(inst.labels, 3))  # a (k+1) x (k+1) minor
    assert k1["model"] == {"biases": True, "output_bias": False}
    assert "no 2-unit ReLU network with hidden biases and without output bias" in verify(k1, inst)
    assert "no model field" in verify(_old(k1), inst)
    assert "no model field" not in verify(k1, inst)
    with pytest.raises(CertificateInvalid, match="adds one|add one to the rank"):
        verify(_with_model(k1, True, True), inst)
    k2 = not_realizable_certificate(inst, 1, *nonsingular_minor(inst.labels, 3))  # a (k+2) x (k+2) minor
    assert k2["model"] == {"biases": True, "output_bias": True}  # the library states the widest class proved
    line = verify(k2, inst)
    assert "no 1-unit ReLU network with hidden biases and with output bias" in line and "3 x 3 minor" in line
    assert "without output bias" in verify(_old(k2), inst)  # the old meaning: no output bias
    four = _rank_instance(4)
    with pytest.raises(CertificateInvalid, match="k \\+ 1 or k \\+ 2 rows"):  # the checker knows minors of k, k + 1 and k + 2 rows only
        verify(_with_model(not_realizable_certificate(four, 1, *nonsingular_minor(four.labels, 4)), True, True), four)


def test_the_span_refutation_states_its_class():
    inst = Instance.from_arrays([[1, 0], [0, 1], [1, 1], [-1, 0], [0, -1], [2, 1]],
                                [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [0, 0]])
    try:
        solve(inst, k=2)
    except NotRealizable as exc:
        cert = exc.certificate
    else:  # pragma: no cover - the instance is chosen unrealizable
        pytest.fail("realizable")
    if "span" not in cert:
        pytest.skip("the solver answered with another certificate")
    assert "no 2-unit ReLU network without hidden biases and without output bias" in verify(cert, inst)
    with pytest.raises(CertificateInvalid, match="span refutation is about networks without hidden biases"):
        verify(_with_model(cert, True, False), inst)
    with pytest.raises(CertificateInvalid, match="span refutation does not exclude an output bias"):
        verify(_with_model(cert, False, True), inst)


# -- realizes-except: the extent, and max_except -----------------------------------------------------------

@pytest.fixture(scope="module")
def everywhere_wrong():
    """Issue 23: a constant network that differs from every one of 1,200 label entries, all of them listed."""
    from exactrelu.certificates.claims.realizes import realizes_except_certificate
    from exactrelu.network import Network

    inputs = [[i % 7 + 1, i % 5 + 1, 1] for i in range(300)]
    labels = [[i + 1, 2 * i + 1, 3 * i + 1, 4 * i + 1] for i in range(300)]
    inst = Instance.from_arrays(inputs, labels)
    net = Network.from_rows([[0], [0], [0], [0]], [[0, 0, 0]])
    failing = [(j, r) for j in range(300) for r in range(4)]
    return inst, realizes_except_certificate(inst, net, failing)


def test_realizes_except_states_how_many_of_how_many(everywhere_wrong):
    inst, cert = everywhere_wrong
    line = verify(cert, inst)
    assert line.startswith("realizes-except: all 1,200 entries (300 samples x 4 outputs) except 1,200 (100.0%) equal")


def test_max_except_bounds_the_excepted_fraction(everywhere_wrong):
    inst, cert = everywhere_wrong
    assert ", at most 1 allowed" in verify(dict(cert, max_except="1"), inst)
    with pytest.raises(CertificateInvalid, match="1,200 of 1,200 entries are excepted, more than max_except = 1/10"):
        verify(dict(cert, max_except="1/10"), inst)
    with pytest.raises(CertificateInvalid, match="more than max_except = 1199/1200"):
        verify(dict(cert, max_except="1199/1200"), inst)
    for bad in ("-1/10", "11/10", "2"):
        with pytest.raises(CertificateInvalid, match="between 0 and 1"):
            verify(dict(cert, max_except=bad), inst)
    for bad in (0.1, True, "x"):
        with pytest.raises(CertificateInvalid, match="not a rational"):
            verify(dict(cert, max_except=bad), inst)


def test_max_except_is_counted_before_any_work(everywhere_wrong, tmp_path, capsys):
    inst, cert = everywhere_wrong
    c, i = tmp_path / "c.json", tmp_path / "i.json"
    c.write_text(json.dumps(dict(cert, max_except="0")))
    i.write_text(json.dumps({"format": "exactrelu.instance", "version": 1,
                             "inputs": checker_instance(inst)["inputs"], "labels": checker_instance(inst)["labels"]}))
    assert checker.main([str(c), str(i)]) == 1
    assert "more than max_except = 0 allows" in capsys.readouterr().out
