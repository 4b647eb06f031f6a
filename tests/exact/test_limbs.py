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
    """The bound is read from the limbs' largest magnitudes: maximal balanced limbs one column past MAX_TERMS are
    refused, the same shapes of zeros (or one column fewer) are computed."""
    q = limbs.MAX_TERMS // 2 + 1
    A = np.full((2, 1, q), -(2**23), dtype=np.int64)
    B = np.full((2, q, 1), -(2**23), dtype=np.int64)
    with pytest.raises(InvalidInput, match="overflow int64"):
        limbs.matmul(A, B)
    assert limbs.to_ints(limbs.matmul(np.zeros_like(A), np.zeros_like(B))) == [0]
    ok = limbs.matmul(A[:, :, :q - 1], B[:, :q - 1])  # at the bound: computed, exactly
    v = -(2**23) - (2**23) * 2**24
    assert limbs.to_ints(ok) == [(q - 1) * v * v]
    with pytest.raises(InvalidInput, match="overflow int64"):  # one product beyond 2**53: refused too
        limbs.matmul(np.full((1, 1, 1), 2**27, dtype=np.int64), np.full((1, 1, 1), 2**27, dtype=np.int64))


def test_matmul_at_the_bound_with_extreme_limbs_is_exact():
    q = limbs.MAX_TERMS // 2  # two limbs each: 2 * q = MAX_TERMS products per output limb
    lo = -(2**23) - (2**23) * 2**24  # both limbs -2**23: the largest magnitudes a balanced limb has
    A = limbs.from_ints([lo] * q, (1, q))
    B = limbs.from_ints([lo] * q, (q, 1))
    assert A.shape[0] == 2 and (A == -(2**23)).all()
    assert limbs.to_ints(limbs.matmul(A, B)) == [q * lo * lo]


# --- the float64 BLAS route (issue 36): digits of floats, runs of columns at the 2**53 bound, A B - C ---

floats_of_ints = st.one_of(st.integers(-(2**53), 2**53).map(float),
                           st.tuples(st.integers(-(2**53) + 1, 2**53 - 1), st.integers(0, 969))
                           .map(lambda t: float(np.ldexp(float(t[0]), t[1]))),
                           st.sampled_from([0.0, -0.0, 2.0**1022, -(2.0**1023 - 2.0**970), 2.0**24 - 1, 2.0**24,
                                            -(2.0**24)]))


@given(st.lists(floats_of_ints, min_size=1, max_size=20))
def test_float_digits_are_exact_and_below_the_base(values):
    S = np.array(values)
    bits = max(1, max(int(abs(x)).bit_length() for x in values))
    D = limbs.float_digits(S, bits)
    assert D.dtype == np.float64 and bool((np.abs(D) < 2**W).all())
    assert limbs.to_ints(D.astype(np.int64)) == [int(x) for x in values]  # the digits are S's, exactly
    assert limbs.to_ints(limbs.from_float_integers(S, bits)) == [int(x) for x in values]


def test_float_digits_bound_exactly_met_and_refused_beyond():
    top = 2.0**1023 * (2 - 2.0**-52)  # the largest float64: an integer of 1024 bits
    below = 2.0**1023 - 2.0**970  # the largest float64 below 2**1023: 1023 bits, the most float_digits takes
    assert limbs.to_ints(limbs.float_digits(np.array([-below]), 1023).astype(np.int64)) == [-(2**1023 - 2**970)]
    assert limbs.to_ints(limbs.float_digits(np.array([2.0**60 - 2.0**8]), 60).astype(np.int64)) == [2**60 - 2**8]
    with pytest.raises(InvalidInput, match="more than 59 bits"):
        limbs.float_digits(np.array([2.0**59]), 59)
    with pytest.raises(InvalidInput, match="1023 bits"):
        limbs.float_digits(np.array([top]), 1024)


@given(st.lists(st.tuples(st.integers(-(2**53) + 1, 2**53 - 1), st.integers(-1074, 0)), min_size=1, max_size=10),
       st.integers(0, 1100))
def test_scale_floats_is_exact(pairs, extra):
    from fractions import Fraction

    from hypothesis import assume

    from exactrelu.exact.codecs.float64 import dyadic_scale

    x = np.array([np.ldexp(float(m), e) for m, e in pairs])
    shift, bits = dyadic_scale(x)  # every x 2**shift is an integer below 2**bits
    assume(bits <= 1023)
    shift += min(extra, 1023 - bits)  # still below 2**1023
    got = limbs.scale_floats(x, shift)
    assert [Fraction(float(v)) for v in got] == [Fraction(float(v)) * 2**shift for v in x]


def test_a_run_whose_partial_sums_reach_exactly_2_to_the_53():
    """Products of 2**46 (two limbs -2**23): a run of 128 columns sums to exactly 2**53, the largest the bound
    allows; 129 columns take two runs. Both equal Python's integers."""
    for q in (128, 129, 1000):
        A = np.full((1, 2, q), -(2**23), dtype=np.int64)
        B = np.full((1, q, 3), -(2**23), dtype=np.int64)
        assert limbs.to_ints(limbs.matmul(A, B)) == [q * 2**46] * 6
    Af = np.full((1, 1, 4), 2.0**24 - 1)  # float digits: the largest magnitude a digit has
    Bf = np.full((1, 4, 1), -(2.0**24 - 1))
    assert limbs.to_ints(limbs.matmul(Af, Bf)) == [-4 * (2**24 - 1) ** 2]


@settings(max_examples=60)
@given(st.data())
def test_matmul_of_float_digits_minus_limbs_equals_python(data):
    p, q, r = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 6)), data.draw(st.integers(1, 4))
    A = [[data.draw(ints) for _ in range(q)] for _ in range(p)]
    X = [[data.draw(floats_of_ints) for _ in range(r)] for _ in range(q)]
    C = [[data.draw(ints) for _ in range(r)] for _ in range(p)]
    bits = max(1, max(int(abs(x)).bit_length() for row in X for x in row))
    got = limbs.matmul(limbs.from_ints([x for row in A for x in row], (p, q)), limbs.float_digits(np.array(X), bits),
                       minus=limbs.from_ints([x for row in C for x in row], (p, r)))
    want = [sum(A[i][t] * int(X[t][j]) for t in range(q)) - C[i][j] for i in range(p) for j in range(r)]
    assert _balanced(got) and limbs.to_ints(got) == want


@given(st.lists(ints, min_size=1, max_size=20))
def test_rectified_is_relu_with_exact_kinks(values):
    values = values + [0, 1, -1]
    assert limbs.to_ints(limbs.rectified(limbs.from_ints(values, (len(values),)))) == [max(v, 0) for v in values]


# --- limbs out: FLINT, floats, 32-bit words for the text (issue 36 item 4: no Python integer per entry) ---

@given(st.lists(ints, min_size=1, max_size=24), st.integers(1, 3))
def test_limbs_to_flint_floats_and_words(values, rows):
    values = values[:len(values) // rows * rows] or values[:1]
    rows = min(rows, len(values))
    shape = (rows, len(values) // rows)
    A = limbs.from_ints(values, shape)
    assert limbs.to_fmpz_mat(A).entries() == values
    for got, v in zip(limbs.to_floats(A).ravel().tolist(), values):
        want = float(v) if abs(v) < 2**1023 else None
        assert want is None or got == want or abs(got - want) <= 4 * np.spacing(abs(want))
    words = limbs.u32_words(A.reshape(A.shape[0], -1))
    assert [int.from_bytes(w.astype("<u4").tobytes(), "little", signed=True) for w in words] == values
