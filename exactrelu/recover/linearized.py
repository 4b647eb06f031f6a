"""The pattern-linearized route: any rank of the labels (m = 1, rank-deficient U), biases, ReLU or t^c.

Beyond both papers. A float proposal fixes each unit's activation pattern; where every unit's
pre-activation is far from 0 (confidently classified samples) the pattern is taken as right, and
there the labels are **linear** in the coefficient blocks of the units (:mod:`exactrelu.recover.lift`;
for the ReLU the block of unit i is M_i = U[:, i] [V_i b_i]):

    y_jr = sum over active i of M_i[r] . [x_j, 1].

1. Refine the proposal in float: pattern -> least squares in the lift -> read each unit's weights
   -> new pattern, until the fit is at rounding level (:func:`exactrelu.recover.lift.refine`).
2. Exactly, on the P = k (d + 1) most confident samples whose design rows are independent modulo
   a prime (so over Q): solve the square system for the blocks; each block must be rank one
   (``lambda_r * coefficients(w)``); read w_i, oriented so that w_i . x_j > 0 on the samples the
   pattern calls active.
3. The shared final steps: F = f(W X) exactly on every sample (this *derives* every sample's
   pattern exactly), U from k columns, ``U F == labels`` verified on every entry, certificate
   ``realizes`` (with ``b``), independent check.

Assumptions (not claims: the certificate is checked on its own): the proposal's pattern is right
on the chosen samples (a wrong one fails step 2 or 3 and the next proposal is tried); every unit is
active on at least P/k samples and no two units share one pattern on all samples (else the design
has rank < P: said which). Proposals: ``init`` first (any of :mod:`exactrelu.recover.proposals`),
then restarts of the gradient proposer on the augmented inputs, each refined and screened exactly.

>>> from exactrelu.instances import planted
>>> inst = planted(d=4, k=3, m=1, n=2000, seed=2, bias=1.0)
>>> res = recover_linearized(inst, RecoveryRequest(k=3, bias=True, random_state=0))
>>> res.network.equivalent(inst.planted), res.route
(True, 'linearized')
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from ..errors import AssumptionViolated, NotRealizable, ProposalFailed
from ..exact.linalg import independent_rows
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..limits import check_memory
from ..network import Activation, Network
from ..propose.floats import normalize_rows
from ..propose.gradient import GradientProposer
from ..propose.selfcheck import quiet
from .views import InputProducts, RowView, augmented, float_view
from .output_layer import certify, check_identifiable, solve_output_layer, split_bias
from .lift import Lift, refine
from .proposals import run_proposer
from .request import RecoveryRequest
from .result import RecoveryResult, Timer
from .unit_steps import primitive_weights

__all__ = ["recover_linearized"]

#: A refined proposal goes to the exact step when its float fit is at this relative residual or below.
SCREEN = 1e-9


class _Rejected(Exception):
    """The exact step refused one proposal (its pattern is wrong somewhere); ``info`` says where."""

    def __init__(self, info: dict):
        super().__init__(info["reason"])
        self.info = info


def recover_linearized(inst: Instance, req: RecoveryRequest, *, max_starts: int = 12) -> RecoveryResult:
    """Recover U, V (and b) exactly by the pattern-linearized route (module doc); any rank of the labels.

    ``max_starts`` bounds the gradient restarts tried after ``req.init``; ``req`` holds the parameters of
    :func:`exactrelu.recover.recover`.

    Raises
    ------
    AssumptionViolated : the lift is too large, or the best proposal's pattern leaves a unit (or a pair
        of units) undetermined (which, and why, in the message).
    ProposalFailed : no proposal's pattern explained the labels (noisy labels, or a hard instance).
    """
    T = Timer()
    t0 = T.start()
    k, bias, act = req.k, req.bias, req.activation_for(inst)
    work = augmented(inst) if bias else inst
    lift = Lift(work.d, act.degree, k, inst.n, offset=req.output_bias)
    Xf, Yf = float_view(work, act.degree)
    step = _ExactStep(work, inst, act, lift)
    T.add("conversion", t0)
    search = _Search(step, Xf, Yf, act, lift, req, T)
    search.max_starts = max_starts
    W, source = search.run()
    t0 = T.start()
    Uq, cq, Vq = step.output(W)
    T.add("output", t0)
    V, b = split_bias(Vq) if bias else (Vq, None)
    net, cert, summary = certify(inst, Network(Uq, V, act, b, cq), route="linearized", proposer=source,
                                 random_state=req.random_state, check=req.check, timer=T,
                                 certificate=req.certificate)
    return RecoveryResult(net, cert, T.t, search.tries, source, step.rank(), [], summary, inst.n * inst.m,
                          route="linearized", attempts=search.log)


class _Search:
    """Proposals in order (``init``, then gradient restarts), each refined in float and screened exactly."""

    def __init__(self, step, Xf, Yf, act, lift, req: RecoveryRequest, timer):
        random_state, progress, self.req = req.random_state, req.progress, req
        self.step, self.Xf, self.Yf, self.k, self.act, self.lift = step, Xf, Yf, req.k, act, lift
        self.random_state, self.T, self.say = random_state, timer, progress or (lambda msg: None)
        self.rng = np.random.default_rng(random_state if isinstance(random_state, int) else 0)
        self.log: list[dict] = []
        self.tries = 0
        self.best: tuple[float, dict] | None = None
        self.bias = False

    def run(self) -> tuple[list[list[int]], str]:
        init = self.req.init
        self.bias = self.req.bias
        if not (isinstance(init, str) and init == "auto"):
            t0 = self.T.start()
            # the given proposal runs without the progress callback (only the restarts report)
            V0, _, name = run_proposer(self.req.but(progress=None), self.act, self.Xf, self.Yf, self.lift.D)
            self.T.add("proposal", t0)
            W = self.attempt(self._rows(V0), name)
            if W is not None:
                return W, name
        for r in range(self.max_starts):
            W = self._gradient_start(r)
            if W is not None:
                return W, "gradient restarts" if r else "gradient"
        raise self._failure()

    max_starts = 12

    def _rows(self, V0: np.ndarray) -> np.ndarray:
        """Exactly k rows: extra rows dropped, missing ones drawn at random."""
        if V0.shape[0] >= self.k:
            return V0[: self.k]
        return np.vstack([V0, self.rng.standard_normal((self.k - V0.shape[0], V0.shape[1]))])

    def _gradient_start(self, r: int):
        """One restart: up to three short gradient runs, each followed by the refinement and, if it fits, the exact step."""
        self.tries += 1
        rs = self.random_state
        seed = None if rs is None else int(self.rng.integers(2**32)) if not isinstance(rs, int) else (rs * 1_000_003 + 7919 * r) & 0xFFFFFFFF
        V = None
        for _ in range(3):
            t0 = self.T.start()
            g = GradientProposer(self.k, activation=self.act, random_state=seed, n_restarts=1, max_iter=20, init=V,
                                 offset=self.req.output_bias)
            with quiet():  # a polish of twenty steps; the exact phase judges it
                V = g.fit(self.Xf, self.Yf).V_
            self.T.add("proposal", t0)
            W = self.attempt(V, "gradient", quiet=True)
            if W is not None or self._screened:
                return W
        return None

    def attempt(self, V0: np.ndarray, source: str, quiet: bool = False):
        """Refine, screen, and if the fit is at rounding level, the exact step (twice: the second from the exact weights)."""
        t0 = self.T.start()
        V, res = refine(self.Xf, self.Yf, V0, self.lift, rng=self.rng)
        t0 = self.T.add("refine", t0)
        self._screened = res <= SCREEN
        if not self._screened:
            self._note({"source": source, "reason": f"the refined proposal fits the labels only to relative residual "
                        f"{res:.2g} (not at rounding level): its pattern is wrong", "residual": res}, res, quiet)
            return None
        for _ in range(2):
            try:
                W = self.step.weights(V)
                self.step.output(W)  # final verification on every sample (kept by the step)
                self.T.add("exact", t0)
                return W
            except (_Rejected, NotRealizable) as exc:
                info = exc.info if isinstance(exc, _Rejected) else {"reason": str(exc), "evidence": exc.evidence}
                self._note({"source": source, **info}, res, False)
                if not isinstance(exc, NotRealizable) or self.step.last_W is None:
                    break
                V = float_rows(self.step.last_W)  # the exact weights' pattern, one more round
        self.T.add("exact", t0)
        return None

    def _note(self, info: dict, res: float, quiet: bool) -> None:
        if not quiet:
            self.log.append(info)
            self.say(f"linearized: {info['source']}: {info['reason']}")
        if self.best is None or res < self.best[0] or (res == self.best[0] and "assumption" in info):
            self.best = (res, info)

    def _failure(self):
        res, info = self.best if self.best else (np.inf, {"reason": "no proposal"})
        evidence = {"best_residual": res, "best": info, "attempts": self.log[:10], "starts": self.tries}
        if info.get("assumption"):
            return AssumptionViolated(f"pattern-linearized route: {info['reason']}", evidence=evidence,
                                     suggestion=info.get("suggestion", "more samples"))
        return ProposalFailed(
            f"no certificate: no proposal's activation pattern explained the labels in the pattern-linearized route "
            f"({self.tries} gradient starts; best: {info['reason']}). The labels may be noisy or rounded, or the "
            f"network not of this form; try another init (e.g. init='hermite' for biased Gaussian data)."
            + ("" if self.bias and self.req.output_bias else " If the network has hidden biases or an output bias "
               "(PyTorch's default Linear), pass bias=True (--bias)."),
            evidence=evidence)


def float_rows(W: list[list[int]]) -> np.ndarray:
    """Integer rows as float64 directions, each row scaled by a power of two first (entries of thousands of digits
    overflow a float; a row's direction is all a pattern needs).

    >>> r = float_rows([[3 * 2**2000, -2**2000], [1, 2]])
    >>> (r[0] / abs(r[0, 1])).tolist(), r[1].tolist()
    ([3.0, -1.0], [1.0, 2.0])
    """
    out = []
    for row in W:
        shift = max(0, max(abs(int(x)).bit_length() for x in row) - 60)
        out.append([float(Fraction(int(x), 1 << shift)) for x in row])  # correctly rounded, small ones kept
    return np.array(out, dtype=np.float64)


class _ExactStep:
    """Step 2 and 3 of the module doc for one proposal."""

    def __init__(self, work: Instance, inst: Instance, act: Activation, lift: Lift):
        self.work, self.inst, self.act, self.lift = work, inst, act, lift
        self.Xrows, self.XT = RowView(work.inputs), InputProducts(work.inputs)
        self.A = inst.labels.num.transpose()
        self.Yint = RowView(inst.labels.num)
        self.Xn = normalize_rows(work.float_inputs())
        self.last_W = None
        self._out = None
        self._xbits = 1

    def rank(self) -> int:
        from .output_layer import rank_of

        return rank_of(self.A)

    def weights(self, V: np.ndarray) -> list[list[int]]:
        """Primitive integer weights of every unit from the square system on confident samples, or _Rejected."""
        self.last_W = None
        S, order = self._pattern(V)
        rows = self._independent(S, order)
        D = flint.fmpz_mat([self._design_row(S, j) for j in rows])
        Ysq = flint.fmpz_mat([self.Yint[j] for j in rows])
        num, _ = D.solve(Ysq).numer_denom()  # the blocks, times one positive common denominator
        q, m = self.lift.q, num.ncols()
        W = []
        for i in range(self.lift.k):
            block = [[Fraction(int(num[i * q + a, r])) for r in range(m)] for a in range(q)]
            if all(x == 0 for row in block for x in row):
                raise _Rejected({"reason": f"unit {i} contributes nothing on the chosen samples (zero coefficients): "
                                 f"fewer than k = {self.lift.k} units explain the labels, and a dead unit's weights "
                                 "are not determined by the data", "assumption": True, "unit": i,
                                 "suggestion": f"k = {self.lift.k - 1}"})
            w = self.lift.read_weights(block)
            if w is None:
                raise _Rejected({"reason": f"the exact coefficient block of unit {i} is not of one unit's form "
                                 "(rank one for the ReLU): the proposal's pattern is wrong on some chosen sample",
                                 "unit": i})
            W.append(self._oriented(primitive_weights(w), S[:, i], rows, i))
        self.last_W = W
        return W

    def output(self, W: list[list[int]]) -> tuple[QMatrix, QMatrix | None, QMatrix]:
        """(U, c, V) with U f(V X) + c == labels verified on every entry (c None without an output bias)."""
        if self._out is not None and self._out[0] == W:
            return self._out[1]
        self._sample_first(W)
        check_memory(self._product_bytes(W), "the exact hidden layer of a proposal on every sample")
        F = self.act.apply_fmpz_mat(self.XT.times(W))
        U, c = solve_output_layer(F, self.A, self.inst, self.act, int(self.work.inputs.den), self.lift.offset)
        out = (U, c, QMatrix(flint.fmpz_mat(W), 1))
        check_identifiable(F, out[0], self.lift.q)  # the labels hold; is this the only split?
        self._out = (W, out)
        return out

    def _sample_first(self, W: list[list[int]]) -> None:
        """The labels checked exactly on a spread of samples before the product over every sample: weights solved
        from a wrong pattern have entries of thousands of digits (a square system's Cramer quotients), and their
        product with every sample would fill the memory. Failing on the spread proves that no output layer fits
        every sample (NotRealizable); a spread whose hidden rows have rank < k proves nothing and is passed on.
        """
        n = self.inst.n
        J = sorted({int(j) for j in np.linspace(0, n - 1, min(n, 8 * (len(W) + 1) + 64))})
        XJ = self.Xrows.matrix(J)
        self._xbits = max((abs(int(x)).bit_length() for x in XJ.entries()), default=1)
        F = self.act.apply_fmpz_mat(flint.fmpz_mat(W) * XJ.transpose())
        A = self.Yint.matrix(J).transpose()
        try:
            solve_output_layer(F, A, self.inst, self.act, int(self.work.inputs.den), self.lift.offset)
        except NotRealizable as exc:
            if "n_failing" not in exc.evidence:
                return
            raise NotRealizable(f"on {len(J)} samples spread over the {n} checked first, {exc}",
                                evidence={**exc.evidence, "samples_checked_first": len(J)}) from None

    def _product_bytes(self, W: list[list[int]]) -> float:
        """Estimated bytes of f(W X) and of the output layer's comparison on every sample (FLINT integers)."""
        src = self.work.inputs.float_source
        xbits = src[2] if src is not None else self._xbits  # the spread's entries: an estimate, not a bound
        wbits = max(abs(int(x)).bit_length() for row in W for x in row) + len(W[0]).bit_length()
        bits = self.act.degree * (wbits + xbits)
        return 3.0 * self.inst.n * (len(W) + self.inst.m) * (bits / 8 + 32)

    def _pattern(self, V: np.ndarray):
        Vn = normalize_rows(V)
        M = self.Xn @ Vn.T
        return M > 0, np.argsort(-np.abs(M).min(axis=1), kind="stable")  # most confident samples first

    def _design_row(self, S, j: int) -> list[int]:
        f = self.lift.features(self.Xrows[j])
        return [x if s else 0 for s in S[j] for x in f] + [1] * self.lift.offset

    def _independent(self, S, order) -> list[int]:
        P, n = self.lift.P, len(order)
        size = min(n, 3 * P + 50)
        while True:
            J = [int(j) for j in order[:size]]
            rows = independent_rows(flint.fmpz_mat([self._design_row(S, j) for j in J]))
            if len(rows) == P:
                return [J[r] for r in rows]
            if size == n:
                raise _Rejected(self._deficiency(S, len(rows)))
            size = min(n, 4 * size)

    def _deficiency(self, S, rank: int) -> dict:
        counts = S.sum(axis=0)
        q, P = self.lift.q, self.lift.P
        few = [i for i in range(self.lift.k) if counts[i] < q]
        same = [(i, j) for i in range(self.lift.k) for j in range(i) if np.array_equal(S[:, i], S[:, j])]
        always = [i for i in range(self.lift.k) if counts[i] == S.shape[0]] if self.lift.offset else []
        if always and self.work.d > self.inst.d:
            why = (f"proposed unit {always[0]} is active on every sample: with hidden biases and an output bias its "
                   "constant part and the output bias c are one unknown on the data, and cannot be told apart")
        elif few:
            why = (f"proposed unit {few[0]} is active on {int(counts[few[0]])} samples, fewer than the {q} its weights "
                   f"need: not identifiable from these data")
        elif same:
            why = (f"proposed units {same[0][1]} and {same[0][0]} are active on exactly the same samples: on the data "
                   "their sum is one unit's worth of coefficients, and they cannot be told apart")
        else:
            why = f"the linearized system has rank {rank} < {P} on all {S.shape[0]} samples"
        return {"reason": why, "assumption": True, "rank": rank, "unknowns": P, "active_counts": counts.tolist(),
                "suggestion": "more samples, or fewer units (k)"}

    def _oriented(self, w: list[int], s, rows: list[int], i: int) -> list[int]:
        vals = [sum(a * b for a, b in zip(w, self.Xrows[j])) for j in rows]
        act = [j for j, v in zip(rows, vals) if s[j]]
        if not act:
            raise _Rejected({"reason": f"unit {i} is active on none of the chosen samples", "unit": i})
        sign = 1 if sum(a * b for a, b in zip(w, self.Xrows[act[0]])) > 0 else -1
        bad = [j for j, v in zip(rows, vals) if (sign * v > 0) != bool(s[j])]
        if bad:
            raise _Rejected({"reason": f"the exact weights of unit {i} contradict the proposal's pattern on "
                             f"{len(bad)} of the chosen samples", "unit": i, "samples": bad[:10]})
        return [sign * a for a in w]
