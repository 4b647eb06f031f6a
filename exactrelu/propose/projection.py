"""The variable-projection loss of the gradient proposer (:mod:`exactrelu.propose.gradient`) and its gradient.

``L(V) = min_U |f(X V^T) U^T - Y|_F^2 / |Y|_F^2``: for a given V the output weights U solve a k x k linear system
(:func:`inner_output_weights`, with a small Tikhonov term), and by the envelope theorem the gradient with respect to
V is the partial gradient at that U (:func:`loss_and_gradient`). Rows of V already screened stay fixed; what they
contribute is computed once per start (:class:`FixedUnits`). Floats only: this proposes, it never decides.
"""

from __future__ import annotations

import numpy as np

__all__ = ["inner_output_weights", "FixedUnits", "loss_and_gradient"]


def inner_output_weights(A: np.ndarray, Y: np.ndarray, ridge: float) -> np.ndarray:
    """U (m x k) minimizing ``|A U^T - Y|^2`` with a Tikhonov term ``ridge * trace(A^T A) / k``."""
    return _gram_output_weights(A.T @ A, A.T @ Y, A, Y, ridge)


def _gram_output_weights(G: np.ndarray, AY: np.ndarray, A, Y, ridge: float) -> np.ndarray:
    """U from the Gram matrix ``G = A^T A`` and ``AY = A^T Y`` (A and Y only for the fallback; may be callables)."""
    lam = ridge * max(np.trace(G) / G.shape[0], 1e-300)
    try:
        return np.linalg.solve(G + lam * np.eye(G.shape[0]), AY).T
    except np.linalg.LinAlgError:  # pragma: no cover - the ridge keeps G + lam I regular
        A = A() if callable(A) else A
        return np.linalg.lstsq(A, Y, rcond=None)[0].T


def _activate(H: np.ndarray, degree: int) -> np.ndarray:
    P = np.maximum(H, 0.0)
    return P if degree == 1 else P**degree


class FixedUnits:
    """What the fixed (screened) rows of V contribute to :func:`loss_and_gradient`, computed once per start:
    their activations ``A_f = f(X fixed^T)`` (n x kf), ``A_f^T A_f`` and ``A_f^T Y``. With ``offset`` (an output
    bias c) ``A_f`` starts with a constant column, whose output weights are c.

    A start trains few free rows beside many fixed ones (measured at (100, 50, 50, 10^5): 44 fixed and 6 free),
    so the products with the fixed rows were most of each step's work.

    >>> X = np.eye(3); fx = FixedUnits(X, X, np.array([[1.0, 0, 0]]), 1)
    >>> fx.A.shape, float(fx.G[0, 0])
    ((3, 1), 1.0)
    """

    def __init__(self, X: np.ndarray, Y: np.ndarray, fixed: np.ndarray, degree: int, offset: bool = False):
        A = _activate(X @ fixed.T, degree) if fixed.shape[0] else np.zeros((X.shape[0], 0))
        self.A = np.hstack([np.ones((X.shape[0], 1)), A]) if offset else A
        self.kf = self.A.shape[1]
        self.G = self.A.T @ self.A
        self.AY = self.A.T @ Y


def loss_and_gradient(theta: np.ndarray, X: np.ndarray, Y: np.ndarray, scale: float, fixed: np.ndarray,
                      degree: int, ridge: float, cache: FixedUnits | None = None) -> tuple[float, np.ndarray]:
    """The variable-projection loss of V = [fixed; theta] and its gradient with respect to theta.

    ``cache`` (a :class:`FixedUnits` of these X, Y, fixed and degree) spares the products with the fixed rows;
    the value is that of the plain computation up to rounding.

    >>> X = np.eye(2); Y = np.array([[1.0], [0.0]])
    >>> loss, g = loss_and_gradient(np.array([1.0, 0.0]), X, Y, 1.0, np.zeros((0, 2)), 1, 0.0)
    >>> round(loss, 12), g.shape
    (0.0, (2,))
    """
    d = X.shape[1]
    fx = cache if cache is not None else FixedUnits(X, Y, fixed, degree)
    kf, c = fx.kf, degree
    H = X @ theta.reshape(-1, d).T  # n x free
    P = np.maximum(H, 0.0)
    Av = P if c == 1 else P**c
    Gfv = fx.A.T @ Av
    G = np.block([[fx.G, Gfv], [Gfv.T, Av.T @ Av]])
    U = _gram_output_weights(G, np.vstack([fx.AY, Av.T @ Y]), lambda: np.hstack([fx.A, Av]), Y, ridge)
    R = Av @ U[:, kf:].T
    if kf:
        R += fx.A @ U[:, :kf].T
    R -= Y
    loss = float(np.vdot(R, R)) * scale
    dA = (R @ U[:, kf:]) * (2.0 * scale)  # only the free rows' columns
    dH = dA * (H > 0) if c == 1 else dA * (c * P ** (c - 1))
    return loss, (dH.T @ X).ravel()
