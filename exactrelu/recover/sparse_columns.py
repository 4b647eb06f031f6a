"""The sparse-columns route (Bakshi, Jayaram, Woodruff 2019, fixed-parameter result): any rank of U, no proposal.

Where exactly one unit i is active, a sample's label vector is ``U[:, i] f(v_i . x_j + b_i)``: a
*positive* multiple of column i of U (the column of f(V X + b) is 1-sparse). If no two columns of U
are positive multiples of each other, these label vectors fall into one class of exact positive
proportionality per unit, while samples with two or more active units give (generically) label
directions of their own. The route:

1. groups the non-zero label vectors by their primitive integer direction (exact gcds, sign kept);
2. for each group, largest first, solves the unit's weights exactly from D = d (+1 with biases)
   samples of the group (f(w . x_j) = lambda_j, the labels' ratios to the direction; exact c-th
   roots for t^c) and verifies that equation on *every* sample of the group;
3. takes the first k groups that verify as the units, computes F = f(W X) exactly on every sample,
   solves U on k columns and verifies ``U F == labels`` on every entry (the shared final steps).

With an output bias c, a sample where exactly one unit is active has label ``c + U[:, i] f(...)`` and one where no
unit is active has label c: the route takes c to be the label vector that repeats most often (exactly), groups the
directions of ``labels - c``, and solves U and c together at the end (one exact system per output), so a wrong
guess of c is refused there, never certified. Without such repeated label vectors it refuses.

If fewer than k units already reproduce every label, the route refuses and names the smaller k (the
other units would be dead on the data). Each unit needs D samples where it alone is active; the paper shows poly(d) kappa^O(k) samples suffice
for Gaussian inputs (kappa the condition number of V), so this route is for small k. With m = 1 every
column is a scalar: it works only when k = 1, or k = 2 with outputs of opposite signs.

>>> from exactrelu.instances import planted
>>> inst = planted(d=3, k=3, m=2, n=600, seed=0, bias=1.0)
>>> res = recover_sparse_columns(inst, RecoveryRequest(k=3, bias=True))
>>> res.network.equivalent(inst.planted), res.route
(True, 'sparse-columns')
"""

from __future__ import annotations

import math
from collections import Counter

import flint
import numpy as np

from ..errors import AssumptionViolated, NotRealizable
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import Network
from .views import InputProducts, RowView, augmented
from .output_layer import certify, check_identifiable, rank_of, solve_output_layer, split_bias
from .request import RecoveryRequest
from .result import RecoveryResult, Timer, UnitRecord
from .unit_steps import Candidate, primitive_weights, solve_weights

__all__ = ["recover_sparse_columns", "direction_groups", "located_offset"]


def direction_groups(label_rows: list[list[int]]) -> list[tuple[tuple[int, ...], list[int]]]:
    """Samples grouped by the exact positive direction of their (non-zero) label vectors, largest group first.

    >>> direction_groups([[2, 4], [1, 2], [-1, -2], [0, 0], [3, 6]])
    [((1, 2), [0, 1, 4]), ((-1, -2), [2])]
    """
    groups: dict[tuple[int, ...], list[int]] = {}
    for j, y in enumerate(label_rows):
        g = 0
        for v in y:
            g = math.gcd(g, v)
        if g:
            groups.setdefault(tuple(v // g for v in y), []).append(j)
    return sorted(groups.items(), key=lambda kv: -len(kv[1]))


def recover_sparse_columns(inst: Instance, req: RecoveryRequest) -> RecoveryResult:
    """Recover U, V (and b) exactly from the samples where one unit alone is active (module doc).

    Raises
    ------
    AssumptionViolated : fewer than k label directions occur on enough samples with verified weights
        (a unit is never alone active on D samples, or two columns of U are positive multiples), or fewer
        than k units already reproduce every label (the others are not determined: a smaller k is named).
    NotRealizable : the units found do not reproduce every label (evidence: where).
    """
    say, k, bias, random_state = req.say, req.k, req.bias, req.random_state
    T = Timer()
    t0 = T.start()
    act = req.activation_for(inst)
    work = augmented(inst) if bias else inst
    D = work.d
    Ynum = [[int(v) for v in row] for row in inst.labels.num.tolist()]
    if req.output_bias:
        offset = located_offset(Ynum)
        Ynum = [[v - o for v, o in zip(row, offset)] for row in Ynum]
    t0 = T.add("conversion", t0)
    groups = direction_groups(Ynum)
    t0 = T.add("groups", t0)
    say(f"sparse-columns: {len(groups)} label directions, largest groups {[len(g) for _, g in groups[:k + 2]]}")
    units, rejected = _units(groups, Ynum, work, act, k, D, random_state)
    T.add("units", t0)
    if not units:
        raise _too_few(units, rejected, groups, k, D, inst.m)
    t0 = T.start()
    W = [c.v for c in units]
    F = act.apply_fmpz_mat(InputProducts(work.inputs).times(W))
    t0 = T.add("hidden", t0)
    try:
        Uq, cq = solve_output_layer(F, inst.labels.num.transpose(), inst, act, int(work.inputs.den), req.output_bias)
    except NotRealizable:
        if len(units) < k:
            raise _too_few(units, rejected, groups, k, D, inst.m) from None
        raise
    T.add("output", t0)
    check_identifiable(F, Uq, D)
    if len(units) < k:  # the units found reproduce every label: the others are not determined by the data
        raise _fewer(len(units), k)
    Vq = QMatrix(flint.fmpz_mat(W), 1)
    V, b = split_bias(Vq) if bias else (Vq, None)
    net, cert, summary = certify(inst, Network(Uq, V, act, b, cq), route="sparse-columns", proposer="none",
                                 random_state=random_state, check=req.check, timer=T,
                                 certificate=req.certificate)
    return RecoveryResult(net, cert, T.t, 0, "none", rank_of(inst.labels.num), [c.record for c in units], summary,
                          inst.n * inst.m, route="sparse-columns")


def located_offset(Ynum: list[list[int]]) -> list[int]:
    """The label vector (integer numerators) that occurs most often, on at least two samples: where every unit is
    inactive the label is the output bias c, so on continuous inputs a repeated label vector is c (a guess that the
    final exact solve of U and c confirms or refuses). AssumptionViolated when no label vector repeats.

    >>> located_offset([[1, 2], [3, 1], [1, 2], [5, 5]])
    [1, 2]
    """
    counts = Counter(tuple(row) for row in Ynum)
    top, times = counts.most_common(1)[0] if counts else ((), 0)
    if times < 2:
        raise AssumptionViolated(
            "sparse-columns route with an output bias: no label vector occurs twice, so the output bias c is not "
            "located (the label of a sample where every unit is inactive is c)", evidence={"repeated": 0},
            suggestion="route='linearized' (pattern-linearized, from a float proposal), or more samples")
    return list(top)


def _units(groups, Ynum, work: Instance, act, k: int, D: int, random_state):
    """The first k groups (largest first) whose exact weights satisfy their equations on D + 1 or more samples."""
    rng = np.random.default_rng(random_state if isinstance(random_state, int) else 0)
    Xrows, Xf = RowView(work.inputs), work.float_inputs()
    n = work.n
    units: list[Candidate] = []
    rejected: list[dict] = []
    for direction, members in groups:
        if len(units) == k or len(members) <= D:
            break
        r0 = next(r for r, u in enumerate(direction) if u != 0)
        sign = 1 if direction[r0] > 0 else -1
        y = [0] * n
        for j in members:
            y[j] = sign * Ynum[j][r0]  # lambda_j times a positive constant
        cand = Candidate(flint.fmpz_mat(1, n, y), 0, 1, members, UnitRecord([], len(members), [], "sparse-columns"))
        why = _confirm(cand, Xrows, act, D, rng)
        if why is not None:  # opposite columns (u, -u) put two-unit samples into the group: find its one-unit core
            cand.positive = _consensus(cand, Xf, act, D, rng)
            why = _confirm(cand, Xrows, act, D, rng, subset=True) if len(cand.positive) > D else why
        if why is None:
            cand.record.support_size = len(cand.positive)
            units.append(cand)
        else:
            rejected.append({"direction": list(direction), "samples": len(members), "reason": why})
    return units, rejected


def _confirm(c: Candidate, Xrows, act, D: int, rng, subset: bool = False) -> str | None:
    """Solve the unit's weights on D samples of its group; None if f(w . x_j) is proportional to y_j on all of it.

    With ``subset`` the group's members are a consensus found in floating point: the exactly verified
    ones are kept (at least D + 1 of them, one equation beyond those solved).
    """
    for exact in (False, True):
        try:
            row, on = solve_weights(c, Xrows, act, D, rng, exact=exact)
        except (NotRealizable, AssumptionViolated) as exc:
            return str(exc).split(":")[0]
        w = primitive_weights(row)
        vals = [act.apply_int(sum(a * b for a, b in zip(w, Xrows[j]))) for j in c.positive]
        a, bref = c.y(on[0]), act.apply_int(sum(x * y for x, y in zip(w, Xrows[on[0]])))
        good = [j for v, j in zip(vals, c.positive) if bref > 0 and v * a == c.y(j) * bref]
        if len(good) == len(c.positive) or (subset and len(good) > D):
            c.v, c.record.solved_on, c.positive = w, on, good
            return None
    return "the samples of this label direction are not the active set of one unit (mixed units)"


def _consensus(c: Candidate, Xf: np.ndarray, act, D: int, rng, tries: int = 3000) -> list[int]:
    """The largest set of the group's samples on which one unit's float weights fit (random D-subsets).

    Expected tries grow like (group size / one-unit samples)^D: meant for small D (documented).
    """
    idx = np.array(c.positive)
    vals = [int(c.y(int(j))) for j in idx]
    shift = max(0, max(v.bit_length() for v in vals) - 60)
    lam = np.array([float(v >> shift) for v in vals]) ** (1.0 / act.degree)
    X = Xf[idx]
    best = np.zeros(0, dtype=int)
    for _ in range(tries):
        pick = rng.choice(len(idx), size=D, replace=False)
        try:
            w = np.linalg.solve(X[pick], lam[pick])
        except np.linalg.LinAlgError:
            continue
        fit = X @ w
        inl = np.flatnonzero(np.abs(fit - lam) <= 1e-9 * np.abs(lam).max())
        if len(inl) > len(best):
            best = inl
            if len(best) > 0.9 * len(idx):
                break
    return [int(j) for j in idx[best]]


def _fewer(r: int, k: int) -> AssumptionViolated:
    """Labels reproduced exactly by r < k units: the other k - r are dead on the data, not determined."""
    return AssumptionViolated(
        f"the labels are reproduced exactly by {r} < k = {k} units: the other {k - r} would be dead on every "
        "sample (zero output weights or never active), so their weights are not determined by the data",
        evidence={"units_needed": r, "k": k}, suggestion=f"k = {r}")


def _too_few(units, rejected, groups, k: int, D: int, m: int) -> AssumptionViolated:
    sizes = [len(g) for _, g in groups[: k + 3]]
    hint = " With m = 1 every column of U is a scalar, so columns of one sign are positive multiples." if m == 1 else ""
    why = (f"only {len(units)} label directions occur on more than D = {D} samples with one unit's exact weights: "
           "either a unit is never the only active one on D + 1 samples, or two columns of U are positive multiples "
           "of each other (their samples then share one direction; the route assumes no such pair).")
    return AssumptionViolated(
        f"sparse-columns route: found {len(units)} of {k} units; {why}{hint} Largest direction groups: {sizes}",
        evidence={"found": len(units), "group_sizes": sizes, "rejected": rejected[:10]},
        suggestion="more samples, or route='linearized' (pattern-linearized, from a float proposal)")
