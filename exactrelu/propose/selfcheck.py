"""Learners that check themselves: the error of what a learner returns, on its own data, against the trivial one.

Every approximate learner that returns a network (``HermiteProposer``, ``GradientProposer``, ``fit_overcomplete``;
``exactrelu.fit.fit`` for every method) measures

    error = ||prediction - labels||_F / ||labels - mean(labels)||_F

on the samples it was given: the labels' mean per output is the best constant predictor in least squares, so an
error of 1 or more means that the network explains nothing of the labels' variation (a failed decomposition, a missed
large-|b| unit, a stalled descent). Then a :class:`~exactrelu.errors.NoBetterThanConstant` warning gives the figure
and what to try; the weights are still returned (nothing exact is wrong: a float proposal claims nothing). The rule is
deliberately the trivial one: below 1 the result may still be poor (the fit's own convergence test, against the noise
floor or the best affine map, says more), but at 1 or above it is certainly not a fit.

Callers that judge a proposal themselves (exact recovery, the fit's retries) silence the warning with :func:`quiet`.

>>> import numpy as np
>>> Y = np.array([[1.0], [2.0], [3.0]])
>>> error_against_constant(Y + 0.1, Y) < 0.2, error_against_constant(np.full((3, 1), 2.0), Y)
(True, 1.0)
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Iterator

import numpy as np

from ..errors import NoBetterThanConstant

__all__ = ["TRIVIAL", "error_against_constant", "self_check", "quiet"]

#: an error (relative to the best constant predictor) at or above this is no better than trivial
TRIVIAL = 1.0


def error_against_constant(prediction, labels) -> float:
    """``||prediction - labels||_F / ||labels - mean(labels)||_F`` (per-output means); 0 for a perfect prediction,
    inf for an imperfect one of constant labels.

    >>> error_against_constant(np.zeros((2, 1)), np.ones((2, 1)))
    inf
    """
    Y = np.asarray(labels, dtype=np.float64)
    Y = Y.reshape(len(Y), -1)
    P = np.asarray(prediction, dtype=np.float64).reshape(Y.shape)
    scale = np.abs(Y).max() if Y.size else 0.0
    scale = scale if scale > 0 else 1.0  # no overflow for labels near 1e300
    err = float(np.linalg.norm((P - Y) / scale))
    spread = float(np.linalg.norm((Y - Y.mean(axis=0)) / scale))
    if spread == 0:
        return 0.0 if err == 0 else float("inf")
    return err / spread


def self_check(learner: str, error: float, advice: str, *, stacklevel: int = 3) -> float:
    """Warn (:class:`~exactrelu.errors.NoBetterThanConstant`) when ``error`` (:func:`error_against_constant`) is at
    or above :data:`TRIVIAL`; return ``error``.

    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = self_check("a learner", 1.02, "another seed")
    >>> print(seen[0].message)
    a learner: its relative error 1.02 against the best constant predictor (the labels' mean) is no better than
    trivial; try another seed
    """
    if not error < TRIVIAL:  # NaN too
        warnings.warn(NoBetterThanConstant(
            f"{learner}: its relative error {error:.3g} against the best constant predictor (the labels' mean) is no "
            f"better than trivial; try {advice}"), stacklevel=stacklevel)
    return error


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence :class:`~exactrelu.errors.NoBetterThanConstant` inside the block (for callers that judge the result)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoBetterThanConstant)
        yield
