"""The claims ``equivalent`` and ``not-equivalent`` about two networks given inline. Standard library only.

A network is ``{"activation", "U" (m x k), "V" (k x d), "b" (k, optional), "c" (m, optional)}`` and computes
``x -> sum_i U[r][i] f(V[i] . x + b[i]) + c[r]``, f the ReLU or the rectified power t^c (docs/certificates.md).

``not-equivalent``
    ``"witness"`` (d rationals) and ``"values"`` (two lists of m rationals): each network, evaluated here
    exactly at the witness, gives its stated value, and the two values differ.
``equivalent``
    both networks have the same activation, d and m, and the canonical form stated in ``"canonical"``,
    which this module recomputes from each network and compares (docs/equivalence.md). The form: write
    each unit's (V_i, b_i) as g p with p a primitive integer vector (d + 1 entries) and g > 0, so that
    ``u f(V_i x + b_i) = u g^c f(p . (x, 1))``; if the first non-zero entry of p's first d entries is
    negative, use ``f(q . y) = (-1)^(c+1) f(-q . y) + (q . y)^c``. Coefficients on equal p add up
    (``"hyperplanes"``: normals p, sorted, and their non-zero coefficients); the terms ``(q . y)^c`` are the
    affine part A x + e for the ReLU (``"linear"`` A and ``"offset"``), grouped by -q for c >= 2
    (``"powers"``, ``(-1)^c`` times the coefficient on the normal -q); units with V_i = 0 add u f(b_i) to the
    offset, as does c. Equal forms mean equal functions: each term of one form is the same function as the
    sum of the terms it came from.

Both claims need no instance. The stated canonical form must be written as this module writes it
(canonical rational strings, normals as integer strings), so that it is compared as text.

With a ``"domain"`` (``{"kind": "R^d"}``) and a ``"property"`` (``{"kind": "equal"}``) the networks may have any
depth (``"layers"``, :mod:`.deep`): ``not-equivalent`` evaluates both at the witness as above; ``equivalent``
(ReLU) carries ``"tree"``, a case tree over the neuron phases of the reduced difference of the two networks,
which this checker recomputes (:mod:`.deep`) and walks (:mod:`.phases`).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from operator import mul

from .common import (CheckFailed, activation_degree, canonical, cap_bits, check_power, lcm_within, limit, only_fields,
                     parse_rational, read_vector)
from .deep import evaluate, read_network, reduced_difference
from .phases import check_phase_tree

_NET_FIELDS = {"activation", "U", "V", "b", "c"}


_ROW = re.compile(r"(?:-?[0-9]+(?:/[0-9]+)?\x00)*")  # a row of canonical rationals, joined by NUL


def _pq(x) -> tuple[int, int]:
    """A rational as (numerator, denominator > 0), read by parse_rational."""
    f = parse_rational(x)
    return f.numerator, f.denominator


def _row(r) -> tuple[list[int], list[int] | None]:
    """(numerators, denominators or None when all are 1) of a row of rationals. Canonical strings ("-3", "5/7")
    are read in bulk (one regular expression, then int); anything else entry by entry by parse_rational."""
    if all(type(x) is str for x in r) and max(map(len, r), default=0) <= limit("digits"):
        joined = "\x00".join(r) + "\x00"
        if _ROW.fullmatch(joined):
            if "/" not in joined:
                return list(map(int, r)), None
            pairs = [x.partition("/") for x in r]
            dens = [int(q) if q else 1 for _, _, q in pairs]
            if all(dens):  # a zero denominator goes to parse_rational
                return [int(p) for p, _, _ in pairs], dens
    pairs = [_pq(x) for x in r]
    return [p for p, _ in pairs], [q for _, q in pairs]


def _rows(obj, rows: int | None, cols: int | None, name: str) -> list[tuple[list[int], list[int] | None]]:
    """A non-empty list of ``rows`` rows (any number when None) of ``cols`` rationals (the first row's width
    when None, at least 1), each as :func:`_row` reads it."""
    if not isinstance(obj, list) or not obj or (rows is not None and len(obj) != rows):
        raise CheckFailed(f"{name} must be a non-empty list of rows" + (f" ({rows} rows)" if rows is not None else ""))
    width = cols if cols is not None else (len(obj[0]) if isinstance(obj[0], list) else 0)
    out = []
    for r in obj:
        if not isinstance(r, list) or len(r) != width or width < 1:
            raise CheckFailed(f"every row of {name} must be a list of {width or 'one or more'} rationals")
        out.append(_row(r))
    return out


def _fractions(row) -> list[Fraction]:
    nums, dens = row
    return [Fraction(p) for p in nums] if dens is None else [Fraction(p, q) for p, q in zip(nums, dens)]


def _network(obj, which: int):
    """(degree, U columns, unit rows (integers w, denominator L) with (V_i, b_i) = w / L, output bias, d, m)."""
    if not isinstance(obj, dict):
        raise CheckFailed(f"network {which} must be an object")
    only_fields(obj, _NET_FIELDS)
    c = activation_degree(obj.get("activation"))
    V = _rows(obj.get("V"), None, None, f"V of network {which}")
    k, d = len(V), len(V[0][0])
    U = [_fractions(r) for r in _rows(obj.get("U"), None, k, f"U of network {which}")]
    m = len(U)
    b = _fractions(_rows([obj["b"]], 1, k, f"b of network {which}")[0]) if "b" in obj else [Fraction(0)] * k
    out = _fractions(_rows([obj["c"]], 1, m, f"c of network {which}")[0]) if "c" in obj else [Fraction(0)] * m
    units = []
    for (nums, dens), bi in zip(V, b):
        if dens is None and bi.denominator == 1:
            units.append((nums + [bi.numerator], 1))
            continue
        L = lcm_within([*(dens or [1]), bi.denominator], cap_bits(), f"a unit of network {which}")
        units.append(([p * (L // q) for p, q in zip(nums, dens or [1] * d)] + [bi.numerator * (L // bi.denominator)], L))
    cols = [[U[r][i] for r in range(m)] for i in range(k)]
    return c, cols, units, out, d, m


def _add(table: dict, key, vec, sign: int) -> None:
    acc = table.setdefault(key, [Fraction(0)] * len(vec))
    for r, v in enumerate(vec):
        acc[r] += sign * v


def _terms(table: dict) -> dict:
    kept = sorted((p, g) for p, g in table.items() if any(g))
    return {"normals": [[str(x) for x in p] for p, _ in kept], "coefficients": [[canonical(x) for x in g] for _, g in kept]}


def _affine(flips: dict, m: int, d: int) -> list[list[Fraction]]:
    """``sum_q coef_q q`` (m rows of d + 1), each output over the lcm of its denominators (integer sums)."""
    rows = []
    for r in range(m):
        terms = [(g[r], q) for q, g in flips.items() if g[r]]
        L = math.lcm(*(f.denominator for f, _ in terms)) if terms else 1
        acc = [0] * (d + 1)
        for f, q in terms:
            n = f.numerator * (L // f.denominator)
            acc = [a + n * x for a, x in zip(acc, q)]
        rows.append([Fraction(a, L) for a in acc])
    return rows


def canonical_form(net) -> dict:
    """The canonical form of a parsed network (module docstring), written as the certificate states it."""
    c, cols, units, out, d, m = net
    hyper, powers, flips, offset = {}, {}, {}, list(out)
    for (w, L), u in zip(units, cols):
        g = math.gcd(*w)
        if g == 0 or not any(u):
            continue
        p = [x // g for x in w]
        check_power(c, max(g.bit_length(), L.bit_length()), "a unit's scale in the canonical form")
        coef = [x * Fraction(g, L) ** c for x in u]
        lead = next((x for x in p[:d] if x), 0)
        if lead == 0:
            if p[d] > 0:
                offset = [o + x for o, x in zip(offset, coef)]
        elif lead > 0:
            _add(hyper, tuple(p), coef, 1)
        else:
            key = tuple(-x for x in p)
            _add(hyper, key, coef, (-1) ** (c + 1))
            _add(flips if c == 1 else powers, tuple(p) if c == 1 else key, coef, 1 if c == 1 else (-1) ** c)
    form = {"hyperplanes": _terms(hyper)}
    if c == 1:
        A = _affine(flips, m, d)
        form["linear"] = [[canonical(x) for x in row[:d]] for row in A]
        offset = [o + row[d] for o, row in zip(offset, A)]
    else:
        form["powers"] = _terms(powers)
    form["offset"] = [canonical(x) for x in offset]
    return form


def _evaluate(net, x: list[Fraction]) -> list[Fraction]:
    """The network's m outputs at x, exactly (integer pre-activations: x = Nx / X)."""
    c, cols, units, out, d, m = net
    X = math.lcm(*(f.denominator for f in x))
    Nx = [f.numerator * (X // f.denominator) for f in x] + [X]
    values = list(out)
    for (w, L), u in zip(units, cols):
        t = sum(map(mul, w, Nx))
        if t > 0:
            check_power(c, max(t.bit_length(), (L * X).bit_length()), "the network's value at the witness")
            h = Fraction(t**c, (L * X) ** c)
            values = [v + ur * h for v, ur in zip(values, u)]
    return values


def _pair(cert: dict, extra: set):
    only_fields(cert, {"format", "version", "claim", "networks", "provenance"} | extra)
    nets = cert.get("networks")
    if not isinstance(nets, list) or len(nets) != 2:
        raise CheckFailed("networks must be a list of two networks")
    a, b = _network(nets[0], 1), _network(nets[1], 2)
    if a[0] != b[0] or a[4] != b[4] or a[5] != b[5]:
        raise CheckFailed("the two networks differ in activation, input dimension d or output dimension m")
    return a, b


def _describe(a, b) -> str:
    act = "relu" if a[0] == 1 else f"power {a[0]}"
    return f"(k = {len(a[1])} and {len(b[1])} units, d = {a[4]}, m = {a[5]}, {act})"


def _deep_pair(cert: dict, extra: set):
    """Two networks of any depth with the same activation, d and m; the domain (None for R^d, else the box
    ``(lower, upper)``) and the property (None for equal, epsilon, or :data:`TOP1`)."""
    only_fields(cert, {"format", "version", "claim", "networks", "domain", "property", "provenance"} | extra)
    nets = cert.get("networks")
    if not isinstance(nets, list) or len(nets) != 2:
        raise CheckFailed("networks must be a list of two networks")
    a, b = read_network(nets[0], 1), read_network(nets[1], 2)
    d = len(a[1][0][0][0])
    if a[0] != b[0] or d != len(b[1][0][0][0]) or len(a[1][-1][0]) != len(b[1][-1][0]):
        raise CheckFailed("the two networks differ in activation, input dimension d or output dimension m")
    dom, prop, box, eps = cert.get("domain"), cert.get("property"), None, None
    if isinstance(dom, dict) and dom.get("kind") == "box" and set(dom) == {"kind", "lower", "upper"}:
        box = read_vector(dom["lower"], d, "the box's lower"), read_vector(dom["upper"], d, "the box's upper")
        if any(lo > hi for lo, hi in zip(*box)):
            raise CheckFailed("the box is empty (a lower bound above its upper bound)")
    elif dom != {"kind": "R^d"}:
        raise CheckFailed('the domain is {"kind": "R^d"} or {"kind": "box", "lower": [...], "upper": [...]}')
    if isinstance(prop, dict) and set(prop) == {"kind", "epsilon", "norm"} and prop["kind"] == "epsilon" \
            and prop["norm"] == "max":
        eps = parse_rational(prop["epsilon"])
        if eps < 0:
            raise CheckFailed("epsilon must be >= 0")
    elif prop == {"kind": "top1"}:
        eps = TOP1
    elif prop != {"kind": "equal"}:
        raise CheckFailed('the property is {"kind": "equal"}, {"kind": "epsilon", "epsilon": q, "norm": "max"} or '
                          '{"kind": "top1"}')
    return a, b, box, eps


#: the property top1 (``{"kind": "top1"}``): at every x of the domain the two networks' argmax sets meet
TOP1 = "top1"
TIES = "ties: the sets of largest outputs meet"


def _argmax(values) -> set:
    top = max(values)
    return {r for r, v in enumerate(values) if v == top}


def _where(box, eps) -> str:
    """The claim in words: equal, within epsilon or top-1 equal, on R^d or the box."""
    what = ("the same function" if eps is None else f"top-1 equal ({TIES})" if eps is TOP1 else
            f"within {canonical(eps)} of each other (max over the outputs)")
    return f"{what} on " + ("all of R^d" if box is None else f"the box of {len(box[0])} intervals")


def _widths(net) -> str:
    return "-".join(map(str, [len(net[1][0][0][0])] + [len(W) for W, _ in net[1]]))


def _check_deep_equivalent(cert: dict) -> str:
    a, b, box, eps = _deep_pair(cert, {"tree", "lemmas"})
    if a[0] != 1:
        raise CheckFailed("an equivalent claim with a case tree is about ReLU networks")
    red = reduced_difference(a, b)
    top1 = eps is TOP1
    leaves = check_phase_tree(red, cert.get("tree"), cert.get("lemmas", []), box,
                              Fraction(0) if top1 else eps or Fraction(0), top1)
    tree = f"{leaves} {'leaf' if leaves == 1 else 'leaves'}"
    proof = f"{len(cert['lemmas'])} lemmas and case trees of {tree}" if cert.get("lemmas") else f"case tree of {tree}"
    name = "equivalent" if eps is None else "top1-equivalent" if top1 else "epsilon-equivalent"
    return (f"{name}: the two networks (widths {_widths(a)} and "
            f"{_widths(b)}, relu) are {_where(box, eps)} (reduced difference: {len(red.forms)} "
            f"neuron{'' if len(red.forms) == 1 else 's'}; {proof} checked)")


def check_equivalent(cert: dict, instance=None) -> str:
    """Verify ``equivalent``: both networks' canonical forms, recomputed here, equal the stated one; or, with a
    domain, the case tree over the phases of their reduced difference."""
    if "domain" in cert:
        return _check_deep_equivalent(cert)
    a, b = _pair(cert, {"canonical"})
    stated = cert.get("canonical")
    for which, net in ((1, a), (2, b)):
        if canonical_form(net) != stated:
            raise CheckFailed(f"the canonical form of network {which} differs from the stated one")
    hyper = len(stated["hyperplanes"]["normals"])
    return (f"equivalent: the two networks {_describe(a, b)} are the same function on all of R^d "
            f"(canonical form: {hyper} hyperplanes{', affine part' if a[0] == 1 else ', grouped power terms'})")


def check_not_equivalent(cert: dict, instance=None) -> str:
    """Verify ``not-equivalent``: both networks evaluated at the witness give the stated values, which differ (by more
    than epsilon in some output, with that property; with top1, in sets of largest outputs that do not meet); with a
    box, the witness lies in it."""
    deep = "domain" in cert
    a, b, box, eps = (_deep_pair if deep else lambda *z: (*_pair(*z), None, None))(cert, {"witness", "values"})
    d, m = (len(a[1][0][0][0]), len(a[1][-1][0])) if deep else (a[4], a[5])
    x = _fractions(_rows([cert.get("witness")], 1, d, "witness")[0])
    values = [_fractions(r) for r in _rows(cert.get("values"), 2, m, "values")]
    if box is not None and not all(lo <= t <= hi for lo, t, hi in zip(box[0], x, box[1])):
        raise CheckFailed("the witness is not in the box")
    for which, net, stated in ((1, a, values[0]), (2, b, values[1])):
        got = evaluate(net, x) if deep else _evaluate(net, x)
        for r, (v, s) in enumerate(zip(got, stated)):
            if v != s:
                raise CheckFailed(f"network {which} at the witness is {canonical(v)}, not the stated {canonical(s)}"
                                  + (f" (output {r})" if len(got) > 1 else ""))
    if eps is TOP1:
        if _argmax(values[0]) & _argmax(values[1]):
            raise CheckFailed("the two networks' largest outputs at the witness have a class in common")
    elif values[0] == values[1] or eps is not None and max(abs(p - q) for p, q in zip(*values)) <= eps:
        raise CheckFailed("the two values at the witness are equal" if eps is None else
                          f"the two values at the witness differ by at most {canonical(eps)} in every output")
    shape = f"(widths {_widths(a)} and {_widths(b)})" if deep else _describe(a, b)
    if eps is TOP1:
        return (f"not-top1-equivalent: the two networks {shape} have no largest output in common at the witness "
                f"({TIES}; both evaluated exactly)") + ("" if box is None else ", which lies in the box")
    return (f"not-equivalent: the two networks {shape} differ at the witness (both evaluated exactly)" if eps is None
            else f"not-epsilon-equivalent: the two networks {shape} differ by more than {canonical(eps)} at the "
                 "witness (both evaluated exactly)") + ("" if box is None else ", which lies in the box")


#: the readers the ``transcript`` claim shares (trusted modules import each other's public names only)
rational_row, rational_rows, network_units = _row, _rows, _network
