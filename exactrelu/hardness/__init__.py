"""NP-hardness of two-layer ReLU training for k = 2 (rank(labels) < k): formulas and reductions only.

CNF --CnfToNae--> NAE-3SAT --NaeToRelu--> two-unit ReLU instance (m = 1, U = [1, 1]).
Each step is a :class:`~exactrelu.hardness.reduction.Reduction` whose ``lift`` moves a
satisfying assignment forward (ending in exact weights and a ``realizes`` certificate) and
whose ``invert`` moves any exact realizing weights back to a satisfying assignment. This package
holds the formulas (:mod:`.cnf`, :mod:`.generators`), the reductions (:mod:`.reduction`,
:mod:`.cnf_to_nae`, :mod:`.nae_to_relu`) and the gadget lemmas (:mod:`.lemmas`). Deciding an instance
exactly, with a certificate either way, is :func:`exactrelu.decide.decide` (the lazy SAT + exact-LP engine
and the case tree live in :mod:`exactrelu.decide`); the command line is ``exactrelu hardness``
(:mod:`exactrelu.commands.hardness`).

>>> from exactrelu.hardness import CNF, reduction_for
>>> cnf = CNF(2, [(1, 2), (-1, -2)])
>>> chain = reduction_for(cnf)
>>> inst, data = chain.apply(cnf)
>>> net = chain.lift((True, False), data)
>>> chain.invert(net, data)
(True, False)
"""

from .cnf import (CNF, NAE_MARK, NAEFormula, assignment_from_literals, assignment_to_literals, format_dimacs,
                  parse_assignment, parse_dimacs, read_dimacs, write_dimacs)
from .cnf_to_nae import CnfToNae
from .reduction import Chain, Reduction

#: names imported on first use (numpy, FLINT): ``exactrelu hardness decide`` on a reduction's instance
#: (:mod:`exactrelu.decide.search.source`) needs neither
_LAZY = {"NaeToRelu": ".nae_to_relu", **{name: ".generators" for name in ("pigeonhole", "planted_assignment",
                                                                         "random_kcnf", "random_nae3")}}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "CNF", "NAEFormula", "NAE_MARK", "parse_dimacs", "format_dimacs", "read_dimacs", "write_dimacs",
    "assignment_from_literals", "assignment_to_literals", "parse_assignment",
    "Reduction", "Chain", "CnfToNae", "NaeToRelu", "reduction_for",
    "random_kcnf", "random_nae3", "pigeonhole", "planted_assignment",
]


def reduction_for(formula: CNF | NAEFormula) -> Chain:
    """The chain from ``formula`` to a ReLU instance: CNF -> NAE -> ReLU, or NAE -> ReLU."""
    from .nae_to_relu import NaeToRelu

    if isinstance(formula, NAEFormula):
        return Chain([NaeToRelu()])
    return Chain([CnfToNae(), NaeToRelu()])
