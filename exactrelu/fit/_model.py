"""Float helpers shared by the fit methods: a start (U, V, b, c), its hidden layer, U (and c) by least squares.

An output bias c (``offset``) is profiled out of every least squares: ``min_c ||H U^T + 1 c^T - Y||`` is at
``c = mean(Y - H U^T)``, so U solves the centred problem ``min_U ||(H - mean H) U^T - (Y - mean Y)||``.

Floating point only: a fit's weights are turned into exact rationals (exactly, a float64 is a
dyadic rational) and their residual is computed over Q afterwards, so nothing decided here is
claimed.

>>> import numpy as np
>>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]); V = np.array([[1.0, 0.0], [0.0, 1.0]])
>>> Y = hidden(X, V, None, 1) @ np.array([[2.0, -1.0]]).T
>>> start = Start(best_U(X, Y, V, None, 1), V, None)
>>> np.round(start.U, 12).tolist(), round(relative_residual(X, Y, start, 1), 12)
([[2.0, -1.0]], 0.0)
>>> U, c = best_Uc(X, Y + 3.0, V, None, 1)
>>> np.round(U, 12).tolist(), np.round(c, 12).tolist()
([[2.0, -1.0]], [3.0])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._moved import moved_names

__all__ = ["Start", "hidden", "best_U", "best_Uc", "predict", "relative_residual", "normalize"]

#: the old (UK) spelling, kept for one release with a DeprecationWarning (issue 35: US spelling)
__getattr__ = moved_names(__name__, {"normalise": f"{__name__}:normalize"})


@dataclass
class Start:
    """Float weights U (m x k), V (k x d), b (k,) or None, c (m,) or None (the output bias); ``info`` holds
    method-specific diagnostics."""

    U: np.ndarray
    V: np.ndarray
    b: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    c: np.ndarray | None = None


def hidden(X: np.ndarray, V: np.ndarray, b: np.ndarray | None, degree: int) -> np.ndarray:
    """``f(X V^T + b)`` (n x k) in float."""
    Z = X @ V.T
    if b is not None:
        Z += b
    H = np.maximum(Z, 0.0)
    return H if degree == 1 else H**degree


def best_U(X: np.ndarray, Y: np.ndarray, V: np.ndarray, b: np.ndarray | None, degree: int) -> np.ndarray:
    """The least-squares U (m x k) for fixed V, b: ``argmin ||f(X V^T + b) U^T - Y||_F``."""
    H = hidden(X, V, b, degree)
    return np.linalg.lstsq(H, Y, rcond=None)[0].T


def best_Uc(X: np.ndarray, Y: np.ndarray, V: np.ndarray, b: np.ndarray | None, degree: int) -> tuple:
    """(U, c): the least-squares output layer with an output bias, ``argmin ||f(X V^T + b) U^T + 1 c^T - Y||_F``."""
    H = hidden(X, V, b, degree)
    h, y = H.mean(axis=0), Y.mean(axis=0)
    U = np.linalg.lstsq(H - h, Y - y, rcond=None)[0].T
    return U, y - U @ h


def predict(X: np.ndarray, start: Start, degree: int) -> np.ndarray:
    """``f(X V^T + b) U^T + c`` in float."""
    out = hidden(X, start.V, start.b, degree) @ start.U.T
    return out if start.c is None else out + start.c


def relative_residual(X: np.ndarray, Y: np.ndarray, start: Start, degree: int) -> float:
    """``||f(X V^T + b) U^T + c - Y||_F / ||Y||_F`` in float (for progress and stage reports)."""
    R = predict(X, start, degree) - Y
    ny = float(np.linalg.norm(Y))
    return float(np.linalg.norm(R)) / ny if ny else float(np.linalg.norm(R))


def normalize(start: Start, degree: int) -> Start:
    """Scale each unit so that ``|V_i| = 1`` (the factor moves into U's column: f is homogeneous)."""
    s = np.linalg.norm(start.V, axis=1)
    s = np.where(s > 0, s, 1.0)
    b = None if start.b is None else start.b / s
    return Start(start.U * s**degree, start.V / s[:, None], b, start.info, start.c)
