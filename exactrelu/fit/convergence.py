"""Did a fit stage converge? Its residual against the noise floor, or against the best affine map.

A fit method is a local or moment method: it can end anywhere. Each stage's float relative residual
``||prediction - labels||_F / ||labels||_F`` is compared with

* the **noise floor** ``||E||_F / ||labels||_F`` when it is known: given by the user
  (``fit(noise=SIGMA)``, ``--noise SIGMA``: the standard deviation of the label noise per entry) or
  carried by the instance (a planted instance with its clean labels). A stage stalled when its
  residual is above ``max(2 floor, floor + 0.05)``: a converged least-squares fit reaches the floor.
* otherwise the **affine baseline**, the relative residual of the least-squares affine map
  ``labels ~ inputs W^T + c`` (a network of 2m units can represent it; one solve of d + 1 unknowns
  per output). A stage whose residual is above it did worse than a straight line: it stalled. This
  is a floor the method estimates from the data alone; it cannot tell a good fit from an excellent one,
  only a failed one from a working one.

>>> import numpy as np
>>> X = np.random.default_rng(0).standard_normal((500, 3)); Y = np.maximum(X[:, :1], 0)
>>> base = affine_baseline(X, Y); 0.3 < base < 0.7
True
>>> stalled(0.9, base, None) is not None, stalled(0.01, base, None)
(True, None)
>>> stalled(0.3, base, 0.1), stalled(0.15, base, 0.1)
('relative residual 0.3 is far above the noise floor 0.1 (over 0.2)', None)
"""

from __future__ import annotations

import numpy as np

__all__ = ["affine_baseline", "stalled", "floor_from_sigma", "against_constant", "NEXT_STEP"]

#: What to try when a stage of the method did not converge.
NEXT_STEP = {
    "paper": "--method tensor (the paper's start, then refinement), or another --seed",
    "tensor": "another --seed, or --method gradient",
    "fpt": "another --seed, or --method gradient",
    "hermite": "another --seed (each seed retries the decomposition), or --method tensor / gradient (refined)",
    "gradient": "another --seed (other random starts), or --method tensor when k <= d",
    "refine": "another --seed, or another --method for the start",
}


def affine_baseline(X: np.ndarray, Y: np.ndarray, *, max_rows: int = 50_000) -> float:
    """Relative residual of the least-squares affine fit of ``Y`` (n x m) on ``X`` (n x d), in float.

    Above ``max_rows`` samples it is fitted and measured on an evenly spaced subset (deterministic).
    All-zero labels give 0.
    """
    step = max(1, X.shape[0] // max_rows)
    Xs, Ys = X[::step], Y[::step]
    ny = float(np.linalg.norm(Ys))
    if ny == 0:
        return 0.0
    A = np.hstack([Xs, np.ones((Xs.shape[0], 1))])
    sol = np.linalg.lstsq(A, Ys, rcond=None)[0]
    return float(np.linalg.norm(A @ sol - Ys)) / ny


def against_constant(relative: float, Y: np.ndarray) -> float:
    """A relative residual ``||P - Y|| / ||Y||`` as the error against the best constant predictor,
    ``||P - Y|| / ||Y - mean(Y)||`` (:func:`exactrelu.propose.selfcheck.error_against_constant`).

    >>> against_constant(0.5, np.array([[1.0], [3.0]]))  # ||Y|| = sqrt(10), ||Y - 2|| = sqrt(2)
    1.118...
    """
    ny, spread = float(np.linalg.norm(Y)), float(np.linalg.norm(Y - Y.mean(axis=0)))
    if spread == 0:
        return 0.0 if relative == 0 else float("inf")
    return relative * ny / spread


def floor_from_sigma(sigma: float, Y: np.ndarray) -> float:
    """The relative noise floor of label noise with standard deviation ``sigma`` per entry:
    sigma sqrt(n m) / ||Y||_F."""
    ny = float(np.linalg.norm(Y))
    return float("inf") if ny == 0 else float(sigma) * float(np.sqrt(Y.size)) / ny


def stalled(relative: float, baseline: float, floor: float | None) -> str | None:
    """Why a stage with this relative residual did not converge, or None when it did (module docstring)."""
    if floor is not None:
        bound = max(2 * floor, floor + 0.05)
        if relative > bound:
            return f"relative residual {relative:.3g} is far above the noise floor {floor:.3g} (over {bound:.3g})"
        return None
    if relative > baseline:
        return f"relative residual {relative:.3g} is above the best affine map's {baseline:.3g}"
    return None
