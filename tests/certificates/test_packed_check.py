"""The packed check (trusted/packed.py, trusted/realizes.py) equals the plain loop it replaced, and the bulk reader
of canonical rows (trusted/instance.py) equals the entry-by-entry one.

Theorem (docs/design.md, "The packed check"): for integer rows M and an integer vector x, ``Packed(M).dot(x)``
is ``[M_i . x for i]`` exactly, whatever the signs, zeros and magnitudes; hence the differences the checker
decides from are those of the plain per-entry loop, entry for entry.
"""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exactrelu.certificates.trusted import realizes
from exactrelu.certificates.trusted.common import CheckFailed, canonical
from exactrelu.certificates.trusted.instance import _parsed_row, entry, parsed_instance
from exactrelu.certificates.trusted.packed import Packed


def _edges(bits):
    """Integers at the edges of slot widths: 2^e - 1, 2^e, 2^e + 1 around multiples of 8, both signs."""
    return st.builds(lambda e, delta, sign: sign * (2**e + delta), st.integers(0, bits), st.sampled_from([-1, 0, 1]),
                     st.sampled_from([1, -1]))


INTS = st.one_of(st.integers(-5, 5), st.integers(-2**70, 2**70), _edges(200),
                 st.sampled_from([10**4300 - 1, -(10**4300 - 1), 2**64, -2**63]))


@st.composite
def matrices_and_vectors(draw):
    k, d = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    M = [draw(st.one_of(st.just([0] * d), st.lists(INTS, min_size=d, max_size=d))) for _ in range(k)]
    x = draw(st.one_of(st.just([0] * d), st.lists(INTS, min_size=d, max_size=d)))
    return M, x


@settings(max_examples=300, deadline=None)
@given(matrices_and_vectors())
def test_packed_dot_is_every_dot_product(case):
    M, x = case
    assert Packed(M).dot(x) == [sum(map(mul, row, x)) for row in M]


def test_packed_dot_at_the_bound_itself():
    # every dot product equal to +-norm * max|x|: the largest values the width must hold, at every slot width
    for e in range(1, 80):
        big = 2**e - 1
        M = [[1, 1], [-1, -1], [0, 0], [1, -1]]
        for x in ([big, big], [-big, -big], [big, -big], [2**e, 2**e]):
            assert Packed(M).dot(x) == [sum(map(mul, row, x)) for row in M]


def test_one_packing_serves_many_widths():
    packed = Packed([[3, -1], [0, 2]])
    for x in ([1, 1], [10**30, -1], [1, 1], [-(10**60), 10**59]):
        assert packed.dot(x) == [3 * x[0] - x[1], 2 * x[1]]


def _plain_differences(X, Y, U, V, b, offset, c):
    """The checker's loop before the packed one (one Python multiplication per term), per entry (j, r, p, q)."""
    k, m = len(V), len(U)
    D = [math.lcm(bi.denominator, *(f.denominator for f in row)) for row, bi in zip(V, b)]
    Nv = [[f.numerator * (Di // f.denominator) for f in row] for row, Di in zip(V, D)]
    Nb = [bi.numerator * (Di // bi.denominator) for bi, Di in zip(b, D)]
    A = [[U[r][i] / Fraction(D[i]) ** c for i in range(k)] for r in range(m)]
    Du = [math.lcm(*(f.denominator for f in row)) for row in A]
    Na = [[f.numerator * (Dr // f.denominator) for f in row] for row, Dr in zip(A, Du)]
    Dc = math.lcm(*(f.denominator for f in offset))
    Nc = [f.numerator * (Dc // f.denominator) for f in offset]
    for j, ((nums, dens), (ynum, yden)) in enumerate(zip(X, Y)):
        Dx = math.lcm(*dens)
        Nx = [p * (Dx // q) for p, q in zip(nums, dens)]
        h = []
        for i in range(k):
            t = sum(map(mul, Nv[i], Nx)) + Nb[i] * Dx
            h.append(t**c if t > 0 else 0)
        scale = Dx**c
        for r in range(m):
            S = Du[r] * scale
            yield j, r, (yden[r] * (Dc * sum(map(mul, Na[r], h)) + Nc[r] * S) - ynum[r] * S * Dc), S * yden[r] * Dc


RATIONALS = st.one_of(st.integers(-3, 3).map(Fraction), st.fractions(max_denominator=50),
                      st.builds(Fraction, INTS, st.sampled_from([1, 3, 2**64, 10**40])))


@st.composite
def networks_on_instances(draw):
    k, m, d, n = (draw(st.integers(1, 4)) for _ in range(4))
    mat = lambda r, c: [draw(st.lists(RATIONALS, min_size=c, max_size=c)) for _ in range(r)]  # noqa: E731
    V, U = mat(k, d), mat(m, k)
    X = mat(n, d)
    if draw(st.booleans()):  # kinks at 0: a sample on a unit's hyperplane
        X[0] = [Fraction(0)] * d
    b = draw(st.one_of(st.just([Fraction(0)] * k), st.lists(RATIONALS, min_size=k, max_size=k)))
    offset = draw(st.one_of(st.just([Fraction(0)] * m), st.lists(RATIONALS, min_size=m, max_size=m)))
    c = draw(st.sampled_from([1, 1, 2, 3]))
    Y = mat(n, m)
    if draw(st.booleans()):  # labels the network realizes (exactly), so that p == 0 is exercised
        relu = lambda t: t**c if t > 0 else 0  # noqa: E731
        Y = [[sum(U[r][i] * relu(sum(map(mul, V[i], x)) + b[i]) for i in range(k)) + offset[r] for r in range(m)]
             for x in X]
    pairs = lambda rows: [([f.numerator for f in row], [f.denominator for f in row]) for row in rows]  # noqa: E731
    return pairs(X), pairs(Y), U, V, b, offset, c


@settings(max_examples=200, deadline=None)
@given(networks_on_instances())
def test_packed_differences_are_the_plain_loop(case):
    plain = list(_plain_differences(*case))
    packed = [(j, r, p, q) for j, ps, qs in realizes._differences(*case) for r, (p, q) in enumerate(zip(ps, qs))]
    assert packed == plain
    X, Y, rest = case[0], case[1], case[2:]
    ranged = [e for a in range(len(X)) for e in realizes._differences(X[a:a + 1], Y[a:a + 1], *rest, first=a)]
    assert ranged == list(realizes._differences(*case))


TOKENS = ["0", "-0", "+1", "01", "1", "-7", "3/4", "6/8", "0/3", "1/1", "2/1", "-3/-4", "3/04", " 1", "1 2", "1_0",
          "\u0661", "1/0", "1.5", "1e3", "", "/", "-", "9" * 4300, "-" + "9" * 4300, "1" + "0" * 4300, "1/" + "3" * 4300,
          # the bulk reader's own edges: two slashes, signs and zeros in denominators, JSON's other syntax
          "1/2/3", "1//2", "/2", "2/", "-0/3", "3/-4", "3/1", "0/1", "5/0", "-/2", "1-2", "[1]", "1,2", "1\n", "\t1",
          "1/2 ", "1e5/2", "1.0/2", "3/8", "-5/16", "7/4", "4/3", "12/9", "-9/6", "8/12", "1/18014398509481984",
          "2/18014398509481984", "-0", "00", "true", "NaN"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(TOKENS), st.fractions().map(canonical), st.integers(-10**20, 10**20),
                          st.floats(allow_nan=False, allow_infinity=False)), min_size=1, max_size=6))
@example(["1/2/3", "4"])  # as many slashes as entries, but two in one: not "1/2 3/4"
@example(["4", "1/2/3", "5/8"])
@example(["3/1", "2"])  # a written denominator 1 beside an integer (which is read as "2/1")
@example(["5", "-7/1", "1/2"])
@example(["-0", "1/2"])
@example(["-9/6", "1/2"])  # an odd numerator over a denominator that is not a power of two: gcd 3
@example(["3/9"])
def test_bulk_row_reading_is_entry_by_entry(row):
    try:
        expected = [entry(v) for v in row]
    except (CheckFailed, Exception) as exc:  # the bulk reader refuses the same rows, with the same error
        with pytest.raises(type(exc)):
            _parsed_row(row, 4300)
        return
    text, nums, dens = _parsed_row(row, 4300)
    assert (text, nums, dens) == (" ".join(e[2] for e in expected), [e[0] for e in expected], [e[1] for e in expected])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.fractions().map(canonical), st.integers(-10**30, 10**30).map(str),
                          st.sampled_from(TOKENS)), min_size=1, max_size=8))
def test_bulk_rows_of_mostly_canonical_text_are_entry_by_entry(row):
    """Rows that reach the JSON reader: canonical entries, with now and then one that is not."""
    test_bulk_row_reading_is_entry_by_entry.hypothesis.inner_test(row)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                          st.sampled_from([0.0, -0.0, 2.0**53, -2.0**53 - 2, 5e-324, -2.0**-1074 * 3, 1.7976931348623157e308,
                                           1.0, -3.0, 0.5, float("nan"), float("inf")])),
                min_size=1, max_size=8))
def test_rows_of_floats_are_entry_by_entry(row):
    """An .npz instance's rows (floats: subnormals, integers, 2^53, the largest float, -0.0, NaN refused)."""
    test_bulk_row_reading_is_entry_by_entry.hypothesis.inner_test(row)


def test_bulk_reading_hashes_as_before():
    rows = [["3/4", "-2", "0"], ["1/2", "5", "-9/7"]]
    labels = [["1"], ["2/3"]]
    by_entry = parsed_instance([[Fraction(v) for v in r] for r in rows], labels)  # Fractions: read entry by entry
    assert parsed_instance(rows, labels) == by_entry
