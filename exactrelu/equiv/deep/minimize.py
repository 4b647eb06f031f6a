"""``exactrelu minimize`` for networks of any depth: the cheap reductions, proved by an ``equivalent`` certificate.

Layer by layer, each hidden neuron i of a layer with input rows ``(W_i, b_i)`` and output column ``c_i``:

* **dead**: ``W_i = 0`` and ``b_i <= 0``, or (after the first layer, whose inputs are the outputs of a ReLU,
  all >= 0) ``W_i <= 0`` and ``b_i <= 0``: it outputs 0 everywhere and is dropped;
* **constant**: ``W_i = 0`` and ``b_i > 0``: it outputs b_i; ``b_i c_i`` moves into the next layer's bias;
* **duplicate**: ``(W_i, b_i) = s (W_j, b_j)`` with s > 0 for an earlier neuron j: it outputs s times j's
  output, so ``c_j += s c_i`` and i is dropped;
* **silent**: ``c_i = 0``: nothing reads it; dropped.

Dropping changes later layers only through columns that were zero or moved, so the rules are applied until no
neuron changes. A layer left empty keeps one silent neuron (the depth is part of the network). Every rule is one
of the reductions of the checker's reduced difference, so the certificate of ``net`` against the result has a
zero difference and a tree of one leaf.

>>> from exactrelu.network import Network
>>> net = Network.from_layers([([[1, 0], [2, 0], [0, 0]], [1, 2, -1]), ([[1, 1, 5]], [0]), ([[1]], None)])
>>> small = reduced_network(net)
>>> small.widths, small.layers[1].W.to_fractions()
((2, 1, 1, 1), [[Fraction(3, 1)]])
"""

from __future__ import annotations

import math
from fractions import Fraction

from ...network import Network

__all__ = ["reduced_network"]


def _key(row: list[Fraction], b: Fraction) -> tuple | None:
    """The primitive integer vector of (row, b) (None for zero): equal keys mean positive multiples."""
    vals = [*row, b]
    if not any(vals):
        return None
    D = math.lcm(*(v.denominator for v in vals))
    ints = [v.numerator * (D // v.denominator) for v in vals]
    g = math.gcd(*ints)
    return tuple(x // g for x in ints)


def _pass(layers: list) -> bool:
    """One pass of the rules over every hidden layer (in place); True when something changed."""
    changed = False
    for t in range(len(layers) - 1):
        (W, b), (Wn, bn) = layers[t], layers[t + 1]
        keep, seen = [], {}
        for i, (row, bi) in enumerate(zip(W, b)):
            col = [r[i] for r in Wn]
            nonneg_inputs = t > 0
            if not any(col) or (bi <= 0 and (not any(row) or (nonneg_inputs and all(x <= 0 for x in row)))):
                continue  # silent or dead
            if not any(row):  # constant b_i > 0
                bn = [x + bi * c for x, c in zip(bn, col)]
                continue
            key = _key(row, bi)
            if key in seen:
                j = seen[key]
                s = next(x / y for x, y in zip(row + [bi], W[j] + [b[j]]) if y)
                for r in Wn:
                    r[j] += s * r[i]
                continue
            seen[key] = i
            keep.append(i)
        if keep:
            new = ([W[i] for i in keep], [b[i] for i in keep]), ([[r[i] for i in keep] for r in Wn], bn)
        else:  # one silent neuron keeps the layer
            new = ([[Fraction(0)] * len(W[0])], [Fraction(0)]), ([[Fraction(0)] for _ in Wn], bn)
        if new != (layers[t], layers[t + 1]):
            changed = True
            layers[t], layers[t + 1] = new
    return changed


def reduced_network(net: Network) -> Network:
    """``net`` without its dead, constant, duplicate and silent neurons (module docstring); the same function."""
    layers = [([list(r) for r in layer.W.to_fractions()], layer.b_fractions()) for layer in net.layers]
    while _pass(layers):
        pass
    out = []
    for W, b in layers:
        out.append((W, b if any(b) else None))
    return Network.from_layers(out, net.activation) if out else net

