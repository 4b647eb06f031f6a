"""Two hidden layers with a first layer wider than its input (k1 > d; docs/extraction.md, "A first layer wider
than its input").

With k1 > d the first layer's outputs ``h = relu(W1 x + b1)`` lie on a d-dimensional surface of the orthant: no
query moves one first-layer neuron alone, so neither its orientation nor the second layer can be read as in
:mod:`.deep`. Instead the network is rewritten in ``H(x) = (relu(z(x)), x)``, with ``z_i = p_i . (x, 1)`` each
first-layer hyperplane as read (first normal entry positive): a true neuron is ``relu(z_i)`` or
``relu(-z_i) = relu(z_i) - z_i``, so every second-layer pre-activation is ``g_j = u_j . relu(z) + alpha_j . x +
beta_j`` (an affine function of H), and ``f = sum_j c_j relu(g_j) + A H + e``. The network written has the
first layer, then 2d pass-through units ``relu(x_l)``, ``relu(-x_l)`` (``x_l`` is their difference) where needed.

1. **First layer.** The hyperplanes met on at least two lines whose kinks lie in at least two cells of the
   arrangement of the others (a second-layer piece lies in one cell).
2. **Sightings.** A kink at x off every first-layer hyperplane, in the cell S (the neurons with ``z_i(x) > 0``), is
   a second-layer kink: its Jacobian jump is ``Delta = w a^T`` with w along the neuron's output weights
   (normalised w_r0 = 1) and ``a = +-grad g_j`` on S, scaled by the same ``W3_j[r0]`` at every sighting. So
   ``sum_(i in S) u_i p_i + (alpha, beta) = mu (a, -a . x)`` with ``mu = +-1``. Sightings are grouped into
   neurons by w, the sign of ``a . q`` and their bent hyperplane (:mod:`.grouping`; one output included).
3. **Each neuron** solves these equations over all its sightings, with one unknown mu per sighting: an exact
   homogeneous system whose solutions must be one line (else the weights are not determined: more lines, then
   refused), scaled to ``mu_1 = 1``, with every ``|mu_s| = 1``. Its output weight is ``c = w sign(a . q)``
   (the same at every sighting: Delta q = W3_j |a . q|). Its orientation does not matter: ``relu(-g) = relu(g)
   - g`` and g is affine in H, so the difference goes into A.
4. **A and e.** Every region met (both sides of every kink) gives ``J = sum over active j of c_j grad g_j + A
   grad H``: an exact linear system in A (a first-layer hyperplane seen from both sides fixes its column); e
   from one answer.
5. **Verification** as for two hidden layers: fresh queries, then random lines checked inside every piece of the
   network's own out to ``|t| <= 2^22``; a point where they differ seeds a new line.

>>> from exactrelu.network import Network
>>> from exactrelu.extract.oracles import NetworkOracle
>>> from exactrelu.equiv import functionally_equal
>>> hidden = Network.from_layers([([[0, 0, 0], [-1, 2, -1], [1, -1, 0], [2, -2, 1], [0, 1, 1]], [-1, 1, 1, 0, -2]),
...                               ([[1, -2, 2, 2, 2], [-2, 2, 2, 0, 2], [1, 1, -2, -2, -1]], [-1, 0, 2]),
...                               ([[1, 0, 0], [1, 1, -2]], None)])            # 3-5-3-2, the first neuron dead
>>> net, evidence = wide_layers(NetworkOracle(hidden), np.random.default_rng(6))
>>> functionally_equal(net, hidden).status, net.widths[0], evidence["wide"]
('equivalent', 3, True)
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np

from ..equiv.canonical import CanonicalForm
from ..equiv.minimize import network_from_form
from ..errors import AssumptionViolated
from ..exact.matrix import QMatrix
from ..network import Network
from .layer import first_layer, frequent
from .line_search import Line, kinks, random_line, simplest_between
from .oracles import Oracle
from .cells import _AGAIN, _choose, _dot, _unit, _value, breakpoints
from .grouping import group_sightings
from .regions import _primitive, region_jacobians

__all__ = ["wide_layers", "wide_first_layer"]


def wide_first_layer(candidates: list, seen: list) -> list:
    """The first layer among the ``candidates`` (most frequent first): without, one at a time (least frequent
    first), each whose kinks all lie in one cell of the arrangement of the others (a piece of a second-layer
    neuron's bent hyperplane lies in one cell of the first layer; a first-layer hyperplane crosses the others).

    >>> F = Fraction
    >>> kinks = [([F(0), F(1)],), ([F(0), F(-1)],), ([F(1), F(0)],), ([F(-1), F(0)],), ([F(2), F(3)],), ([F(3), F(2)],)]
    >>> wide_first_layer([(1, 0, 0), (0, 1, 0), (1, 1, -5)], kinks)     # x + y = 5 only where x, y > 0: a piece
    [(1, 0, 0), (0, 1, 0)]
    """
    planes = list(candidates)
    signs = [[_dot(p, x) for p in planes] for x, *_ in seen]
    keep = list(range(len(planes)))
    while True:
        for i in reversed(keep):
            cells = {tuple(row[j] > 0 for j in keep if j != i) for row in signs if row[i] == 0}
            if len(cells) < 2:
                keep.remove(i)
                break
        else:
            return [planes[i] for i in keep]


def _form(planes, units, A, e, d: int, m: int) -> CanonicalForm:
    """G's canonical form over y = (h, relu(x), relu(-x)): each unit on its primitive hyperplane (a negative
    scale flips it: ``relu(-t) = relu(t) - t``, into the affine part), A and e with x = relu(x) - relu(-x)."""
    k1 = len(planes)
    k = k1 + 2 * d
    linear = [[A[i][r] for i in range(k1)] + [A[k1 + l][r] for l in range(d)] + [-A[k1 + l][r] for l in range(d)]
              for r in range(m)]
    offset = list(e)
    coef: dict = {}
    for theta, c in units:
        vec = list(theta[:k1 + d]) + [-v for v in theta[k1:k1 + d]] + [theta[-1]]
        if not any(vec[:k]):
            offset = [o + cr * max(vec[-1], 0) for o, cr in zip(offset, c)]
            continue
        P = _primitive(vec)
        lead = next(i for i, v in enumerate(vec) if v)
        scale = Fraction(P[lead]) / vec[lead]
        beta = [cr / abs(scale) for cr in c]
        if scale < 0:
            linear = [[a - b * p for a, p in zip(row, P[:k])] for row, b in zip(linear, beta)]
            offset = [o - b * P[-1] for o, b in zip(offset, beta)]
        old = coef.get(P, [Fraction(0)] * m)
        coef[P] = [a + b for a, b in zip(old, beta)]
    hyper = tuple((P, tuple(b)) for P, b in sorted(coef.items()) if any(b))
    return CanonicalForm(1, k, m, hyper, tuple(tuple(r) for r in linear), (), tuple(offset))


def _compose(planes, form: CanonicalForm, d: int) -> Network:
    """The first layer (each hyperplane, then relu(x_l), relu(-x_l)) under the network of G, without the first-layer
    units no second-layer unit reads."""
    top, _, _ = network_from_form(form)
    W2, b2 = top.layers[0].W.to_fractions(), top.layers[0].b_fractions()
    rows = [[Fraction(v) for v in p[:-1]] for p in planes]
    rows += [[Fraction(int(l == t)) for t in range(d)] for l in range(d)]
    rows += [[Fraction(-int(l == t)) for t in range(d)] for l in range(d)]
    bias = [Fraction(p[-1]) for p in planes] + [Fraction(0)] * (2 * d)
    used = [i for i in range(len(rows)) if any(row[i] for row in W2)] or [0]
    return Network.from_layers([([rows[i] for i in used], [bias[i] for i in used]),
                                ([[row[i] for i in used] for row in W2], b2),
                                (top.layers[1].W.to_fractions(), top.layers[1].b_fractions())])


def _read(oracle: Oracle, rng: np.random.Generator, counts: dict, seen: list):
    """Steps 1-4 of the module docstring on the kinks seen so far: (network, G's form, first-layer width, units)."""
    d, m = oracle.d, oracle.m
    top = max(counts.values(), default=0)
    planes = wide_first_layer([p for p in frequent(counts) if 2 * counts[p] >= top], seen)
    if not planes:
        raise AssumptionViolated("no first-layer hyperplane met on two lines in two cells of the others",
                                 evidence=_AGAIN)
    groups = group_sightings(planes, seen, d, m)
    units, free, why = [], [], []
    for w, sightings in groups:
        got = _unit(planes, d, w, sightings)
        if isinstance(got, str):
            why.append(got)
        elif not got[2]:
            units.append(got[:2])
        else:
            free.append(got)
    if why:
        raise AssumptionViolated(f"{len(why)} of the {len(groups)} second-layer neurons seen cannot be read "
                                 f"({why[0]})", evidence=_AGAIN)
    k1 = len(planes)
    A, units = _choose(planes, units, free, seen, d, m)
    x0 = [Fraction(int(v), 64) for v in rng.integers(-512, 513, size=d)]
    y0 = oracle([x0])[0]
    H = [max(_dot(p, x0), 0) for p in planes] + list(x0)
    e = [y - sum(A[i][r] * H[i] for i in range(k1 + d)) - sum(c[r] * max(_value(th, planes, x0), 0)
                                                               for th, c in units) for r, y in enumerate(y0)]
    form = _form(planes, units, A, e, d, m)
    return _compose(planes, form, d), form, k1, len(units)


def _differs(oracle: Oracle, net: Network, count: int, rng: np.random.Generator, spread: int = 1):
    """A random dyadic point where ``net`` and the oracle differ, or None (``count`` queries in ``[-8, 8]^d`` times
    ``spread``)."""
    points = [[Fraction(int(v) * spread, 64) for v in rng.integers(-512, 513, size=oracle.d)] for _ in range(count)]
    want = net.evaluate_exact(QMatrix.from_fractions([x for p in points for x in p], count, oracle.d)).to_fractions()
    return next((x for x, a, b in zip(points, oracle(points), want) if a != b), None)


def _along_lines(oracle: Oracle, net: Network, count: int, rng: np.random.Generator, reach: int = 2**22):
    """A point where ``net`` and the oracle differ on one of ``count`` random lines, or None: on each line, three
    answers inside every piece between the network's own breakpoints within ``|t| <= reach`` (far beyond the
    fresh points: a unit misread where no region was met shows there), asked as one line block."""
    layers = [(layer.W.to_fractions(), layer.b_fractions()) for layer in net.layers]
    for _ in range(count):
        line = random_line(oracle.d, rng)
        cuts = [Fraction(-reach)] + breakpoints(layers, line.p, line.q, Fraction(-reach), Fraction(reach))
        ts = []
        for a, b in zip(cuts, cuts[1:] + [Fraction(reach)]):
            mid = simplest_between(a, b)
            ts += [simplest_between(a, mid), mid, simplest_between(mid, b)]
        got = oracle.along_line(list(line.p), list(line.q), ts)
        points = [line.at(t) for t in ts]
        want = net.evaluate_exact(QMatrix.from_fractions([v for x in points for v in x], len(ts), oracle.d))
        bad = next((x for x, a, b in zip(points, got, want.to_fractions()) if a != b), None)
        if bad is not None:
            return bad
    return None


def _line_through(oracle: Oracle, point, rng: np.random.Generator, counts: Counter, seen: list) -> None:
    """The kinks (with their Jacobians) of a random line through ``point``, added to ``counts`` and ``seen``."""
    line = Line(point, random_line(oracle.d, rng).q)
    found, J = kinks(oracle, line), []
    form = region_jacobians(oracle, line, found, jacobians=J)
    counts.update(p for p, _ in form.hyperplanes)
    seen += [(line.at(kink.t), J[j], J[j + 1], line.q) for j, kink in enumerate(found)]


def wide_layers(oracle: Oracle, rng: np.random.Generator, *, lines: int = 12, found=None, fresh: int = 512,
                rounds: int = 4, progress=None) -> tuple[Network, dict]:
    """The deep network (widths d, k1 + up to 2d, k2', m) and the evidence (module docstring), with ``found`` the
    ``(candidates, counts, seen)`` of :func:`.layer.first_layer` if the lines were drawn already. After a step that
    fails for want of kinks, or a fresh query that differs, ``lines`` more random lines (or one through the point
    that differs) are drawn, up to ``rounds`` times; then refused with the last reason."""
    if found is None:
        found = first_layer(oracle, rng, lines, progress)
    counts, seen, drawn = Counter(found[1]), list(found[2]), lines
    for attempt in range(rounds + 1):
        try:
            net, form, k1, units = _read(oracle, rng, counts, seen)
            bad = (_differs(oracle, net, fresh, rng) or _differs(oracle, net, fresh, rng, 512)
                   or _along_lines(oracle, net, 16, rng))
            if bad is None:
                return net, {"form": form, "first_layer": k1, "second_layer_units": units, "lines": drawn,
                             "rounds": attempt, "wide": True}
            reason = ("the network found differs from the oracle at a fresh query (a second-layer neuron never met, "
                      "or the first layer misread)")
        except AssumptionViolated as exc:
            if not exc.evidence.get("again"):
                raise
            reason, bad = str(exc), None
        if attempt == rounds:
            break
        if progress:
            progress(f"extract: k1 > d, round {attempt + 1}: {reason[:60]}...; more lines")
        if bad is not None:
            _line_through(oracle, bad, rng, counts, seen)
        else:
            more = first_layer(oracle, rng, lines, progress)
            counts.update(more[1])
            seen += more[2]
            drawn += lines
    raise AssumptionViolated(f"a first layer wider than its input (k1 > d): {reason}, after {rounds} rounds of more "
                             "lines")
