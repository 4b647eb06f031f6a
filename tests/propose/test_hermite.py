"""Hermite-tensor learning of biased networks (exactrelu.propose.hermite*): estimators, decomposition, signs."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from exactrelu.errors import AssumptionViolated, InvalidInput, NoBetterThanConstant
from exactrelu.network import Activation, Network
from exactrelu.propose import make_proposer
from exactrelu.propose.hermite import HermiteProposer, network_parameter_error
from exactrelu.propose.hermite.decompose import cp_als, decompose, fit_weights, jennrich_pencil
from exactrelu.propose.hermite.estimators import (GaussianityWarning, check_gaussian, contraction, hermite_coefficient,
                                                  low_order, population_tensor, projected_tensor, whitening)
from exactrelu.instances.hermite import planted_biased, rational_unit_rows
from exactrelu.propose.hermite.large_bias import affine_fit, linear_units
from exactrelu.propose.hermite.params import unit_parameters
from exactrelu.propose.hermite.signs import MAX_ENUMERATED, equivalent_flips, flip_units, resolve_signs
from exactrelu.theorems import sign_identifiability
from exactrelu.theorems._gaussian import b as B_SYM
from exactrelu.theorems.biased_relu_hermite import closed_form


# -- the coefficient g_t and the estimators ---------------------------------------------------------

@pytest.mark.parametrize("t", range(7))
def test_coefficient_is_the_proved_closed_form(t):
    f = sp.lambdify(B_SYM, closed_form(t), "mpmath")
    for bb in (-2.5, -1.0, -0.3, 0.0, 0.7, 1.0, 3.0):
        assert float(hermite_coefficient(t, bb)) == pytest.approx(float(f(bb)), rel=1e-12, abs=1e-15)


def test_coefficients_vanish_where_the_paper_says():
    assert abs(float(hermite_coefficient(4, 1.0))) < 1e-16 and abs(float(hermite_coefficient(4, -1.0))) < 1e-16
    assert float(hermite_coefficient(3, 0.0)) == 0.0
    assert np.all(hermite_coefficient(2, np.linspace(-5, 5, 11)) > 0)


def _mc(seed=0, n=400000, d=3):
    rng = np.random.default_rng(seed)
    U = np.array(rational_unit_rows(rng, 2, d), dtype=float)
    alpha, beta = np.array([1.5, -1.0]), np.array([0.0, 1.0])
    X = rng.standard_normal((n, d))
    y = np.maximum(X @ U.T + beta, 0) @ alpha
    return X, y, U, alpha, beta


def test_low_order_estimators_are_unbiased_within_their_standard_errors():
    X, y, U, alpha, beta = _mc()
    n = len(y)
    lo = low_order(X, y)
    se = np.sqrt(np.mean(y**2) / n) * 3  # He_1, He_2 entries have variance <= 2; 3 sigma-ish margin for 2
    assert abs(lo.f0 - float(population_tensor(0, U, alpha, beta))) < 5 * np.std(y) / np.sqrt(n)
    assert np.abs(lo.f1 - population_tensor(1, U, alpha, beta)).max() < 5 * se
    assert np.abs(lo.f2 - population_tensor(2, U, alpha, beta)).max() < 5 * se


@pytest.mark.parametrize("t", [3, 4])
def test_contractions_and_projected_tensors_are_unbiased(t):
    X, y, U, alpha, beta = _mc(seed=t)
    n, d = X.shape
    y = y - low_order(X, y).degree2_part(X)  # lower-order part removed: still unbiased
    full = population_tensor(t, U, alpha, beta)
    T = projected_tensor(X, y, t)  # P = I: the whole d^t tensor (small d)
    # the diagonal entries have the largest variance (E He_t(z)^2 = t!): their empirical standard error bounds all
    he = X**3 - 3 * X if t == 3 else X**4 - 6 * X**2 + 3
    se = float(np.max(np.std(y[:, None] * he, axis=0))) / np.sqrt(n)
    assert np.abs(T - full).max() < 5 * se
    rng = np.random.default_rng(9)
    vs = [v / np.linalg.norm(v) for v in rng.standard_normal((t - 2, d))]
    M = contraction(X, y, t, vs)
    expect = full
    for v in vs:
        expect = expect @ v
    assert np.abs(M - expect).max() < 5 * se


@pytest.mark.parametrize("t", [2, 3, 4])
def test_contraction_equals_the_contracted_empirical_tensor(t):
    rng = np.random.default_rng(t)
    X = rng.standard_normal((500, 3))
    y = rng.standard_normal(500)
    vs = [rng.standard_normal(3) for _ in range(t - 2)]
    T = low_order(X, y).f2 if t == 2 else projected_tensor(X, y, t)
    for v in vs:
        T = T @ v
    assert np.allclose(contraction(X, y, t, vs), T, atol=1e-10)


def test_contraction_and_projection_refuse_other_orders():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError):
        contraction(X, np.zeros(4), 5, [np.zeros(2)] * 3)
    with pytest.raises(ValueError):
        contraction(X, np.zeros(4), 3, [])
    with pytest.raises(ValueError):
        projected_tensor(X, np.zeros(4), 5)


def test_whitening_and_the_gaussianity_check():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20000, 3)) @ np.array([[2.0, 0, 0], [1, 1, 0], [0, 0, 3]])
    L, Linv = whitening(X)
    Z = X @ Linv.T
    assert np.allclose(Z.T @ Z / len(Z), np.eye(3), atol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_gaussian(Z)["gaussian"]
    with pytest.warns(GaussianityWarning, match="do not look Gaussian"):
        assert not check_gaussian(rng.uniform(-np.sqrt(3), np.sqrt(3), (20000, 3)))["gaussian"]
    with pytest.raises(AssumptionViolated, match="singular"):
        whitening(np.concatenate([X[:, :2], np.zeros((len(X), 1))], axis=1))


# -- decomposition --------------------------------------------------------------------------------

def _slices(B, lam2, lam3, lam4):
    k = B.shape[0]
    T2 = np.einsum("i,ai,bi->ab", lam2, B, B)[:, :, None]
    T3 = np.einsum("i,ai,bi,ci->abc", lam3, B, B, B)
    T4 = np.einsum("i,ai,bi,ci,di->abcd", lam4, B, B, B, B).reshape(k, k, k * k)
    return np.concatenate([T2, T3, T4], axis=2)


def test_pencil_finds_units_invisible_to_f3_or_f4():
    rng = np.random.default_rng(1)
    B = rng.standard_normal((4, 4))
    B /= np.linalg.norm(B, axis=0)
    alpha, beta = np.array([1.0, -2.0, 0.5, 1.0]), np.array([0.0, 1.0, -1.0, 0.0])  # two units at b = 0
    lam = [alpha * hermite_coefficient(t, beta) for t in (2, 3, 4)]
    T = _slices(B, *lam)
    dec = decompose(T, 4, rng, reference=np.eye(T.shape[2])[0])
    assert np.abs(np.abs(dec.B.T @ B).max(axis=0) - 1).max() < 1e-9 and dec.residual < 1e-9


def test_als_polish_improves_on_jennrich_under_noise():
    rng = np.random.default_rng(2)
    k = 5
    B = rng.standard_normal((k, k))
    B /= np.linalg.norm(B, axis=0)
    alpha, beta = rng.uniform(1, 2, k) * rng.choice([-1, 1], k), rng.uniform(-1.5, 1.5, k)
    T = _slices(B, *[alpha * hermite_coefficient(t, beta) for t in (2, 3, 4)])
    T = T + 0.01 * np.abs(T).max() * rng.standard_normal(T.shape)
    Bj, _ = jennrich_pencil(T, k, np.random.default_rng(0), reference=np.eye(T.shape[2])[0])
    Bp, _, sweeps = cp_als(T, Bj)
    err = lambda M: float(np.abs(np.abs(M.T @ B).max(axis=0) - 1).max())  # noqa: E731
    assert sweeps >= 1 and fit_weights(T, Bp)[1] <= fit_weights(T, Bj)[1] and err(Bp) <= err(Bj)


def test_singular_reference_is_reported():
    with pytest.raises(AssumptionViolated, match="diagonalised"):
        jennrich_pencil(np.zeros((3, 3, 4)), 3, np.random.default_rng(0), reference=np.eye(4)[0])


@pytest.mark.parametrize("beta", [[0.0, 1.0, -1.0], [2.5, -0.4, 0.9]])
def test_unit_parameters_from_exact_coefficients(beta):
    beta = np.array(beta)
    alpha = np.array([2.0, -1.0, 0.3])
    a, bb = unit_parameters(*[alpha * hermite_coefficient(t, beta) for t in (2, 3, 4)], sigmas=(1, 2, 3))
    assert np.allclose(a, alpha, rtol=1e-9) and np.allclose(bb, beta, atol=1e-9)
    a0, b0 = unit_parameters(*[alpha * hermite_coefficient(t, 0.0) for t in (2, 3, 4)], bias=False)
    assert np.allclose(a0, alpha) and not b0.any()


# -- the proposer end to end -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def inst103():
    return planted_biased(10, 3, 100000, seed=3)  # biases exactly 0, 1, -1


def test_hermite_learns_biases_at_zero_and_plus_minus_one(inst103):
    X, Y = inst103.float_inputs(), inst103.float_labels()
    est = HermiteProposer(3, random_state=0).fit(X, Y)
    assert est.parameter_error(inst103.planted) < 0.15
    assert est.V_.shape == (3, 10) and est.W_.shape == (10, 3) and est.a_.shape == (3,) and est.n_units_ == 3
    assert len(est.sign_choices_) == 1 and np.all(est.sign_choices_[0] == 1)  # full rank: one choice survives
    assert np.all(est.sign_margin_ > 0.5)
    ref = HermiteProposer(3, random_state=0, refine=8).fit(X, Y)
    assert ref.parameter_error(inst103.planted) < 1e-8  # noiseless labels: the pattern is found exactly
    assert np.abs(ref.evaluate(X) - Y).max() < 1e-8
    net = ref.to_network()
    assert net.has_bias and net.m == 1 and equivalent_flips(net) == [()]


def test_signs_are_the_planted_ones(inst103):
    est = HermiteProposer(3, random_state=1).fit(inst103.float_inputs(), inst103.float_labels())
    V = np.array(inst103.planted.V.to_fractions(), dtype=float)
    cos = est.V_ @ V.T
    assert np.all(cos.max(axis=1) > 0.95)  # each proposed row points along (not against) a planted row


def test_unbiased_model_and_outputs_beyond_one():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((60000, 6))
    V = np.array(rational_unit_rows(rng, 3, 6), dtype=float)
    Y = np.maximum(X @ V.T, 0) @ np.array([[1.0, -2.0, 1.5], [0.5, 1.0, -1.0]]).T
    est = HermiteProposer(3, bias=False, random_state=0).fit(X, Y)
    assert est.U_.shape == (2, 3) and est.a_.shape == (3, 2) and np.abs(est.b_).max() < 1e-12
    assert (est.V_ @ V.T).max(axis=1).min() > 0.97


def test_large_bias_units_become_two_linear_units():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((50000, 5))
    V = np.array(rational_unit_rows(rng, 3, 5), dtype=float)
    b = np.array([0.3, 6.0, -6.0])  # one always active, one never active on these samples
    Y = np.maximum(X @ V.T + b, 0) @ np.array([1.0, 2.0, -1.0])
    est = HermiteProposer(3, random_state=0).fit(X, Y[:, None])
    assert est.n_units_ <= 3 + 2 and len(est.large_units_) >= 1
    Xt = rng.standard_normal((20000, 5))
    Yt = np.maximum(Xt @ V.T + b, 0) @ np.array([1.0, 2.0, -1.0])
    assert np.sqrt(np.mean((est.evaluate(Xt)[:, 0] - Yt) ** 2)) < 0.1 * np.sqrt(np.mean(Yt**2))
    with pytest.warns(NoBetterThanConstant):  # the paper's rule alone misses the large-|b| units, and says so
        keep = HermiteProposer(3, random_state=0, large_bias=False).fit(X, Y[:, None])
    assert keep.n_units_ == 3 and len(keep.large_units_) == 0


def test_linear_units_fit_constants_and_fall_back_to_all_samples():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((100, 2))
    V, b, a = linear_units(Z, np.full(100, 2.5))
    assert V.shape == (1, 2) and not V.any() and np.allclose(np.maximum(Z @ V.T + b, 0) @ a, 2.5)
    w, c = affine_fit(Z, Z @ [1.0, 1.0], radius=1e-9)  # no sample inside the radius: all are used
    assert np.allclose(w, [1, 1]) and abs(c) < 1e-12


def test_init_hermite_is_a_proposer_name_and_certifies_unbiased_networks():
    from exactrelu.instances import planted
    from exactrelu.recover import recover

    assert isinstance(make_proposer("hermite", 3), HermiteProposer)
    inst = planted(d=6, k=3, m=3, n=20000, seed=2)
    res = recover(inst, k=3, init=HermiteProposer(3, bias=False, random_state=0))
    assert res.network.equivalent(inst.planted) and res.certificate["claim"] == "realizes"


def test_non_gaussian_inputs_warn():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (20000, 4))
    y = np.maximum(X @ [1.0, 0, 0, 0] + 0.2, 0)
    with pytest.warns(GaussianityWarning):
        HermiteProposer(1, random_state=0).fit(X, y)


@pytest.mark.parametrize("kwargs,match", [
    ({"activation": Activation.power(2)}, "ReLU"),
    ({"bias": "yes"}, "bias must be"),
    ({"whiten": 1}, "whiten must be"),
    ({"large_bias": "always"}, "large_bias"),
    ({"refine": -1}, "refine"),
    ({"n_draws": 0}, "n_draws"),
    ({"bias_threshold": 0}, "bias_threshold"), ({"bias_threshold": float("nan")}, "bias_threshold"),
])
def test_bad_parameters_are_refused_in_fit(kwargs, match):
    X = np.random.default_rng(0).standard_normal((200, 3))
    est = HermiteProposer(2, **kwargs)  # stored untouched
    with pytest.raises(InvalidInput, match=match):
        est.fit(X, X[:, :1])


def test_k_above_d_and_too_few_samples():
    X = np.random.default_rng(0).standard_normal((500, 3))
    with pytest.raises(AssumptionViolated, match="k <= d"):
        HermiteProposer(4).fit(X, X[:, :1])
    with pytest.raises(InvalidInput, match="more samples than input dimensions"):
        HermiteProposer(2).fit(X[:3], X[:3, :1])


def test_parameter_error_of_mismatched_shapes_is_infinite(inst103):
    assert network_parameter_error(np.zeros((2, 10)), np.zeros(2), np.zeros((1, 2)), inst103.planted) == float("inf")


# -- signs ----------------------------------------------------------------------------------------

def test_resolver_enumerates_when_not_full_rank():
    U = np.array([[1.0, 0], [0, 1.0], [0.6, 0.8]])
    alpha, beta = np.array([1.0, -1.5, 2.0]), np.array([0.2, -0.5, 1.0])
    from exactrelu.propose.hermite.signs import _predicted

    s = np.array([1.0, -1.0, -1.0])
    f0, f1 = _predicted(U, alpha, beta, s)
    got = resolve_signs(U, alpha, beta, f0, f1, 1e-9)
    assert got.signs.tolist() == s.tolist() and np.isnan(got.margin).all() and len(got.survivors) == 1
    k = MAX_ENUMERATED + 1
    with pytest.raises(InvalidInput, match="too large"):
        resolve_signs(np.ones((k, 2)) / np.sqrt(2), np.ones(k), np.zeros(k), 0.0, np.zeros(2), 1.0)


def test_equivalent_flips_give_the_same_function_on_the_data_exactly():
    net = Network.from_rows([[1, 1, -1]], [[1, 0], [0, 1], [1, 1]], b=[1, 1, 2])
    rng = np.random.default_rng(0)
    from exactrelu.exact.matrix import QMatrix

    X = QMatrix.from_numpy(rng.standard_normal((30, 2)))
    flips = equivalent_flips(net)
    assert flips == [(), (0, 1, 2)]
    assert flip_units(net, flips[1]).evaluate_exact(X) == net.evaluate_exact(X)
    assert not (flip_units(net, [0]).evaluate_exact(X) == net.evaluate_exact(X))


def test_equivalent_flips_edge_cases():
    dead = Network.from_rows([[0, 0]], [[1, 0], [0, 0]], b=[1, 1])
    assert equivalent_flips(dead) == [()]
    with pytest.raises(InvalidInput, match="one output"):
        equivalent_flips(Network.from_rows([[1], [1]], [[1, 0]]))
    many = Network.from_rows([[1] * 4], [[1, 0], [0, 1], [1, 1], [2, 1]], b=[0, 0, 0, 0])
    with pytest.raises(InvalidInput, match="too large"):
        equivalent_flips(many, max_units=3)
    with pytest.raises(InvalidInput, match="flip indices"):
        flip_units(many, [4])
    assert Fraction(-1) in flip_units(Network.from_rows([[1]], [[1, 0]], b=[1]), [0]).b_fractions()


def test_sign_theorem_detects_a_wrong_parity(monkeypatch):
    from exactrelu.theorems import biased_relu_hermite

    wrong = lambda t: biased_relu_hermite.phi(B_SYM) * (B_SYM + 1) if t == 3 else closed_form(t)  # noqa: E731
    monkeypatch.setattr(sign_identifiability, "closed_form", wrong)
    assert "g_3(-b) != (-1)^3 g_3(b)" in sign_identifiability.parity_identities(4)


# -- overcomplete (l = 2) ---------------------------------------------------------------------------

def test_overcomplete_tensors_match_the_population_ones():
    from exactrelu.propose.hermite.overcomplete import hermite_tensors

    rng = np.random.default_rng(0)
    U = np.array(rational_unit_rows(rng, 3, 2), dtype=float)
    alpha, beta = np.array([1.0, -1.0, 2.0]), np.array([0.0, 1.0, -0.5])
    X = rng.standard_normal((300000, 2))
    T, noise = hermite_tensors(X, np.maximum(X @ U.T + beta, 0) @ alpha)
    for t in range(7):
        tol = 6 * noise.get(t, noise[2]) * (1 if t < 4 else 3) + 0.01
        assert np.abs(T[t] - population_tensor(t, U, alpha, beta)).max() < tol, t


def test_overcomplete_recovers_more_units_than_dimensions():
    from exactrelu.propose.hermite.overcomplete import fit_overcomplete

    rng = np.random.default_rng(1)
    d, k = 4, 5
    U = rng.standard_normal((k, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    alpha, beta = np.array([1.0, -2.0, 1.5, 2.0, -1.0]), np.array([0.0, 1.0, -1.0, 0.4, -0.6])
    X = rng.standard_normal((200000, d))
    res = fit_overcomplete(X, np.maximum(X @ U.T + beta, 0) @ alpha, k, random_state=0)
    cos = res.U @ U.T
    assert cos.max(axis=1).min() > 0.9 and np.allclose(np.sort(res.beta), np.sort(beta), atol=0.3)


def test_overcomplete_refuses_what_it_cannot_do():
    from exactrelu.propose.hermite.overcomplete import decompose_overcomplete, fit_overcomplete, hermite_tensors

    X = np.random.default_rng(0).standard_normal((400, 3))
    with pytest.raises(InvalidInput, match="one output"):
        fit_overcomplete(X, X[:, :2], 2)
    with pytest.raises(InvalidInput, match="d <= 8"):
        fit_overcomplete(np.random.default_rng(0).standard_normal((400, 9)), X[:, :1], 2)
    T, _ = hermite_tensors(X, X[:, 0])
    with pytest.raises(AssumptionViolated, match=r"d \(d \+ 1\) / 2"):
        decompose_overcomplete(T, 7, np.random.default_rng(0))


def test_order_four_tensor_proposer_at_20_5_5_with_2e4_samples():
    from exactrelu.instances import planted
    from exactrelu.propose.floats import angular_errors
    from exactrelu.propose.tensor import TensorProposer

    inst = planted(20, 5, 5, 20000, seed=0)  # before the joint decomposition: 1.7 rad here; 20/20 seeds certify now
    est = TensorProposer(5, random_state=0, order=4).fit(inst.float_inputs(), inst.float_labels())
    assert angular_errors(est.V_, inst.planted.V.to_float()).max() < 0.3


# -- exactrelu fit --method hermite ------------------------------------------------------------------

def test_fit_method_hermite_on_the_command_line(tmp_path):
    from exactrelu.cli import main
    from exactrelu.instances import write_instance
    from exactrelu.io.weights import read_weights

    inst = planted_biased(6, 2, 30000, seed=4, special=(0, 1))
    path = write_instance(inst, tmp_path / "i.json")
    out = tmp_path / "w.json"
    assert main(["fit", str(path), "-k", "2", "--bias", "--method", "hermite", "-o", str(out)]) == 0
    net = read_weights(out)
    assert net.k == 2 and net.has_bias
    err = network_parameter_error(net.V.to_float(), np.array([float(x) for x in net.b_fractions()]),
                                  net.U.to_float(), inst.planted)
    assert err < 0.2


def test_fit_method_hermite_may_return_two_linear_units_for_large_biases():
    from exactrelu.fit import fit

    inst = planted_biased(6, 3, 30000, seed=1, special=(0, 6, -6))
    res = fit(inst, 3, bias=True, method="hermite", check=False)
    assert res.method == "hermite" and 3 <= res.network.k <= 5 and res.residual.relative() < 0.1


# -- exact from approximate ---------------------------------------------------------------------------

def test_recover_bias_init_hermite_certifies_biased_networks():
    """``recover --bias --init hermite`` end to end (row-span route on [x, 1] while m >= k; the pattern-linearized
    route for m = 1 is issue 10's and is exercised by benchmarks/bench_hermite.py --part exact once on main)."""
    from exactrelu.certificates.envelope import verify
    from exactrelu.recover import recover

    inst = planted_biased(6, 3, 20000, seed=0, m=3)
    res = recover(inst, k=3, bias=True, init="hermite", random_state=0)
    assert res.network.equivalent(inst.planted) and res.certificate["claim"] == "realizes" and "b" in res.certificate
    verify(res.certificate, inst)  # the independent checker; raises CertificateInvalid otherwise


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_biased_one_output_networks_are_certified_from_hermite(seed):
    """m = 1 with biases exactly 0, 1, -1: the Hermite proposal feeds the pattern-linearized route."""
    from exactrelu.certificates.envelope import verify
    from exactrelu.recover import recover

    inst = planted_biased(10, 3, 10000, seed=seed)
    res = recover(inst, k=3, bias=True, init="hermite", random_state=seed)
    assert res.network.equivalent(inst.planted) and res.certificate["claim"] == "realizes"
    assert res.proposer == "hermite" and [str(x) for x in res.network.b_fractions()] != ["0"] * 3
    verify(res.certificate, inst)  # the independent checker; raises CertificateInvalid otherwise


def test_recover_bias_init_hermite_on_the_command_line(tmp_path):
    from exactrelu.certificates.envelope import verify
    from exactrelu.cli import main
    from exactrelu.instances import write_instance

    inst = planted_biased(8, 2, 8000, seed=5, special=(0, 1))
    path = write_instance(inst, tmp_path / "i.json")
    cert = tmp_path / "c.json"
    assert main(["recover", str(path), "-k", "2", "--bias", "--init", "hermite", "-o", str(cert)]) == 0
    import json

    verify(json.loads(cert.read_text()), inst)
