"""The one record every front door of :mod:`exactrelu.decide` returns, either way.

A procedure that decides "either way" returns one record either way (cvxpy's ``Solution``; STYLE.md 6 and 14):
:func:`exactrelu.decide.decide` and :func:`exactrelu.decide.solve_decision` both answer with a
:class:`Decision`, whose ``status`` says which way, whose ``certificate`` proves it (``realizes`` for yes,
``not-realizable`` for no) and whose ``summary`` is the independent checker's verdict line on that
certificate. A time limit, a search budget or an assumption that the data break is not an answer: those
raise (:class:`~exactrelu.errors.TimeLimitExceeded`, :class:`~exactrelu.errors.AssumptionViolated`).

>>> from exactrelu.instances import Instance
>>> from exactrelu.decide import solve_decision
>>> inst = Instance.from_arrays([[1], [2], [-1]], [[1], [2], [1]])
>>> res = solve_decision(inst, 1)
>>> res.status, res.realizable, res.network
('not-realizable', False, None)
>>> res.evidence["route"], res.summary.startswith("not-realizable")
('enumeration', True)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import InvalidInput

if TYPE_CHECKING:  # pragma: no cover
    from ..network import Network

__all__ = ["Decision", "REALIZABLE", "NOT_REALIZABLE", "STATUSES"]

REALIZABLE = "realizable"
NOT_REALIZABLE = "not-realizable"
#: the two answers of a decision
STATUSES = (REALIZABLE, NOT_REALIZABLE)


@dataclass(frozen=True)
class Decision:
    """A proved answer to "does a k-unit network reproduce these labels?", either way.

    Attributes
    ----------
    status : ``"realizable"`` or ``"not-realizable"``.
    network : the exact realising network (``realizable``), else None.
    certificate : the ``realizes`` or ``not-realizable`` certificate, verified by the independent checker
        before the record was made.
    summary : the checker's verdict line on ``certificate`` (what ``exactrelu check`` prints after VALID).
    evidence : how the answer was found: search statistics (rounds, lemmas, exact LPs, seconds) or, for the
        worst-case solver, the rank, the route and every pattern examined (``"patterns"``).

    >>> Decision("maybe", None, {}, "")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: a Decision's status is 'realizable' or 'not-realizable', got 'maybe'
    """

    status: str
    network: "Network | None"
    certificate: dict
    summary: str
    evidence: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise InvalidInput(f"a Decision's status is 'realizable' or 'not-realizable', got {self.status!r}")

    @property
    def realizable(self) -> bool:
        """True when a network reproduces the labels (``status == "realizable"``)."""
        return self.status == REALIZABLE

    @property
    def stats(self) -> dict:
        """Deprecated name of :attr:`evidence` (the record of 0.1 called it ``stats``); kept for one release."""
        warnings.warn("Decision.stats is deprecated; use Decision.evidence", DeprecationWarning, stacklevel=2)
        return self.evidence
