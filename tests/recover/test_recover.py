"""Exact recovery: planted networks come back exactly; everything else gets a specific error."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import verify
from exactrelu.errors import AssumptionViolated, ExactReluError, InvalidInput, NotRealizable, ProposalFailed
from exactrelu.exact import QMatrix
from exactrelu.instances import Instance, planted
from exactrelu.network import RELU, Activation, Network
from exactrelu.recover import recover


def assert_recovered(inst, k, **kw):
    res = recover(inst, k=k, **kw)
    assert res.network.equivalent(inst.planted)
    assert res.network.evaluate_exact(inst.inputs) == inst.labels
    assert res.checked.startswith("realizes")
    assert res.entries_verified == inst.n * inst.m
    return res


@settings(deadline=None)
@given(k=st.integers(1, 4), extra_m=st.integers(0, 2), extra_d=st.integers(0, 3), c=st.sampled_from([1, 1, 2, 3]),
       weights=st.sampled_from(["integer", "dyadic"]), seed=st.integers(0, 10**6))
def test_planted_recovered_exactly(k, extra_m, extra_d, c, weights, seed):
    """Theorem (Bakshi-Jayaram-Woodruff, exact recovery): Gaussian inputs, U of full column rank, V of full
    row rank (k <= d) -> the exact weights, up to positive scaling and permutation."""
    act = RELU if c == 1 else Activation.power(c)
    d = max(2, k + extra_d)
    n = max(60, 40 * k * d)
    inst = planted(d=d, k=k, m=k + extra_m, n=n, seed=seed, activation=act, weights=weights)
    try:
        assert_recovered(inst, k, random_state=seed)
    except AssumptionViolated as exc:  # finite samples can break general position (nested supports); never a wrong answer
        assert "general position" in str(exc)


@settings(deadline=None)
@given(seed=st.integers(0, 10**6))
def test_more_units_than_dimensions_never_wrong(seed):
    """k > d is outside the theorem: a certificate, if any, must still be correct."""
    inst = planted(d=2, k=4, m=4, n=300, seed=seed)
    try:
        res = recover(inst, k=4, random_state=seed)
    except (NotRealizable, AssumptionViolated) as exc:
        assert "k = 4 > d = 2" in str(exc) or "general position" in str(exc)
    else:
        assert res.network.evaluate_exact(inst.inputs) == inst.labels


def test_k1_and_m_greater_than_k():
    assert_recovered(planted(d=3, k=1, m=1, n=20, seed=0), 1)
    assert_recovered(planted(d=5, k=2, m=6, n=200, seed=1), 2)


def test_n_just_above_needed():
    # d = 3: each unit needs d active samples and k-1 inactive ones; n = 30 suffices generically
    assert_recovered(planted(d=3, k=2, m=2, n=30, seed=5), 2)


def test_accepts_arrays_and_weights_proposal():
    inst = planted(d=4, k=3, m=3, n=300, seed=2)
    X, Y = inst.float_inputs(), inst.labels.to_fractions()
    res = recover(X, Y, k=3, init=inst.planted.V.to_float() + 0.01)
    assert res.network.equivalent(inst.planted) and res.proposer == "weights"


def test_bad_proposal_falls_back_to_search():
    inst = planted(d=4, k=3, m=3, n=300, seed=4)
    res = recover(inst, k=3, init=np.ones((3, 4)))  # three copies of one wrong direction
    assert res.network.equivalent(inst.planted) and "search" in res.proposer


def test_duplicated_samples():
    inst = planted(d=4, k=3, m=3, n=200, seed=3)
    X = inst.float_inputs()
    X2 = np.vstack([X, X[:100], X[:50]])
    Y2 = inst.planted.evaluate_exact(QMatrix.from_numpy(X2))
    inst2 = Instance(QMatrix.from_numpy(X2), Y2, RELU, inst.planted, X2)
    assert_recovered(inst2, 3)


def test_samples_exactly_on_kinks():
    """Samples with V*_i . x = 0 exactly: zeros of the unit's row that satisfy the inequality."""
    rng = np.random.default_rng(0)
    net = Network.from_rows(U=[[1, 2], [3, -1]], V=[[1, -2, 0], [0, 1, 1]])
    X = rng.standard_normal((200, 3))
    X[:40, 0] = 2 * X[:40, 1]  # 40 samples on the kink of unit 0
    X[40:70, 2] = -X[40:70, 1]  # 30 on the kink of unit 1
    Xq = QMatrix.from_numpy(X)
    inst = Instance(Xq, net.evaluate_exact(Xq), RELU, net, X)
    assert_recovered(inst, 2)


def test_integer_inputs_never_wrong():
    inst = planted(d=3, k=2, m=2, n=200, seed=1, inputs="integer")
    try:
        assert_recovered(inst, 2)
    except AssumptionViolated as exc:
        assert "general position" in str(exc)


@pytest.mark.parametrize("scale", [1e-300, 1e300, 1e-155, 2.0**-1060])
def test_extreme_magnitudes(scale):
    inst = planted(d=3, k=2, m=2, n=120, seed=6)
    X = inst.float_inputs() * scale  # exact: scaling by a power of two only for 2**-1060; others round, fine
    Xq = QMatrix.from_numpy(X)
    inst2 = Instance(Xq, inst.planted.evaluate_exact(Xq), RELU, inst.planted, X)
    assert_recovered(inst2, 2)


def test_subnormal_inputs():
    rng = np.random.default_rng(3)
    X = rng.integers(-2**20, 2**20, (150, 3)) * 2.0**-1074 * 64  # subnormal values with few significant bits
    assert np.all(np.abs(X) < 2.2250738585072014e-308)
    net = Network.from_rows(U=[[1, 1], [1, -2]], V=[[1, 2, -1], [-2, 1, 1]])
    Xq = QMatrix.from_numpy(X)
    assert_recovered(Instance(Xq, net.evaluate_exact(Xq), RELU, net, X), 2)


def test_power_activation_rejects_non_power_ratios():
    # labels of 2 units, but taken as t^2: ratios are not perfect squares
    inst = planted(d=3, k=2, m=2, n=120, seed=8)
    with pytest.raises(NotRealizable):
        recover(inst, k=2, activation=Activation.power(2))


def test_rank_below_k_is_an_assumption_error():
    inst = planted(d=4, k=3, m=2, n=200, seed=0)  # m < k: rank(labels) <= 2
    with pytest.raises(AssumptionViolated, match=r"rank\(labels\) = 2 < k = 3") as e:
        recover(inst, k=3, route="rowspan")
    assert e.value.evidence["rank"] == 2 and e.value.suggestion


def test_rank_above_k_is_not_realizable():
    inst = planted(d=4, k=3, m=3, n=200, seed=0)
    with pytest.raises(NotRealizable, match="rank"):
        recover(inst, k=2)


def test_float_rounded_labels_never_certified():
    inst = planted(d=4, k=2, m=3, n=200, seed=0)
    rounded = inst.float_labels()  # 76-bit exact labels rounded to float64
    with pytest.raises(NotRealizable):
        recover(inst.float_inputs(), rounded, k=2)
    inst_sq = planted(d=4, k=2, m=2, n=200, seed=0)
    with pytest.raises(NotRealizable) as e:
        recover(inst_sq.float_inputs(), inst_sq.float_labels(), k=2)
    assert e.value.evidence


def test_noisy_labels_never_certified():
    inst = planted(d=4, k=2, m=2, n=200, seed=0)
    noisy = inst.float_labels() + 1e-3 * np.random.default_rng(0).standard_normal((200, 2))
    with pytest.raises(NotRealizable):
        recover(inst.float_inputs(), noisy, k=2)


def test_one_wrong_label_is_located():
    inst = planted(d=4, k=2, m=3, n=200, seed=2)
    Y = inst.labels.to_fractions()
    Y[17][1] += Fraction(1, 2**40)
    with pytest.raises(NotRealizable):
        recover(inst.inputs, QMatrix.from_rows(Y), k=2)


def test_input_errors():
    with pytest.raises(InvalidInput, match="non-finite"):
        recover(np.array([[np.nan, 1.0]]), np.array([[1.0]]), k=1)
    with pytest.raises(InvalidInput, match="samples"):
        recover(np.ones((3, 2)), np.ones((4, 1)), k=1)
    inst = planted(d=2, k=1, m=1, n=20)
    for bad_k in (0, -1, 1.5, True):
        with pytest.raises(InvalidInput):
            recover(inst, k=bad_k)
    with pytest.raises(InvalidInput):
        recover(inst, np.ones((20, 1)), k=1)
    with pytest.raises(InvalidInput, match="labels are required"):
        recover(np.ones((3, 2)), k=1)
    with pytest.raises(InvalidInput, match="unknown proposer"):
        recover(inst, k=1, init="magic")
    with pytest.raises(InvalidInput, match="proposal"):
        recover(inst, k=1, init=np.ones((1, 5)))
    with pytest.raises(InvalidInput):
        recover(inst, k=1, init=42)


def test_zero_labels_rank_zero():
    with pytest.raises(AssumptionViolated):
        recover(np.ones((5, 2)), np.zeros((5, 1)), k=1)


def test_search_proposer_errors():
    from exactrelu.propose.search import SearchProposer

    with pytest.raises(ProposalFailed, match="rank"):
        SearchProposer(2).fit(np.random.default_rng(0).standard_normal((50, 3)), np.ones((50, 2)))
    with pytest.raises(InvalidInput):
        SearchProposer(0).fit(np.ones((5, 2)), np.ones((5, 1)))
    with pytest.raises(InvalidInput):
        SearchProposer(1).fit(np.ones((5, 2)), np.ones((4, 1)))


def test_result_record_and_certificate():
    inst = planted(d=4, k=2, m=2, n=100, seed=9)
    res = recover(inst, k=2, check=False)
    assert res.checked is None
    assert set(res.timings) >= {"conversion", "rank", "proposal", "units", "hidden", "output", "certificate"}
    assert res.U.shape == (2, 2) and res.V.shape == (2, 4)
    assert verify(res.certificate, inst).startswith("realizes")
    assert len(res.units) == 2 and all(u.support_size > 0 for u in res.units)
    assert res.certificate["provenance"]["exactrelu_version"]


def test_errors_share_one_base():
    for cls in (InvalidInput, AssumptionViolated, NotRealizable, ProposalFailed):
        assert issubclass(cls, ExactReluError)
