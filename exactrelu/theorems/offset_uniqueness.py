"""The uniqueness lemma with an output bias: the constant vector joins the span, and the inactive samples must
cut it too.

Papers' orientation: X = inputs.T (d x n), W = f(V X + b 1^T) (k x n), A = U W + c 1^T = labels.T (m x n), the
network of PyTorch's default ``Linear -> f -> Linear`` (hidden biases b and an output bias c).

Claim. (a) For every U, b, c and activation, ``[A; 1^T] = M [W; 1^T]`` with ``M = [[U, c], [0, 1]]``, so
rank([A; 1^T]) <= k + 1: a larger rank refutes every k-unit network with an output bias. (b) If U has full
column rank k, M has full column rank k + 1 and rowspan([A; 1^T]) = rowspan([W; 1^T]). (c) If moreover
[W; 1^T] has rank k + 1, then for every unit i and every set Z of samples where unit i is inactive,

    {y in rowspan([A; 1^T]) : y_Z = 0} = span(W_i)   if and only if   rank [W_{-i,Z}; 1_Z^T] = k,

that is, the other k - 1 units *and the constant vector* restricted to Z have rank k (so |Z| >= k is needed:
one sample more than without an output bias).

Proof. (a) Row r < m of ``M [W; 1^T]`` is U_r W + c_r 1^T = A_r, and its last row is 1^T. (b) ``M [x; t] = 0``
gives t = 0 (last row) and then U x = 0, so x = 0: M has a left inverse L, and [W; 1^T] = L [A; 1^T] puts each
row span in the other. (c) Every y in the span is a^T W + a_0 1^T for a unique (a, a_0) (rank k + 1). As W_i
vanishes on Z, y_Z = 0 iff a_{-i}^T W_{-i,Z} + a_0 1_Z^T = 0, which forces (a_{-i}, a_0) = 0, i.e. y a
multiple of W_i, exactly when [W_{-i,Z}; 1_Z^T] has rank k. QED.

Checked exactly (FLINT integers, no tolerance) on seeded planted instances with hidden biases and an output
bias (ReLU, t^2, t^3): (a) the rank of [A; 1^T] against k + 1, for random U of any rank; (b) k + 1 rows of
[A; 1^T] independent modulo a prime (so over Q) and every row of W (and 1^T) solved exactly from them; (c)
both sides computed separately, for Z = all inactive samples and for random k-subsets of them.

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
from .uniqueness_lemma import _proportional, _row
from .uniqueness_lemma import _sub_columns as _cols

CLAIM = ("Uniqueness lemma with an output bias: rank([A; 1]) <= k + 1; for U of full column rank, rowspan([A; 1]) = "
         "rowspan([W; 1]) and, for Z inactive for unit i, {y : y_Z = 0} = span(W_i) iff rank [W_{-i,Z}; 1_Z] = k")
SOURCE = "exactrelu (issue 33): the output bias c of PyTorch's Linear, extending Bakshi-Jayaram-Woodruff 2019"

ACTIVATIONS = (Activation.relu(), Activation.power(2), Activation.power(3))


def _rows(M: flint.fmpz_mat, rows: list[int]) -> flint.fmpz_mat:
    return flint.fmpz_mat([_row(M, r) for r in rows])


def _with_ones(M: flint.fmpz_mat, value: int) -> flint.fmpz_mat:
    return flint.fmpz_mat(M.tolist() + [[value] * M.ncols()])


def check_instance(inst, rng: np.random.Generator, subsets: int = 5) -> tuple[list[str], int]:
    """Check (a), (b), (c) on one planted instance (with an output bias); return (failures, units checked)."""
    net = inst.planted
    k, n = net.k, inst.n
    A1 = _with_ones(inst.labels.transpose().num, int(inst.labels.den))  # [A; 1^T] times the labels' denominator
    W = net.hidden_exact(inst.inputs).num  # k x n, f(V X + b) times one positive integer
    W1 = _with_ones(W, 1)
    if A1.rank() > k + 1:
        return [f"(a) rank([A; 1]) = {A1.rank()} > k + 1"], 0
    rows = independent_rows(A1)
    if len(rows) != k + 1 or W1.rank() != k + 1:
        return [], 0  # U or [W; 1] not of full rank: (b), (c) assume it (the caller counts these)
    B = _rows(A1, rows)
    try:
        solve_consistent(B.transpose(), W1.transpose(), what="rowspan([W; 1]) in rowspan([A; 1])")
    except Exception as exc:  # InconsistentSystem
        return [f"(b) rowspan([W; 1]) != rowspan([A; 1]): {exc}"], 0
    failures, units = [], 0
    for i in range(k):
        w = [int(W[i, j]) for j in range(n)]
        inactive = [j for j, v in enumerate(w) if v == 0]
        if len(inactive) < k or not any(w):
            continue
        units += 1
        others = _with_ones(_rows(W, [r for r in range(k) if r != i]) if k > 1 else flint.fmpz_mat(0, n), 1)
        for Z in [inactive] + [sorted(rng.choice(inactive, size=k, replace=False).tolist()) for _ in range(subsets)]:
            ker = primitive_kernel(_cols(B, Z).transpose())
            y = (flint.fmpz_mat([ker[0]]) * B).entries() if len(ker) == 1 else []
            line = len(ker) == 1 and _proportional([int(v) for v in y], w)
            if line != (_cols(others, Z).rank() == k):
                failures.append(f"(c) unit {i}, |Z| = {len(Z)}: line={line}, rank [W_(-i,Z); 1_Z] = "
                                f"{_cols(others, Z).rank()}")
    return failures, units


def _rank_bound(rng: np.random.Generator) -> list[str]:
    """(a) for output weights of any rank (zero columns, repeated columns): rank([A; 1]) <= k + 1 always."""
    k, m = int(rng.integers(1, 4)), int(rng.integers(1, 6))
    inst = planted(3, k, m, 40, seed=rng, bias=1.0, output_bias=2.0, allow_degenerate=True)
    U = rng.integers(-1, 2, (m, k))
    net = type(inst.planted).from_rows(U.tolist(), inst.planted.V, b=inst.planted.b, c=inst.planted.c)
    A1 = _with_ones(net.evaluate_exact(inst.inputs).transpose().num, int(net.evaluate_exact(inst.inputs).den))
    return [] if A1.rank() <= k + 1 else [f"(a) rank([A; 1]) = {A1.rank()} > k + 1 = {k + 1} for U = {U.tolist()}"]


def prove(trials: int = 60, seed: int = 1, subsets: int = 5) -> dict:
    """Check (a), (b), (c) on ``trials`` seeded planted instances with both biases; return the record."""
    rng = np.random.default_rng(seed)
    failures, units, skipped = [], 0, 0
    for t in range(trials):
        k = int(rng.integers(1, 5))
        d = int(rng.integers(max(2, k), 7))
        m = int(rng.integers(k, k + 3))
        n = int(rng.integers(8 * k + 10, 10 * k + 30))
        act = ACTIVATIONS[t % len(ACTIVATIONS)]
        inst = planted(d, k, m, n, activation=act, seed=rng, bias=1.0, output_bias=2.0)
        bad, u = check_instance(inst, rng, subsets)
        failures += [f"instance {t} (d={d}, k={k}, m={m}, n={n}, {act}): {b}" for b in bad]
        units += u
        skipped += int(u == 0 and not bad)
        failures += [f"rank bound {t}: {b}" for b in _rank_bound(rng)]
    return {"passed": not failures and units > 0, "failures": failures, "instances": trials, "seed": seed,
            "units_checked": units, "instances_without_full_rank": skipped}
