"""The pattern-linearised route checks a candidate on a spread of samples before the product over every sample.

Weights solved from a wrong activation pattern are Cramer quotients of thousands of digits; at (50, 11, 1, 1e5)
with both biases their product with every sample filled 20 GB and the process was killed by the kernel.
"""

import numpy as np
import pytest

from exactrelu import limits
from exactrelu.errors import InvalidInput, NotRealizable
from exactrelu.instances import planted
from exactrelu.network import RELU
from exactrelu.recover.lift import Lift
from exactrelu.recover.linearized import _ExactStep, float_rows
from exactrelu.recover.views import InputProducts, augmented


def _step(inst):
    work = augmented(inst)
    return _ExactStep(work, inst, RELU, Lift(work.d, 1, 2, inst.n, offset=False))


def _true_weights(step, inst):
    """The route's own exact weights from the planted network's pattern (rows [V_i, b_i] as integers)."""
    net = inst.planted
    Vf = np.hstack([np.array(net.V.to_float()), np.array(net.b.to_float()).reshape(-1, 1)])
    return step.weights(Vf)


@pytest.fixture
def inst():
    return planted(d=3, k=2, m=1, n=400, seed=4, bias=1.0)


def test_wrong_huge_weights_fail_on_the_spread_before_the_product_over_every_sample(inst, monkeypatch):
    step = _step(inst)
    huge = [[3**12000 + 7 * i + j for j in range(inst.d + 1)] for i in range(2)]

    def every_sample(self, W):
        raise AssertionError("the product over every sample was computed")

    monkeypatch.setattr(InputProducts, "times", every_sample)
    with pytest.raises(NotRealizable, match=r"on \d+ samples spread over the 400 checked first"):
        step.output(huge)


def test_the_memory_of_the_product_is_estimated_and_refused_with_the_figure(inst):
    step = _step(inst)
    W = [[2**3000 * x for x in row] for row in _true_weights(step, inst)]  # right directions, a 3,000-bit scale
    limits.set_limit("memory", 1)  # EXACTRELU_MAX_MEMORY=1 (MB)
    try:
        with pytest.raises(InvalidInput, match="the exact hidden layer of a proposal on every sample needs about"):
            step.output(W)
    finally:
        limits._limits.pop("memory"), limits._explicit.pop("memory")
    U, c, V = step.output(W)  # the same weights within the machine's memory: the labels hold on every sample
    assert V.shape == (2, inst.d + 1)


def test_float_rows_keeps_the_direction_of_rows_beyond_float_range():
    big = [[5 * 2**5000, -3 * 2**5000, 0], [-(2**70), 1, 2]]
    r = float_rows(big)
    assert np.isfinite(r).all()
    assert np.allclose(r[0] / r[0, 0], [1.0, -0.6, 0.0]) and np.allclose(r[1] / abs(r[1, 0]), [-1.0, 0, 0])
    assert np.sign(r).tolist() == np.sign(np.array([[5, -3, 0], [-1, 1, 1]], dtype=float)).tolist()


def test_a_residual_of_thousands_of_digits_is_reported_not_raised():
    """str() of an integer over 4,300 digits raises ValueError: the candidate's rejection must not."""
    import flint

    from exactrelu.instances import Instance
    from exactrelu.recover.output_layer import residual_error

    inst = Instance.from_arrays([[0], [1]], [[1], [2]])
    exc = residual_error(flint.fmpz_mat([[3**20000, 0]]), 7, inst)
    assert "1 of 2 entries" in str(exc) and "e+9541" in str(exc)
    assert "exact value not shown" in exc.evidence["max_residual"]
