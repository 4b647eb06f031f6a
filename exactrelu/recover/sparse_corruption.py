"""The sparse-corruption route: ``labels = U f(V X + b) + E``, E on a sparse set of entries, m > k.

Clean label vectors lie in the k-dimensional column span of U (U of full column rank k < m); a
corrupted one generically does not, but its clean coordinates still do. The route:

1. **Span** (:mod:`exactrelu.recover.sparse_decoding`, as step 2). A base set R0 of k outputs (pivoted QR of the float labels); for every other output r,
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

With an output bias c the clean label vectors lie in the affine span ``c + col(U)``: the route appends a constant
output 1 to every label vector (never corrupted), so that ``[y; 1]`` lies in the (k + 1)-dimensional column span of
``[[U, c], [0, 1]]``, runs steps 1 and 2 on m + 1 outputs and k + 1 dimensions, keeps the samples whose decoded
constant is exactly 1, and recovers c with U in step 3.

Nothing decided here rests on a tolerance: the float consensus only picks which samples to solve on.
A corruption of any size (1e-30 included) is found, since agreement is exact equality.

>>> from exactrelu.instances.corruption import corrupt
>>> from exactrelu.instances import planted
>>> clean = planted(d=4, k=2, m=6, n=600, seed=3)
>>> bad = corrupt(clean, 0.1, seed=0)
>>> res = recover_sparse_corruption(bad, RecoveryRequest(k=2))
>>> res.network.equivalent(clean.planted), res.except_entries == [tuple(e) for e in bad.meta["corrupted"]]
(True, True)
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from ..certificates.claims.realizes import except_extent, realizes_except_certificate
from ..certificates.claims.residual import exact_residual
from ..certificates.envelope import instance_sha256, verify
from ..errors import AssumptionViolated, ExactReluError, InvalidInput
from ..exact.matrix import QMatrix
from ..exact.rationals import format_rational
from ..instances import Instance
from ..network import Network
from ..propose.floats import normalize_rows
from .request import RecoveryRequest
from .result import RecoveryResult, Timer
from .rowspan import recover_rowspan
from .views import ones_row
from .sparse_decoding import max_in_hyperplane, span_and_decode, spread

__all__ = ["recover_sparse_corruption", "default_max_except"]


def recover_sparse_corruption(inst: Instance, req: RecoveryRequest) -> RecoveryResult:
    """Recover U, V (and b) from labels with sparsely corrupted entries; certify ``realizes-except`` (module doc).

    Raises
    ------
    AssumptionViolated : m <= k (no redundancy to find corrupted entries), or no k-dimensional span
        holds enough of the label entries (the corruption is not sparse).
    NotRealizable : the corrected samples are not realized exactly (from the noiseless route).
    """
    say, k, random_state = req.say, req.k, req.random_state
    T = Timer()
    t0 = T.start()
    n, m = inst.n, inst.m
    if m <= k:
        raise AssumptionViolated(
            f"sparse corruption needs more outputs than units (m > k): with m = {m} <= k = {k} every label vector "
            "lies in a k-dimensional span and corrupted entries cannot be told from clean ones",
            evidence={"m": m, "k": k}, suggestion="route='auto' without sparse noise")
    act = req.activation_for(inst)
    rng = np.random.default_rng(random_state if isinstance(random_state, int) else 0)
    Ynum = [[int(v) for v in row] for row in inst.labels.num.tolist()]
    Yf = inst.float_labels()
    off = int(req.output_bias)  # an output bias: one more output, the constant 1 (label numerator = den)
    if off:
        den = int(inst.labels.den)
        Ynum, Yf = [row + [den] for row in Ynum], np.hstack([Yf, np.ones((n, 1))])
    t0 = T.add("conversion", t0)
    decoding = span_and_decode(Ynum, normalize_rows(Yf), k + off, rng, through=m if off else None)
    kept, labels = decoding.kept_labels()
    if off:  # the decoded constant must be exactly 1; it is then dropped
        kept = [j for j in kept if labels[j][0][-1] == labels[j][1] * den]
        labels = {j: (labels[j][0][:-1], labels[j][1]) for j in kept}
    z = max_in_hyperplane(decoding.basis, k + off, through=m if off else None)
    bound = req.max_except if req.max_except is not None else default_max_except(m, z, off)
    T.add("span and decoding", t0)
    say(f"sparse-corruption: {len(kept)} of {n} samples decoded")
    if len(kept) < k:
        raise AssumptionViolated(f"only {len(kept)} of {n} samples could be decoded (too many corrupted outputs each)",
                                 evidence={"decoded": len(kept)}, suggestion="more outputs m, or fewer corruptions")
    sub = _sub_instance(inst, kept, labels)
    try:
        res = recover_rowspan(sub, req.but(activation=act, check=False), certificate=False)
    except InvalidInput:
        raise
    except ExactReluError as exc:
        raise type(exc)(f"sparse-corruption: on the {len(kept)} decoded samples with corrected labels: {exc}",
                        evidence=getattr(exc, "evidence", {})) from None
    t0 = T.start()
    net = _refit_outputs(inst, res.network, rng, bool(off))
    T.add("output rows", t0)
    return _certify(inst, req, res, net, T, len(kept), bound)


def _refit_outputs(inst: Instance, net, rng, offset: bool = False):
    """Each output row of U (of [U c] with ``offset``) again, by exact maximum agreement with the original labels
    over all samples.

    The hidden layer F = f(V X + b) is known exactly; for output r the true row agrees with the labels
    wherever that output is clean, while a row fitted to a captured consensus (step 1 can be captured
    when rows of U are proportional on a subset of units) agrees only where some unit is inactive. Rows
    are proposed from k samples of a float consensus and counted exactly; the most agreeing row is kept.
    """
    F = net.hidden_exact(inst.inputs)
    Fnum, Fden, L = F.num, int(F.den), int(inst.labels.den)
    Ff, Yf = F.to_float().T, inst.float_labels()
    current_rows = net.U.to_fractions()
    if offset:  # the constant unit: a row of ones (Fden / Fden), its output weights c
        Fnum, Ff = ones_row(Fnum, Fden), np.hstack([Ff, np.ones((Ff.shape[0], 1))])
        current_rows = [row + [c] for row, c in zip(current_rows, net.c_fractions())]
    n, k = Ff.shape
    Ycols = inst.labels.num.transpose()
    rows = []
    for r, current in enumerate(current_rows):
        cands = [current] + [[x * Fraction(Fden, L) for x in u] for u in _row_candidates(Ff, Yf[:, r], Fnum, Ycols, r, k, rng)]
        rows.append(max(cands, key=lambda u: _agreement(u, Fnum, Fden, Ycols, r, L)))
    c = [row.pop() for row in rows] if offset else None
    return Network.from_rows(rows, net.V, net.activation, net.b, c).canonical()


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
        if len(inl) > len(best) and spread(Ff[inl], k):
            best = inl
    out: list[list[Fraction]] = []
    attempts = 0
    # a sample where no unit is active (or only units the other picks share) agrees with every row: a pick of
    # such samples is singular. Up to 40 picks, well conditioned in floats, for 4 exact rows (issue 23: with
    # 4 picks and no such screen, all 4 were singular at frac = 0.2, bias = 1, seed = 0, and a wrong row stayed)
    while len(best) >= k and len(out) < 4 and attempts < 40:
        attempts += 1
        pick = [int(j) for j in rng.choice(best, size=k, replace=False)]
        if np.linalg.cond(Ff[pick]) > 1e8:
            continue
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


def default_max_except(m: int, z: int, offset: int = 0) -> Fraction:
    """The route's guarantee as a bound on the excepted fraction: a sample with at most
    ``m - (m + z) // 2 - 1`` corrupted outputs is decoded uniquely (step 2; z = k - 1 when any k rows of U are
    independent, so ``floor((m - k) / 2)``), taken as a fraction of the m outputs of a sample. With an output bias
    (``offset`` = 1) the decoding runs on m + 1 outputs, the constant one never corrupted.

    >>> default_max_except(24, 5), default_max_except(6, 1), default_max_except(3, 1), default_max_except(6, 2, 1)
    (Fraction(3, 8), Fraction(1, 3), Fraction(0, 1), Fraction(1, 3))
    """
    outputs = m + offset
    return min(Fraction(1), Fraction(max(0, outputs - (outputs + z) // 2 - 1), m))


def _bounded(n_except: int, total: int, bound: Fraction, given: bool) -> None:
    """Refuse (nothing certified) a claim excepting every entry, or more than ``bound`` of them."""
    extent = except_extent(n_except, total)
    if n_except == total:
        raise AssumptionViolated(
            f"the network found differs from the labels at every entry ({extent}): a realizes-except claim would "
            "say nothing, so none is certified.", evidence={"excepted": n_except, "entries": total},
            suggestion="more outputs m, fewer corruptions, or another k.")
    if n_except > bound * total:
        why = "the bound given" if given else "the route's decoding guarantee, default_max_except"
        raise AssumptionViolated(
            f"{extent}: more than max_except = {format_rational(bound)} allows ({why}); nothing certified.",
            evidence={"excepted": n_except, "entries": total, "max_except": bound},
            suggestion="max_except=... (--max-except FRACTION) to certify a claim excepting more entries.")


def _certify(inst, req: RecoveryRequest, res, net, T, n_kept, bound: Fraction) -> RecoveryResult:
    random_state, check = req.random_state, req.check
    t0 = T.start()
    resid = exact_residual(net, inst, max_listed=None)
    _bounded(resid.n_failing, inst.n * inst.m, bound, req.max_except is not None)
    seed = random_state if isinstance(random_state, int) else None
    cert = realizes_except_certificate(inst, net, resid.failing, sha256=instance_sha256(inst), seed=seed, max_except=bound,
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
