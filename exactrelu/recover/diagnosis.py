"""Why exact recovery failed, when the data say so: constant offsets and hidden biases, detected exactly.

Recovery without biases refuses data made with them, and its generic message ("noisy or rounded
labels, or inputs not in general position") then misleads. :func:`explain_failure` looks for two
structures and states only what it established:

* **A constant offset.** The all-ones vector lies in the labels' column space (an exact rank
  test: rank([labels | 1]) = rank(labels)). A unit that is active on every sample, or an output
  bias, puts it there; an unbiased network generically does not.
* **Hidden biases.** With rank(labels) = k, exact recovery on the inputs with a constant
  coordinate appended, ``[x, 1]``, succeeds: then ``f(inputs @ V.T + b) @ U.T == labels`` holds on
  every entry, verified exactly (the last column of the recovered weights is b).

Neither runs unless recovery has already failed, and nothing here writes a certificate.

>>> from exactrelu.instances import planted
>>> inst = planted(d=4, k=2, m=2, n=300, seed=0, bias=1)
>>> print(explain_failure(inst, 2))  # doctest: +ELLIPSIS
The labels are reproduced exactly by 2 units with hidden biases...b = [-3/4, -1/4] up to...
"""

from __future__ import annotations

from typing import Callable

import flint
import numpy as np

from ..errors import ExactReluError
from ..exact.linalg import exact_rank
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..network import RELU, Activation

__all__ = ["explain_failure", "constant_in_label_span", "with_constant_input"]


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


def explain_failure(instance: Instance, k: int, activation: Activation | None = None, *,
                    recover: Callable | None = None, random_state=0) -> str | None:
    """A sentence naming the structure that made exact recovery with ``k`` units fail, or None.

    Parameters
    ----------
    instance : the data recovery failed on.
    k : the number of hidden units asked for.
    activation : the activation (default: the instance's, else ReLU).
    recover : the recovery function (default :func:`exactrelu.recover.recover`).
    random_state : seed of the proposer for the attempt with a constant coordinate.
    """
    act = activation or instance.activation or RELU
    has_constant, rank = constant_in_label_span(instance)
    if has_constant and rank in (k, k + 1):
        extra = " = k + 1, so no k units without biases produce them" if rank == k + 1 else ""
        return (f"The constant vector lies in the labels' column space (exact rank test; rank(labels) = {rank}{extra}): "
                "the labels look like a network plus a constant offset per output (an output bias, or a unit active "
                "on every sample), which recovery without biases cannot represent or locate (it needs samples where "
                "each unit is inactive). Subtract the offset, or fit a network with hidden biases.")
    if rank != k or instance.d + 1 > 10_000:
        return None
    if recover is None:
        from .front_door import recover
    try:
        res = recover(with_constant_input(instance), k=k, activation=act, random_state=random_state, check=False)
    except ExactReluError:
        return None
    V = res.network.V.to_fractions()
    b = [row[-1] for row in V]
    if all(x == 0 for x in b):  # pragma: no cover - then recovery without biases would not have failed
        return None
    return (f"The labels are reproduced exactly by {k} units with hidden biases, f(inputs @ V.T + b) @ U.T == labels "
            f"on all {instance.n * instance.m} entries (exact recovery on the inputs with a constant coordinate "
            f"appended; b = {_short(b)} up to the positive scale of each unit): recovery without biases cannot "
            "represent them; ask for them (recover(..., bias=True)).")
