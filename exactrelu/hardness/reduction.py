"""Reductions that return their inverse data, and chains of them (after cvxpy's ``reductions``).

A :class:`Reduction` maps a source problem to a target problem with
``apply(source) -> (target, inverse_data)``, and moves solutions both ways:
``lift(source_solution, inverse_data)`` (forward) and ``invert(target_solution, inverse_data)``
(backward). Every map checks its result on the problem it belongs to, so a wrong solution
raises instead of traveling on. A :class:`Chain` applies its reductions in order, lifts in
the same order and inverts in reverse.

>>> class Double(Reduction):
...     def accepts(self, problem): return isinstance(problem, int)
...     def apply(self, problem): return 2 * problem, problem
...     def lift(self, solution, inverse_data): return 2 * solution
...     def invert(self, solution, inverse_data): return solution // 2
>>> chain = Chain([Double(), Double()])
>>> target, data = chain.apply(3)
>>> target, chain.lift(5, data), chain.invert(20, data)
(12, 20, 5)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Sequence

from ..errors import InvalidInput

__all__ = ["Reduction", "Chain"]


class Reduction(ABC):
    """A polynomial-time map between problems that carries solutions both ways."""

    @abstractmethod
    def accepts(self, problem: Any) -> bool:
        """True when :meth:`apply` can take ``problem``."""

    @abstractmethod
    def apply(self, problem: Any) -> tuple[Any, Any]:
        """Return ``(target_problem, inverse_data)``."""

    @abstractmethod
    def lift(self, solution: Any, inverse_data: Any) -> Any:
        """A solution of the source -> a solution of the target."""

    @abstractmethod
    def invert(self, solution: Any, inverse_data: Any) -> Any:
        """A solution of the target -> a solution of the source."""

    def _require(self, problem: Any) -> None:
        if not self.accepts(problem):
            raise InvalidInput(f"{type(self).__name__} does not accept a {type(problem).__name__}")


class Chain(Reduction):
    """Reductions composed left to right; the inverse data is the list of each step's data."""

    def __init__(self, reductions: Sequence[Reduction]):
        if not reductions:
            raise InvalidInput("a chain needs at least one reduction")
        self.reductions = list(reductions)

    def accepts(self, problem: Any) -> bool:
        return self.reductions[0].accepts(problem)

    def apply(self, problem: Any) -> tuple[Any, list]:
        data = []
        for r in self.reductions:
            r._require(problem)
            problem, d = r.apply(problem)
            data.append(d)
        return problem, data

    def lift(self, solution: Any, inverse_data: list) -> Any:
        for r, d in zip(self.reductions, inverse_data):
            solution = r.lift(solution, d)
        return solution

    def invert(self, solution: Any, inverse_data: list) -> Any:
        for r, d in zip(reversed(self.reductions), reversed(inverse_data)):
            solution = r.invert(solution, d)
        return solution

    def __repr__(self) -> str:
        return " -> ".join(type(r).__name__ for r in self.reductions)
