"""The two answers of a decision, the ``status`` of :class:`~exactrelu.decide.decision.Decision`.

A module of their own, with no imports: the command line's fast route (:mod:`exactrelu.decide.search.source`) names
them without loading :mod:`dataclasses` (and :mod:`inspect` with it: 6 ms of a 0.3 s command).

>>> from exactrelu.decide.statuses import STATUSES
>>> STATUSES
('realizable', 'not-realizable')
"""

__all__ = ["REALIZABLE", "NOT_REALIZABLE", "STATUSES"]

REALIZABLE = "realizable"
NOT_REALIZABLE = "not-realizable"
#: the two answers of a decision
STATUSES = (REALIZABLE, NOT_REALIZABLE)
