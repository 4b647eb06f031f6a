"""Floating-point proposers: approximate weights V that the exact step confirms or refuses.

Every proposer is a scikit-learn estimator (:class:`~exactrelu.propose._base.Proposer`):
``Proposer(k, activation=..., random_state=..., **params)`` stores its parameters untouched,
``fit(inputs, labels)`` validates them, learns and returns ``self``; the proposed weights are in
``V_`` (rows = units, k x d float64) and every learned attribute ends in ``_``. ``get_params`` /
``set_params`` make ``sklearn.base.clone`` and parameter searches work (scikit-learn itself is
not needed). :data:`PROPOSERS` maps the names accepted by ``recover(init=...)`` and ``exactrelu
recover --init`` to the classes; each class has a functional twin (``propose_gradient``, ...).

>>> import numpy as np
>>> from exactrelu.propose import SearchProposer
>>> from exactrelu.instances import planted
>>> inst = planted(d=4, k=2, m=2, n=200, seed=3)
>>> est = SearchProposer(2, random_state=0).fit(inst.float_inputs(), inst.float_labels())
>>> est.V_.shape, est.n_features_in_
((2, 4), 4)
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import InvalidInput
from ..network import RELU, Activation
from ._base import Proposer
from .auto import AutoProposer, propose_auto
from .gradient import GradientProposer, propose_gradient
from .hermite import HermiteProposer, propose_hermite
from .ica import ICAProposer, propose_ica
from .search import SearchProposer, propose_search
from .tensor import TensorProposer, propose_tensor

#: name -> proposer class, for ``recover(init=NAME)`` and ``exactrelu recover --init NAME``.
PROPOSERS: dict[str, type] = {
    "auto": AutoProposer,
    "search": SearchProposer,
    "gradient": GradientProposer,
    "tensor": TensorProposer,
    "ica": ICAProposer,
    "hermite": HermiteProposer,
}

__all__ = ["PROPOSERS", "Proposer", "AutoProposer", "SearchProposer", "GradientProposer", "TensorProposer",
           "ICAProposer", "HermiteProposer", "WeightsFile", "make_proposer", "proposer_names", "proposal_array",
           "propose_auto", "propose_search", "propose_gradient", "propose_tensor", "propose_ica", "propose_hermite"]


def proposer_names() -> list[str]:
    return sorted(PROPOSERS)


def make_proposer(init, k: int, *, activation: Activation = RELU, random_state=None):
    """Return an (unfitted) estimator for a proposer name or a weights file, or ``init`` itself if it is an estimator.

    >>> make_proposer("gradient", 3, random_state=0)
    GradientProposer(k=3, random_state=0)
    """
    if isinstance(init, str) and init not in PROPOSERS and _looks_like_file(init):
        return WeightsFile(init, k, activation=activation, random_state=random_state)
    if isinstance(init, str):
        if init not in PROPOSERS:
            raise InvalidInput(f"unknown proposer {init!r}; choose from {proposer_names()}, a weights file "
                               "(.npz with U, V or a PyTorch state dict), or pass weights")
        return PROPOSERS[init](k, activation=activation, random_state=random_state)
    if hasattr(init, "fit") or hasattr(init, "V_"):
        return init
    raise InvalidInput(f"init must be a proposer name, an estimator with fit/V_, or a k x d array; "
                       f"got {type(init).__name__}")


def _looks_like_file(text: str) -> bool:
    return os.path.sep in text or "." in text or os.path.exists(text)


class WeightsFile(Proposer):
    """A proposal read from a weights file (anything :func:`exactrelu.io.weights.read_weights` reads).

    ``fit`` reads the file exactly (the data are only used to check the dimensions): ``V_`` holds
    its first layer (k x d, float), ``U_`` its output weights, ``b_`` its hidden biases (None when
    all zero) and ``network_`` the exact :class:`~exactrelu.network.Network`.

    Parameters
    ----------
    path : the weights file (``exactrelu.weights`` JSON, a certificate, ``.npz``, ``.safetensors``,
        a PyTorch state dict).
    k : expected number of hidden units (None: whatever the file holds).
    activation : the activation when the file names none.
    random_state : accepted for the common signature; unused.
    """

    def __init__(self, path: str, k: int | None = None, *, activation: Activation | str = "relu", random_state=None):
        self.path = path
        self.k = k
        self.activation = activation
        self.random_state = random_state

    def fit(self, X=None, y=None) -> "WeightsFile":
        """Read the file; with inputs ``X``, check that its first layer has their d columns. Returns self."""
        from ..io.weights import read_weights
        from .floats import check_activation

        net = read_weights(self.path, activation=check_activation(self.activation))
        if self.k is not None and net.k != self.k:
            raise InvalidInput(f"{self.path}: the weights have {net.k} hidden units, but k = {self.k}")
        if X is not None and np.ndim(X) == 2 and np.shape(X)[1] != net.d:
            raise InvalidInput(f"{self.path}: the first layer has {net.d} columns but the inputs have "
                               f"d = {np.shape(X)[1]}")
        self.network_ = net
        self.U_, self.V_ = net.U.to_float(), net.V.to_float()
        self.b_ = np.array([float(x) for x in net.b_fractions()]) if net.has_bias else None
        self.activation_ = net.activation
        self.n_features_in_ = net.d
        return self


def proposal_array(V, d: int) -> np.ndarray:
    """Validate a proposed weight array (rows = units, d columns)."""
    A = np.asarray(V, dtype=np.float64)
    if A.ndim != 2 or A.shape[1] != d or A.shape[0] < 1:
        raise InvalidInput(f"a proposal must be a (units x {d}) array, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise InvalidInput("a proposal must be finite")
    return A
