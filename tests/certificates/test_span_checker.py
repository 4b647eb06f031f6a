"""The checker's not-realizable by a rank witness and a span refutation (trusted/span.py): valid certificates of the
solver verify, and every tampering, forgery and transplant onto a realizable instance is rejected. The solver that
writes them is tested in tests/decide/test_span_refutation.py."""

from __future__ import annotations

import copy

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.envelope import instance_sha256, verify
from exactrelu.decide import solve
from exactrelu.errors import CertificateInvalid, NotRealizable
from exactrelu.exact.matrix import QMatrix
from exactrelu.instances import Instance, planted
from exactrelu.instances.checker_view import checker_instance

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
    "functional on the realizable row": lambda c: c["span"].__setitem__("functional", ["1", "0"]),
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



def test_a_span_certificate_cannot_refute_a_realizable_instance():
    """Move the certificate to a realizable instance (same inputs): the checker must reject it."""
    with pytest.raises(NotRealizable) as exc:
        solve(UNREALISABLE, 2, try_recovery=False)
    good = Instance.from_arrays(LINE, [[0, 0], [0, 0], [0, 0], [1, 0], [2, 1], [3, 2]])
    moved = dict(exc.value.certificate, instance_sha256=instance_sha256(good))
    with pytest.raises(CertificateInvalid):
        verify(moved, good)
    with pytest.raises(checker.CheckFailed):
        checker.check(moved, checker_instance(good))


REALISABLE = Instance.from_arrays(LINE, [[0, 0], [0, 0], [0, 0], [1, 0], [2, 1], [3, 2]])  # relu(t), relu(t - 1)



def _forged(functional, tree_plus, tree_minus):
    """A span certificate for the realizable instance above: every one must be rejected."""
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
    the forged certificate below is valid but for that one negative multiplier, on a realizable instance."""
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
