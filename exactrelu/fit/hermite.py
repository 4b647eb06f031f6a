"""``exactrelu fit --method hermite``: the Hermite-tensor algorithm of Awasthi, Tang, Vijayaraghavan (2021).

The start function of the fit registry (:mod:`exactrelu.fit.methods`) for
:class:`exactrelu.propose.hermite.HermiteProposer`: Gaussian inputs, ReLU, k <= d, biases learned
(``--bias``) or zero. It gives the approximate parameters alone (no refinement: ``refine=False``
in the registry); the large-|b| stage may return up to k + 2 units (``info["units"]``).

>>> import numpy as np
>>> from exactrelu.network import RELU
>>> rng = np.random.default_rng(0); X = rng.standard_normal((20000, 4))
>>> y = np.maximum(X[:, 0] - 0.5, 0)[:, None]
>>> st = hermite_start(X, y, 1, activation=RELU, rng=rng, bias=True)
>>> st.V.shape, st.info["units"]
((1, 4), 1)
"""

from __future__ import annotations

import numpy as np

from ..network import Activation
from ._model import Start

__all__ = ["hermite_start"]


def hermite_start(X: np.ndarray, Y: np.ndarray, k: int, *, activation: Activation, rng: np.random.Generator,
                  bias: bool = False, progress=None) -> Start:
    """Fit :class:`~exactrelu.propose.hermite.HermiteProposer` and return its (U, V, b) as a fit start."""
    from ..propose.hermite import HermiteProposer

    if progress is not None:
        progress("hermite: tensors, decomposition, signs")
    est = HermiteProposer(k, bias=bool(bias), activation=activation, random_state=rng).fit(X, Y)
    info = {"units": int(est.n_units_), "large_bias_units": [int(i) for i in est.large_units_],
            "sign_choices": len(est.sign_choices_), "decomposition_residual": float(est.residual_),
            "gaussian": None if est.gaussian_ is None else bool(est.gaussian_["gaussian"])}
    return Start(est.U_, est.V_, est.b_ if bias else None, info)
