"""exact/codecs/limbs.py: every operation on int64 limb arrays equals the same operation on Python integers.

Adversarial values: zero, negative, maximal digits (2**(24 t) - 1, -2**(24 t - 1)), integers of hundreds of bits,
sums over more positions than one int64 block (MAX_TERMS), products at the int64 bound.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.errors import InvalidInput
from exactrelu.exact.codecs import limbs

W = limbs.W
edges = st.sampled_from([0, 1, -1, 2**23, -(2**23), 2**24 - 1, -(2**24), 2**48 - 1, -(2**47), 2**62, -(2**63),
                         2**(24 * 10) - 1, -(2**(24 * 10 - 1))])
ints = st.one_of(edges, st.integers(-(2**300), 2**300), st.integers(-1000, 1000))


def _balanced(A):
    return A.dtype == np.int64 and bool((A >= -(2**(W - 1))).all() and (A < 2**(W - 1)).all())


@given(st.lists(ints, min_size=1, max_size=30))
def test_from_ints_round_trip_and_balanced(values):
    A = limbs.from_ints(values, (len(values),))
    assert _balanced(A)
    assert limbs.to_ints(A) == values


@given(st.lists(st.tuples(st.integers(-(2**53) + 1, 2**53 - 1), st.integers(0, 900)), min_size=1, max_size=20))
def test_from_float_integers_is_exact(pairs):
    S = np.array([np.ldexp(float(mant), e) for mant, e in pairs])
    bits = max(int(abs(x)).bit_length() for x in S.tolist())
    A = limbs.from_float_integers(S, max(bits, 1))
    assert _balanced(A)
    assert limbs.to_ints(A) == [int(x) for x in S.tolist()]


def test_from_float_integers_refuses_a_wrong_bound():
    with pytest.raises(InvalidInput, match="more than 10 bits"):
        limbs.from_float_integers(np.array([2.0**40]), 10)
    with pytest.raises(InvalidInput, match="1023 bits"):
        limbs.from_float_integers(np.array([1.0]), 1024)


@st.composite
def matrices(draw, rows=None, cols=None):
    p = rows if rows is not None else draw(st.integers(1, 4))
    q = cols if cols is not None else draw(st.integers(1, 5))
    return [[draw(ints) for _ in range(q)] for _ in range(p)]


@settings(max_examples=60)
@given(st.data())
def test_matmul_equals_python(data):
    A = data.draw(matrices())
    B = data.draw(matrices(rows=len(A[0])))
    got = limbs.matmul(limbs.from_ints([x for r in A for x in r], (len(A), len(A[0]))),
                       limbs.from_ints([x for r in B for x in r], (len(B), len(B[0]))))
    want = [sum(A[i][l] * B[l][j] for l in range(len(B))) for i in range(len(A)) for j in range(len(B[0]))]
    assert _balanced(got)
    assert limbs.to_ints(got) == want


@given(st.lists(ints, min_size=1, max_size=20), ints)
def test_scaled_subtract_sign_absolute(values, c):
    A = limbs.from_ints(values, (len(values),))
    assert limbs.to_ints(limbs.scaled(A, c)) == [v * c for v in values]
    B = limbs.from_ints(values[::-1], (len(values),))
    assert limbs.to_ints(limbs.subtract(A, B)) == [a - b for a, b in zip(values, values[::-1])]
    assert limbs.sign(A).tolist() == [(v > 0) - (v < 0) for v in values]
    assert limbs.to_ints(limbs.absolute(A)) == [abs(v) for v in values]


@given(st.lists(ints, min_size=1, max_size=40))
def test_sum_of_squares_and_argmax(values):
    A = limbs.from_ints(values, (len(values),))
    assert limbs.sum_of_squares(A) == sum(v * v for v in values)
    assert limbs.argmax(A) == values.index(max(values))  # the first of the largest


def test_sum_of_squares_over_several_blocks_of_maximal_limbs():
    n = limbs.MAX_TERMS + 1234  # two blocks
    values = [-(2**(24 * 3 - 1))] * n  # balanced limbs [0, 0, -2**23]: the extreme digit on top
    values[::7] = [2**(24 * 3) - 1] * len(values[::7])  # [-1, 0, 0, 1]: one limb longer
    A = limbs.from_ints(values, (n,))
    assert A.shape[1] == n and _balanced(A)
    assert limbs.sum_of_squares(A) == sum(v * v for v in values)


def test_products_that_could_leave_int64_are_refused():
    A = np.zeros((2, 1, limbs.MAX_TERMS // 2 + 1), dtype=np.int64)
    B = np.zeros((2, limbs.MAX_TERMS // 2 + 1, 1), dtype=np.int64)
    with pytest.raises(InvalidInput, match="overflow int64"):
        limbs.matmul(A, B)
    ok = limbs.matmul(A[:, :, :limbs.MAX_TERMS // 2], B[:, :limbs.MAX_TERMS // 2])  # at the bound: computed
    assert limbs.to_ints(ok) == [0]


def test_matmul_at_the_bound_with_extreme_limbs_is_exact():
    q = limbs.MAX_TERMS // 2  # two limbs each: 2 * q = MAX_TERMS products per output limb
    lo = -(2**23) - (2**23) * 2**24  # both limbs -2**23: the largest magnitudes a balanced limb has
    A = limbs.from_ints([lo] * q, (1, q))
    B = limbs.from_ints([lo] * q, (q, 1))
    assert A.shape[0] == 2 and (A == -(2**23)).all()
    assert limbs.to_ints(limbs.matmul(A, B)) == [q * lo * lo]
