"""The worst-case enumerator: labels of rank k, any inputs, in time n^O(k) (docs/worstcase.md).

:func:`solve_decision` (``worstcase.py``) enumerates the sign patterns of the labels' row span
(``patterns.py``: extreme rays and faces of the cone; ``cone.py``: the steps that add the realizable ones as units),
decides each by a small exact LP (``pattern_lps.py``; ``worstcase_parallel.py`` on an executor, in the patterns'
order), and answers "no" with a certificate
(``refusal.py``: rank, span refutation (``span_refutation.py``), model class); ``bias.py`` is the solver on
(x, 1) for hidden biases. When the labels' rank is not k it hands over to the search (:mod:`exactrelu.decide.search`).
"""

from .worstcase import PatternReport, WorstCaseResult, solve, solve_decision

__all__ = ["solve_decision", "solve", "WorstCaseResult", "PatternReport"]
