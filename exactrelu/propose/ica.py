"""ICA proposer for orthonormal V (Gaussian inputs): FastICA from scikit-learn, optional extra ``ica``.

When the rows of V are orthonormal (in the inputs' whitened coordinates) and x is Gaussian, the
hidden activations ``f(V x)`` are independent and not Gaussian, and ``labels = f(X V^T) U^T``
mixes them linearly with U (full column rank). Independent component analysis of the labels
therefore returns the hidden activations, up to order, scale and sign (the paper's route for
orthonormal V). Each recovered source s_i is turned positive by its skewness (a rectified
Gaussian is right-skewed), and its unit is the least-squares regression of s_i on the inputs,
``v_i = (X^T X)^-1 X^T s_i``, which for Gaussian x is proportional to the true row.

scikit-learn is not a runtime dependency: install the extra (``pip install exactrelu[ica]``).

>>> import numpy as np, pytest
>>> _ = pytest.importorskip("sklearn")
>>> from exactrelu.propose.floats import angular_errors
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((20000, 4)); V = np.linalg.qr(rng.standard_normal((4, 4)))[0][:3]
>>> Y = np.maximum(X @ V.T, 0) @ rng.standard_normal((3, 3)).T
>>> est = ICAProposer(3, random_state=0).fit(X, Y)
>>> bool(angular_errors(est.V_, V).max() < 0.2)
True
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import AssumptionViolated, InvalidInput
from ..network import RELU, Activation
from ._base import Proposer
from .floats import check_activation
from ..validation import as_generator, check_integer, check_number

__all__ = ["ICAProposer", "propose_ica"]


def _fastica():
    try:
        from sklearn.decomposition import FastICA
    except ImportError:
        raise InvalidInput("the ICA proposer needs scikit-learn: pip install 'exactrelu[ica]'") from None
    return FastICA


class ICAProposer(Proposer):
    """Propose V (k x d) by FastICA of the labels (orthonormal V, Gaussian inputs).

    Parameters
    ----------
    k : number of hidden units (needs m >= k outputs).
    activation : RELU (default) or ``Activation.power(c)``.
    random_state : None, int or Generator (FastICA's start).
    max_iter, tol : passed to ``sklearn.decomposition.FastICA``.

    Attributes
    ----------
    V_ : (k, d) proposal (unit rows). sources_skew_ : (k,) skewness of the oriented sources
        (positive for rectified units). n_iter_ : FastICA iterations.
    """

    def __init__(self, k: int, *, activation: Activation | str = "relu", random_state=None, max_iter: int = 400,
                 tol: float = 1e-6):
        self.k = k
        self.activation = activation
        self.random_state = random_state
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y) -> "ICAProposer":
        """Fit to float inputs ``X`` (n x d) and labels ``y`` (n x m, or n for one output); returns self."""
        self.activation_ = check_activation(self.activation)
        check_integer(self.max_iter, "max_iter", minimum=1)
        check_number(self.tol, "tol", minimum=0, strict=True)
        k, X, Y = self._check_fit_data(X, y)
        if Y.shape[1] < k:
            raise AssumptionViolated(f"ICA of the labels needs m >= k outputs (m = {Y.shape[1]}, k = {k})",
                                     evidence={"m": Y.shape[1], "k": k}, suggestion="init='gradient'")
        FastICA = _fastica()
        seed = int(as_generator(self.random_state, "random_state").integers(2**31 - 1))
        ica = FastICA(n_components=k, whiten="unit-variance", random_state=seed, max_iter=self.max_iter, tol=self.tol)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a non-converged ICA is still a proposal; the exact step decides
            S = ica.fit_transform(Y)
        Sc = S - S.mean(axis=0)
        skew = (Sc**3).mean(axis=0) / np.maximum((Sc**2).mean(axis=0), 1e-300) ** 1.5
        S = S * np.where(skew >= 0, 1.0, -1.0)
        V = np.linalg.lstsq(X, S, rcond=None)[0].T
        nrm = np.linalg.norm(V, axis=1, keepdims=True)
        self.V_ = V / np.where(nrm > 0, nrm, 1.0)
        self.sources_skew_ = np.abs(skew)
        self.n_iter_ = int(ica.n_iter_)
        return self


def propose_ica(inputs, labels, k: int, *, activation: Activation = RELU, random_state=None, **kwargs) -> np.ndarray:
    """Functional form of :class:`ICAProposer`: the proposed V (k x d)."""
    return ICAProposer(k, activation=activation, random_state=random_state, **kwargs).fit(inputs, labels).V_
