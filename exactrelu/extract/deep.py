"""Two hidden layers from an exact oracle: ``f(x) = W3 relu(W2 relu(W1 x + b1) + b2) + b3`` (docs/extraction.md,
"Two hidden layers").

1. **Critical hyperplanes on lines.** On random lines every kink is found exactly and the Jacobian jump across it
   gives the hyperplane through the kink (:mod:`.line_search`, :mod:`.regions`): a first-layer neuron's kinks lie on
   one hyperplane everywhere, so the same hyperplane (primitive integer normal and offset, exact) comes back on
   almost every line; a second-layer neuron's kinks lie on a bent hyperplane, whose flat pieces are only met by the
   lines that cross that piece. The first layer is the hyperplanes met on the most lines, each kept only if its
   normal is independent of those kept (a piece's normal is a combination of first-layer normals).
2. **Signs.** With the first layer's rows N (normalised) and offsets c, every z in Q^k1 is ``N x + c`` for
   ``x = R (z - c)``, R a right inverse of N (rows independent: k1 <= d). Neuron i is off on one side of
   ``z_i = 0``: there f does not change with z_i at all (exactly), and across its kink the Jacobian jumps along
   v_i, so on the other side it does. The Jacobians of the two regions beside each kink on the lines (already
   known: no query) tell the sides apart; the active side is made positive.
3. **The second layer** is then a one-hidden-layer network G of ``h = relu(N x + c)``: on the open orthant h > 0
   (queried at ``x = R (h - c)``) every kink of G on random chords and rays of the orthant is found, with the
   Jacobians around them (k1 probes each, moving only up in h), exactly as one hidden layer is extracted; the
   hyperplanes of all chords, their coefficients and the affine part give G's canonical form, written as a network.
4. **Verification.** The deep network (N, c; G's layers) must give fresh random answers exactly; the transcript
   (every query) and the network go into a ``transcript`` certificate checked by the independent checker.

>>> from exactrelu.extract.oracles import CallableOracle
>>> base = CallableOracle(lambda x: [x[0] + 2 * x[1]], d=2)
>>> shifted = MappedOracle(base, [[Fraction(1)], [Fraction(0)]], [Fraction(1)])   # z -> x = (z - 1, 0)
>>> shifted([[Fraction(3)]]), base.queries, base.transcript[0][0]
([[Fraction(2, 1)]], 1, [Fraction(2, 1), Fraction(0, 1)])
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np

from ..equiv.canonical import CanonicalForm
from ..equiv.minimize import network_from_form
from ..errors import AssumptionViolated
from ..network import Network
from .line_search import Line, kinks, random_line
from .layer import _wider_than_input, first_layer, frequent, layer_choices, orient
from .oracles import Oracle
from .regions import _affine, _safe_step, jacobian, region_jacobians
from .wide import _differs, wide_layers

__all__ = ["MappedOracle", "first_layer", "layer_choices", "orient", "second_layer", "two_hidden_layers"]


class MappedOracle(Oracle):
    """The base oracle read in new coordinates: ``g(z) = f(R (z - c))`` (R: d x k rationals, c: k). Every query is
    asked of (and counted and kept by) the base oracle; lines stay lines."""

    def __init__(self, base: Oracle, R: list[list[Fraction]], c: list[Fraction]):
        self.base, self.R, self.c = base, R, c
        self.d, self.m, self.max_queries, self.deadline = len(c), base.m, base.max_queries, base.deadline
        self.transcript = []

    @property
    def queries(self) -> int:  # type: ignore[override]
        return self.base.queries

    def x(self, z: list[Fraction]) -> list[Fraction]:
        """R (z - c)."""
        w = [a - b for a, b in zip(z, self.c)]
        return [sum((r * v for r, v in zip(row, w) if r and v), Fraction(0)) for row in self.R]

    def _direction(self, q: list[Fraction]) -> list[Fraction]:
        return [sum((r * v for r, v in zip(row, q) if r and v), Fraction(0)) for row in self.R]

    def __call__(self, points):
        return self.base([self.x(z) for z in points])

    def along_line(self, p, q, ts):
        key = (tuple(p), tuple(q))
        if getattr(self, "_key", None) != key:  # the line search asks one line many times
            self._key, self._mapped = key, (self.x(list(p)), self._direction(list(q)))
        return self.base.along_line(*self._mapped, ts)

    def along_axes(self, x0, delta):  # type: ignore[override]
        """The points ``R (x0 + delta e_l - c) = R (x0 - c) + delta R_l`` (R_l column l of R): an axis batch of the
        base oracle along the basis of R's columns (kept once in the certificate, not as k points of d large
        rationals each)."""
        if not hasattr(self, "_basis"):
            self._basis = tuple(tuple(row[l] for row in self.R) for l in range(self.d))
        return self.base.along_axes(self.x(list(x0)), delta, self._basis)


def _chord(h0: list[Fraction], rng: np.random.Generator, on=None):
    """A random line of h-space through h0 (in the open orthant), moving only the coordinates ``on`` (all if None),
    and the part of it inside the orthant (lo, hi; None: unbounded)."""
    k = len(h0)
    q = random_line(k, rng).q
    line = Line(h0, [v if on is None or l in on else 0 for l, v in enumerate(q)])
    lows = [-a / b for a, b in zip(h0, line.q) if b > 0]
    highs = [-a / b for a, b in zip(h0, line.q) if b < 0]
    return line, (max(lows) if lows else None), (min(highs) if highs else None)


def _ray(k: int, rng: np.random.Generator):
    """A ray of the orthant from near its corner, in a direction w > 0 with entries spread over 2^-12 .. 1 (so
    that directions near the faces, where some first-layer neurons are nearly off, are drawn too)."""
    h0 = [Fraction(int(v), 2**16) for v in rng.integers(1, 65, size=k)]
    spread = rng.integers(0, 13, size=k)
    w = [Fraction(int(v), 2**(14 + int(e))) for v, e in zip(rng.integers(2**13, 2**14, size=k), spread)]
    line = Line(h0, w)
    return line, max(-a / b for a, b in zip(h0, w)), None


def _merge(hyper: dict, form: CanonicalForm) -> int:
    new = 0
    for p, beta in form.hyperplanes:
        if p in hyper and hyper[p] != tuple(beta):
            raise AssumptionViolated("one hyperplane of the second layer has two different coefficients on two chords "
                                     "(the oracle is deeper than asked)")
        new += p not in hyper
        hyper[p] = tuple(beta)
    return new


def _starts(N, c, points, rng):
    """For each critical point x of the first step not on a first-layer hyperplane: h = N x + c with the negative
    coordinates replaced by small positive ones, and the coordinates that were positive."""
    out = []
    for x in points:
        z = [sum(a * v for a, v in zip(row, x)) + ci for row, ci in zip(N, c)]
        small = Fraction(1, 2**12) * min([v for v in z if v > 0] or [1])
        out.append(([v if v > 0 else small * Fraction(64 + int(rng.integers(0, 64)), 64) for v in z],
                    {l for l, v in enumerate(z) if v > 0}, [max(v, 0) for v in z]))
    return out


def second_layer(h_oracle: MappedOracle, hyper: dict, starts, rng: np.random.Generator, *, chords: int = 0,
                 progress=None) -> int:
    """Add to ``hyper`` (p -> coefficients) the hyperplanes of G met on a chord through each start whose point is
    on no hyperplane found yet, then on ``chords`` random chords (module docstring, step 3); the chords drawn."""
    k, n = h_oracle.d, 0
    starts = list(starts)
    while starts or chords > 0:
        if starts:
            h0, on, h = starts.pop()
            if any(sum(a * v for a, v in zip(p, h)) + p[-1] == 0 for p in hyper):
                continue  # on a hyperplane found already
            line, lo, hi = _chord(h0, rng, on)
        else:
            line, lo, hi = _ray(k, rng)
            chords -= 1
        n += 1
        found = kinks(h_oracle, line, lo=lo, hi=hi)
        _merge(hyper, region_jacobians(h_oracle, line, found, lo=lo, hi=hi))
        if progress:
            progress(f"extract: chord {n}: {len(found)} kinks, {len(hyper)} second-layer hyperplanes, "
                     f"{h_oracle.queries} queries")
    return n


def _form(h_oracle: MappedOracle, hyper: dict, rng: np.random.Generator) -> CanonicalForm:
    """G's canonical form: the hyperplanes found, and the affine part from one Jacobian (probes checked against
    every hyperplane found) at a random point of the orthant."""
    k = h_oracle.d
    items = sorted(hyper.items())
    h0 = [Fraction(int(v), 64) for v in rng.integers(1, 257, size=k)]
    y0 = h_oracle([h0])[0]
    planes = [(p, max(abs(a) for a in p[:-1])) for p, _ in items]
    step = Fraction(1, 2**20)
    while (smaller := _safe_step(planes, h0, step)) is not None:
        step = smaller
    A, offset = _affine(items, jacobian(h_oracle, h0, y0, step), h0, y0, k, h_oracle.m)
    return CanonicalForm(1, k, h_oracle.m, tuple((p, b) for p, b in items if any(b)), tuple(tuple(r) for r in A), (),
                         tuple(offset))


def _compose(N, c, form: CanonicalForm) -> Network:
    """The first layer (N, c) under G's network (:func:`network_from_form`)."""
    top, _, _ = network_from_form(form)
    return Network.from_layers([(N, c), (top.layers[0].W.to_fractions(), top.layers[0].b_fractions()),
                                (top.layers[1].W.to_fractions(), top.layers[1].b_fractions())])


def _above(oracle: Oracle, rng, planes, oriented, seen, chords: int, fresh: int, rounds: int, progress):
    """Steps 3-4 on one oriented first layer: (network, evidence)."""
    N, c, R = oriented
    points = [x for x, *_ in seen if all(sum(a * v for a, v in zip(p, x)) + p[-1] for p in planes)]
    h_oracle, hyper = MappedOracle(oracle, R, c), {}
    n = second_layer(h_oracle, hyper, _starts(N, c, points, rng), rng, chords=chords, progress=progress)
    for attempt in range(rounds + 1):
        form = _form(h_oracle, hyper, rng)
        net = _compose(N, c, form)
        bad = _differs(oracle, net, fresh, rng) or _differs(oracle, net, fresh, rng, 512)  # near, then far out
        if bad is None:
            break
        if attempt == rounds:
            raise AssumptionViolated(f"the network found differs from the oracle at a fresh query after {rounds} more "
                                     "lines: the oracle is not a network with two hidden layers of this form (deeper, "
                                     "or a second-layer neuron never met, or a first-layer neuron met on fewer than 2 "
                                     "lines)",
                                     evidence={"point": [str(v) for v in bad]})
        line = Line(bad, random_line(oracle.d, rng).q)
        more = [line.at(kink.t) for kink in kinks(oracle, line)]
        more = [x for x in more if all(sum(a * v for a, v in zip(p, x)) + p[-1] for p in planes)]
        n += second_layer(h_oracle, hyper, _starts(N, c, more, rng), rng, chords=chords, progress=progress)
    return net, {"form": form, "first_layer": len(N), "second_layer_hyperplanes": len(hyper), "chords": n,
                 "rounds": attempt}


def two_hidden_layers(oracle: Oracle, rng: np.random.Generator, *, lines: int = 12, width: int | None = None,
                      chords: int = 16, fresh: int = 512, rounds: int = 4, choices: int = 3,
                      progress=None) -> tuple[Network, dict]:
    """The deep network (three affine layers) and the evidence (module docstring, steps 1-4; the fresh queries of
    step 4 are asked here: a point where the network differs seeds a new line and more chords, up to ``rounds``).
    Up to ``choices`` first layers that orient (:func:`layer_choices`) are tried in turn, each decided by the fresh
    queries; when none orients, as many lines again are drawn once. The refusal is the first choice's. When that
    fails and the lines show more first-layer hyperplanes than the input has dimensions (k1 > d), the lines go to
    :func:`.wide.wide_layers` (docs/extraction.md, "A first layer wider than its input")."""
    q0 = oracle.queries
    state = dict(zip(("candidates", "counts", "seen"), first_layer(oracle, rng, lines, progress)), lines=lines)
    try:
        return _narrow(oracle, rng, state, q0, width, chords, fresh, rounds, choices, progress)
    except AssumptionViolated as exc:
        if not _looks_wide(state["counts"], oracle.d):
            raise
        if progress:
            progress(f"extract: {str(exc)[:60]}...; more first-layer hyperplanes than d: the route for k1 > d")
        found = (state["candidates"], state["counts"], state["seen"])
        try:
            return wide_layers(oracle, rng, lines=lines, found=found, fresh=fresh, rounds=rounds, progress=progress)
        except AssumptionViolated as wide:
            raise AssumptionViolated(f"{wide}; read with k1 <= d instead: {exc}") from None


def _looks_wide(counts: dict, d: int) -> bool:
    """Whether more hyperplanes than d were met on at least 2 lines and half as many as the most frequent one."""
    top = max(counts.values(), default=0)
    return sum(1 for n in counts.values() if n >= 2 and 2 * n >= top) > d


def _narrow(oracle: Oracle, rng, state: dict, q0: int, width, chords, fresh, rounds, choices, progress):
    """:func:`two_hidden_layers` for k1 <= d (``state``: the lines' candidates, counts and kinks, updated when more
    lines are drawn)."""
    errors, refusals = [], []
    candidates, counts, seen, lines = state["candidates"], state["counts"], state["seen"], state["lines"]
    q_lines = oracle.queries - q0
    for more in (True, False):
        try:
            for planes, oriented in layer_choices(candidates, seen, lines, width, refusals=refusals):
                try:
                    net, evidence = _above(oracle, rng, planes, oriented, seen, chords, fresh, rounds, progress)
                except AssumptionViolated as exc:
                    errors.append(exc)
                    if len(errors) >= choices:
                        break
                    continue
                evidence.update(lines=lines * (2 if not more else 1), queries_lines=q_lines,
                                queries_second=oracle.queries - q0 - q_lines,
                                line_counts=sorted(counts.values(), reverse=True), choices=len(errors) + 1)
                return net, evidence
        except AssumptionViolated as exc:
            if not more:
                raise AssumptionViolated(str(exc) + _wider_than_input(candidates, counts, lines, oracle.d)) from None
            extra = first_layer(oracle, rng, lines, progress)
            counts = dict(Counter(counts) + Counter(extra[1]))
            seen += extra[2]
            q_lines = oracle.queries - q0
            candidates = frequent(counts)
            lines *= 2
            state.update(candidates=candidates, counts=counts, seen=seen, lines=lines)
            continue
        break
    if refusals and refusals[0][0] == 1:  # the greedy choice did not orient: its reason is the most telling
        raise AssumptionViolated(f"{refusals[0][1]} (and the {len(errors)} other choices of the first layer that "
                                 f"orient give a network that fails: {errors[0]})") from None
    raise errors[0]
