"""``exactrelu fit --method hermite``: the Hermite-tensor algorithm of Awasthi, Tang, Vijayaraghavan (2021).

The start function of the fit registry (:mod:`exactrelu.fit.methods`) for
:class:`exactrelu.propose.hermite.HermiteProposer`: Gaussian inputs, ReLU, k <= d, biases learned
(``--bias``) or zero. It gives the approximate parameters alone (no refinement: ``refine=False``
in the registry); the large-|b| stage may return up to k + 2 units (``info["units"]``). An attempt that
ends above the best affine map is retried with fresh random draws (``info["attempts"]``).

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
from ._model import Start, relative_residual
from .convergence import affine_baseline, stalled

__all__ = ["hermite_start", "ATTEMPTS"]

#: Attempts of the Hermite start before it reports (FitNotConverged, from fit()) instead of retrying.
ATTEMPTS = 6


def hermite_start(X: np.ndarray, Y: np.ndarray, k: int, *, activation: Activation, rng: np.random.Generator,
                  bias: bool = False, progress=None, attempts: int = ATTEMPTS, offset: bool = False) -> Start:
    """Fit :class:`~exactrelu.propose.hermite.HermiteProposer` and return its (U, V, b) as a fit start.

    An attempt whose training residual is above the best affine map's (a failed decomposition) is retried with
    fresh random draws, up to ``attempts`` in all; the best is kept, and ``info["attempts"]`` lists each attempt's
    relative residual. (Issue 23's failures, missed large-|b| units, are found by the large-|b| stage itself since
    issue 34: at d=10, k=4, n=5e4, biases 0, 1, -1, 6, 16 of 16 seeds succeed at the first attempt.) ``offset``:
    an output bias, which enters the zeroth Hermite coefficient only
    (:class:`~exactrelu.propose.hermite.HermiteProposer`'s ``offset``).
    """
    from ..propose.hermite import HermiteProposer
    from ..propose.selfcheck import quiet

    best, tried = None, []
    baseline = affine_baseline(X, Y)
    for attempt in range(attempts):
        if attempt and progress is not None:
            progress(f"hermite: attempt {attempt + 1} of {attempts} (relative residual {tried[-1]:.3g} "
                     f"above the affine map's {baseline:.3g})")
        with quiet():  # each attempt is judged here, the result by fit()
            est = HermiteProposer(k, bias=bool(bias), activation=activation, random_state=rng,
                                  offset=bool(offset)).fit(X, Y, progress=progress)
        start = Start(est.U_, est.V_, est.b_ if bias else None, _info(est), est.c_ if offset else None)
        tried.append(relative_residual(X, Y, start, 1))
        if best is None or tried[-1] < best[0]:
            best = (tried[-1], start)
        if stalled(tried[-1], baseline, None) is None:
            break
    start = best[1]
    start.info.update({"attempts": tried, "affine_baseline": baseline})
    return start


def _info(est) -> dict:
    return {"units": int(est.n_units_), "large_bias_units": [int(i) for i in est.large_units_],
            "sign_choices": len(est.sign_choices_), "decomposition_residual": float(est.residual_),
            "gaussian": None if est.gaussian_ is None else bool(est.gaussian_["gaussian"])}
