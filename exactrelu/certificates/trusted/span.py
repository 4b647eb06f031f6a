"""``not-realizable`` for unknown output weights and any number of outputs: a rank witness, and for
rank(labels) = k a span refutation. Standard library only (docs/certificates.md, "not-realizable
from the worst-case solver").

Claim: no real U (m x k) and V (k x d) give ``labels = relu(inputs V^T) U^T`` (no hidden biases).

``rank``: sample indices J and output indices S (t of each, distinct) with ``det(labels[J][S]) != 0``,
so rank(labels) >= t. With t = k + 1 that alone refutes every k-unit network, for the activation
named (ReLU or t^c) and even with hidden biases: ``rank(f(inputs V^T + b) U^T) <= k``. With t = k + 2 it
also refutes an output bias c: ``rank(f(inputs V^T + b) U^T + 1 c^T) <= k + 1``.

**The constant column.** The output index m (one past the last output) names the all-ones column 1. A network
with an output bias has ``[labels | 1] = [H | 1] [[U^T, 0], [c^T, 1]]`` (H = f(inputs V^T + b), n x k), so
rank([labels | 1]) <= k + 1: a (k + 2) x (k + 2) minor of [labels | 1] refutes every k-unit network, output bias
included. With the constant column, a witness of k + 1 rows refutes nothing alone, and is read with a span
refutation only (below).

``span`` (t = k): write A_S for the labels' columns S as a k x n matrix and a_j for its column j.
If a network existed, its hidden rows W_i = relu(V_i . x_j) would span the row space of A_S (which
has dimension k), so W_i = c_i^T A_S for independent c_i, and ``a . c_i != 0`` for some i whatever
the non-zero functional a. Rescaled by 1/|a . c_i| this gives (v, c) with, at every sample j,
either ``v . x_j = c . a_j, v . x_j >= 0`` (active) or ``c . a_j = 0, v . x_j <= 0`` (inactive), and
``a . c = s`` for s = +1 or -1. Each of the two cases (s = 1, then s = -1) carries a case tree over
the samples whose every leaf refutes its linear system by a Farkas vector: then no such (v, c),
hence no network.

``span`` with the constant column (t = k + 1, S = S0 + {m}): an output bias too. If ``[Y_S0 | 1] = [H | 1] M`` has
rank k + 1, M ((k+1) x (k+1)) is invertible, ``[H | 1] = A_S M^-1``, and the columns g_1 .. g_(k+1) of M^-1 are
a basis with ``A_S g_(k+1) = 1``, so ``g_(k+1)`` is the unit vector of the constant column. The functional must
vanish there (``a`` is zero at the position of m in S): then ``a . g_i != 0`` for some unit i <= k, and the
same case trees refute it (docs/recovery.md, "The output bias").
"""

from __future__ import annotations

from fractions import Fraction

from .common import CheckFailed, activation_degree, only_fields, read_vector, parse_rational
from .instance import bound_instance
from .model import constant_column, excluded_class, verdict
from .tree import walk_tree

FIELDS = {"format", "version", "claim", "instance_sha256", "activation", "k", "output_weights", "rank", "span",
          "model", "provenance"}
WHY_RANK_OUTPUT_BIAS = ("a (k+1) x (k+1) minor does not exclude an output bias, which can add one to the rank "
                        "(a (k+2) x (k+2) minor does)")
WHY_SPAN_OUTPUT_BIAS = "a span refutation does not exclude an output bias"
WHY_ONES_ALONE = ("a minor with the constant column has k + 2 rows, or k + 1 rows and a span refutation (k + 1 rows "
                  "alone exclude nothing)")
WHY_SPAN_BIASES = ("a span refutation is about networks without hidden biases, and no input column is one non-zero "
                   "constant that would absorb them")


def _indices(obj, size, name):
    if not (isinstance(obj, list) and all(type(t) is int and 0 <= t < size for t in obj) and len(set(obj)) == len(obj)):
        raise CheckFailed(f"{name} must be distinct indices below {size}")
    return obj


def _nonsingular(M) -> bool:
    """Is the square matrix M (lists of Fractions) non-singular? Gaussian elimination, exact."""
    M = [list(row) for row in M]
    for col in range(len(M)):
        piv = next((r for r in range(col, len(M)) if M[r][col] != 0), None)
        if piv is None:
            return False
        M[col], M[piv] = M[piv], M[col]
        for r in range(col + 1, len(M)):
            f = M[r][col] / M[col][col]
            if f:
                M[r] = [x - f * y for x, y in zip(M[r], M[col])]
    return True


def check_rank_refutation(cert: dict, instance: dict) -> str:
    """Verify ``not-realizable`` given by a rank witness (and, for rank k, a span refutation)."""
    only_fields(cert, FIELDS)
    Xp, Yp = bound_instance(cert, instance, "not-realizable")
    c = activation_degree(cert.get("activation"))
    if instance.get("activation") is not None and activation_degree(instance["activation"]) != c:
        raise CheckFailed("the certificate's activation differs from the instance's")
    k, n, m = cert.get("k"), len(Xp), len(Yp[0][0])
    if type(k) is not int or k < 1 or cert.get("output_weights") != "unknown":
        raise CheckFailed("a rank refutation has a positive integer k and output_weights 'unknown'")
    rank = cert.get("rank")
    if not (isinstance(rank, dict) and set(rank) == {"outputs", "samples"}):
        raise CheckFailed("rank is {'outputs': [r, ...], 'samples': [j, ...]}")
    S, J = _indices(rank["outputs"], m + 1, "rank.outputs"), _indices(rank["samples"], n, "rank.samples")
    t, ones = len(S), m in S  # output m: the constant column 1
    span_rows = k + 1 if ones else k
    if len(J) != t or t not in (k, k + 1, k + 2) or ("span" in cert) != (t == span_rows):
        raise CheckFailed("the rank witness has k + 1 or k + 2 rows (and no span), or k rows and a span refutation")
    if ones and t not in (k + 1, k + 2):
        raise CheckFailed(WHY_ONES_ALONE)
    X = [[(t_, Fraction(p, q)) for t_, (p, q) in enumerate(zip(*row)) if p] for row in Xp]
    if t > span_rows:  # rank(f(X V^T + b) U^T) <= k whatever f and b; + 1 c^T adds at most one
        model, note = excluded_class(cert, old={"biases": True, "output_bias": False}, biases=None,
                                     output_bias=None if t == k + 2 else WHY_RANK_OUTPUT_BIAS)
    else:
        model, note = excluded_class(cert, old={"biases": False, "output_bias": False},
                                     output_bias=None if ones else WHY_SPAN_OUTPUT_BIAS,
                                     biases=None if constant_column(X) else WHY_SPAN_BIASES)

    def entry(j, r):
        return Fraction(1) if r == m else Fraction(Yp[j][0][r], Yp[j][1][r])

    if not _nonsingular([[entry(j, r) for r in S] for j in J]):
        raise CheckFailed("the rank witness is a singular minor of the labels")
    line = verdict(model, k, c, n, "any output weights", note)
    what = "[labels | 1]" if ones else "labels"
    if t > span_rows:
        bound = f"k + 1 = {k + 1}" if ones else f"k = {k}"
        return f"not-realizable: {line}; rank({what}) >= {t} > {bound} (a non-zero {t} x {t} minor)"
    if c != 1:
        raise CheckFailed("a span refutation is a claim about the ReLU")
    leaves = _check_span(cert["span"], t, X, [[entry(j, r) for r in S] for j in range(n)],
                         S.index(m) if ones else None)
    return (f"not-realizable: {line}; rank({what}) = {t} (a non-zero {t} x {t} minor) and no realizable hidden row "
            f"outside a hyperplane of their row space ({leaves:,} leaves refuted)")


def _check_span(span, k, X, A, constant=None) -> int:
    """Both sign cases of a span refutation (``A``: the labels' columns S, n rows of k); the leaves refuted.
    ``constant``: the position of the constant column in S, where the functional must be zero (or None)."""
    if not (isinstance(span, dict) and set(span) == {"functional", "cases"} and isinstance(span["cases"], list)
            and [c.get("sign") if isinstance(c, dict) and type(c.get("sign")) is int else None
                 for c in span["cases"]] == [1, -1]):
        raise CheckFailed("span is {'functional': [k rationals], 'cases': [{'sign': 1, 'tree'}, {'sign': -1, 'tree'}]}")
    a = read_vector(span["functional"], k, "functional")
    if not any(a):
        raise CheckFailed("the functional must be non-zero")
    if constant is not None and a[constant] != 0:
        raise CheckFailed("the functional must vanish on the constant column (it stands for the output bias)")
    leaves = 0
    for case in span["cases"]:
        if set(case) != {"sign", "tree"}:
            raise CheckFailed("a span case is {'sign', 'tree'}")
        leaves += _check_tree(case["tree"], case["sign"], a, X, A)
    return leaves


def _check_tree(tree, s, a, X, A) -> int:
    """A preorder tree of {'split': j} nodes (active child first) and Farkas leaves; the number of leaves."""
    def split_key(j, dec):
        if type(j) is not int or not 0 <= j < len(X) or j in dec:
            raise CheckFailed(f"bad split {j!r}")
        return j

    def refute(node, dec):
        if not (isinstance(node, dict) and set(node) == {"farkas"} and isinstance(node["farkas"], list)):
            raise CheckFailed("a leaf is {'farkas': [[kind, j, multiplier] or ['norm', multiplier], ...]}")
        _refute(node["farkas"], dec, s, a, X, A)

    return walk_tree(tree, {}, split_key, refute)


def _refute(rows, dec, s, a, X, A) -> None:
    """The combination of the leaf's rows must cancel every variable of (v, c) and leave 0 <= negative."""
    acc_v: dict = {}
    acc_c = [Fraction(0)] * len(a)
    rhs = Fraction(0)
    for row in rows:
        if isinstance(row, list) and len(row) == 2 and row[0] == "norm":  # a . c = s
            y = parse_rational(row[1])
            acc_c = [x + y * ab for x, ab in zip(acc_c, a)]
            rhs += y * s
            continue
        if not (isinstance(row, list) and len(row) == 3 and row[0] in ("eq", "sign") and type(row[1]) is int
                and row[1] in dec):
            raise CheckFailed(f"malformed Farkas row {str(row)[:60]} (a row of a sample decided on this branch)")
        kind, j, y = row[0], row[1], parse_rational(row[2])
        on = dec[j]
        if kind == "sign":  # active: -v . x_j <= 0 ; inactive: v . x_j <= 0
            if y < 0:
                raise CheckFailed(f"sign row {row!r} has a negative multiplier")
            sv = -y if on else y
        else:  # active: v . x_j - c . a_j = 0 ; inactive: c . a_j = 0
            sv = y if on else 0
            sc = -y if on else y
            acc_c = [x + sc * ab for x, ab in zip(acc_c, A[j])]
        for t, xv in X[j]:
            if sv:
                acc_v[t] = acc_v.get(t, 0) + sv * xv
    if any(acc_c) or any(acc_v.values()) or rhs >= 0:
        raise CheckFailed("a leaf's Farkas combination is not 0 <= negative")
