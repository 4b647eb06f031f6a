"""Exact recovery of a two-layer rectified network from noiseless labels (Bakshi et al. 2019).

Works in the papers' orientation: X = inputs.T (d x n), A = labels.T (m x n), W = f(V X).
If U has full column rank k then rowspan(A) = rowspan(W), and for inputs in general position
the only vectors of rowspan(A) vanishing on k-1 samples where unit i is inactive are the
multiples of W_i (shared/notes/exact-recovery-math.md). The algorithm:

1. ``B``: k rows of A independent modulo a prime (so over Q); rank(A) != k is reported.
2. For each unit of a float proposal, its most confidently inactive samples Z (most negative
   v . x / |x|): the exact primitive kernel c of B[:, Z]^T gives y = c^T B; y must be one-signed
   (oriented to be >= 0), and its support is the unit's active set.
3. V_i exactly from d samples of the support (exact c-th roots of ratios for t^c), then all
   units at once: F = f(V X) exactly, and every row of F is checked proportional to its y.
4. U from k independent columns of F; then ``U F == A`` is verified on **every** sample and
   output. Only then is a certificate written; the independent checker can re-verify it.

Proposals only choose which small exact systems to solve; they never decide anything.

>>> from exactrelu.instances import planted
>>> inst = planted(d=5, k=3, m=3, n=300, seed=1)
>>> res = recover(inst, k=3, random_state=0)
>>> res.network.equivalent(inst.planted), res.certificate["claim"]
(True, 'realizes')
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import flint
import numpy as np

from ..certificates.envelope import instance_sha256, realizes_certificate, verify
from ..errors import AssumptionViolated, ExactReluError, InvalidInput, NotRealizable, ProposalFailed
from ..exact.linalg import PRIMES, exact_rank, independent_columns, independent_rows, primitive_kernel, rank_mod_p
from ..exact.matrix import QMatrix
from ..exact.rationals import rational_root
from ..instances import Instance
from ..network import RELU, Activation, Network
from ..propose import make_proposer, proposal_array
from ..propose.search import SearchProposer

__all__ = ["recover", "RecoveryResult", "UnitRecord"]


@dataclass
class UnitRecord:
    """How one unit was found: the samples that pinned it down and its active set size."""

    zeros: list[int]
    support_size: int
    solved_on: list[int]
    source: str


@dataclass
class RecoveryResult:
    """A certified recovery: the canonical network, its certificate and how it was obtained.

    Attributes
    ----------
    network : the recovered network in canonical form (exact).
    certificate : the ``realizes`` certificate (a JSON-ready dict).
    timings : seconds per phase: conversion, rank, proposal, units, hidden, output, certificate, independent_check.
    tries : random subsets tried by the search proposer (0 if not used).
    proposer : which proposal(s) produced the units.
    checked : the independent checker's summary (None when ``check=False``).
    """

    network: Network
    certificate: dict
    timings: dict[str, float]
    tries: int
    proposer: str
    rank: int
    units: list[UnitRecord] = field(default_factory=list)
    checked: str | None = None
    entries_verified: int = 0

    @property
    def U(self) -> QMatrix:
        return self.network.U

    @property
    def V(self) -> QMatrix:
        return self.network.V


class _Timer:
    def __init__(self):
        self.t: dict[str, float] = {}

    def add(self, name: str, t0: float) -> float:
        now = time.perf_counter()
        self.t[name] = self.t.get(name, 0.0) + now - t0
        return now


@dataclass
class _Candidate:
    y: flint.fmpz_mat  # 1 x n, >= 0
    positive: list[int]
    record: UnitRecord


def _as_instance(inputs, labels, activation) -> Instance:
    if isinstance(inputs, Instance):
        if labels is not None:
            raise InvalidInput("pass either an Instance or inputs and labels, not both")
        return inputs
    if labels is None:
        raise InvalidInput("labels are required")
    return Instance.from_arrays(inputs, labels, activation=activation)


def recover(
    inputs,
    labels=None,
    *,
    k: int,
    activation: Activation | None = None,
    init: Any = "search",
    random_state=0,
    check: bool = True,
    progress: Callable[[str], None] | None = None,
) -> RecoveryResult:
    """Recover U, V with ``f(inputs @ V.T) @ U.T == labels`` exactly, and certify it.

    Parameters
    ----------
    inputs : an :class:`~exactrelu.instances.Instance`, or an (n x d) array / nested rationals.
    labels : (n x m) labels when ``inputs`` is an array (floats are taken exactly).
    k : number of hidden units; rank(labels) must equal k (U of full column rank).
    activation : ReLU (default, or the instance's) or ``Activation.power(c)``.
    init : the float proposal: a proposer name (``"search"``; see :mod:`exactrelu.propose`), an
        estimator with ``fit``/``V_``, or a (units x d) array of approximate weights. Units the
        proposal misses are searched for blindly.
    random_state : seed for the proposers.
    check : also run the independent standard-library checker on the certificate.
    progress : optional callback receiving one-line progress messages.

    Raises
    ------
    AssumptionViolated : rank(labels) < k, or inputs not in general position for some unit.
    NotRealizable : the labels are not reproduced exactly (noisy or rounded labels); evidence attached.
    ProposalFailed : no proposal produced the missing units (nothing is claimed).
    """
    say = progress or (lambda msg: None)
    T = _Timer()
    t0 = time.perf_counter()
    inst = _as_instance(inputs, labels, activation)
    act = activation or inst.activation or RELU
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InvalidInput(f"k must be a positive integer, got {k!r}")
    k = int(k)
    n, d, m = inst.n, inst.d, inst.m
    Xf, Yf = inst.float_inputs(), inst.float_labels()
    A = inst.labels.num.transpose()  # m x n integers; labels = A^T / den
    t0 = T.add("conversion", t0)

    # 1. the row span of A
    rows = independent_rows(A)
    if len(rows) > k:
        raise NotRealizable(
            f"rank(labels) >= {len(rows)} > k = {k}: no network with {k} hidden units produces these labels "
            f"(rank(U f(V X)) <= k). The labels may be noisy or rounded, or k too small.",
            evidence={"rank_lower_bound": len(rows), "k": k})
    if len(rows) < k:
        r = exact_rank(A)
        if r < k:
            raise AssumptionViolated(
                f"rank(labels) = {r} < k = {k}: exact recovery needs U* of full column rank k "
                f"(then the row span of the labels is that of f(V* X)).",
                evidence={"rank": r, "k": k, "m": m},
                suggestion="fewer units (k = rank), the worst-case solver `exactrelu solve`, or, for rank < k, "
                           "note that the problem is NP-hard in general (`exactrelu hardness`).")
        rows = independent_rows(A, PRIMES[1])
    Arows = A.tolist()
    B = flint.fmpz_mat([Arows[i] for i in rows])  # k x n
    BT = B.transpose().tolist()  # n rows of k integers
    t0 = T.add("rank", t0)

    # 2. proposals and the units they point at
    Xrows = inst.inputs.num.tolist()
    xnorm = np.linalg.norm(Xf, axis=1)
    xnorm[xnorm == 0] = 1.0
    cands: list[_Candidate] = []
    rejected: list[dict] = []
    tries = 0
    sources = []

    def take(V_prop: np.ndarray, source: str) -> None:
        t1 = time.perf_counter()
        S = (Xf @ V_prop.T) / xnorm[:, None]  # normalised margins, n x rows
        active = (S > 0).sum(axis=1)
        for i in range(S.shape[1]):
            if len(cands) == k:
                break
            for order in _zero_orders(S[:, i], active - (S[:, i] > 0), k):
                cand = _unit_from_order(B, BT, order, k, source)
                if not isinstance(cand, dict):
                    break
                rejected.append(cand)
            if isinstance(cand, dict) or any(c.positive == cand.positive for c in cands):
                continue  # rejected, or the same unit twice
            cands.append(cand)
        T.add("units", t1)

    t0 = time.perf_counter()
    proposal = _run_proposer(init, k, act, random_state, Xf, Yf, d)
    tries += int(getattr(proposal[1], "n_tries_", 0) or 0)
    t0 = T.add("proposal", t0)
    sources.append(proposal[2])
    say(f"proposal '{proposal[2]}' gave {len(proposal[0])} rows")
    take(proposal[0], proposal[2])
    rounds = 0
    while len(cands) < k and rounds < 3:
        rounds += 1
        say(f"{len(cands)} of {k} units confirmed; searching for the rest")
        t0 = time.perf_counter()
        masks = [np.array([False] * n) for _ in cands]
        for mask, c in zip(masks, cands):
            mask[c.positive] = True
        seed = None if random_state is None else (hash((random_state, rounds)) & 0xFFFFFFFF)
        sp = SearchProposer(k, activation=act, random_state=seed, exclude=masks)
        try:
            sp.fit(Xf, Yf)
        except ProposalFailed as exc:
            raise _no_units(k, cands, rejected, tries, str(exc)) from None
        finally:
            tries += int(getattr(sp, "n_tries_", 0))
            T.add("proposal", t0)
        if "search" not in sources:
            sources.append("search")
        take(sp.V_, "search")
    if len(cands) < k:
        raise _no_units(k, cands, rejected, tries, "")

    # 3. V exactly, then all hidden rows at once
    t0 = time.perf_counter()
    Vrows = []
    rng = np.random.default_rng(random_state if isinstance(random_state, int) else 0)
    for c in cands:
        row, solved_on = _solve_weights(c, Xrows, act, d, rng)
        c.record.solved_on = solved_on
        Vrows.append(row)
    Vq = QMatrix.from_fractions([x for r in Vrows for x in r], k, d)
    t0 = T.add("units", t0)
    P = Vq.num * inst.inputs.num.transpose()  # k x n, V X = P / (dv dx)
    F = act.apply_fmpz_mat(P)
    _check_hidden(F, P, cands, act)
    t0 = T.add("hidden", t0)

    # 4. U from k independent columns of F, then U F == A everywhere
    cols = independent_columns(F)
    if len(cols) < k:
        raise NotRealizable(f"the {k} recovered hidden rows span only {len(cols)} dimensions", evidence={"rank": len(cols)})
    Fsel = flint.fmpz_mat([[F[i, j] for i in range(k)] for j in cols])  # k x k = F[:, cols]^T
    Asel = flint.fmpz_mat([[A[r, j] for r in range(m)] for j in cols])  # k x m
    Zq = Fsel.solve(Asel)  # F[:, cols]^T Z = A[:, cols]^T
    Znum, zden = Zq.numer_denom()
    R = Znum.transpose() * F - A * zden
    if not R.is_zero():
        raise _residual_error(R, zden, inst)
    scale = (int(Vq.den) * int(inst.inputs.den)) ** act.degree
    Uq = QMatrix(Znum.transpose() * scale, int(zden) * int(inst.labels.den))
    t0 = T.add("output", t0)

    net = Network(Uq, Vq, act).canonical()
    cert = realizes_certificate(inst, net, sha256=instance_sha256(inst), seed=random_state if isinstance(random_state, int) else None,
                                proposer="+".join(sources))
    t0 = T.add("certificate", t0)
    summary = None
    if check:
        summary = verify(cert, inst)
        T.add("independent_check", t0)
    return RecoveryResult(net, cert, T.t, tries, "+".join(sources), k, [c.record for c in cands], summary, n * m)


def _run_proposer(init, k, act, random_state, Xf, Yf, d):
    if isinstance(init, (np.ndarray, list, tuple)):
        return proposal_array(init, d), None, "weights"
    est = make_proposer(init, k, activation=act, random_state=random_state)
    if not hasattr(est, "V_"):
        est.fit(Xf, Yf)
    name = init if isinstance(init, str) else type(est).__name__
    return proposal_array(est.V_, d), est, name


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


def _unit_from_order(B, BT, order, k, source):
    """The non-negative vector of rowspan(B) vanishing on leading samples of ``order``, or a rejection dict.

    Starts from the first k-1 samples; while the vectors vanishing there form a space of
    dimension q > 1 (another unit vanishes there too, or samples are repeated), it adds the next
    sample of ``order`` at which some of those vectors is non-zero, so q drops at every step.
    """
    Z = [int(j) for j in order[: k - 1]]
    pos = k - 1
    while True:
        kern = primitive_kernel(flint.fmpz_mat([BT[j] for j in Z])) if Z else [[1]] if k == 1 else []
        if len(kern) == 1:
            break
        if len(kern) == 0:
            return {"source": source, "reason": "no vector of the row span vanishes on the proposed inactive samples",
                    "zeros": Z}
        K = (flint.fmpz_mat(kern) * B).transpose().tolist()  # n x q
        while pos < len(order) and not any(K[int(order[pos])]):
            pos += 1
        if pos >= len(order):
            return {"source": source, "reason": f"the row-span vectors vanishing on every confidently inactive sample form a "
                    f"{len(kern)}-dimensional space: inputs not in general position for this unit", "zeros": Z,
                    "nullity": len(kern)}
        Z.append(int(order[pos]))
        pos += 1
    y = flint.fmpz_mat([kern[0]]) * B
    vals = y.entries()
    pos = [j for j, v in enumerate(vals) if v > 0]
    neg = [j for j, v in enumerate(vals) if v < 0]
    if pos and neg:
        return {"source": source, "reason": "the row-span vector vanishing on the proposed samples has both signs "
                "(one of them was active)", "zeros": Z, "positive": len(pos), "negative": len(neg)}
    if neg:
        y, pos = -y, neg
    return _Candidate(y, pos, UnitRecord(Z, len(pos), [], source))


def _choose_independent(idx: list[int], Xrows, d: int, rng: np.random.Generator) -> list[int] | None:
    """d samples among ``idx`` with independent inputs: random picks, tested exactly modulo a prime."""
    if len(idx) < d:
        return None
    for _ in range(3):
        pick = sorted(int(j) for j in rng.choice(idx, size=d, replace=False))
        if rank_mod_p(flint.fmpz_mat([Xrows[j] for j in pick])) == d:
            return pick
    Xs = flint.fmpz_mat([Xrows[j] for j in idx]).transpose()
    cols = independent_columns(Xs)
    if len(cols) < d:
        return None
    return [idx[c] for c in cols[:d]]


def _solve_weights(c: _Candidate, Xrows, act: Activation, d: int, rng):
    pos = c.positive
    pick = _choose_independent(pos, Xrows, d, rng)
    if pick is None:
        raise AssumptionViolated(
            f"a unit is active on {len(pos)} samples whose inputs span fewer than d = {d} dimensions: "
            "its weights are not determined by equations alone",
            evidence={"support_size": len(pos), "d": d},
            suggestion="more samples, or the worst-case solver `exactrelu solve` (it uses linear programs)")
    yv = [int(c.y[0, j]) for j in pick]
    if act.degree == 1:
        rhs = yv
    else:
        y0 = Fraction(yv[0])
        rhs = []
        for j, v in zip(pick, yv):
            r = rational_root(Fraction(v) / y0, act.degree)
            if r is None:
                raise NotRealizable(
                    f"labels not realisable with rational weights for t^{act.degree}: the ratio of a unit's values at "
                    f"samples {j} and {pick[0]} is not a perfect {act.degree}-th power",
                    evidence={"samples": [j, pick[0]], "ratio": str(Fraction(v) / y0)})
            rhs.append(r)
    M = flint.fmpz_mat([Xrows[j] for j in pick])
    if act.degree == 1:
        sol = M.solve(flint.fmpz_mat([[v] for v in rhs]))
    else:
        sol = flint.fmpq_mat(M).solve(flint.fmpq_mat([[flint.fmpq(r.numerator, r.denominator)] for r in rhs]))
    return [Fraction(int(x.p), int(x.q)) for x in sol.entries()], pick


def _check_hidden(F, P, cands, act):
    """Row i of f(V X) must be a positive multiple of the row-span vector y_i (exact)."""
    k, n = len(cands), F.ncols()
    a = [c.y[0, c.record.solved_on[0]] for c in cands]
    b = [F[i, c.record.solved_on[0]] for i, c in enumerate(cands)]
    Da = flint.fmpz_mat([[a[i] if i == j else 0 for j in range(k)] for i in range(k)])
    Db = flint.fmpz_mat([[b[i] if i == j else 0 for j in range(k)] for i in range(k)])
    Y = flint.fmpz_mat(k, n, [v for c in cands for v in c.y.entries()])
    if all(x > 0 for x in b) and Da * F == Db * Y:
        return
    for i, c in enumerate(cands):
        a, b = c.y[0, c.record.solved_on[0]], F[i, c.record.solved_on[0]]
        row = flint.fmpz_mat([[F[i, j] for j in range(n)]])
        if b > 0 and row * a == c.y * b:
            continue
        on = [j for j in c.positive if F[i, j] * a != c.y[0, j] * b]
        off = [j for j in range(n) if c.y[0, j] == 0 and F[i, j] != 0]
        raise NotRealizable(
            f"unit {i}: the exact weights solved from {len(c.record.solved_on)} samples of its active set fail "
            f"{len(on)} equations on the active set and {len(off)} inequalities off it; the labels are not exactly "
            "realisable (noise or rounding), or the inputs are not in general position",
            evidence={"unit": i, "failing_equations": on[:10], "failing_inequalities": off[:10],
                      "n_failing": len(on) + len(off)})


def _residual_error(R, zden, inst: Instance) -> NotRealizable:
    m, n = R.nrows(), R.ncols()
    bad = [(j, r) for r in range(m) for j in range(n) if R[r, j] != 0]
    den = int(zden) * int(inst.labels.den)
    worst = max((abs(Fraction(int(R[r, j]), den)) for j, r in bad[:1000]), default=Fraction(0))
    return NotRealizable(
        f"U f(V X) differs from the labels in {len(bad)} of {n * m} entries (largest residual {float(worst):.3g}); "
        "the labels are not exactly realisable by these units (noise or rounding?)",
        evidence={"failing_entries": bad[:10], "n_failing": len(bad), "max_residual": str(worst)})


def _no_units(k, cands, rejected, tries, detail) -> ExactReluError:
    reasons = {}
    for r in rejected:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    msg = (f"found {len(cands)} of {k} units after {tries} search tries; proposals rejected exactly: "
           + ("; ".join(f"{v} x {k_}" for k_, v in reasons.items()) or "none")
           + ". The labels may be noisy or rounded (not exactly realisable), or the inputs not in general position.")
    if detail:
        msg += f" Search: {detail}"
    evidence = {"found": len(cands), "rejected": rejected[:10], "tries": tries}
    if any("nullity" in r for r in rejected):
        return AssumptionViolated(msg, evidence=evidence, suggestion="more samples, or the worst-case solver `exactrelu solve`")
    if rejected:
        return NotRealizable("no certificate: " + msg, evidence=evidence)
    return ProposalFailed("no certificate: " + msg, evidence=evidence)
