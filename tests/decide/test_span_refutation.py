"""Every "no" of the worst-case solver is certified (issue 15, finding 6): the span refutation search, and the
solver's answers on random small instances checked independently either way. The checker's side (trusted/span.py,
tamperings and forgeries) is tested in tests/certificates/test_span_checker.py."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.envelope import verify
from exactrelu.errors import AssumptionViolated, CertificateInvalid, NotRealizable
from exactrelu.exact.matrix import QMatrix
from exactrelu.instances import Instance, planted
from exactrelu.decide.enumeration.span_refutation import Realizable, span_refutation
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


def test_a_wrong_functional_finds_a_realizable_row_instead_of_a_proof():
    outputs, _ = nonsingular_minor(UNREALISABLE.labels, 2)
    found = span_refutation(UNREALISABLE, outputs, [1, 0])
    assert isinstance(found, Realizable)
    # the row it found is realizable: relu(v . x_j) == c . a_j on every sample
    Y = UNREALISABLE.labels.to_fractions()
    for x, y in zip(UNREALISABLE.inputs.to_fractions(), Y):
        t = sum(a * b for a, b in zip(found.v, x))
        assert max(t, 0) == sum(c * y[r] for c, r in zip(found.c, outputs))


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


