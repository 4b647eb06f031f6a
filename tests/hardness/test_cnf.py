"""DIMACS read/write, formulas, assignments and generators (exactrelu.hardness.cnf, .generators)."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.errors import InvalidInput
from exactrelu.hardness import (CNF, NAE_MARK, NAEFormula, assignment_from_literals, assignment_to_literals,
                                format_dimacs, parse_assignment, parse_dimacs, pigeonhole, planted_assignment,
                                random_kcnf, random_nae3, read_dimacs, write_dimacs)


@st.composite
def cnfs(draw, max_vars=6, max_clauses=8, width=None):
    n = draw(st.integers(1 if width else 0, max_vars))
    lit = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])) if n else st.nothing()
    size = st.just(width) if width else st.integers(0, 4 if n else 0)
    clauses = draw(st.lists(size.flatmap(lambda k: st.lists(lit, min_size=k, max_size=k)), max_size=max_clauses))
    return (NAEFormula if width else CNF)(n, clauses)


@given(cnfs(), st.lists(st.text(alphabet="abc xyz=1", max_size=10), max_size=3))
def test_dimacs_round_trip(f, comments):
    g = parse_dimacs(format_dimacs(f, comments=comments))
    assert g == f and list(g.comments) == [c.strip() for c in comments]


@given(cnfs(width=3))
def test_nae_round_trip_through_files(tmp_path_factory, f):
    path = tmp_path_factory.mktemp("d") / "f.cnf"
    write_dimacs(f, path)
    g = read_dimacs(path)
    assert isinstance(g, NAEFormula) and g == f
    assert isinstance(read_dimacs(path, nae=False), CNF)


def test_dimacs_details():
    text = "c hello\n\np cnf 4 3\n1 -2\n 3 0 -4 0\n0\n%\n0\nc after the end\n"
    f = parse_dimacs(text)
    assert f.clauses == ((1, -2, 3), (-4,), ()) and f.comments == ("hello",)
    assert not f.satisfied_by((False, True, False, True))  # the empty clause
    assert f.falsified_clauses((True,) * 4) == [1, 2]


@pytest.mark.parametrize("text, message", [
    ("", "no 'p cnf"),
    ("1 2 0\n", "line 1: clause before"),
    ("p cnf 2 1\np cnf 2 1\n", "line 2: a second 'p' header"),
    ("p cnf x 1\n", "line 1: expected the header"),
    ("p dnf 2 1\n", "line 1: expected the header"),
    ("c\np cnf 2 1\n1 a 0\n", "line 3: 'a' is not an integer"),
    ("p cnf 2 1\n1 -3 0\n", "line 2: literal -3 exceeds"),
    ("p cnf 2 1\n1 2\n", "line 2: the last clause is not terminated"),
    ("p cnf 2 2\n1 2 0\n", "announces 2 clauses, the file has 1"),
])
def test_dimacs_errors_name_the_line(text, message):
    with pytest.raises(InvalidInput, match=message):
        parse_dimacs(text, source="f.cnf")


def test_read_dimacs_missing_file(tmp_path):
    with pytest.raises(InvalidInput, match="cannot read"):
        read_dimacs(tmp_path / "nope.cnf")


@pytest.mark.parametrize("make", [
    lambda: CNF(-1, []), lambda: CNF(True, []), lambda: CNF(2, [(0,)]), lambda: CNF(2, [(3,)]),
    lambda: CNF(2, [(True,)]), lambda: NAEFormula(3, [(1, 2)]),
])
def test_formula_validation(make):
    with pytest.raises(InvalidInput):
        make()


def test_assignments():
    assert assignment_from_literals([2, -1, 5], 2) == (False, True)
    assert assignment_to_literals((True, False)) == [1, -2]
    assert parse_assignment("c x\ns SATISFIABLE\nv 1\nv -2 0\n", 2) == (True, False)
    for bad, msg in (([1, -1], "both values"), ([1], "unset"), ([0], "non-zero"), ([True], "non-zero")):
        with pytest.raises(InvalidInput, match=msg):
            assignment_from_literals(bad, 2)
    with pytest.raises(InvalidInput, match="f.txt, line 1"):
        parse_assignment("v 1 x\n", 2, source="f.txt")
    with pytest.raises(InvalidInput, match="3 booleans"):
        CNF(3, []).satisfied_by((True,))


def test_nae_semantics_exhaustive():
    f = NAEFormula(2, [(1, 1, -2)])  # repeated variables allowed: NAE(a, a, not b) iff a == b
    for a, b in itertools.product((False, True), repeat=2):
        assert f.satisfied_by((a, b)) == (a == b)
    assert f.to_cnf().comments[0] == NAE_MARK and f.to_cnf().clauses == f.clauses


def test_generators_are_seeded_and_planted():
    assert random_nae3(8, 20, seed=5) == random_nae3(8, 20, seed=5)
    assert random_nae3(8, 20, seed=5) != random_nae3(8, 20, seed=6)
    for seed in range(5):
        f = random_nae3(7, 25, seed=seed, planted=True)
        assert f.satisfied_by(planted_assignment(f))
        g = random_kcnf(7, 30, seed=seed, planted=True)
        assert g.satisfied_by(planted_assignment(g))
        assert all(len({abs(l) for l in c}) == 3 for c in f.clauses + g.clauses)
    with pytest.raises(InvalidInput, match="no planted"):
        planted_assignment(random_nae3(4, 2, seed=0))
    with pytest.raises(InvalidInput, match="num_vars >= 3"):
        random_nae3(2, 1)
    with pytest.raises(InvalidInput, match="non-negative"):
        random_kcnf(4, -1)
    with pytest.raises(InvalidInput, match="holes"):
        pigeonhole(0)


def test_pigeonhole_is_unsatisfiable_by_brute_force():
    f = pigeonhole(2)
    assert not any(f.satisfied_by(a) for a in itertools.product((False, True), repeat=f.num_vars))


def test_cnfgen_formulas_read_back():
    cnfgen = pytest.importorskip("cnfgen")
    F = cnfgen.PigeonholePrinciple(4, 3)
    f = parse_dimacs(F.to_dimacs())
    assert f.num_vars == F.number_of_variables() and len(f.clauses) == len(list(F.clauses()))
