"""Steps 1 and 2 of the sparse-corruption route (:mod:`exactrelu.recover.sparse_corruption`): the exact span of U
in sparsely corrupted labels, and the decoding of each sample's clean labels from it.

Labels are given as integer numerators ``Ynum`` (n rows of m, over the labels' common denominator)
beside row-normalized floats ``Yf``, which only choose the samples and outputs to solve on; every
span coefficient and every decoded label is exact, and a sample is kept only when its decoded
labels agree exactly with more than (m + z)/2 of its entries (z: :func:`max_in_hyperplane`).

>>> import numpy as np
>>> Ynum = [[j, 2 * j, 3 * j] for j in range(1, 9)]
>>> Ynum[3][2] = 100  # one corrupted entry
>>> dec = span_and_decode(Ynum, np.array(Ynum, dtype=float), 1, np.random.default_rng(0))
>>> est, q = dec.labels[3]  # sample 3 decoded: its clean labels 4 * (1, 2, 3)
>>> len(dec.kept), [str(Fraction(e, q)) for e in est]
(8, ['4', '8', '12'])
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import NamedTuple

import flint
import numpy as np
from scipy.linalg import qr

from ..errors import AssumptionViolated
from .span_consensus import consensus, spread  # spread: re-exported (used by the route's output rows)

__all__ = ["Decoding", "span_and_decode", "max_in_hyperplane", "spread"]


class Decoding(NamedTuple):
    """The exact span basis (m rows of k rationals, identity on the base outputs), the base outputs R0, the
    decoded samples, and for each its corrected label numerators over one denominator ``{j: (est, q)}``."""

    basis: list[list]
    base: list[int]
    kept: list[int]
    labels: dict[int, tuple[list[int], int]]

    def kept_labels(self) -> tuple[list[int], dict[int, tuple[list[int], int]]]:
        """(kept samples, their corrected labels): what the noiseless step is run on."""
        return self.kept, self.labels


def span_and_decode(Ynum: list[list[int]], Yf: np.ndarray, k: int, rng: np.random.Generator,
                    tries: int = 8, through: int | None = None) -> Decoding:
    """The span whose decoding keeps the most samples, over a few base sets R0.

    The base R0 must hold k outputs whose rows of U are independent; pivoted QR of the corrupted labels
    can pick two outputs with parallel rows of U (corruptions make them look independent), and the span
    is then wrong. So R0 is drawn again (QR of random subsets of samples, then random k-subsets) until
    the decoding keeps most samples; the candidate that keeps the most is used. Only which samples to
    solve on depends on this choice: the final claim is checked entry by entry.

    ``through``: an output that is never corrupted and equal in every decoded vector (the constant output standing
    for an output bias): two decoded vectors then differ by a span vector vanishing there, so only hyperplanes
    through its row count for the agreement threshold (:func:`max_in_hyperplane`).
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
        kept, labels = _decode(Ynum, Yf, B, R0, k, rng, through)
        if best is None or len(kept) > len(best.kept):
            best = Decoding(B, R0, kept, labels)
        if len(best.kept) >= n / 2:
            break
    if best is None:
        raise last
    return best


def _span(Ynum, Yf, S, R0, k: int, rng) -> list[list]:
    """Exact basis B (m rows of k Fractions, B[R0] = I) of the labels' clean span, for the base R0."""
    m = Yf.shape[1]
    B = [[int(R0.index(r) == t) for t in range(k)] if r in R0 else None for r in range(m)]
    pool = None  # samples clean on R0 (proposed): where the first relation found holds
    for r in range(m):
        if B[r] is not None:
            continue
        if pool is not None:
            try:  # inliers need only y_r clean now: RANSAC needs (1 - p)^-k picks, not (1 - p)^-k(k+1)
                B[r], _ = _beta(Ynum, Yf, pool, R0, r, k, rng)
                continue
            except AssumptionViolated:
                pass  # the pool was captured by a part of the span, or is too small: all samples again
        B[r], support = _beta(Ynum, Yf, S, R0, r, k, rng)
        if pool is None and support is not None and len(support) >= 20 * k:
            pool = np.asarray(support, dtype=int)
    return B


def _beta(Ynum, Yf, S, R0, r: int, k: int, rng) -> tuple[list, list[int] | None]:
    """beta_r exactly, and the samples of the float consensus it came from (None for a zero row of U):
    float consensus on random k-subsets of samples (or the L1 fit, :mod:`.span_consensus`), then exact
    solves, the best kept.

    Samples whose labels vanish on R0 carry no information on beta_r (and would agree with any
    candidate), and samples with y_r = 0 agree with beta = 0 whatever y[R0] holds: both are left out. A consensus must span all k dimensions (:func:`spread`): where
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
            return [Fraction(0)] * k, None
        raise


def _beta_nonzero(Ynum, Yf, S, R0, r: int, k: int, rng) -> tuple[list, list[int]]:
    """beta_r from the samples ``S`` (all with y_r != 0): a float consensus (:func:`.span_consensus.consensus`),
    then exact solves; with the consensus' samples."""
    best = consensus(Yf[S][:, R0], Yf[S, r], k, rng)
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
        return top[1], idx
    raise AssumptionViolated(f"output {r}: no exact span coefficients hold on most of the {len(idx)} samples that "
                             "agree in floating point (corruptions too small for float64 on most of them?)",
                             evidence={"output": r, "best_exact": top[0]})



def _decode(Ynum, Yf, B, R0, k: int, rng, through: int | None = None) -> tuple[list[int], dict[int, list]]:
    """(kept samples, their corrected label numerators over a common denominator) -- see step 2."""
    n, m = Yf.shape
    need = (m + max_in_hyperplane(B, k, through=through)) // 2 + 1
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


def max_in_hyperplane(B: list[list], k: int, limit: int = 20000, through: int | None = None) -> int:
    """z: the largest number of rows of B (m x k) inside one hyperplane through 0 of Q^k, exactly.

    Two span vectors B h and B h' (h != h') are equal exactly at the rows r with B_r (h - h') = 0: rows in
    the hyperplane orthogonal to h - h'. Each hyperplane holding z rows is spanned by k - 1 of them, so
    the (k - 1)-subsets of distinct row directions are enumerated (at most ``limit``; beyond that the
    generic value for distinct directions is used, which only weakens the decoding, never the certificate:
    the final claim is checked entry by entry). With ``through`` (a non-zero row every compared vector agrees
    on) only the hyperplanes holding that row count.

    >>> B = [[1, 0], [2, 0], [0, 1]]
    >>> max_in_hyperplane(B, 2), max_in_hyperplane(B, 2, through=2)
    (2, 1)
    """
    zero = sum(1 for row in B if all(x == 0 for x in row))
    if k == 1:
        return zero
    dirs: dict[tuple, int] = {}  # primitive integer direction (sign fixed) -> number of rows
    for row in B:
        if all(x == 0 for x in row):
            continue
        key = _direction(row)
        dirs[key] = dirs.get(key, 0) + 1
    keys = list(dirs)
    if len(keys) < k - 1:
        return zero + sum(dirs.values())
    if math.comb(len(keys), k - 1) > limit:
        return zero + (k - 2) + max(dirs.values())  # heuristic: the most repeated direction plus generic others
    best = 0
    fixed = _direction(B[through]) if through is not None else None
    subsets = (itertools.combinations(keys, k - 1) if fixed is None else
               ((fixed, *S) for S in itertools.combinations([v for v in keys if v != fixed], k - 2)))
    for S in subsets:
        M = [list(v) for v in S]
        normal = [(-1) ** i * _det([row[:i] + row[i + 1:] for row in M]) for i in range(k)]
        if not any(normal):
            continue  # the k - 1 directions span less than a hyperplane
        best = max(best, sum(c for v, c in dirs.items() if sum(a * b for a, b in zip(v, normal)) == 0))
    return zero + best


def _direction(row: list) -> tuple[int, ...]:
    """The primitive integer direction of a non-zero rational row, its first non-zero entry positive."""
    den = math.lcm(*(Fraction(x).denominator for x in row))
    ints = [int(Fraction(x) * den) for x in row]
    g = math.gcd(*ints)
    ints = [v // g for v in ints]
    return tuple(-v for v in ints) if next(v for v in ints if v) < 0 else tuple(ints)


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
