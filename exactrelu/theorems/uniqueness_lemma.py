"""The uniqueness lemma behind exact recovery: exactly when inactive samples pin down a unit.

Papers' orientation: X = inputs.T is d x n, W = f(V X) is k x n, A = U W = labels.T is m x n.

Claim. Let U have full column rank k and W rank k. Then rowspan(A) = rowspan(W), and for every
unit i and every set Z of samples at which unit i is inactive (W_ij = 0 for j in Z),

    {y in rowspan(A) : y_Z = 0} = span(W_i)   if and only if   rank W_{-i,Z} = k - 1,

W_{-i,Z} being the other k - 1 rows of W restricted to Z. Consequences: (1) |Z| >= k - 1 is
necessary; k - 1 inactive samples suffice exactly when that (k - 1) x (k - 1) block is
non-singular, which fails whenever one of them is inactive for another unit too, so "any k - 1
inactive samples" is *not* enough even for Gaussian inputs (the record measures how often a random
(k - 1)-subset works). (2) With Z = all samples inactive for unit i this is the lemma of Bakshi,
Jayaram and Woodruff (the vectors of rowspan(A) supported inside supp(W_i) are the multiples of
W_i); it holds with high probability for Gaussian inputs but not for every input in general
position: it fails when another unit's support is nested in supp(W_i) (that row of W_{-i,Z} is
then 0), which random planted instances with n ~ 40 do show (the record lists each case with its
nested pair).

Source: Bakshi, Jayaram, Woodruff (COLT 2019), exact recovery for rank(A) = k. An earlier
statement of ours, "generically: any k - 1 samples of Z", is corrected here.

Proof, for all inputs: rank(U) = k gives rowspan(A) = rowspan(W), and every y in it is c^T W for
a unique c (rank W = k). As W_i vanishes on Z, y_Z = 0 iff c_{-i}^T W_{-i,Z} = 0, which forces
c_{-i} = 0 (y a multiple of W_i) iff W_{-i,Z} has rank k - 1.
Checked exactly (FLINT integers, no tolerance) on ``trials`` seeded planted instances with
Gaussian inputs (exactrelu.instances.planted; ReLU, t^2, t^3): rank(A) = k (k rows of A
independent modulo a prime, so over Q), every row of W solved exactly from those rows, and the
equivalence for Z = all inactive samples and for random (k - 1)-subsets of them, each side
computed separately (kernel of the basis on Z; rank of W_{-i,Z}).

>>> rec = prove(trials=2)
>>> rec["passed"], rec["units_checked"] > 0
(True, True)
"""

from __future__ import annotations

import flint
import numpy as np

from ..exact.linalg import independent_rows, primitive_kernel, solve_consistent
from ..instances import planted
from ..network import Activation

CLAIM = ("Uniqueness lemma, exact form: for Z inactive for unit i, {y in rowspan(A) : y_Z = 0} = span(W_i) "
         "iff rank W_{-i,Z} = k-1 (rank U = k); k-1 inactive samples do not always suffice")
SOURCE = "Bakshi-Jayaram-Woodruff, COLT 2019 (exact recovery for rank(A) = k)"

ACTIVATIONS = (Activation.relu(), Activation.power(2), Activation.power(3))


def _sub_columns(M: flint.fmpz_mat, cols: list[int]) -> flint.fmpz_mat:
    return flint.fmpz_mat(M.nrows(), len(cols), [M[r, j] for r in range(M.nrows()) for j in cols])


def _row(M: flint.fmpz_mat, i: int) -> list[int]:
    return [int(M[i, j]) for j in range(M.ncols())]


def _restricted_kernel(B: flint.fmpz_mat, Z: list[int]) -> list[list[int]]:
    """Basis of {c : (c^T B)_Z = 0}."""
    if not Z:
        return [[int(i == j) for j in range(B.nrows())] for i in range(B.nrows())]
    return primitive_kernel(_sub_columns(B, Z).transpose())


def _combine(c: list[int], B: flint.fmpz_mat) -> list[int]:
    return [sum(c[r] * int(B[r, j]) for r in range(B.nrows())) for j in range(B.ncols())]


def _proportional(y: list[int], w: list[int]) -> bool:
    """y = a w exactly for some a != 0 (all 2 x 2 minors vanish, both non-zero)."""
    if not any(y) or not any(w):
        return False
    j = next(j for j, v in enumerate(w) if v != 0)
    return all(y[t] * w[j] == w[t] * y[j] for t in range(len(w)))


def check_instance(inst, rng: np.random.Generator, subsets: int = 5) -> tuple[list[str], int, dict]:
    """Check (a) and (b) on one planted instance; return (failures, units checked, subset counts)."""
    net = inst.planted
    k = net.k
    A = inst.labels.transpose().num  # m x n, integer (common denominator dropped: same spans)
    W = net.hidden_exact(inst.inputs).num  # k x n
    rows = independent_rows(A)
    if len(rows) != k:
        return [f"rank(A) = {len(rows)} modulo p, expected k = {k}"], 0, {}
    B = flint.fmpz_mat([_row(A, r) for r in rows])  # k x n basis of rowspan(A)
    try:
        solve_consistent(B.transpose(), W.transpose(), what="rowspan(W) in rowspan(A)")
    except Exception as exc:  # InconsistentSystem: some row of W is outside rowspan(A)
        return [f"rowspan(W) != rowspan(A): {exc}"], 0, {}
    failures, units = [], 0
    stats = {"subsets": 0, "subsets_spanning": 0, "lemma_held": 0, "lemma_failed": []}
    supports = [{j for j in range(W.ncols()) if W[r, j] != 0} for r in range(k)]
    for i in range(k):
        w = _row(W, i)
        inactive = [j for j, v in enumerate(w) if v == 0]
        if len(inactive) < k - 1 or not any(w):
            continue  # too few inactive samples (or a dead unit): nothing to check
        units += 1
        others = [r for r in range(k) if r != i]
        Wo = flint.fmpz_mat([_row(W, r) for r in others]) if others else None
        Zs = [inactive] + [sorted(rng.choice(inactive, size=k - 1, replace=False).tolist()) for _ in range(subsets)]
        for s, Z in enumerate(Zs):
            ker = _restricted_kernel(B, Z)
            line = len(ker) == 1 and _proportional(_combine(ker[0], B), w)
            block_rank = _sub_columns(Wo, Z).rank() if others and Z else 0
            if line != (block_rank == k - 1):
                failures.append(f"unit {i}, |Z| = {len(Z)}: line={line} but rank W_(-i,Z) = {block_rank}")
            if s == 0:
                if line:
                    stats["lemma_held"] += 1
                else:
                    nested = [j for j in others if supports[j] <= supports[i]]
                    stats["lemma_failed"].append({"unit": i, "nested_supports": nested})
            else:
                stats["subsets"] += 1
                stats["subsets_spanning"] += int(line)
    return failures, units, stats


def prove(trials: int = 100, seed: int = 1, subsets: int = 5) -> dict:
    """Check the equivalence on ``trials`` seeded planted instances; return the record."""
    rng = np.random.default_rng(seed)
    failures, units, held, lemma_failed = [], 0, 0, []
    by_k: dict[str, list[int]] = {}
    for t in range(trials):
        k = int(rng.integers(1, 5))
        d = int(rng.integers(max(2, k), 7))
        m = int(rng.integers(k, k + 3))
        n = int(rng.integers(6 * k + 10, 8 * k + 30))
        act = ACTIVATIONS[t % len(ACTIVATIONS)]
        inst = planted(d, k, m, n, activation=act, seed=rng)
        bad, u, stats = check_instance(inst, rng, subsets)
        failures += [f"instance {t} (d={d}, k={k}, m={m}, n={n}, {act}): {b}" for b in bad]
        units += u
        held += stats.get("lemma_held", 0)
        lemma_failed += [dict(f, instance=t, d=d, k=k, n=n) for f in stats.get("lemma_failed", [])]
        tot = by_k.setdefault(str(k), [0, 0])
        tot[0] += stats.get("subsets_spanning", 0)
        tot[1] += stats.get("subsets", 0)
    return {"passed": not failures and units > 0, "failures": failures, "instances": trials, "seed": seed,
            "units_checked": units,
            "bjw_lemma_all_inactive": {"held": held, "failed": lemma_failed},
            "random_k_minus_1_subsets_giving_the_line_by_k": {k: f"{a}/{b}" for k, (a, b) in sorted(by_k.items())}}
