"""The claim ``not-realizable``: case trees and lemmas with Farkas leaves, or a hinted (LRAT) refutation.

Standard library only (docs/certificates.md, "not-realizable"). A certificate whose ``model`` states an output bias
is checked with c free: every equation of output r reads ``... + c_r == labels[j][r]`` and every half row carries
``-c_r`` (``eq+``) or ``+c_r`` (``eq-``), so each Farkas combination must cancel c_r as well as V.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from .common import CheckFailed, activation_degree, is_pair, limit, only_fields, over, parse_rational, read_matrix
from .instance import bound_instance
from .lrat import check_hinted
from .model import constant_column, excluded_class, verdict
from .tree import walk_tree


def support(U) -> list:
    """The non-zero entries ``[(i, U[x][i]), ...]`` of each output row: the loops of a leaf run over these only
    (a given U with k = 10^5 mostly-zero columns cost O(k) per Farkas row)."""
    return [[(i, u) for i, u in enumerate(row) if u != 0] for row in U]


def _refute_leaf(leaf, dec, X, Y, U, k, supp=None, offset=False):
    """A Farkas combination of the leaf's rows must read 0 <= negative (or 0 == non-zero).

    ``X`` holds each sample as its non-zero entries ``[(t, x_t), ...]``; ``supp`` is :func:`support` of U
    (computed here when not given); ``offset``: the output bias c_r is a variable (key ``("c", r)``).
    """
    supp = support(U) if supp is None else supp
    rows = leaf.get("farkas") if isinstance(leaf, dict) and set(leaf) == {"farkas"} else None
    if not isinstance(rows, list):
        raise CheckFailed("a leaf must be {'farkas': [[kind, j, index, multiplier], ...]}")
    acc: dict = {}  # (unit, coordinate) -> coefficient of V[unit][coordinate]
    rhs = Fraction(0)
    for row in rows:
        if not (isinstance(row, list) and len(row) == 4 and row[0] in ("eq", "sign", "eq+", "eq-")
                and all(isinstance(t, int) and not isinstance(t, bool) for t in row[1:3])):
            raise CheckFailed(f"malformed Farkas row {row!r}")
        kind, j, x, y = row[0], row[1], row[2], parse_rational(row[3])
        if not (0 <= j < len(X) and 0 <= x < (k if kind == "sign" else len(Y[0]))):
            raise CheckFailed(f"Farkas row {row!r} out of range")
        if kind == "sign":  # active: -v_x . x_j <= 0 ; inactive: v_x . x_j <= 0
            if (j, x) not in dec or y < 0:
                raise CheckFailed(f"sign row {row!r} undecided on this branch or with a negative multiplier")
            s = -y if dec[(j, x)] else y
            for t, v in X[j]:
                acc[(x, t)] = acc.get((x, t), 0) + s * v
        elif kind != "eq":  # one sign of units alone: the others' part has the opposite sign (relu >= 0)
            _half_row(acc, kind, j, x, y, dec, X, U, k)
            rhs += (-y if kind == "eq+" else y) * Y[j][x]
            if offset:  # -positive part - c <= -label ; negative part + c <= label
                acc[("c", x)] = acc.get(("c", x), 0) + (-y if kind == "eq+" else y)
        else:  # sum over active units i of U[x][i] v_i . x_j == labels[j][x]
            if any((j, i) not in dec for i, _ in supp[x]):
                raise CheckFailed(f"equation {row!r} used before all its units are decided")
            for i, u in supp[x]:
                if dec[(j, i)]:
                    for t, v in X[j]:
                        acc[(i, t)] = acc.get((i, t), 0) + y * u * v
            if offset:
                acc[("c", x)] = acc.get(("c", x), 0) + y
            rhs += y * Y[j][x]
    if any(a != 0 for a in acc.values()) or rhs >= 0:
        raise CheckFailed("a leaf's Farkas combination is not 0 <= negative")


def _half_row(acc, kind, j, x, y, dec, X, U, k) -> None:
    """Add y times a half row to ``acc``: ``eq+`` reads ``-sum over active i with U[x][i] > 0 of U[x][i] v_i . x_j
    <= -labels[j][x]``, ``eq-`` reads ``sum over active i with U[x][i] < 0 of U[x][i] v_i . x_j <= labels[j][x]``.

    Both hold for every network: the label is the sum of both signs' parts, each unit's part
    ``U[x][i] relu(v_i . x_j)`` has the sign of ``U[x][i]``, and a decided unit's relu is ``v_i . x_j`` (active)
    or 0. Only the units of that sign must be decided; y >= 0 (an inequality).
    """
    sign = 1 if kind == "eq+" else -1
    units = [i for i in range(k) if U[x][i] * sign > 0]
    if y < 0 or any((j, i) not in dec for i in units):
        raise CheckFailed(f"half row {[kind, j, x, str(y)]!r} with a negative multiplier or its units undecided")
    for i in units:
        if dec[(j, i)]:
            for t, v in X[j]:
                acc[(i, t)] = acc.get((i, t), 0) - sign * y * U[x][i] * v


FIELDS = {"format", "version", "claim", "instance_sha256", "activation", "k", "output_weights", "cases", "model",
          "provenance"}
#: what a case refutation excludes: relu(V x) with U given or any U (m = 1); hidden biases only through a constant column
NO_BIASES = {"biases": False, "output_bias": False}
WHY_NO_BIASES = ("a case refutation is about networks without hidden biases, and no input column is one non-zero "
                 "constant that would absorb them")

#: the refusal of a case that carries a DRUP proof (issue 26: the trusted base checks hinted proofs only)
DRUP_RETIRED = ("case {number} carries a DRUP proof ('rup'), which this checker no longer replays (it checks hinted "
                "'lrat' proofs only, docs/certificates.md); rewrite it with `exactrelu check --upgrade NEW.json CERT "
                "INSTANCE` (hints found by the untrusted trimmer; the checker then verifies NEW.json)")


#: one Fraction for each small integer: equal entries are then one object, and == on lists and tuples of them compares
#: identities first (a template's instances are compared entry by entry: 7,000 Fraction.__eq__ calls at N = 200)
_SMALL = {p: Fraction(p) for p in range(-16, 17)}


def _fraction(p: int, q: int) -> Fraction:
    return _SMALL[p] if q == 1 and -16 <= p <= 16 else Fraction(p, q)


def read_claim(cert: dict, instance: dict):
    """The parsed parts of a ``not-realizable`` case certificate: (X, Y, d, k, mode, cases, Us).

    ``X`` holds each sample as its non-zero entries ``[(t, x_t), ...]``, ``Y`` the labels as Fractions,
    ``Us`` the output weights of each case (validated: one given case, or the sign cases of unknown U).
    """
    only_fields(cert, FIELDS)
    Xp, Yp = bound_instance(cert, instance, "not-realizable")
    Y = [[_fraction(p, q) for p, q in zip(*row)] for row in Yp]
    X = [[(t, _fraction(row[0][t], row[1][t])) for t in itertools.compress(range(len(row[0])), row[0])]
         for row in Xp]  # sparse rows: the non-zero numerators' positions (compress), then only those entries
    if activation_degree(cert.get("activation")) != 1 or (
            instance.get("activation") is not None and activation_degree(instance["activation"]) != 1):
        raise CheckFailed("not-realizable is a claim about the ReLU")
    k, m, cases, mode = cert.get("k"), len(Y[0]), cert.get("cases"), cert.get("output_weights")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or not isinstance(cases, list):
        raise CheckFailed("k must be a positive integer and cases a list")
    if k > limit("units"):  # before reading U: every case's U has k columns
        raise over("units", f"k = {k}")
    if mode == "unknown" and (m != 1 or len(cases) != math.comb(k + 2, 2)):  # counted before any work
        raise CheckFailed(f"unknown output weights need m = 1 and the {math.comb(k + 2, 2)} cases {{1,0,-1}}^k, non-increasing")
    Us = [read_matrix(c.get("U") if isinstance(c, dict) else None, m, k, "U") for c in cases]
    if mode == "unknown":  # positive homogeneity + unit permutation: u in {1,0,-1}^k non-increasing
        if any(U != [list(u)] for U, u in zip(Us, itertools.combinations_with_replacement((1, 0, -1), k))):
            raise CheckFailed("unknown output weights need m = 1 and exactly the cases {1,0,-1}^k, non-increasing")
    elif mode != "given" or len(cases) != 1:
        raise CheckFailed("output_weights must be 'given' (one case) or 'unknown'")
    return X, Y, len(Xp[0][0]), k, mode, cases, Us


def check_not_realizable(cert: dict, instance: dict) -> str:
    """Verify the claim ``not-realizable`` (ReLU): every case is refuted, by a case tree or by hinted steps."""
    X, Y, d, k, mode, cases, Us = read_claim(cert, instance)
    model, note = excluded_class(cert, old=NO_BIASES, output_bias=None,  # an output bias: checked with c free
                                 biases=None if constant_column(X) else WHY_NO_BIASES)  # refused before any work
    leaves = hinted = 0
    for number, (case, U) in enumerate(zip(cases, Us)):
        n_leaves, n_hinted = _check_case(case, number, U, X, Y, k, d, model["output_bias"])
        leaves, hinted = leaves + n_leaves, hinted + n_hinted
    weights = "any output weights" if mode == "unknown" else "the given output weights"
    steps = f", {hinted:,} hinted steps checked" if hinted else ""
    return (f"not-realizable: {verdict(model, k, 1, len(X), weights, note)}; {len(cases)} output-weight case(s) "
            f"({mode}), {leaves:,} leaves refuted{steps}")


def _check_case(case, number, U, X, Y, k, d, offset=False) -> tuple[int, int]:
    """Refute one output-weight case: (leaves refuted, hinted steps checked)."""
    keys = set(case) if isinstance(case, dict) else set()
    if "rup" in keys:
        raise CheckFailed(DRUP_RETIRED.format(number=number))
    hinted_shape = {"U", "lemmas", "lrat"} <= keys <= {"U", "lemmas", "lrat", "symmetry", "templates"}
    if not (keys in ({"U", "tree"}, {"U", "tree", "lemmas"}) or hinted_shape) or not isinstance(case.get("lemmas", []), list):
        raise CheckFailed("a case is {'U', 'tree', optional 'lemmas'} or {'U', 'lemmas', 'lrat', "
                          "optional 'templates', 'symmetry'}")
    if "tree" in case:
        proved, leaves = _proved_lemmas(case.get("lemmas", []), X, Y, U, k, offset)
        return leaves + _check_tree(case["tree"], {}, proved, X, Y, U, k, support(U), offset), 0
    if len(X) * k > limit("literals"):
        raise over("literals", f"a refutation over {len(X)} x {k} activation literals")
    clauses, leaves = case_clauses(case, U, X, Y, k, d, offset)
    return leaves, check_hinted(clauses, case["lrat"], len(X) * k)


def case_clauses(case: dict, U, X, Y, k: int, d: int, offset: bool = False) -> tuple[list, int]:
    """The input clauses of a hinted case, after proving every lemma they stand for; and the leaves refuted.

    Every full assignment of the literals (j, i) -> active that a network could follow satisfies them:
    "not all of a lemma's assumptions" for the plain lemmas, then each template's instances in order,
    then, under symmetry, "sorted on one sample". Numbered 1, 2, ... in this order (docs/certificates.md).
    """
    proved, leaves = _proved_lemmas(case["lemmas"], X, Y, U, k, offset)
    clauses = [_clause(dec, k) for dec in proved]
    templates = case.get("templates", [])
    if not isinstance(templates, list):
        raise CheckFailed("templates must be a list")
    for tpl in templates:
        more, n_leaves = _template_clauses(tpl, X, Y, U, k, d, offset)
        clauses += more
        leaves += n_leaves
    if "symmetry" in case:
        clauses += _symmetry_clauses(case["symmetry"], U, len(X), k)
    return clauses, leaves


def _proved_lemmas(lemmas, X, Y, U, k, offset=False) -> tuple[list, int]:
    """The assumptions of each lemma, in order, each proved by its tree (which may cite earlier ones)."""
    proved, leaves, supp = [], 0, support(U)
    for lemma in lemmas:
        dec = _assumed(lemma, len(X), k)
        leaves += _check_tree(lemma["tree"], dec, proved, X, Y, U, k, supp, offset)
        proved.append(dec)
    return proved, leaves


def _assumed(lemma, n, k) -> dict:
    """The decisions a lemma assumes, ``{(j, i): active}`` (validated)."""
    assume = lemma.get("assume") if isinstance(lemma, dict) and set(lemma) == {"assume", "tree"} else None
    if not isinstance(assume, list) or not all(
            isinstance(a, list) and len(a) == 3 and isinstance(a[2], bool) and is_pair(a[:2], n, k) for a in assume):
        raise CheckFailed("a lemma is {'assume': [[j, i, active], ...], 'tree': [...]}")
    dec = {(a[0], a[1]): a[2] for a in assume}
    if len(dec) != len(assume):
        raise CheckFailed("a lemma assumes the same split twice")
    return dec


def _clause(dec, k) -> list[int]:
    """The clause "not all of these decisions": literal j * k + i + 1, positive for active."""
    return [-(j * k + i + 1) if a else j * k + i + 1 for (j, i), a in dec.items()]


def _template_clauses(tpl, X, Y, U, k, d, offset=False):
    """The clauses of a template's instances, after proving its lemmas once on the shared data.

    An instance ``[[j_0, j_1, ...], [t_0, t_1, ...]]`` puts sample ``j_p`` at position p and
    coordinate ``t_q`` at local coordinate q (distinct samples, distinct coordinates). Every
    instance must give the same local data: the support of ``x_(j_p)`` inside ``{t_q}``, the
    entries ``x_(j_p)[t_q]`` and the labels of ``j_p`` equal for all instances. A lemma proved on
    the local data (positions as samples, local coordinates as coordinates) then holds for every
    instance: its rows are the local rows with ``V[i][q]`` renamed ``V[i][t_q]``, an injective
    renaming, so its Farkas combination still cancels with the same negative right-hand side (an output bias's
    c_r is not renamed: it is the same variable in every instance).
    """
    if not (isinstance(tpl, dict) and set(tpl) == {"lemmas", "instances"} and isinstance(tpl["lemmas"], list)
            and isinstance(tpl["instances"], list) and tpl["instances"]):
        raise CheckFailed("a template is {'lemmas': [...], 'instances': [[samples, coordinates], ...]} with instances")
    local = None
    members = []
    for inst in tpl["instances"]:
        if not (isinstance(inst, list) and len(inst) == 2 and all(isinstance(v, list) for v in inst)
                and _indices(inst[0], len(X)) and _indices(inst[1], d)
                and len(set(inst[0])) == len(inst[0]) and len(set(inst[1])) == len(inst[1])):
            raise CheckFailed(f"bad template instance {inst!r} (distinct samples and coordinates in range)")
        js, ts = inst
        q = {t: p for p, t in enumerate(ts)}
        if any(t not in q for j in js for t, _ in X[j]):
            raise CheckFailed(f"template instance {inst!r}: a sample has entries outside its coordinates")
        data = [(sorted((q[t], v) for t, v in X[j]), Y[j]) for j in js]
        if local is None:
            local = data
        elif data != local:
            raise CheckFailed(f"template instance {inst!r}: its data differ from the template's")
        members.append(js)
    Xl, Yl = [row for row, _ in local], [y for _, y in local]
    leaves, decs, supp = 0, [], support(U)
    for lemma in tpl["lemmas"]:
        dec = _assumed(lemma, len(Xl), k)
        leaves += _check_tree(lemma["tree"], dec, [], Xl, Yl, U, k, supp, offset)
        decs.append(dec)
    # the clause of each lemma with p read as j_p, as _clause writes it (the j_p are distinct: no two keys merge)
    shapes = [[(p, i + 1, -1 if a else 1) for (p, i), a in dec.items()] for dec in decs]
    clauses = [[s * (js[p] * k + i) for p, i, s in shape] for js in members for shape in shapes]
    return clauses, leaves


def _indices(values: list, n: int) -> bool:
    """Every entry an int (not a bool) in range(n), as :func:`is_pair` reads one: set, min and max run in C."""
    return not values or (set(map(type, values)) == {int} and 0 <= min(values) and max(values) < n)


def _symmetry_clauses(sym, U, n, k) -> list[list[int]]:
    """Units with equal output-weight columns may be permuted: on sample j0, take them active first.

    A permutation inside each class of equal columns leaves every output unchanged; choosing the
    one that sorts the class by "active at sample j0" (active: V[i] . x_j0 >= 0) shows that if any
    V realizes the labels, one does with ``active(j0, a) or not active(j0, b)`` for consecutive a, b.
    """
    if not (isinstance(sym, dict) and set(sym) == {"sample", "classes"} and is_pair([sym["sample"], 0], n, k)
            and isinstance(sym["classes"], list)):
        raise CheckFailed("symmetry is {'sample': j, 'classes': [[i, i2, ...], ...]}")
    used: set = set()
    out = []
    for cls in sym["classes"]:
        if not (isinstance(cls, list) and len(cls) >= 2 and all(is_pair([0, i], 1, k) for i in cls)) or used & set(cls) \
                or len(set(cls)) != len(cls):
            raise CheckFailed(f"bad symmetry class {cls!r} (units in range, disjoint classes)")
        used |= set(cls)
        if any(row[i] != row[cls[0]] for row in U for i in cls):
            raise CheckFailed(f"units {cls} do not have equal output-weight columns: no symmetry")
        j0 = sym["sample"]
        out += [[j0 * k + a + 1, -(j0 * k + b + 1)] for a, b in zip(cls, cls[1:])]
    return out


def _check_tree(tree, dec0, proved, X, Y, U, k, supp, offset=False) -> int:
    """Read a case tree over the pairs (sample j, unit i) under the decisions dec0; the number of leaves refuted.

    A leaf is a Farkas vector, or {'lemma': t}: an earlier proved lemma whose assumptions all hold here.
    A lemma's assumptions are compared with dec0 once per tree (``missing``: those dec0 does not give; None
    when dec0 contradicts one); a citation then checks only the rest, on the splits of its branch, so
    19,601 citations of a lemma of 20,001 assumptions cost 19,601 look-ups, not 392 million.
    """
    n = len(X)
    missing: dict = {}

    def unmet(t):
        if t not in missing:
            rest = [(key, a) for key, a in proved[t].items() if dec0.get(key) is not a]
            missing[t] = None if any(key in dec0 for key, _ in rest) else rest
        return missing[t]

    def split_key(split, dec):
        if not (isinstance(split, list) and len(split) == 2 and is_pair(split, n, k) and tuple(split) not in dec):
            raise CheckFailed(f"bad split {split!r}")
        return tuple(split)

    def refute(node, dec):
        if isinstance(node, dict) and set(node) == {"lemma"}:
            t = node["lemma"]
            rest = unmet(t) if isinstance(t, int) and not isinstance(t, bool) and 0 <= t < len(proved) else None
            if rest is None or len(rest) > len(dec) - len(dec0) or any(dec.get(key) is not a for key, a in rest):
                raise CheckFailed(f"lemma {t!r} is not proved before, or its assumptions do not hold here")
        else:
            _refute_leaf(node, dec, X, Y, U, k, supp, offset)

    return walk_tree(tree, dec0, split_key, refute)
