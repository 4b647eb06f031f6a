"""The case tree over the neuron phases of a reduced difference (:mod:`.deep`): is it zero? Standard library only.

Variables are the inputs x (0 .. d-1) and the outputs y_u of the reduced neurons (d + u); neuron u's
pre-activation is the form z_u. A path decides some neurons: u *active* (z_u >= 0, y_u = z_u) or *inactive*
(z_u <= 0, y_u = 0). Every x follows a path consistent with its own phases (both at a kink), and with
y_u = relu(z_u(x)) the point (x, y) satisfies every row below; so a leaf that shows the output forms zero on
the rows' polyhedron Q shows A(x) = B(x) for every x of its path. The rows, each ``g <= 0`` or ``g = 0``:

``["phase", u]`` (decided u) ``-z_u <= 0`` if active, ``z_u <= 0`` if inactive;
``["post", u]`` (decided u) ``y_u - z_u = 0`` if active, ``y_u = 0`` if inactive;
``["relu", u]`` ``z_u - y_u <= 0``; ``["pos", u]`` ``-y_u <= 0`` (any u);
``["lower", t]`` ``l_t - x_t <= 0`` and ``["upper", t]`` ``x_t - u_t <= 0`` (input t, on a box domain only);
``["argmax", i]`` ``F_i - F_j <= 0`` (inside class j of a ``top1`` leaf, F the outputs of the leaf's network).

On a box domain every x lies in the box, so its point (x, y) satisfies the box rows too: a leaf then shows its
property for every x of its path *in the box*. With the property epsilon (``red.slack`` = E >= 0), a ``bounds``
leaf proves ``O_r - E <= 0`` and ``-O_r - E <= 0`` instead (lemmas stay exact: their slack is 0).

A *combination* ``{"phase": [[u, m], ...], "post": [...], ...}`` sums m times each row (m >= 0 for an
inequality) into ``a . v + k``; on Q it is <= 0, and = 0 with equations only. So a target ``t . v + tau`` with
``t = a`` is ``<= tau - k`` on Q. Nodes, in preorder (:func:`.tree.walk_tree`):

``{"split": u}``: two subtrees, u active then inactive;
``{"fix": [u, active], "bound": C}``: C proves ``z_u <= 0`` (inactive) or ``-z_u <= 0`` (active) on Q: one subtree;
``{"farkas": C}``: a = 0 and k > 0, so Q is empty (0 >= k > 0);
``{"equal": [C_0, ..., C_{m-1}]}``: equations only, each summing to output r's form exactly: zero on Q;
``{"bounds": [[U_0, L_0], ...]}``: U_r proves ``O_r <= 0``, L_r proves ``-O_r <= 0`` on Q;
``{"top1": {"net": s, "classes": [E_0, ..., E_{m-1}]}}`` (property top1 only, main tree): with F the outputs of
network s + 1 and G the other's (:mod:`.deep`, ``red.nets``), each E_j is ``{"farkas": C}`` (Q with the argmax
rows of class j is empty) or ``{"beats": [C_i for i != j, in order]}``, C_i proving ``G_i - G_j <= 0`` on Q with
the argmax rows of class j. Every x of the leaf has some j with F_j(x) largest; its point satisfies the argmax rows
of class j, so E_j is not a Farkas entry and G_j(x) is largest too: the argmax sets meet.

**Relaxed leaves** (a bound over a whole subtree): ``{"relaxed": {"chain": [E_0, E_1, ...], "leaf": L}}``, each
E_i ``[u, l, U, s, t, C_lo, C_hi]`` with l <= U, ``s l + t >= relu(l)`` and ``s U + t >= relu(U)``: C_lo proves
``l - z_u <= 0`` and C_hi ``z_u - U <= 0`` with the path's rows and those of E_0 .. E_{i-1}; then E_i adds the rows
``["lo", u]`` ``l - z_u <= 0``, ``["hi", u]`` ``z_u - U <= 0``, ``["line", u]`` ``y_u - s z_u - t <= 0`` (relu is
convex: a line above it at both ends of [l, U] is above it on [l, U]) and ``["ymax", u]`` ``y_u - relu(U) <= 0``
(relu is non-decreasing). By induction along the chain each row holds at the point of every x of the path (in the
box), whatever the phases of the neurons the path leaves undecided; so L (any leaf but a relaxed one), citing them,
proves its claim for every x below the node. docs/design.md, "Bounds over a whole subtree", has the proof.

**Lemmas.** ``"lemmas": [{"forms": [F, ...], "tree": [...]}, ...]``, each F ``{"terms": [[variable, q], ...],
"constant": q}``: lemma t claims every F_i(x, y) = 0 for every x (y_u = relu(z_u(x))), proved by its own tree
whose leaves have one entry per form of the lemma (instead of per output). The forms of all lemmas are numbered
in order, and a later lemma's tree or the main tree may use ``["lemma", s]`` rows ``F_s = 0`` (equations) of
the forms proved before it. Independent parts of a difference are so proved once each instead of in one tree
that multiplies their cases.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .common import CheckFailed, canonical, cap_bits, lcm_within, limit, over, parse_rational
from .tree import walk_tree

_INEQUALITY = {"phase": True, "post": False, "relu": True, "pos": True, "lemma": False, "lower": True, "upper": True,
               "argmax": True, "line": True, "ymax": True, "lo": True, "hi": True}
_CHAIN = ("line", "ymax", "lo", "hi")  # the rows of a relaxed leaf's chain (module docstring, "Relaxed leaves")
_STATIC = ("relu", "pos", "lower", "upper")  # rows that read neither the path nor the chain
_EQUATIONS = {"post", "lemma"}


def _row(red, kind: str, u: int, dec: dict) -> tuple[dict, Fraction]:
    if kind == "lemma":
        return red.proved[u]
    if kind == "argmax":  # F_u - F_j <= 0 in class j of a top1 leaf
        F, j = red.arg
        return _minus(F[u], F[j])
    if kind in ("lower", "upper"):  # the box's rows: l_t - x_t <= 0, x_t - u_t <= 0
        return ({u: Fraction(-1)}, red.box[0][u]) if kind == "lower" else ({u: Fraction(1)}, -red.box[1][u])
    f, k = red.forms[u]
    y = red.d + u
    if kind in _CHAIN:
        if u not in red.chain:
            raise CheckFailed(f"a {kind} row of neuron {u}, whose bounds the chain has not established before it")
        if (kind, u) not in red.chain_rows:  # fixed once established (until the relaxed leaf ends)
            lo, hi, s, t = red.chain[u]
            red.chain_rows[kind, u] = (
                ({**{v: -s * a for v, a in f.items()}, y: Fraction(1)}, -s * k - t) if kind == "line" else  # line
                ({y: Fraction(1)}, -max(hi, Fraction(0))) if kind == "ymax" else  # y_u - relu(U_u) <= 0
                ({v: -a for v, a in f.items()}, lo - k) if kind == "lo" else (f, k - hi))
        return red.chain_rows[kind, u]
    if kind == "relu":
        return {**f, y: Fraction(-1)}, k
    if kind == "pos":
        return {y: Fraction(-1)}, Fraction(0)
    if u not in dec:
        raise CheckFailed(f"a {kind} row of neuron {u}, which the path does not decide")
    if kind == "phase":
        return ({v: -a for v, a in f.items()}, -k) if dec[u] else (f, k)
    return ({**{v: -a for v, a in f.items()}, y: Fraction(1)}, -k) if dec[u] else ({y: Fraction(1)}, Fraction(0))


def combination(red, cert, dec: dict, equations_only: bool = False) -> tuple[dict, Fraction]:
    """``(a, k)``: the sum of the rows of ``cert`` with their multipliers (module docstring)."""
    if not isinstance(cert, dict) or set(cert) - (_EQUATIONS if equations_only else set(_INEQUALITY)):
        raise CheckFailed("a combination is an object of rows " + ("('post', 'lemma' only)" if equations_only else
                                                                   "('phase', 'post', 'relu', 'pos', 'lemma', "
                                                                   "'lower', 'upper', 'argmax', 'line', 'ymax', "
                                                                   "'lo', 'hi')"))
    rows, dens = [], []
    for kind, entries in cert.items():
        if not isinstance(entries, list):
            raise CheckFailed(f"the {kind} rows of a combination must be a list of [neuron, multiplier]")
        top = len(red.proved) if kind == "lemma" else len(red.forms)
        if kind in ("lower", "upper"):
            if red.box is None:
                raise CheckFailed(f"a {kind} row needs a box domain")
            top = red.d
        if kind == "argmax":
            if red.arg is None:
                raise CheckFailed("an argmax row outside a class of a top1 leaf")
            top = len(red.outputs)
        for e in entries:
            if not (isinstance(e, list) and len(e) == 2 and type(e[0]) is int and 0 <= e[0] < top):
                raise CheckFailed(f"a {kind} row must be [index, multiplier] with 0 <= index < {top}")
            m = parse_rational(e[1])
            if m < 0 and _INEQUALITY[kind]:
                raise CheckFailed(f"the {kind} row of neuron {e[0]} has a negative multiplier")
            N, K, D = _integer_row(red, kind, e[0], dec)
            red.terms += len(N) + 1
            rows.append((m, N, K, D))
            dens.append(m.denominator * D)
    if red.terms > limit("terms"):
        raise over("terms", "the rows of the case tree's leaves")
    L = lcm_within(dens, cap_bits(), "a combination of rows")  # m (N / D) = m.num (L / (m.den D)) N / L: integers
    acc: dict = {}
    const = 0
    for m, N, K, D in rows:
        F = m.numerator * (L // (m.denominator * D))
        for v, a in N.items():
            acc[v] = acc.get(v, 0) + F * a
        const += F * K
    return {v: Fraction(a, L) for v, a in acc.items() if a}, Fraction(const, L)


def _integer_row(red, kind: str, u: int, dec: dict) -> tuple[dict, int, int]:
    """Row u of ``kind`` (:func:`_row`) as integers over one denominator: ``(N, K, D)``, the row ``(N . v + K) / D``;
    kept while it cannot change (rows that do not read the path: for the whole check; the chain's: for its leaf)."""
    cache = red.static_rows if kind in _STATIC else red.chain_rows if kind in _CHAIN else None
    key = "integers", kind, u
    if cache is None or key not in cache:
        f, k = _row(red, kind, u, dec)
        D = math.lcm(k.denominator, *(a.denominator for a in f.values()))
        row = {v: a.numerator * (D // a.denominator) for v, a in f.items()}, k.numerator * (D // k.denominator), D
        if cache is None:
            return row
        cache[key] = row
    return cache[key]


def _bound(red, cert, dec, target: tuple[dict, Fraction], what: str) -> None:
    """``cert`` proves ``target <= 0`` on the path's polyhedron."""
    a, k = combination(red, cert, dec)
    if a != target[0] or target[1] - k > 0:
        raise CheckFailed(f"the combination does not prove {what}")


def _neg(form):
    return {v: -a for v, a in form[0].items()}, -form[1]


def _minus(f, g):
    """The form f - g."""
    acc = dict(f[0])
    for v, a in g[0].items():
        acc[v] = acc.get(v, 0) - a
    return {v: a for v, a in acc.items() if a}, f[1] - g[1]


def _farkas(red, cert, dec, what: str) -> None:
    a, k = combination(red, cert, dec)
    if a or k <= 0:
        raise CheckFailed(f"a Farkas {what} does not sum to 0 <= negative")


def _top1(red, body, dec) -> None:
    """A top1 leaf (module docstring): every class j of network s + 1 is empty on the leaf or beats the others."""
    m = len(red.outputs)
    if not (isinstance(body, dict) and set(body) == {"net", "classes"} and body["net"] in (0, 1)
            and type(body["net"]) is int and isinstance(body["classes"], list) and len(body["classes"]) == m):
        raise CheckFailed(f"a top1 leaf is {{'net': 0 or 1, 'classes': [one entry per output ({m})]}}")
    F, G = red.nets if body["net"] == 0 else red.nets[::-1]
    for j, entry in enumerate(body["classes"]):
        red.arg = F, j
        if isinstance(entry, dict) and set(entry) == {"farkas"}:
            _farkas(red, entry["farkas"], dec, f"entry (class {j})")
        elif isinstance(entry, dict) and set(entry) == {"beats"} and isinstance(entry["beats"], list) \
                and len(entry["beats"]) == m - 1:
            for i, cert in zip([i for i in range(m) if i != j], entry["beats"]):
                _bound(red, cert, dec, _minus(G[i], G[j]), f"class {j} at least class {i} in the other network")
        else:
            raise CheckFailed(f"class {j} of a top1 leaf is {{'farkas': C}} or {{'beats': [{m - 1} combinations]}}")
        red.arg = None


def _relaxed(red, body, dec) -> None:
    """A relaxed leaf (module docstring): each bound of the chain proved from the rows before it, then the leaf
    with every row of the chain."""
    if not (isinstance(body, dict) and set(body) == {"chain", "leaf"} and isinstance(body["chain"], list)
            and not (isinstance(body["leaf"], dict) and "relaxed" in body["leaf"])):
        raise CheckFailed("a relaxed leaf is {'chain': [[neuron, l, U, s, t, C_lo, C_hi], ...], 'leaf': a leaf "
                          "that is not relaxed}")
    zero = Fraction(0)
    try:
        for e in body["chain"]:
            if not (isinstance(e, list) and len(e) == 7 and type(e[0]) is int and 0 <= e[0] < len(red.forms)
                    and e[0] not in red.chain):
                raise CheckFailed(f"a chain entry is [neuron, l, U, s, t, C_lo, C_hi], each neuron 0 <= u < "
                                  f"{len(red.forms)} at most once")
            u, (lo, hi, s, t) = e[0], (parse_rational(x) for x in e[1:5])
            if lo > hi or s * lo + t < max(lo, zero) or s * hi + t < max(hi, zero):
                raise CheckFailed(f"the line of neuron {u} in the chain is below relu at l or U (or l > U)")
            f, k = red.forms[u]
            _bound(red, e[5], dec, ({v: -a for v, a in f.items()}, lo - k), f"neuron {u} >= {canonical(lo)}")
            _bound(red, e[6], dec, (f, k - hi), f"neuron {u} <= {canonical(hi)}")
            red.chain[u] = lo, hi, s, t
        _leaf(red, body["leaf"], dec)
    finally:
        red.chain, red.chain_rows = {}, {}


def _leaf(red, node, dec) -> None:
    kinds = ("farkas", "equal", "bounds", "relaxed") + (("top1",) if red.top1 else ())
    if not isinstance(node, dict) or len(node) != 1 or next(iter(node)) not in kinds:
        raise CheckFailed("a leaf is {'farkas': ...}, {'equal': [...]}" + (", {'bounds': [...]} or {'top1': {...}}"
                                                                            if red.top1 else " or {'bounds': [...]}")
                          + ", or {'relaxed': {'chain': [...], 'leaf': ...}}")
    kind, body = next(iter(node.items()))
    if kind == "relaxed":
        _relaxed(red, body, dec)
        return
    if kind == "farkas":
        _farkas(red, body, dec, "leaf")
        return
    if kind == "top1":
        _top1(red, body, dec)
        return
    if not isinstance(body, list) or len(body) != len(red.targets):
        raise CheckFailed(f"an {kind} leaf has one entry per target ({len(red.targets)})")
    for r, (entry, out) in enumerate(zip(body, red.targets)):
        if kind == "equal":
            if combination(red, entry, dec, equations_only=True) != out:
                raise CheckFailed(f"an equal leaf's equations do not sum to output {r}'s difference")
            continue
        if not isinstance(entry, list) or len(entry) != 2:
            raise CheckFailed("a bounds leaf has [upper, lower] for each output")
        E = red.slack
        _bound(red, entry[0], dec, (out[0], out[1] - E), f"output {r}'s difference <= {canonical(E)}")
        _bound(red, entry[1], dec, (_neg(out)[0], -out[1] - E), f"output {r}'s difference >= -{canonical(E)}")


def _neuron(red, u, dec) -> int:
    if type(u) is not int or not 0 <= u < len(red.forms) or u in dec:
        raise CheckFailed(f"a split or fix must name a neuron 0 <= u < {len(red.forms)} not decided on its path")
    return u


def _fix(red, node, dec) -> tuple[int, bool]:
    if set(node) != {"fix", "bound"} or not isinstance(node["fix"], list) or len(node["fix"]) != 2 \
            or type(node["fix"][1]) is not bool:
        raise CheckFailed("a fix node is {'fix': [neuron, active], 'bound': combination}")
    u, active = _neuron(red, node["fix"][0], dec), node["fix"][1]
    z = red.forms[u]
    _bound(red, node["bound"], dec, _neg(z) if active else z, f"neuron {u} {'active' if active else 'inactive'}")
    return u, active


def _form(red, obj) -> tuple[dict, Fraction]:
    if not isinstance(obj, dict) or set(obj) != {"terms", "constant"} or not isinstance(obj["terms"], list):
        raise CheckFailed("a lemma's form is {'terms': [[variable, q], ...], 'constant': q}")
    f: dict = {}
    for e in obj["terms"]:
        top = red.d + len(red.forms)
        if not (isinstance(e, list) and len(e) == 2 and type(e[0]) is int and 0 <= e[0] < top and e[0] not in f):
            raise CheckFailed(f"a lemma's term must be [variable, q], each variable 0 <= v < {top} once")
        f[e[0]] = parse_rational(e[1])
    return {v: a for v, a in f.items() if a}, parse_rational(obj["constant"])


def _walk(red, tree, targets, slack, top1=False) -> int:
    red.targets, red.slack, red.top1, red.arg, red.chain, red.chain_rows = targets, slack, top1, None, {}, {}
    return walk_tree(tree, {}, lambda u, dec: _neuron(red, u, dec), lambda node, dec: _leaf(red, node, dec),
                     fix=lambda node, dec: _fix(red, node, dec))


def check_phase_tree(red, tree, lemmas, box, slack, top1) -> int:
    """Walk the lemmas' trees, then ``tree``, over the phases of ``red``'s neurons on the box (``(lower, upper)``,
    or None for R^d) with the main tree's bounds leaves within ``slack`` (and its top1 leaves with ``top1``); the
    number of leaves, or CheckFailed."""
    if not isinstance(lemmas, list):
        raise CheckFailed("lemmas must be a list of {'forms': [...], 'tree': [...]}")
    red.proved, red.box, red.static_rows, leaves = [], box, {}, 0
    for lemma in lemmas:
        if not isinstance(lemma, dict) or set(lemma) != {"forms", "tree"} or not isinstance(lemma["forms"], list) \
                or not lemma["forms"]:
            raise CheckFailed("a lemma is {'forms': [one or more forms], 'tree': [...]}")
        forms = [_form(red, f) for f in lemma["forms"]]
        leaves += _walk(red, lemma["tree"], forms, Fraction(0))
        red.proved += forms
    return leaves + _walk(red, tree, red.outputs, slack, top1)
