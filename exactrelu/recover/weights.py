"""Certify weights that came from elsewhere (a trained PyTorch model, an ``.npz`` of U and V).

Two outcomes, and a third only when asked for:

* the given weights, read exactly (a float32 or float64 is a dyadic rational), reproduce every
  label exactly: they are certified as they are;
* they do not: the exact residual is reported (how many entries differ, the largest difference,
  where), and, unless ``as_given=True``, the first layer is used as a *proposal* for exact
  recovery, which certifies exact weights next to the given ones, or raises with evidence;
* with ``residual_fallback=True`` (what ``exactrelu certify`` does), when no exact certificate can
  be given (float-rounded or noisy labels), the exact residual of the given weights is written as a
  ``residual`` certificate instead: how good the given fit is, exactly, not that it is exact.

>>> from exactrelu.instances import planted
>>> inst = planted(d=5, k=3, m=3, n=200, seed=0)
>>> U, V = inst.planted.U.to_float(), inst.planted.V.to_float()
>>> certify_weights(inst, U, V).how
'as given'
>>> res = certify_weights(inst, U + 1e-3, V * 1.01 + 1e-4)
>>> res.how, res.network.equivalent(inst.planted), res.given_residual["n_failing"] > 0
('recovered from the given first layer', True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from ..certificates.envelope import instance_sha256, realizes_certificate, verify
from ..errors import ExactReluError, InvalidInput, NotRealizable, TimeLimitExceeded
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import RELU, Activation, Network
from .exact import recover

__all__ = ["certify_weights", "WeightsCertificate", "exact_residual"]


@dataclass
class WeightsCertificate:
    """Outcome of :func:`certify_weights`.

    how : ``"as given"`` or ``"recovered from the given first layer"``.
    network : the certified network (exact). certificate : the ``realizes`` certificate.
    given_residual : None when the given weights were exact, else :func:`exact_residual` of them.
    max_weight_change : largest |entry| difference between the canonical forms of the given and
        the certified networks (float, for display; 0.0 when certified as given).
    checked : the independent checker's summary.
    """

    how: str
    network: Network
    certificate: dict
    given_residual: dict | None
    max_weight_change: float
    checked: str | None


def exact_residual(net: Network, inst: Instance) -> dict:
    """Exact comparison of ``net`` with the labels: {'n_failing', 'n_entries', 'max_residual', 'worst', 'first'}.

    ``max_residual`` is an exact rational string; ``worst`` and ``first`` are (sample, output) pairs.
    """
    P = net.evaluate_exact(inst.inputs)
    a, b = int(inst.labels.den), int(P.den)
    R = P.num * a - inst.labels.num * b  # (pred - labels) * a * b
    n, m = R.nrows(), R.ncols()
    ents = R.entries()
    bad = [i for i, v in enumerate(ents) if v != 0]
    out = {"n_failing": len(bad), "n_entries": n * m}
    if bad:
        w = max(bad, key=lambda i: abs(int(ents[i])))
        out["max_residual"] = str(abs(Fraction(int(ents[w]), a * b)))
        out["worst"] = divmod(w, m)
        out["first"] = divmod(bad[0], m)
    return out


def _residual_outcome(instance: Instance, given: Network, res: dict, reason: str, check: bool) -> WeightsCertificate:
    """The ``residual`` certificate of the given weights (no exact certificate could be given)."""
    from ..certificates.envelope import residual_certificate

    cert = residual_certificate(instance, given, sha256=instance_sha256(instance), proposer="given weights",
                                no_exact_certificate=reason)
    summary = verify(cert, instance) if check else None
    return WeightsCertificate("residual of the given weights", given, cert, res, 0.0, summary)


def certify_weights(instance: Instance, U, V, *, b=None, activation: Activation | None = None, as_given: bool = False,
                    random_state=0, check: bool = True, residual_fallback: bool = False,
                    time_limit=None) -> WeightsCertificate:
    """Certify the network (U, V, b) on ``instance``, or exact weights found from V; see the module doc.

    ``U``, ``V`` (and hidden biases ``b``, k x 1) are float arrays (read exactly) or exact
    :class:`~exactrelu.exact.QMatrix`. Recovery from the first layer handles no biases: weights with
    non-zero biases are certified as given or (``residual_fallback``) get a residual certificate.
    ``time_limit`` (seconds or a Deadline) bounds the recovery (TimeLimitExceeded, nothing claimed).

    Raises
    ------
    InvalidInput : shapes do not fit the instance.
    NotRealizable : the given weights are not exact and (``as_given``) nothing else is tried, or
        recovery from them fails (and not ``residual_fallback``); ``evidence`` carries the exact
        residual of the given weights.
    """
    act = activation or instance.activation or RELU
    Uq = QMatrix.coerce(U, name="U")  # exactly as given: floats exactly, Fractions and strings exactly
    Vq = QMatrix.coerce(V, name="V")
    U, V = Uq.to_float(), Vq.to_float()  # shapes, and the float proposal if recovery is needed
    if V.shape[1] != instance.d:
        raise InvalidInput(f"V is {V.shape[0]} x {V.shape[1]} but the inputs have d = {instance.d} columns")
    if U.shape[0] != instance.m:
        raise InvalidInput(f"U is {U.shape[0]} x {U.shape[1]} but the labels have m = {instance.m} columns")
    if U.shape[1] != V.shape[0]:
        raise InvalidInput(f"U has {U.shape[1]} columns but V has {V.shape[0]} rows (both must be k)")
    bq = None if b is None else (b if isinstance(b, QMatrix) else  # exactly, whatever the form
                                 QMatrix.coerce([[x] for x in (b.ravel() if isinstance(b, np.ndarray) else b)], name="b"))
    given = Network(Uq, Vq, act, bq)
    res = exact_residual(given, instance)
    if res["n_failing"] == 0:
        cert = realizes_certificate(instance, given, sha256=instance_sha256(instance), proposer="given weights")
        summary = verify(cert, instance) if check else None
        return WeightsCertificate("as given", given, cert, None, 0.0, summary)
    where = (f"{res['n_failing']} of {res['n_entries']} label entries differ; largest residual "
             f"{float(Fraction(res['max_residual'])):.3g} at sample {res['worst'][0]}, output {res['worst'][1]}")
    if as_given or given.has_bias:
        if residual_fallback:
            return _residual_outcome(instance, given, res, f"not exact: {where}", check)
        raise NotRealizable(f"the given weights do not reproduce the labels exactly: {where}", evidence=res)
    try:
        rec = recover(instance, k=V.shape[0], activation=act, init=V, random_state=random_state, check=check,
                      time_limit=time_limit)
    except TimeLimitExceeded:
        raise
    except ExactReluError as exc:
        if residual_fallback:
            return _residual_outcome(instance, given, res, f"not exact ({where}); recovery failed: {exc}", check)
        raise NotRealizable(f"the given weights do not reproduce the labels exactly ({where}), and exact recovery "
                            f"from their first layer failed: {exc}", evidence={"given": res, "recovery": getattr(exc, "evidence", {})}) from None
    a, b = rec.network.canonical(), given.canonical()
    change = max(float(np.abs(a.U.to_float() - b.U.to_float()).max()), float(np.abs(a.V.to_float() - b.V.to_float()).max()))
    return WeightsCertificate("recovered from the given first layer", rec.network, rec.certificate, res, change, rec.checked)
