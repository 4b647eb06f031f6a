"""The model class a ``not-realizable`` certificate excludes, and its verdict line. Standard library only.

A certificate may state ``"model": {"biases": true|false, "output_bias": true|false}``: the networks
``U f(V x + b) + c`` it excludes have hidden biases b (or b = 0) and an output bias c (or c = 0). The
checker accepts the statement only when what it verified supports it (docs/certificates.md, "Model
classes"):

* a case tree, lemmas or a hinted refutation, and a span refutation, are about ``relu(V x)``: no
  hidden biases, unless the inputs have a column t with the same non-zero value kappa at every sample
  (then ``V_i . x + b_i = (V_i + (b_i / kappa) e_t) . x``, so a network with biases is one without on
  these inputs); never an output bias.
* a rank witness of size k + 1 bounds rank ``f(X V^T + b) U^T <= k`` whatever b: hidden biases, no
  output bias (``+ 1 c^T`` can add one to the rank); of size k + 2, both.

A certificate without ``model`` was written before model classes: it is read with the meaning it had
then (no biases for refutations, biases for a rank witness; never an output bias), and the verdict says so.
"""

from __future__ import annotations

from .common import CheckFailed

OLD_NOTE = " [no model field: read with its meaning before model classes]"


def read_model(cert: dict):
    """The stated class ``{'biases': bool, 'output_bias': bool}``, or None for a certificate without one.

    >>> read_model({"model": {"biases": True, "output_bias": False}})
    {'biases': True, 'output_bias': False}
    >>> read_model({}) is None
    True
    """
    if "model" not in cert:
        return None
    model = cert["model"]
    if not (isinstance(model, dict) and set(model) == {"biases", "output_bias"}
            and all(type(v) is bool for v in model.values())):
        raise CheckFailed("model must be {'biases': true|false, 'output_bias': true|false}")
    return model


def constant_column(X) -> bool:
    """Do the inputs (sparse rows ``[(t, x_t), ...]``, zeros left out) have a column with one non-zero value at every sample?

    >>> constant_column([[(0, 1), (1, 2)], [(0, 3), (1, 2)]]), constant_column([[(0, 1)], [(1, 1)]])
    (True, False)
    """
    same = dict(X[0])
    for row in X[1:]:
        if not same:
            break
        same = {t: v for t, v in row if t in same and same[t] == v}
    return bool(same)


def excluded_class(cert: dict, *, old: dict, biases: str | None, output_bias: str | None) -> tuple[dict, str]:
    """The class the certificate excludes and the note for its verdict line.

    ``old`` is the meaning of a certificate without ``model``; ``biases`` and ``output_bias`` are None
    when the verified proof supports them, else the reason it does not (the refusal names it).
    """
    model = read_model(cert)
    if model is None:
        return old, OLD_NOTE
    for key, why in (("biases", biases), ("output_bias", output_bias)):
        if model[key] and why is not None:
            raise CheckFailed(f"the certificate states a class wider than its proof: {why}")
    return model, ""


def verdict(model: dict, k: int, degree: int, n: int, weights: str, note: str) -> str:
    """'no 2-unit ReLU network without hidden biases and without output bias reproduces the labels (...)'.

    >>> verdict({"biases": False, "output_bias": False}, 2, 1, 40, "any output weights", "")
    'no 2-unit ReLU network without hidden biases and without output bias reproduces the labels (40 samples, any output weights)'
    """
    net = "ReLU network" if degree == 1 else f"network with activation t^{degree}"
    b = "with hidden biases" if model["biases"] else "without hidden biases"
    c = "with output bias" if model["output_bias"] else "without output bias"
    return f"no {k}-unit {net} {b} and {c} reproduces the labels ({n:,} samples, {weights}){note}"
