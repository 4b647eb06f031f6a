"""Floating-point proposers: approximate weights V that the exact step confirms or refuses.

A proposer is a scikit-learn style estimator: ``Proposer(k, activation=..., random_state=...)``,
``fit(inputs, labels) -> self``, proposed weights in ``V_`` (rows = units, k x d float64).
:data:`PROPOSERS` maps the names accepted by ``recover(init=...)`` and ``exactrelu recover --init``
to estimator classes.
"""

from __future__ import annotations

import importlib

import numpy as np

from ..errors import InvalidInput
from ..network import RELU, Activation

#: name -> "module:Class"; entries are imported on demand (optional dependencies stay optional).
PROPOSERS: dict[str, str] = {
    "auto": "exactrelu.propose.auto:AutoProposer",
    "search": "exactrelu.propose.search:SearchProposer",
    "gradient": "exactrelu.propose.gradient:GradientProposer",
    "tensor": "exactrelu.propose.tensor:TensorProposer",
    "ica": "exactrelu.propose.ica:ICAProposer",
    "hermite": "exactrelu.propose.hermite:HermiteProposer",
}

__all__ = ["PROPOSERS", "make_proposer", "proposer_names"]


def proposer_names() -> list[str]:
    return sorted(PROPOSERS)


def make_proposer(init, k: int, *, activation: Activation = RELU, random_state=None):
    """Return an (unfitted) estimator for a proposer name, or ``init`` itself if it is an estimator."""
    if isinstance(init, str) and init not in PROPOSERS and _looks_like_file(init):
        return WeightsFile(init, k, activation=activation, random_state=random_state)
    if isinstance(init, str):
        if init not in PROPOSERS:
            raise InvalidInput(f"unknown proposer {init!r}; choose from {proposer_names()}, a weights file "
                               "(.npz with U, V or a PyTorch state dict), or pass weights")
        mod, cls = PROPOSERS[init].split(":")
        return getattr(importlib.import_module(mod), cls)(k, activation=activation, random_state=random_state)
    if hasattr(init, "fit") or hasattr(init, "V_"):
        return init
    raise InvalidInput(f"init must be a proposer name, an estimator with fit/V_, or a k x d array; got {type(init).__name__}")


def _looks_like_file(text: str) -> bool:
    import os

    return os.path.sep in text or "." in text or os.path.exists(text)


class WeightsFile:
    """A proposal read from a file: ``.npz`` with arrays U, V, or a PyTorch state dict (see torch_weights).

    Already "fitted" on construction: ``V_`` holds the file's first-layer weights (k x d).
    """

    def __init__(self, path: str, k: int | None = None, *, activation: Activation = RELU, random_state=None):
        from .torch_weights import load_weights

        self.path = path
        self.k = k
        self.activation = activation
        self.random_state = random_state
        self.U_, self.V_ = load_weights(path)
        if k is not None and self.V_.shape[0] != k:
            raise InvalidInput(f"{path}: the weights have {self.V_.shape[0]} hidden units, but k = {k}")

    def fit(self, inputs=None, labels=None) -> "WeightsFile":
        return self


def proposal_array(V, d: int) -> np.ndarray:
    """Validate a proposed weight array (rows = units, d columns)."""
    A = np.asarray(V, dtype=np.float64)
    if A.ndim != 2 or A.shape[1] != d or A.shape[0] < 1:
        raise InvalidInput(f"a proposal must be a (units x {d}) array, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise InvalidInput("a proposal must be finite")
    return A
