"""The COLT 2019 algorithm for i.i.d. sub-Gaussian label noise: tensor directions, projection signs.

Bakshi, Jayaram and Woodruff (2019), noisy case ``A = U* f(V* X) + E`` with Gaussian X and E
i.i.d. mean zero sub-Gaussian. A moment tensor gives each row of V* up to its sign xi_i
(:class:`~exactrelu.propose.tensor.TensorProposer`; its second-order moments are sign blind).
The sign of row i is then chosen by projections: S is spanned by the 2k - 2 vectors f(+-v_j X),
j != i; S+ adds f(v_i X), S- adds f(-v_i X); the rows of A are projected onto both and the sign
whose subspace leaves the smaller residual wins (the true sign's subspace contains the signal,
the other misses the part f(xi v_i X) - its linear part, which S- cannot reproduce). U is then
the least-squares solution. Papers' orientation: X is ``inputs.T``, A is ``labels.T``. With an output bias c
(``offset``) every subspace also holds the constant vector (c's column), and U, c are one least squares: the
moments of the tensor step do not see c (``c E[x x^T - I] = 0`` for Gaussian inputs; the labels are centerd
first, so that c is gone from the sample moments too).

>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> X = rng.standard_normal((4000, 5)); V = rng.standard_normal((3, 5)); U = rng.standard_normal((4, 3))
>>> Y = np.maximum(X @ V.T, 0) @ U.T + 0.05 * rng.standard_normal((4000, 4))
>>> flips = np.array([1.0, -1.0, -1.0])
>>> signs, margins = projection_signs(X, Y, V * flips[:, None])
>>> signs.tolist()
[1.0, -1.0, -1.0]
"""

from __future__ import annotations

import numpy as np

from ..network import Activation
from ._model import Start, best_U, best_Uc, hidden

__all__ = ["projection_signs", "paper_start"]


def _residual(B: np.ndarray, Y: np.ndarray) -> float:
    """Squared residual of projecting the columns of Y onto the span of the columns of B."""
    coef = np.linalg.lstsq(B, Y, rcond=None)[0]
    R = Y - B @ coef
    return float(np.einsum("ij,ij->", R, R))


def projection_signs(X: np.ndarray, Y: np.ndarray, V: np.ndarray, degree: int = 1,
                     offset: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The paper's sign of each row of V (``signs``, +-1) and a margin in [-1, 1] per row.

    ``V[i] * signs[i]`` is the chosen orientation. The margin is
    ``(res(S-) - res(S+)) / (res(S-) + res(S+))`` for the row as given (positive: keep it); near 0 the
    choice is uncertain. ``offset``: the subspaces hold the constant vector too (an output bias).
    """
    k = V.shape[0]
    Fp = hidden(X, V, None, degree)
    Fm = hidden(X, -V, None, degree)
    signs, margins = np.ones(k), np.zeros(k)
    for i in range(k):
        others = [j for j in range(k) if j != i]
        S = np.hstack([Fp[:, others], Fm[:, others]] + ([np.ones((X.shape[0], 1))] if offset else []))
        rp = _residual(np.hstack([S, Fp[:, i:i + 1]]), Y)
        rm = _residual(np.hstack([S, Fm[:, i:i + 1]]), Y)
        margins[i] = (rm - rp) / (rm + rp) if rm + rp > 0 else 0.0
        signs[i] = 1.0 if rp <= rm else -1.0
    return signs, margins


def paper_start(X: np.ndarray, Y: np.ndarray, k: int, *, activation: Activation, rng: np.random.Generator,
                bias: bool = False, progress=None, offset: bool = False) -> Start:
    """Tensor directions (order 2 when m >= k, else 4), projection signs, least-squares U.

    The tensor proposer raises AssumptionViolated when it does not apply (k > d, rank(labels) < k,
    singular input moments).
    """
    from ..propose.tensor import TensorProposer

    if progress is not None:
        progress("paper: moment tensor")
    # with an output bias the labels are centerd first: c drops out exactly (its moments vanish only in expectation)
    est = TensorProposer(k, activation=activation, random_state=rng).fit(X, Y - Y.mean(axis=0) if offset else Y)
    V = est.V_
    if progress is not None:
        progress("paper: signs by projection")
    signs, margins = projection_signs(X, Y, V, activation.degree, offset)
    V = V * signs[:, None]
    U, c = best_Uc(X, Y, V, None, activation.degree) if offset else (best_U(X, Y, V, None, activation.degree), None)
    info = {"tensor_order": int(est.order_), "sign_margins": [float(abs(x)) for x in margins],
            "signs_flipped_from_first_moment": int(np.sum(signs < 0))}
    return Start(U, V, None, info, c)
