"""The proposers follow scikit-learn's estimator contract, checked by scikit-learn's own check suite."""

import pickle
import warnings

import numpy as np
import pytest

import exactrelu.propose as propose
from exactrelu.errors import InvalidInput
from exactrelu.instances import planted
from exactrelu.network import Activation
from exactrelu.propose import (PROPOSERS, AutoProposer, GradientProposer, HermiteProposer, ICAProposer, Proposer,
                               SearchProposer, TensorProposer, WeightsFile)

sklearn = pytest.importorskip("sklearn")  # in the test extra; the ica extra for users
from sklearn.base import clone  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

CLASSES = [AutoProposer, SearchProposer, GradientProposer, TensorProposer, ICAProposer, HermiteProposer]

#: scikit-learn's checks that do not apply, and why (every other check must pass).
NOT_APPLICABLE = {
    "check_dtype_object": "a non-numeric entry raises exactrelu's InvalidInput (a ValueError, like every bad input, "
                          "so that the command line exits 2), where scikit-learn expects a TypeError",
}


with warnings.catch_warnings():  # the proposers implement the protocol without inheriting scikit-learn's base class
    warnings.filterwarnings("ignore", message="Estimator .* does not inherit from `sklearn.base.BaseEstimator`")
    # scikit-learn generates its own data (1-D labels, random inputs): k = 1 is the instance that fits them
    _CHECKS = parametrize_with_checks([cls(1, random_state=0) for cls in CLASSES],
                                      expected_failed_checks=lambda est: NOT_APPLICABLE)


@_CHECKS
def test_scikit_learn_check_estimator(estimator, check):
    check(estimator)


def test_every_proposer_is_exported_and_registered():
    for cls in CLASSES + [WeightsFile]:
        assert getattr(propose, cls.__name__) is cls and cls.__name__ in propose.__all__
        assert issubclass(cls, Proposer)
    assert set(PROPOSERS.values()) == set(CLASSES)
    for name in ("propose_auto", "propose_search", "propose_gradient", "propose_tensor", "propose_ica"):
        assert callable(getattr(propose, name)) and name in propose.__all__


@pytest.mark.parametrize("cls", CLASSES)
def test_clone_get_set_params_and_pickle(cls):
    est = cls(3, activation="power:2", random_state=7)
    twin = clone(est)
    assert twin is not est and twin.get_params() == est.get_params()
    assert twin.get_params()["activation"] == "power:2" and twin.get_params()["k"] == 3
    assert est.set_params(k=4) is est and est.k == 4 and twin.k == 3
    with pytest.raises(InvalidInput, match="has no parameter 'nonsense'"):
        est.set_params(nonsense=1)
    assert repr(cls(3)) == f"{cls.__name__}(k=3)"
    assert repr(est) == f"{cls.__name__}(k=4, activation='power:2', random_state=7)"
    assert pickle.loads(pickle.dumps(est)).get_params() == est.get_params()


def test_fit_learns_trailing_underscore_attributes_only_and_returns_self():
    inst = planted(d=4, k=2, m=2, n=300, seed=1)
    X, Y = inst.float_inputs(), inst.float_labels()
    for cls in (AutoProposer, SearchProposer, GradientProposer, TensorProposer):
        est = cls(2, random_state=0)
        before = dict(vars(est))
        assert est.fit(X, Y) is est
        learned = set(vars(est)) - set(before)
        assert learned and all(name.endswith("_") for name in learned), learned
        assert {name: vars(est)[name] for name in before} == before  # parameters untouched
        assert est.V_.shape == (2, 4) and est.n_features_in_ == 4 and est.activation_ == Activation()


def test_parameters_are_validated_in_fit_not_in_init():
    X, Y = np.random.default_rng(0).standard_normal((40, 3)), np.ones((40, 1))
    cases = [
        (GradientProposer(1, max_iter=0), "max_iter must be a positive integer"),
        (GradientProposer(1, extra=-1), "extra must be a non-negative integer"),
        (GradientProposer(1, ridge=float("nan")), "ridge must be a finite number >= 0"),
        (GradientProposer(1, ridge=True), "ridge must be a finite number"),
        (ICAProposer(1, tol=0), "tol must be a finite number > 0"),
        (TensorProposer(1, order=3), "order must be 'auto', 2 or 4"),
        (TensorProposer(1, order=True), "order must be 'auto', 2 or 4"),
        (TensorProposer(1, whiten="yes"), "whiten must be True or False"),
        (TensorProposer(1, n_draws=0), "n_draws must be a positive integer"),
        (SearchProposer(1, max_tries=0), "max_tries must be a positive integer"),
        (SearchProposer(1, tol=-1.0), "tol must be a finite number > 0"),
        (SearchProposer(1, progress="loud"), "progress must be None or a callable"),
        (SearchProposer(1, exclude=[np.ones(3, bool)]), "exclude must be a list of boolean masks of length n = 40"),
        (AutoProposer(1, search_below="many"), "search_below must be a finite number >= 0"),
        (AutoProposer(0), "k .* must be a positive integer"),
        (AutoProposer(1, activation=3), "activation must be 'relu', 'power:C' or an exactrelu Activation"),
        (AutoProposer(1, activation="sigmoid"), "activation"),
    ]
    for est, message in cases:
        with pytest.raises(InvalidInput, match=message):
            est.fit(X, Y)


def test_bad_data_get_one_specific_error():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((30, 3)), np.abs(rng.standard_normal(30))
    est = GradientProposer(1, random_state=0)
    with pytest.raises(InvalidInput, match="requires y to be passed, but the target y is None"):
        est.fit(X, None)
    with pytest.raises(InvalidInput, match=r"0 feature\(s\) \(shape=\(30, 0\)\)"):
        est.fit(X[:, :0], y)
    with pytest.raises(InvalidInput, match="Complex data not supported"):
        est.fit(X + 1j, y)
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(InvalidInput, match=r"non-finite entry \(NaN\) at index \(2, 1\)"):
        est.fit(bad, y)
    bad[2, 1] = -np.inf
    with pytest.raises(InvalidInput, match=r"non-finite entry \(an infinity\)"):
        est.fit(bad, y)
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(InvalidInput, match="sparse input is not supported"):
        est.fit(sparse.csr_matrix(X), y)
    with pytest.raises(InvalidInput, match=r"more samples than input dimensions: got 3 sample\(s\) for d = 3"):
        TensorProposer(1).fit(X[:3], y[:3])


def test_one_dimensional_labels_are_one_output():
    inst = planted(d=3, k=1, m=1, n=200, seed=2)
    X, y = inst.float_inputs(), inst.float_labels()[:, 0]
    for cls in (SearchProposer, GradientProposer, TensorProposer):
        a, b = cls(1, random_state=0).fit(X, y), cls(1, random_state=0).fit(X, y[:, None])
        assert np.array_equal(a.V_, b.V_)


def test_weights_file_is_an_estimator_too(tmp_path):
    path = tmp_path / "w.npz"
    np.savez(path, U=np.ones((2, 3)), V=np.ones((3, 4)))
    est = WeightsFile(str(path), 3)
    assert "V_" not in vars(est)  # nothing is read before fit
    twin = clone(est)
    assert twin.fit(np.zeros((5, 4))) is twin and twin.V_.shape == (3, 4) and twin.U_.shape == (2, 3)
