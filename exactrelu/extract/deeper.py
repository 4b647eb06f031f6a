"""Three and more hidden layers from an exact oracle (docs/extraction.md, "More hidden layers").

The first layer is read as for two hidden layers (:mod:`.layer`): ``h = relu(N_1 x + c_1)``, and every h >= 0 is
reached at ``x = R_1 (h - c_1)``. From there on the work is in y = h (k1 coordinates), on a polyhedral domain D_l
(:mod:`.domain`) where every neuron of the layers found below layer l - 1 is active: D_2 is the orthant, and
D_(l+1) = D_l with ``N_l y + c_l >= 0``. On D_l the pre-activations of layer l are ``N_l y + c_l``, affine in y
(the layers below are linear there), and:

* with two or more hidden layers left, layer l is read like the first layer: kinks on chords of D_l (through the
  kinks of the level below, kept next to the faces they lie near, and through random points), the hyperplanes (of y)
  met on the most chords, chosen and oriented by :func:`.layer.layer_choices`; a normal ``a`` of one is ``w M``
  (M: the rows of the layer below in y), and ``w = a R_M`` is its row in that layer's outputs;
* with one hidden layer left, it is read face by face of the layer below (:mod:`.faces`): with random weights that
  layer's neurons are all active at only 0 to 26 % of the inputs, so the all-active region alone does not show it.

Every step only proposes: the deep network must give the fresh answers exactly (4,096 by default from
:func:`~exactrelu.extract.extract`), and the transcript certificate of every query is checked by the independent
checker. A weight of the last hidden layer never seen (a unit never met
where some neuron of the layer below is active) is refused rather than guessed: on random 6-5-4-3-1 and
10-8-6-4-1 nets a 0 there gave a network that passed 2,048 fresh queries and still differed from the oracle.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..equiv.canonical import CanonicalForm
from ..equiv.minimize import network_from_form
from ..errors import AssumptionViolated
from ..exact.lp import feasible
from ..network import Network
from .deep import MappedOracle, _differs, _starts
from .domain import Domain
from .faces import Faces
from .layer import _wider_than_input, first_layer, frequent, layer_choices
from .line_search import Line, kinks, random_line
from .oracles import Oracle
from .regions import jacobian, region_jacobians

__all__ = ["hidden_layers"]


def _times(row, R) -> list[Fraction]:
    """row R (row: n entries; R: n x k)."""
    return [sum((a * r[j] for a, r in zip(row, R) if a and r[j]), Fraction(0)) for j in range(len(R[0]))]


def _below(a, M, RM) -> list[Fraction]:
    """w with ``w M = a`` (a: a normal in y), or the refusal: a is no function of the layer below."""
    w = _times(a, RM)
    if _times(w, M) != [Fraction(v) for v in a]:
        raise AssumptionViolated("a hyperplane met where every neuron found is active is no function of the outputs of "
                                 "the layer below (a neuron of that layer active on all of the domain and never seen, "
                                 "or an oracle deeper than asked)")
    return w


class _Context:
    """What every level shares: the oracle in y = h (first-layer outputs), the generator, the options."""

    def __init__(self, oracle, h_oracle, rng, widths, lines, chords, fresh, rounds, choices, progress):
        self.oracle, self.h, self.rng, self.widths, self.lines = oracle, h_oracle, rng, widths, lines
        self.chords, self.fresh, self.rounds, self.choices, self.progress = chords, fresh, rounds, choices, progress
        self.first: tuple = ()
        self.evidence: dict = {"chords": [], "rounds": 0}

    def say(self, text: str) -> None:
        if self.progress:
            self.progress(f"extract: {text}, {self.oracle.queries} queries")


def _survey(ctx: _Context, domain: Domain, count: int, starts):
    """Kinks and Jacobians on ``count`` chords of the domain (through the ``starts`` first): (hyperplane counts, the
    kinks seen as (y, left Jacobian, right Jacobian, q)); a chord through a start does not count the hyperplane it
    was drawn to cross (the start's own)."""
    counts: dict = {}
    seen = []
    through = len([y for y, _ in starts if domain.inside(y)])
    for n, (line, lo, hi) in enumerate(domain.chords(ctx.rng, count, starts)):
        try:
            found, J = kinks(ctx.h, line, lo=lo, hi=hi), []
            form = region_jacobians(ctx.h, line, found, lo=lo, hi=hi, jacobians=J, walls=domain.planes)
        except AssumptionViolated as exc:
            if not exc.evidence.get("line_specific"):
                raise
            continue
        own = None  # a chord through a start crosses the start's own hyperplane next to it: not counted
        if n < through and found:
            t = min((kink.t for kink in found), key=abs)
            own = next((p for p, _ in form.hyperplanes if sum(a * v for a, v in zip(p, line.at(t))) + p[-1] == 0),
                       None)
        for p, _ in form.hyperplanes:
            if p != own:
                counts[p] = counts.get(p, 0) + 1
        seen += [(line.at(kink.t), J[j], J[j + 1], line.q) for j, kink in enumerate(found)]
        ctx.say(f"chord {n + 1} of {count} (level {len(ctx.first) + 1}): {len(found)} kinks")
    ctx.evidence["chords"].append(count)
    return counts, seen


def _raised(domain: Domain, y, N, c, R, rng) -> tuple | None:
    """y moved so that the coordinates of ``N y + c`` that are not positive become small positive ones (the others
    kept: ``N R = I``), if the point is then inside the domain restricted to ``N y + c > 0``, with the walls it is
    next to; else None."""
    z = [sum((a * v for a, v in zip(row, y) if a), Fraction(0)) + ci for row, ci in zip(N, c)]
    small = Fraction(1, 2**12) * min([v for v in z if v > 0] or [1])
    move = [0 if v > 0 else small * Fraction(64 + int(rng.integers(0, 64)), 64) - v for v in z]
    y2 = [v + sum((r * t for r, t in zip(row, move) if t), Fraction(0)) for v, row in zip(y, R)]
    inner = domain.restrict(N, c)
    return (y2, inner.tight(y2)) if inner.inside(y2) else None


def _network(layers: list, form: CanonicalForm) -> Network:
    top, _, _ = network_from_form(form)
    return Network.from_layers(layers + [(top.layers[0].W.to_fractions(), top.layers[0].b_fractions()),
                                         (top.layers[1].W.to_fractions(), top.layers[1].b_fractions())])


def _sight(ctx: _Context, domain: Domain, faces: Faces, chords, count: int) -> None:
    """Kinks and regions on the chords ``(line, lo, hi)``, recorded face by face."""
    for n, (line, lo, hi) in enumerate(chords):
        regions: list = []
        try:
            found = kinks(ctx.h, line, lo=lo, hi=hi)
            form = region_jacobians(ctx.h, line, found, lo=lo, hi=hi, walls=domain.planes + faces.planes,
                                    regions=regions)
        except AssumptionViolated as exc:
            if not exc.evidence.get("line_specific"):
                raise
            continue
        for kink in found:
            y = line.at(kink.t)
            p, beta = next((p, b) for p, b in form.hyperplanes if sum(a * v for a, v in zip(p, y)) + p[-1] == 0)
            faces.kink(y, p, beta)
        for y, value, J in regions:
            try:
                faces.region(y, value, J)
            except AssumptionViolated:  # a probe crossed a hyperplane no kink of the chord shows, or a neuron is missed
                faces.region(y, value, jacobian(ctx.h, y, value, Fraction(1, 2**40)), missed=True)
        ctx.say(f"chord {n + 1} of {count} (last hidden layer): {len(found)} kinks, {len(faces.units)} units")
    ctx.evidence["chords"].append(count)


def _direction(domain: Domain, N, c, y, j: int) -> list[Fraction] | None:
    """A direction d that raises z_j = N_j y + c_j at rate 1 and keeps the other active coordinates of ``N y + c``
    positive, with y + T d still in the domain, for T = 2 (1 - z_j) or else 1.25 (-z_j) + 2^-8 (the LP of
    :func:`exactrelu.exact.lp.feasible`); None when there is none."""
    z = [sum(a * v for a, v in zip(row, y)) + ci for row, ci in zip(N, c)]
    S = [i for i, v in enumerate(z) if v > 0]
    for T in (2 * (1 - z[j]), Fraction(5, 4) * (-z[j]) + Fraction(1, 256)):
        A = [[-T * v for v in a] for a, _ in domain.walls] + [[-T * v for v in N[i]] for i in S]
        b = [sum(u * v for u, v in zip(a, y)) + a0 for a, a0 in domain.walls] + [z[i] for i in S]
        res = feasible(A_eq=[N[j]], b_eq=[Fraction(1)], A_ub=A, b_ub=b, nvars=domain.n)
        if res.status == "feasible":
            return res.point
    return None


def _towards(domain: Domain, faces: Faces, N, c) -> list:
    """For each unit never seen with coordinate j of the layer below (j off wherever it was seen): chords from either
    side of points where it was seen (moved off its hyperplane by up to 2^-6 of |z_j| there, the other coordinates'
    signs kept), in a direction that raises z_j and keeps the other active coordinates active (:func:`_direction`):
    past ``z_j = 0`` the unit may change sign on a face with j."""
    out = []
    for _, j, where in faces.missing(every=True):
        for y, p in where[:6]:
            q = _direction(domain, N, c, y, j)
            if q is None:
                continue
            z = [sum(a * v for a, v in zip(row, y)) + ci for row, ci in zip(N, c)]
            norm = sum(a * a for a in p[:-1])
            for side in (1, -1):
                for scale in (2**6, 2**12, 2**18):
                    y2 = [v + side * abs(z[j]) * a / (scale * norm) for v, a in zip(y, p[:-1])]
                    z2 = [sum(a * v for a, v in zip(row, y2)) + ci for row, ci in zip(N, c)]
                    if domain.inside(y2) and all((u > 0) == (v > 0) and v for u, v in zip(z, z2)):
                        out.append((Line(y2, q), *domain.chord(y2, q)))
                        break
    return out


def _unseen(faces: Faces) -> AssumptionViolated:
    u, j, _ = faces.missing()[0]
    return AssumptionViolated(f"{len(faces.missing())} weights of the last hidden layer are not known: unit {u} was "
                              f"never seen where neuron {j} of the layer below is active (nor reached from where it "
                              "was seen); nothing is answered rather than a guess", evidence={"line_specific": True})


def _last(ctx: _Context, domain: Domain, N, c, starts, layers: list) -> tuple[Network, CanonicalForm]:
    """The last hidden layer on the domain, face by face of the layer below (``N y + c``, :mod:`.faces`), and the
    fresh queries; more chords (through a point where the network differs, or a random one while some weight is
    unseen) up to ``rounds`` times. A weight never seen is refused, not guessed."""
    faces = Faces(N, c, ctx.h.m)
    count = len(starts) + 2 * ctx.chords
    _sight(ctx, domain, faces, domain.chords(ctx.rng, count, starts), count)
    N1, c1 = ctx.first
    for attempt in range(ctx.rounds + 1):
        for _ in range(2):
            more = _towards(domain, faces, N, c)
            _sight(ctx, domain, faces, more, len(more))
        x = [Fraction(int(v), 64) for v in ctx.rng.integers(-512, 513, size=ctx.oracle.d)]
        try:
            if faces.missing():
                raise _unseen(faces)
            form = faces.form()
            net = _network(layers, form)
            bad = (_differs(ctx.oracle, net, ctx.fresh, ctx.rng)  # near, then far out (|x| up to 4096)
                   or _differs(ctx.oracle, net, ctx.fresh, ctx.rng, 512))
        except AssumptionViolated as exc:
            if not exc.evidence.get("line_specific") or attempt == ctx.rounds:
                raise
        else:
            if bad is None:
                ctx.evidence.update(rounds=attempt)
                return net, form
            x = bad
        if attempt == ctx.rounds:
            raise AssumptionViolated(f"the network found differs from the oracle at a fresh query after {ctx.rounds} "
                                     "more rounds of chords: the oracle is not a network of this form (deeper than "
                                     "asked), or a neuron is active only where no line or chord went",
                                     evidence={"point": [str(v) for v in x]})
        line = Line(x, random_line(ctx.oracle.d, ctx.rng).q)
        points = [x] + [line.at(kink.t) for kink in kinks(ctx.oracle, line)]
        more = [(h, domain.tight(h)) for h, _, _ in _starts(N1, c1, points, ctx.rng)]
        _sight(ctx, domain, faces, domain.chords(ctx.rng, len(more) + ctx.chords, more), len(more) + ctx.chords)


def _choices(ctx: _Context, domain: Domain, starts, layer: int, width):
    """The readings of layer ``layer`` on the domain (:func:`.layer.layer_choices` on the hyperplanes met on chords);
    when none orients, twice as many chords again once (through the starts again, in new directions)."""
    count = ctx.lines + min(len(starts), 2 * ctx.lines)
    counts, seen = _survey(ctx, domain, count, starts)
    try:
        yield from ((planes, oriented, seen) for planes, oriented in
                    layer_choices(frequent(counts), seen, ctx.lines, width))
        return
    except AssumptionViolated:
        pass
    more, seen2 = _survey(ctx, domain, 2 * ctx.lines + min(len(starts), 4 * ctx.lines), starts[::-1])
    counts = {p: counts.get(p, 0) + more.get(p, 0) for p in {**counts, **more}}
    seen += seen2
    try:
        yield from ((planes, oriented, seen) for planes, oriented in
                    layer_choices(frequent(counts), seen, ctx.lines, width))
    except AssumptionViolated as exc:
        raise AssumptionViolated(f"layer {layer}: {exc}".replace("first layer", "layer").replace("first-layer",
                                                                                                 f"layer-{layer}"))


def _level(ctx: _Context, domain: Domain, M, m, RM, left: int, starts, layers: list):
    """The layers above the ``layers`` found, ``left`` hidden layers of them, on the domain where those are all
    active (module docstring); each level tries up to ``choices`` of its readings, decided by the fresh queries."""
    width = ctx.widths[len(layers)] if ctx.widths and len(ctx.widths) > len(layers) else None
    errors: list = []
    for planes, (N, c, R), seen in _choices(ctx, domain, starts, len(layers) + 1, width):
        rows = [_below(row, M, RM) for row in N]
        offsets = [ci - sum(a * v for a, v in zip(w, m)) for ci, w in zip(c, rows)]
        inner = [y for y, *_ in seen if all(sum(a * v for a, v in zip(p, y)) + p[-1] for p in planes)]
        try:
            if left == 2:
                return _last(ctx, domain, N, c, [(y, domain.tight(y)) for y in inner][:4 * ctx.chords],
                             layers + [(rows, offsets)])
            nxt = [y2 for y in inner if (y2 := _raised(domain, y, N, c, R, ctx.rng)) is not None]
            return _level(ctx, domain.restrict(N, c), N, c, R, left - 1, nxt, layers + [(rows, offsets)])
        except AssumptionViolated as exc:
            errors.append(exc)
            if len(errors) >= ctx.choices:
                break
    raise errors[0]


def hidden_layers(oracle: Oracle, rng: np.random.Generator, depth: int, *, widths=None, lines: int = 12,
                  chords: int = 16, fresh: int = 512, rounds: int = 4, choices: int = 2,
                  progress=None) -> tuple[Network, dict]:
    """The network with ``depth`` >= 2 hidden layers behind the oracle (module docstring), and the evidence.

    >>> from exactrelu.network import Network
    >>> from exactrelu.extract.oracles import NetworkOracle
    >>> from exactrelu.equiv import functionally_equal
    >>> hidden = Network.from_layers([([[2, 3, 3, 0], [3, 3, 3, -3], [0, 1, -2, -1]], [1, 2, 0]),
    ...                               ([[-2, 1, 3], [-2, 0, -1], [3, -3, 0]], [2, 0, -2]),   # the second is dead
    ...                               ([[2, 3, 3], [3, -1, 2]], [2, 0]), ([[3, 1]], [1])])
    >>> net, _ = hidden_layers(NetworkOracle(hidden), np.random.default_rng(0), 3)
    >>> net.widths, functionally_equal(net, hidden).status
    ((4, 3, 2, 2, 1), 'equivalent')
    """
    q0, errors = oracle.queries, []
    candidates, counts, seen = first_layer(oracle, rng, lines, progress)
    try:
        ctx = None
        for planes, (N, c, R) in layer_choices(candidates, seen, lines, widths[0] if widths else None):
            ctx = _Context(oracle, MappedOracle(oracle, R, c), rng, widths, lines, chords, fresh, rounds, choices,
                           progress)
            ctx.first = (N, c)
            k = len(N)
            eye = [[Fraction(int(i == j)) for j in range(k)] for i in range(k)]
            points = [x for x, *_ in seen if all(sum(a * v for a, v in zip(p, x)) + p[-1] for p in planes)]
            starts = [(h, {l for l in range(k) if l not in on}) for h, on, _ in _starts(N, c, points, rng)]
            try:
                net, form = _level(ctx, Domain(k), eye, [Fraction(0)] * k, eye, depth - 1, starts, [(N, c)])
            except AssumptionViolated as exc:
                errors.append(exc)
                if len(errors) >= choices:
                    break
                continue
            evidence = {"form": form, "first_layer": k, "lines": lines, "queries_lines": None,
                        "line_counts": sorted(counts.values(), reverse=True), **ctx.evidence}
            evidence["queries"] = oracle.queries - q0
            return net, evidence
        raise errors[0]
    except AssumptionViolated as exc:
        hint = _wider_than_input(candidates, counts, lines, oracle.d)
        if not hint:
            raise
        raise AssumptionViolated(f"{exc}{hint}; three or more hidden layers need d >= k1 >= k2 >= ... (two "
                                 "hidden layers take k1 > d)") from None
