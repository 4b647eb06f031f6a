"""Biased two-layer ReLU networks from Gaussian samples by Hermite tensors (Awasthi, Tang, Vijayaraghavan 2021).

Learns ``y = a^T relu(W^T x + b)`` (here: ``labels = relu(inputs @ V.T + b) @ U.T``, U = a^T,
V = W^T) from x ~ N(0, Sigma) in the full-rank setting (k <= d, independent rows):

1. **Estimators** (:mod:`.hermite_estimators`): whitening, f_0, f_1, f_2 and O(n d^2)
   contractions of f_3, f_4 give the span of the units; in that k-dimensional span the k^3 and
   k^4 tensors of f_3 and f_4 are estimated after subtracting the lower-order Hermite parts of y.
2. **Algorithm 1** (:mod:`.hermite_decompose`): the slices of f_2, f_3, f_4 are decomposed at
   once: Jennrich's pencil with f_2 as the reference (never vanishing) finds every unit, even at
   b = 0 (invisible to f_3) or b = +-1 (invisible to f_4); an ALS polish fits all slices.
3. **Algorithm 2** (:mod:`.hermite_params`): each unit's output weight and bias from its
   coefficients in f_2, f_3, f_4.
4. **Signs** (:mod:`.hermite_signs`): f_0 and f_1 fix the orientation of every unit; in full rank
   exactly one choice survives (``exactrelu.theorems.sign_identifiability``).
5. **Large |b|** (:mod:`.hermite_large_bias`): units whose bias is beyond ``bias_threshold`` (or
   whose f_2 coefficient is lost in the noise) are replaced by a truncated affine fit of the
   residual, i.e. two ReLU units: at most k + 2 units, a small L2 error.
6. Optional ``refine``: pattern-linearized least squares on the samples (one output; our
   addition, not the paper's): with the activation pattern fixed the labels are linear in
   (a_i w_i, a_i b_i), so each step is one linear least-squares solve; on noiseless data it
   reaches the exact parameters once the pattern is right.

With ``bias=False`` the model has no biases (f_3 = 0): orders 2 and 4 only. Non-Gaussian inputs
give a :class:`~exactrelu.errors.GaussianityWarning`; k > d is refused (see
:mod:`.hermite_overcomplete` for the overcomplete setting).

>>> from exactrelu.instances import planted
>>> inst = planted(d=6, k=2, m=1, n=100000, seed=1, bias=[0, 1])
>>> est = HermiteProposer(2, random_state=0).fit(inst.float_inputs(), inst.float_labels())
>>> bool(est.parameter_error(inst.planted) < 0.1), est.V_.shape, len(est.sign_choices_)
(True, (2, 6), 1)
"""

from __future__ import annotations

import numpy as np

from ...errors import AssumptionViolated, InvalidInput
from ...network import RELU, Activation, Network
from .._base import Proposer
from ..floats import check_activation
from ...validation import as_generator, check_flag, check_integer, check_number
from .decompose import decompose, fit_weights
from .estimators import (check_gaussian, contraction, hermite_coefficient, low_order, projected_tensor,
                                 whitening)
from .large_bias import affine_error, stage, training_error, visible_units
from .params import slice_coefficients, unit_parameters
from ..selfcheck import error_against_constant, self_check
from .signs import resolve_signs

__all__ = ["HermiteProposer", "propose_hermite", "network_parameter_error"]


class HermiteProposer(Proposer):
    """Learn (U, V, b) of ``relu(inputs @ V.T + b) @ U.T`` from Gaussian inputs by Hermite tensors.

    Parameters
    ----------
    k : number of hidden units (k <= d: the full-rank algorithm).
    bias : learn hidden biases (True, default) or assume b = 0.
    activation : must be RELU (the Hermite coefficients used are those of the biased ReLU).
    random_state : None, int or Generator (random contractions and Jennrich draws).
    whiten : whiten the inputs with their empirical second moment (inputs N(0, Sigma)).
    polish : ALS polish after Jennrich. n_draws : Jennrich draws (the best fit is kept).
    refine : rounds of pattern-linearized least squares on the samples (one output only; 0 = off).
    large_bias : ``"auto"`` (replace units with |b| > ``bias_threshold`` or an insignificant f_2
        coefficient by two linear units) or False (keep all k units).
    bias_threshold : |b_i| / |w_i| above which a unit counts as a large-bias unit.
    check_inputs : warn (GaussianityWarning) when the whitened inputs do not look Gaussian.
    offset : learn an output bias c too (``relu(inputs @ V.T + b) @ U.T + c``). c enters the zeroth Hermite
        coefficient only (``f_0 = sum_i a_i g_0(b_i) + c``; the coefficients of order >= 1 do not see a constant):
        the tensors and the output weights are those without c, the signs are chosen from f_1 alone, and
        ``c = f_0 - sum_i a_i E[relu(w_i . x + b_i)]`` (the expectation over the samples).

    Attributes
    ----------
    V_ : (k', d) unit rows; b_ : (k',) biases; U_ : (m, k') output weights; c_ : (m,) output bias (zero without
        ``offset``); W_ = V_.T; a_ = U_[0]
        when m = 1 (else U_.T). k' = k, or fewer + 2 when the large-bias stage ran.
    signs_ : (k,) orientation chosen for each decomposed unit; sign_margin_ : per unit, |gap| / |a|
        between the two orientations' f_1 fits (full rank). sign_choices_ : float survivors (sign
        vectors relative to the result, the first all ones); not certified.
    coefficients_ : (3, k) estimated (lam2, lam3, lam4). residual_ : relative decomposition residual (of the
        tensors, not of the network on the samples: see ``training_error_``).
    training_error_ : ``||prediction - labels|| / ||labels - mean||`` on the samples; at 1 or above, no better than
        the constant predictor: a :class:`~exactrelu.errors.NoBetterThanConstant` warning
        (:mod:`exactrelu.propose.selfcheck`).
    span_ : (d, k) whitened span. large_units_ : indices (of the k decomposed) replaced by the
        linear stage. gaussian_ : the Gaussianity check. n_units_ : k'.
    """

    def __init__(self, k: int, *, bias: bool = True, activation: Activation | str = "relu", random_state=None,
                 whiten: bool = True, polish: bool = True, n_draws: int = 8, refine: int = 0,
                 large_bias="auto", bias_threshold: float = 3.0, check_inputs: bool = True, offset: bool = False):
        self.k = k
        self.bias = bias
        self.activation = activation
        self.random_state = random_state
        self.whiten = whiten
        self.polish = polish
        self.n_draws = n_draws
        self.refine = refine
        self.large_bias = large_bias
        self.bias_threshold = bias_threshold
        self.check_inputs = check_inputs
        self.offset = offset

    # -- validation -----------------------------------------------------------------------------
    def _validate(self, inputs, labels):
        act = self.activation_ = check_activation(self.activation)
        if act != RELU:
            raise InvalidInput(f"HermiteProposer learns ReLU networks; got activation {act}")
        check_flag(self.bias, "bias")
        if self.large_bias not in ("auto", False):
            raise InvalidInput(f"large_bias must be 'auto' or False, got {self.large_bias!r}")
        check_integer(self.refine, "refine", minimum=0)
        check_integer(self.n_draws, "n_draws", minimum=1)
        for name in ("whiten", "polish", "check_inputs", "offset"):
            check_flag(getattr(self, name), name)
        check_number(self.bias_threshold, "bias_threshold", minimum=0, strict=True)
        k, X, Y = self._check_fit_data(inputs, labels)
        n, d = X.shape
        if k > d:
            raise AssumptionViolated(f"the full-rank Hermite algorithm needs k <= d (k = {k}, d = {d})",
                                     evidence={"k": k, "d": d},
                                     suggestion="exactrelu.propose.hermite.overcomplete (k <= d^2/4, small d)")
        if n <= d:
            raise InvalidInput(f"the Hermite estimators need more samples than input dimensions: got {n} sample(s) for d = {d}")
        return k, X, Y, as_generator(self.random_state, "random_state")

    # -- fit --------------------------------------------------------------------------------------
    def fit(self, X, y, *, progress=None) -> "HermiteProposer":
        """Fit to float inputs ``X`` (n x d, Gaussian) and labels ``y`` (n x m, or n for one output); returns self.

        ``progress`` (optional) receives one message per stage; a time limit given as a progress callback
        (:func:`exactrelu.deadline.with_deadline`) is checked there."""
        say = progress or (lambda message: None)
        k, X, Y, rng = self._validate(X, y)
        n, d = X.shape
        say("hermite: whitening and low-order moments")
        L, Linv = whitening(X) if self.whiten else (np.eye(d), np.eye(d))
        Z = X @ Linv.T
        self.gaussian_ = check_gaussian(Z) if self.check_inputs else None
        g = self._combination(Y, rng)
        y = Y @ g
        lo = low_order(Z, y)
        say("hermite: tensors f_2, f_3, f_4 in the span")
        P, T, sig = self._tensors(Z, y, lo, k, rng)
        say("hermite: decomposition (Jennrich, ALS polish)")
        dec = decompose(T, k, rng, reference=np.eye(T.shape[2])[0], n_draws=self.n_draws, polish=self.polish)
        lam2, lam3, lam4 = slice_coefficients(dec.B, dec.C, k, self.bias)
        lam2, lam3, lam4 = lam2 * sig[0], lam3 * sig[1], lam4 * sig[2]
        alpha, beta = unit_parameters(lam2, lam3, lam4, sig, bias=self.bias)
        Uw = (P @ dec.B).T  # k x d unit rows, whitened
        say("hermite: signs and output weights")
        choice = resolve_signs(Uw, alpha, beta, None if self.offset else lo.f0, lo.f1, np.sqrt(lo.second / n))
        Uw, beta = Uw * choice.signs[:, None], beta * choice.signs
        A = self._output_weights(Z, Y, P, dec.B, beta)  # m x k
        c0 = Y.mean(axis=0) - A @ hermite_coefficient(0, beta) if self.offset else np.zeros(Y.shape[1])
        self.signs_, self.sign_margin_, self.sign_choices_ = choice.signs, choice.margin, choice.survivors
        self.coefficients_ = np.stack([lam2, lam3, lam4])
        self.residual_, self.span_ = dec.residual, P
        large, (Vw, bw, A) = self._large_bias_choice(Z, Y - c0, Uw, beta, A, lam2, sig[0], say)
        W = Vw @ Linv  # rows in input coordinates: (Linv^T u) . x = u . z
        rho = np.linalg.norm(W, axis=1)
        rho = np.where(rho > 0, rho, 1.0)
        V, b, U = W / rho[:, None], bw / rho, A * rho[None, :]
        if self.refine and Y.shape[1] == 1:
            V, b, U = _refine(X, Y[:, 0], V, b, U[0], self.refine, self.offset)
        self._set_result(V, b, U, large)
        # the zeroth coefficient: c = f_0 - sum_i a_i E[relu(v_i . x + b_i)] (over the samples), else 0
        self.c_ = Y.mean(axis=0) - U @ np.maximum(X @ V.T + b, 0.0).mean(axis=0) if self.offset \
            else np.zeros(Y.shape[1])
        self.training_error_ = self_check("HermiteProposer", error_against_constant(self.evaluate(X), Y),
                                          "another random_state (the decomposition's draws), refine=, or the "
                                          "gradient learner")
        return self

    def _combination(self, Y, rng):
        """One label combination for the decomposition: the top right singular direction (plus noise)."""
        if Y.shape[1] == 1:
            return np.ones(1)
        _, _, Wt = np.linalg.svd(Y, full_matrices=False)
        g = Wt[0] + 0.3 * rng.standard_normal(Y.shape[1])
        return g / np.linalg.norm(g)

    def _tensors(self, Z, y, lo, k, rng):
        """Span P (d x k), the slice tensor T (k x k x q, each block divided by its noise) and the noise levels."""
        n, d = Z.shape
        s2 = np.sqrt(lo.second / n)
        y3 = y - lo.degree2_part(Z)
        s3 = np.sqrt(float(y3 @ y3) / n / n)
        a, c1, c2 = (v / np.linalg.norm(v) for v in rng.standard_normal((3, d)))
        blocks = [lo.f2 / s2, contraction(Z, y3, 4, [c1, c2]) / s3]
        if self.bias:
            blocks.append(contraction(Z, y3, 3, [a]) / s3)
        Pl, _, _ = np.linalg.svd(np.concatenate(blocks, axis=1), full_matrices=False)
        P = Pl[:, :k]
        Zp = Z @ P
        T2 = P.T @ lo.f2 @ P
        slices = [(T2 / s2)[:, :, None]]
        if self.bias:
            T3 = _sym3(projected_tensor(Zp, y3, 3))
            y4 = y3 - _cubic_part(Zp, T3)
            slices.append(T3 / s3)
        else:
            T3, y4 = None, y3
        s4 = np.sqrt(float(y4 @ y4) / n / n)
        T4 = _sym4(projected_tensor(Zp, y4, 4))
        slices.append((T4 / s4).reshape(k, k, k * k))
        return P, np.concatenate(slices, axis=2), np.array([s2, s3, s4])

    def _output_weights(self, Z, Y, P, B, beta):
        """U (m x k): each output's f_2 in the span, fitted on the unit components, divided by phi(beta)."""
        n = Z.shape[0]
        Zp = Z @ P
        out = np.empty((Y.shape[1], B.shape[1]))
        for r in range(Y.shape[1]):
            y = Y[:, r]
            T2 = ((Zp * y[:, None]).T @ Zp) / n - float(y.mean()) * np.eye(P.shape[1])
            C, _ = fit_weights(T2[:, :, None], B)
            out[r] = C[0] / hermite_coefficient(2, beta)
        return out

    def _large_bias_choice(self, Z, Y, Uw, beta, A, lam2, s2, say):
        """The units not seen (replaced by linear units) and the network that results: the paper's rule, and when its
        network fits the samples worse than the best affine map, the backward search of
        :func:`.large_bias.visible_units` (the trigger: :mod:`.large_bias`)."""
        large = self._large_units(lam2, beta, s2)
        out = stage(Z, Y, Uw, beta, A, large)
        if self.large_bias is not False and training_error(Z, Y, out) > affine_error(Z, Y):
            found = visible_units(Z, Y, Uw, beta)
            if found is not None and found[0] < training_error(Z, Y, out):
                large, out = ~found[1], found[2]
        say(f"hermite: large-|b| stage ({int(large.sum())} units)")
        return large, out

    def _large_units(self, lam2, beta, s2):
        if self.large_bias is False:
            return np.zeros(len(beta), dtype=bool)
        return (np.abs(beta) > self.bias_threshold) | (np.abs(lam2) < 2.0 * s2)

    def _set_result(self, V, b, U, large):
        self.V_, self.b_, self.U_ = V, b, U
        self.W_ = V.T
        self.a_ = U[0].copy() if U.shape[0] == 1 else U.T.copy()
        self.large_units_ = np.flatnonzero(large)
        self.n_units_ = V.shape[0]

    # -- results ----------------------------------------------------------------------------------
    def evaluate(self, inputs) -> np.ndarray:
        """Float predictions (n x m) of the learned network."""
        X = np.asarray(inputs, dtype=np.float64)
        return np.maximum(X @ self.V_.T + self.b_, 0.0) @ self.U_.T + self.c_

    def to_network(self) -> Network:
        """The learned network with its float weights taken as exact dyadic rationals (not certified)."""
        c = self.c_.tolist() if np.any(self.c_) else None
        return Network.from_rows(self.U_.tolist(), self.V_.tolist(), RELU, b=self.b_.tolist(), c=c)

    def parameter_error(self, planted: Network) -> float:
        """Largest error of matched (unit-normalized) parameters against a planted network: see
        :func:`network_parameter_error`."""
        return network_parameter_error(self.V_, self.b_, self.U_, planted)


def network_parameter_error(V, b, U, planted: Network) -> float:
    """max over matched units of |v - v*|, |beta - beta*| and |a - a*| / max|a*| (rows scaled to unit norm).

    Units are matched by the assignment maximizing the total cosine of (v, beta) (signs count).
    Returns inf when the unit counts differ.
    """
    from scipy.optimize import linear_sum_assignment

    Vt = np.array([[float(x) for x in r] for r in planted.V.to_fractions()])
    bt = np.array([float(x) for x in planted.b_fractions()])
    Ut = np.array([[float(x) for x in r] for r in planted.U.to_fractions()])
    if Vt.shape != np.shape(V):
        return float("inf")
    rt = np.linalg.norm(Vt, axis=1)
    Vt, bt, Ut = Vt / rt[:, None], bt / rt, Ut * rt[None, :]
    V, b, U = np.asarray(V), np.asarray(b), np.asarray(U)
    cost = -(V @ Vt.T) + np.abs(b[:, None] - bt[None, :])
    r, c = linear_sum_assignment(cost)
    scale = float(np.abs(Ut).max()) or 1.0
    errs = [np.abs(V[r] - Vt[c]).max(), np.abs(b[r] - bt[c]).max(), np.abs(U[:, r] - Ut[:, c]).max() / scale]
    return float(max(errs))


def _sym3(T):
    return sum(T.transpose(p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]) / 6.0


def _sym4(T):
    from itertools import permutations

    return sum(T.transpose(p) for p in permutations(range(4))) / 24.0


def _cubic_part(Zp, T3):
    """<T3, He_3(z)> / 3! at each sample (T3 symmetric): the degree-3 Hermite part of y in the span."""
    cube = np.einsum("abc,ia,ib,ic->i", T3, Zp, Zp, Zp, optimize=True)
    lin = np.einsum("aac,ic->i", T3, Zp, optimize=True)
    return (cube - 3.0 * lin) / 6.0


def _refine(X, y, V, b, a, rounds, offset=False):
    """Pattern-linearized least squares: fix the pattern, solve y ~ sum_active (p_i . x + q_i) (+ c), repeat."""
    n, d = X.shape
    k = V.shape[0]
    sgn = np.where(a >= 0, 1.0, -1.0)
    P, q = V * a[:, None], b * a
    Xa = np.concatenate([X, np.ones((n, 1))], axis=1)
    pattern = None
    for _ in range(rounds):
        new = (Xa @ np.concatenate([P, q[:, None]], axis=1).T) * sgn[None, :] > 0  # n x k
        if pattern is not None and np.array_equal(new, pattern):
            break
        pattern = new
        D = (pattern[:, :, None] * Xa[:, None, :]).reshape(n, k * (d + 1))
        if offset:
            D = np.hstack([D, np.ones((n, 1))])
        sol = np.linalg.lstsq(D, y, rcond=None)[0][: k * (d + 1)].reshape(k, d + 1)
        P, q = sol[:, :d], sol[:, d]
    rho = np.linalg.norm(P, axis=1)
    rho = np.where(rho > 0, rho, 1.0)
    a_new = sgn * rho
    return P / a_new[:, None], q / a_new, a_new[None, :]


def propose_hermite(inputs, labels, k: int, *, bias: bool = True, random_state=None, **kwargs) -> np.ndarray:
    """Functional form of :class:`HermiteProposer`: the proposed V (k x d).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0); X = rng.standard_normal((20000, 4))
    >>> propose_hermite(X, np.maximum(X @ [1.0, 0, 0, 0] - 0.5, 0), 1, random_state=0).shape
    (1, 4)
    """
    return HermiteProposer(k, bias=bias, random_state=random_state, **kwargs).fit(inputs, labels).V_
