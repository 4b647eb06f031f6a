"""Where the fast checker hands work on, and where it must not: a network given by its layers is decided here (and by
the reference beyond the limbs), a check on two workers forks them, and at the reference's own
``intermediate`` edge (to the bit) the fast checker still decides every block itself."""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.certificates import checker, fast
from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.fast import blocks
from exactrelu.certificates.trusted import realizes_bounds
from exactrelu.exact import QMatrix
from exactrelu.instances import Instance, planted
from exactrelu.instances.checker_view import checker_instance, fast_instance
from exactrelu.network import Activation, Network


def _verdict(run) -> tuple[str, str]:
    try:
        return "VALID", run()
    except checker.CheckFailed as exc:
        return "INVALID", str(exc)
    except checker.UnreadableInput as exc:
        return "UNREADABLE", str(exc)


def _handed(monkeypatch) -> list:
    spans: list = []
    real = blocks.check_rows
    monkeypatch.setattr(blocks, "check_rows", lambda *a: spans.append(a[2:4]) or real(*a))
    return spans


def test_a_deep_network_on_float_rows_is_decided_here_and_beyond_the_limbs_by_the_reference(monkeypatch):
    rng = np.random.default_rng(3)
    net = Network.from_layers([(rng.integers(-2, 3, (3, 2)), [1, 0, "-1/2"]), (rng.integers(-2, 3, (2, 3)), None),
                               (rng.integers(-2, 3, (1, 2)), ["1/4"])])
    X = rng.standard_normal((30, 2))  # float rows: the fast checker reads them itself
    inst = Instance(QMatrix.from_numpy(X), net.evaluate_exact(QMatrix.from_numpy(X)))
    cert = realizes_certificate(inst, net)
    spans = _handed(monkeypatch)
    for bad in [cert] + [_changed(cert, t, i) for t in range(3) for i in range(2)]:
        spans.clear()
        ref = _verdict(lambda: checker.check(bad, checker_instance(inst)))
        assert _verdict(lambda: fast.check(bad, fast_instance(inst))) == ref and spans == []
    assert ref[0] == "INVALID" and _verdict(lambda: fast.check(cert, fast_instance(inst)))[0] == "VALID"
    power = Network.from_layers([([[1, 1], [1, -1]], None), ([[1, 1]], [1]), ([[2]], None), ([[1]], None)],
                                Activation.power(3))
    X = np.array([[2.0**300, 1.0], [3.0, -1.0]])  # (2^300)^9 in the second layer: 2,700 bits, beyond 96 limbs
    inst = Instance.from_arrays(X, power.evaluate_exact(X.tolist()).to_fractions(), activation=Activation.power(3))
    spans.clear()
    cert = realizes_certificate(inst, power)
    ref = checker.check(cert, checker_instance(inst))
    assert _verdict(lambda: fast.check(cert, fast_instance(inst))) == ("VALID", ref)
    assert spans == [(0, 2)]


def _changed(cert: dict, t: int, i: int) -> dict:
    out = copy.deepcopy(cert)
    W = out["layers"][t]["W"]
    W[i % len(W)][0] = str(Fraction(W[i % len(W)][0]) + Fraction(1, 3))
    return out


def test_two_workers_fork_a_pool(monkeypatch):
    inst = planted(d=3, k=2, m=2, n=400, seed=2)
    cert = realizes_certificate(inst, inst.planted)
    monkeypatch.setattr(blocks, "ENTRIES", 500)
    contexts = []
    real = blocks.multiprocessing.get_context
    monkeypatch.setattr(blocks.multiprocessing, "get_context", lambda *a: contexts.append(a) or real(*a))
    one = fast.check(cert, fast_instance(inst), 1)
    assert contexts == [] and fast.check(cert, fast_instance(inst), 2) == one and contexts == [("fork",)]


@pytest.mark.parametrize("X", [np.array([[2.0**-30 * 3, 2.0**20 + 1.0], [-(2.0**-12), 5.0], [0.0, -(2.0**-40)]]),
                               np.array([[3.0, 2.0**20 + 1.0], [-7.0, 5.0], [0.0, -(2.0**40)]])],
                         ids=["dyadic", "integers"])
def test_at_the_references_edge_the_fast_checker_decides_itself(X, monkeypatch):
    net = Network.from_rows([[3, "-3/8"]], [[1, "1/32"], ["-5/4", 1]], b=["1/2", 0], c=["7/16"])
    inst = Instance.from_arrays(X, net.evaluate_exact(X.tolist()).to_fractions())
    cert = realizes_certificate(inst, net)
    spans = _handed(monkeypatch)

    def verdict(bits):  # the limit to the bit (its digits step by 3.3 bits): the edge to one bit of the sizes
        monkeypatch.setattr(realizes_bounds, "cap_bits", lambda: bits)
        spans.clear()
        ref = _verdict(lambda: checker.check(cert, checker_instance(inst)))
        assert _verdict(lambda: fast.check(cert, fast_instance(inst))) == ref
        return ref[0]

    lo, hi = 1, 1400
    assert verdict(lo) == "UNREADABLE" and verdict(hi) == "VALID"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if verdict(mid) == "UNREADABLE" else (lo, mid)
    assert verdict(hi) == "VALID" and spans == []  # at the edge: every block decided by the fast checker
    assert verdict(hi - 1) == "UNREADABLE"


def test_integers_of_more_than_96_limbs_are_handed_over():
    """The fast checker's domain (docs/design.md: MAX_LIMBS = 96 limbs, 2,304 bits); beyond it the reference."""
    from exactrelu.certificates.fast import network
    from exactrelu.certificates.fast.limbs import FastDomain

    assert network._bounded(np.zeros((96, 1, 1), dtype=np.int64)).shape[0] == 96
    with pytest.raises(FastDomain, match="integers of 97 limbs"):
        network._bounded(np.zeros((97, 1, 1), dtype=np.int64))


def _decided_here(monkeypatch) -> None:
    def refuse(*args):
        raise AssertionError("a block went to the reference")
    monkeypatch.setattr(blocks, "check_rows", refuse)


def test_exact_dyadic_labels_in_many_blocks_are_read_here(monkeypatch):
    inst = planted(d=3, k=2, m=2, n=300, seed=4)
    cert = realizes_certificate(inst, inst.planted)
    Y = inst.labels.to_fractions()
    Y[250][1] += Fraction(1, 2**40)
    for labels, expect in ((inst.labels, "VALID"), (QMatrix.from_rows(Y), "INVALID")):
        fresh = Instance(inst.inputs, labels)  # no cached text: the labels go over as integers over 2^s
        data = fast_instance(fresh)
        assert type(data["labels"]).__name__ == "DyadicRows"
        bad = dict(cert, instance_sha256=realizes_certificate(fresh, inst.planted)["instance_sha256"])
        ref = _verdict(lambda: checker.check(bad, checker_instance(fresh)))
        monkeypatch.setattr(blocks, "ENTRIES", 500)  # 100 rows a block: the wrong label is in block 2
        _decided_here(monkeypatch)
        assert _verdict(lambda: fast.check(bad, data)) == ref and ref[0] == expect
    assert ref[1] == "sample 250, output 1: the network's value differs from the label"


def test_npz_members_in_fortran_order_and_wide_integers(tmp_path, monkeypatch):
    X = np.random.default_rng(6).integers(-50, 50, (60, 2)) / 8.0
    net = Network.from_rows([[1, -2]], [[1, 1], ["1/2", -1]], b=[1, 0])
    Y = np.array([[float(v) for v in row] for row in net.evaluate_exact(X.tolist()).to_fractions()])  # exact
    cert = realizes_certificate(Instance.from_arrays(X, Y), net)
    path = tmp_path / "fortran.npz"
    np.savez(path, inputs=np.asfortranarray(X), labels=np.asfortranarray(Y))
    with monkeypatch.context() as patch:
        _decided_here(patch)  # rows of Python floats: read by the fast checker
        assert fast.check_files(json_path(tmp_path, cert), str(path)) == checker.check_files(json_path(tmp_path, cert),
                                                                                              str(path))
    X = np.array([[2**53 + 1], [3], [-(2**60)]], dtype=np.int64)  # beyond 2^53: not a float64, the reference reads it
    net = Network.from_rows([[1]], [[1]])
    wide = realizes_certificate(Instance(QMatrix.from_rows(X.tolist()), QMatrix.from_rows(np.maximum(X, 0).tolist())),
                                net)
    path = tmp_path / "wide.npz"
    np.savez(path, inputs=X, labels=np.maximum(X, 0))
    ref = _verdict(lambda: checker.check_files(json_path(tmp_path, wide), str(path)))
    assert _verdict(lambda: fast.check_files(json_path(tmp_path, wide), str(path))) == ref and ref[0] == "VALID"


def json_path(tmp_path, cert: dict) -> str:
    import json

    path = tmp_path / f"{cert['instance_sha256'][:12]}.json"
    path.write_text(json.dumps(cert))
    return str(path)
