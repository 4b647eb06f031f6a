"""A float proposal for the lazy engine: which output-weight case to try first, and the solver's first phases.

For unknown output weights (m = 1) the engine refutes or solves one sign vector u at a time. On a
realizable instance all the cases before the realizable one are refuted first (a (3, 2, 40) planted
instance spent 552 solver rounds so). :func:`proposal_hint` fits a float network by gradient descent
(:mod:`exactrelu.propose.gradient`); if it reproduces the labels to float precision, the signs of its
output weights name the case to try first, and its activation pattern becomes the SAT solver's first
phases. Nothing here decides: a wrong hint costs the fit's time, and the exact search then runs as
without it (float proposes, exact decides).

>>> import numpy as np
>>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 2.0], [2.0, -1.0], [-1.0, -1.0]])
>>> Y = np.maximum(X @ [2.0, -1.0], 0)[:, None] - np.maximum(X @ [0.5, 1.0], 0)[:, None]
>>> signs, phases = proposal_hint(X, Y, 2)
>>> signs, phases[(0, 0)], phases[(0, 1)]
((1, -1), True, True)
"""

from __future__ import annotations

import numpy as np

__all__ = ["proposal_hint", "FIT_TOLERANCE"]

#: the float fit must reproduce the labels to this relative precision to be taken as a hint
FIT_TOLERANCE = 1e-6


def proposal_hint(X: np.ndarray, Y: np.ndarray, k: int, *, seed: int = 0):
    """``(signs, phases)`` from a float fit of k units (m = 1), or None when the fit does not reproduce the labels.

    ``signs`` is the sign vector of the fit's output weights, non-increasing (one of
    :func:`~exactrelu.decide.search.pattern_search.sign_cases`); ``phases`` maps ``(sample j, case column c)`` to
    "active" for the unit sorted into column c.
    """
    from ...propose.gradient import GradientProposer
    from ...propose.selfcheck import quiet

    n = len(X)
    if n == 0 or Y.shape[1] != 1 or not np.isfinite(X).all() or not np.isfinite(Y).all():
        return None
    try:
        with quiet():  # a hint that does not reproduce the labels is dropped below
            fit = GradientProposer(k, random_state=seed, n_restarts=2, max_iter=200).fit(X, Y)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):  # a float failure only means no hint
        return None
    V = np.asarray(fit.V_, dtype=np.float64)
    H = np.maximum(X @ V.T, 0)
    u, *_ = np.linalg.lstsq(H, Y[:, 0], rcond=None)
    scale = max(float(np.abs(Y).max()), 1e-300)
    if not np.abs(H @ u - Y[:, 0]).max() <= FIT_TOLERANCE * scale:
        return None
    size = np.abs(u) * np.linalg.norm(V, axis=1)  # the unit's part at unit scale
    sign = np.where(size <= FIT_TOLERANCE * max(float(size.max()), 1e-300), 0, np.sign(u)).astype(int)
    active = (X @ V.T) >= 0
    # units of one sign are interchangeable; the engine takes them active first on the first non-zero
    # sample (its symmetry clause), so they are sorted that way here too
    j0 = next((j for j in range(n) if X[j].any()), 0)
    order = sorted(range(k), key=lambda i: (-sign[i], not active[j0, i]))
    phases = {(j, c): bool(active[j, i]) for c, i in enumerate(order) for j in range(n)}
    return tuple(int(sign[i]) for i in order), phases
