"""CNF -> NAE-3SAT: one fresh variable z in every clause, long clauses split with fresh variables.

A CNF F over x1..xN is satisfiable iff the NAE formula G is NAE-satisfiable, where G has
one clause NAE(C + [z]) per clause C of F (z = x_{N+1}), written with three literals:

- empty clause: NAE(z, z, z) (never satisfied, as the empty clause);
- one literal a: NAE(a, z, z) (means a != z);
- two literals: NAE(a, b, z);
- r >= 4 literals L0..L(r-1) (three or more in C): NAE(L0, L1, w) and NAE(not w, L2, ..., L(r-1))
  with a fresh w, split again until three literals are left.

Why (tests/hardness/test_reduction.py checks it on every assignment of small formulas): NAE is invariant
under complementing every variable, so an NAE solution can be taken with z false, and then
"not all equal to z" is "some literal true". Splitting: if L0 = L1 take w = not L0; otherwise
choose w so that not w differs from some later literal; conversely if all Li were equal, the
first clause forces w != L0, and the second is then all equal.

>>> from exactrelu.hardness.cnf import CNF
>>> red = CnfToNae()
>>> nae, data = red.apply(CNF(3, [(1, 2, 3), (-1,)]))
>>> nae.num_vars, nae.clauses
(5, ((1, 2, 5), (-5, 3, 4), (-1, 4, 4)))
>>> tau = red.lift((False, True, True), data)
>>> nae.satisfied_by(tau), red.invert(tau, data)
(True, (False, True, True))
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import AssumptionViolated, InvalidInput
from .cnf import CNF, Assignment, NAEFormula, check_reduction_size
from .reduction import Reduction

__all__ = ["CnfToNae", "CnfToNaeData"]


@dataclass(frozen=True)
class CnfToNaeData:
    """What the maps back and forth need: both formulas, z, and each clause's split chain."""

    source: CNF
    target: NAEFormula
    z: int
    chains: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]  # (literals incl. z, fresh variables)


class CnfToNae(Reduction):
    """The reduction CNF -> NAE-3SAT described in the module docstring."""

    def accepts(self, problem) -> bool:
        return isinstance(problem, CNF)

    def apply(self, problem: CNF) -> tuple[NAEFormula, CnfToNaeData]:
        self._require(problem)
        fresh = sum(max(0, len(c) - 2) for c in problem.clauses)  # the exact count, before building anything
        check_reduction_size(problem.num_vars + 1, fresh, "the CNF")
        z = problem.num_vars + 1
        nxt = z + 1
        clauses, chains = [], []
        for c in problem.clauses:
            lits = list(c) + [z]
            fresh = []
            if len(lits) == 1:
                clauses.append((z, z, z))
            elif len(lits) == 2:
                clauses.append((lits[0], z, z))
            else:  # NAE(L0, L1, w1), NAE(-w1, L2, w2), ..., NAE(-w, L(r-2), L(r-1)): linear in r
                head, at = lits[0], 1
                while len(lits) - at > 2:
                    w = nxt
                    nxt += 1
                    fresh.append(w)
                    clauses.append((head, lits[at], w))
                    head, at = -w, at + 1
                clauses.append((head, *lits[at:]))
            chains.append((tuple(lits), tuple(fresh)))
        origin = (f"from a CNF with {problem.num_vars} variables and {len(problem.clauses)} clauses by exactrelu "
                  "CnfToNae")
        target = NAEFormula(nxt - 1, tuple(clauses), (origin,))
        return target, CnfToNaeData(problem, target, z, tuple(chains))

    def lift(self, solution, inverse_data: CnfToNaeData) -> Assignment:
        """A satisfying assignment of the CNF -> an NAE-satisfying assignment (z false)."""
        src, tgt = inverse_data.source, inverse_data.target
        bad = src.falsified_clauses(solution)
        if bad:
            raise InvalidInput(f"the assignment falsifies clauses {bad[:10]} of the CNF (0-based)")
        vals = list(solution) + [False] * (tgt.num_vars - src.num_vars)

        def val(lit):
            v = vals[abs(lit) - 1]
            return v if lit > 0 else not v

        for lits, fresh in inverse_data.chains:
            cur = [val(l) for l in lits]
            for w in fresh:
                a, b, rest = cur[0], cur[1], cur[2:]
                if a == b:
                    vals[w - 1] = not a
                else:
                    vals[w - 1] = rest[0] if len(set(rest)) == 1 else False
                cur = [not vals[w - 1]] + rest
        tau = tuple(vals)
        if not tgt.satisfied_by(tau):  # pragma: no cover - would contradict the lemma
            raise AssumptionViolated("the lifted assignment is not NAE-satisfying; this contradicts the CNF -> NAE "
                                     "lemma")
        return tau

    def invert(self, solution, inverse_data: CnfToNaeData) -> Assignment:
        """An NAE-satisfying assignment -> a satisfying assignment of the CNF."""
        src, tgt = inverse_data.source, inverse_data.target
        bad = tgt.falsified_clauses(solution)
        if bad:
            raise InvalidInput(f"the assignment is not NAE-satisfying: clauses {bad[:10]} have all literals equal")
        tau = tuple(solution)
        if tau[inverse_data.z - 1]:
            tau = tuple(not v for v in tau)
        sigma = tau[: src.num_vars]
        if not src.satisfied_by(sigma):  # pragma: no cover - would contradict the lemma
            raise AssumptionViolated("the decoded assignment falsifies the CNF; this contradicts the CNF -> NAE lemma")
        return sigma
