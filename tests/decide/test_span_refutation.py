"""Every "no" of the worst-case solver is certified (issue 15, finding 6): the rank and span
certificates of ``not-realizable`` (trusted/span.py), valid and tampered, and the solver's answers
on random small instances checked independently either way."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.envelope import checker_instance, instance_sha256, verify
from exactrelu.errors import AssumptionViolated, CertificateInvalid, NotRealizable
from exactrelu.exact.matrix import QMatrix
from exactrelu.instances import Instance, planted
from exactrelu.decide.span_refutation import Realisable, span_refutation
from exactrelu.certificates.claims.span import not_realizable_certificate
from exactrelu.exact.linalg import nonsingular_minor
from exactrelu.decide import solve

LINE = [[t, 1] for t in (-2, -1, 0, 1, 2, 3)]
UNREALISABLE = Instance.from_arrays(LINE, [[0, 1], [0, 0], [0, 0], [1, 0], [2, 0], [3, 1]])


@pytest.fixture(scope="module")
def span_cert():
    with pytest.raises(NotRealizable) as exc:
        solve(UNREALISABLE, 2, try_recovery=False)
    cert = exc.value.certificate
    assert "span" in cert and "rank(labels) = 2" in verify(cert, UNREALISABLE)
    return cert


def _first_leaf(cert, sign=0):
    return next(node for node in cert["span"]["cases"][sign]["tree"] if "farkas" in node)


def _rehash(c):
    c["instance_sha256"] = instance_sha256(UNREALISABLE)


SPAN_TAMPERINGS = {
    "functional zero": lambda c: c["span"].__setitem__("functional", ["0", "0"]),
    "functional on the realisable row": lambda c: c["span"].__setitem__("functional", ["1", "0"]),
    "functional scaled by -1": lambda c: c["span"].__setitem__("functional", [str(-int(x)) for x in c["span"]["functional"]]),
    "one case only": lambda c: c["span"]["cases"].pop(),
    "signs swapped": lambda c: c["span"]["cases"].reverse(),
    "sign 2": lambda c: c["span"]["cases"][0].__setitem__("sign", 2),
    "leaf dropped": lambda c: c["span"]["cases"][0]["tree"].pop(),
    "node added": lambda c: c["span"]["cases"][0]["tree"].append({"farkas": []}),
    "multiplier changed": lambda c: _first_leaf(c)["farkas"][-1].__setitem__(-1, "7"),
    "norm row dropped": lambda c: _first_leaf(c)["farkas"].__setitem__(
        slice(None), [r for r in _first_leaf(c)["farkas"] if r[0] != "norm"]),
    "row of an undecided sample": lambda c: _first_leaf(c)["farkas"].append(["eq", 99, "1"]),
    "negative sign multiplier": lambda c: _first_leaf(c)["farkas"].append(["sign", c["span"]["cases"][0]["tree"][0]["split"], "-1"]),
    "split repeated": lambda c: c["span"]["cases"][0]["tree"].insert(1, dict(c["span"]["cases"][0]["tree"][0])),
    "split out of range": lambda c: c["span"]["cases"][0]["tree"][0].__setitem__("split", 6),
    "malformed row": lambda c: _first_leaf(c)["farkas"].append(["eq", 0]),
    "leaf shape": lambda c: c["span"]["cases"][0]["tree"].__setitem__(0, {"leaf": []}),
    "singular minor": lambda c: c["rank"].__setitem__("samples", [1, 2]),  # labels rows 1, 2 are zero
    "duplicate output": lambda c: c["rank"].__setitem__("outputs", [0, 0]),
    "output out of range": lambda c: c["rank"].__setitem__("outputs", [0, 2]),
    "witness of size 1": lambda c: c["rank"].update(outputs=[0], samples=[3]),
    "span dropped": lambda c: c.pop("span"),
    "rank dropped": lambda c: c.pop("rank"),
    "given output weights": lambda c: c.__setitem__("output_weights", "given"),
    "k = 1": lambda c: c.__setitem__("k", 1),
    "power activation": lambda c: c.__setitem__("activation", {"name": "power", "degree": 2}),
    "unknown field": lambda c: c.__setitem__("cases", []),
    "wrong hash": lambda c: c.__setitem__("instance_sha256", "0" * 64),
    "span with an extra key": lambda c: c["span"].__setitem__("extra", 1),
}


@pytest.mark.parametrize("name", sorted(SPAN_TAMPERINGS))
def test_every_tampering_of_a_span_certificate_is_rejected(span_cert, name):
    bad = copy.deepcopy(span_cert)
    SPAN_TAMPERINGS[name](bad)
    assert bad != span_cert
    with pytest.raises(CertificateInvalid):
        verify(bad, UNREALISABLE)


def test_rank_certificate_valid_and_tampered():
    inst = planted(d=3, k=3, m=3, n=30, seed=1)
    with pytest.raises(NotRealizable) as exc:
        solve(inst, 2)
    cert = exc.value.certificate
    assert "rank(labels) >= 3 > k = 2" in verify(cert, inst)
    for tamper in (lambda c: c["rank"]["samples"].__setitem__(0, c["rank"]["samples"][1]),
                   lambda c: c.__setitem__("k", 3), lambda c: c["rank"]["outputs"].pop(),
                   lambda c: c.__setitem__("span", {"functional": ["1"], "cases": []})):
        bad = copy.deepcopy(cert)
        tamper(bad)
        with pytest.raises(CertificateInvalid):
            verify(bad, inst)
    # the same witness on an instance of rank 2 is a singular minor: rejected
    low = Instance(inst.inputs, QMatrix.from_rows([[r[0], r[1], r[0] + r[1]] for r in inst.labels.to_fractions()]))
    forged = dict(cert, instance_sha256=instance_sha256(low))
    with pytest.raises(CertificateInvalid):
        verify(forged, low)


def test_a_wrong_functional_finds_a_realisable_row_instead_of_a_proof():
    outputs, _ = nonsingular_minor(UNREALISABLE.labels, 2)
    found = span_refutation(UNREALISABLE, outputs, [1, 0])
    assert isinstance(found, Realisable)
    # the row it found is realisable: relu(v . x_j) == c . a_j on every sample
    Y = UNREALISABLE.labels.to_fractions()
    for x, y in zip(UNREALISABLE.inputs.to_fractions(), Y):
        t = sum(a * b for a, b in zip(found.v, x))
        assert max(t, 0) == sum(c * y[r] for c, r in zip(found.c, outputs))


def test_a_span_certificate_cannot_refute_a_realisable_instance():
    """Move the certificate to a realisable instance (same inputs): the checker must reject it."""
    with pytest.raises(NotRealizable) as exc:
        solve(UNREALISABLE, 2, try_recovery=False)
    good = Instance.from_arrays(LINE, [[0, 0], [0, 0], [0, 0], [1, 0], [2, 1], [3, 2]])
    moved = dict(exc.value.certificate, instance_sha256=instance_sha256(good))
    with pytest.raises(CertificateInvalid):
        verify(moved, good)
    with pytest.raises(checker.CheckFailed):
        checker.check(moved, checker_instance(good))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(5, 9), st.integers(1, 2))
def test_solve_answers_are_certified_either_way(seed, n, k):
    """Random integer inputs and random labels of rank k: a realizes or a not-realizable certificate,
    verified by the checker; and a realizes answer reproduces the labels."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, (n, 2))
    Y = rng.integers(0, 3, (n, k)) @ rng.integers(-1, 2, (k, k + 1))
    inst = Instance(QMatrix.from_numpy(X), QMatrix.from_numpy(Y))
    try:
        res = solve(inst, k, try_recovery=False, keep_certificates=False)
    except NotRealizable as exc:
        assert exc.certificate is not None
        assert verify(exc.certificate, inst).startswith("not-realizable")
    except AssumptionViolated:  # rank below k with several outputs: nothing is claimed
        assert np.linalg.matrix_rank(Y) < k
    else:
        assert verify(res.certificate, inst).startswith("realizes")
        assert res.network.evaluate_exact(inst.inputs) == inst.labels


def test_certificate_writer_without_span():
    outputs, samples = nonsingular_minor(UNREALISABLE.labels, 2)
    cert = not_realizable_certificate(UNREALISABLE, 1, outputs, samples)
    assert "rank(labels) >= 2 > k = 1" in verify(cert, UNREALISABLE)


def test_recover_certifies_its_rank_refutation_for_any_activation(tmp_path, capsys):
    from exactrelu.cli import main
    from exactrelu.instances import write_instance
    from exactrelu.network import Activation
    from exactrelu.recover import recover

    for act in (None, Activation.power(2)):
        inst = planted(d=3, k=3, m=3, n=40, seed=4, activation=act or Activation.relu())
        with pytest.raises(NotRealizable, match="certified") as exc:
            recover(inst, k=2)
        assert exc.value.certificate["activation"] == (act or Activation.relu()).to_json()
        assert "rank(labels) >= 3 > k = 2" in verify(exc.value.certificate, inst)
    path = write_instance(inst, tmp_path / "p.json")
    assert main(["recover", str(path), "-k", "2", "-o", str(tmp_path / "c.json")]) == 1
    assert "NOT REALIZABLE (certified)" in capsys.readouterr().out
    assert main(["check", str(tmp_path / "c.json"), str(path)]) == 0
    # a span refutation is about the ReLU only
    with pytest.raises(NotRealizable) as exc:
        solve(UNREALISABLE, 2, try_recovery=False)
    bad = dict(exc.value.certificate, activation={"name": "power", "degree": 2})
    with pytest.raises(CertificateInvalid, match="about the ReLU"):
        verify(bad, UNREALISABLE)


REALISABLE = Instance.from_arrays(LINE, [[0, 0], [0, 0], [0, 0], [1, 0], [2, 1], [3, 2]])  # relu(t), relu(t - 1)


def _forged(functional, tree_plus, tree_minus):
    """A span certificate for the realisable instance above: every one must be rejected."""
    return {"format": "exactrelu.certificate", "version": 1, "claim": "not-realizable",
            "instance_sha256": instance_sha256(REALISABLE), "activation": {"name": "relu"}, "k": 2,
            "output_weights": "unknown", "rank": {"outputs": [0, 1], "samples": [3, 4]},
            "span": {"functional": functional, "cases": [{"sign": 1, "tree": tree_plus}, {"sign": -1, "tree": tree_minus}]}}


@pytest.mark.parametrize("functional, plus, minus", [
    # a zero functional makes "a . c = s" read 0 = s: one norm row would refute every case
    (["0", "0"], [{"farkas": [["norm", "-1"]]}], [{"farkas": [["norm", "1"]]}]),
    # an empty combination is 0 <= 0, not 0 <= negative
    (["1", "1"], [{"farkas": []}], [{"farkas": []}]),
    (["1", "1"], [{"farkas": [["norm", "0"]]}], [{"farkas": [["norm", "0"]]}]),
], ids=["zero functional", "empty leaf", "zero multiplier"])
def test_forged_trivial_span_refutations_are_rejected(functional, plus, minus):
    cert = _forged(functional, plus, minus)
    with pytest.raises(CertificateInvalid):
        verify(cert, REALISABLE)
    with pytest.raises(checker.CheckFailed):
        checker.check(cert, checker_instance(REALISABLE))


def test_a_split_index_cannot_alias_a_sample(span_cert):
    """Sample j - n names sample j in Python; as a split it would give one sample two decisions."""
    n = UNREALISABLE.n
    for case in range(2):
        bad = copy.deepcopy(span_cert)
        tree = bad["span"]["cases"][case]["tree"]
        j = next(node["split"] for node in tree if "split" in node)
        for node in tree:
            if node.get("split") == j:
                node["split"] = j - n
            for row in node.get("farkas", []):
                if row[0] in ("eq", "sign") and row[1] == j:
                    row[1] = j - n
        with pytest.raises(checker.CheckFailed, match="bad split|malformed"):
            checker.check(bad, checker_instance(UNREALISABLE))


def test_the_span_certificate_names_the_instance_s_activation_and_its_leaves(span_cert):
    from exactrelu.network import Activation

    leaves = sum("farkas" in node for case in span_cert["span"]["cases"] for node in case["tree"])
    assert f"({leaves} leaves refuted)" in verify(span_cert, UNREALISABLE)
    squared = Instance(UNREALISABLE.inputs, UNREALISABLE.labels, Activation.power(2))
    moved = dict(span_cert, instance_sha256=instance_sha256(squared))
    with pytest.raises(checker.CheckFailed, match="activation differs"):
        checker.check(moved, checker_instance(squared))


@pytest.mark.parametrize("rank", [{"outputs": [0, 1], "samples": [3, 5], "extra": 1}, [[0, 1], [3, 5]],
                                  {"outputs": [0, 1]}])
def test_the_rank_witness_has_exactly_its_two_fields(span_cert, rank):
    bad = dict(span_cert, rank=rank)
    with pytest.raises(checker.CheckFailed, match="rank is"):
        checker.check(bad, checker_instance(UNREALISABLE))


def test_a_negative_sign_multiplier_cannot_forge_a_refutation():
    """With a = a_j, the case s = +1 on 'j active' is refutable only by flipping the inequality -v.x_j <= 0:
    the forged certificate below is valid but for that one negative multiplier, on a realisable instance."""
    j = 4  # x_j = (2, 1), a_j = (2, 1)
    leaf = {"farkas": [["eq", j, "-1"], ["sign", j, "-1"], ["norm", "-1"]]}
    plus = [{"split": j}, leaf, {"farkas": [["eq", j, "1"], ["norm", "-1"]]}]
    minus = [{"split": j}, {"farkas": [["eq", j, "1"], ["sign", j, "1"], ["norm", "1"]]},
             {"farkas": [["eq", j, "-1"], ["norm", "1"]]}]
    cert = _forged(["2", "1"], plus, minus)
    with pytest.raises(checker.CheckFailed, match="negative multiplier"):
        checker.check(cert, checker_instance(REALISABLE))
    leaf["farkas"][1][2] = "1"  # the honest multiplier: the combination no longer cancels
    with pytest.raises(checker.CheckFailed, match="not 0 <= negative"):
        checker.check(cert, checker_instance(REALISABLE))


def test_span_cases_and_k_are_exactly_as_specified(span_cert):
    bad = copy.deepcopy(span_cert)
    bad["span"]["cases"][0]["note"] = "x"
    with pytest.raises(checker.CheckFailed, match="a span case is"):
        checker.check(bad, checker_instance(UNREALISABLE))
    for k in (0, -1, True, "2"):
        with pytest.raises(checker.CheckFailed, match="positive integer k"):
            checker.check(dict(span_cert, k=k), checker_instance(UNREALISABLE))
