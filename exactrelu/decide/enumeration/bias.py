"""Biases for the worst-case solver (``solve_decision(..., bias=...)``, ``exactrelu solve --bias [CLASS]``).

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

An output bias c is the constant vector in the labels' row span (``[A; 1^T] = [[U, c], [0, 1]] [W; 1^T]``,
docs/recovery.md): the solver works on the labels with a constant column appended (:func:`offset_instance`, the
column m of the certificates' rank witnesses), counts the constant vector as a unit that is always there
(:func:`constant_unit`), looks for k realizable rows spanning rank([labels | 1]) dimensions with it, and solves U
and c in one exact system per output (:func:`offset_network`). Its span refutation is about functionals that vanish
on the constant vector, which the checker requires.

>>> from exactrelu.instances import Instance
>>> from exactrelu.decide import solve_decision
>>> inst = Instance.from_arrays([[0], [1], [2], [3]], [[0], [0], [1], [2]])   # relu(x - 1)
>>> res = solve_decision(inst, 1, bias="hidden")
>>> res.status, res.network.b.to_strings(), res.summary
('realizable', [['-1']], 'realizes: 4 samples x 1 outputs equal exactly (k=1, d=1, activation degree 1, hidden biases)')
>>> no = solve_decision(Instance.from_arrays([[0], [1], [2]], [[1], [0], [1]]), 1, bias="hidden")
>>> no.model, no.instance.d
({'biases': True, 'output_bias': False}, 2)
>>> solve_decision(Instance.from_arrays([[-1], [0], [2]], [[3], [3], [5]]), 1, bias="output").network.c.to_strings()
[['3']]
"""

from __future__ import annotations

from fractions import Fraction

import flint

from ...certificates.claims.realizes import realizes_certificate
from ...certificates.claims.span import not_realizable_certificate
from ...certificates.envelope import verify
from ...exact.linalg import solve_consistent
from ...exact.matrix import QMatrix
from ...instances import Instance
from ...network import RELU, Network
from ...recover.diagnosis import with_constant_input
from ...recover.views import ones_row, with_ones
from ..decision import REALIZABLE, Decision
from .pattern_lps import Unit

__all__ = ["with_constant_input", "biased_decision", "split_bias", "offset_instance", "constant_unit", "offset_network"]


def offset_instance(instance: Instance) -> Instance:
    """The instance with the constant label column 1 appended (column m): the labels of an output bias's span."""
    return Instance(instance.inputs, with_ones(instance.labels), instance.activation)


def constant_unit(outputs: list[int], m: int | None = None) -> Unit:
    """The constant vector as a unit of the solver's span, in the coordinates of the basis rows ``outputs`` (which
    hold the constant row m, the last index when ``m`` is None): it has no weights, it is c's column of U."""
    m = max(outputs) if m is None else m
    return Unit(tuple(int(r == m) for r in outputs), None)


def offset_network(X: QMatrix, Y: QMatrix, units: list[Unit], k: int) -> Network:
    """U, c and V from the units (the first is :func:`constant_unit`): ``[U c] [W; 1^T] = labels^T`` solved exactly,
    unused units zero."""
    real = units[1:]
    m, d = Y.shape[1], X.shape[1]
    V = [list(u.v) for u in real] + [[0] * d for _ in range(k - len(real))]
    if real:
        W = Network(QMatrix(flint.fmpz_mat(m, len(real)), 1), QMatrix.from_rows([list(u.v) for u in real]),
                    RELU).hidden_exact(X)
        W1 = ones_row(W.num, int(W.den))  # [W; 1^T] over W's denominator
    else:
        W1 = flint.fmpz_mat(1, X.shape[0], [1] * X.shape[0])
    sol = solve_consistent(W1.transpose(), Y.num, what="U and c")  # W1^T Z = Y.num: Z = [U c]^T Y.den / W.den
    num, den = sol.numer_denom()
    scale = Fraction(int(W.den) if real else 1, int(den) * int(Y.den))
    Z = [[Fraction(int(num[i, r])) * scale for i in range(len(real) + 1)] for r in range(m)]
    U = [row[:-1] + [Fraction(0)] * (k - len(real)) for row in Z]
    return Network.from_rows(U, V, RELU, c=[row[-1] for row in Z])


def split_bias(net: Network, d: int) -> Network:
    """The network ``(V | b)`` on ``(x, 1)`` as ``V, b`` on x (b left out when zero)."""
    rows = net.V.to_fractions()
    b = [row[d] for row in rows]
    return Network.from_rows(net.U.to_fractions(), [row[:d] for row in rows], net.activation,
                             b=b if any(b) else None, c=net.c_fractions() if net.has_output_bias else None)


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
