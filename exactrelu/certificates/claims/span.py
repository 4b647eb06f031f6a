"""Writer of ``not-realizable`` for unknown output weights and any number of outputs: a rank witness, and for
rank(labels) = k a span refutation (docs/certificates.md, "not-realizable from the worst-case solver").

Read by the trusted :mod:`exactrelu.certificates.trusted.span`. The witness rows and columns come from
:func:`exactrelu.exact.linalg.nonsingular_minor`; the span refutation's case trees from
:func:`exactrelu.decide.enumeration.span_refutation.span_refutation`.

>>> from exactrelu.instances import Instance
>>> from exactrelu.exact.linalg import nonsingular_minor
>>> from exactrelu.certificates.envelope import verify
>>> inst = Instance.from_arrays([[1], [2], [3]], [[1, 0], [0, 1], [1, 1]])
>>> cert = not_realizable_certificate(inst, 1, *nonsingular_minor(inst.labels, 2))
>>> verify(cert, inst)  # doctest: +ELLIPSIS
'not-realizable: no 1-unit ReLU network with hidden biases and without output bias reproduces the labels (3 samples, any output weights); rank(labels) >= 2 > k = 1 (a non-zero 2 x 2 minor)'
>>> cert["model"]
{'biases': True, 'output_bias': False}
"""

from __future__ import annotations

from ...exact.rationals import format_rational
from ...instances import Instance
from ...network import RELU
from ..envelope import envelope, instance_sha256, provenance
from .model import BOTH_BIASES, HIDDEN_BIASES, model_class

__all__ = ["not_realizable_certificate"]


def not_realizable_certificate(instance: Instance, k: int, outputs: list[int], samples: list[int],
                               span: tuple[list, list] | None = None, *, activation=RELU, **prov) -> dict:
    """The ``not-realizable`` certificate (unknown output weights): the rank witness, and for a k x k
    witness the span refutation ``(functional, [tree for s = 1, tree for s = -1])`` (ReLU only; a
    (k+1) x (k+1) witness refutes any ``activation``, hidden biases included).

    The output index m (``instance.m``) names the constant column 1 of ``[labels | 1]`` (the labels of a network
    with an output bias have rank([labels | 1]) <= k + 1). The stated class (``"model"``) is the widest the proof
    supports: a (k+1) x (k+1) witness of the labels excludes hidden biases, a (k+2) x (k+2) one (of the labels or
    with the constant column) an output bias too; a span refutation excludes networks without hidden biases, and
    with them on inputs with a constant non-zero column (as ``solve --bias`` makes them), and an output bias when
    its columns include the constant one.
    """
    t, ones = len(outputs), instance.m in outputs
    if t == k + 2:
        model = dict(BOTH_BIASES)
    elif t == k + 1 and not ones:
        model = dict(HIDDEN_BIASES)
    else:
        model = {**model_class(instance.inputs), "output_bias": ones}
    cert = envelope("not-realizable", instance_sha256=instance_sha256(instance), activation=activation.to_json(), k=k,
                    output_weights="unknown", rank={"outputs": list(outputs), "samples": list(samples)}, model=model)
    if span is not None:
        a, trees = span
        cert["span"] = {"functional": [format_rational(x) for x in a],
                        "cases": [{"sign": 1, "tree": trees[0]}, {"sign": -1, "tree": trees[1]}]}
    cert["provenance"] = provenance(**prov)
    return cert
