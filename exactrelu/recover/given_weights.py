"""Certify weights that came from elsewhere (a trained model, an ``.npz``, a weights file).

Two outcomes, and a third only when asked for; the result says which:

* the given weights, read exactly (a float32 or float64 is a dyadic rational), reproduce every
  label exactly: **they** are certified, as they are (``how == "as given"``);
* they do not: their exact residual is reported (entries that differ, squared and largest error),
  and, unless ``as_given=True``, exact recovery **from the labels** runs with their first layer
  as its float proposal. What is certified is then the recovered network, not the given one;
  the result says how many of its units the given first layer pointed at (the others were found
  by blind search, so a network unrelated to the given one can be certified) and how far the
  recovered weights are from the given ones;
* with ``residual_fallback=True`` (what ``exactrelu certify`` does), when no exact certificate can
  be given (float-rounded or noisy labels), the exact residual of the given weights is written as a
  ``residual`` certificate instead: how good the given fit is, exactly, not that it is exact.

>>> from exactrelu.instances import planted
>>> inst = planted(d=5, k=3, m=3, n=200, seed=0)
>>> certify_weights(inst, inst.planted).how
'as given'
>>> U, V = inst.planted.U.to_float(), inst.planted.V.to_float()
>>> res = certify_weights(inst, U + 1e-3, V * 1.01 + 1e-4)
>>> res.how, res.network.equivalent(inst.planted), res.given_residual.n_failing > 0, res.from_given
('recovered from the labels', True, True, 3)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..certificates.envelope import instance_sha256, rational_text, verify
from ..certificates.trusted.common import approx, display
from ..certificates.claims.realizes import realizes_certificate
from ..errors import ExactReluError, InvalidInput, NotRealizable, TimeLimitExceeded
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import RELU, Activation, Network
from ..certificates.claims.residual import Residual, exact_residual
from .front_door import recover

__all__ = ["certify_weights", "WeightsCertificate", "Distance", "weights_distance", "weights_class"]


@dataclass(frozen=True)
class Distance:
    """How far a network's weights are from reference weights, unit by unit.

    Units are matched by the assignment maximizing the total |cosine| of their (V_i, b_i) rows; each
    unit of the network is then rescaled to the reference unit's scale by the positive factor
    ``s = <ref_i, net_i> / <net_i, net_i>`` (exact: a rescaled unit computes the same function,
    its output column scaled by ``s**-c``), and left as it is when the two point away from each
    other. The largest differences of the matched entries are exact.

    max_U, max_V, max_b : largest absolute entry difference of U, V and b (exact).
    relative : ``||theta - theta_ref|| / ||theta_ref||`` over all parameters (float, for display).
    """

    max_U: Fraction
    max_V: Fraction
    max_b: Fraction
    relative: float

    @property
    def max_abs(self) -> Fraction:
        return max(self.max_U, self.max_V, self.max_b)

    def to_json(self) -> dict:
        return {"max_abs": str(self.max_abs), "max_U": str(self.max_U), "max_V": str(self.max_V),
                "max_b": str(self.max_b), "relative": self.relative}


def weights_distance(net: Network, ref: Network) -> Distance:
    """:class:`Distance` of ``net`` from ``ref`` (same k, d and m), up to the symmetries of the network.

    >>> ref = Network.from_rows(U=[[1, 2]], V=[[1, 0], [0, 1]])
    >>> weights_distance(Network.from_rows(U=[[4, 1]], V=[["1/4", 0], [0, 2]]), ref).max_abs  # same function
    Fraction(0, 1)
    >>> weights_distance(Network.from_rows(U=[[2, 1]], V=[[0, 1], [1, 0]]), ref).max_abs  # permuted units
    Fraction(0, 1)
    """
    if net.U.shape != ref.U.shape or net.V.shape != ref.V.shape:
        raise InvalidInput(f"cannot compare networks of shapes {net.U.shape}, {net.V.shape} and "
                           f"{ref.U.shape}, {ref.V.shape}")
    c = net.activation.degree
    Un, Ur = net.U.to_fractions(), ref.U.to_fractions()
    rows_n = [row + [bi] for row, bi in zip(net.V.to_fractions(), net.b_fractions())]
    rows_r = [row + [bi] for row, bi in zip(ref.V.to_fractions(), ref.b_fractions())]
    fn = np.array([[_f(x) for x in row] for row in rows_n])
    fr = np.array([[_f(x) for x in row] for row in rows_r])
    cos = _unit_rows(fr) @ _unit_rows(fn).T
    ir, jn = linear_sum_assignment(-np.abs(cos))  # a unit pointing the other way is matched, and counted far
    dU = dV = db = Fraction(0)
    diff_sq, ref_sq = 0.0, float(np.sum(fr * fr)) + sum(_f(x) * _f(x) for row in Ur for x in row)
    for i, j in zip(ir, jn):
        g, h = rows_r[i], rows_n[j]
        gh, hh = sum(x * y for x, y in zip(g, h)), sum(y * y for y in h)
        s = gh / hh if gh > 0 and hh > 0 else Fraction(1)
        row = [y * s for y in h]
        col = [Un[r][j] / s**c for r in range(net.m)]
        dV = max([dV] + [abs(x - y) for x, y in zip(g[:-1], row[:-1])])
        db = max(db, abs(g[-1] - row[-1]))
        dU = max([dU] + [abs(Ur[r][i] - col[r]) for r in range(net.m)])
        diff_sq += sum(_f(x - y) * _f(x - y) for x, y in zip(g, row)) + sum(_f(Ur[r][i] - col[r]) * _f(Ur[r][i] - col[r]) for r in range(net.m))
    rel = float(np.sqrt(diff_sq / ref_sq)) if ref_sq else (0.0 if diff_sq == 0 else float("inf"))
    return Distance(dU, dV, db, rel)


def _unit_rows(A: np.ndarray) -> np.ndarray:
    scale = np.abs(A).max(axis=1, keepdims=True)
    B = A / np.where(scale > 0, scale, 1.0)
    nrm = np.linalg.norm(B, axis=1, keepdims=True)
    return B / np.where(nrm > 0, nrm, 1.0)


@dataclass
class WeightsCertificate:
    """Outcome of :func:`certify_weights`.

    how : ``"as given"`` (the given network is certified), ``"recovered from the labels"`` (a
        network recovered exactly from the labels is certified; the given one is not) or
        ``"residual of the given weights"`` (``residual_fallback``: the given network's exact residual).
    network : the certified network (exact). certificate : its ``realizes`` (or ``residual``) certificate.
    given : the given network, read exactly. given_residual : its exact :class:`~exactrelu.certificates.claims.residual.Residual`.
    from_given : units of the certified network found from the rows of the given first layer, used as a
        float proposal (k when as given; None when the route keeps no record per unit); the others
        were found by blind search. A proposal row only chooses samples: the exact step finds
        whichever unit they isolate, even from unrelated weights.
    distance : :class:`Distance` of the certified weights from the given ones (None when as given).
    checked : the independent checker's summary (None when not run).
    stronger_failed : why ``realizes`` could not be certified about the given weights (and, for a residual,
        about any weights recovered from the labels); None when as given.
    """

    how: str
    network: Network
    certificate: dict
    given: Network
    given_residual: Residual
    from_given: int | None
    distance: Distance | None
    checked: str | None
    route: str | None = None
    #: why the stronger claim failed (None when the given weights are certified as given): for the given
    #: weights when recovered ones are certified, for both when only a residual is
    stronger_failed: str | None = None


def _as_network(weights, V, b, activation: Activation) -> Network:
    if isinstance(weights, Network):
        if V is not None or b is not None:
            raise InvalidInput("pass a Network, or U and V (and b), not both")
        return weights if weights.activation == activation else weights.with_activation(activation)
    if V is None:
        if isinstance(weights, (str, os.PathLike, Mapping)) or callable(getattr(weights, "state_dict", None)):
            from ..io.weights import as_network  # a weights file, an nn.Module or its state dict

            net = as_network(weights, activation)
            return net if net.activation == activation else net.with_activation(activation)
        raise InvalidInput("certify_weights needs a Network, a weights file, an nn.Module or state dict, or the "
                           "arrays U and V")

    # QMatrix.coerce keeps exact values exact (Fractions, strings, ints) and reads float arrays as the dyadics they are
    if b is None or isinstance(b, QMatrix):
        bq = b
    else:
        bq = QMatrix.coerce(b.reshape(-1, 1) if isinstance(b, np.ndarray) else [[x] for x in b], name="b")
    return Network(QMatrix.coerce(weights, name="U"), QMatrix.coerce(V, name="V"), activation, bq)


def _residual_outcome(instance: Instance, given: Network, res: Residual, reason: str, check: bool) -> WeightsCertificate:
    """The ``residual`` certificate of the given weights (no exact certificate could be given)."""
    from ..certificates.claims.realizes import residual_certificate

    cert = residual_certificate(instance, given, residual=res, sha256=instance_sha256(instance),
                                proposer="given weights", no_exact_certificate=reason)
    summary = verify(cert, instance) if check else None
    return WeightsCertificate("residual of the given weights", given, cert, given, res, None, None, summary,
                              stronger_failed=reason)


def certify_weights(instance: Instance, weights, V=None, b=None, *, activation: Activation | None = None,
                    as_given: bool = False, random_state=0, check: bool = True,
                    residual_fallback: bool = False, time_limit=None) -> WeightsCertificate:
    """Certify the given network on ``instance``, or one recovered from the labels; see the module doc.

    Parameters
    ----------
    instance : the data.
    weights : a :class:`~exactrelu.network.Network` (e.g. from :func:`exactrelu.io.weights.read_weights`),
        the path of a weights file, a PyTorch ``nn.Module`` (Linear -> ReLU -> Linear, its output bias
        included) or its state dict, or the output weights U (m x k; then ``V`` (k x d) and optionally ``b``
        (k) follow), float arrays or tensors read exactly or exact :class:`~exactrelu.exact.QMatrix`.
    activation : default the network's when a Network is given, else the instance's, else ReLU.
    as_given : certify the given weights or raise (or, with ``residual_fallback``, give their residual); no
        recovery.
    random_state : seed of the search for units the given first layer does not point at.
    check : run the independent checker on the certificate.
    residual_fallback : when no exact certificate can be given, return the given weights' ``residual``
        certificate instead of raising.
    time_limit : seconds (or a :class:`~exactrelu.deadline.Deadline`) bounding the recovery
        (TimeLimitExceeded, nothing claimed: never turned into a residual certificate).

    Recovery from the labels works in the model class of the given weights (:func:`weights_class`): hidden biases
    when some b is non-zero, an output bias when some c is (a PyTorch ``Linear -> ReLU -> Linear``: both).

    Raises
    ------
    InvalidInput : shapes do not fit the instance.
    NotRealizable : the given weights are not exact and ``as_given``, or recovery from the labels
        fails (and not ``residual_fallback``); ``evidence`` carries the exact residual of the given weights.
    """
    act = activation or (weights.activation if isinstance(weights, Network) else None) or instance.activation or RELU
    given = _as_network(weights, V, b, act)
    first, last = ("V", "U") if given.depth == 2 else ("the first layer's W", "the last layer's W")
    if given.d != instance.d:
        raise InvalidInput(f"{first} is {given.widths[1]} x {given.d} but the inputs have d = {instance.d} columns")
    if given.m != instance.m:
        raise InvalidInput(f"{last} is {given.m} x {given.widths[-2]} but the labels have m = {instance.m} columns")
    res = exact_residual(given, instance)
    if res.exact:
        cert = realizes_certificate(instance, given, sha256=instance_sha256(instance), proposer="given weights")
        summary = verify(cert, instance) if check else None
        return WeightsCertificate("as given", given, cert, given, res, given.k if given.depth == 2 else None, None,
                                  summary)
    where = (f"{res.n_failing} of {res.n_entries} label entries differ; exact squared error {_short(res.squared_error)} "
             f"(relative {res.relative():.3g}), largest difference {approx(res.max_abs_error)} at sample "
             f"{res.worst[0]}, output {res.worst[1]}")
    evidence = {"n_failing": res.n_failing, "n_entries": res.n_entries, "squared_error": rational_text(res.squared_error),
                "max_abs_error": rational_text(res.max_abs_error), "worst": res.worst, "first": res.first}
    if as_given or given.depth != 2:  # recovery from the labels is for two-layer networks
        if residual_fallback:
            return _residual_outcome(instance, given, res, f"not exact: {where}", check)
        why = "" if given.depth == 2 else " (recovery from the labels is for two-layer networks; this one has depth " \
            f"{given.depth})"
        raise NotRealizable(f"the given weights do not reproduce the labels exactly: {where}{why}", evidence=evidence)
    try:
        rec = recover(instance, k=given.k, activation=act, init=given, bias=weights_class(given),
                      random_state=random_state, check=check, time_limit=time_limit)
    except TimeLimitExceeded:
        raise
    except ExactReluError as exc:
        if residual_fallback:
            return _residual_outcome(instance, given, res, f"not exact ({where}); recovery failed: {exc}", check)
        raise NotRealizable(f"the given weights do not reproduce the labels exactly ({where}), and exact recovery "
                            f"from the labels with their first layer as proposal failed: {exc}",
                            evidence={"given": evidence, "recovery": getattr(exc, "evidence", {})}) from None
    from_given = sum(1 for u in rec.units if u.source != "search") if rec.units else None
    return WeightsCertificate("recovered from the labels", rec.network, rec.certificate, given, res, from_given,
                              weights_distance(rec.network, given), rec.checked, rec.route,
                              stronger_failed=f"the given weights are not exact: {where}")


def weights_class(net: Network) -> dict:
    """The model class of given weights: ``{"biases": some b != 0, "output_bias": some c != 0}``.

    >>> weights_class(Network.from_rows([[1]], [[1]], c=["1/2"]))
    {'biases': False, 'output_bias': True}
    """
    return {"biases": net.has_bias, "output_bias": net.has_output_bias}


def _f(x: Fraction) -> float:
    """x as a float for statistics only; +-inf past the float range (float() raises OverflowError there)."""
    try:
        return float(x)
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def _short(x: Fraction) -> str:
    return display(x)  # the one bounded display: exact up to 40 digits, else ~1.23e+456
