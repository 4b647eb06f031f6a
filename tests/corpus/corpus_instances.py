"""The instances of the corpus: small, fixed (seeds or hand-written), each chosen for one claim. Used by make_corpus.py."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from exactrelu.hardness import NAEFormula, NaeToRelu
from exactrelu.instances import Instance, planted
from exactrelu.network import Activation, Network

INSTANCES = ("plain", "biased", "both", "power", "corrupted", "noisy", "unrealisable", "nae", "tiny", "constant_column",
             "constant_column_free", "identity", "span", "offset", "offset_span")
GRID = [(x, y) for x in range(-4, 4) for y in range(-2, 3)]  # 40 samples, kinks on grid points


def _relu(t):
    return max(t, 0)


def _with_labels(inst, labels):
    return Instance.from_arrays(inst.inputs.to_fractions(), labels, planted=inst.planted)


def build_instances() -> dict:
    out = {}
    out["plain"] = planted(3, 2, 2, 12, inputs="integer", seed=1)
    out["biased"] = planted(3, 2, 2, 12, inputs="integer", bias=2, seed=2)
    net = Network.from_rows([[1, -1], [2, 1]], [[1, 0, -1], [0, 1, 1]], b=["1/2", -1], c=[3, "-1/4"])
    X = np.random.default_rng(3).integers(-3, 4, size=(12, 3)).tolist()
    out["both"] = Instance.from_arrays(X, net.evaluate_exact(X).to_fractions(), planted=net)
    out["power"] = planted(2, 2, 2, 10, activation=Activation.power(2), inputs="integer", seed=4)
    labels = [list(row) for row in out["plain"].labels.to_fractions()]
    out["corrupted_entries"] = [(2, 0), (5, 1), (9, 0)]
    for j, r in out["corrupted_entries"]:
        labels[j][r] += 1
    out["corrupted"] = _with_labels(out["plain"], labels)
    noisy = [[y + Fraction((j + r) % 3 - 1, 8) for r, y in enumerate(row)]
             for j, row in enumerate(out["plain"].labels.to_fractions())]
    out["noisy"] = _with_labels(out["plain"], noisy)
    out["unrealisable"] = Instance.from_arrays([[1, 0], [0, 1], [1, 1], [-1, 0], [0, -1], [-1, -1]],
                                               [[1], [1], [3], [1], [1], [0]])
    f = NAEFormula(3, [(1, 2, 3), (1, 2, -3), (1, -2, 3), (-1, 2, 3), (1, -2, -3), (-1, 2, -3), (-1, -2, 3), (-1, -2, -3)])
    out["nae"], _ = NaeToRelu().apply(f)
    out["tiny"] = Instance.from_arrays([[1, 0], [2, 0], [-1, 1], [-2, 0], [1, 0]], [1, 2, 4, 2, 1])  # issue 26
    pts = [(x, y, 2) for x, y in GRID]
    out["constant_column"] = Instance.from_arrays(
        pts, [[_relu(x + y - 1) + 2 * _relu(-x + 2 * y + 1) - _relu(x - 2)] for x, y, _ in pts])
    out["constant_column_free"] = Instance.from_arrays(  # the same labels on the grid itself (solve --bias appends 1)
        GRID, [[_relu(x + y - 1) + 2 * _relu(-x + 2 * y + 1) - _relu(x - 2)] for x, y in GRID])
    out["identity"] = Instance.from_arrays([[i + 1, 1] for i in range(3)], [[int(i == r) for r in range(3)] for i in range(3)])
    out["span"] = Instance.from_arrays([[1, 0], [0, 1], [1, 1], [-1, 0], [0, -1], [2, 1]],
                                       [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [0, 0]])
    # issue 33: rank(labels) = 2 = k + 1 for k = 1 (no refutation with an output bias), rank([labels | 1]) = 3
    out["offset"] = Instance.from_arrays([[1], [2], [3]], [[1, 0], [0, 1], [0, 0]])
    # 3 + relu(x - 1) would fit; 3, 3, 5 at 0, 1, 2 needs a hidden bias: no unit without one, with c, reproduces it
    out["offset_span"] = Instance.from_arrays([[0], [1], [2]], [[3], [3], [5]])
    return out
