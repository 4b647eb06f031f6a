"""Sign ambiguity with biases: different networks that compute the same function, exactly.

Claim. relu(t) - relu(-t) = t for every real t. Hence for a biased network
f(x) = sum_i a_i relu(w_i . x + b_i), flipping the signs of the units in a set S
((w_i, b_i) -> (-w_i, -b_i) for i in S, a unchanged) changes f by the affine function
sum_{i in S} a_i (w_i . x + b_i); the flipped network computes the same function if and only if
sum_{i in S} a_i w_i = 0 and sum_{i in S} a_i b_i = 0. Such S exist whenever the vectors
(w_i, b_i) of more than d + 1 units are linearly dependent, so biased networks are identifiable
only up to these sign flips, and the flipped network is not a positive rescaling or permutation
of the first (a different point of parameter space). Example, d = 2: units (w, b) = ((1, 0), 1),
((0, 1), 1), ((1, 1), 2) with a = (1, 1, -1), all three flipped.

Source: Awasthi, Tang, Vijayaraghavan (NeurIPS 2021): identifiability up to signs and "this
ambiguity in the signs is inherent" (Theorem 3.4, Claim 4.8).

Proof. (1) relu(t) - relu(-t) = t by exact case analysis in SymPy (t = s > 0, t = 0, t = -s).
(2) By (1) the difference of the two networks is the affine function above, which is
identically 0 iff its coefficients vanish: checked exactly (Fractions) for the example and for
``trials`` random constructions (d + 2 random units, a = a primitive kernel vector of the
(d + 1) x (d + 2) matrix of the (w_i, b_i), all units with a_i != 0 flipped). (3) The code
agrees: evaluating both networks exactly (Network.evaluate_exact with inputs (x, 1)) on random
rational points gives equal outputs, and flipping a single unit with a_i != 0 changes the
function (an exact witness point). The example's two networks are not equivalent
(Network.equivalent: no positive rescaling and permutation maps one to the other); random
constructions usually are not either (counted in the record; when the units come in pairs
(w, b), -l (w, b) the flip is just a permutation and rescaling).

>>> rec = prove(trials=3)
>>> rec["passed"], rec["example"]["same_function"], rec["example"]["equivalent_parameters"]
(True, True, False)
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import sympy as sp

from ..exact.linalg import primitive_kernel
from ..exact.matrix import QMatrix
from ..network import Network
from ._gaussian import s
from ._random import matrix, rational

CLAIM = ("Sign ambiguity with biases: relu(t) - relu(-t) = t, so flipping units S of a biased network keeps "
         "the function iff sum_S a_i (w_i, b_i) = 0; two different networks compute the same function")
SOURCE = "Awasthi-Tang-Vijayaraghavan, NeurIPS 2021, Thm 3.4 / Claim 4.8"

EXAMPLE = {"W": [[1, 0], [0, 1], [1, 1]], "b": [1, 1, 2], "a": [1, 1, -1]}


def relu_odd_part_lemma() -> list[str]:
    """Failures of relu(t) - relu(-t) = t in the cases t > 0, t = 0, t < 0."""
    relu = lambda t: sp.Piecewise((t, t > 0), (0, True))  # noqa: E731
    return [case for case, t in (("t>0", s), ("t=0", sp.Integer(0)), ("t<0", -s))
            if sp.simplify(relu(t) - relu(-t) - t) != 0]


def biased(a: list[Fraction], W: list[list[Fraction]], b: list[Fraction]) -> Network:
    """The network x -> sum_i a_i relu(w_i . x + b_i), as a Network on inputs (x, 1)."""
    k, d = len(W), len(W[0])
    V = QMatrix.from_fractions([Fraction(x) for i in range(k) for x in list(W[i]) + [b[i]]], k, d + 1)
    return Network(QMatrix.from_fractions([Fraction(x) for x in a], 1, k), V)


def flipped(a, W, b, S) -> Network:
    """The network with units in S negated."""
    return biased(a, [[-x for x in W[i]] if i in S else W[i] for i in range(len(W))],
                  [-b[i] if i in S else b[i] for i in range(len(W))])


def affine_difference(a, W, b, S) -> tuple[list[Fraction], Fraction]:
    """Coefficients (sum_S a_i w_i, sum_S a_i b_i) of f - f_flipped, exactly."""
    d = len(W[0])
    return ([sum((Fraction(a[i]) * W[i][j] for i in S), Fraction(0)) for j in range(d)],
            sum((Fraction(a[i]) * b[i] for i in S), Fraction(0)))


def with_ones(X: QMatrix) -> QMatrix:
    """Append a column of ones (the bias input)."""
    rows = X.to_fractions()
    return QMatrix.from_fractions([x for r in rows for x in r + [Fraction(1)]], len(rows), X.shape[1] + 1)


def _check(a, W, b, S, X) -> dict:
    lin, const = affine_difference(a, W, b, S)
    f, g = biased(a, W, b), flipped(a, W, b, S)
    Xa = with_ones(X)
    one = next(iter(S))
    witness = QMatrix.from_fractions([Fraction(x) for x in list(W[one]) + [b[one]]], 1, len(W[0]) + 1)
    h = flipped(a, W, b, {one})
    # w.x + b at the witness x = w (with input 1): |w|^2 + b; use both x = w and x = 0 to catch every case
    zero = with_ones(QMatrix.from_fractions([Fraction(0)] * len(W[0]), 1, len(W[0])))
    single_changes = (not (h.evaluate_exact(witness) == f.evaluate_exact(witness))
                      or not (h.evaluate_exact(zero) == f.evaluate_exact(zero))
                      or not (h.evaluate_exact(Xa) == f.evaluate_exact(Xa)))
    return {
        "affine_difference_zero": all(x == 0 for x in lin) and const == 0,
        "same_function": f.evaluate_exact(Xa) == g.evaluate_exact(Xa),
        "equivalent_parameters": f.equivalent(g),
        "single_flip_changes_function": single_changes,
    }


def prove(trials: int = 30, seed: int = 0) -> dict:
    """Run the lemma, the example and ``trials`` random constructions; return the record."""
    rng = np.random.default_rng(seed)
    failures = [f"relu(t) - relu(-t) = t fails for {c}" for c in relu_odd_part_lemma()]
    W = [[Fraction(x) for x in r] for r in EXAMPLE["W"]]
    b = [Fraction(x) for x in EXAMPLE["b"]]
    a = [Fraction(x) for x in EXAMPLE["a"]]
    X = matrix(rng, 25, 2, bound=4, max_den=8)
    example = _check(a, W, b, {0, 1, 2}, X)
    want = {"affine_difference_zero": True, "same_function": True, "equivalent_parameters": False,
            "single_flip_changes_function": True}
    failures += [f"example: {k} is {v}" for k, v in example.items() if v != want[k]]
    done = different = 0
    for t in range(trials):
        d = int(rng.integers(1, 4))
        k = d + 2
        M = matrix(rng, k, d + 1, bound=3, max_den=3)  # rows (w_i, b_i)
        rows = M.to_fractions()
        ker = primitive_kernel(M.num.transpose())  # a with a^T M = 0
        if not ker:  # pragma: no cover - k = d + 2 vectors in Q^(d+1) are always dependent
            failures.append(f"trial {t}: no dependency among {k} vectors in Q^{d + 1}")
            continue
        a_t = [Fraction(x) for x in ker[0]]
        S = {i for i in range(k) if a_t[i] != 0}
        W_t, b_t = [r[:d] for r in rows], [r[d] for r in rows]
        if any(all(x == 0 for x in W_t[i]) for i in S):
            continue  # a unit with w_i = 0 is a constant: flipping it is a different, trivial story
        got = _check(a_t, W_t, b_t, S, matrix(rng, 20, d, bound=4, max_den=8))
        # the flip can land on a permutation / rescaling of the original (units in pairs
        # (w, b), -(w, b)/l): then it is the same parameter class, which is allowed
        different += not got.pop("equivalent_parameters")
        failures += [f"trial {t}: {key} is {v}" for key, v in got.items() if v != want[key]]
        done += 1
    return {"passed": not failures and done > 0, "failures": failures, "example": example,
            "example_networks": EXAMPLE, "random_constructions_checked": done,
            "random_constructions_with_different_parameters": different, "seed": seed}
