"""Exact recovery of a two-layer rectified network from noiseless labels: the front door.

:func:`recover` checks the input, chooses an exact route from the data (or takes the one asked
for) and returns a :class:`RecoveryResult` naming it; the certificate's provenance names it too.
The routes live one per module:

=====================  ==========================================  ==========================================
route                  chosen by ``route="auto"`` when             module
=====================  ==========================================  ==========================================
``rowspan``            rank(labels) = k (U of full column rank)     :mod:`exactrelu.recover.rowspan`
``sparse-columns``     rank(labels) < k, first (m >= 2 or k <= 2)   :mod:`exactrelu.recover.sparse_columns`
``linearized``         rank(labels) < k, then (any m, needs a       :mod:`exactrelu.recover.linearized`
                       float proposal: restarts by default)
``sparse-corruption``  ``sparse_noise=True`` (m > k)                :mod:`exactrelu.recover.sparse_corruption`
=====================  ==========================================  ==========================================

Every route ends with the same exact verification of every label entry and writes ``realizes``
(``realizes-except`` for sparse corruption); a route that cannot certify raises, and ``auto`` then
tries the next one that applies, naming each attempt in the final error (or in ``result.attempts``).

and share the exact steps of :mod:`exactrelu.recover.unit_steps` (kernel, orientation, weight solve)
and :mod:`exactrelu.recover.output_layer` (label basis, output layer, final verification, certificate).

>>> from exactrelu.instances import planted
>>> inst = planted(d=5, k=3, m=3, n=300, seed=1)
>>> res = recover(inst, k=3, random_state=0)
>>> res.network.equivalent(inst.planted), res.certificate["claim"], res.route
(True, 'realizes', 'rowspan')
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from ..blas import small_problem_threads
from ..certificates.envelope import instance_hash_ahead
from ..deadline import Deadline, with_deadline
from ..errors import AssumptionViolated, ExactReluError, InvalidInput, NotRealizable
from ..validation import check_flag, check_seed
from ..instances import Instance
from ..network import RELU, Activation
from ..certificates.claims.model import bias_class
from .views import as_instance, check_k, ones_row
from .output_layer import rank_of
from .proposals import read_init
from .request import RecoveryRequest
from .linearized import recover_linearized
from .result import RecoveryResult, UnitRecord
from .rowspan import recover_rowspan
from .sparse_columns import recover_sparse_columns
from .sparse_corruption import recover_sparse_corruption

__all__ = ["recover", "RecoveryResult", "UnitRecord", "ROUTES"]

#: Route names accepted by ``recover(route=...)`` and ``exactrelu recover --route``.
ROUTES = ("auto", "rowspan", "linearized", "sparse-columns", "sparse-corruption")


def recover(
    inputs,
    labels=None,
    *,
    k: int,
    activation: Activation | None = None,
    bias: "bool | str" = False,
    sparse_noise: bool = False,
    route: str = "auto",
    init: Any = "auto",
    random_state=0,
    check: bool = True,
    progress: Callable[[str], None] | None = None,
    time_limit: "float | Deadline | None" = None,
    max_except=None,
    certificate: bool = True,
    search: bool = True,
) -> RecoveryResult:
    """Recover U, V (and b, c) with ``f(inputs @ V.T + b) @ U.T + c == labels`` exactly, and certify it.

    Parameters
    ----------
    inputs : an :class:`~exactrelu.instances.Instance`, or an (n x d) array / nested rationals.
    labels : (n x m) labels when ``inputs`` is an array (floats are taken exactly).
    k : number of hidden units.
    activation : ReLU (default, or the instance's) or ``Activation.power(c)``.
    bias : the model class: ``True`` or ``"both"`` (PyTorch's default ``Linear -> f -> Linear``: hidden biases b
        and an output bias c, ``labels = f(inputs @ V.T + b) @ U.T + c``), ``"hidden"`` (b, no c: the papers'
        model), ``"output"`` (c, no b) or ``False`` (neither). The result may still have b = 0 or c = 0 (the
        certificate then leaves the field out); a certified "no" covers exactly the class asked.
    sparse_noise : the labels may have a sparse set of corrupted entries (needs m > k): the route
        ``sparse-corruption`` certifies ``realizes-except``, listing exactly the entries that differ.
    route : ``"auto"`` (choose from the data) or a name of :data:`ROUTES`.
    init : the float proposal: a proposer name (``"auto"`` (default), ``"search"``, ``"gradient"``,
        ``"tensor"``, ``"ica"``; see :mod:`exactrelu.propose`), a weights file, a Network, an
        estimator with ``fit``/``V_`` (and ``b_``), or a (units x d) array of approximate weights
        (see :mod:`exactrelu.recover.proposals`). Units the proposal misses are searched for blindly.
    random_state : seed for the proposers.
    check : also run the independent standard-library checker on the certificate.
    progress : optional callback receiving one-line progress messages.
    time_limit : seconds (or a :class:`~exactrelu.deadline.Deadline`) after which the search stops with
        :class:`~exactrelu.errors.TimeLimitExceeded` (nothing claimed); checked at every progress step of
        the proposers and between search rounds. None: no limit.
    max_except : with ``sparse_noise``: the largest fraction of the n m label entries the ``realizes-except``
        claim may except (a rational in [0, 1], taken exactly; written into the certificate, where the checker
        enforces it). None: the route's decoding guarantee (:func:`~exactrelu.recover.sparse_corruption.
        default_max_except`). More excepted entries, or all of them, are refused (AssumptionViolated), not certified.
    certificate : False: the exact network only, not certified (the result's ``certificate`` is ``{}``, nothing is
        hashed or checked; a sparse-corruption route certifies anyway): for a caller that verifies the network on
        more samples and certifies it itself, as :func:`~exactrelu.recover.streaming.recover_streaming` does.
    search : False: units the float proposal misses are not searched for blindly (ProposalFailed at once, nothing
        claimed): for a caller with a cheaper next step, as recover_streaming's first, small subset (a blind search
        on too few samples can take longer than the exact phase on more of them).

    Raises
    ------
    InvalidInput : malformed data, k, route or init.
    TimeLimitExceeded : ``time_limit`` passed before a certificate was found.
    AssumptionViolated : an assumption of the route(s) fails (evidence attached), e.g. rank(labels) < k for
        ``route="rowspan"``, or a unit active on too few samples.
    NotRealizable : the labels are not reproduced exactly (noisy or rounded labels); evidence attached.
    ProposalFailed : no proposal produced the missing units (nothing is claimed).
    """
    inst = as_instance(inputs, labels, activation)
    k = check_k(k)
    init = read_init(init, k)  # a weights file is read here, at the door, not inside a route
    if route not in ROUTES:
        raise InvalidInput(f"unknown route {route!r}; choose from {list(ROUTES)}")
    model = bias_class(bias)
    sparse_noise = check_flag(sparse_noise, "sparse_noise")
    certificate = check_flag(certificate, "certificate")
    search = check_flag(search, "search")
    random_state = check_seed(random_state, "random_state")
    if k > inst.n:
        raise InvalidInput(f"k = {k} hidden units but only n = {inst.n} samples: the weights cannot be determined")
    if sparse_noise and route not in ("auto", "sparse-corruption"):
        raise InvalidInput(f"sparse_noise=True takes route 'sparse-corruption' (or 'auto'), not {route!r}")
    bound = _max_except(max_except, sparse_noise or route == "sparse-corruption")
    deadline = Deadline.coerce(time_limit)
    if deadline.seconds is not None:  # every progress message of the routes and proposers also checks the time
        progress = with_deadline(progress, deadline)
    req = RecoveryRequest(k, activation, model["biases"], init, random_state, check and certificate, progress,
                          max_except=bound, output_bias=model["output_bias"], certificate=certificate,
                          search=search)
    try:
        # BLAS threads only pay on large float steps; the instance hash is made meanwhile (a forked child)
        with small_problem_threads(inst.n * (inst.d + inst.m)), \
                instance_hash_ahead(inst) if certificate else contextlib.nullcontext():
            return _route(inst, route, sparse_noise, req)
    except NotRealizable as exc:
        if exc.certificate is None and _rank_over_k(exc.evidence, k, req.output_bias):  # a proved "no": certify it
            raise _rank_refuted(exc, inst, k, activation or inst.activation or RELU, req.output_bias) from None
        raise


def _max_except(value, sparse: bool):
    """``max_except`` as an exact Fraction in [0, 1] (None stays None); only with sparse noise."""
    if value is None:
        return None
    if not sparse:
        raise InvalidInput("max_except bounds a realizes-except claim: it needs sparse_noise=True (--sparse-noise)")
    from ..exact.rationals import to_fraction

    bound = to_fraction(value)
    if not 0 <= bound <= 1:
        raise InvalidInput(f"max_except must be a fraction between 0 and 1, got {value!r}")
    return bound


def _route(inst: Instance, route: str, sparse_noise: bool, req: RecoveryRequest) -> RecoveryResult:
    """The route asked for, or :func:`_auto`'s choice."""
    if sparse_noise or route == "sparse-corruption":
        return recover_sparse_corruption(inst, req)
    if route == "rowspan":
        return recover_rowspan(inst, req)
    if route == "linearized":
        return recover_linearized(inst, req)
    if route == "sparse-columns":
        return recover_sparse_columns(inst, req)
    return _auto(inst, req)


def _rank_over_k(evidence: dict, k: int, offset: bool = False) -> bool:
    """Whether a refusal's evidence states rank(labels) > k, or with an output bias rank([labels | 1]) > k + 1 (the
    one "no" of recover that is a proof)."""
    if offset:
        rank = evidence.get("rank_with_ones")
        return isinstance(rank, int) and rank > k + 1
    rank = evidence.get("rank_lower_bound", evidence.get("rank"))
    return isinstance(rank, int) and rank > k


def _rank_refuted(exc: NotRealizable, inst, k: int, act: Activation, offset: bool = False) -> NotRealizable:
    """rank(labels) > k refutes every k-unit network (any activation, any hidden biases; with rank > k + 1 any
    output bias too), and so does rank([labels | 1]) > k + 1 with an output bias: a checked certificate, whose
    witness has k + 2 rows when the rank allows (a minor of [labels | 1] with its constant column when it must)."""
    from ..certificates.envelope import verify
    from ..certificates.claims.span import not_realizable_certificate
    from ..exact.linalg import exact_rank, nonsingular_minor
    from .views import with_ones

    if exact_rank(inst.labels.num) >= k + 2:
        witness = nonsingular_minor(inst.labels, k + 2)
    elif offset:  # rank(labels) = k + 1 < rank([labels | 1]): the constant column is in every such minor
        witness = nonsingular_minor(with_ones(inst.labels), k + 2)
    else:
        witness = nonsingular_minor(inst.labels, k + 1)
    cert = not_realizable_certificate(inst, k, *witness, activation=act, solver="recover")
    summary = verify(cert, inst)
    return NotRealizable(f"{exc}; certified: {summary}", evidence={**exc.evidence, "certificate": summary},
                         certificate=cert)


def _auto(inst: Instance, req: RecoveryRequest) -> RecoveryResult:
    """rank(labels) = k: the row span; below k: sparse columns (no proposal), then the pattern-linearized route.
    With an output bias, rank([labels | 1]) = k + 1 in place of rank(labels) = k (docs/recovery.md)."""
    k = req.k
    r = rank_of(inst.labels.num)
    if req.output_bias:
        return _auto_offset(inst, req, r)
    if r > k:
        raise NotRealizable(f"rank(labels) = {r} > k = {k}: no network with {k} hidden units produces these labels "
                            "(rank(U f(V X + b)) <= k). The labels may be noisy or rounded, or k too small.",
                            evidence={"rank": r, "k": k})
    if r == 0:
        raise AssumptionViolated("the labels are all zero: any network with U = 0 realizes them, and no unit's "
                                 "weights are determined", evidence={"rank": 0, "k": k})
    if r == k:
        return recover_rowspan(inst, req)
    return _deficient(inst, req, r, f"rank(labels) = {r} < k = {k}")


def _auto_offset(inst: Instance, req: RecoveryRequest, r: int) -> RecoveryResult:
    """``_auto`` for networks with an output bias: the rank of [labels | 1] decides."""
    k = req.k
    r1 = rank_of(ones_row(inst.labels.num.transpose()))
    if r1 > k + 1:
        raise NotRealizable(f"rank([labels | 1]) = {r1} > k + 1 = {k + 1}: no network with {k} hidden units and an "
                            f"output bias produces these labels (rank([U f(V X + b) + c 1^T; 1^T]) <= k + 1). The "
                            "labels may be noisy or rounded, or k too small.",
                            evidence={"rank": r, "rank_with_ones": r1, "k": k})
    if r1 == 1:
        raise AssumptionViolated("the labels are constant: U = 0 and the output bias c realize them, and no unit's "
                                 "weights are determined", evidence={"rank": r, "rank_with_ones": 1, "k": k})
    if r1 == k + 1:
        return recover_rowspan(inst, req)
    return _deficient(inst, req, r, f"rank([labels | 1]) = {r1} < k + 1 = {k + 1}")


def _deficient(inst: Instance, req: RecoveryRequest, r: int, rank_text: str) -> RecoveryResult:
    """rank(labels) < k (with an output bias: rank([labels | 1]) <= k): sparse columns, then the pattern-linearized
    route; each attempt named in the error when neither certifies."""
    k = req.k
    attempts: list[dict] = []
    if inst.m >= 2 or k <= 2:
        try:
            res = recover_sparse_columns(inst, req)
        except (AssumptionViolated, NotRealizable) as exc:
            attempts.append({"route": "sparse-columns", "error": type(exc).__name__, "reason": str(exc)})
        else:
            return res
    try:
        res = recover_linearized(inst, req)
    except InvalidInput:
        raise
    except ExactReluError as exc:
        attempts.append({"route": "linearized", "error": type(exc).__name__, "reason": str(exc)})
        text = "; ".join(f"{a['route']}: {a['reason']}" for a in attempts)
        raise type(exc)(f"{rank_text}, no route certified. {text}",
                        evidence={"rank": r, "k": k, "attempts": attempts}) from None
    res.attempts = attempts + res.attempts
    return res
