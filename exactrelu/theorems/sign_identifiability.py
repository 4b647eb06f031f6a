"""Sign identifiability of biased ReLU networks from their Hermite coefficients f_0 and f_1.

Claim. Let f(x) = sum_i a_i relu(w_i . x + b_i) with every a_i != 0, and let f^S be f with the
units of S flipped, (w_i, b_i) -> (-w_i, -b_i). For x ~ N(0, I):
(a) the Hermite coefficients of order t >= 2 of f and f^S are equal (orders >= 2 are blind to signs);
(b) f^S has the same f_0 and f_1 as f iff sum_{i in S} a_i (w_i, b_i) = 0, iff f^S = f everywhere;
(c) if the w_i are linearly independent (full rank) only S = {} qualifies: exactly one sign choice
    matches f_0 and f_1, and the float resolver (``exactrelu.propose.hermite.signs.resolve_signs``)
    finds it from every starting orientation;
(d) otherwise every qualifying S gives the same function on any data (shown exactly with
    ``evaluate_exact``), and an S that matches f_1 but not f_0 changes f by a non-zero constant.

Source: Awasthi, Tang, Vijayaraghavan (NeurIPS 2021), Theorem 3.4 (identifiable up to signs; the
d + 1 equations (5) of f_0 and f_1) and Theorem 4.1 (unique in full rank) (shared/seeds/002).

Proof. (a), (b): with g_t the closed forms proved in ``biased_relu_hermite``, SymPy simplifies
g_t(-b) - (-1)^t g_t(b) to 0 for 2 <= t <= max_order (the unit tensor (-u)^(x)t gives the other
(-1)^t), and g_0(b) - g_0(-b) - b and g_1(b) + g_1(-b) - 1 to 0. So f - f^S has Hermite
coefficients f_0 - f^S_0 = sum_S a_i b_i and f_1 - f^S_1 = sum_S a_i w_i (a unit of the flipped
network has f_1-coefficient -a_i g_1(-b_i) = a_i (g_1(b_i) - 1)), and zero for t >= 2; it is
the affine function sum_S a_i (w_i . x + b_i) (relu(t) - relu(-t) = t, ``sign_ambiguity``),
which is zero iff those coefficients vanish. (c): sum_S a_i w_i = 0 with independent w_i forces
a_i = 0 on S. Checked exactly (Fractions / FLINT ranks) on ``trials`` random full-rank networks
with ``equivalent_flips`` (which must return only the empty set), and the float resolver on
population f_0, f_1 from each of the 2^k orientations. (d): on random dependent constructions
``equivalent_flips`` returns non-empty S; each flip gives exactly the same labels on random
rational data, every other flip changes them; and the example with sum a_i w_i = 0,
sum a_i b_i = 1 differs by exactly 1 at every sample.

>>> rec = prove(trials=2, max_order=6)
>>> rec["passed"], rec["full_rank_unique"], rec["constant_shift_example"]
(True, True, True)
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np

from ..exact.linalg import exact_rank, primitive_kernel
from ..network import Network
from ._gaussian import b, is_zero, text
from ._random import matrix, rational
from .biased_relu_hermite import closed_form

CLAIM = ("Sign identifiability: orders >= 2 are blind to unit flips; a flip set S matches f_0 and f_1 iff "
         "sum_S a_i (w_i, b_i) = 0 iff same function; in full rank exactly one sign choice survives")
SOURCE = "Awasthi-Tang-Vijayaraghavan, NeurIPS 2021, Thm 3.4 / Thm 4.1 (shared/seeds/002)"

CONSTANT_SHIFT = {"W": [[1, 0], [0, 1], [1, 1]], "b": [1, 1, 1], "a": [1, 1, -1]}


def parity_identities(max_order: int) -> list[str]:
    """Failures of g_0(b) - g_0(-b) = b, g_1(b) + g_1(-b) = 1 and g_t(-b) = (-1)^t g_t(b) (2 <= t <= max_order)."""
    bad = []
    if not is_zero(closed_form(0) - closed_form(0).subs(b, -b) - b):
        bad.append("g_0(b) - g_0(-b) != b")
    if not is_zero(closed_form(1) + closed_form(1).subs(b, -b) - 1):
        bad.append("g_1(b) + g_1(-b) != 1")
    for t in range(2, max_order + 1):
        if not is_zero(closed_form(t).subs(b, -b) - (-1) ** t * closed_form(t)):
            bad.append(f"g_{t}(-b) != (-1)^{t} g_{t}(b)")
    return bad


def _network(a, W, bias) -> Network:
    return Network.from_rows([list(a)], [list(r) for r in W], b=list(bias))


def _full_rank_trial(rng, failures, t) -> None:
    from ..propose.hermite.estimators import hermite_coefficient
    from ..propose.hermite.signs import equivalent_flips, resolve_signs

    d = int(rng.integers(2, 5))
    k = int(rng.integers(1, d + 1))
    W = matrix(rng, k, d, bound=3, max_den=3)
    while exact_rank(W.num) < k:
        W = matrix(rng, k, d, bound=3, max_den=3)
    a = [rational(rng, bound=3, max_den=2, nonzero=True) for _ in range(k)]
    bias = [rational(rng, bound=2, max_den=4) for _ in range(k)]
    net = _network(a, W.to_fractions(), bias)
    if equivalent_flips(net) != [()]:
        failures.append(f"full-rank trial {t}: flips {equivalent_flips(net)} keep the function")
    Wf = np.array(W.to_fractions(), dtype=float)
    rho = np.linalg.norm(Wf, axis=1)
    U, alpha, beta = Wf / rho[:, None], np.array(a, dtype=float) * rho, np.array(bias, dtype=float) / rho
    f1 = (alpha * hermite_coefficient(1, beta)) @ U
    f0 = float(np.sum(alpha * hermite_coefficient(0, beta)))
    for s in product([1.0, -1.0], repeat=k):
        s = np.array(s)
        got = resolve_signs(U * s[:, None], alpha, beta * s, f0, f1, 1e-9)
        if not np.array_equal(got.signs, s) or len(got.survivors) != 1:
            failures.append(f"full-rank trial {t}: the resolver did not undo the orientation {s.tolist()}")


def _dependent_trial(rng, failures, t) -> int:
    from ..propose.hermite.signs import equivalent_flips, flip_units

    d = int(rng.integers(1, 4))
    k = d + 2
    M = matrix(rng, k, d + 1, bound=3, max_den=3)
    ker = primitive_kernel(M.num.transpose())
    a = [Fraction(x) for x in ker[0]]
    if any(x == 0 for x in a):
        return 0  # the kernel vector must give every unit a non-zero output weight
    rows = M.to_fractions()
    W = [r[:d] for r in rows]  # rows (w_i, b_i); a^T M = 0, so sum_i a_i (w_i, b_i) = 0
    bias = [r[d] for r in rows]
    if any(all(x == 0 for x in w) for w in W):
        return 0
    net = _network(a, W, bias)
    X = matrix(rng, 3 * (d + 2), d, bound=4, max_den=8)
    base = net.evaluate_exact(X)
    flips = equivalent_flips(net)
    if tuple(range(k)) not in flips:
        failures.append(f"dependent trial {t}: flipping every unit should keep the function")
    for size in range(1, k + 1):
        for S in map(tuple, _subsets(k, size)):
            same = flip_units(net, S).evaluate_exact(X) == base
            if same != (S in flips):
                failures.append(f"dependent trial {t}: flip {S} same={same} but listed={S in flips}")
    return len(flips) - 1


def _subsets(k, size):
    from itertools import combinations

    return combinations(range(k), size)


def prove(trials: int = 20, max_order: int = 8, seed: int = 0) -> dict:
    """Run (a)-(d) of the module docstring; return the record."""
    from ..propose.hermite.signs import flip_units

    rng = np.random.default_rng(seed)
    failures = parity_identities(max_order)
    for t in range(trials):
        _full_rank_trial(rng, failures, t)
    found = sum(_dependent_trial(rng, failures, t) for t in range(trials))
    ex = _network(CONSTANT_SHIFT["a"], CONSTANT_SHIFT["W"], CONSTANT_SHIFT["b"])
    X = matrix(rng, 12, 2, bound=4, max_den=8)
    diff = [p - q for p, q in zip(sum(ex.evaluate_exact(X).to_fractions(), []),
                                  sum(flip_units(ex, [0, 1, 2]).evaluate_exact(X).to_fractions(), []))]
    shift_ok = all(x == 1 for x in diff)
    if not shift_ok:
        failures.append(f"constant-shift example: differences {sorted(set(map(str, diff)))}, expected all 1")
    return {"passed": not failures, "failures": failures, "parity_orders": [0, 1] + list(range(2, max_order + 1)),
            "full_rank_unique": not any("full-rank" in f for f in failures), "full_rank_trials": trials,
            "dependent_trials": trials, "nontrivial_flips_found": found, "constant_shift_example": shift_ok,
            "seed": seed, "g1_parity": text(closed_form(1) + closed_form(1).subs(b, -b)),
            "g0_parity": text(closed_form(0) - closed_form(0).subs(b, -b))}
