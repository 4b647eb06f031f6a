"""Hidden biases for the worst-case solver (``solve_decision(..., bias=True)``, ``exactrelu solve --bias``).

A network with hidden biases on inputs x is one without on the inputs ``(x, 1)``:
``V_i . x + b_i = (V_i, b_i) . (x, 1)``. So the solver runs on the inputs with a constant 1 column appended
(:func:`~exactrelu.recover.diagnosis.with_constant_input`), and its answer is turned back (:func:`biased_decision`):

* a network ``(V | b)`` on ``(x, 1)`` is the network ``V, b`` on x: its ``realizes`` certificate (with ``"b"``)
  is about the instance given;
* a rank witness is about the labels only, so its certificate is about the instance given too (and excludes
  hidden biases whatever the inputs);
* a span refutation or a case refutation is about the inputs with the constant column: the certificate states
  ``"model": {"biases": true, ...}``, which the checker accepts because that column is there, and
  :attr:`Decision.instance <exactrelu.decide.decision.Decision.instance>` is that instance (``exactrelu check``
  needs it; ``solve --bias`` writes it beside the certificate).

>>> from exactrelu.instances import Instance
>>> from exactrelu.decide import solve_decision
>>> inst = Instance.from_arrays([[0], [1], [2], [3]], [[0], [0], [1], [2]])   # relu(x - 1)
>>> res = solve_decision(inst, 1, bias=True)
>>> res.status, res.network.b.to_strings(), res.summary
('realizable', [['-1']], 'realizes: 4 samples x 1 outputs equal exactly (k=1, d=1, activation degree 1, hidden biases)')
>>> no = solve_decision(Instance.from_arrays([[0], [1], [2]], [[1], [0], [1]]), 1, bias=True)
>>> no.model, no.instance.d
({'biases': True, 'output_bias': False}, 2)
"""

from __future__ import annotations

from ...certificates.claims.realizes import realizes_certificate
from ...certificates.claims.span import not_realizable_certificate
from ...certificates.envelope import verify
from ...instances import Instance
from ...network import Network
from ...recover.diagnosis import with_constant_input
from ..decision import REALIZABLE, Decision

__all__ = ["with_constant_input", "biased_decision", "split_bias"]


def split_bias(net: Network, d: int) -> Network:
    """The network ``(V | b)`` on ``(x, 1)`` as ``V, b`` on x (b left out when zero)."""
    rows = net.V.to_fractions()
    b = [row[d] for row in rows]
    return Network.from_rows(net.U.to_fractions(), [row[:d] for row in rows], net.activation,
                             b=b if any(b) else None, c=None if net.c is None else net.c.to_fractions())


def biased_decision(instance: Instance, augmented: Instance, res: Decision) -> Decision:
    """The solver's answer ``res`` on ``augmented`` (``instance`` with a constant column) as an answer about
    networks with hidden biases on ``instance`` (module doc)."""
    evidence = {**res.evidence, "bias": True}
    cert = res.certificate
    if res.realizable:
        net = split_bias(res.network, instance.d)
        cert = realizes_certificate(instance, net, solver="worstcase", bias=True)
        return Decision(REALIZABLE, net, cert, verify(cert, instance), evidence)
    rank = cert.get("rank")
    if rank is not None and "span" not in cert:  # a minor of the labels: about the instance given
        cert = not_realizable_certificate(instance, cert["k"], rank["outputs"], rank["samples"], solver="worstcase",
                                          bias=True)
        return Decision(res.status, None, cert, verify(cert, instance), evidence)
    return Decision(res.status, None, cert, res.summary, evidence, instance=augmented)
