"""Exact answers both ways: does a k-unit network reproduce these labels? A certificate for yes and for no.

* :func:`solve_decision`: the worst-case n^O(k) algorithm for labels of rank k (any inputs), through the sign
  patterns of the labels' row span (:mod:`~exactrelu.decide.enumeration.patterns`) and exact LPs, with a span
  refutation when no pattern is realizable (docs/worstcase.md); :func:`solve` is its raising form of 0.1
  (deprecated, kept for one release);
* :func:`decide`: any rank, m = 1 or U given: lazy clause generation (a CDCL SAT solver over activation
  literals with exact-LP lemmas, refutations in :mod:`exactrelu.decide.search.sat`) or a case tree (docs/hardness.md).

Both answer with one :class:`Decision` (:mod:`exactrelu.decide.decision`) either way.
"""

from .decision import Decision
from .search.pattern_search import decide, sign_cases
from .enumeration.worstcase import PatternReport, WorstCaseResult, solve, solve_decision

__all__ = ["decide", "solve_decision", "solve", "Decision", "WorstCaseResult", "PatternReport", "sign_cases"]
