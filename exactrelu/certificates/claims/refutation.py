"""Writer of ``not-realizable`` by cases: for each output-weight case, a case tree, lemmas, or a hinted refutation.

Read by the trusted :mod:`exactrelu.certificates.trusted.refutation` (docs/design.md, claim
``not-realizable``). The cases are found by :func:`exactrelu.decide.decide` (the lazy SAT + exact-LP
engine, or the tree engine); this module only puts them in the envelope.

>>> from exactrelu.instances import Instance
>>> from exactrelu.certificates.envelope import verify
>>> inst = Instance.from_arrays([[1], [2]], [[1], [3]])   # relu(v x) = 1 at x = 1 forces v = 1, then 2 != 3
>>> tree = [{"split": [0, 0]}, {"split": [1, 0]},
...         {"farkas": [["eq", 0, 0, "2"], ["eq", 1, 0, "-1"]]},
...         {"farkas": [["eq", 1, 0, "-1"]]},
...         {"farkas": [["eq", 0, 0, "-1"]]}]
>>> cert = cases_certificate(inst, 1, True, [{"U": [["1"]], "tree": tree}])
>>> verify(cert, inst)
'not-realizable: no 1-unit ReLU network without hidden biases and without output bias reproduces the labels (2 samples, the given output weights); ...'
>>> cert["model"]
{'biases': False, 'output_bias': False}
"""

from __future__ import annotations

from ...instances import Instance
from ...network import RELU
from ..envelope import envelope, instance_sha256, provenance
from .model import model_class

__all__ = ["cases_certificate"]


def cases_certificate(instance: Instance, k: int, given: bool, cases: list[dict], *, output_bias: bool = False,
                      **prov) -> dict:
    """``not-realizable`` for k ReLU units: ``cases`` refute every output-weight case.

    ``given``: the one case's U is the given output weights; otherwise the cases are the sign vectors of
    :func:`exactrelu.decide.sign_cases`, in that order (docs/certificates.md). The certificate states the
    class it excludes (``"model"``), the widest the refutation supports
    (:func:`~exactrelu.certificates.claims.model.model_class`): networks without hidden biases and without
    output bias, and with hidden biases when the inputs have a constant non-zero column (``solve --bias``
    appends one). With ``output_bias`` the cases were refuted with c a free variable of every equation, and the
    class includes an output bias.
    """
    model = {**model_class(instance.inputs), "output_bias": bool(output_bias)}
    cert = envelope("not-realizable", instance_sha256=instance_sha256(instance), activation=RELU.to_json(), k=k,
                    output_weights="given" if given else "unknown", cases=cases, model=model)
    cert["provenance"] = provenance(**prov)
    return cert
