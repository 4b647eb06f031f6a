"""The sparse-corruption route: ``labels = U f(V X + b) + E``, E on a sparse set of entries, m > k.

Clean label vectors lie in the k-dimensional column span of U (U of full column rank k < m); a
corrupted one generically does not, but its clean coordinates still do. The route:

1. **Span.** A base set R0 of k outputs (pivoted QR of the float labels); for every other output r,
   the coefficients beta_r with ``y_jr = beta_r . y_j[R0]`` on every sample clean on R0 + {r}:
   a float consensus over random k-subsets of samples (the inliers satisfy it to rounding level),
   then beta_r solved **exactly** on k of the inliers and kept only if it holds exactly on most of them.
   This is the exact basis B (m x k) of col(U) with ``B[R0] = I``.
2. **Decoding.** For each sample, a set T of k outputs whose entries are clean (float screen over a few
   candidate sets), then exactly ``y' = B B[T]^-1 y[T]`` and the outputs where ``y'`` equals the label.
   A sample is kept, with labels y', when they agree on more than (m + z)/2 outputs, z the largest number
   of rows of B in one hyperplane of Q^k (k - 1 when any k rows are independent; more when U has zero or
   parallel rows): two different span vectors agree with each other only on such a set, so no other
   vector of the span can agree with the labels on as many outputs, and y' is the only candidate.
3. **Noiseless recovery** on the kept samples with the corrected labels (the row-span route, with
   ``bias`` and ``init`` as given).
4. **Certificate** ``realizes-except`` on the *original* labels: the network is evaluated exactly on
   every sample and the entries where it differs from the labels are listed, exactly those; the
   independent checker verifies both halves of the claim.

Nothing decided here rests on a tolerance: the float consensus only picks which samples to solve on.
A corruption of any size (1e-30 included) is found, since agreement is exact equality.

>>> from exactrelu.instances.corruption import corrupt
>>> from exactrelu.instances import planted
>>> clean = planted(d=4, k=2, m=6, n=600, seed=3)
>>> bad = corrupt(clean, 0.1, seed=0)
>>> res = recover_sparse_corruption(bad, k=2)
>>> res.network.equivalent(clean.planted), res.except_entries == [tuple(e) for e in bad.meta["corrupted"]]
(True, True)
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, Callable

import flint
import numpy as np
from scipy.linalg import qr

from ..certificates.envelope import instance_sha256, verify
from ..certificates.claims.realizes import realizes_except_certificate
from ..errors import AssumptionViolated, ExactReluError, InvalidInput
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import RELU, Activation, Network
from ..propose.search import normalize_rows
from ..certificates.claims.residual import exact_residual
from .result import RecoveryResult, Timer
from .rowspan import recover_rowspan

__all__ = ["recover_sparse_corruption"]


def recover_sparse_corruption(inst: Instance, *, k: int, activation: Activation | None = None, bias: bool = False,
                              init: Any = "auto", random_state=0, check: bool = True,
                              progress: Callable[[str], None] | None = None) -> RecoveryResult:
    """Recover U, V (and b) from labels with sparsely corrupted entries; certify ``realizes-except`` (module doc).

    Raises
    ------
    AssumptionViolated : m <= k (no redundancy to find corrupted entries), or no k-dimensional span
        holds enough of the label entries (the corruption is not sparse).
    NotRealizable : the corrected samples are not realised exactly (from the noiseless route).
    """
    say = progress or (lambda msg: None)
    T = Timer()
    t0 = T.start()
    n, m = inst.n, inst.m
    if m <= k:
        raise AssumptionViolated(
            f"sparse corruption needs more outputs than units (m > k): with m = {m} <= k = {k} every label vector "
            "lies in a k-dimensional span and corrupted entries cannot be told from clean ones",
            evidence={"m": m, "k": k}, suggestion="route='auto' without sparse noise")
    act = activation or inst.activation or RELU
    rng = np.random.default_rng(random_state if isinstance(random_state, int) else 0)
    Ynum = [[int(v) for v in row] for row in inst.labels.num.tolist()]
    Yf = normalize_rows(inst.float_labels())
    t0 = T.add("conversion", t0)
    B, R0, kept, labels = _span_and_decode(Ynum, Yf, k, rng)
    T.add("span and decoding", t0)
    say(f"sparse-corruption: {len(kept)} of {n} samples decoded")
    if len(kept) < k:
        raise AssumptionViolated(f"only {len(kept)} of {n} samples could be decoded (too many corrupted outputs each)",
                                 evidence={"decoded": len(kept)}, suggestion="more outputs m, or fewer corruptions")
    sub = _sub_instance(inst, kept, labels)
    try:
        res = recover_rowspan(sub, k=k, activation=act, bias=bias, init=init, random_state=random_state,
                              check=False, progress=progress, certificate=False)
    except InvalidInput:
        raise
    except ExactReluError as exc:
        raise type(exc)(f"sparse-corruption: on the {len(kept)} decoded samples with corrected labels: {exc}",
                        evidence=getattr(exc, "evidence", {})) from None
    t0 = T.start()
    net = _refit_outputs(inst, res.network, rng)
    T.add("output rows", t0)
    return _certify(inst, res, net, T, random_state, check, len(kept))


def _refit_outputs(inst: Instance, net, rng):
    """Each output row of U again, by exact maximum agreement with the original labels over all samples.

    The hidden layer F = f(V X + b) is known exactly; for output r the true row agrees with the labels
    wherever that output is clean, while a row fitted to a captured consensus (step 1 can be captured
    when rows of U are proportional on a subset of units) agrees only where some unit is inactive. Rows
    are proposed from k samples of a float consensus and counted exactly; the most agreeing row is kept.
    """
    F = net.hidden_exact(inst.inputs)
    Fnum, Fden, L = F.num, int(F.den), int(inst.labels.den)
    Ff, Yf = F.to_float().T, inst.float_labels()
    n, k = Ff.shape
    Ycols = inst.labels.num.transpose()
    rows = []
    for r, current in enumerate(net.U.to_fractions()):
        cands = [current] + [[x * Fraction(Fden, L) for x in u] for u in _row_candidates(Ff, Yf[:, r], Fnum, Ycols, r, k, rng)]
        rows.append(max(cands, key=lambda u: _agreement(u, Fnum, Fden, Ycols, r, L)))
    return Network(QMatrix.from_rows(rows, name="U"), net.V, net.activation, net.b).canonical()


def _row_candidates(Ff, y, Fnum, Ycols, r, k, rng, tries: int = 300) -> list[list[Fraction]]:
    """Exact rows u with ``Fnum^T u = label numerators`` on k samples of the largest float consensus."""
    n = Ff.shape[0]
    scale = float(np.abs(y).max()) or 1.0
    best = np.zeros(0, dtype=int)
    for _ in range(tries):
        pick = rng.choice(n, size=k, replace=False)
        if np.linalg.cond(Ff[pick]) > 1e8:
            continue
        u = np.linalg.solve(Ff[pick], y[pick])
        inl = np.flatnonzero(np.abs(Ff @ u - y) <= 1e-9 * scale)
        if len(inl) > len(best) and _spread(Ff[inl], k):
            best = inl
    out = []
    for _ in range(4 if len(best) >= k else 0):
        pick = [int(j) for j in rng.choice(best, size=k, replace=False)]
        M = flint.fmpz_mat([[Fnum[i, j] for i in range(k)] for j in pick])
        try:
            num, den = M.solve(flint.fmpz_mat([[Ycols[r, j]] for j in pick])).numer_denom()
        except ZeroDivisionError:
            continue
        out.append([Fraction(int(num[i, 0]), int(den)) for i in range(k)])  # Fnum u = label numerators
    return out


def _agreement(u, Fnum, Fden, Ycols, r, L) -> int:
    """Samples where sum_i u_i F_ij / Fden == labels_jr exactly."""
    den = 1
    for x in u:
        den = den * Fraction(x).denominator // math.gcd(den, Fraction(x).denominator)
    un = flint.fmpz_mat([[int(Fraction(x) * den) for x in u]])
    P = (un * Fnum).entries()
    Y = [Ycols[r, j] for j in range(Fnum.ncols())]
    return sum(1 for p, y in zip(P, Y) if p * L == y * den * Fden)


def _certify(inst, res, net, T, random_state, check, n_kept) -> RecoveryResult:
    t0 = T.start()
    resid = exact_residual(net, inst, max_listed=None)
    seed = random_state if isinstance(random_state, int) else None
    cert = realizes_except_certificate(inst, net, resid.failing, sha256=instance_sha256(inst), seed=seed,
                                       proposer=res.proposer, route="sparse-corruption", decoded_samples=n_kept)
    t0 = T.add("certificate", t0)
    summary = None
    if check:
        summary = verify(cert, inst)
        T.add("independent_check", t0)
    timings = {**{f"noiseless {k}": v for k, v in res.timings.items()}, **T.t}
    return RecoveryResult(net, cert, timings, res.tries, res.proposer, res.rank, res.units, summary,
                          inst.n * inst.m - resid.n_failing, route="sparse-corruption",
                          except_entries=[tuple(e) for e in resid.failing])


# -- 1. the span -------------------------------------------------------------------------------

def _span_and_decode(Ynum, Yf, k: int, rng, tries: int = 8):
    """(B, R0, kept, labels): the span whose decoding keeps the most samples, over a few base sets R0.

    The base R0 must hold k outputs whose rows of U are independent; pivoted QR of the corrupted labels
    can pick two outputs with parallel rows of U (corruptions make them look independent), and the span
    is then wrong. So R0 is drawn again (QR of random subsets of samples, then random k-subsets) until
    the decoding keeps most samples; the candidate that keeps the most is used. Only which samples to
    solve on depends on this choice: the final claim is checked entry by entry.
    """
    n, m = Yf.shape
    nz = np.flatnonzero(np.abs(Yf).max(axis=1) > 0)
    if len(nz) < k:
        raise AssumptionViolated(f"only {len(nz)} non-zero label vectors: the span of U cannot be found",
                                 evidence={"nonzero": len(nz)})
    S = nz if len(nz) <= 4000 else np.sort(rng.choice(nz, size=4000, replace=False))
    best, seen, last = None, set(), None
    for t in range(tries):
        if t == 0:
            R0 = qr(Yf[S], pivoting=True, mode="r")[1][:k]
        elif t < tries // 2:
            sub = rng.choice(S, size=min(len(S), max(4 * k, 40)), replace=False)
            R0 = qr(Yf[sub], pivoting=True, mode="r")[1][:k]
        else:
            R0 = rng.choice(m, size=k, replace=False)
        R0 = sorted(int(r) for r in R0)
        if tuple(R0) in seen:
            continue
        seen.add(tuple(R0))
        try:
            B = _span(Ynum, Yf, S, R0, k, rng)
        except AssumptionViolated as exc:
            last = exc
            continue
        kept, labels = _decode(Ynum, Yf, B, R0, k, rng)
        if best is None or len(kept) > len(best[2]):
            best = (B, R0, kept, labels)
        if len(best[2]) >= n / 2:
            break
    if best is None:
        raise last
    return best


def _span(Ynum, Yf, S, R0, k: int, rng) -> list[list]:
    """Exact basis B (m rows of k Fractions, B[R0] = I) of the labels' clean span, for the base R0."""
    m = Yf.shape[1]
    B = [[int(R0.index(r) == t) for t in range(k)] if r in R0 else None for r in range(m)]
    for r in range(m):
        if B[r] is None:
            B[r] = _beta(Ynum, Yf, S, R0, r, k, rng)
    return B


def _beta(Ynum, Yf, S, R0, r: int, k: int, rng) -> list:
    """beta_r exactly: float consensus on random k-subsets of samples, then exact solves, the best kept.

    Samples whose labels vanish on R0 carry no information on beta_r (and would agree with any
    candidate), and samples with y_r = 0 agree with beta = 0 whatever y[R0] holds: both are left out. A consensus must span all k dimensions (:func:`_spread`): where
    two rows of U are proportional on some units, a wrong relation holds on every sample at which
    only those units are active, and at high corruption such sets can outnumber the true one. Of a dozen exact solves on k consensus samples, the one exactly
    satisfied by the most consensus samples is kept (k samples from two units' common subspace give a
    wrong beta that still holds on part of the consensus).
    """
    # samples whose labels vanish on R0, or on r, satisfy a relation that needs fewer clean outputs
    # (beta = 0 holds wherever y_r = 0, whatever y[R0] is) and would capture the consensus: left out
    S = S[np.abs(Yf[S][:, R0]).max(axis=1) > 0]
    zero = float(np.mean(Yf[S, r] == 0)) if len(S) else 0.0
    try:
        return _beta_nonzero(Ynum, Yf, S[Yf[S, r] != 0], R0, r, k, rng)
    except AssumptionViolated:
        if zero > 0.5:  # no relation holds where y_r != 0, and y_r = 0 on most samples: a zero row of U
            return [Fraction(0)] * k
        raise


def _beta_nonzero(Ynum, Yf, S, R0, r: int, k: int, rng) -> list:
    """beta_r from the samples ``S`` (all with y_r != 0): consensus, then exact solves."""
    Z, t = Yf[S][:, R0], Yf[S, r]
    best, tries, need = np.zeros(0, dtype=int), 0, 50
    while tries < need and tries < 5000 and len(S) >= k:
        tries += 1
        pick = rng.choice(len(S), size=k, replace=False)
        if np.linalg.cond(Z[pick]) > 1e8:
            continue  # samples from a lower-dimensional part of the span (fewer active units): no information
        beta = np.linalg.solve(Z[pick], t[pick])
        inl = np.flatnonzero(np.abs(Z @ beta - t) <= 1e-9 * (1.0 + np.abs(beta).sum()))
        if len(inl) > len(best) and _spread(Z[inl], k):
            best = inl
            w = len(best) / len(S)  # adaptive stop: P(no all-inlier pick in the tries) < 1e-6
            need = int(math.log(1e-6) / math.log(max(1e-12, 1.0 - w**k))) + 1
    if len(best) < 2 * k:
        raise AssumptionViolated(
            f"no k-dimensional span of the labels holds output {r} on more than {len(best)} of {len(S)} samples: "
            "the corruption is not sparse (or U is not of full column rank, or the labels are noisy everywhere)",
            evidence={"output": r, "consensus": int(len(best)), "screened": int(len(S))})
    idx = [int(S[i]) for i in best]
    top = (0, None)
    for _ in range(12):
        pick = [idx[i] for i in rng.choice(len(idx), size=k, replace=False)]
        try:
            num, den = flint.fmpz_mat([[Ynum[j][c] for c in R0] for j in pick]).solve(
                flint.fmpz_mat([[Ynum[j][r]] for j in pick])).numer_denom()
        except ZeroDivisionError:
            continue
        bn, den = [int(num[i, 0]) for i in range(k)], int(den)
        good = sum(sum(b * Ynum[j][c] for b, c in zip(bn, R0)) == Ynum[j][r] * den for j in idx)
        if good > top[0]:
            top = (good, [Fraction(b, den) for b in bn])
    if top[0] > k and top[0] >= 0.5 * len(idx):
        return top[1]
    raise AssumptionViolated(f"output {r}: no exact span coefficients hold on most of the {len(idx)} samples that "
                             "agree in floating point (corruptions too small for float64 on most of them?)",
                             evidence={"output": r, "best_exact": top[0]})


def _spread(Z: np.ndarray, k: int) -> bool:
    """The rows of Z span k dimensions, well above rounding (a consensus from the whole span, not a part)."""
    sv = np.linalg.svd(Z[: 4 * k + 200], compute_uv=False) if len(Z) >= k else np.zeros(1)
    return len(sv) >= k and sv[k - 1] > 1e-6 * sv[0]


# -- 2. decoding --------------------------------------------------------------------------------

def _decode(Ynum, Yf, B, R0, k: int, rng) -> tuple[list[int], dict[int, list]]:
    """(kept samples, their corrected label numerators over a common denominator) -- see step 2."""
    n, m = Yf.shape
    need = (m + _max_in_hyperplane(B, k)) // 2 + 1
    Bf = np.array([[float(x) for x in row] for row in B])
    todo = np.arange(n)
    chosen: dict[tuple[int, ...], list[int]] = {}
    sets = [tuple(R0)] + [tuple(sorted(rng.choice(m, size=k, replace=False).tolist())) for _ in range(60)]
    for T in sets:
        if not len(todo):
            break
        if _singular(B, T):
            continue  # these k outputs do not determine the hidden values (exactly)
        P = Bf @ np.linalg.inv(Bf[list(T)])
        Yt = Yf[todo]
        agree = (np.abs(Yt[:, list(T)] @ P.T - Yt) <= 1e-9).sum(axis=1)
        ok = agree >= need
        if ok.any():
            chosen.setdefault(T, []).extend(int(j) for j in todo[ok])
            todo = todo[~ok]
    kept, labels = [], {}
    for T, js in chosen.items():
        _exact_group(Ynum, B, T, js, need, kept, labels)
    return sorted(kept), labels


def _max_in_hyperplane(B, k: int, limit: int = 20000) -> int:
    """z: the largest number of rows of B (m x k) inside one hyperplane through 0 of Q^k, exactly.

    Two span vectors B h and B h' (h != h') are equal exactly at the rows r with B_r (h - h') = 0: rows in
    the hyperplane orthogonal to h - h'. Each hyperplane holding z rows is spanned by k - 1 of them, so
    the (k - 1)-subsets of distinct row directions are enumerated (at most ``limit``; beyond that the
    generic value for distinct directions is used, which only weakens the decoding, never the certificate:
    the final claim is checked entry by entry).
    """
    zero = sum(1 for row in B if all(x == 0 for x in row))
    if k == 1:
        return zero
    dirs: dict[tuple, int] = {}  # primitive integer direction (sign fixed) -> number of rows
    for row in B:
        if all(x == 0 for x in row):
            continue
        den = math.lcm(*(Fraction(x).denominator for x in row))
        ints = [int(Fraction(x) * den) for x in row]
        g = math.gcd(*ints)
        ints = [v // g for v in ints]
        if next(v for v in ints if v) < 0:
            ints = [-v for v in ints]
        dirs[tuple(ints)] = dirs.get(tuple(ints), 0) + 1
    keys = list(dirs)
    if len(keys) < k - 1:
        return zero + sum(dirs.values())
    if math.comb(len(keys), k - 1) > limit:
        return zero + (k - 2) + max(dirs.values())  # heuristic: the most repeated direction plus generic others
    best = 0
    for S in itertools.combinations(keys, k - 1):
        M = [list(v) for v in S]
        normal = [(-1) ** i * _det([row[:i] + row[i + 1:] for row in M]) for i in range(k)]
        if not any(normal):
            continue  # the k - 1 directions span less than a hyperplane
        best = max(best, sum(c for v, c in dirs.items() if sum(a * b for a, b in zip(v, normal)) == 0))
    return zero + best


def _det(M: list[list[int]]) -> int:
    return int(flint.fmpz_mat(M).det()) if M else 1


def _singular(B, T) -> bool:
    """B[T] (k x k, exact) is singular."""
    rows = [[Fraction(B[t][c]) for c in range(len(T))] for t in T]
    return flint.fmpq_mat(len(T), len(T), [flint.fmpq(x.numerator, x.denominator) for r in rows for x in r]).det() == 0


def _exact_group(Ynum, B, T, js, need, kept, labels) -> None:
    """Exact y' = B B[T]^-1 y[T] for the samples ``js``; keep those agreeing on ``need`` outputs or more."""
    m, k = len(B), len(T)
    Bq = flint.fmpq_mat(m, k, [flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for row in B for x in row])
    BT = flint.fmpq_mat(k, k, [Bq[t, c] for t in T for c in range(k)])
    Pnum, q = (Bq * BT.inv()).numer_denom()
    Ysel = flint.fmpz_mat(k, len(js), [Ynum[j][t] for t in T for j in js])
    Yhat = Pnum * Ysel  # m x len(js): q * y'
    q = int(q)
    for col, j in enumerate(js):
        est = [int(Yhat[r, col]) for r in range(m)]
        if sum(e == Ynum[j][r] * q for r, e in enumerate(est)) >= need:
            kept.append(j)
            labels[j] = (est, q)


def _sub_instance(inst: Instance, kept: list[int], labels: dict) -> Instance:
    """The kept samples with corrected labels (exact, over one common denominator)."""
    m = inst.m
    Q = 1
    for _, q in labels.values():
        Q = Q * q // math.gcd(Q, q)
    flat: list[int] = []
    for j in kept:
        est, q = labels[j]
        f = Q // q
        flat.extend(e * f for e in est)
    Y = QMatrix(flint.fmpz_mat(len(kept), m, flat), Q * int(inst.labels.den))
    src = inst.inputs.float_source
    if src is not None:
        Xf = src[0][kept]
        X = QMatrix.from_numpy(Xf, name="inputs", lazy=True)
        return Instance(X, Y, inst.activation, None, Xf, None)
    return Instance(inst.inputs.take_rows(kept), Y, inst.activation, None)
