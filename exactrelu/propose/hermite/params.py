"""Algorithm 2: each unit's output weight and bias from its Hermite coefficients, and the unit tensors.

For a unit row u (unit norm) of ``f(x) = sum_i alpha_i relu(u_i . x + beta_i)`` the coefficient of
u_i^(x)t in f_t is ``lam_t = alpha_i g_t(beta_i)`` (:func:`~.hermite_estimators.hermite_coefficient`):
lam_2 = alpha phi(beta), lam_3 = -alpha beta phi(beta), lam_4 = alpha (beta^2 - 1) phi(beta).
So beta = -lam_3 / lam_2 (lam_2 never vanishes) and lam_4 / lam_2 = beta^2 - 1 says it again;
:func:`unit_parameters` fits beta to all three coefficients, weighted by their standard errors
(a one-dimensional grid, then Gauss-Newton), and alpha in closed form. Without biases
(beta = 0) alpha is the weighted least-squares fit to lam_2 and lam_4.

>>> beta = np.array([0.0, 1.0, -0.7]); alpha = np.array([1.0, -2.0, 0.5])
>>> lam = [alpha * hermite_coefficient(t, beta) for t in (2, 3, 4)]
>>> a, b = unit_parameters(*lam, sigmas=(1.0, 1.0, 1.0))
>>> bool(np.allclose(a, alpha) and np.allclose(b, beta, atol=1e-9))
True
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import least_squares

from .estimators import hermite_coefficient

__all__ = ["unit_parameters", "fit_bias", "slice_coefficients"]

_GRID = np.linspace(-8.0, 8.0, 1601)


def _profile(beta, lam, w, orders=(2, 3, 4)):
    """Weighted residual after the best alpha, for each beta (grid x units), and that alpha."""
    G = np.stack([hermite_coefficient(t, beta) for t in orders], axis=-1)  # (..., 3)
    num = np.sum(w * G * lam, axis=-1)
    den = np.sum(w * G * G, axis=-1)
    alpha = num / den
    res = np.sum(w * (lam - alpha[..., None] * G) ** 2, axis=-1)
    return res, alpha


def unit_parameters(lam2, lam3, lam4, sigmas=(1.0, 1.0, 1.0), bias: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(alpha, beta) per unit from the coefficients (lam2, lam3, lam4) and their standard errors.

    ``lam3`` is ignored when ``bias`` is False (it is then zero in the model).
    """
    if not bias:
        w = 1.0 / np.square(np.asarray(sigmas, float))
        g2, g4 = float(hermite_coefficient(2, 0.0)), float(hermite_coefficient(4, 0.0))
        lam2, lam4 = np.asarray(lam2, float), np.asarray(lam4, float)
        alpha = (w[0] * g2 * lam2 + w[2] * g4 * lam4) / (w[0] * g2**2 + w[2] * g4**2)
        return alpha, np.zeros(len(alpha))
    return fit_bias([lam2, lam3, lam4], sigmas, (2, 3, 4))


def fit_bias(lams, sigmas, orders) -> tuple[np.ndarray, np.ndarray]:
    """(alpha, beta) per unit from coefficients ``lams[j] ~ alpha g_{orders[j]}(beta)`` with standard errors ``sigmas``.

    Use at least three orders that pin beta down: orders 4, 5, 6 alone cannot tell b = 0 from
    b = +-sqrt(3) (He_2, He_3, He_4 are proportional there), which is why the overcomplete
    algorithm adds orders 2 and 3.
    """
    lam = np.stack([np.asarray(x, float) for x in lams], axis=-1)
    w = 1.0 / np.square(np.asarray(sigmas, float))
    k = lam.shape[0]
    res, _ = _profile(_GRID[:, None], lam[None, :, :], w, orders)
    beta = _GRID[np.argmin(res, axis=0)]
    _, alpha = _profile(beta, lam, w, orders)
    sw = np.sqrt(w)
    for i in range(k):  # Gauss-Newton on (alpha, beta) from the grid point, near the noise-free optimum
        def fun(p, i=i):
            return sw * (lam[i] - p[0] * np.array([hermite_coefficient(t, p[1]) for t in orders]))

        opt = least_squares(fun, [alpha[i], beta[i]], xtol=1e-15, ftol=1e-15, gtol=1e-15)
        alpha[i], beta[i] = opt.x
    return alpha, beta


def slice_coefficients(B: np.ndarray, C: np.ndarray, k: int, bias: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lam2, lam3, lam4) per unit from decomposition weights C (slices f_2 | f_3 | f_4 in that order).

    The f_3 slices ``f_3(., ., e_j)`` carry lam3_i B[j, i]; the f_4 slices ``f_4(., ., e_j, e_l)``
    carry lam4_i B[j, i] B[l, i]; with unit columns of B the least-squares coefficient is a dot
    product. Without biases there are no f_3 slices and lam3 is zero.
    """
    lam2 = C[0]
    if bias:
        lam3 = np.einsum("ji,ji->i", C[1:1 + k], B)
        C4 = C[1 + k:]
    else:
        lam3 = np.zeros(k)
        C4 = C[1:]
    BB = np.einsum("ji,li->jli", B, B).reshape(k * k, k)
    lam4 = np.einsum("ji,ji->i", C4, BB)
    return lam2, lam3, lam4
