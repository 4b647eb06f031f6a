"""The exact steps the routes share: kernel, orientation, weight solve, confirmation.

Papers' orientation: B (k x n) holds k independent rows of A = labels.T; X = inputs.T.

* **kernel** (:func:`kernel_from_order`): the primitive c with ``c^T B`` vanishing on leading samples
  of an order (unique up to scale), adding samples while more than one direction is left;
* **orientation** (:func:`oriented`): ``y = c^T B`` must be one-signed; it is negated to be >= 0 and
  its support is the unit's active set;
* **weight solve** (:func:`solve_weights`): the unit's weights from d samples of its support
  (exact c-th roots of ratios for t^c), as primitive integers (:func:`primitive_weights`);
* **confirmation** (:func:`confirm_all`): ``f(v . x_j)`` is a positive multiple of ``y_j`` for every j.

>>> import flint
>>> B = flint.fmpz_mat([[1, 0, 2, 3], [0, 1, 1, 0]])
>>> c, Z = kernel_from_order(B, RowView(B.transpose()), [0], 2, "demo")
>>> c, Z
([0, -1], [0])
>>> cand = unit_from_order(B, RowView(B.transpose()), [0], 2, "demo")
>>> cand.positive
[1, 2]
"""

from __future__ import annotations

import itertools
import math
import operator
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from ..errors import AssumptionViolated, NotRealizable
from ..exact.linalg import independent_columns, primitive_kernel, rank_mod_p, solve_small_direction
from ..exact.rationals import rational_root
from ..network import Activation
from .views import RowView, stack_rows
from .result import UnitRecord

__all__ = ["Candidate", "kernel_from_order", "oriented", "unit_from_order", "solve_weights", "primitive_weights",
           "confirm_all"]


@dataclass
class Candidate:
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


def kernel_from_order(B, BT, order, k, source):
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
        K = RowView((flint.fmpz_mat(kern) * B).transpose())  # n x q
        while pos < len(order) and not any(K[int(order[pos])]):
            pos += 1
        if pos >= len(order):
            return {"source": source,
                    "reason": f"the row-span vectors vanishing on every confidently inactive sample form a "
                              f"{len(kern)}-dimensional space: inputs not in general position for this unit",
                    "zeros": Z, "nullity": len(kern)}
        Z.append(int(order[pos]))
        pos += 1


def oriented(Y: flint.fmpz_mat, row: int, vals: list, Z: list[int], source: str):
    """A candidate unit from the row-span vector Y[row] (entries ``vals``) if it is one-signed, else a rejection."""
    zeros = itertools.repeat(0)  # exact integer comparisons, one C-level map each (~3x faster than a comprehension)
    pos = np.flatnonzero(np.fromiter(map(operator.gt, vals, zeros), dtype=bool, count=len(vals))).tolist()
    neg = np.flatnonzero(np.fromiter(map(operator.lt, vals, zeros), dtype=bool, count=len(vals))).tolist()
    if pos and neg:
        return {"source": source, "reason": "the row-span vector vanishing on the proposed samples has both signs "
                "(one of them was active)", "zeros": Z, "positive": len(pos), "negative": len(neg)}
    if neg:
        return Candidate(Y, row, -1, neg, UnitRecord(Z, len(neg), [], source))
    return Candidate(Y, row, 1, pos, UnitRecord(Z, len(pos), [], source))


def unit_from_order(B, BT, order, k, source):
    """The non-negative vector of rowspan(B) vanishing on leading samples of ``order``, or a rejection dict."""
    kz = kernel_from_order(B, BT, order, k, source)
    if isinstance(kz, dict):
        return kz
    c, Z = kz
    y = flint.fmpz_mat([c]) * B
    return oriented(y, 0, y.entries(), Z, source)


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


def _right_hand_side(c: Candidate, pick: list[int], act: Activation) -> list:
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
                f"labels not realizable with rational weights for t^{act.degree}: the ratio of a unit's values at "
                f"samples {j} and {pick[0]} is not a perfect {act.degree}-th power",
                evidence={"samples": [j, pick[0]], "ratio": str(Fraction(v) / y0)})
        rhs.append(r)
    return rhs


def solve_weights(c: Candidate, Xrows, act: Activation, d: int, rng, exact: bool = False):
    """Weights v with v . x_j = rhs_j on d samples of the unit's support, and those samples.

    ``exact=False``: d random samples of the support, solved in floats (:func:`float_direction`, when the inputs
    are floats: no d x d matrix converted to FLINT) or else modulo a prime, and reconstructed as a direction with
    small entries (a proposal; the caller verifies it on every sample). Otherwise, or if that fails, d samples
    independent modulo a prime (so over Q) and an exact rational solve.
    """
    pos = c.positive
    if not exact and len(pos) >= d:
        pick = sorted(int(j) for j in rng.choice(pos, size=d, replace=False))
        rhs = _right_hand_side(c, pick, act)
        sol = float_direction(Xrows.floats[pick], rhs) if Xrows.floats is not None else None
        if sol is None:  # no float source, or no small direction in floats: modulo a prime (d x d converted)
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


def float_direction(A: np.ndarray, rhs: list, den: int = 1 << 12) -> list[int] | None:
    """A proposal for the direction of x with ``A x = rhs`` (A: d x d floats, rhs: exact ints or Fractions): the
    float solution divided by its largest entry, each entry's nearest fraction of denominator at most ``den``, made
    primitive integers; None when the solve fails or an entry is more than 1e-9 from its fraction. Nothing is
    decided here: the caller verifies the direction on every sample exactly (:func:`confirm_all`), and a None
    falls back to the solve modulo a prime.

    >>> A = np.array([[1.0, 2.0], [0.5, -1.0]])
    >>> float_direction(A, [2 * 10**30, -1 * 10**30 // 2]), float_direction(A, [0, 0])
    ([2, 3], None)
    >>> float_direction(np.eye(2), [1, 10007]) is None  # 1/10007: a denominator above 2^12 (the prime's solve)
    True
    """
    top = max(abs(Fraction(r)) for r in rhs)
    if top == 0:
        return None
    b = np.array([float(Fraction(r) / top) for r in rhs])
    try:
        with np.errstate(all="ignore"):
            x = np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        return None
    i = int(np.argmax(np.abs(x)))
    if not np.all(np.isfinite(x)) or x[i] == 0:
        return None
    u = (x / x[i]).tolist()
    fr = [Fraction(t).limit_denominator(den) for t in u]
    if max(abs(float(f) - t) for f, t in zip(fr, u)) > 1e-9:
        return None
    w = primitive_weights(fr)  # it must solve the system in floats too: an ill-conditioned A rounds to wrong ones
    r = A @ np.array(w, dtype=np.float64)
    lam = float(r @ b) / float(b @ b)
    return w if float(np.max(np.abs(r - lam * b))) <= 1e-9 * float(np.max(np.abs(r))) else None


def primitive_weights(row: list[Fraction]) -> list[int]:
    """The positive primitive integer multiple of a rational vector.

    >>> primitive_weights([Fraction(1, 2), Fraction(-3, 4), Fraction(0)])
    [2, -3, 0]
    """
    den = 1
    for x in row:
        den = den * x.denominator // math.gcd(den, x.denominator)
    v = [x.numerator * (den // x.denominator) for x in row]
    g = 0
    for x in v:
        g = math.gcd(g, x)
    return [x // g for x in v] if g > 1 else v


def confirm_all(cands: list[Candidate], Xrows, XT, act: Activation, d: int, rng, rejected: list) -> list[Candidate]:
    """Solve each candidate's weights exactly, then check f(v . x_j) is a positive multiple of y_j for every j.

    One product V X for all candidates (FLINT's one-row products cost about as much as a k-row one);
    each row is then checked on its own, so a false candidate is rejected without affecting the others.
    Returns the confirmed candidates (``v``, ``F`` filled in); rejections are appended to ``rejected``.
    """
    out, retry = _confirm_batch(cands, Xrows, XT, act, d, rng, rejected, exact=False)
    if retry:  # the modular shortcut did not verify: solve those exactly
        out += _confirm_batch(retry, Xrows, XT, act, d, rng, rejected, exact=True)[0]
    return out


def _solve_each(cands, Xrows, act, d, rng, rejected, exact):
    solved = []
    for c in cands:
        try:
            row, solved_on = solve_weights(c, Xrows, act, d, rng, exact=exact)
        except NotRealizable as exc:
            rejected.append({"source": c.record.source, "reason": str(exc).split(":")[0], "evidence": exc.evidence})
            continue
        c.record.solved_on = solved_on
        c.v = primitive_weights(row)
        solved.append(c)
    return solved


def _confirm_batch(cands, Xrows, XT, act, d, rng, rejected, *, exact: bool):
    solved = _solve_each(cands, Xrows, act, d, rng, rejected, exact)
    if not solved:
        return [], []
    F = XT.rectified([c.v for c in solved], act)  # r x n, f(v . x_j) exactly
    n, r = F.ncols(), len(solved)
    a = [c.y(c.record.solved_on[0]) for c in solved]
    b = [F[i, c.record.solved_on[0]] for i, c in enumerate(solved)]
    if all(x > 0 for x in b) and _all_proportional(solved, F, a, b, n):
        good = range(r)
    else:  # find the rows that fail (rare: false candidates, noisy labels)
        Ys = stack_rows([(c.Y, c.row, c.sign) for c in solved], n)
        Fe, Ye = F.entries(), Ys.entries()
        good = [i for i in range(r) if b[i] > 0 and all(Fe[i * n + j] * a[i] == Ye[i * n + j] * b[i] for j in range(n))]
    out, retry = [], []
    for i, c in enumerate(solved):
        if i in good:
            c.F, c.frow = F, i
            out.append(c)
        elif not exact:
            retry.append(c)
        else:
            rejected.append(_failed_equations(c, [F[i, j] for j in range(n)], a[i], b[i]))
    return out, retry


def _all_proportional(solved: list[Candidate], F: flint.fmpz_mat, a: list, b: list, n: int) -> bool:
    """Whether ``a_i F_i == b_i y_i`` for every row i (y_i = sign_i Y_i[row_i]), exactly, in two FLINT products.

    With g_i = gcd(a_i, b_i) (a_i, b_i > 0) this is ``(sign_i a_i / g_i) F_i == (b_i / g_i) Y_i[row_i]``: the
    same equations divided by a positive integer and multiplied by sign_i = +-1. Usually b_i divides a_i and the
    rows are every row of one Y in order, so the right side is that Y itself (no product).
    """
    g = [math.gcd(int(x), int(y)) for x, y in zip(a, b)]
    r = len(solved)
    left = flint.fmpz_mat([[int(a[i]) // g[i] * c.sign if i == j else 0 for j in range(r)]
                           for i, c in enumerate(solved)]) * F
    right = stack_rows([(c.Y, c.row, int(b[i]) // g[i]) for i, c in enumerate(solved)], n)
    return left == right


def _failed_equations(c: Candidate, Fi: list, a, b) -> dict:
    n = len(Fi)
    on = [j for j in c.positive if Fi[j] * a != c.y(j) * b]
    off = [j for j in range(n) if c.y(j) == 0 and Fi[j] != 0]
    return {"source": c.record.source,
            "reason": "the exact weights solved on d samples of the active set fail other equations "
                      "(active set) or inequalities (inactive set)",
            "failing_equations": on[:10], "failing_inequalities": off[:10], "n_failing": len(on) + len(off)}
