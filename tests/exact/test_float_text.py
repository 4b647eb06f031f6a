"""float_strings / float_row_texts (exact/codecs/float_text.py) are byte for byte str(Fraction(x)), on adversarial floats;
the instance hash made from row texts is the hash of the plain text."""

from __future__ import annotations

import hashlib
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from exactrelu.certificates import envelope
from exactrelu.exact import QMatrix
from exactrelu.exact.codecs import float_text, int_text
from exactrelu.exact.codecs.float64 import float_row_texts, float_strings
from exactrelu.instances import Instance, checker_view, planted

EDGES = [0.0, -0.0, 5e-324, -5e-324, 2.0**-1074 * 3, 2.0**-1022, -(2.0**-1022), 2.0**-1022 - 2.0**-1074, 1.0, -1.0,
         0.5, 3.0, 6.0, -1536.0, 2.0**52, 2.0**53, 2.0**53 + 2, -(2.0**60), 2.0**62, 2.0**63 - 1024, 2.0**63, -(2.0**63),
         2.0**64, 1e19, 9.999999999999998e18, 1.7976931348623157e308, -1.7976931348623157e308, 0.1, -0.75, 2.0**-53,
         1e-300, 123456789.0, 10.0**15, 10.0**16, 10.0**18, 99999999999999.0]

adversarial = st.one_of(
    st.sampled_from(EDGES),
    st.floats(allow_nan=False, allow_infinity=False),
    st.builds(lambda m, e: float(np.ldexp(float(m), e)), st.integers(-(2**53) + 1, 2**53 - 1), st.integers(-1100, 970)),  # integers times powers of two: many trailing zero bits, exact integers, subnormals
)


def plain(a: np.ndarray) -> list[list[str]]:
    return [[str(Fraction(x)) for x in row] for row in a.tolist()]


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=9), elements=adversarial))
def test_float_strings_are_the_text_of_fraction(a):
    assert float_strings(a) == plain(a)
    assert float_row_texts(a) == [" ".join(row) for row in plain(a)]


@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 7)), elements=adversarial),
       st.integers(1, 200))
def test_blocks_of_any_size_give_the_same_text(a, block_bytes):
    old = float_text.BLOCK_BYTES
    float_text.BLOCK_BYTES = block_bytes  # one row per block at the smallest
    try:
        assert float_row_texts(a) == [" ".join(row) for row in plain(a)]
    finally:
        float_text.BLOCK_BYTES = old


def test_every_edge_alone_and_together():
    a = np.array(EDGES)
    assert float_strings(a[None, :]) == plain(a[None, :]) and float_strings(a[:, None]) == plain(a[:, None])
    assert float_strings(np.zeros((3, 0))) == [[], [], []] and float_row_texts(np.zeros((0, 4))) == []


def test_non_finite_entries_still_raise():
    with pytest.raises((OverflowError, ValueError)):
        float_strings(np.array([[1.0, np.inf]]))


@given(st.lists(st.lists(st.fractions(max_denominator=2**70).map(str) | st.integers(-(10**30), 10**30), min_size=3,
                         max_size=3), min_size=1, max_size=6))
def test_row_texts_of_exact_matrices(rows):
    Q = QMatrix.from_rows(rows)
    assert Q.row_texts(0, len(rows)) == [" ".join(r) for r in Q.to_strings()]


@pytest.mark.parametrize("labels_as_floats", [False, True])
def test_streamed_hash_is_the_hash_of_the_plain_text(monkeypatch, labels_as_floats):
    inst = planted(d=5, k=2, m=3, n=50, seed=4)
    X = np.resize(np.array(EDGES), (50, 5))
    Y = inst.float_labels() if labels_as_floats else inst.labels
    inst = Instance.from_arrays(X, Y)
    text = f"exactrelu.instance.v1\n{inst.n} {inst.d} {inst.m}\n" + "".join(
        f"{' '.join(x)} | {' '.join(y)}\n" for x, y in zip(plain(X), inst.labels.to_strings()))
    monkeypatch.setattr(checker_view, "STREAM_ENTRIES", 0)
    assert checker_view.streamed(inst)
    assert envelope.instance_sha256(inst) == hashlib.sha256(text.encode()).hexdigest()


dyadic_ints = st.one_of(st.integers(-(2**70), 2**70), st.sampled_from([0, 1, -1, 2**31, -(2**31), 2**32, -(2**32), 2**63,
                                                                        -(2**63), 2**64 - 1, -(2**95), 2**96]),
                        st.builds(lambda m, e: m << e, st.integers(-(2**40), 2**40), st.integers(0, 200)),
                        st.integers(-(2**400), 2**400))


@given(st.integers(1, 6), st.integers(0, 5), st.integers(0, 300), st.data())
def test_dyadic_text_is_the_text_of_fraction(n, c, s, data):
    flat = data.draw(st.lists(dyadic_ints, min_size=n * c, max_size=n * c))
    want = [[str(Fraction(x, 2**s)) for x in flat[i * c:(i + 1) * c]] for i in range(n)]
    for small in (0, int_text.SMALL):  # small matrices through NumPy too, and as the library writes them
        saved, int_text.SMALL = int_text.SMALL, small
        try:
            Q = QMatrix(flint.fmpz_mat(n, c, flat), 2**s)
            assert Q.to_strings() == want
            assert Q.row_strings(0, n) == want and Q.row_strings(n - 1, n) == want[-1:]
            assert Q.row_texts(0, n) == [" ".join(r) for r in want]
        finally:
            int_text.SMALL = saved


def test_dyadic_text_in_blocks_and_beyond_the_table(monkeypatch):
    monkeypatch.setattr(int_text, "SMALL", 0)
    flat = [(-1) ** i * (i * 2**i + 3**i) for i in range(60)]
    flat[5] = 0  # 0 over a large power of two is "0"
    for s in (0, 1, 77, int_text.MAX_SHIFT + 1):
        monkeypatch.setattr(int_text, "BLOCK_ENTRIES", 7)
        want = [[str(Fraction(x, 2**s)) for x in flat[i * 6:(i + 1) * 6]] for i in range(10)]
        assert QMatrix(flint.fmpz_mat(10, 6, flat), 2**s).to_strings() == want


@settings(max_examples=60)
@given(st.lists(st.one_of(st.integers(-(2**200), 2**200), st.sampled_from([0, 1, -1, 2**63, -(2**63), 2**96 - 1])),
                min_size=1, max_size=40), st.integers(0, 90), st.integers(1, 4))
def test_text_of_limbs_equals_fractions(values, s, rows):
    """QMatrix.from_limbs writes the text of its limbs (32-bit words, no Python integer per entry) byte for byte as
    str(Fraction); its FLINT matrix, rows and floats are those of the same integers."""
    from fractions import Fraction

    from exactrelu.exact.codecs import limbs
    from exactrelu.exact.matrix import QMatrix

    rows = min(rows, len(values))
    values = values[:len(values) // rows * rows]
    c = len(values) // rows
    M = QMatrix.from_limbs(limbs.from_ints(values, (rows, c)), 2**s)
    want = [" ".join(str(Fraction(v, 2**s)) for v in values[i * c:(i + 1) * c]) for i in range(rows)]
    assert M.shape == (rows, c) and M.row_texts(0, rows) == want
    assert M.row_strings(rows - 1, rows) == [want[-1].split(" ")] and M.to_strings() == [t.split(" ") for t in want]
    assert M.num.entries() == values


@given(st.lists(adversarial, min_size=1, max_size=5), st.booleans())
def test_every_group_of_four_digits_at_its_edges(row, negate):
    """The digits are written in groups of four from tables (leading zeros blank, a lone 0 kept): numerators on
    both sides of every power 10^j up to 2^63, over 1 and over 2^t, beside any float, are str(Fraction(x))."""
    edges = [float(v) for j in range(1, 19) for v in (10**j - 1, 10**j, 10**j + 1)]
    edges += [float(np.ldexp(v, -t)) for v in (1.0, 3.0, 9999.0, 10001.0, 99999999.0, 2.0**53 - 1)
              for t in (1, 20, 1074)]
    edges += [5e-324] * (-len(edges) % 8)
    a = np.array([edges[i:i + 8] + row + [0.0] * (5 - len(row)) for i in range(0, len(edges), 8)])
    a = -a if negate else a
    assert float_row_texts(a) == [" ".join(r) for r in plain(a)]
