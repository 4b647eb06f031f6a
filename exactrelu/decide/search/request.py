"""The one record the search is asked with: built once by :func:`exactrelu.decide.decide`, passed down to each case.

>>> from fractions import Fraction
>>> req = SearchRequest([[Fraction(1), Fraction(0)]], [[Fraction(2)]], engine="tree")
>>> req.d, req.engine, req.deadline is None, req.rounds_left()
(2, 'tree', True, None)
>>> req.but(time_limit=5.0).deadline == req.start + 5.0
True
>>> seen = []
>>> req.but(progress=seen.append).for_case(3).progress({"rounds": 1}); seen
[{'rounds': 1, 'case': 3}]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

__all__ = ["SearchRequest"]


@dataclass(frozen=True)
class SearchRequest:
    """What the search decides and how (the parameters of :func:`exactrelu.decide.decide` say what each means).

    ``X`` (n x d) and ``Y`` (n x m) are the samples and labels as rows of Fractions, ``d`` the input dimension
    (taken from ``X`` when not given); ``max_nodes`` bounds the search nodes (tree engine) or solver rounds (lazy
    engine) of the whole decision, ``time_limit`` its seconds from ``start`` (a ``time.monotonic()`` value: when
    the request was made, unless given); ``progress`` receives the statistics of the case being searched.
    ``stats`` is the one field that changes: the decision's statistics, added up over its cases. ``output_bias``:
    the networks have an output bias c, one more free variable of every equation (:class:`.rows.Rows`).
    """

    X: list
    Y: list
    d: int | None = None
    method: str = "auto"
    engine: str = "lazy"
    proof: str = "lrat"
    max_nodes: int | None = None
    time_limit: float | None = None
    progress: Callable[[dict], None] | None = None
    symmetry: bool = True
    stats: dict = field(default_factory=dict)
    start: float = field(default_factory=time.monotonic)
    output_bias: bool = False

    def __post_init__(self):
        if self.d is None:
            object.__setattr__(self, "d", len(self.X[0]) if self.X else 0)

    @property
    def deadline(self) -> float | None:
        """The ``time.monotonic()`` value past which the search stops (None: no time limit)."""
        return None if self.time_limit is None else self.start + self.time_limit

    def but(self, **changes) -> "SearchRequest":
        """A copy with some fields changed (``dataclasses.replace``; the same ``stats``)."""
        return replace(self, **changes)

    def for_case(self, number: int) -> "SearchRequest":
        """The request of case ``number`` (1-based): its progress messages name the case."""
        if self.progress is None:
            return self
        progress = self.progress
        return self.but(progress=lambda stats: progress({**stats, "case": number}))

    def rounds_left(self) -> int | None:
        """Solver rounds the lazy engine may still use (``max_nodes`` less those spent), or None (no limit)."""
        return None if self.max_nodes is None else self.max_nodes - self.stats.get("rounds", 0)
