"""The fast checker's arithmetic against Python integers, and its text against the reference's: every bound of
docs/design.md ("The fast checker") at and beyond its edge (maximal limbs, cancellations, sums exactly at 2^53)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from exactrelu.certificates.fast import limbs, numbers
from exactrelu.certificates.fast.limbs import INNER, SUMS, FastDomain
from exactrelu.certificates.trusted.instance import entry

big_ints = st.integers(min_value=-(2**300), max_value=2**300)
HALF = 1 << 23


def _ints(A):
    return limbs.to_ints(A)


@given(st.lists(big_ints, min_size=1, max_size=12))
@example([-(2**23), 2**23 - 1, 2**23, -(2**24), 2**72 - 1, -(2**72)])
def test_limbs_hold_every_integer_balanced(values):
    A = limbs.from_ints(values, (len(values),))
    assert _ints(A) == values
    assert A.min() >= -HALF and A.max() < HALF
    assert limbs.sign(A).tolist() == [(v > 0) - (v < 0) for v in values]
    assert _ints(limbs.absolute(A)) == [abs(v) for v in values]


@given(st.lists(st.integers(min_value=-(2**62), max_value=2**62), min_size=1, max_size=6),
       st.integers(min_value=1, max_value=5))
@example([2**62] * 6, 5)
@example([-(2**62)] * 6, 5)
def test_carrying_limbs_of_up_to_2_62_is_exact(values, L):
    C = np.array([values] * L, dtype=np.int64)  # every limb at the bound
    N = limbs.normalized(C)
    assert _ints(N) == [sum(v << (24 * u) for u in range(L)) for v in values]
    assert N.min() >= -HALF and N.max() < HALF


def _matmul_case(a_vals, b_vals, p, q, r):
    A = limbs.from_ints(a_vals, (p, q))
    B = limbs.from_ints(b_vals, (q, r))
    want = [sum(a_vals[i * q + l] * b_vals[l * r + j] for l in range(q)) for i in range(p) for j in range(r)]
    assert _ints(limbs.matmul(A, B)) == want


@given(st.data())
def test_matmul_is_the_integer_product(data):
    p, q, r = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 140)), data.draw(st.integers(1, 3))
    a = data.draw(st.lists(big_ints, min_size=p * q, max_size=p * q))
    b = data.draw(st.lists(big_ints, min_size=q * r, max_size=q * r))
    _matmul_case(a, b, p, q, r)


@pytest.mark.parametrize("q", [INNER, INNER + 1, 3 * INNER])
def test_matmul_sums_exactly_at_2_53(q):
    """Every limb -2^23 (the largest balanced magnitude): each float64 product over INNER terms is exactly 2^53."""
    v = -sum(HALF << (24 * u) for u in range(3))  # three limbs, each -2^23
    A = limbs.from_ints([v] * q, (1, q))
    assert (A == -HALF).all()
    _matmul_case([v] * q, [v] * q, 1, q, 1)
    _matmul_case([v] * q, [-v] * q, 1, q, 1)
    _matmul_case([v, -v] * (q // 2) + [v] * (q % 2), [v] * q, 1, q, 1)  # cancellations


def test_matmul_refuses_more_sums_than_int64_holds():
    q = INNER * (SUMS // 2 + 1)  # two limbs on both sides: 2 * (SUMS / 2 + 1) products into one limb
    A = limbs.from_ints([2**30] * q, (1, q))
    with pytest.raises(FastDomain, match="limbs over"):
        limbs.matmul(A, limbs.from_ints([2**30] * q, (q, 1)))


@given(st.lists(big_ints, min_size=1, max_size=8), st.lists(big_ints, min_size=1, max_size=1))
def test_product_entry_by_entry(values, factor):
    A = limbs.from_ints(values, (len(values),))
    B = limbs.from_ints(factor, (1,))
    assert _ints(limbs.product(A, B)) == [v * factor[0] for v in values]


def test_product_refuses_integers_of_a_million_bits():
    A = np.zeros((1 + (1 << 16), 1), dtype=np.int64)
    with pytest.raises(FastDomain, match="million bits"):
        limbs.product(A, A)


@given(st.lists(st.tuples(big_ints, big_ints), min_size=1, max_size=20))
def test_columns_largest_and_sum_of_squares(rows):
    flat = [v for row in rows for v in row]
    A = limbs.absolute(limbs.from_ints(flat, (len(rows), 2)))
    top = limbs.column_argmax(A)
    for r in range(2):
        column = [abs(row[r]) for row in rows]
        assert column[int(top[r])] == max(column) and column.index(max(column)) == int(top[r])
    R = limbs.from_ints(flat, (len(rows), 2))
    assert limbs.column_squares(R) == [sum(row[r] ** 2 for row in rows) for r in range(2)]


def test_sum_of_squares_over_2_16_rows_at_the_bound():
    v = -sum(HALF << (24 * u) for u in range(2))
    R = limbs.from_ints([v] * (1 << 16), (1 << 16, 1))
    assert limbs.column_squares(R) == [v * v << 16]
    with pytest.raises(FastDomain, match="2\\^16 rows"):
        limbs.column_squares(limbs.from_ints([1] * ((1 << 16) + 1), ((1 << 16) + 1, 1)))


def test_shifted_digits_are_exact():
    mag = np.array([[0xFFFFFF, 5, 0], [0xFFFFFF, 0, 0], [0xFFFFFF, 0, 7]])
    shift = np.array([0, 23, 1000])
    got = _ints(limbs.from_digits(np.array([True, False, True]), mag, shift))
    assert got == [-(2**72 - 1), 5 << 23, -((7 << 48) << 1000)]


finite = st.floats(allow_nan=False, allow_infinity=False)
SPECIAL = [0.0, -0.0, 5e-324, -5e-324, 2.0**-1022, 1.7976931348623157e308, -(2.0**63), 2.0**64, 2.0**53 + 2,
           0.1, -3.0, 2.0**70, 1e300, 123456789.0, 9999999999999998.0]


def _reference_text(row):
    return " ".join(entry(x)[2] for x in row).encode()


@given(st.lists(finite, min_size=3, max_size=3), st.integers(0, len(SPECIAL) - 1))
def test_float_text_and_values_are_the_references(row, i):
    x = np.array([row, SPECIAL[i:i + 3] + [1.0] * (3 - len(SPECIAL[i:i + 3]))])
    nums, texts = numbers.from_floats(x)
    assert texts == [_reference_text(r) for r in x.tolist()]
    values = _values(nums)
    assert values == [Fraction(v) for v in x.reshape(-1).tolist()]


def _values(nums):
    return [Fraction(-1 if n else 1) * v * Fraction(2) ** -int(t)
            for n, v, t in zip(nums.neg, _magnitudes(nums), nums.t)]


def _magnitudes(nums):
    return [sum(int(nums.mag[u, i]) << (24 * u) for u in range(nums.mag.shape[0])) for i in range(nums.mag.shape[1])]


def test_non_finite_floats_are_left_to_the_reference():
    assert numbers.from_floats(np.array([[1.0, np.nan]])) is None
    assert numbers.from_floats(np.array([[np.inf, 1.0]])) is None


dyadic = st.builds(lambda p, t: Fraction(p, 2**t), st.integers(-(10**40), 10**40), st.integers(0, 200))


@given(st.lists(dyadic, min_size=4, max_size=4))
def test_canonical_dyadic_text_is_read_exactly(values):
    rows = [" ".join(map(str, values[:2])).encode(), " ".join(map(str, values[2:])).encode()]
    nums = numbers.from_text(rows, 2, 4300)
    got = _values(nums)
    assert got == values


@pytest.mark.parametrize("text", ["+1", "01", "-0", "0/2", "2/4", "1/3", "1/1", "1.5", "1/02", "1e3", "--1", "1-",
                                  "1/-2", "1//2", "/2", "1/", "-", "1/0", "3/6", "0/1", "1/2/4", "-/2", "1/2 ", "x"])
def test_other_text_is_left_to_the_reference(text):
    assert numbers.from_text([f"1 {text}".encode()], 2, 4300) is None


def test_rows_must_have_their_entries_and_length():
    assert numbers.from_text([b"1 2", b"3"], 2, 4300) is None
    assert numbers.from_text([b"1 2", b"3 4 5"], 2, 4300) is None
    assert numbers.from_text([b"1  2"], 2, 4300) is None
    assert numbers.from_text([b"12345 1"], 2, 4) is None  # longer than the limit "digits": the reference reads it
    assert numbers.from_text([b"1/2 -3/4"], 2, 4300).t.tolist() == [1, 2]


@given(st.lists(st.integers(-(2**200), 2**200), min_size=6, max_size=6), st.integers(0, 300))
@example([0, 1, -1, 2**24, -(2**48), 10**16 - 1], 0)
@example([2**100, -(2**99) * 3, 10**8, 7, 0, -(2**24 - 1)], 100)
def test_integers_over_a_power_of_two_are_reduced_and_written_as_the_reference(ints, shift):
    nums, texts = numbers.from_integers(ints, shift, (2, 3))
    want = [Fraction(v, 2**shift) for v in ints]
    assert texts == [_reference_text(want[:3]), _reference_text(want[3:])]
    got = _values(nums)
    assert got == want and all(t >= 0 for t in nums.t)


def test_integers_over_a_denominator_beyond_the_table_go_to_the_reference():
    assert numbers.from_integers([1, 2], 1075, (1, 2)) is None
    assert numbers.from_integers([], 3, (0, 2)) is None


@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0]) | finite, min_size=1, max_size=4), st.booleans())
def test_float_text_at_every_group_of_four_digits(row, negate):
    """The digits are written in groups of four from tables (leading zeros deleted, a lone 0 kept): numerators on
    both sides of every power 10^j (j <= 19), over 1 and over 2^t, beside any float, are the reference's text."""
    edges = [float(v) for j in range(1, 20) for v in (10**j - 1, 10**j) if v < 2**64]
    edges += [np.ldexp(v, -t) for v in (1.0, 3.0, 9999.0, 10001.0, 99999999.0, 2.0**53 - 1) for t in (1, 20, 1074)]
    edges += [5e-324] * (-len(edges) % 8)
    x = np.array([edges[i:i + 8] + row + [5e-324] * (4 - len(row)) for i in range(0, len(edges), 8)])
    x = -x if negate else x
    texts = numbers.from_floats(x)[1]
    assert texts == [_reference_text(r) for r in x.tolist()]


@given(st.lists(st.integers(min_value=0, max_value=2**300), min_size=1, max_size=12))
@example([0, 1, 2**23 - 1, 2**23, 2**24 - 1, 2**24, 2**47, 2**48 - 1, 2**300])
def test_bit_lengths_of_non_negative_balanced_limbs(values):
    """The reference's sizes of a deep network's hidden rows are read from these (docs/design.md, "The fast
    checker")."""
    A = limbs.from_ints(values, (len(values),))
    A = np.concatenate([A, np.zeros((2, len(values)), dtype=np.int64)])  # zero limbs on top change nothing
    assert limbs.bit_lengths(A).tolist() == [v.bit_length() for v in values]


def _outputs_by_fractions(U, V, b, offset, Z, G, Y):
    """The differences N_jr - y_jr of ``network.outputs`` for ReLU, inputs Z / G (rows of integers), in Fractions."""
    out = []
    for z, y in zip(Z, Y):
        h = [max(sum(w * Fraction(v, G) for w, v in zip(row, z)) + bi, 0) for row, bi in zip(V, b)]
        out += [sum(u * v for u, v in zip(U[r], h)) + offset[r] - Fraction(y[r]) for r in range(len(U))]
    return out


def _both_paths(U, V, b, offset, Z, G, Y):
    """(the float64 path's differences or None, the limb path's), each as Fractions in row-major order."""
    from exactrelu.certificates.fast import network

    net = network.integers(U, V, b, offset, 1)
    Zn, (Yn, sy) = limbs.from_ints([v for row in Z for v in row], (len(Z), len(Z[0]))), network.scaled(
        numbers.from_floats(np.array(Y))[0])
    e = (G & -G).bit_length() - 1
    small = network._small_outputs(net, Zn, G, e, Yn, sy)
    fractions = [None if small is None else [Fraction(p, small[1][i % len(U)]) for i, p in enumerate(_ints(small[0]))]]
    odd, g = G >> e, min(sy, e)
    S = limbs.matmul(np.where(limbs.sign(T := network._plus(limbs.matmul(Zn, net.hidden), [v * G for v in net.bias]))
                              > 0, T, 0), net.out)
    S = limbs.product(network._plus(S, [v * odd << e for v in net.out_bias]), limbs.from_ints([1 << (sy - g)], (1, 1)))
    F = limbs.product(Yn.astype(np.int64), limbs.from_ints([E * odd << (e - g) for E in net.scale], (1, len(U))))
    S, F = limbs.padded_pair(S, F)
    den = [E * odd << (e + sy - g) for E in net.scale]
    return fractions[0], [Fraction(p, den[i % len(U)]) for i, p in enumerate(_ints(limbs.normalized(S - F)))]


small_weights = st.fractions(min_value=-8, max_value=8, max_denominator=16)


@given(st.data())
def test_the_float64_path_is_exact_and_the_limb_paths_result(data):
    """``network._small_outputs`` (ReLU, every integer below 2^52): the same differences as the limb arithmetic and as
    Fractions, whenever it is taken; inputs up to 2^47 over G = odd 2^e, labels of every size."""
    d, k, m, rows = (data.draw(st.integers(1, 3)) for _ in range(4))
    V = [[data.draw(small_weights) for _ in range(d)] for _ in range(k)]
    U = [[data.draw(small_weights) for _ in range(k)] for _ in range(m)]
    b, offset = [data.draw(small_weights) for _ in range(k)], [data.draw(small_weights) for _ in range(m)]
    Z = [[data.draw(st.integers(-(2**47), 2**47)) for _ in range(d)] for _ in range(rows)]
    G = data.draw(st.sampled_from([1, 3, 2**20, 5 * 2**30, 2**45]))
    Y = [[data.draw(st.sampled_from([0.0, -0.0, 1.5, -3.0, 2.0**-20 * 5, 2.0**40, 0.1, 2.0**-60])) for _ in range(m)]
         for _ in range(rows)]
    small, exact = _both_paths(U, V, b, offset, Z, G, Y)
    assert exact == _outputs_by_fractions(U, V, b, offset, Z, G, Y)
    assert small is None or small == exact


@pytest.mark.parametrize("weight, taken", [(2**29 - 1, True), (2**29, False)])
def test_the_float64_path_at_its_bound(weight, taken):
    """A pre-activation of 2^23 (2^29 - 1) = 2^52 - 2^23 is computed in float64; one of 2^52 goes to the limbs."""
    U, V, zero = [[Fraction(1)]], [[Fraction(weight)]], [Fraction(0)]
    small, exact = _both_paths(U, V, zero, zero, [[2**23], [-3]], 1, [[1.0], [0.0]])
    assert (small is not None) == taken and exact == [Fraction(2**23 * weight - 1), Fraction(0)]
    assert small in (None, exact)
    # the labels' side: a label L of two limbs times E G = 32 (over G = 32): 32 (2^47 - 1) is taken, 2^52 is not
    label = 2**47 - (0 if taken else 1)
    small, exact = _both_paths(U, [[Fraction(1)]], zero, zero, [[1]], 32, [[float(label)]])
    assert (small is not None) == (not taken) and exact == [Fraction(1, 32) - label] and small in (None, exact)
    # the output layer's side: 2^51 times an output weight of 1 is taken, times 2 (2^52) is not
    small, exact = _both_paths([[Fraction(1 if taken else 2)]], [[Fraction(2**28)]], zero, zero, [[2**23]], 1, [[0.0]])
    assert (small is not None) == taken and exact == [Fraction(2**51 * (1 if taken else 2))] and small in (None, exact)
