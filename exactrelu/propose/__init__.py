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
    "search": "exactrelu.propose.search:SearchProposer",
}

__all__ = ["PROPOSERS", "make_proposer", "proposer_names"]


def proposer_names() -> list[str]:
    return sorted(PROPOSERS)


def make_proposer(init, k: int, *, activation: Activation = RELU, random_state=None):
    """Return an (unfitted) estimator for a proposer name, or ``init`` itself if it is an estimator."""
    if isinstance(init, str):
        if init not in PROPOSERS:
            raise InvalidInput(f"unknown proposer {init!r}; choose from {proposer_names()} or pass weights")
        mod, cls = PROPOSERS[init].split(":")
        return getattr(importlib.import_module(mod), cls)(k, activation=activation, random_state=random_state)
    if hasattr(init, "fit") or hasattr(init, "V_"):
        return init
    raise InvalidInput(f"init must be a proposer name, an estimator with fit/V_, or a k x d array; got {type(init).__name__}")


def proposal_array(V, d: int) -> np.ndarray:
    """Validate a proposed weight array (rows = units, d columns)."""
    A = np.asarray(V, dtype=np.float64)
    if A.ndim != 2 or A.shape[1] != d or A.shape[0] < 1:
        raise InvalidInput(f"a proposal must be a (units x {d}) array, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise InvalidInput("a proposal must be finite")
    return A
