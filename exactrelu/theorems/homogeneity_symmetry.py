"""Positive homogeneity and permutation symmetry: the identifiability classes, exactly.

Claim: for f = relu or the rectified power t^c, any positive diagonal D and permutation P,
(U D^-c P^T) f(P D V x) = U f(V x) for every x; both networks have the same canonical form
(Network.canonical), which is idempotent and computes the same function. This includes dead
units (a zero row of V or a zero column of U), which the canonical form zeroes entirely (an
earlier canonical() left their output column unnormalized: this proof found it). Negative scales are
not in the class: flipping the sign of one row of V (with a non-zero output column) changes
the function.

Source: docs/design.md (identifiability and canonical form); Bakshi, Jayaram, Woodruff (COLT 2019),
recovery "up to permutation and positive scaling".

Proof. (1) The scalar lemma f(l t) = l^c f(t) for l > 0, by exact case analysis in SymPy
(t = s > 0, t = 0, t = -s < 0 with s, l positive symbols): the network identity follows
unit by unit, and a permutation only reorders the sum over units. (2) The code agrees: on
``trials`` random networks (seeded, every activation) with random rational D > 0 and P,
evaluate_exact gives equal labels on random rational inputs, the canonical forms are equal,
canonical() is idempotent and evaluates to the same labels, and a sign flip is detected by an
exact witness input. One trial in four has a dead unit.

>>> rec = prove(trials=3)
>>> rec["passed"], rec["networks_checked"]
(True, 3)
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from ..exact.matrix import QMatrix
from ..network import Activation, Network
from ._gaussian import lam, s
from ._random import columns_scaled, matrix, rational, rows_scaled

CLAIM = ("Positive homogeneity and permutation symmetry: U f(V x) = (U D^-c P^T) f(P D V x) for D > 0 "
         "diagonal, P a permutation; equal canonical forms; sign flips are not symmetries")
SOURCE = "docs/design.md (canonical form); Bakshi-Jayaram-Woodruff, COLT 2019"

ACTIVATIONS = (Activation.relu(), Activation.power(2), Activation.power(3))

def _f(c: int, t):
    return sp.Piecewise((t**c, t > 0), (0, True))


def scalar_lemma(max_degree: int = 3) -> list[str]:
    """Failures of f(l t) = l^c f(t) (l > 0) in the three cases t > 0, t = 0, t < 0."""
    bad = []
    for c in range(1, max_degree + 1):
        for case, t in (("t>0", s), ("t=0", sp.Integer(0)), ("t<0", -s)):
            if sp.simplify(_f(c, lam * t) - lam**c * _f(c, t)) != 0:
                bad.append(f"c={c}, {case}")
    return bad


def transformed(net: Network, D: list[Fraction], perm: list[int]) -> Network:
    """The network (U D^-c P^T, P D V): unit perm[i] of the result is unit i of ``net`` scaled by D[i]."""
    c = net.activation.degree
    V = rows_scaled(net.V, D).take_rows(perm)
    U = columns_scaled(net.U, [1 / d**c for d in D]).take_columns(perm)
    return Network(U, V, net.activation)


def _flip_witness(net: Network, i: int, X: QMatrix) -> bool:
    signs = [Fraction(-1) if j == i else Fraction(1) for j in range(net.k)]
    flipped = Network(net.U, rows_scaled(net.V, signs), net.activation)
    return not (flipped.evaluate_exact(X) == net.evaluate_exact(X))


def prove(trials: int = 30, seed: int = 0) -> dict:
    """Run the scalar lemma and ``trials`` exact network checks; return the record."""
    rng = np.random.default_rng(seed)
    failures = [f"scalar lemma fails: {c}" for c in scalar_lemma()]
    flips = 0
    for trial in range(trials):
        act = ACTIVATIONS[trial % len(ACTIVATIONS)]
        k, m, d = int(rng.integers(1, 5)), int(rng.integers(1, 4)), int(rng.integers(1, 5))
        V = matrix(rng, k, d)
        if trial % 4 == 3:  # a dead unit (zero row of V): canonical() must zero its output column too
            V = rows_scaled(V, [Fraction(int(i != trial % k)) for i in range(k)])
        net = Network(matrix(rng, m, k), V, act)
        X = matrix(rng, 12, d, bound=4, max_den=8)
        D = [abs(rational(rng, bound=5, max_den=7, nonzero=True)) for _ in range(k)]
        perm = [int(p) for p in rng.permutation(k)]
        other = transformed(net, D, perm)
        can = net.canonical()
        checks = {
            "same labels": other.evaluate_exact(X) == net.evaluate_exact(X),
            "same canonical form": other.canonical().U == can.U and other.canonical().V == can.V,
            "equivalent": other.equivalent(net),
            "canonical idempotent": can.canonical().U == can.U and can.canonical().V == can.V,
            "canonical computes the same function": can.evaluate_exact(X) == net.evaluate_exact(X),
        }
        failures += [f"trial {trial}: {name}" for name, ok in checks.items() if not ok]
        # a sign flip of a unit with a non-zero output column and non-zero row changes the function;
        # inputs x and -x cannot both leave a non-zero row inactive, so they give an exact witness
        U, V = net.U.to_fractions(), net.V.to_fractions()
        live = [i for i in range(k) if any(r[i] != 0 for r in U) and any(v != 0 for v in V[i])]
        if live:
            i = live[0]
            row = net.V.to_fractions()[i]
            probe = QMatrix.from_fractions(row + [-v for v in row], 2, d)
            probe3 = QMatrix.from_fractions(row + [-v for v in row] + X.to_fractions()[0], 3, d)
            if _flip_witness(net, i, probe) or _flip_witness(net, i, probe3):
                flips += 1
            else:
                failures.append(f"trial {trial}: flipping unit {i} was not detected")
    return {"passed": not failures, "failures": failures, "networks_checked": trials, "seed": seed,
            "sign_flips_detected": flips, "scalar_lemma_cases": 3 * 3,
            "activations": [str(a) for a in ACTIVATIONS]}
