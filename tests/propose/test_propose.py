"""Float proposers (gradient, tensor, ICA, auto), the float screen, weights files, certify."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from exactrelu.errors import AssumptionViolated, InvalidInput, NotRealizable
from exactrelu.instances import planted
from exactrelu.network import RELU, Activation
from exactrelu.propose import PROPOSERS, WeightsFile, make_proposer
from exactrelu.propose.floats import (angular_errors, as_generator, check_data, hermite_constants, label_basis,
                                       normalize_rows, screen_unit)
from exactrelu.propose.auto import AutoProposer
from exactrelu.propose.gradient import GradientProposer, propose_gradient
from exactrelu.propose.tensor import TensorProposer, jennrich, propose_tensor
from exactrelu.recover import recover


def data(d, k, m, n, seed=0, **kw):
    inst = planted(d, k, m, n, seed=seed, **kw)
    return inst, inst.float_inputs(), inst.float_labels(), inst.planted.V.to_float()


# -- Hermite constants: a theorem, checked symbolically --------------------------------------

@pytest.mark.parametrize("c", [1, 2, 3, 4])
def test_hermite_constants_match_symbolic_integrals(c):
    z = sp.symbols("z", real=True)
    phi = sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi)
    he = {1: z, 2: z**2 - 1, 4: z**4 - 6 * z**2 + 3}
    exact = [sp.integrate(z**c * he[t] * phi, (z, 0, sp.oo)) for t in (1, 2, 4)]
    got = hermite_constants(Activation.power(c) if c > 1 else RELU)
    assert np.allclose(got, [float(e) for e in exact], rtol=1e-12, atol=1e-15)
    if c == 2:
        assert exact[2] == 0  # order 4 cannot see t^2 units


# -- the float screen -------------------------------------------------------------------------

@settings(max_examples=15)
@given(d=st.integers(3, 8), k=st.integers(1, 4), seed=st.integers(0, 10**6))
def test_screen_passes_true_units_and_polishes_them(d, k, seed):
    """Theorem (uniqueness, Gaussian inputs): the row-span vector vanishing on a true unit's inactive samples is
    that unit's activation vector; the re-fitted row is the unit's direction."""
    inst, X, Y, V = data(d, k, k, 60 * d, seed=seed)
    Q = label_basis(Y, k)
    for v in V:
        s = screen_unit(Q, normalize_rows(X), v, k, X=X)
        assert s.ok, s.reason
        assert float(angular_errors(s.v[None], v[None])[0]) < 1e-6
        assert np.allclose(s.activations, np.maximum(X @ v, 0) / np.maximum(X @ v, 0).max(), atol=1e-8)


def test_screen_refuses_wrong_units():
    _, X, Y, V = data(6, 3, 3, 400)
    Q, Xn = label_basis(Y, 3), normalize_rows(X)
    s = screen_unit(Q, Xn, -V[0], 3, X=X)  # may find another unit vanishing there, never -V[0]
    assert not s.ok or (angular_errors(s.v[None], -V[:1])[0] > 0.1 and min(angular_errors(s.v[None], V[i:i + 1])[0]
                                                                          for i in range(3)) < 1e-6)
    R = label_basis(np.random.default_rng(0).standard_normal((400, 3)), 3)  # labels of no network
    assert "active" in screen_unit(R, Xn, V[0], 3).reason
    assert "changes sign" in screen_unit(R, Xn, V[0], 3, extra=0).reason
    assert "too few" in screen_unit(Q, Xn, np.zeros(6), 3).reason
    assert "rank" in screen_unit(Q[:, :2], Xn, V[0], 3).reason
    assert "rank" in screen_unit(label_basis(Y[:, :1] @ np.ones((1, 3)), 3), Xn, V[0], 3).reason


def test_screen_refuses_non_rectified_kernel_vector():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 4))
    y = np.abs(X[:, 0])  # non-negative but not max(v . x, 0) for any v
    s = screen_unit(y[:, None] / np.linalg.norm(y), normalize_rows(X), X[0], 1, X=X)
    assert not s.ok and "rectified linear" in s.reason


def test_angular_errors_and_helpers():
    V = np.eye(3)
    assert np.allclose(angular_errors(V[[2, 0, 1]] * 5, V), 0)
    assert np.allclose(angular_errors(-V[:1], V[:1]), np.pi)
    with pytest.raises(InvalidInput):
        angular_errors(V[:2], V)
    with pytest.raises(InvalidInput):
        as_generator("seed")
    with pytest.raises(InvalidInput, match="samples"):
        check_data(np.zeros((5, 2)), np.zeros((4, 1)), 1)
    with pytest.raises(InvalidInput, match="at least"):
        check_data(np.zeros((2, 2)), np.zeros((2, 1)), 3)
    assert check_data(np.zeros((3, 2)), np.zeros(3), 1)[1].shape == (3, 1)


# -- gradient proposer ------------------------------------------------------------------------

@settings(max_examples=8)
@given(d=st.integers(3, 12), k=st.integers(2, 5), seed=st.integers(0, 10**6))
def test_gradient_proposal_is_certified_by_exact_recovery(d, k, seed):
    assume(k <= d)  # the recovery theorem's hypothesis (V of full row rank); k > d may fail for some seeds
    inst = planted(d, k, k + 1, 80 * d, seed=seed)
    est = GradientProposer(k, random_state=seed).fit(inst.float_inputs(), inst.float_labels())
    res = recover(inst, k=k, init=est, check=False)
    assert res.network.equivalent(inst.planted)


def test_gradient_stops_early_with_near_exact_rows_and_is_deterministic():
    _, X, Y, V = data(10, 4, 4, 1500, seed=5)
    a = GradientProposer(4, random_state=1).fit(X, Y)
    b = GradientProposer(4, random_state=1).fit(X, Y)
    assert a.stopped_early_ and a.screened_.all()
    assert angular_errors(a.V_, V).max() < 1e-6 and a.loss_ < 1e-12
    assert np.array_equal(a.V_, b.V_) and a.n_iter_ == b.n_iter_
    assert propose_gradient(X, Y, 4, random_state=1).shape == (4, 10)


def test_gradient_power_activation_and_init():
    act = Activation.power(2)
    inst, X, Y, V = data(6, 3, 3, 800, seed=2, activation=act)
    est = GradientProposer(3, activation=act, random_state=0).fit(X, Y)
    assert est.screened_.all() and angular_errors(est.V_, V).max() < 1e-6
    warm = GradientProposer(3, activation=act, init=V + 0.0).fit(X, Y)  # the truth: screened before any training
    assert warm.n_iter_ == 0 and warm.screened_.all()


def test_gradient_without_screen_when_labels_have_low_rank():
    """m < k: the screen cannot run; training stops on the loss, nothing is marked screened."""
    _, X, Y, _ = data(5, 3, 1, 400, seed=0)
    est = GradientProposer(3, random_state=0, n_restarts=1, max_iter=30).fit(X, Y)
    assert est.V_.shape == (3, 5) and not est.screened_.any() and est.n_restarts_ == 1


def test_gradient_invalid_parameters():
    _, X, Y, _ = data(4, 2, 2, 100)
    for kw in ({"n_restarts": 0}, {"max_iter": 1.5}, {"screen_every": True}, {"patience": -1}):
        with pytest.raises(InvalidInput):
            GradientProposer(2, **kw).fit(X, Y)
    with pytest.raises(InvalidInput, match="all zero"):
        GradientProposer(2).fit(X, np.zeros_like(Y))
    with pytest.raises(InvalidInput, match="init"):
        GradientProposer(2, init=np.ones((3, 4))).fit(X, Y)
    with pytest.raises(InvalidInput, match="k"):
        GradientProposer(0).fit(X, Y)
    with pytest.raises(InvalidInput, match="activation"):
        GradientProposer(2, activation="tanh").fit(X, Y)
    assert GradientProposer(2, activation="relu", random_state=0).fit(X, Y).activation_ == RELU  # text is parsed
    with pytest.raises(InvalidInput, match="non-finite"):
        GradientProposer(2).fit(np.full((5, 2), np.nan), np.ones((5, 1)))


# -- tensor proposer --------------------------------------------------------------------------

def test_jennrich_recovers_noiseless_components():
    rng = np.random.default_rng(4)
    A = rng.standard_normal((4, 4))
    T = np.einsum("ai,bi,ri->abr", A, A, rng.standard_normal((5, 4)))
    B = jennrich(T, 4, rng)
    assert np.allclose(np.sort(np.abs(B.T @ (A / np.linalg.norm(A, axis=0))).max(axis=1)), 1.0)
    with pytest.raises(AssumptionViolated):
        jennrich(np.zeros((2, 2, 2)), 2, rng, n_draws=2)


def test_tensor_order2_angular_error_and_signs():
    _, X, Y, V = data(8, 3, 3, 40000, seed=1)
    est = TensorProposer(3, random_state=0).fit(X, Y)
    assert est.order_ == 2 and angular_errors(est.V_, V).max() < 0.15
    assert propose_tensor(X, Y, 3, random_state=0).shape == (3, 8)


def test_tensor_order4_single_combination():
    _, X, Y, V = data(5, 2, 2, 100000, seed=3)
    est = TensorProposer(2, random_state=0, order=4).fit(X, Y)
    assert est.order_ == 4 and angular_errors(est.V_, V).max() < 0.3


def test_tensor_whitening_for_correlated_gaussian_inputs():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((6, 6))
    cov = M @ M.T + 0.5 * np.eye(6)
    inst, X, Y, V = data(6, 3, 3, 40000, seed=2, covariance=cov)
    est = TensorProposer(3, random_state=0).fit(X, Y)
    assert angular_errors(est.V_, V).max() < 0.15
    assert recover(inst, k=3, init="tensor", check=False).network.equivalent(inst.planted)


def test_tensor_refusals():
    _, X, Y, _ = data(4, 3, 3, 500)
    with pytest.raises(InvalidInput, match="order"):
        TensorProposer(3, order=3).fit(X, Y)
    with pytest.raises(AssumptionViolated, match="m >= k"):
        TensorProposer(3, order=2).fit(X, Y[:, :2])
    with pytest.raises(AssumptionViolated, match="t\\^2"):
        TensorProposer(3, order=4, activation=Activation.power(2)).fit(X, Y)
    with pytest.raises(AssumptionViolated, match="cannot have independent rows"):
        TensorProposer(5).fit(X, Y)
    with pytest.raises(AssumptionViolated, match="singular"):
        TensorProposer(2).fit(np.c_[X[:, :1], 0 * X[:, :1]], Y)
    with pytest.raises(AssumptionViolated, match="rank"):
        TensorProposer(3, order=2).fit(X, Y[:, :1] @ np.ones((1, 3)))


# -- ICA proposer -----------------------------------------------------------------------------

def test_ica_orthonormal_rows():
    pytest.importorskip("sklearn")
    from exactrelu.propose.ica import ICAProposer, propose_ica

    rng = np.random.default_rng(0)
    Vt = np.linalg.qr(rng.standard_normal((5, 5)))[0]
    X = rng.standard_normal((20000, 5))
    Y = np.maximum(X @ Vt.T, 0) @ rng.standard_normal((5, 5)).T
    est = ICAProposer(5, random_state=0).fit(X, Y)
    assert angular_errors(est.V_, Vt).max() < 0.15 and np.all(est.sources_skew_ > 0.5)
    assert propose_ica(X, Y, 5, random_state=0).shape == (5, 5)
    with pytest.raises(AssumptionViolated, match="m >= k"):
        ICAProposer(5).fit(X, Y[:, :3])


def test_ica_exact_recovery_of_orthogonal_integer_network():
    pytest.importorskip("sklearn")
    # rows of a Hadamard-like integer matrix are orthogonal
    V = np.array([[1, 1, 1, 1], [1, -1, 1, -1], [1, 1, -1, -1], [1, -1, -1, 1]], dtype=float)
    inst = planted(4, 4, 4, 4000, seed=0)
    from exactrelu.network import Network
    net = Network.from_rows(inst.planted.U.to_fractions(), V.tolist())
    from exactrelu.instances import Instance
    inst2 = Instance(inst.inputs, net.evaluate_exact(inst.inputs), RELU, net, inst.float_inputs())
    res = recover(inst2, k=4, init="ica", check=False)
    assert res.network.equivalent(net) and res.proposer == "ica"


# -- auto, registry, non-Gaussian inputs -------------------------------------------------------

def test_registry_names_and_errors(tmp_path):
    assert {"auto", "search", "gradient", "tensor", "ica"} <= set(PROPOSERS)
    assert isinstance(make_proposer("gradient", 3), GradientProposer)
    with pytest.raises(InvalidInput, match="unknown proposer"):
        make_proposer("nonsense", 3)
    p = tmp_path / "w.npz"
    np.savez(p, U=np.ones((2, 3)), V=np.ones((3, 4)))
    wf = make_proposer(str(p), 3)
    assert isinstance(wf, WeightsFile) and wf.fit() is wf and wf.V_.shape == (3, 4)
    with pytest.raises(InvalidInput, match="k = 2"):  # the file is read in fit, as the estimator contract says
        make_proposer(str(p), 2).fit()
    with pytest.raises(InvalidInput, match="the inputs have d = 5"):
        make_proposer(str(p), 3).fit(np.zeros((10, 5)))
    with pytest.raises(InvalidInput, match="no such weights file"):
        WeightsFile(str(tmp_path / "missing.npz")).fit()


def test_auto_picks_search_for_few_units_and_tensor_or_gradient_beyond():
    _, X, Y, _ = data(6, 3, 3, 500, seed=0)
    assert AutoProposer(3, random_state=0).fit(X, Y).chosen_ == "search"
    inst, X, Y, V = data(12, 6, 6, 3000, seed=1)
    est = AutoProposer(6, random_state=0).fit(X, Y)
    assert est.chosen_ in ("tensor", "tensor+gradient") and est.screened_.all()
    assert recover(inst, k=6, init="auto", check=False).network.equivalent(inst.planted)


def test_auto_falls_back(monkeypatch):
    inst, X, Y, _ = data(7, 5, 5, 1500, seed=2)

    def boom(self, *a):
        raise AssumptionViolated("forced failure")

    monkeypatch.setattr(TensorProposer, "fit", boom)
    est = AutoProposer(5, random_state=0).fit(X, Y)
    assert est.chosen_ == "gradient" and est.failures_[0][0] == "tensor"
    import exactrelu.propose.auto as auto_module

    monkeypatch.setattr(auto_module, "gradient_proposal", boom)  # auto runs the gradient algorithm itself
    est = AutoProposer(5, random_state=0).fit(X, Y)
    assert est.chosen_ == "search (fallback)" and [f[0] for f in est.failures_] == ["tensor", "gradient"]
    assert recover(inst, k=5, init=est, check=False).network.equivalent(inst.planted)


@pytest.mark.parametrize("dist", ["uniform", "laplace", "rademacher-mixture"])
def test_non_gaussian_symmetric_inputs_recovered_from_gradient(dist):
    inst = planted(8, 4, 4, 1500, seed=3, inputs=dist)
    res = recover(inst, k=4, init="gradient", random_state=0, check=False)
    assert res.network.equivalent(inst.planted) and res.proposer == "gradient"
