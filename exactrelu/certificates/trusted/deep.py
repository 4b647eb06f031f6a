"""Networks of any depth in certificates: reading them, evaluating them, the reduced difference of two. Stdlib only.

A network is ``{"activation", "layers": [{"W": rows, "b": entries (optional)}, ...]}`` (W with one row per
output, first layer first), or the two-layer ``{"activation", "U", "V", "b", "c"}`` (layers V, b and U, c).
It computes ``W_L f(... f(W_1 x + b_1) ...) + b_L``.

**The reduced difference** of two ReLU networks A and B (docs/certificates.md, "Deep equivalence"). Values are
*forms*: a map {variable: coefficient} and a constant, the variables ``0 .. d-1`` the inputs x and ``d + u`` the
output y_u >= 0 of reduced neuron u. The inputs are the forms x_t. Layer by layer, first A then B, each neuron's
pre-activation is the form F = W_i . (forms below) + b_i, and its output is:

* ``relu(F)``'s constant when F has no variable (0 or the constant);
* 0 when F has no input variable, no positive coefficient and a constant <= 0 (the y are >= 0: F <= 0);
* F when F has no input variable, no negative coefficient and a constant >= 0 (F >= 0);
* else ``s y_u`` with s = |coefficient of F's lowest variable| and u the neuron whose form is F / s (made new
  if no neuron has it; relu(s z) = s relu(z)); or, when a neuron u already has the form -F / s,
  ``s y_u + F`` (relu(z) = relu(-z) + z).

Each rule is an identity for every x, so ``A(x) - B(x)`` is the difference of the two output forms, with every
y_u = relu(form_u). Forms are computed in order, so a neuron's form has only variables below its own.
"""

from __future__ import annotations

import math
from fractions import Fraction

from operator import mul

from .common import (CheckFailed, activation_degree, cap_bits, check_power, digits_of, lcm_within, limit, only_fields,
                     over, read_matrix, read_vector)


def read_network(obj, which) -> tuple[int, list]:
    """(activation degree, [(W rows, b), ...]) of a network object, every size checked."""
    if not isinstance(obj, dict):
        raise CheckFailed(f"network {which} must be an object")
    c = activation_degree(obj.get("activation"))
    if "layers" not in obj:
        only_fields(obj, {"activation", "U", "V", "b", "c"})
        V, U = obj.get("V"), obj.get("U")
        if not isinstance(V, list) or not V or not isinstance(V[0], list) or not isinstance(U, list) or not U:
            raise CheckFailed(f"network {which} needs 'layers', or U and V")
        raw = [{"W": V, **({"b": obj["b"]} if "b" in obj else {})}, {"W": U, **({"b": obj["c"]} if "c" in obj else {})}]
    else:
        only_fields(obj, {"activation", "layers"})
        raw = obj["layers"]
    if not isinstance(raw, list) or not raw:
        raise CheckFailed(f"the layers of network {which} must be a non-empty list")
    layers, width = [], None
    for t, layer in enumerate(raw):
        if not isinstance(layer, dict) or "W" not in layer or set(layer) - {"W", "b"}:
            raise CheckFailed(f"layer {t} of network {which} must be an object with W and optionally b")
        W = layer["W"]
        rows = len(W) if isinstance(W, list) else 0
        cols = len(W[0]) if rows and isinstance(W[0], list) else 0
        if rows < 1 or cols < 1 or (width is not None and cols != width):
            raise CheckFailed(f"W of layer {t} of network {which} must have rows of {width or 'one or more'} entries")
        name = f"layer {t} of network {which}"
        b = read_vector(layer["b"], rows, f"b of {name}") if "b" in layer else [Fraction(0)] * rows
        layers.append((read_matrix(W, rows, cols, f"W of {name}"), b))
        width = rows
    return c, layers


class HiddenLayers:
    """The layers ``[(W rows, b), ...]`` that take each sample's inputs to the last two layers, f after each, each
    layer over one denominator D (W = NW / D, b = Nb / D; over the limit ``intermediate``: refused).

    A sample's values are integers over one denominator: a layer makes ``f(NW . Nh + Nb Dh)`` over ``(D Dh)^c``.
    :meth:`over` bounds the bits of both, before the sample is evaluated, from its inputs' size and each layer's
    largest row sum of |entries|.
    """

    def __init__(self, layers: list, c: int) -> None:
        self.c, self.ints = c, []
        for t, (W, b) in enumerate(layers):
            D = lcm_within([f.denominator for row in W for f in row] + [f.denominator for f in b], cap_bits(),
                           f"layer {t}")
            NW = [[f.numerator * (D // f.denominator) for f in (*row, bi)] for row, bi in zip(W, b)]
            self.ints.append((NW, D, max(sum(map(abs, r)).bit_length() for r in NW)))

    def over(self, x_bits: int) -> tuple | None:
        """(layer, bits) of the first hidden layer whose values, for inputs of ``x_bits`` bits (numerators and
        denominator), could be over the limit; None when none could."""
        num = den = x_bits
        for t, (_, D, rows) in enumerate(self.ints):
            num, den = self.c * (rows + max(num, den)), self.c * (D.bit_length() + den)
            if max(num, den) > cap_bits():
                return t, max(num, den)
        return None

    def first_over(self, xs: list) -> int:
        """The index of the first size of ``xs`` that :meth:`over` refuses (``len(xs)`` when none: all are within
        when the largest is)."""
        if not xs or self.over(max(xs)) is None:
            return len(xs)
        return next(j for j, x in enumerate(xs) if self.over(x) is not None)

    def refusal(self, x_bits: int, j: int) -> Exception:
        """The refusal of sample j, of ``x_bits`` bits, by :meth:`over`."""
        t, bits = self.over(x_bits)
        return over("intermediate", f"the exact values of hidden layer {t + 1} at sample {j} (integers of about "
                                    f"{digits_of(bits)} digits)")

    def rows(self, X: list) -> list:
        """The rows X (``(numerators, denominators)`` per sample) through the layers: each sample's values as integers
        over one denominator, in the same row form."""
        out, c = [], self.c
        for nums, dens in X:
            Dh = math.lcm(*dens)
            Nh = [p * (Dh // q) for p, q in zip(nums, dens)]
            for NW, D, _ in self.ints:
                t = [sum(map(mul, r, Nh)) + r[-1] * Dh for r in NW]  # zip stops at Nh: r[-1] is the bias
                Nh, Dh = [v**c if v > 0 else 0 for v in t], (D * Dh) ** c
            out.append((Nh, [Dh] * len(Nh)))
        return out


def evaluate(net, x: list[Fraction]) -> list[Fraction]:
    """The network's outputs at x, exactly (the activation between the layers, none after the last)."""
    c, layers = net
    h = x
    for t, (W, b) in enumerate(layers):
        if t:
            for v in h:
                check_power(c, max(v.numerator.bit_length(), v.denominator.bit_length()), "a value at the witness")
            h = [v**c if v > 0 else Fraction(0) for v in h]
        den = lcm_within([v.denominator for v in h], cap_bits(), "the values of a layer at the witness")
        for row, bi in zip(W, b):  # the sum's denominator divides den times this lcm
            lcm_within([den, bi.denominator, *(w.denominator for w in row)], cap_bits(), "a neuron at the witness")
        h = [sum(w * v for w, v in zip(row, h) if w) + bi for row, bi in zip(W, b)]
    return h


class Reduction:
    """The reduced difference of two ReLU networks of input size d (module docstring).

    ``forms[u]`` is neuron u's pre-activation (a form over variables below d + u); ``outputs`` the forms of
    A(x) - B(x). ``terms`` counts the coefficient operations, refused over the limit ``terms``.
    """

    def __init__(self, d: int):
        self.d, self.forms, self.keys, self.terms = d, [], {}, 0

    def combine(self, row, values, bias) -> tuple[dict, Fraction]:
        acc: dict = {}
        const = bias
        for w, (f, k) in zip(row, values):
            if not w:
                continue
            self.terms += len(f) + 1
            if self.terms > limit("terms"):
                raise over("terms", "the reduction of the two networks")
            for v, a in f.items():
                acc[v] = acc.get(v, 0) + w * a
            const += w * k
        return {v: a for v, a in acc.items() if a}, const

    def output(self, F: tuple[dict, Fraction]) -> tuple[dict, Fraction]:
        f, k = F
        d = self.d
        if not f:
            return {}, max(k, Fraction(0))
        if min(f) >= d:
            if k <= 0 and all(a <= 0 for a in f.values()):
                return {}, Fraction(0)
            if k >= 0 and all(a >= 0 for a in f.values()):
                return F
        s = abs(f[min(f)])
        names = tuple(sorted(f))
        D = math.lcm(k.denominator, *(a.denominator for a in f.values()))
        ints = [f[v].numerator * (D // f[v].denominator) for v in names] + [k.numerator * (D // k.denominator)]
        g = math.gcd(*ints)
        key = (names, tuple(x // g for x in ints))  # F / s, as the primitive integer vector with F's signs
        u = self.keys.get(key)
        if u is not None:
            return {d + u: s}, Fraction(0)
        u = self.keys.get((names, tuple(-x // g for x in ints)))
        if u is not None:  # relu(z) = relu(-z) + z
            return {**f, d + u: f.get(d + u, 0) + s}, k
        self.keys[key] = u = len(self.forms)
        self.forms.append(({v: a / s for v, a in f.items()}, k / s))
        return {d + u: s}, Fraction(0)

    def network(self, layers, tick=None) -> list[tuple[dict, Fraction]]:
        """The output forms of one network, adding its neurons to the reduction (``tick(self)`` before each layer:
        the library's deadline; the checker passes none)."""
        values = [({t: Fraction(1)}, Fraction(0)) for t in range(self.d)]
        for W, b in layers[:-1]:
            if tick is not None:
                tick(self)
            values = [self.output(self.combine(row, values, bi)) for row, bi in zip(W, b)]
        W, b = layers[-1]
        return [self.combine(row, values, bi) for row, bi in zip(W, b)]


def reduced_difference(a, b, tick=None) -> Reduction:
    """The reduction of A - B (both ReLU, same d and m): ``.forms``, ``.outputs`` (m forms) and ``.nets``, the
    output forms of A and of B (``tick``: :meth:`Reduction.network`)."""
    red = Reduction(len(a[1][0][0][0]))
    oa, ob = red.network(a[1], tick), red.network(b[1], tick)
    red.nets = oa, ob
    red.outputs = []
    for (fa, ka), (fb, kb) in zip(oa, ob):
        f = dict(fa)
        for v, x in fb.items():
            f[v] = f.get(v, 0) - x
        red.outputs.append(({v: x for v, x in f.items() if x}, ka - kb))
    return red
