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
>>> res.model   # the class of networks the "no" excludes, as the certificate states it
{'biases': False, 'output_bias': False}
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..certificates.claims.model import model_of
from ..errors import InvalidInput
from .statuses import NOT_REALIZABLE, REALIZABLE, STATUSES

if TYPE_CHECKING:  # pragma: no cover
    from ..instances import Instance
    from ..network import Network

__all__ = ["Decision", "REALIZABLE", "NOT_REALIZABLE", "STATUSES"]


@dataclass(frozen=True)
class Decision:
    """A proved answer to "does a k-unit network reproduce these labels?", either way.

    Attributes
    ----------
    status : ``"realizable"`` or ``"not-realizable"``.
    network : the exact realizing network (``realizable``), else None.
    certificate : the ``realizes`` or ``not-realizable`` certificate, verified by the independent checker
        before the record was made.
    summary : the checker's verdict line on ``certificate`` (what ``exactrelu check`` prints after VALID).
    evidence : how the answer was found: search statistics (rounds, lemmas, exact LPs, seconds) or, for the
        worst-case solver, the rank, the route and every pattern examined (``"patterns"``).
    instance : the instance ``certificate`` is about when it is not the one asked about, else None: for
        ``solve_decision(..., bias=True)``, a refutation is about the inputs with a constant 1 column appended
        (:mod:`exactrelu.decide.enumeration.bias`); ``exactrelu check`` needs that instance.

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
    instance: "Instance | None" = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise InvalidInput(f"a Decision's status is 'realizable' or 'not-realizable', got {self.status!r}")

    @property
    def realizable(self) -> bool:
        """True when a network reproduces the labels (``status == "realizable"``)."""
        return self.status == REALIZABLE

    @property
    def model(self) -> dict | None:
        """The class of networks a "no" excludes, as its certificate states it (``{"biases", "output_bias"}``);
        None for a "yes"."""
        return model_of(self.certificate)

    @property
    def stats(self) -> dict:
        """Deprecated name of :attr:`evidence` (the record of 0.1 called it ``stats``); kept for one release."""
        warnings.warn("Decision.stats is deprecated; use Decision.evidence", DeprecationWarning, stacklevel=2)
        return self.evidence
