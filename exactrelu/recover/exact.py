"""Exact recovery of a two-layer rectified network from noiseless labels: the front door.

:func:`recover` checks the input, chooses an exact route from the data (or takes the one asked
for) and returns a :class:`RecoveryResult` naming it; the certificate's provenance names it too.
The routes live one per module:

================  ======================================  =============================================
route             when                                    module
================  ======================================  =============================================
``rowspan``       rank(labels) = k (U full column rank)   :mod:`exactrelu.recover.rowspan`
================  ======================================  =============================================

and share the exact steps of :mod:`exactrelu.recover.steps` (kernel, orientation, weight solve)
and :mod:`exactrelu.recover.finish` (label basis, output layer, final verification, certificate).

>>> from exactrelu.instances import planted
>>> inst = planted(d=5, k=3, m=3, n=300, seed=1)
>>> res = recover(inst, k=3, random_state=0)
>>> res.network.equivalent(inst.planted), res.certificate["claim"], res.route
(True, 'realizes', 'rowspan')
"""

from __future__ import annotations

from typing import Any, Callable

from ..blas import small_problem_threads
from ..deadline import Deadline, with_deadline

from ..errors import InvalidInput, NotRealizable
from ..network import RELU, Activation
from .data import as_instance, check_k
from .result import RecoveryResult, UnitRecord
from .rowspan import recover_rowspan

__all__ = ["recover", "RecoveryResult", "UnitRecord", "ROUTES"]

#: Route names accepted by ``recover(route=...)`` and ``exactrelu recover --route``.
ROUTES = ("auto", "rowspan")


def recover(
    inputs,
    labels=None,
    *,
    k: int,
    activation: Activation | None = None,
    bias: bool = False,
    route: str = "auto",
    init: Any = "auto",
    random_state=0,
    check: bool = True,
    progress: Callable[[str], None] | None = None,
    time_limit: "float | Deadline | None" = None,
) -> RecoveryResult:
    """Recover U, V (and b) with ``f(inputs @ V.T + b) @ U.T == labels`` exactly, and certify it.

    Parameters
    ----------
    inputs : an :class:`~exactrelu.instances.Instance`, or an (n x d) array / nested rationals.
    labels : (n x m) labels when ``inputs`` is an array (floats are taken exactly).
    k : number of hidden units.
    activation : ReLU (default, or the instance's) or ``Activation.power(c)``.
    bias : recover hidden biases b too (``labels = f(inputs @ V.T + b) @ U.T``); the result may
        still have b = 0.
    route : ``"auto"`` (choose from the data) or a name of :data:`ROUTES`.
    init : the float proposal: a proposer name (``"auto"`` (default), ``"search"``, ``"gradient"``,
        ``"tensor"``, ``"ica"``; see :mod:`exactrelu.propose`), a weights file, a Network, an
        estimator with ``fit``/``V_`` (and ``b_``), or a (units x d) array of approximate weights
        (see :mod:`exactrelu.recover.proposal`). Units the proposal misses are searched for blindly.
    random_state : seed for the proposers.
    check : also run the independent standard-library checker on the certificate.
    progress : optional callback receiving one-line progress messages.
    time_limit : seconds (or a :class:`~exactrelu.deadline.Deadline`) after which the search stops with
        :class:`~exactrelu.errors.TimeLimitExceeded` (nothing claimed); checked at every progress step of
        the proposers and between search rounds. None: no limit.

    Raises
    ------
    InvalidInput : malformed data, k, route or init.
    TimeLimitExceeded : ``time_limit`` passed before a certificate was found.
    AssumptionViolated : an assumption of the route fails (evidence attached), e.g. rank(labels) < k.
    NotRealizable : the labels are not reproduced exactly (noisy or rounded labels); evidence attached.
    ProposalFailed : no proposal produced the missing units (nothing is claimed).
    """
    inst = as_instance(inputs, labels, activation)
    k = check_k(k)
    if route not in ROUTES:
        raise InvalidInput(f"unknown route {route!r}; choose from {list(ROUTES)}")
    if not isinstance(bias, bool):
        raise InvalidInput(f"bias must be True or False, got {bias!r}")
    deadline = Deadline.coerce(time_limit)
    if deadline.seconds is not None:  # every progress message of the proposers also checks the time
        progress = with_deadline(progress, deadline)
    try:
        with small_problem_threads(inst.n * (inst.d + inst.m)):  # BLAS threads only pay on large float steps
            return recover_rowspan(inst, k=k, activation=activation, bias=bias, init=init, random_state=random_state,
                                   check=check, progress=progress)
    except NotRealizable as exc:
        if exc.certificate is None and "rank_lower_bound" in exc.evidence:  # a proved "no": certify it
            raise _rank_refuted(exc, inst, k, activation or inst.activation or RELU) from None
        raise


def _rank_refuted(exc: NotRealizable, inst, k: int, act: Activation) -> NotRealizable:
    """rank(labels) > k refutes every k-unit network (any activation, any biases): a checked certificate."""
    from ..certificates.envelope import verify
    from .nocert import not_realizable_certificate, rank_witness

    cert = not_realizable_certificate(inst, k, *rank_witness(inst.labels, k + 1), activation=act, solver="recover")
    summary = verify(cert, inst)
    return NotRealizable(f"{exc}; certified: {summary}", evidence={**exc.evidence, "certificate": summary},
                         certificate=cert)
