"""Biased two-layer ReLU networks from Gaussian samples by Hermite tensors (Awasthi, Tang, Vijayaraghavan 2021).

``proposer`` (the estimator), ``estimators`` (Hermite coefficient tensors from samples), ``decompose``
(Jennrich's pencil, ALS), ``params`` (each unit's output weight and bias), ``signs`` (which
orientations the data allow), ``large_bias`` (the second stage), ``overcomplete`` (k > d); docs/hermite.md.
"""

from .proposer import HermiteProposer, network_parameter_error, propose_hermite

__all__ = ["HermiteProposer", "propose_hermite", "network_parameter_error"]
