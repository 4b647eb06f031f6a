"""The exact steps every route ends with: the label basis, the output layer, the final verification, the certificate.

* :func:`label_rows`: k rows of ``A = labels.T`` independent over Q (modulo a prime), or the exact
  rank with a specific error (rank > k refutes any k-unit network; rank < k breaks the row-span route);
* :func:`solve_output`: U from k independent columns of ``F = f(V X)`` (exact integers), then
  ``U F == A`` verified on **every** entry (:func:`residual_error` locates failures);
* :func:`certify`: the canonical network, its ``realizes`` certificate (hidden biases in ``b``, the
  route in the provenance), and the independent checker's verdict.

>>> import flint
>>> label_rows(flint.fmpz_mat([[1, 2, 3], [2, 4, 6]]), 1)
[0]
>>> split_bias(QMatrix.from_rows([[1, 2, 3], [4, 5, 0]]))[1].to_fractions()
[[Fraction(3, 1)], [Fraction(0, 1)]]
"""

from __future__ import annotations

from fractions import Fraction

import flint

from ..certificates.envelope import instance_sha256, verify
from ..certificates.trusted.common import approx, display
from ..certificates.claims.realizes import realizes_certificate
from ..errors import AssumptionViolated, ExactReluError, NotRealizable, ProposalFailed
from ..exact.linalg import PRIMES, exact_rank, independent_columns, independent_rows
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import RELU, Activation, Network  # noqa: F401 (RELU: the doctests)
from .views import ones_row

__all__ = ["label_rows", "offset_label_rows", "solve_output", "solve_output_layer", "residual_error", "no_units",
           "certify", "split_bias", "rank_of", "check_identifiable"]


def rank_of(A: flint.fmpz_mat) -> int:
    """Exact rank of an integer matrix: modulo primes first (a lower bound), exactly only if they disagree with min(shape)."""
    best = 0
    for p in PRIMES:
        best = max(best, len(independent_rows(A, p)))
        if best == min(A.nrows(), A.ncols()):
            return best
    return exact_rank(A)


def label_rows(A: flint.fmpz_mat, k: int) -> list[int]:
    """Indices of k rows of A (m x n) independent over Q; errors name the exact rank otherwise."""
    m = A.nrows()
    rows = independent_rows(A)
    if len(rows) > k:
        raise NotRealizable(
            f"rank(labels) >= {len(rows)} > k = {k}: no network with {k} hidden units produces these labels "
            f"(rank(U f(V X + b)) <= k). The labels may be noisy or rounded, or k too small.",
            evidence={"rank_lower_bound": len(rows), "k": k})
    if len(rows) == k:
        return rows
    r = exact_rank(A)
    if r < k:
        raise AssumptionViolated(
            f"rank(labels) = {r} < k = {k}: the row-span route needs U* of full column rank k "
            f"(then the row span of the labels is that of f(V* X)).",
            evidence={"rank": r, "k": k, "m": m},
            suggestion="route='auto' (the sparse-columns or pattern-linearized routes handle rank(labels) < k), fewer "
                       "units (k = rank), or the worst-case solver `exactrelu solve`")
    for p in PRIMES[1:]:  # rank(A) = k over Q, so some prime shows it
        rows = independent_rows(A, p)
        if len(rows) == k:
            return rows
    raise AssumptionViolated(f"rank(labels) = {k} over Q but below k modulo {len(PRIMES)} primes")  # pragma: no cover


def offset_label_rows(A1: flint.fmpz_mat, k: int) -> list[int]:
    """Indices of independent rows of ``A1 = [A; 1^T]`` (the labels with the constant row) spanning its row space,
    for networks with an output bias: k + 1 of them, or k when the constant vector already lies in the labels' row
    span. Errors name the exact rank of [labels | 1] (rank > k + 1 refutes every k-unit network with an output bias).

    >>> offset_label_rows(flint.fmpz_mat([[1, 2, 3], [1, 1, 1]]), 1)
    [0, 1]
    """
    try:
        return label_rows(A1, k + 1)
    except NotRealizable as exc:
        r = exc.evidence["rank_lower_bound"]
        raise NotRealizable(
            f"rank([labels | 1]) >= {r} > k + 1 = {k + 1}: no network with {k} hidden units and an output bias "
            f"produces these labels (rank([U f(V X + b) + c 1^T; 1^T]) <= k + 1). The labels may be noisy or rounded, "
            "or k too small.", evidence={"rank_with_ones": r, "k": k}) from None
    except AssumptionViolated as exc:
        r = exc.evidence["rank"]
        if r == k:  # the constant vector is in the labels' row span already: k rows span [A; 1^T]
            return label_rows(A1, k)
        raise AssumptionViolated(
            f"rank([labels | 1]) = {r} < k + 1 = {k + 1}: the row-span route needs U* of full column rank k (then the "
            "row span of [labels | 1] is that of [f(V* X + b*); 1^T]).", evidence={"rank_with_ones": r, "k": k},
            suggestion=exc.suggestion) from None


def solve_output_layer(F: flint.fmpz_mat, A: flint.fmpz_mat, inst: Instance, act: Activation, xden: int,
                       offset: bool) -> tuple[QMatrix, QMatrix | None]:
    """(U, c) with ``U f(V X) + c 1^T = A`` on every entry (``offset``), else (U, None): :func:`solve_output` on F
    with the constant row appended (one exact system per output gives the row [U_r c_r]). When the constant vector
    lies in the span of the hidden rows, c = 0 is as good as any (U absorbs it) and U is solved alone.

    >>> inst = Instance.from_arrays([[0], [1], [2]], [[3], [5], [7]])
    >>> U, c = solve_output_layer(flint.fmpz_mat([[0, 1, 2]]), flint.fmpz_mat([[3, 5, 7]]), inst, RELU, 1, True)
    >>> U.to_strings(), c.to_strings()
    ([['2']], [['3']])
    """
    if not offset:
        return solve_output(F, A, inst, act, xden), None
    k = F.nrows()
    try:
        W = solve_output(ones_row(F, int(xden) ** act.degree), A, inst, act, xden)  # m x (k + 1): [U c]
    except NotRealizable as exc:
        if exc.evidence.get("rank") != k:
            raise
        return solve_output(F, A, inst, act, xden), None
    return W.take_columns(list(range(k))), W.take_columns([k])


def solve_output(F: flint.fmpz_mat, A: flint.fmpz_mat, inst: Instance, act: Activation, xden: int) -> QMatrix:
    """U with ``U f(V X) = A`` on every entry; ``F`` = f(V Xnum) (k x n integers), inputs = Xnum / xden.

    Raises NotRealizable when F has rank < k or when any entry differs (evidence: where and how much).
    """
    k, m = F.nrows(), A.nrows()
    cols = _leading_independent_columns(F)
    if len(cols) < k:
        for p in PRIMES:  # rank modulo p can only drop below the rank over Q: try another prime before concluding
            cols = independent_columns(F, p)
            if len(cols) == k:
                break
    if len(cols) < k:
        raise NotRealizable(f"the {k} recovered hidden rows span only {len(cols)} dimensions", evidence={"rank": len(cols)})
    Fsel = flint.fmpz_mat([[F[i, j] for i in range(k)] for j in cols])  # k x k = F[:, cols]^T
    Asel = flint.fmpz_mat([[A[r, j] for r in range(m)] for j in cols])  # k x m
    Znum, zden = Fsel.solve(Asel).numer_denom()  # F[:, cols]^T Z = A[:, cols]^T
    P = Znum.transpose() * F
    if P != (A if zden == 1 else A * zden):  # exact comparison of every entry
        raise residual_error(P - A * zden, zden, inst)
    return QMatrix(Znum.transpose() * (int(xden) ** act.degree), int(zden) * int(inst.labels.den))


def _leading_independent_columns(F: flint.fmpz_mat) -> list[int]:
    """Columns among the first 4k + 8 of F that are independent modulo a prime (so over Q); fewer than k when
    they do not show full rank, and then the caller searches every column. Reads (4k + 8) k entries, not k n.

    >>> _leading_independent_columns(flint.fmpz_mat([[1, 2, 0], [2, 4, 1]]))
    [0, 2]
    """
    k, n = F.nrows(), F.ncols()
    lead = min(n, 4 * k + 8)
    if k == 0 or lead == 0:
        return []
    sub = flint.fmpz_mat([[F[i, j] for j in range(lead)] for i in range(k)])
    return independent_columns(sub)


def residual_error(R, zden, inst: Instance) -> NotRealizable:
    """NotRealizable locating the non-zero entries of the scaled residual R (m x n)."""
    m, n = R.nrows(), R.ncols()
    bad = [(j, r) for r in range(m) for j in range(n) if R[r, j] != 0]
    den = int(zden) * int(inst.labels.den)
    worst = max((abs(Fraction(int(R[r, j]), den)) for j, r in bad[:1000]), default=Fraction(0))
    return NotRealizable(
        f"U f(V X) differs from the labels in {len(bad)} of {n * m} entries (largest residual {approx(worst)}); "
        "the labels are not exactly realizable by these units (noise or rounding?)",
        evidence={"failing_entries": bad[:10], "n_failing": len(bad), "max_residual": display(worst)})


def no_units(k, cands, rejected, tries, detail, d=None, bias=False, output_bias=False) -> ExactReluError:
    """The error when fewer than k units were confirmed: why the proposals were rejected, what to try."""
    reasons = {}
    for r in rejected:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    msg = (f"found {len(cands)} of {k} units after {tries} search tries; proposals rejected exactly: "
           + ("; ".join(f"{v} x {k_}" for k_, v in reasons.items()) or "none")
           + ". The labels may be noisy or rounded (not exactly realizable), or the inputs not in general position.")
    if not (bias and output_bias):
        msg += (" If the network has hidden biases or an output bias (PyTorch's default Linear), pass bias=True "
                "(--bias).")
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


def check_identifiable(F: flint.fmpz_mat, U: QMatrix, D: int, support_sizes: list[int] | None = None) -> None:
    """Refuse (AssumptionViolated) a network that reproduces the labels but is not determined by them.

    * a unit active on fewer than D samples: its weights are not fixed by equations on the data;
    * a unit i active on every sample, with another unit j whose column of U is parallel to column i:
      on the data ``relu(t) = t + relu(-t)`` turns unit j into its flip plus an affine function that
      unit i absorbs, so the split between them is not determined (always the case for m = 1).

    ``support_sizes`` (optional): the number of non-zero entries of every row of F, when the caller knows it exactly.

    >>> F = flint.fmpz_mat([[1, 2, 3], [0, 1, 2]])
    >>> check_identifiable(F, QMatrix.from_rows([[1, 2], [0, 1]]), 2) is None
    True
    >>> check_identifiable(F, QMatrix.from_rows([[1, 2]]), 2)
    Traceback (most recent call last):
    ...
    exactrelu.errors.AssumptionViolated: unit 0 is active on every sample, and unit 1...
    """
    k, n = F.nrows(), F.ncols()
    if support_sizes is None:  # else the caller knows the number of non-zero entries of every row exactly
        vals = F.entries()
        support_sizes = [sum(1 for j in range(n) if vals[i * n + j] != 0) for i in range(k)]
    counts = support_sizes
    cols = list(zip(*U.to_fractions()))
    for i in range(k):
        if 0 < counts[i] < D:
            raise AssumptionViolated(
                f"unit {i} is active on {counts[i]} samples, fewer than the {D} its weights need: other weights "
                "give the same labels, so no network is determined", evidence={"unit": i, "active": counts[i], "D": D},
                suggestion="more samples")
        if counts[i] != n:
            continue
        for j in range(k):
            if j != i and any(cols[j]) and all(a * cols[i][t] == b * cols[i][s] for s, a in enumerate(cols[j])
                                               for t, b in enumerate(cols[j])):
                raise AssumptionViolated(
                    f"unit {i} is active on every sample, and unit {j}'s output weights are parallel to its own: on the "
                    f"data relu(t) = t + relu(-t) moves unit {j}'s affine part into unit {i}, so the split between them "
                    "is not determined by the data", evidence={"always_active": i, "parallel": j},
                    suggestion="samples where that unit is inactive")


def split_bias(V: QMatrix) -> tuple[QMatrix, QMatrix]:
    """``[V b]`` (k x (d+1)) -> (V, b as k x 1)."""
    rows = V.to_fractions()
    k, d1 = V.shape
    return (QMatrix.from_fractions([x for r in rows for x in r[:-1]], k, d1 - 1),
            QMatrix.from_fractions([r[-1] for r in rows], k, 1))


def certify(inst: Instance, net: Network, *, route: str, proposer: str, random_state, check: bool, timer,
            certificate: bool = True) -> tuple:
    """(canonical network, ``realizes`` certificate, checker summary or None); times 'certificate' and
    'independent_check'. ``certificate=False``: (canonical network, {}, None), nothing hashed or checked."""
    t0 = timer.start()
    net = net.canonical()
    if not certificate:
        return net, {}, None
    seed = random_state if isinstance(random_state, int) else None
    cert = realizes_certificate(inst, net, sha256=instance_sha256(inst), seed=seed, proposer=proposer, route=route)
    t0 = timer.add("certificate", t0)
    summary = None
    if check:
        summary = verify(cert, inst)
        timer.add("independent_check", t0)
    return net, cert, summary
