"""The float64-BLAS limb product (exactrelu.exact.codecs.dyadic_product) against FLINT on adversarial inputs."""

import flint
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from exactrelu.exact.codecs.dyadic_product import int_times_dyadic, rectified_int_times_dyadic
from exactrelu.exact.codecs.float64 import dyadic_scale
from exactrelu.exact.matrix import QMatrix

# adversarial values: zeros (both signs), duplicates, subnormals, extremes, values on 2**w boundaries
SPECIAL = [0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1e300,
           2.0**44, -(2.0**44), 2.0**44 - 1, 2.0**53 - 1, -(2.0**53 - 1), 2.0**-30, 3 * 2.0**-60, 0.1]
values = st.one_of(st.sampled_from(SPECIAL), st.floats(allow_nan=False, allow_infinity=False),
                   st.floats(-4, 4, allow_nan=False))


def _flint(V, a):
    Q = QMatrix.from_numpy(a)
    return flint.fmpz_mat(V) * Q.num.transpose(), Q


def _relu(P):
    return flint.fmpz_mat(P.nrows(), P.ncols(), [x if x > 0 else 0 for x in P.entries()])


@settings(max_examples=300)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=7), elements=values),
       st.integers(1, 4), st.sampled_from([1, 3, 2**10, 2**30, 2**44]), st.data())
def test_product_and_rectified_equal_flint(a, k, vmax, data):
    """Exact equality with FLINT's product (and its ReLU), for every finite float64 X and weights up to vmax."""
    d = a.shape[1]
    V = [[data.draw(st.integers(-vmax, vmax)) for _ in range(d)] for _ in range(k)]
    shift, bits = dyadic_scale(a)
    P, R = int_times_dyadic(V, a, shift, bits), rectified_int_times_dyadic(V, a, shift, bits)
    assert (P is None) == (R is None)
    if P is None:
        assert bits > 1023 or shift > 1074 or 53 - (d * vmax).bit_length() < 8
        return
    exact, Q = _flint(V, a)
    assert Q.den == 2**shift
    assert P == exact and R == _relu(exact)


def test_kinks_at_exactly_zero_and_duplicates():
    """Rows whose product cancels exactly (the kink of ReLU) give 0, never a tiny positive or negative value."""
    x = np.array([[2.0**60, 1.0, -(2.0**60)], [2.0**60, 1.0, -(2.0**60)], [3.0, 2.0**-40, 3.0], [0.0, 0.0, 0.0]])
    V = [[1, 0, 1], [1, -1, 1], [-1, 0, 1], [0, 0, 0]]
    shift, bits = dyadic_scale(x)
    exact, _ = _flint(V, x)
    assert int_times_dyadic(V, x, shift, bits) == exact
    R = rectified_int_times_dyadic(V, x, shift, bits)
    assert R == _relu(exact)
    assert R[0, 0] == 0 and R[0, 1] == 0 and R[2, 2] == 0  # exact cancellations
    assert R[1, 0] == 0 and R[1, 1] == 0  # -1 (one unit below the kink)


def test_wide_random_matches_flint():
    """A Gaussian block at the scale of the recovery (73-bit scaled inputs, two or more limbs)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((300, 40))
    x[::7] = x[3]  # duplicated samples
    x[:, 5] = 0.0
    V = rng.integers(-5, 6, size=(6, 40)).tolist()
    V[2] = [0] * 40
    shift, bits = dyadic_scale(x)
    exact, _ = _flint(V, x)
    assert int_times_dyadic(V, x, shift, bits) == exact
    assert rectified_int_times_dyadic(V, x, shift, bits) == _relu(exact)


def test_zero_weights_and_empty():
    x = np.array([[1.5, -2.0]])
    assert int_times_dyadic([[0, 0]], x, 1, 3) == flint.fmpz_mat(1, 1)
    assert int_times_dyadic([], x, 1, 3) is None
