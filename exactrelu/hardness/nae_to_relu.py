"""NAE-3SAT -> realizable two-unit ReLU instance (k = 2, m = 1, U = [1, 1]).

For an NAE-3SAT formula over x1..xN the instance has inputs in Q^N, all labels 1:

- for every variable i the points e_i and -e_i (the gadget);
- for every clause (l1, l2, l3) the point sum_t sign(l_t) e_var(l_t) (repeated variables add up).

Inputs are listed in this order (e_1, -e_1, ..., e_N, -e_N, then the clauses): n = 2N + M, d = N.

Claim (proved by exact case analysis in proofs/hardness_gadget.py): there are v1, v2 with
relu(v1 . x) + relu(v2 . x) = label for every point iff the formula is NAE-satisfiable.
Gadget lemma: relu(a) + relu(b) = 1 = relu(-a) + relu(-b) forces {a, b} = {1, -1}, so
v2 = -v1 in {-1, 1}^N; a clause point then has label |s1 + s2 + s3| (s_t = the literal values as
+-1), which is 1 iff they are not all equal. With U unknown the same holds: after positive
rescaling u is in {-1, 0, 1}^2 and the gadget rules out every u but (1, 1).

Maps: an NAE assignment tau -> ``U = [[1, 1]]``, ``V = [s, -s]`` with s_i = +1 iff tau_i; and any
exact realizing weights (U, V) -> tau_i = (U[0][0] * V[0][i] > 0), checked on the formula.

>>> from exactrelu.hardness.cnf import NAEFormula
>>> red = NaeToRelu()
>>> inst, data = red.apply(NAEFormula(3, [(1, 2, -3)]))
>>> inst.n, inst.d, inst.inputs.to_fractions()[-1]
(7, 3, [Fraction(1, 1), Fraction(1, 1), Fraction(-1, 1)])
>>> net = red.lift((True, False, False), data)
>>> net.V.to_strings(), net.evaluate_exact(inst.inputs) == inst.labels
([['1', '-1', '-1'], ['-1', '1', '1']], True)
>>> red.invert(net, data)
(True, False, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint

from ..errors import AssumptionViolated, InvalidInput, NotRealizable
from ..limits import check_entries
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import RELU, Network
from .cnf import Assignment, NAEFormula
from .reduction import Reduction

__all__ = ["NaeToRelu", "NaeToReluData", "nae_instance_inputs"]


@dataclass(frozen=True)
class NaeToReluData:
    """The source formula and the instance built from it."""

    source: NAEFormula
    instance: Instance


def nae_instance_inputs(formula: NAEFormula) -> list[list[int]]:
    """The integer input rows of the instance of ``formula`` (gadget points, then clause points)."""
    N = formula.num_vars
    check_entries(2 * N + len(formula.clauses), N, 1, "the reduction's instance")  # before building its rows
    rows = []
    for i in range(N):
        for s in (1, -1):
            r = [0] * N
            r[i] = s
            rows.append(r)
    for c in formula.clauses:
        r = [0] * N
        for lit in c:
            r[abs(lit) - 1] += 1 if lit > 0 else -1
        rows.append(r)
    return rows


class NaeToRelu(Reduction):
    """The reduction NAE-3SAT -> two-unit ReLU instance described in the module docstring."""

    def accepts(self, problem) -> bool:
        return isinstance(problem, NAEFormula) and problem.num_vars >= 1

    def apply(self, problem: NAEFormula) -> tuple[Instance, NaeToReluData]:
        if isinstance(problem, NAEFormula) and problem.num_vars < 1:
            raise InvalidInput("an NAE formula needs at least one variable to give a non-empty instance")
        self._require(problem)
        rows = nae_instance_inputs(problem)
        n, d = len(rows), problem.num_vars
        X = QMatrix(flint.fmpz_mat(n, d, [x for r in rows for x in r]), 1)
        Y = QMatrix(flint.fmpz_mat(n, 1, [1] * n), 1)
        meta = {"reduction": "NaeToRelu", "num_vars": d, "num_clauses": len(problem.clauses)}
        inst = Instance(X, Y, RELU, None, meta=meta)
        return inst, NaeToReluData(problem, inst)

    def lift(self, solution, inverse_data: NaeToReluData) -> Network:
        """An NAE-satisfying assignment -> exact weights U = [[1, 1]], V = [s, -s] (verified)."""
        f = inverse_data.source
        bad = f.falsified_clauses(solution)
        if bad:
            raise InvalidInput(f"the assignment is not NAE-satisfying: clauses {bad[:10]} have all literals equal")
        s = [1 if v else -1 for v in solution]
        net = Network.from_rows([[1, 1]], [s, [-x for x in s]], RELU)
        if net.evaluate_exact(inverse_data.instance.inputs) != inverse_data.instance.labels:  # pragma: no cover
            raise AssumptionViolated("lifted weights do not realize the instance; this contradicts the clause lemma")
        return net

    def invert(self, solution: Network, inverse_data: NaeToReluData) -> Assignment:
        """Exact realizing weights (any scaling, any unit order) -> an NAE-satisfying assignment."""
        inst, f = inverse_data.instance, inverse_data.source
        if not isinstance(solution, Network):
            raise InvalidInput("decode needs a Network (exact weights U, V)")
        if solution.m != 1 or solution.k != 2 or solution.d != inst.d:
            raise InvalidInput(f"weights of shape U {solution.U.shape}, V {solution.V.shape}; this reduction has "
                               f"m = 1, k = 2, d = {inst.d}")
        if solution.activation != RELU:
            raise InvalidInput("the reduction's instances use the ReLU activation")
        if solution.evaluate_exact(inst.inputs) != inst.labels:
            got = solution.evaluate_exact(inst.inputs).to_fractions()
            bad = [j for j, r in enumerate(got) if r[0] != 1]
            raise NotRealizable(f"the weights do not realize the instance: samples {bad[:10]} have outputs != 1",
                                evidence={"samples": bad})
        u0 = solution.U.to_fractions()[0][0]
        v0 = solution.V.to_fractions()[0]
        tau = tuple(u0 * x > Fraction(0) for x in v0)
        if not f.satisfied_by(tau):  # pragma: no cover - would contradict the gadget and clause lemmas
            raise AssumptionViolated("realizing weights decoded to a non-NAE assignment; this contradicts the lemmas")
        return tau
