"""The checker's side of the output bias (issue 33): the constant column of rank witnesses and span refutations,
and case refutations checked with c a free variable. Each test states one rule of the trusted code and fails when
the rule is dropped or inverted (benchmarks/mutate_checker.py runs these against mutants)."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from exactrelu.certificates.claims.span import not_realizable_certificate
from exactrelu.certificates.envelope import verify
from exactrelu.certificates.trusted.refutation import _refute_leaf
from exactrelu.decide import decide, solve_decision
from exactrelu.errors import CertificateInvalid
from exactrelu.exact.linalg import nonsingular_minor
from exactrelu.instances import Instance
from exactrelu.recover.views import with_ones

OFFSET = Instance.from_arrays([[1], [2], [3]], [[1, 0], [0, 1], [0, 0]])  # rank(labels) = 2, rank([labels | 1]) = 3
SPAN = Instance.from_arrays([[0], [1], [2]], [[3], [3], [5]])  # no unit without b, with c: a span refutation
LINE = Instance.from_arrays([[1], [2], [3]], [[1], [3], [4]])  # not affine: no unit active everywhere, with c


def _witness(k):
    return not_realizable_certificate(OFFSET, k, *nonsingular_minor(with_ones(OFFSET.labels), 3))


def test_a_minor_with_the_constant_column_excludes_both_biases():
    cert = _witness(1)
    assert OFFSET.m in cert["rank"]["outputs"]
    line = verify(cert, OFFSET)
    assert line.startswith("not-realizable: no 1-unit ReLU network with hidden biases and with output bias")
    assert "rank([labels | 1]) >= 3 > k + 1 = 2" in line


def test_the_constant_column_is_ones_not_a_label_column():
    cert = _witness(1)
    moved = copy.deepcopy(cert)  # the same minor read with a label column in place of the constant one
    moved["rank"]["outputs"] = [r if r != OFFSET.m else 0 for r in moved["rank"]["outputs"]]
    with pytest.raises(CertificateInvalid):
        verify(moved, OFFSET)
    beyond = copy.deepcopy(cert)
    beyond["rank"]["outputs"] = [r if r != OFFSET.m else OFFSET.m + 1 for r in beyond["rank"]["outputs"]]
    with pytest.raises(CertificateInvalid, match="distinct indices below 3"):
        verify(beyond, OFFSET)


def test_a_minor_of_ones_and_the_labels_must_be_non_singular():
    flat = Instance.from_arrays([[1], [2], [3]], [[1, 1], [2, 2], [3, 3]])  # rank([labels | 1]) = 2
    cert = not_realizable_certificate(flat, 1, [0, 2], [0, 1])  # [[1, 1], [2, 1]]: non-singular, 2 rows = k + 1
    with pytest.raises(CertificateInvalid, match="rank witness has k \\+ 1 or k \\+ 2 rows"):
        verify(cert, flat)  # k + 1 rows with the constant column need a span refutation
    forged = not_realizable_certificate(flat, 1, [0, 1, 2], [0, 1, 2])  # 3 x 3, but singular
    with pytest.raises(CertificateInvalid, match="singular minor"):
        verify(forged, flat)


def test_k_plus_1_rows_with_the_constant_column_need_a_span():
    with pytest.raises(CertificateInvalid, match="rank witness has k \\+ 1 or k \\+ 2 rows"):
        verify(_witness(2), OFFSET)
    three = _witness(3)  # k = 3: a 3 x 3 minor with the constant column is k rows, never accepted
    with pytest.raises(CertificateInvalid, match="a minor with the constant column has k \\+ 2 rows"):
        verify(three, OFFSET)


def test_a_span_refutation_with_the_constant_column():
    cert = solve_decision(SPAN, 1, bias="output").certificate
    where = cert["rank"]["outputs"].index(SPAN.m)
    assert cert["span"]["functional"][where] == "0" and cert["model"] == {"biases": False, "output_bias": True}
    assert verify(cert, SPAN).startswith("not-realizable: no 1-unit ReLU network without hidden biases and with output "
                                         "bias")
    for value in ("1", "-1/2"):
        bad = copy.deepcopy(cert)
        bad["span"]["functional"][where] = value
        with pytest.raises(CertificateInvalid, match="must vanish on the constant column"):
            verify(bad, SPAN)
    hidden = dict(cert, model={"biases": True, "output_bias": True})  # no constant input column: refused
    with pytest.raises(CertificateInvalid, match="wider than its proof"):
        verify(hidden, SPAN)
    plain = copy.deepcopy(cert)  # the same trees without the constant column: a span over the wrong rows
    plain["rank"] = {"outputs": [0], "samples": cert["rank"]["samples"][:1]}
    plain["span"]["functional"] = [cert["span"]["functional"][1 - where]]
    with pytest.raises(CertificateInvalid):
        verify(plain, SPAN)


def test_case_refutations_are_checked_with_c_free():
    with_c = decide(LINE, U=[[1]], output_bias=True)
    assert not with_c.realizable and with_c.certificate["model"]["output_bias"]
    assert verify(with_c.certificate, LINE).startswith("not-realizable: no 1-unit ReLU network without hidden biases "
                                                      "and with output bias")
    narrower = dict(with_c.certificate, model={"biases": False, "output_bias": False})  # c = 0 is a special case
    assert "without output bias" in verify(narrower, LINE)
    without = decide(LINE, U=[[1]])
    if not without.realizable:  # a refutation that uses equations without c: refused when it claims c
        claimed = dict(without.certificate, model={"biases": False, "output_bias": True})
        with pytest.raises(CertificateInvalid, match="not 0 <= negative"):
            verify(claimed, LINE)


def _leaf(rows):
    return {"farkas": [[kind, j, r, str(y)] for kind, j, r, y in rows]}


def test_a_leaf_must_cancel_c():
    """v + c = 1, 2 v + c = 3, 3 v + c = 4 (all active): the combination (1, -2, 1) cancels v and c, (2, -1, 0) only v."""
    X = [[(0, Fraction(1))], [(0, Fraction(2))], [(0, Fraction(3))]]
    Y = [[Fraction(1)], [Fraction(3)], [Fraction(4)]]
    dec = {(0, 0): True, (1, 0): True, (2, 0): True}
    good = _leaf([("eq", 0, 0, 1), ("eq", 1, 0, -2), ("eq", 2, 0, 1)])  # 0 == 1 - 6 + 4 = -1
    _refute_leaf(good, dec, X, Y, [[Fraction(1)]], 1, offset=True)
    _refute_leaf(good, dec, X, Y, [[Fraction(1)]], 1, offset=False)
    no_c = _leaf([("eq", 0, 0, 2), ("eq", 1, 0, -1)])  # 2 (v) - 2 (v) = 0, 2 - 3 < 0: right without c only
    _refute_leaf(no_c, dec, X, Y, [[Fraction(1)]], 1, offset=False)
    with pytest.raises(Exception, match="not 0 <= negative"):
        _refute_leaf(no_c, dec, X, Y, [[Fraction(1)]], 1, offset=True)


def test_half_rows_carry_c_with_their_sign():
    """eq+ reads -positive part - c <= -label, eq- reads negative part + c <= label."""
    X = [[(0, Fraction(1))]]
    U = [[Fraction(1), Fraction(-1)]]
    # y = 2 at x = 1 with unit 0 (weight +1) inactive: eq+ gives -c <= -2, so c >= 2; with sign row... use two rows:
    # eq+ (0 - c <= -2) plus eq- at a sample where unit 1 is inactive (0 + c <= -1): c >= 2 and c <= -1
    Xs = [[(0, Fraction(1))], [(0, Fraction(1))]]
    Y = [[Fraction(2)], [Fraction(-1)]]
    dec = {(0, 0): False, (1, 1): False}
    leaf = _leaf([("eq+", 0, 0, 1), ("eq-", 1, 0, 1)])  # (-c <= -2) + (c <= -1): 0 <= -3
    _refute_leaf(leaf, dec, Xs, Y, U, 2, offset=True)
    flipped = _leaf([("eq-", 0, 0, 1), ("eq+", 1, 0, 1)])  # (c <= 2) + (-c <= 1): 0 <= 3, no refutation
    dec2 = {(0, 1): False, (1, 0): False}
    with pytest.raises(Exception, match="not 0 <= negative"):
        _refute_leaf(flipped, dec2, Xs, [[Fraction(2)], [Fraction(-1)]], U, 2, offset=True)
    lone = _leaf([("eq+", 0, 0, 1)])  # -c <= -2 alone: c is left over
    with pytest.raises(Exception, match="not 0 <= negative"):
        _refute_leaf(lone, {(0, 0): False}, X, [[Fraction(2)]], U, 2, offset=True)


def test_equations_and_half_rows_carry_c_with_opposite_signs_where_they_meet():
    """c = 1 (no unit active at sample 0) and -c <= -2 (eq+ at sample 1, its positive unit inactive): refuted only
    when the equation's +c and the half row's -c cancel; the same rows with c's sign wrong in either are refused."""
    X = [[(0, Fraction(1))], [(0, Fraction(1))]]
    U = [[Fraction(1), Fraction(-1)]]
    Y = [[Fraction(1)], [Fraction(2)]]
    dec = {(0, 0): False, (0, 1): False, (1, 0): False}
    _refute_leaf(_leaf([("eq", 0, 0, 1), ("eq+", 1, 0, 1)]), dec, X, Y, U, 2, offset=True)  # c = 1 and c >= 2
    with pytest.raises(Exception, match="not 0 <= negative"):  # the same with c >= 2 read as c <= 2: no refutation
        _refute_leaf(_leaf([("eq", 0, 0, -1), ("eq-", 1, 0, 1)]), {**dec, (1, 1): False}, X, Y, U, 2, offset=True)
    Y2 = [[Fraction(3)], [Fraction(2)]]  # c = 3 and c + negative part <= 2 with the negative unit inactive: c <= 2
    _refute_leaf(_leaf([("eq", 0, 0, -1), ("eq-", 1, 0, 1)]), {**dec, (1, 1): False}, X, Y2, U, 2, offset=True)
