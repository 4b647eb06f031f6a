"""The exact residual streamed by chunks of samples equals the in-memory computation, exactly.

The reference is the FLINT computation over the whole instance at once (``method="flint"``, one chunk), which is
the computation exact_residual made before it streamed; the limb route (exact/codecs/limbs.py) and the FLINT route by
chunks must give the same Residual (sums, largest error and where, the failing entries) for every chunk size.
"""

import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates.claims import residual as residual_mod
from exactrelu.certificates.claims.residual import exact_residual
from exactrelu.errors import InvalidInput
from exactrelu.exact import QMatrix
from exactrelu.instances import Instance, planted
from exactrelu.network import Activation, Network, RELU


def _floats(rng, shape, spread):
    return rng.standard_normal(shape) * 10.0 ** rng.integers(-spread, spread + 1, shape)


@st.composite
def cases(draw):
    """(network, instance): float64 data (dyadic, of very different magnitudes) or exact rational labels,
    networks from floats or with thirds and sevenths, with and without hidden and output biases."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    d, k, m, n = (draw(st.integers(1, 4)) for _ in range(4))
    n = draw(st.integers(1, 40))
    X = _floats(rng, (n, d), draw(st.integers(0, 12)))
    Y = _floats(rng, (n, m), 3)
    Y[rng.random(Y.shape) < draw(st.sampled_from([0.0, 0.5, 1.0]))] = 0.0  # exact entries, some or all
    if draw(st.booleans()):
        U = [[Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 8))) for _ in range(k)] for _ in range(m)]
        V = [[Fraction(int(rng.integers(-9, 10)), 3) for _ in range(d)] for _ in range(k)]
        net = Network.from_rows(U, V)
    else:
        net = Network(QMatrix.from_numpy(_floats(rng, (m, k), 2)), QMatrix.from_numpy(_floats(rng, (k, d), 2)), RELU)
    b = QMatrix.from_numpy(_floats(rng, (k, 1), 2)) if draw(st.booleans()) else None
    c = QMatrix.from_rows([[Fraction(int(rng.integers(-5, 6)), 7)] for _ in range(m)]) if draw(st.booleans()) else None
    net = Network(net.U, net.V, RELU, b, c)
    if draw(st.booleans()):  # labels as exact rationals that are not floats (FLINT entries, no float source)
        inst = Instance.from_arrays(X, [[Fraction(int(v * 1000), 7) for v in row] for row in Y.tolist()])
    else:
        inst = Instance.from_arrays(X, Y)
    return net, inst


@settings(max_examples=60, deadline=None)
@given(cases(), st.data())
def test_streamed_equals_in_memory_on_every_chunk_boundary(case, data):
    net, inst = case
    reference = exact_residual(net, inst, max_listed=None, method="flint", chunk=inst.n)
    chunk = data.draw(st.integers(1, inst.n + 2), label="chunk")
    assert exact_residual(net, inst, max_listed=None, chunk=chunk) == reference  # the limb route
    assert exact_residual(net, inst, max_listed=None, chunk=chunk, method="flint") == reference  # FLINT by chunks
    listed = data.draw(st.integers(0, 5), label="max_listed")
    capped = exact_residual(net, inst, max_listed=listed, chunk=chunk)
    assert capped.failing == reference.failing[:listed]
    assert capped.complete == (reference.n_failing <= listed)
    assert (capped.squared_error, capped.max_abs_error, capped.worst) == (reference.squared_error,
                                                                        reference.max_abs_error, reference.worst)


def test_the_limb_route_is_taken_for_relu_and_not_for_powers():
    inst = planted(d=3, k=2, m=2, n=30, seed=0, noise="gaussian:0.1")
    assert residual_mod._LimbRoute.build(inst.planted, inst) is not None
    power = Network(inst.planted.U, inst.planted.V, Activation.power(2))
    assert residual_mod._LimbRoute.build(power, inst) is None
    whole = exact_residual(power, inst, method="flint", chunk=inst.n)
    assert exact_residual(power, inst, chunk=4) == whole and whole.n_failing > 0


def test_huge_weights_leave_the_limb_route_and_stay_exact():
    inst = planted(d=2, k=1, m=1, n=12, seed=3, noise="gaussian:0.1")
    net = Network.from_rows([[Fraction(1, 3**1000)]], [[1, Fraction(-1, 7)]])  # 1,585 bits: over MAX_LIMBS
    assert residual_mod._LimbRoute.build(net, inst) is None
    assert exact_residual(net, inst, chunk=5) == exact_residual(net, inst, method="flint", chunk=inst.n)


def test_bad_chunk_and_method_are_refused():
    inst = planted(d=2, k=1, m=1, n=5, seed=0)
    for chunk in (0, -3, 2.5, True):
        with pytest.raises(InvalidInput, match="chunk"):
            exact_residual(inst.planted, inst, chunk=chunk)
    with pytest.raises(InvalidInput, match="method"):
        exact_residual(inst.planted, inst, method="floats")


def _peak(n: int, chunk: int | None) -> int:
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((n, 6)), rng.standard_normal((n, 4))
    inst = Instance.from_arrays(X, Y)
    net = Network(QMatrix.from_numpy(rng.standard_normal((4, 3))), QMatrix.from_numpy(rng.standard_normal((3, 6))), RELU)
    tracemalloc.start()
    try:
        exact_residual(net, inst, max_listed=0, chunk=chunk)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_bounded_per_chunk_not_per_instance():
    small, large = _peak(2_000, 250), _peak(16_000, 250)
    assert large < 1.5 * small  # eight times the samples, the same chunks: about the same peak
    assert _peak(16_000, 16_000) > 4 * small  # one chunk of everything: the peak grows with n (the test can fail)
