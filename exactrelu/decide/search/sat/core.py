"""A trimmed refutation in flat arrays: the input clauses it uses and its added clauses with their hints.

Made by :func:`exactrelu.decide.search.sat.proof.lrat_core` (from the solver's LRAT trace) and by
:func:`exactrelu.decide.search.sat.trim.drup_core` (from a DRUP proof), read by the lemma store that writes
the certificate's ``lrat`` steps.

>>> core = Core.from_steps([0, 1], [([2], [-1, -2]), ([], [0, -3])])
>>> core.steps
[([2], [-1, -2]), ([], [0, -3])]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Core"]


@dataclass
class Core:
    """A trimmed refutation: the input clauses it uses and its added clauses, in order.

    ``inputs`` are indices into the input clause list, increasing. Step t has the literals
    ``lits[lit_at[t]:lit_at[t + 1]]`` and the hints ``hints[hint_at[t]:hint_at[t + 1]]`` (flat
    integer arrays): a hint ``h >= 0`` names step h (an earlier one), ``h < 0`` the input clause
    ``-h - 1``. The last step is the empty clause.
    """

    inputs: list
    lits: np.ndarray
    lit_at: np.ndarray
    hints: np.ndarray
    hint_at: np.ndarray
    stats: dict = field(default_factory=dict)

    @classmethod
    def from_steps(cls, inputs, steps, stats=None) -> "Core":
        """From a list of ``(lits, hints)``."""
        at = lambda parts: np.concatenate(([0], np.cumsum([len(x) for x in parts], dtype=np.int64)))  # noqa: E731
        flat = lambda parts: np.array([x for part in parts for x in part], dtype=np.int64)  # noqa: E731
        ls, hs = [lits for lits, _ in steps], [hints for _, hints in steps]
        return cls(list(inputs), flat(ls), at(ls), flat(hs), at(hs), dict(stats or {}))

    @property
    def steps(self) -> list:
        """The steps as ``(lits, hints)`` lists."""
        ls, hs = self.lits.tolist(), self.hints.tolist()
        la, ha = self.lit_at.tolist(), self.hint_at.tolist()
        return [(ls[la[t]:la[t + 1]], hs[ha[t]:ha[t + 1]]) for t in range(len(la) - 1)]
