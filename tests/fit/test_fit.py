"""exactrelu.fit: the paper's sign scheme, the methods, the exact residual and its certificate, errors."""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.envelope import verify
from exactrelu.cli import main
from exactrelu.errors import AssumptionViolated, CertificateInvalid, FitNotConverged, InvalidInput, NotRealizable
from exactrelu.exact.matrix import QMatrix
from exactrelu.fit import METHODS, fit, register_method
from exactrelu.fit.fpt import fpt_start
from exactrelu.fit.methods import start_function
from exactrelu.fit.paper import projection_signs
from exactrelu.instances import Instance, planted, write_instance
from exactrelu.network import Activation
from exactrelu.propose.floats import angular_errors
from exactrelu.io.weights import read_weights


def noise_norm(inst) -> float:
    return float(np.linalg.norm(inst.noise.to_float()))


@settings(max_examples=10)
@given(d=st.integers(3, 8), k=st.integers(1, 3), seed=st.integers(0, 10**6), flips=st.lists(st.booleans(), min_size=3,
                                                                                          max_size=3))
def test_projection_signs_choose_the_planted_sign(d, k, seed, flips):
    # moderate noise (sigma = 0.1 against integer weights), rows perturbed by about 0.05 rad, signs flipped at random
    inst = planted(d, k, k + 1, 3000, seed=seed, noise="gaussian:0.1")
    rng = np.random.default_rng(seed)
    V = inst.planted.V.to_float()
    V = V / np.linalg.norm(V, axis=1, keepdims=True) + 0.05 / np.sqrt(d) * rng.standard_normal(V.shape)
    s = np.where(np.array(flips[:k]), -1.0, 1.0)
    signs, margins = projection_signs(inst.float_inputs(), inst.float_labels(), V * s[:, None])
    assert np.array_equal(signs, s) and np.all(margins * s > 0)


def independent_squared_error(net, inst) -> Fraction:
    """sum (prediction - label)^2 with Python Fractions, from the weights' rationals (no FLINT)."""
    U, V, b, c = net.U.to_fractions(), net.V.to_fractions(), net.b_fractions(), net.c_fractions()
    total = Fraction(0)
    for x, y in zip(inst.inputs.to_fractions(), inst.labels.to_fractions()):
        h = [max(sum(vi * xi for vi, xi in zip(row, x)) + bi, 0) for row, bi in zip(V, b)]
        total += sum((sum(u * hi for u, hi in zip(urow, h)) + cr - yr) ** 2 for urow, cr, yr in zip(U, c, y))
    return total


@pytest.fixture(scope="module")
def noisy():
    return planted(d=10, k=3, m=5, n=20000, seed=4, noise="gaussian:0.05")


def test_tensor_fit_reaches_the_noise_floor_with_a_verified_certificate(noisy):
    res = fit(noisy, 3, random_state=0)
    assert res.method == "tensor" and [s.name for s in res.stages] == ["paper", "refine"]
    ratio = float(res.squared_error) ** 0.5 / noise_norm(noisy)
    assert ratio <= 1.01  # the target at (10, 3, 5), n = 2e4, sigma = 0.05
    assert angular_errors(res.network.V.to_float(), noisy.planted.V.to_float()).max() <= 0.01
    assert res.stages[1].relative < res.stages[0].relative and not res.realizable
    assert res.certificate["claim"] == "residual" and res.checked.startswith("residual")
    assert Fraction(res.certificate["squared_error"]) == res.squared_error
    assert set(res.timings) >= {"paper", "refine", "exact residual", "certificate"}


def test_residual_certificate_equals_an_independent_recomputation_and_rejects_tampering():
    inst = planted(d=4, k=2, m=3, n=300, seed=2, noise="laplace:0.1", bias=1.0)
    res = fit(inst, 2, bias=True, method="gradient", random_state=1)
    assert res.network.has_bias
    assert res.squared_error == independent_squared_error(res.network, inst)
    cert = res.certificate
    worst = max(abs(a - b) for ra, rb in zip(res.network.evaluate_exact(inst.inputs).to_fractions(),
                                            inst.labels.to_fractions()) for a, b in zip(ra, rb))
    assert Fraction(cert["max_abs_error"]) == worst
    bumps = [("squared_error", str(res.squared_error + Fraction(1, 10**30))),
             ("max_abs_error", str(worst * 2)), ("b", [str(Fraction(x) + 1) for x in cert["b"]]),
             ("U", [[str(Fraction(x) * 2) for x in row] for row in cert["U"]]),
             ("instance_sha256", "0" * 64), ("claim", "realizes")]
    for key, value in bumps:
        with pytest.raises(CertificateInvalid):
            verify({**cert, key: value}, inst)
    with pytest.raises(CertificateInvalid):
        verify({k: v for k, v in cert.items() if k != "squared_error"}, inst)


def test_paper_alone_and_refinement_are_reported_separately(noisy):
    alone = fit(noisy, 3, method="paper", certificate=False)
    assert [s.name for s in alone.stages] == ["paper"] and alone.certificate is None and alone.checked is None
    assert len(alone.info["sign_margins"]) == 3 and alone.info["tensor_order"] == 2
    refined = fit(noisy, 3, method="paper", refine=True, check=False)
    assert refined.squared_error < alone.squared_error and refined.checked is None


def test_fpt_with_heavy_tailed_noise():
    inst = planted(d=6, k=2, m=3, n=8000, seed=1, noise="student-t3:0.3")
    res = fit(inst, 2, method="fpt", check=False)
    assert res.info["candidates"] >= 2 and res.info["subsets"] >= 1
    assert float(res.squared_error) ** 0.5 <= 1.01 * noise_norm(inst)


def test_fpt_states_its_limits(monkeypatch):
    X = np.random.default_rng(0).standard_normal((500, 4))
    rng = np.random.default_rng(0)
    with pytest.raises(AssumptionViolated, match="needs m >= k"):
        fpt_start(X, X[:, :1], 2, activation=None, rng=rng)
    with pytest.raises(AssumptionViolated, match="cannot have independent rows"):
        fpt_start(X[:, :2], X, 3, activation=None, rng=rng)
    with pytest.raises(AssumptionViolated, match="subsets of k = 3"):
        fpt_start(X, X, 3, activation=None, rng=rng, max_subsets=100)
    with pytest.raises(AssumptionViolated, match="singular second moment"):
        fpt_start(np.hstack([X, np.zeros((500, 1))]), X, 2, activation=None, rng=rng)
    import exactrelu.fit.fpt as fpt

    monkeypatch.setattr(fpt, "_candidates", lambda *a: np.ones((1, 4)) / 2)
    with pytest.raises(AssumptionViolated, match="fewer than k = 2"):
        fpt_start(X, X, 2, activation=None, rng=rng)


def test_auto_falls_back_to_gradient_when_the_tensor_cannot_apply():
    inst = planted(d=3, k=2, m=2, n=400, seed=0, noise="gaussian:0.01")
    X = inst.float_inputs().copy()
    X[:, 2] = 0.0  # singular second moment: the tensor's whitening refuses
    with pytest.warns(FitNotConverged) as caught:
        res = fit(X, 2, labels=inst.float_labels(), random_state=0, check=False)
    assert caught[0].filename == __file__  # the warning names the caller's line, not the library's
    assert res.method == "gradient" and "fallback" in res.info
    with pytest.raises(AssumptionViolated):
        fit(X, 2, labels=inst.float_labels(), method="tensor")
    wide = planted(d=2, k=3, m=3, n=300, seed=0, noise="gaussian:0.01")
    assert fit(wide, 3, check=False).method == "gradient"  # k > d: auto chooses the gradient baseline


def test_exactly_realizable_labels_are_recognized():
    inst = planted(d=5, k=2, m=3, n=400, seed=3)
    res = fit(inst, 2)
    assert res.realizable and res.squared_error == 0 and res.network.equivalent(inst.planted)
    assert "exact recovery attempt" in res.timings


def test_float_rounded_labels_reach_the_rounding_level():
    inst = planted(d=5, k=2, m=3, n=2000, seed=6, weights="dyadic")
    rounded = inst.planted.predict(inst.float_inputs())  # a float64 forward pass: labels rounded
    data = Instance.from_arrays(inst.float_inputs(), rounded)
    res = fit(data, 2, random_state=0, check=False)
    assert not res.realizable and 0 < res.relative < 1e-13


def test_power_activation_is_fitted():
    inst = planted(d=4, k=2, m=2, n=2000, seed=1, activation=Activation.power(2), noise="gaussian:0.05")
    res = fit(inst, 2, method="gradient", random_state=0, check=False)
    assert res.network.activation == Activation.power(2)
    assert float(res.squared_error) ** 0.5 <= 1.05 * noise_norm(inst)


def test_adding_a_method_is_one_registration():
    register_method("planted-test", "tests.fit.test_fit:_planted_start", refine=False, bias=False, summary="test only")
    try:
        inst = planted(d=3, k=2, m=2, n=50, seed=0, noise="gaussian:0.1")
        res = fit(inst, 2, method="planted-test", check=False)
        assert res.method == "planted-test" and res.network.equivalent(inst.planted)
    finally:
        del METHODS["planted-test"]
    with pytest.raises(InvalidInput, match="other than 'auto'"):
        register_method("auto", "x:y")
    with pytest.raises(InvalidInput, match="unknown fit method"):
        start_function("nope")


def _planted_start(X, Y, k, *, activation, rng, bias, progress):
    from exactrelu.fit._model import Start

    inst = planted(d=3, k=2, m=2, n=50, seed=0)
    return Start(inst.planted.U.to_float(), inst.planted.V.to_float())


@pytest.mark.parametrize("kwargs, message", [
    (dict(k=0), "positive integer"),
    (dict(k=True), "positive integer"),
    (dict(k=20000), "at most 10000"),
    (dict(k=2, method="newton"), "unknown fit method"),
    (dict(k=2, method="paper", bias=True), "without hidden biases"),
    (dict(k=2, activation=Activation.power(3)), "differs from the instance"),
])
def test_bad_arguments(kwargs, message):
    inst = planted(d=3, k=2, m=2, n=20, seed=0)
    with pytest.raises(InvalidInput, match=message):
        fit(inst, **kwargs)


def test_bad_data():
    X = np.random.default_rng(0).standard_normal((10, 2))
    Y = np.ones((10, 1))
    Y[3, 0] = np.nan
    with pytest.raises(InvalidInput, match="NaN"):
        fit(X, 1, labels=Y)
    with pytest.raises(InvalidInput, match="empty"):
        fit(Instance.from_arrays(np.zeros((0, 2)), np.zeros((0, 1))), 1)
    with pytest.raises(InvalidInput, match="inputs and labels"):
        fit(X, 1)
    inst = planted(d=2, k=1, m=1, n=5, seed=0)
    with pytest.raises(InvalidInput, match="only with an inputs array"):
        fit(inst, 1, labels=Y)
    huge = Instance(QMatrix.from_rows([[1], [2]]), QMatrix.from_rows([[10**400], [1]]))
    with pytest.raises(InvalidInput, match="too large for float64"):
        fit(huge, 1)


def test_fit_command(capsys, tmp_path, noisy):
    small = planted(d=6, k=2, m=3, n=2000, seed=1, noise="gaussian:0.05")
    path = write_instance(small, tmp_path / "i.json")
    w, c = tmp_path / "w.json", tmp_path / "c.json"
    assert main(["fit", str(path), "-k", "2", "-o", str(w), "--certificate", str(c), "-v"]) == 0
    out, err = capsys.readouterr()
    assert "method tensor (auto)" in out and "refine" in out and "||residual||_F / ||E||_F (planted noise)" in out
    assert "independent checker: residual" in out and ".. refine" in err
    assert read_weights(w).k == 2 and json.loads(c.read_text())["claim"] == "residual"
    assert main(["check", str(c), str(path)]) == 0
    exact = write_instance(planted(d=4, k=2, m=2, n=200, seed=0), tmp_path / "e.json")
    assert main(["fit", str(exact), "-k", "2", "-o", str(w), "--no-check"]) == 0
    assert "exactly realizable" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:  # a usage error: the argparse type refuses it
        main(["fit", str(path), "-k", "0", "-o", str(w)])
    assert exc.value.code == 2
    assert main(["fit", str(path), "-k", "2", "--method", "paper", "--bias", "-o", str(w)]) == 2
    assert "without hidden biases" in capsys.readouterr().err


def test_certify_weights_on_float_rounded_labels_gives_a_residual_certificate(capsys, tmp_path):
    from exactrelu.certificates import checker
    from exactrelu.recover.given_weights import certify_weights
    from exactrelu.io.weights import write_weights

    inst = planted(d=5, k=2, m=3, n=300, seed=6, weights="dyadic")
    rounded = Instance.from_arrays(inst.float_inputs(), inst.planted.predict(inst.float_inputs()))
    ip, wp, cp = tmp_path / "i.json", tmp_path / "w.json", tmp_path / "c.json"
    write_instance(rounded, ip)
    write_weights(inst.planted, wp)
    assert main(["certify", str(ip), "--weights", str(wp), "-o", str(cp)]) == 1
    out = capsys.readouterr().out
    assert "no exact certificate" in out and "residual certificate of the given weights" in out
    assert out.startswith("certified: residual only")
    for claim, code in (("residual", 0), ("realizes-except", 1), ("realizes", 1)):
        assert main(["certify", str(ip), "--weights", str(wp), "-o", str(cp), "--require", claim]) == code
    cert = json.loads(cp.read_text())
    assert cert["claim"] == "residual" and 0 < Fraction(cert["squared_error"]) < Fraction(1, 10**20)
    assert checker.check_files(str(cp), str(ip)).startswith("residual")
    assert main(["certify", str(ip), "--weights", str(wp), "--as-given", "-o", str(tmp_path / "x.json")]) == 1
    assert not (tmp_path / "x.json").exists()
    res = certify_weights(rounded, inst.planted.U, inst.planted.V, as_given=True, residual_fallback=True, check=False)
    assert res.how == "residual of the given weights" and res.checked is None
    # weights with hidden biases (a fit with --bias): certified as given, or their residual; no recovery from them
    biased = planted(d=3, k=2, m=2, n=200, seed=1, bias=1.0, noise="gaussian:0.05")
    fitted = fit(biased, 2, bias="hidden", method="gradient", certificate=False)
    res = certify_weights(biased, fitted.network.U, fitted.network.V, b=fitted.network.b, residual_fallback=True)
    assert res.certificate["claim"] == "residual" and "b" in res.certificate
    assert Fraction(res.certificate["squared_error"]) == fitted.squared_error
    with pytest.raises(NotRealizable, match="do not reproduce the labels exactly"):
        certify_weights(biased, fitted.network.U, fitted.network.V, b=fitted.network.b.to_float()[:, 0])
