"""Exact answers both ways: does a k-unit network reproduce these labels? A certificate for yes and for no.

* :func:`solve_decision`: the worst-case n^O(k) algorithm for labels of rank k (any inputs), through the sign
  patterns of the labels' row span (:mod:`~exactrelu.decide.enumeration.patterns`) and exact LPs, with a span
  refutation when no pattern is realizable (docs/worstcase.md); :func:`solve` is its raising form of 0.1
  (deprecated, kept for one release);
* :func:`decide`: any rank, m = 1 or U given: lazy clause generation (a CDCL SAT solver over activation
  literals with exact-LP lemmas, refutations in :mod:`exactrelu.decide.search.sat`) or a case tree (docs/hardness.md).

Both answer with one :class:`Decision` (:mod:`exactrelu.decide.decision`) either way.
"""

import importlib

#: public name -> the module that defines it, imported on first use: ``exactrelu hardness decide`` on a reduction's
#: instance (:mod:`exactrelu.decide.search.source`) needs only :mod:`.decision` and the SAT helpers of ``search/sat``,
#: not the engines (numpy, FLINT, SciPy: 0.2-0.3 s of imports)
_LAZY = {"Decision": ".decision", "decide": ".search.pattern_search", "sign_cases": ".search.pattern_search",
         **{name: ".enumeration.worstcase" for name in ("PatternReport", "WorstCaseResult", "solve", "solve_decision")}}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["decide", "solve_decision", "solve", "Decision", "WorstCaseResult", "PatternReport", "sign_cases"]
