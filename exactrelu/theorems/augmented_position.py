"""Augmented general position: why the row-span route applies to biased networks through [V b].

Claim. (1) ``f(V x + b) = f([V b] [x; 1])`` for every activation, so a biased network on inputs x is an
unbiased one on the augmented inputs x' = [x; 1] in dimension d + 1. (2) If x_1, ..., x_n in R^d are
drawn from a distribution with a density (Gaussian inputs), then almost surely every d + 1 of the
augmented inputs are linearly independent (no d + 1 of the x_j lie on one affine hyperplane): the
"general position" the route's weight solve needs, with d + 1 in place of d. (3) The uniqueness lemma
(exactrelu.theorems.uniqueness_lemma) is a statement about any inputs, so it holds for x' and
W = f([V b] X'): the kernels on inactive samples isolate each biased unit exactly when the other units
restricted to those samples have rank k - 1. (4) Linear general position of the x_j (every d
independent) does *not* imply (2): three collinear points of R^2 off the origin are linearly in
general position but their augmented vectors are dependent, so the biased route needs the stronger,
affine, condition.

Proof. (1) is the identity V x + b = [V b][x; 1]. (2) det[x'_1 ... x'_{d+1}] is a polynomial in the
d(d+1) coordinates; it equals det[x_1 - x_{d+1}, ..., x_d - x_{d+1}] (subtract the last column:
translation invariance), and it is not the zero polynomial (its value at x_i = e_i, x_{d+1} = 0 is
+-1). The zero set of a non-zero polynomial has Lebesgue measure zero, hence probability zero under a
density. Checked here: (1) and (2) symbolically with SymPy for d = 1..4 (both determinants expanded and
compared, the evaluation at the simplex), (3) exactly on seeded biased planted instances (reusing the
uniqueness lemma's exact check on the augmented inputs; random (d + 1)-subsets of augmented Gaussian
inputs are independent over Q, exactly), and (4) on the exact counterexample.

Source: shared/notes/exact-recovery-math.md (the route), Bakshi, Jayaram, Woodruff (COLT 2019); issue 10.

>>> rec = prove(trials=2)
>>> rec["passed"], rec["symbolic"]["dimensions"], rec["counterexample"]["augmented_rank"]
(True, [1, 2, 3, 4], 2)
"""

from __future__ import annotations

import flint
import numpy as np

from ..exact.linalg import rank_mod_p
from ..exact.matrix import QMatrix
from ..instances import Instance, planted
from ..network import Activation, Network
from .uniqueness_lemma import check_instance

CLAIM = ("Augmented general position: f(Vx+b) = f([V b][x;1]); for inputs with a density every d+1 augmented "
         "inputs are independent a.s. (det is a non-zero polynomial), so the uniqueness lemma and the row-span "
         "route apply to [V b]; linear general position does not suffice")
SOURCE = "Bakshi-Jayaram-Woodruff, COLT 2019 (shared/seeds/000); shared/notes/exact-recovery-math.md; issue 10"


def _symbolic(dims=(1, 2, 3, 4)) -> tuple[list[str], dict]:
    import sympy

    failures = []
    for d in dims:
        xs = [[sympy.Symbol(f"x{i}_{a}") for a in range(d)] for i in range(d + 1)]
        aug = sympy.Matrix([row + [1] for row in xs])
        diff = sympy.Matrix([[xs[i][a] - xs[d][a] for a in range(d)] for i in range(d)])
        if sympy.expand(aug.det(method="berkowitz") - diff.det(method="berkowitz")) != 0:
            failures.append(f"d={d}: det of augmented inputs != det of differences")
        at = {xs[i][a]: int(i == a) for i in range(d + 1) for a in range(d)}
        if aug.det(method="berkowitz").subs(at) == 0:
            failures.append(f"d={d}: the determinant vanishes at the simplex (it would be the zero polynomial)")
    v, x, b = sympy.symbols("v x b", real=True)
    relu = sympy.Max(0, v * x + b)
    if sympy.simplify(relu - sympy.Max(0, sympy.Matrix([[v, b]]).dot(sympy.Matrix([x, 1])))) != 0:
        failures.append("f(v x + b) != f([v b][x; 1])")
    return failures, {"dimensions": list(dims)}


def augmented_instance(inst: Instance) -> Instance:
    """The instance on inputs [x; 1] with the planted network [V b] (no bias): the object the route sees.

    >>> inst = augmented_instance(planted(2, 1, 1, 5, seed=0, bias=[1]))
    >>> inst.d, inst.planted.has_bias, inst.planted.evaluate_exact(inst.inputs) == inst.labels
    (3, False, True)
    """
    net = inst.planted
    X = np.hstack([inst.float_inputs(), np.ones((inst.n, 1))])
    Vaug = QMatrix.from_rows([v + [b] for v, b in zip(net.V.to_fractions(), net.b_fractions())])
    return Instance(QMatrix.from_numpy(X), inst.labels, net.activation, Network(net.U, Vaug, net.activation), X)


def _biased_instances(trials: int, seed: int) -> tuple[list[str], dict]:
    rng = np.random.default_rng(seed)
    failures, units, subsets = [], 0, 0
    for t in range(trials):
        k = int(rng.integers(1, 4))
        d = int(rng.integers(max(2, k), 6))
        n = int(rng.integers(8 * k * (d + 1), 12 * k * (d + 1)))
        act = Activation.power(2) if t % 3 == 2 else Activation.relu()
        inst = planted(d, k, k + 1, n, activation=act, seed=rng, bias=1.5)
        aug = augmented_instance(inst)
        Xq = aug.inputs
        if aug.planted.evaluate_exact(Xq) != inst.labels:
            failures.append(f"instance {t}: f([V b][x; 1]) differs from f(V x + b)")
        bad, u, _ = check_instance(aug, rng)
        failures += [f"instance {t} (d={d}, k={k}, n={n}): {b}" for b in bad]
        units += u
        for _ in range(20):
            pick = sorted(rng.choice(n, size=d + 1, replace=False).tolist())
            subsets += 1
            if flint.fmpz_mat(Xq.take_rows(pick).num).rank() != d + 1:
                failures.append(f"instance {t}: augmented inputs {pick} are dependent")
    return failures, {"instances": trials, "units_checked": units, "random_subsets_independent": subsets}


def _counterexample() -> dict:
    """Three collinear points of R^2 off the origin: linearly in general position, not affinely."""
    X = QMatrix.from_rows([[1, 0], [0, 1], ["1/2", "1/2"]])
    pairs = [rank_mod_p(X.take_rows(p).num) for p in ([0, 1], [0, 2], [1, 2])]
    aug = QMatrix.from_rows([[1, 0, 1], [0, 1, 1], ["1/2", "1/2", 1]])
    return {"linear_pair_ranks": pairs, "augmented_rank": aug.num.rank()}


def prove(trials: int = 12, seed: int = 3) -> dict:
    """Run the symbolic, exact and counterexample checks; return the record."""
    failures, symbolic = _symbolic()
    bad, exact = _biased_instances(trials, seed)
    failures += bad
    ce = _counterexample()
    if ce["linear_pair_ranks"] != [2, 2, 2] or ce["augmented_rank"] != 2:
        failures.append(f"counterexample does not behave as stated: {ce}")
    return {"passed": not failures and exact["units_checked"] > 0, "failures": failures, "seed": seed,
            "symbolic": symbolic, "exact": exact, "counterexample": ce}
