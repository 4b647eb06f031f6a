"""Why exact recovery failed, when the data say so: labels realizable exactly in a wider model class.

Recovery in one class (no biases, hidden biases b only, an output bias c only) refuses data made in a wider
one, and its generic message ("noisy or rounded labels, or inputs not in general position") then misleads:
exact labels of PyTorch's default model ``Linear -> ReLU -> Linear`` (both biases) are not noisy.
:func:`explain_failure` runs exact recovery in the widest class (hidden biases and an output bias, a bounded
time) and states only what it certified: the class of the network found (the biases it actually uses), that
``f(inputs @ V.T + b) @ U.T + c == labels`` holds on every entry (checked by the independent checker), and the
option that asks for that class. When nothing certifies it says nothing: its silence claims nothing.

:func:`constant_in_label_span` is the exact rank test behind the constant offset: an output bias (or a unit
active on every sample) puts the all-ones vector into the labels' column space.

Nothing runs unless recovery has already failed, and nothing here writes a certificate.

>>> from exactrelu.instances import planted
>>> inst = planted(d=4, k=2, m=2, n=300, seed=0, bias=1)
>>> print(explain_failure(inst, 2))  # doctest: +ELLIPSIS
The labels are reproduced exactly by 2 units with hidden biases and without output bias...b = [-3/4, -1/4] up to...
"""

from __future__ import annotations

from typing import Callable

import flint
import numpy as np

from ..errors import ExactReluError
from ..exact.linalg import exact_rank
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..certificates.claims.model import BOTH_BIASES, bias_class, bias_name, class_words
from ..network import RELU, Activation

__all__ = ["explain_failure", "constant_in_label_span", "with_constant_input", "DIAGNOSIS_SECONDS"]


def constant_in_label_span(instance: Instance) -> tuple[bool, int]:
    """(whether the all-ones vector is in the column space of the labels, rank(labels)); exact.

    >>> inst = Instance.from_arrays([[1], [2], [3]], [[1, 2], [1, 5], [1, 0]])
    >>> constant_in_label_span(inst)
    (True, 2)
    """
    A = instance.labels.num  # n x m integers (labels times their common denominator)
    r = exact_rank(A)
    ones = flint.fmpz_mat(A.nrows(), 1, [1] * A.nrows())
    return exact_rank(_hstack(A, ones)) == r, r


def _hstack(A: flint.fmpz_mat, B: flint.fmpz_mat) -> flint.fmpz_mat:
    n, a, b = A.nrows(), A.ncols(), B.ncols()
    rows_a, rows_b = A.tolist(), B.tolist()
    return flint.fmpz_mat(n, a + b, [x for i in range(n) for x in rows_a[i] + rows_b[i]])


def with_constant_input(instance: Instance) -> Instance:
    """The instance with a constant coordinate 1 appended to every input (exact; float inputs stay float).

    >>> with_constant_input(Instance.from_arrays([["1/2"], [3]], [[1], [2]])).inputs.to_strings()
    [['1/2', '1'], ['3', '1']]
    """
    src = instance.inputs.float_source
    if src is not None:  # set only when the float64 array is exactly the inputs: stay float
        Xf = np.hstack([src[0], np.ones((instance.n, 1))])
        return Instance.from_arrays(Xf, instance.labels, activation=instance.activation)
    X = instance.inputs
    den = int(X.den)
    ones = flint.fmpz_mat(instance.n, 1, [den] * instance.n)
    return Instance(QMatrix(_hstack(X.num, ones), den), instance.labels, instance.activation)


def _short(values: list, limit: int = 6) -> str:
    text = [str(v) for v in values[:limit]]
    return "[" + ", ".join(text + (["..."] if len(values) > limit else [])) + "]"


#: the most a diagnosis may spend (it is not an answer: past this it says nothing)
DIAGNOSIS_SECONDS = 20.0


def explain_failure(instance: Instance, k: int, activation: Activation | None = None, *, bias=False,
                    recover: Callable | None = None, random_state=0,
                    time_limit: float = DIAGNOSIS_SECONDS) -> str | None:
    """A sentence naming the wider model class whose k-unit network reproduces the labels exactly, or None.

    Parameters
    ----------
    instance : the data recovery failed on.
    k : the number of hidden units asked for.
    activation : the activation (default: the instance's, else ReLU).
    bias : the class asked for (``bias=`` of :func:`exactrelu.recover.recover`); with ``True`` (both biases, the
        widest class) there is nothing wider, and None is returned.
    recover : the recovery function (default :func:`exactrelu.recover.recover`).
    random_state : seed of the proposers.
    time_limit : seconds the recovery in the wider class may take (past them: None).
    """
    asked = bias_class(bias)
    if asked == BOTH_BIASES:
        return None
    act = activation or instance.activation or RELU
    if recover is None:
        from .front_door import recover
    try:
        res = recover(instance, k=k, activation=act, bias=True, random_state=random_state, check=True,
                      time_limit=time_limit)
    except ExactReluError:  # TimeLimitExceeded included: past the budget, nothing is said
        return None
    net = res.network
    found = {"biases": net.has_bias, "output_bias": net.has_output_bias}
    name = bias_name(found)
    parts = ([f"b = {_short(net.b_fractions())} up to the positive scale of each unit"] if net.has_bias else []) + \
        ([f"c = {_short(net.c_fractions())}"] if net.has_output_bias else [])
    inside = found["biases"] <= asked["biases"] and found["output_bias"] <= asked["output_bias"]
    tail = ("it lies in the class asked, which recovery there missed" if inside else
            f"the class asked, {class_words(asked)}, cannot represent it: ask for "
            + ("both (bias=True, --bias)" if name == "both" else f"it (bias={name!r}, --bias {name})"))
    return (f"The labels are reproduced exactly by {k} units {class_words(found)}, f(inputs @ V.T + b) @ U.T + c == "
            f"labels on all {instance.n * instance.m} entries (certified by exact recovery in the class with hidden "
            f"biases and output bias: {res.checked}; {'; '.join(parts) or 'b = 0, c = 0'}); {tail}.")
