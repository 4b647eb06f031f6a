"""The row-span route (Bakshi, Jayaram, Woodruff 2019): rank(labels) = k, any proposal, hidden biases optional.

Papers' orientation inside: X = inputs.T (d x n), A = labels.T (m x n), W = f(V X + b). If U has
full column rank k then rowspan(A) = rowspan(W). For a set Z of samples where unit i is inactive,
{y in rowspan(A) : y_Z = 0} = span(W_i) if and only if the other units' rows restricted to Z have
rank k-1 (exactrelu.theorems.uniqueness_lemma). The route:

1. ``B``: k rows of A independent modulo a prime (so over Q); rank(A) != k is reported.
2. For each unit of a float proposal, its most confidently inactive samples Z (most negative
   v . x / |x|): the exact primitive kernel c of B[:, Z]^T gives y = c^T B; y must be one-signed
   (oriented to be >= 0), and its support is the unit's active set.
3. V_i exactly from d samples of the support (exact c-th roots of ratios for t^c), then all
   units at once: F = f(V X) exactly, and every row of F is checked proportional to its y.
4. U from k independent columns of F; then ``U F == A`` is verified on **every** sample and
   output. Only then is a certificate written; the independent checker can re-verify it.

With ``bias=True`` the inputs get a constant coordinate 1 and the route recovers ``[V b]``:
``f(V x + b) = f([V b] [x; 1])``, and the augmented inputs of a continuous distribution are in
general position (no d+1 on a hyperplane), so every step
above applies with d+1 in place of d.

With an output bias (``output_bias``), ``A = U W + c 1^T`` and ``[A; 1^T] = [[U, c], [0, 1]] [W; 1^T]``: when U
has full column rank the row span of [A; 1^T] is that of [W; 1^T] (k + 1 dimensions). B is then k + 1 rows of
[A; 1^T]; the vectors of that span vanishing on Z are the multiples of W_i exactly when the other units *and the
constant vector* restricted to Z have rank k (``exactrelu.theorems.offset_uniqueness``), so kernels are taken on
k samples; U and c come from one exact system per output, ``[U_r c_r] [F; 1^T] = A_r``.

Proposals only choose which small exact systems to solve; they never decide anything.

>>> from exactrelu.instances import planted
>>> inst = planted(d=4, k=2, m=3, n=300, seed=1, bias=1.0)
>>> res = recover_rowspan(inst, RecoveryRequest(k=2, bias=True, random_state=0))
>>> res.network.equivalent(inst.planted), res.route
(True, 'rowspan')
"""

from __future__ import annotations

import time


import flint
import numpy as np

from ..errors import AssumptionViolated, ProposalFailed
from ..exact.linalg import primitive_kernel
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import Network
from ..propose.floats import normalize_rows
from ..propose.search import SearchProposer
from .views import InputProducts, RowView, augmented, float_view, ones_row, stack_rows
from .output_layer import (certify, check_identifiable, label_rows, no_units, offset_label_rows, solve_output_layer,
                           split_bias)
from .proposals import run_proposer
from .request import RecoveryRequest
from .result import RecoveryResult, Timer
from .unit_steps import Candidate, confirm_all, kernel_from_order, oriented, unit_from_order

__all__ = ["recover_rowspan"]


def recover_rowspan(inst: Instance, req: RecoveryRequest, *, certificate: bool = True) -> RecoveryResult:
    """Recover U, V (and b) with ``f(inputs @ V.T + b) @ U.T == labels`` exactly by the row-span route.

    ``req`` holds the parameters of :func:`exactrelu.recover.recover`; ``inst`` is an Instance and ``req.k``
    a valid positive integer (the front door checks both). ``certificate=False`` skips the certificate
    (for callers that certify another claim, e.g. the sparse-corruption route): ``certificate`` is then {}.

    Raises
    ------
    AssumptionViolated : rank(labels) < k, or inputs not in general position for some unit.
    NotRealizable : the labels are not reproduced exactly (noisy or rounded labels); evidence attached.
    ProposalFailed : no proposal produced the missing units (nothing is claimed).
    """
    T = Timer()
    t0 = T.start()
    k, bias, offset, act = req.k, req.bias, req.output_bias, req.activation_for(inst)
    work = augmented(inst) if bias else inst
    Xf, Yf = float_view(work, act.degree)
    A = inst.labels.num.transpose()  # m x n integers; labels = A^T / den
    A1 = ones_row(A) if offset else A  # with an output bias: [A; 1^T], whose row span holds the constant vector
    t0 = T.add("conversion", t0)
    rows = offset_label_rows(A1, k) if offset else label_rows(A, k)
    if rows == list(range(A1.nrows())):  # every row, in order (m = k): no selection product
        B = A1
    else:
        B = flint.fmpz_mat([[int(i == r) for i in range(A1.nrows())] for r in rows]) * A1  # rows of A1
    T.add("rank", t0)
    finder = _Finder(B, work, act, req, Xf, T)
    sources = finder.run(Yf)
    cands = finder.cands

    t0 = T.start()  # the confirmed units: integer rows of V and exact rows of f(V X) (scaled by dx**c)
    Vq = QMatrix(flint.fmpz_mat([c.v for c in cands]), 1)
    F = stack_rows([(c.F, c.frow, 1) for c in cands], inst.n)
    t0 = T.add("hidden", t0)
    Uq, cq = solve_output_layer(F, A, inst, act, int(work.inputs.den), offset)  # U F + c 1^T == A, or NotRealizable
    check_identifiable(F, Uq, work.d, [len(c.positive) for c in cands])  # supp F_i = supp y_i (confirm_all)
    T.add("output", t0)
    V, b = split_bias(Vq) if bias else (Vq, None)
    if certificate and req.certificate:
        net, cert, summary = certify(inst, Network(Uq, V, act, b, cq), route="rowspan", proposer="+".join(sources),
                                     random_state=req.random_state, check=req.check, timer=T)
    else:
        net, cert, summary = Network(Uq, V, act, b, cq).canonical(), {}, None
    return RecoveryResult(net, cert, T.t, finder.tries, "+".join(sources), k, [c.record for c in cands], summary,
                          inst.n * inst.m, route="rowspan")


class _Finder:
    """Proposals -> confirmed units: kernels of the label basis on proposed zeros, batched exact checks."""

    def __init__(self, B, work: Instance, act, req: RecoveryRequest, Xf, timer):
        random_state, progress, self.req = req.random_state, req.progress, req
        self.B, self.BT, self.work, self.act, self.k = B, RowView(B.transpose()), work, act, req.k
        self.dim = B.nrows()  # the span's dimension: k, or k + 1 with the constant vector of an output bias
        self.n, self.d = work.n, work.d
        self.Xrows, self.XT = RowView(work.inputs), InputProducts(work.inputs)
        self.rng = np.random.default_rng(random_state if isinstance(random_state, int) else 0)
        self.random_state, self.Xf, self.Xn, self.T = random_state, Xf, normalize_rows(Xf), timer
        self.say = progress or (lambda msg: None)
        self.progress = progress
        self._last = time.monotonic()
        self.cands: list[Candidate] = []
        self.rejected: list[dict] = []
        self.tries = 0

    def run(self, Yf) -> list[str]:
        """The proposal, then up to three rounds of blind search for missing units; returns the sources used."""
        t0 = self.T.start()
        bias = self.req.bias
        V_prop, est, name = run_proposer(self.req, self.act, self.Xf, Yf, self.d)
        self.tries += int(getattr(est, "n_tries_", 0) or 0)
        self.T.add("proposal", t0)
        sources = [name]
        self.say(f"proposal '{name}' gave {len(V_prop)} rows")
        self.take(V_prop, name)
        rounds = 0
        while len(self.cands) < self.k and rounds < 3 and self.req.search:
            rounds += 1
            self.say(f"{len(self.cands)} of {self.k} units confirmed; searching for the rest")
            self.take(self._search(Yf, rounds, bias), "search")
            if "search" not in sources:
                sources.append("search")
        if len(self.cands) < self.k:
            self._always_active()
            raise no_units(self.k, self.cands, self.rejected, self.tries, "", self.d - int(bias), bias,
                           self.req.output_bias)
        return sources

    def _always_active(self) -> None:
        """AssumptionViolated if the labels' row span holds an affine function positive on every sample.

        Such a vector is a unit active on every sample (or a sum of them): the kernels of this route
        need samples where a unit is inactive, so it cannot isolate those units. With an output bias the
        constant vector is in the span, so any non-constant affine function there is such a unit (adding a
        constant makes it one-signed; its constant part and c are one unknown on the data).
        """
        k, D, n, dim = self.k, self.d, self.n, self.dim
        S = sorted(self.rng.choice(n, size=min(n, 4 * (dim + D)), replace=False).tolist())
        M = flint.fmpz_mat([list(self.BT[j]) + [-x for x in self.Xrows[j]] for j in S])
        found = []
        for vec in primitive_kernel(M):
            c, w = vec[:dim], vec[dim:]
            y = flint.fmpz_mat([c]) * self.B
            if y != InputProducts(self.work.inputs).times([w]):
                continue  # holds on the subset only
            vals = y.entries()
            if len(set(vals)) == 1:
                continue  # the constant vector (an output bias's direction): no unit
            if self.req.output_bias or all(v > 0 for v in vals) or all(v < 0 for v in vals):
                found.append(w)
        if found:
            raise AssumptionViolated(
                f"the labels' row span contains {len(found)} affine function(s) of the inputs that are non-zero and of one "
                f"sign on every sample: unit(s) active on every sample, which the row-span route cannot isolate (it "
                f"needs samples where a unit is inactive); found {len(self.cands)} of {k} units",
                evidence={"found": len(self.cands), "always_active_directions": len(found)},
                suggestion="samples where every unit is inactive somewhere, or route='linearized'")

    def _search(self, Yf, rounds: int, bias: bool) -> np.ndarray:
        t0 = self.T.start()
        masks = [np.zeros(self.n, dtype=bool) for _ in self.cands]
        for mask, c in zip(masks, self.cands):
            mask[c.positive] = True
        rs = self.random_state
        if isinstance(rs, np.random.Generator):
            seed = rs
        else:
            seed = None if rs is None else (int(rs) * 1_000_003 + rounds) & 0xFFFFFFFF
        sp = SearchProposer(self.k, activation=self.act, random_state=seed, exclude=masks, progress=self.progress,
                            offset=self.req.output_bias)
        try:
            sp.fit(self.Xf, Yf)
        except ProposalFailed as exc:
            self._always_active()
            raise no_units(self.k, self.cands, self.rejected, self.tries, str(exc), self.d - int(bias), bias,
                           self.req.output_bias) from None
        finally:
            self.tries += int(getattr(sp, "n_tries_", 0))
            self.T.add("proposal", t0)
        return sp.V_

    def take(self, V_prop: np.ndarray, source: str) -> None:
        """Turn proposal rows into confirmed units: kernels first, then batched exact products and checks."""
        t1 = self.T.start()
        S = self.Xn @ V_prop.T  # normalized margins, n x rows
        active = (S > 0).sum(axis=1)
        rows = range(min(S.shape[1], 2 * self.k))
        orders = {i: list(_zero_orders(S[:, i], active - (S[:, i] > 0), self.k)) for i in rows}
        new = self._candidates(rows, orders, source)
        for c in confirm_all(new, self.Xrows, self.XT, self.act, self.d, self.rng, self.rejected):
            if len(self.cands) < self.k:
                self.cands.append(c)
        self.T.add("units", t1)

    def _tick(self, message: str) -> None:
        """A progress message at most every 0.2 s (a time limit made a progress callback is checked there)."""
        now = time.monotonic()
        if now - self._last >= 0.2:
            self._last = now
            self.say(message)

    def _candidates(self, rows, orders, source) -> list[Candidate]:
        first = {}
        for i in rows:  # the preferred order of every row: kernels now, one product C B for all
            self._tick(f"exact kernels: row {i + 1} of {len(rows)} of the proposal")
            kz = kernel_from_order(self.B, self.BT, orders[i][0], self.dim, source)
            if isinstance(kz, dict):
                self.rejected.append(kz)
            else:
                first[i] = kz
        Y = flint.fmpz_mat([c for c, _ in first.values()]) * self.B if first else None
        ents = Y.entries() if first else []
        where = {i: r for r, i in enumerate(first)}
        new: list[Candidate] = []
        n = self.n
        for i in rows:
            if len(self.cands) + len(new) == self.k:
                break
            self._tick(f"exact units: row {i + 1} of {len(rows)} of the proposal, {len(new)} candidates")
            cand = None
            if i in first:
                r = where[i]
                cand = oriented(Y, r, ents[r * n:(r + 1) * n], first[i][1], source)
            if cand is None or isinstance(cand, dict):
                if cand is not None:
                    self.rejected.append(cand)
                for order in orders[i][1:]:  # the other orders, one at a time
                    cand = unit_from_order(self.B, self.BT, order, self.dim, source)
                    if not isinstance(cand, dict):
                        break
                    self.rejected.append(cand)
            if isinstance(cand, Candidate) and not any(c.positive == cand.positive for c in self.cands + new):
                new.append(cand)
        return new


def _zero_orders(score: np.ndarray, others_active: np.ndarray, k: int):
    """Orders in which to use samples as zeros of a unit: most confidently inactive first.

    First preference: among the confidently inactive samples (the most negative quarter, at least
    4k + 20), those where many *other* proposed units are active, so that no other unit vanishes on
    all chosen zeros (correlated units would otherwise leave a 2-dimensional kernel). Second: the
    plain order by margin; third: the confident pool in random order.
    """
    order = np.argsort(score, kind="stable")
    pool = order[: max(4 * k + 20, len(score) // 4)]
    pool = pool[score[pool] < 0]
    yield pool[np.lexsort((score[pool], -others_active[pool]))]
    yield order
    yield np.random.default_rng(len(score)).permutation(pool)
