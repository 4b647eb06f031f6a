"""Moment-tensor proposer for Gaussian inputs N(0, Sigma) (Hermite moments, no d^4 array).

For x ~ N(0, I_d) and a unit-norm row v, with f(t) = max(t, 0)^c and z = v . x ~ N(0, 1), the
probabilists' Hermite moments are (:func:`~exactrelu.propose.floats.hermite_constants`)

* ``E[f(v.x) x] = c1 v``, ``E[f(v.x) (x x^T - I)] = c2 v v^T``, ``E[f(v.x) He4(x)] = c4 v^(x)4``,

with c1 = m(c+1), c2 = c m(c), c4 = c (c-2) m(c), m(p) = E[z^p 1{z>0}]; ReLU: 1/2, 1/sqrt(2 pi),
-1/sqrt(2 pi). A general row v = rho s v_hat (rho > 0, sign s) scales them by rho^c. So for
``labels = f(inputs @ V.T) @ U.T``

* ``M1 = E[y x^T] = c1 sum_i rho_i^c s_i u_i v_hat_i^T`` (m x d) sees the row signs;
* ``T2[r] = E[y_r (x x^T - I)] = c2 sum_i rho_i^c u_ri v_hat_i v_hat_i^T`` (sign blind);
* ``E[y_r He4(x)] = c4 sum_i rho_i^c u_ri v_hat_i^(x)4`` (sign blind; vanishes for t^2).

Inputs N(0, Sigma) are first whitened with the empirical second moment (w = L^-1 x,
Sigma = L L^T; then v . x = (L^T v) . w) and the rows mapped back at the end.

``order=2`` (default when m >= k): the m matrices T2[r] form a d x d x m tensor with factors
(V_hat, V_hat, U'); its span P (d x k) is the top-k left singular space of the unfolding; in
that k-dimensional span the projected k x k x k' tensor is decomposed by Jennrich's
simultaneous diagonalisation (several random draws, the best fit kept). This uses second
moments only, hence far fewer samples than the fourth-order method; it needs m >= k, which
exact recovery needs anyway (rank(labels) = k).

``order=4`` (one output, or m < k): the labels are combined into y = labels @ g, the degree
<= 2 Hermite part of y is subtracted (empirical E[y], E[y x], T2: unbiased, and most of the
variance goes), the k^4 tensor ``E[y He4(P^T x)]`` is formed in the span (n k^4 work, never
d^4) and decomposed by Jennrich on random contractions.

Signs: in both cases by least squares of M1 on the sign-blind components u_i v_hat_i^T; the
exact step confirms or refuses each unit.

>>> import numpy as np
>>> from exactrelu.propose.floats import angular_errors
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((20000, 6)); V = rng.standard_normal((3, 6)); U = rng.standard_normal((3, 3))
>>> Y = np.maximum(X @ V.T, 0) @ U.T
>>> est = TensorProposer(3, random_state=0).fit(X, Y)
>>> est.order_, bool(angular_errors(est.V_, V).max() < 0.2)
(2, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import AssumptionViolated, InvalidInput
from ..network import RELU, Activation
from ._base import Proposer
from .floats import check_activation, hermite_constants
from ..validation import as_generator, check_flag, check_integer
from .hermite.decompose import decompose
from .hermite.estimators import he4_correction

__all__ = ["TensorProposer", "propose_tensor", "tensor_proposal", "TensorProposal", "jennrich", "fourth_order_units",
           "fourth_moment"]

_CHUNK = 65536  # samples per block when accumulating moments (memory stays O(chunk * d))


def jennrich(T: np.ndarray, k: int, rng: np.random.Generator, n_draws: int = 8) -> np.ndarray:
    """Columns a_i (k x k, unit norm) of ``T[:, :, r] ~ sum_i a_i a_i^T lam_ir`` (Jennrich).

    ``T`` is k x k x q, symmetric in its first two modes. Each draw contracts the third mode
    with two random vectors, M_a = A D_a A^T and M_b = A D_b A^T; the eigenvectors of
    M_a M_b^-1 are the a_i. The draw whose components fit T best (least squares over lam) wins.

    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((3, 3)); L = rng.standard_normal((4, 3))
    >>> T = np.einsum("ai,bi,ri->abr", A, A, L)
    >>> B = jennrich(T, 3, rng)
    >>> bool(np.allclose(np.sort(np.abs(B.T @ (A / np.linalg.norm(A, axis=0))).max(axis=0)), 1.0))
    True
    """
    q = T.shape[2]
    best, best_res = None, np.inf
    for _ in range(n_draws):
        a, b = rng.standard_normal(q), rng.standard_normal(q)
        Ma, Mb = T @ a, T @ b
        try:
            w, E = np.linalg.eig(Ma @ np.linalg.inv(Mb))
        except np.linalg.LinAlgError:
            continue
        A = np.real(E)
        nrm = np.linalg.norm(A, axis=0)
        if np.any(nrm == 0):
            continue
        A = A / nrm
        # least-squares weights of each component in every slice, and the residual
        G = np.einsum("ai,bi->abi", A, A).reshape(k * k, k)
        coef, *_ = np.linalg.lstsq(G, T.reshape(k * k, q), rcond=None)
        res = float(np.linalg.norm(G @ coef - T.reshape(k * k, q)))
        if res < best_res:
            best, best_res = A, res
    if best is None:
        raise AssumptionViolated("the moment tensor could not be diagonalised (singular contractions)",
                                 suggestion="more samples, or init='gradient'")
    return best


class TensorProposer(Proposer):
    """Propose V (k x d) from Hermite moment tensors of Gaussian inputs.

    Parameters
    ----------
    k : number of hidden units.
    activation : RELU (default) or ``Activation.power(c)`` (order 4 is impossible for c = 2).
    random_state : None, int or Generator (random contractions and output combination).
    order : ``"auto"`` (2 when m >= k, else 4), 2 or 4.
    whiten : whiten the inputs with their empirical second moment (inputs N(0, Sigma)).
    n_draws : random Jennrich draws; the best fitting one is kept.

    Attributes
    ----------
    V_ : (k, d) proposal (rows of unit norm in the input coordinates after un-whitening).
    order_ : the order used. span_ : (d, k) orthonormal basis of the estimated span (whitened).
    signs_ : (k,) the signs chosen from the first moment. sign_margin_ : (k,) |coefficient| / max
        (small values: an uncertain sign).
    """

    def __init__(self, k: int, *, activation: Activation | str = "relu", random_state=None, order="auto",
                 whiten: bool = True, n_draws: int = 8):
        self.k = k
        self.activation = activation
        self.random_state = random_state
        self.order = order
        self.whiten = whiten
        self.n_draws = n_draws

    def fit(self, X, y) -> "TensorProposer":
        """Fit to float inputs ``X`` (n x d) and labels ``y`` (n x m, or n for one output); returns self."""
        act = self.activation_ = check_activation(self.activation)
        if isinstance(self.order, bool) or self.order not in ("auto", 2, 4):
            raise InvalidInput(f"order must be 'auto', 2 or 4, got {self.order!r}")
        check_flag(self.whiten, "whiten")
        check_integer(self.n_draws, "n_draws", minimum=1)
        k, X, Y = self._check_fit_data(X, y)
        rng = as_generator(self.random_state, "random_state")
        out = tensor_proposal(X, Y, k, rng, act, self.order, bool(self.whiten),
                              self.n_draws)
        self.V_, self.order_, self.span_, self.signs_ = out.V, out.order, out.span, out.signs
        self.sign_margin_, self.spectrum_ = out.sign_margin, out.spectrum
        return self


# -- the algorithm: module-level functions that return plain values (STYLE.md 15) -------------

@dataclass(frozen=True)
class TensorProposal:
    """What :func:`tensor_proposal` found: V (k x d, unit rows), the order used, the span (d x k, whitened),
    the signs from the first moment with their margins, and the spectrum of the second-order unfolding."""

    V: np.ndarray
    order: int
    span: np.ndarray
    signs: np.ndarray
    sign_margin: np.ndarray
    spectrum: np.ndarray


def tensor_proposal(X: np.ndarray, Y: np.ndarray, k: int, rng: np.random.Generator, activation: Activation = RELU,
                    order="auto", whiten: bool = True, n_draws: int = 8) -> TensorProposal:
    """The moment-tensor proposal of the module doc from checked float arrays ``X`` (n x d), ``Y`` (n x m).

    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((5000, 3)); Y = np.maximum(X @ np.array([[1.0, 0, 0], [0, 1.0, 0]]).T, 0)
    >>> tensor_proposal(X, Y, 2, rng).order
    2
    """
    n, d = X.shape
    m = Y.shape[1]
    if n <= d:
        raise InvalidInput(f"the moments need more samples than input dimensions: got {n} sample(s) for d = {d}")
    if k > d:
        raise AssumptionViolated(f"k = {k} units cannot have independent rows in dimension d = {d}",
                                 evidence={"k": k, "d": d}, suggestion="init='search' or init='gradient'")
    order = _check_order(order, activation, m, k)
    L, Linv = _whitening(X, whiten)
    Yc = Y @ _output_combination(Y, k, order, rng)  # n x q
    M0, M1, T2 = _moments(X, Linv, Yc)
    # the k-dimensional span of the rows: top-k left singular space of [T2[0] ... T2[q-1]]
    Ps, ps, _ = np.linalg.svd(np.concatenate(list(T2), axis=1), full_matrices=False)
    P = Ps[:, :k]
    if order == 2:
        Tp = np.transpose(P.T @ T2 @ P, (1, 2, 0))  # k x k x k (the einsum "ai,rab,bj->ijr" as two products)
        A = jennrich(Tp, k, rng, n_draws)
    else:
        A = fourth_order_units(X, Linv, Yc, M0, M1, T2, P, rng, n_draws)
    Vhat = (P @ A).T  # k x d, unit rows (whitened)
    signs, gam = _signs(Vhat, T2, M1)
    Vw = Vhat * signs[:, None]
    V = Vw @ Linv  # v . x = (L^T v) . w  =>  v = Linv^T... rows: v^T = vw^T Linv
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    return TensorProposal(V, order, P, signs, np.abs(gam) / (np.abs(gam).max() or 1.0), ps[: k + 1])


def _check_order(order, act: Activation, m: int, k: int) -> int:
    """The order to use (2 when m >= k, else 4, for ``"auto"``), after the assumptions it needs."""
    order = (2 if m >= k else 4) if order == "auto" else order
    c1, c2, c4 = hermite_constants(act)
    if order == 2 and m < k:
        raise AssumptionViolated(f"order 2 needs m >= k outputs (m = {m}, k = {k})", evidence={"m": m, "k": k},
                                 suggestion="order=4")
    if order == 4 and c4 == 0:
        raise AssumptionViolated("the fourth Hermite coefficient of t^2 is zero: order 4 cannot see the units",
                                 evidence={"degree": act.degree}, suggestion="order=2 (needs m >= k)")
    return order


def _whitening(X: np.ndarray, whiten: bool) -> tuple[np.ndarray, np.ndarray]:
    """(L, L^-1) with Sigma = L L^T the inputs' second moment (w = x @ Linv.T), or identities."""
    n, d = X.shape
    if not whiten:
        return np.eye(d), np.eye(d)
    S = (X.T @ X) / n
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        raise AssumptionViolated("the inputs' second moment is singular: they do not span R^d",
                                 suggestion="init='search'") from None
    return L, np.linalg.inv(L)


def _output_combination(Y: np.ndarray, k: int, order: int, rng: np.random.Generator) -> np.ndarray:
    """G (m x q): the top-k right singular directions of Y for order 2; for order 4 one random combination
    first, then the top directions for the 2nd-order slices."""
    m = Y.shape[1]
    _, sv, Wt = np.linalg.svd(Y, full_matrices=False)
    if order == 2:
        if sv.size < k or sv[k - 1] <= 1e-12 * sv[0]:
            raise AssumptionViolated(f"labels have rank < k = {k}: the row-span method cannot work",
                                     evidence={"singular_values": sv[:k + 1].tolist()})
        return Wt[:k].T  # m x k
    g = Wt[0] + 0.5 * rng.standard_normal(m) * (m > 1)
    G = (g / np.linalg.norm(g))[:, None]
    if m > 1:
        G = np.concatenate([G, Wt[:min(m, k)].T], axis=1)
    return G


def _moments(X: np.ndarray, Linv: np.ndarray, Yc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M0, M1, T2): first and second Hermite moments of the combined labels in whitened coordinates,
    accumulated in blocks (T2's products in single precision, :func:`second_moment_block`)."""
    n, d = X.shape
    q = Yc.shape[1]
    M0 = Yc.mean(axis=0)
    M1 = np.zeros((q, d))
    T2 = np.zeros((q, d, d))
    for s0 in range(0, n, _CHUNK):
        W = X[s0:s0 + _CHUNK] @ Linv.T
        y = Yc[s0:s0 + _CHUNK]
        M1 += y.T @ W
        for b0 in range(0, W.shape[0], _BLOCK32):
            T2 += second_moment_block(W[b0:b0 + _BLOCK32], y[b0:b0 + _BLOCK32])
    M1 /= n
    T2 = T2 / n - M0[:, None, None] * np.eye(d)[None]
    return M0, M1, T2


_BLOCK32 = 8192  # samples per single-precision product: its rounding stays far below the sampling error


def second_moment_block(W: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``sum_j y_jr w_j w_j^T`` (q x d x d) for one block of samples, the products in float32.

    W and each column of y are scaled into [-1, 1] by powers of two (no overflow or underflow in single
    precision) and the result scaled back in float64. The moments are statistical estimates with relative sampling
    error about
    n^-1/2 (1e-2 to 3e-3 at the sizes of issue 25); single precision adds about 1e-7 relative (measured 4e-7
    at (d, q, n) = (200, 20, 2e4) and (100, 50, 1e5)) and halves the time of these products, the largest part
    of the tensor proposal. Everything after this is float64, and the exact step decides.

    >>> W = np.array([[1.0, 2.0], [3.0, -1.0]]); y = np.array([[1.0], [-2.0]])
    >>> second_moment_block(W, y)[0].tolist()
    [[-17.0, 8.0], [8.0, 2.0]]
    """
    sw = _power_of_two(np.abs(W).max(initial=0.0))  # powers of two: the scalings are exact
    sy = _power_of_two(np.abs(y).max(axis=0, initial=0.0))
    W32 = (W / sw).astype(np.float32)
    y32 = (y / sy).astype(np.float32)
    out = np.empty((y.shape[1], W.shape[1], W.shape[1]))
    for r in range(y.shape[1]):
        out[r] = (W32 * y32[:, r:r + 1]).T @ W32
    return out * (sy * sw * sw)[:, None, None]


def _power_of_two(x):
    """The smallest powers of two >= x (1 where x is 0)."""
    return np.ldexp(1.0, np.frexp(np.where(np.asarray(x) > 0, x, 1.0))[1])


def _signs(Vhat: np.ndarray, T2: np.ndarray, M1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(signs, gamma): sign-blind weights beta (q x k) from the second-order tensor, then signs from M1."""
    k, d = Vhat.shape
    q = T2.shape[0]
    B = np.einsum("ia,ib->iab", Vhat, Vhat).reshape(k, d * d).T
    beta = np.linalg.lstsq(B, T2.reshape(q, d * d).T, rcond=None)[0].T  # q x k : c2 rho^c u'
    D = np.stack([np.outer(beta[:, i], Vhat[i]).ravel() for i in range(k)], axis=1)
    gam = np.linalg.lstsq(D, M1.ravel(), rcond=None)[0]  # = (c1 / c2) s_i
    return np.where(gam >= 0, 1.0, -1.0), gam


def fourth_order_units(X, Linv, Yc, M0, M1, T2, P, rng, n_draws: int = 8) -> np.ndarray:
    """Units (k x k, columns in the span) from the 2nd-order slices and the 4th-order tensor at once.

    The slices ``P^T T2[r] P`` (weights c2 rho^c u'_ri) and ``T4(., ., e_j, e_l)`` (weights
    c4 rho^c u'_0i v_j v_l), each divided by its standard error, share the units' directions:
    Jennrich's pencil with a random combination of the 2nd-order slices as the reference (its
    weights do not vanish), then an ALS polish over all slices (exactrelu.propose.hermite.decompose).
    """
    n = X.shape[0]
    k, q = P.shape[1], Yc.shape[1]
    T4, s4 = fourth_moment(X, Linv, Yc[:, 0], M0[0], M1[0], T2[0], P)
    Zp = X @ Linv.T @ P
    s2 = float(np.sqrt(np.mean(Yc**2 * np.sum(Zp * Zp, axis=1)[:, None] ** 2) / n)) / k  # mean entry variance
    T2p = np.transpose(P.T @ T2 @ P, (1, 2, 0))
    T = np.concatenate([T2p / s2, (T4 / s4).reshape(k, k, k * k)], axis=2)
    ref = np.arange(T.shape[2]) < q  # random combinations of the 2nd-order slices as references
    best = decompose(T, k, rng, reference=ref, n_draws=n_draws)
    if q > 1:  # several outputs: pencils within the 2nd-order slices are candidates too
        other = decompose(T, k, rng, reference=ref, target=ref, n_draws=n_draws)
        best = other if other.residual < best.residual else best
    return best.B


def fourth_moment(X, Linv, y, M0, M1, T2, P) -> tuple[np.ndarray, float]:
    """k x k x k x k tensor E[y~ He4(P^T w)], y~ = y minus its degree <= 2 Hermite part; its standard error."""
    n, d = X.shape
    k = P.shape[1]
    trT2 = float(np.trace(T2))
    S4 = np.zeros((k * k, k * k))
    S2 = np.zeros((k, k))
    S0 = SS = 0.0
    for s0 in range(0, n, _CHUNK):
        W = X[s0:s0 + _CHUNK] @ Linv.T
        quad = np.einsum("ia,ab,ib->i", W, T2, W, optimize=True)
        yt = y[s0:s0 + _CHUNK] - M0 - W @ M1 - 0.5 * (quad - trT2)
        Z = W @ P
        Z2 = (Z[:, :, None] * Z[:, None, :]).reshape(-1, k * k)
        S4 += (Z2 * yt[:, None]).T @ Z2
        S2 += (Z * yt[:, None]).T @ Z
        S0 += float(yt.sum())
        SS += float(yt**2 @ np.sum(Z * Z, axis=1) ** 4)
    S4 = (S4 / n).reshape(k, k, k, k)
    return S4 + he4_correction(S2 / n, S0 / n), float(np.sqrt(SS / n / n) / k**2)  # mean entry variance


def propose_tensor(inputs, labels, k: int, *, activation: Activation = RELU, random_state=None, **kwargs) -> np.ndarray:
    """Functional form of :class:`TensorProposer`: the proposed V (k x d).

    >>> import numpy as np
    >>> rng = np.random.default_rng(3)
    >>> X = rng.standard_normal((5000, 4)); V = rng.standard_normal((2, 4))
    >>> propose_tensor(X, np.maximum(X @ V.T, 0) @ [[1.0, 2.0], [-1.0, 1.0]], 2, random_state=0).shape
    (2, 4)
    """
    return TensorProposer(k, activation=activation, random_state=random_state, **kwargs).fit(inputs, labels).V_
