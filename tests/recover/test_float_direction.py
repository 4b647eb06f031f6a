"""The unit's weights proposed by a float solve (issue 36 item 4): no d x d matrix converted to FLINT per unit.
The float direction is only a proposal (every sample is then checked exactly); it agrees with the solve modulo a
prime where it answers, and a direction it cannot give (large denominators) falls back to the prime's solve."""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.exact.linalg import solve_small_direction
from exactrelu.instances import Instance
from exactrelu.recover import recover, views
from exactrelu.recover.unit_steps import float_direction, primitive_weights


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 12), seed=st.integers(0, 10**6), scale=st.integers(1, 10**40))
def test_float_direction_is_the_primes_direction(d, seed, scale):
    """On d x d dyadic systems whose solution is a multiple of small integers, the float direction (when it answers)
    is the primitive direction of the exact solve modulo p."""
    rng = np.random.default_rng(seed)
    A = np.ldexp(np.round(np.ldexp(rng.standard_normal((d, d)), 20)), -20)
    v = rng.integers(-5, 6, d)
    v[rng.integers(d)] = rng.integers(1, 6)  # not all zero
    A_int = np.ldexp(A, 20).astype(np.int64)
    rhs = [int(t) * scale for t in A_int @ v]
    got = float_direction(A, rhs)
    want = solve_small_direction(flint.fmpz_mat(A_int.tolist()), rhs)
    if got is not None and want is not None:
        assert got == primitive_weights(want) or got == [-x for x in primitive_weights(want)]
        assert got == primitive_weights([Fraction(int(x)) for x in got])


def test_float_direction_refuses_what_it_cannot_give():
    assert float_direction(np.eye(3), [1, 10007, 3]) is None  # 1/10007 after scaling: above 2^12
    assert float_direction(np.zeros((2, 2)), [1, 2]) is None  # singular
    assert float_direction(np.eye(2), [0, 0]) is None
    ill = np.array([[1.0, 1.0], [1.0, 1.0 + 2**-52]])
    assert float_direction(ill, [1, 3]) is None  # it rounds to a wrong direction, [-1, 1]: refused


def _instance(V: np.ndarray, n: int = 400, seed: int = 0) -> Instance:
    rng = np.random.default_rng(seed)
    X = np.ldexp(np.round(np.ldexp(rng.standard_normal((n, V.shape[1])), 20)), -20)
    U = np.array([[1.0, 2.0], [-1.0, 1.0]])
    Y = np.maximum(X @ V.T, 0) @ U.T
    return Instance.from_arrays(X, Y)


def test_float_inputs_convert_no_weight_system(monkeypatch):
    """A float instance's units are solved with no FLINT matrix of input rows (the 800,000 entries converted at
    (200,20,20,2e4) before)."""
    inst = _instance(np.array([[1.0, -2, 1, 0], [2, 1, -1, 3]]))
    monkeypatch.setattr(views, "fmpz_mat_from_scaled", lambda *a: pytest.fail("converted"))
    res = recover(inst, k=2)
    assert res.checked.startswith("realizes: 400 samples")


def test_weights_with_large_denominators_fall_back_to_the_prime():
    """v = (1, 10007/2^20, ...): the float direction needs a denominator above 2^12 and refuses; the solve modulo p
    gives the weights, and the certificate checks."""
    V = np.array([[1.0, 10007 / 2**20, -1, 0], [2, 1, -1, 3]])
    inst = _instance(V, seed=1)
    res = recover(inst, k=2)
    assert res.checked.startswith("realizes: 400 samples")
    got = sorted(tuple(Fraction(x) / row[0] for x in row) for row in res.network.V.to_fractions())
    assert (Fraction(1), Fraction(10007, 2**20), Fraction(-1), Fraction(0)) in got
