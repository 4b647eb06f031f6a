"""Exact recovery of a two-layer rectified network from noiseless labels (Bakshi et al. 2019).

Works in the papers' orientation: X = inputs.T (d x n), A = labels.T (m x n), W = f(V X).
If U has full column rank k then rowspan(A) = rowspan(W). For a set Z of samples where unit i is
inactive, {y in rowspan(A) : y_Z = 0} = span(W_i) if and only if the other units' rows restricted
to Z have rank k-1 (proved in exactrelu.theorems.uniqueness_lemma); a sample where another unit is
inactive too does not help, so samples are added to Z until one dimension is left. The algorithm:

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

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import flint
import numpy as np

from ..certificates.envelope import instance_sha256, realizes_certificate, verify
from ..errors import AssumptionViolated, ExactReluError, InvalidInput, NotRealizable, ProposalFailed
from ..exact.linalg import (PRIMES, exact_rank, independent_columns, independent_rows, primitive_kernel, rank_mod_p,
                            solve_small_direction)
from ..exact.matrix import QMatrix, fmpz_mat_from_scaled, int_times_dyadic
from ..exact.rationals import rational_root
from ..instances import Instance
from ..network import RELU, Activation, Network
from ..propose import make_proposer, proposal_array
from ..propose.search import SearchProposer, normalize_rows

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


class _RowView:
    """Rows of an fmpz_mat as lists of integers, read on demand (a full tolist() of X costs ~0.1 s per 10^6 entries).

    With ``floats`` (the float64 array the matrix was converted from, exactly ``M / 2**shift``) a row is
    rebuilt from the floats: scaling by a power of two is exact, and ~50x cheaper than indexing FLINT.
    """

    def __init__(self, M: "flint.fmpz_mat | QMatrix"):
        self.Q = M if isinstance(M, QMatrix) else None
        self._M = None if isinstance(M, QMatrix) else M
        self.c = M.shape[1] if isinstance(M, QMatrix) else M.ncols()
        self.floats, self.shift = None, 0
        src = self.Q.float_source if self.Q is not None else None
        if src is not None and src[2] <= 104 and src[1] <= 1074:
            self.floats, self.shift = src[0], src[1]  # every scaled entry is an exact integer below 2**104

    @property
    def M(self) -> flint.fmpz_mat:
        if self._M is None:
            self._M = self.Q.num
        return self._M

    def __getitem__(self, i: int) -> list:
        if self.floats is not None:
            return [int(v) for v in np.ldexp(self.floats[i], self.shift).tolist()]
        M = self.M
        return [M[i, j] for j in range(self.c)]

    def matrix(self, idx: list[int]) -> flint.fmpz_mat:
        """The rows ``idx`` as an fmpz_mat."""
        if self.floats is not None:
            return fmpz_mat_from_scaled(np.ldexp(self.floats[idx], self.shift))
        return flint.fmpz_mat([self[i] for i in idx])


class _InputProducts:
    """Exact products ``V @ Xnum.T`` (V small integers), from the float64 source by int64 limbs when it
    exists (no d x n FLINT conversion), else with FLINT."""

    def __init__(self, X: QMatrix):
        self.X, self._T = X, None

    def times(self, V: list[list[int]]) -> flint.fmpz_mat:
        src = self.X.float_source
        if src is not None:
            P = int_times_dyadic(V, *src)
            if P is not None:
                return P
        if self._T is None:
            self._T = self.X.num.transpose()
        return flint.fmpz_mat(V) * self._T


class _Timer:
    def __init__(self):
        self.t: dict[str, float] = {}

    def add(self, name: str, t0: float) -> float:
        now = time.perf_counter()
        self.t[name] = self.t.get(name, 0.0) + now - t0
        return now


@dataclass
class _Candidate:
    """A non-negative vector y of the labels' row span: y = sign * Y[row] (Y a batched product)."""

    Y: flint.fmpz_mat
    row: int
    sign: int
    positive: list[int]
    record: UnitRecord
    v: list[int] | None = None  # primitive integer weights of the unit
    F: flint.fmpz_mat | None = None  # f(v . Xnum) is F[frow], a positive multiple of y
    frow: int = 0

    def y(self, j: int):
        return self.Y[self.row, j] * self.sign


def _stack(rows: list[tuple[flint.fmpz_mat, int, int]], n: int) -> flint.fmpz_mat:
    """The matrix whose i-th row is sign_i * M_i[row_i], by selection products (no per-entry Python work)."""
    out = None
    groups: dict[int, tuple[flint.fmpz_mat, list]] = {}
    for i, (M, r, sg) in enumerate(rows):
        groups.setdefault(id(M), (M, []))[1].append((i, r, sg))
    for M, items in groups.values():
        sel = [[0] * M.nrows() for _ in rows]
        for i, r, sg in items:
            sel[i][r] = sg
        part = flint.fmpz_mat(sel) * M
        out = part if out is None else out + part
    return out if out is not None else flint.fmpz_mat(0, n)


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
    init: Any = "auto",
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
    init : the float proposal: a proposer name (``"auto"`` (default), ``"search"``, ``"gradient"``,
        ``"tensor"``, ``"ica"``; see :mod:`exactrelu.propose`), a weights file, an estimator with
        ``fit``/``V_``, or a (units x d) array of approximate weights. Units the proposal misses are
        searched for blindly.
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
    Xf, Yf = _float_view(inst, act.degree)
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
        for p in PRIMES[1:]:  # rank(A) = k over Q, so some prime shows it
            rows = independent_rows(A, p)
            if len(rows) == k:
                break
        else:  # pragma: no cover - needs three primes dividing the same minors
            raise AssumptionViolated(f"rank(labels) = {k} over Q but below k modulo {len(PRIMES)} primes")
    B = flint.fmpz_mat([[int(i == r) for i in range(m)] for r in rows]) * A  # rows of A: k x n
    BT = _RowView(B.transpose())  # rows j of B^T on demand
    t0 = T.add("rank", t0)

    # 2. proposals and the units they point at
    Xrows = _RowView(inst.inputs)
    XT = _InputProducts(inst.inputs)
    rng = np.random.default_rng(random_state if isinstance(random_state, int) else 0)
    Xn = normalize_rows(Xf)
    cands: list[_Candidate] = []
    rejected: list[dict] = []
    tries = 0
    sources = []

    def take(V_prop: np.ndarray, source: str) -> None:
        """Turn proposal rows into confirmed units: kernels first, then batched exact products and checks."""
        t1 = time.perf_counter()
        S = Xn @ V_prop.T  # normalised margins, n x rows
        active = (S > 0).sum(axis=1)
        rows = range(min(S.shape[1], 2 * k))
        orders = {i: list(_zero_orders(S[:, i], active - (S[:, i] > 0), k)) for i in rows}
        first = {}
        for i in rows:  # the preferred order of every row: kernels now, one product C B for all
            kz = _kernel_from_order(B, BT, orders[i][0], k, source)
            if isinstance(kz, dict):
                rejected.append(kz)
            else:
                first[i] = kz
        Y = flint.fmpz_mat([c for c, _ in first.values()]) * B if first else None
        ents = Y.entries() if first else []
        where = {i: r for r, i in enumerate(first)}
        new: list[_Candidate] = []
        for i in rows:
            if len(cands) + len(new) == k:
                break
            cand = None
            if i in first:
                r = where[i]
                cand = _oriented(Y, r, ents[r * n:(r + 1) * n], first[i][1], source)
            if cand is None or isinstance(cand, dict):
                if cand is not None:
                    rejected.append(cand)
                for order in orders[i][1:]:  # the other orders, one at a time
                    cand = _unit_from_order(B, BT, order, k, source)
                    if not isinstance(cand, dict):
                        break
                    rejected.append(cand)
            if isinstance(cand, _Candidate) and not any(c.positive == cand.positive for c in cands + new):
                new.append(cand)
        for c in _confirm_all(new, Xrows, XT, act, d, rng, rejected):
            if len(cands) < k:
                cands.append(c)
        T.add("units", t1)

    t0 = time.perf_counter()
    proposal = _run_proposer(init, k, act, random_state, Xf, Yf, d, progress)
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
        masks = [np.zeros(n, dtype=bool) for _ in cands]
        for mask, c in zip(masks, cands):
            mask[c.positive] = True
        if isinstance(random_state, np.random.Generator):
            seed = random_state
        else:
            seed = None if random_state is None else (int(random_state) * 1_000_003 + rounds) & 0xFFFFFFFF
        sp = SearchProposer(k, activation=act, random_state=seed, exclude=masks, progress=progress)
        try:
            sp.fit(Xf, Yf)
        except ProposalFailed as exc:
            raise _no_units(k, cands, rejected, tries, str(exc), d) from None
        finally:
            tries += int(getattr(sp, "n_tries_", 0))
            T.add("proposal", t0)
        if "search" not in sources:
            sources.append("search")
        take(sp.V_, "search")
    if len(cands) < k:
        raise _no_units(k, cands, rejected, tries, "", d)

    # 3. the confirmed units: integer rows of V and exact rows of f(V X) (scaled by dx**c)
    t0 = time.perf_counter()
    Vq = QMatrix(flint.fmpz_mat([c.v for c in cands]), 1)
    F = _stack([(c.F, c.frow, 1) for c in cands], n)
    t0 = T.add("hidden", t0)

    # 4. U from k independent columns of F, then U F == A everywhere
    cols = []
    for p in PRIMES:  # rank modulo p can only drop below the rank over Q: try another prime before concluding
        cols = independent_columns(F, p)
        if len(cols) == k:
            break
    if len(cols) < k:
        raise NotRealizable(f"the {k} recovered hidden rows span only {len(cols)} dimensions", evidence={"rank": len(cols)})
    Fsel = flint.fmpz_mat([[F[i, j] for i in range(k)] for j in cols])  # k x k = F[:, cols]^T
    Asel = flint.fmpz_mat([[A[r, j] for r in range(m)] for j in cols])  # k x m
    Zq = Fsel.solve(Asel)  # F[:, cols]^T Z = A[:, cols]^T
    Znum, zden = Zq.numer_denom()
    R = Znum.transpose() * F - A * zden
    if not R.is_zero():
        raise _residual_error(R, zden, inst)
    scale = int(inst.inputs.den) ** act.degree
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


def _float_view(inst: Instance, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Float inputs and labels for the proposers (never for claims).

    If the data are too large or small for float64 arithmetic, every sample is rescaled by a power
    of two s_j (inputs by s_j, labels by s_j**c): f is positively homogeneous of degree c, so the
    rescaled data come from the same network.
    """
    Xf, Yf = inst.float_inputs(), inst.float_labels()

    def tame(a):
        nz = np.abs(a[a != 0])
        return np.all(np.isfinite(a)) and (nz.size == 0 or (nz.max() < 1e150 and nz.min() > 1e-150))

    if tame(Xf) and tame(Yf):
        return Xf, Yf
    dx, dy = int(inst.inputs.den), int(inst.labels.den)
    Xs, Ys = [], []
    for xr, yr in zip(inst.inputs.num.tolist(), inst.labels.num.tolist()):
        e = max((int(v).bit_length() for v in xr), default=0) - dx.bit_length()
        sx, sy = Fraction(1, 2**e) if e > 0 else Fraction(2**-e), Fraction(1, 2 ** (c * e)) if e > 0 else Fraction(2 ** (-c * e))
        Xs.append([float(Fraction(int(v), dx) * sx) for v in xr])
        Ys.append([float(Fraction(int(v), dy) * sy) for v in yr])
    return np.array(Xs), np.array(Ys)


def _run_proposer(init, k, act, random_state, Xf, Yf, d, progress=None):
    if isinstance(init, (np.ndarray, list, tuple)):
        return proposal_array(init, d), None, "weights"
    est = make_proposer(init, k, activation=act, random_state=random_state)
    if progress is not None and hasattr(est, "progress") and getattr(est, "progress", None) is None:
        est.progress = progress
    if not hasattr(est, "V_"):
        est.fit(Xf, Yf)
    name = init if isinstance(init, str) else type(est).__name__
    if getattr(est, "chosen_", None):  # auto: say what it chose
        name = f"{name}:{est.chosen_}"
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


def _kernel_from_order(B, BT, order, k, source):
    """The primitive c with c^T B vanishing on leading samples of ``order`` (unique up to scale), or a rejection.

    Starts from the first k-1 samples; while the vectors vanishing there form a space of
    dimension q > 1 (another unit vanishes there too, or samples are repeated), it adds the next
    sample of ``order`` at which some of those vectors is non-zero, so q drops at every step.
    Returns ``(c, Z)`` or a rejection dict.
    """
    Z = [int(j) for j in order[: k - 1]]
    pos = k - 1
    while True:
        kern = primitive_kernel(flint.fmpz_mat([BT[j] for j in Z])) if Z else [[1]] if k == 1 else []
        if len(kern) == 1:
            return kern[0], Z
        if len(kern) == 0:
            return {"source": source, "reason": "no vector of the row span vanishes on the proposed inactive samples",
                    "zeros": Z}
        K = _RowView((flint.fmpz_mat(kern) * B).transpose())  # n x q
        while pos < len(order) and not any(K[int(order[pos])]):
            pos += 1
        if pos >= len(order):
            return {"source": source, "reason": f"the row-span vectors vanishing on every confidently inactive sample form a "
                    f"{len(kern)}-dimensional space: inputs not in general position for this unit", "zeros": Z,
                    "nullity": len(kern)}
        Z.append(int(order[pos]))
        pos += 1


def _oriented(Y: flint.fmpz_mat, row: int, vals: list, Z: list[int], source: str):
    """A candidate unit from the row-span vector Y[row] (entries ``vals``) if it is one-signed, else a rejection."""
    pos = [j for j, v in enumerate(vals) if v > 0]
    neg = [j for j, v in enumerate(vals) if v < 0]
    if pos and neg:
        return {"source": source, "reason": "the row-span vector vanishing on the proposed samples has both signs "
                "(one of them was active)", "zeros": Z, "positive": len(pos), "negative": len(neg)}
    if neg:
        return _Candidate(Y, row, -1, neg, UnitRecord(Z, len(neg), [], source))
    return _Candidate(Y, row, 1, pos, UnitRecord(Z, len(pos), [], source))


def _unit_from_order(B, BT, order, k, source):
    """The non-negative vector of rowspan(B) vanishing on leading samples of ``order``, or a rejection dict."""
    kz = _kernel_from_order(B, BT, order, k, source)
    if isinstance(kz, dict):
        return kz
    c, Z = kz
    y = flint.fmpz_mat([c]) * B
    return _oriented(y, 0, y.entries(), Z, source)


def _choose_independent(idx: list[int], Xrows, d: int, rng: np.random.Generator):
    """d samples among ``idx`` with independent inputs: random picks, tested exactly modulo a prime."""
    if len(idx) < d:
        return None
    for _ in range(3):
        pick = sorted(int(j) for j in rng.choice(idx, size=d, replace=False))
        M = Xrows.matrix(pick)
        if rank_mod_p(M) == d:
            return pick, M
    Xs = Xrows.matrix(list(idx)).transpose()
    cols = independent_columns(Xs)
    if len(cols) < d:
        return None
    pick = [idx[c] for c in cols[:d]]
    return pick, Xrows.matrix(pick)


def _right_hand_side(c: _Candidate, pick: list[int], act: Activation) -> list:
    """The values v . x_j must take on the chosen samples: y_j (ReLU) or (y_j / y_j0)^(1/c) (t^c), exactly."""
    yv = [int(c.y(j)) for j in pick]
    if act.degree == 1:
        return yv
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
    return rhs


def _solve_weights(c: _Candidate, Xrows, act: Activation, d: int, rng, exact: bool = False):
    """Weights v with v . x_j = rhs_j on d samples of the unit's support, and those samples.

    ``exact=False``: d random samples of the support, solved modulo a prime and reconstructed as a
    direction with small entries (a proposal; the caller verifies it on every sample). Otherwise, or if
    that fails, d samples independent modulo a prime (so over Q) and an exact rational solve.
    """
    pos = c.positive
    if not exact and len(pos) >= d:
        pick = sorted(int(j) for j in rng.choice(pos, size=d, replace=False))
        rhs = _right_hand_side(c, pick, act)
        sol = solve_small_direction(Xrows.matrix(pick), rhs)  # None if singular modulo p
        if sol is not None:  # a direction: orient it so that v . x > 0 where the unit is active
            if sum(a * int(x) for a, x in zip(sol, Xrows[pick[0]])) < 0:
                sol = [-a for a in sol]
            return sol, pick
    chosen = _choose_independent(pos, Xrows, d, rng)
    if chosen is None:
        raise AssumptionViolated(
            f"a unit is active on {len(pos)} samples whose inputs span fewer than d = {d} dimensions: "
            "its weights are not determined by equations alone",
            evidence={"support_size": len(pos), "d": d},
            suggestion="more samples, or the worst-case solver `exactrelu solve` (it uses linear programs)")
    pick, M = chosen
    rhs = _right_hand_side(c, pick, act)
    if act.degree == 1:
        sol = M.solve(flint.fmpz_mat([[v] for v in rhs]))
    else:
        sol = flint.fmpq_mat(M).solve(flint.fmpq_mat([[flint.fmpq(r.numerator, r.denominator)] for r in rhs]))
    return [Fraction(int(x.p), int(x.q)) for x in sol.entries()], pick


def _primitive_weights(row: list[Fraction]) -> list[int]:
    """The positive primitive integer multiple of a rational vector."""
    den = 1
    for x in row:
        den = den * x.denominator // math.gcd(den, x.denominator)
    v = [x.numerator * (den // x.denominator) for x in row]
    g = 0
    for x in v:
        g = math.gcd(g, x)
    return [x // g for x in v] if g > 1 else v


def _confirm_all(cands: list[_Candidate], Xrows, XT, act: Activation, d: int, rng, rejected: list) -> list[_Candidate]:
    """Solve each candidate's weights exactly, then check f(v . x_j) is a positive multiple of y_j for every j.

    One product V X for all candidates (FLINT's one-row products cost about as much as a k-row one);
    each row is then checked on its own, so a false candidate is rejected without affecting the others.
    Returns the confirmed candidates (``v``, ``f`` filled in); rejections are appended to ``rejected``.
    """
    out, retry = _confirm_batch(cands, Xrows, XT, act, d, rng, rejected, exact=False)
    if retry:  # the modular shortcut did not verify: solve those exactly
        out += _confirm_batch(retry, Xrows, XT, act, d, rng, rejected, exact=True)[0]
    return out


def _confirm_batch(cands, Xrows, XT, act, d, rng, rejected, *, exact: bool):
    solved = []
    for c in cands:
        try:
            row, solved_on = _solve_weights(c, Xrows, act, d, rng, exact=exact)
        except NotRealizable as exc:
            rejected.append({"source": c.record.source, "reason": str(exc).split(":")[0], "evidence": exc.evidence})
            continue
        c.record.solved_on = solved_on
        c.v = _primitive_weights(row)
        solved.append(c)
    if not solved:
        return [], []
    F = act.apply_fmpz_mat(XT.times([c.v for c in solved]))  # r x n
    n, r = F.ncols(), len(solved)
    a = [c.y(c.record.solved_on[0]) for c in solved]
    b = [F[i, c.record.solved_on[0]] for i, c in enumerate(solved)]
    diag = lambda w: flint.fmpz_mat([[w[i] if i == j else 0 for j in range(r)] for i in range(r)])  # noqa: E731
    Ys = _stack([(c.Y, c.row, c.sign) for c in solved], n)
    if all(x > 0 for x in b) and diag(a) * F == diag(b) * Ys:  # every row: F_i a_i == y_i b_i
        good = range(r)
    else:  # find the rows that fail (rare: false candidates, noisy labels)
        Fe, Ye = F.entries(), Ys.entries()
        good = [i for i in range(r) if b[i] > 0 and all(Fe[i * n + j] * a[i] == Ye[i * n + j] * b[i] for j in range(n))]
    out, retry = [], []
    for i, c in enumerate(solved):
        if i in good:
            c.F, c.frow = F, i
            out.append(c)
            continue
        if not exact:
            retry.append(c)
            continue
        Fi = [F[i, j] for j in range(n)]
        on = [j for j in c.positive if Fi[j] * a[i] != c.y(j) * b[i]]
        off = [j for j in range(n) if c.y(j) == 0 and Fi[j] != 0]
        rejected.append({"source": c.record.source,
                         "reason": "the exact weights solved on d samples of the active set fail other equations "
                                   "(active set) or inequalities (inactive set)",
                         "failing_equations": on[:10], "failing_inequalities": off[:10], "n_failing": len(on) + len(off)})
    return out, retry


def _residual_error(R, zden, inst: Instance) -> NotRealizable:
    m, n = R.nrows(), R.ncols()
    bad = [(j, r) for r in range(m) for j in range(n) if R[r, j] != 0]
    den = int(zden) * int(inst.labels.den)
    worst = max((abs(Fraction(int(R[r, j]), den)) for j, r in bad[:1000]), default=Fraction(0))
    return NotRealizable(
        f"U f(V X) differs from the labels in {len(bad)} of {n * m} entries (largest residual {float(worst):.3g}); "
        "the labels are not exactly realisable by these units (noise or rounding?)",
        evidence={"failing_entries": bad[:10], "n_failing": len(bad), "max_residual": str(worst)})


def _no_units(k, cands, rejected, tries, detail, d=None) -> ExactReluError:
    reasons = {}
    for r in rejected:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    msg = (f"found {len(cands)} of {k} units after {tries} search tries; proposals rejected exactly: "
           + ("; ".join(f"{v} x {k_}" for k_, v in reasons.items()) or "none")
           + ". The labels may be noisy or rounded (not exactly realisable), or the inputs not in general position.")
    if detail:
        msg += f" Search: {detail}"
    if d is not None and k > d:
        msg += (f" Note k = {k} > d = {d}: the recovery theorem assumes V* of full row rank k <= d; "
                "the worst-case solver `exactrelu solve` makes no such assumption.")
    evidence = {"found": len(cands), "rejected": rejected[:10], "tries": tries}
    if any("nullity" in r for r in rejected):
        return AssumptionViolated(msg, evidence=evidence, suggestion="more samples, or the worst-case solver `exactrelu solve`")
    if rejected:
        return NotRealizable("no certificate: " + msg, evidence=evidence)
    return ProposalFailed("no certificate: " + msg, evidence=evidence)
