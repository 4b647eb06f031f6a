"""CNF and NAE-3SAT formulas, assignments, and DIMACS CNF read / write.

A formula has ``num_vars`` variables 1..N and clauses of non-zero integer literals
(DIMACS convention: ``3`` is x3, ``-3`` its negation). An assignment is a tuple of N
booleans, ``assignment[i - 1]`` the value of variable i.

:class:`CNF` is satisfied when every clause has a true literal; :class:`NAEFormula`
(not-all-equal 3-SAT) when no clause has all three literal values equal. Both are
stored and read in DIMACS CNF (``p cnf N M``); an NAE formula is marked by the comment
line ``c exactrelu:nae-3sat`` so that readers can tell the two apart.

>>> f = parse_dimacs("c example\\np cnf 3 2\\n1 -2 0\\n2 3 0\\n")
>>> f.num_vars, f.clauses
(3, ((1, -2), (2, 3)))
>>> f.satisfied_by((True, False, True))
True
>>> parse_dimacs(format_dimacs(f)) == f
True
>>> assignment_from_literals([1, -2, 3], 3)
(True, False, True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import InvalidInput
from ..limits import check_entries, limit, over
from ..validation import check_nonnegative_integer

__all__ = [
    "CNF",
    "NAEFormula",
    "Assignment",
    "NAE_MARK",
    "parse_dimacs",
    "format_dimacs",
    "read_dimacs",
    "write_dimacs",
    "assignment_from_literals",
    "assignment_to_literals",
    "parse_assignment",
]

Assignment = tuple[bool, ...]

#: Comment line (without the leading ``c``) that marks a DIMACS file as an NAE-3SAT formula.
NAE_MARK = "exactrelu:nae-3sat"


def _check_clauses(num_vars, clauses, *, width: int | None = None) -> tuple[tuple[int, ...], ...]:
    num_vars = check_nonnegative_integer(num_vars, "num_vars")
    out = []
    for c, clause in enumerate(clauses):
        clause = tuple(clause)
        if width is not None and len(clause) != width:
            raise InvalidInput(f"clause {c} has {len(clause)} literals; NAE-3SAT clauses have exactly {width}")
        for lit in clause:
            if isinstance(lit, bool) or not isinstance(lit, int) or lit == 0 or abs(lit) > num_vars:
                raise InvalidInput(f"clause {c}: literal {lit!r} is not a non-zero integer in "
                                   f"[-{num_vars}, {num_vars}]")
        out.append(clause)
    return tuple(out)


def _check_assignment(assignment: Sequence[bool], num_vars: int) -> Assignment:
    a = tuple(assignment)
    if len(a) != num_vars or not all(isinstance(v, bool) for v in a):
        raise InvalidInput(f"an assignment is {num_vars} booleans, got {len(a)} values")
    return a


def _value(lit: int, a: Assignment) -> bool:
    v = a[abs(lit) - 1]
    return v if lit > 0 else not v


@dataclass(frozen=True)
class CNF:
    """A CNF formula: clauses (tuples of DIMACS literals) over variables 1..num_vars."""

    num_vars: int
    clauses: tuple[tuple[int, ...], ...]
    comments: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self):
        object.__setattr__(self, "clauses", _check_clauses(self.num_vars, self.clauses))
        object.__setattr__(self, "comments", tuple(self.comments))

    def satisfied_by(self, assignment: Sequence[bool]) -> bool:
        """True when every clause has a literal that ``assignment`` makes true."""
        a = _check_assignment(assignment, self.num_vars)
        return all(any(_value(l, a) for l in c) for c in self.clauses)

    def falsified_clauses(self, assignment: Sequence[bool]) -> list[int]:
        """Indices of the clauses that ``assignment`` falsifies."""
        a = _check_assignment(assignment, self.num_vars)
        return [i for i, c in enumerate(self.clauses) if not any(_value(l, a) for l in c)]


@dataclass(frozen=True)
class NAEFormula:
    """An NAE-3SAT formula: clauses of exactly three literals (variables may repeat).

    >>> f = NAEFormula(3, [(1, 2, 3)])
    >>> f.satisfied_by((True, True, False)), f.satisfied_by((True, True, True))
    (True, False)
    """

    num_vars: int
    clauses: tuple[tuple[int, int, int], ...]
    comments: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self):
        object.__setattr__(self, "clauses", _check_clauses(self.num_vars, self.clauses, width=3))
        object.__setattr__(self, "comments", tuple(self.comments))

    def satisfied_by(self, assignment: Sequence[bool]) -> bool:
        """True when no clause has its three literal values all equal."""
        return not self.falsified_clauses(assignment)

    def falsified_clauses(self, assignment: Sequence[bool]) -> list[int]:
        """Indices of the clauses whose three literal values are all equal under ``assignment``."""
        a = _check_assignment(assignment, self.num_vars)
        return [i for i, c in enumerate(self.clauses) if len({_value(l, a) for l in c}) == 1]

    def to_cnf(self) -> CNF:
        """The same clauses as a CNF object (for DIMACS output), marked as NAE by a comment."""
        comments = self.comments if NAE_MARK in self.comments else (NAE_MARK,) + self.comments
        return CNF(self.num_vars, self.clauses, comments)


# -- DIMACS ---------------------------------------------------------------------------------

def parse_dimacs(text: str, *, source: str = "<string>") -> CNF:
    """Read DIMACS CNF text.

    Comment lines start with ``c``; one header ``p cnf VARS CLAUSES`` precedes the clauses;
    each clause is a list of literals ended by ``0`` and may span lines; a line ``%`` (SATLIB)
    ends the formula. Errors name the line.

    Raises
    ------
    InvalidInput
        Missing or repeated header, a malformed token, a literal beyond VARS, an unterminated
        last clause, or a number of clauses different from the header's.

    >>> parse_dimacs("p cnf 2 1\\n1 3 0\\n")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: <string>, line 2: literal 3 exceeds the 2 variables of the header
    """
    num_vars = num_clauses = None
    clauses: list[tuple[int, ...]] = []
    comments: list[str] = []
    current: list[int] = []
    last_line = 0
    fresh = 0  # at least this many fresh variables in the reduction's instance (clause lengths over 3)
    for lineno, line in enumerate(text.splitlines(), start=1):
        last_line = lineno
        s = line.strip()
        if not s:
            continue
        if s[0] == "c":
            comments.append(s[1:].strip())
            continue
        if s[0] == "%":
            break
        where = f"{source}, line {lineno}"
        if s[0] == "p":
            if num_vars is not None:
                raise InvalidInput(f"{where}: a second 'p' header")
            num_vars, num_clauses = _header(s, where, len(text))
            continue
        if num_vars is None:
            raise InvalidInput(f"{where}: clause before the 'p cnf VARS CLAUSES' header")
        current, fresh = _literals(s, where, num_vars, current, clauses, fresh)
    if num_vars is None:
        raise InvalidInput(f"{source}: no 'p cnf VARS CLAUSES' header")
    if current:
        raise InvalidInput(f"{source}, line {last_line}: the last clause is not terminated by 0")
    if len(clauses) != num_clauses:
        raise InvalidInput(f"{source}: the header announces {num_clauses} clauses, the file has {len(clauses)}")
    return CNF(num_vars, tuple(clauses), tuple(comments))


#: variables a DIMACS header may announce whatever the file's size (beyond, its characters must hold them)
ANNOUNCED = 1024


def _literals(s: str, where: str, num_vars: int, current: list, clauses: list, fresh: int) -> tuple[list, int]:
    """Read the literals of one line ``s``: each clause its 0 ends goes to ``clauses``; returns the clause still
    open and ``fresh`` (at least this many fresh variables in the reduction's instance, from clauses over 3)."""
    for tok in s.split():
        try:
            lit = int(tok)
        except ValueError:
            raise InvalidInput(f"{where}: {tok!r} is not an integer literal") from None
        if lit == 0:
            fresh += max(0, len(current) - 3)
            clauses.append(tuple(current))
            current = []
        elif abs(lit) > num_vars:
            raise InvalidInput(f"{where}: literal {lit} exceeds the {num_vars} variables of the header")
        else:
            current.append(lit)
            if len(current) % 1024 == 0:  # a long clause: refused before the rest of it is read
                check_reduction_size(num_vars, fresh + len(current) - 3, where)
    return current, fresh


def _header(s: str, where: str, size: int) -> tuple[int, int]:
    """(VARS, CLAUSES) of the header line ``s`` of a DIMACS text of ``size`` characters, refused before any work
    when malformed or over the limits."""
    parts = s.split()
    if len(parts) != 4 or parts[1] != "cnf" or not all(p.isdigit() for p in parts[2:]):
        raise InvalidInput(f"{where}: expected the header 'p cnf VARS CLAUSES', got {s!r}")
    if len(parts[2]) > 12 or len(parts[3]) > 12:
        raise InvalidInput(f"{where}: header numbers too large in {s[:60]!r}")
    num_vars, num_clauses = int(parts[2]), int(parts[3])
    if num_vars > limit("variables"):  # the reductions build gadgets per variable: refuse before
        raise over("variables", f"{where}: a formula of {num_vars} variables")
    if num_clauses > size:  # each clause needs at least its terminating "0"
        raise InvalidInput(f"{where}: the header announces {num_clauses} clauses; the file is {size} characters")
    if num_vars > max(size, ANNOUNCED):  # the reduction's cost grows with N^2 whether the variables are used or not
        raise InvalidInput(f"{where}: the header announces {num_vars} variables; the file is {size} characters (over "
                           f"{ANNOUNCED} variables, a formula holds at least one character per variable it announces)")
    return num_vars, num_clauses


def check_reduction_size(num_vars: int, fresh: int, where: str) -> None:
    """Refuse a formula whose ReLU instance (hardness/nae_to_relu.py) would need more memory than the machine has.

    The instance has a column per variable of the NAE formula (``num_vars`` plus at least ``fresh`` from
    splitting clauses of more than three literals) and two gadget rows per column: at least
    2 N (N + 1) entries. Checked while a DIMACS file is read, so that one clause of 100,000 literals is
    refused after its first few thousand, not after building a 500,000 x 200,000 instance.

    >>> check_reduction_size(10, 100_000, "f.cnf")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: f.cnf: its reduction (200020 x (100010 + 1) = 20,004,200,220 entries) needs about ...
    """
    cols = num_vars + max(0, fresh)
    check_entries(2 * cols, cols, 1, f"{where}: its reduction")


def format_dimacs(formula: CNF | NAEFormula, *, comments: Iterable[str] = ()) -> str:
    """DIMACS text of ``formula`` (its comments, then ``comments``, then header and clauses)."""
    cnf = formula.to_cnf() if isinstance(formula, NAEFormula) else formula
    lines = [f"c {c}".rstrip() for c in (*cnf.comments, *comments)]
    lines.append(f"p cnf {cnf.num_vars} {len(cnf.clauses)}")
    lines += [" ".join(map(str, (*c, 0))) for c in cnf.clauses]
    return "\n".join(lines) + "\n"


def read_dimacs(path: str | os.PathLike, *, nae: bool | None = None) -> CNF | NAEFormula:
    """Read a DIMACS file as a CNF, or as an NAE-3SAT formula.

    ``nae=None`` decides by the ``c exactrelu:nae-3sat`` comment; ``True``/``False`` force it.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None
    cnf = parse_dimacs(text, source=str(path))
    if nae is None:
        nae = NAE_MARK in cnf.comments
    if nae:
        return NAEFormula(cnf.num_vars, cnf.clauses, cnf.comments)
    return cnf


def write_dimacs(formula: CNF | NAEFormula, path: str | os.PathLike, *, comments: Iterable[str] = ()) -> Path:
    """Write ``formula`` as DIMACS (an NAE formula carries the ``c exactrelu:nae-3sat`` mark)."""
    from ..io.files import write_text_atomic

    return write_text_atomic(Path(path), format_dimacs(formula, comments=comments), what="DIMACS file")


# -- assignments ----------------------------------------------------------------------------

def assignment_from_literals(literals: Iterable[int], num_vars: int) -> Assignment:
    """An assignment from a model given as literals (python-sat's ``get_model()``, a ``v`` line).

    Variables above ``num_vars`` are ignored (auxiliary solver variables); every variable
    1..num_vars must appear exactly once.

    >>> assignment_from_literals([-1, 2], 2)
    (False, True)
    """
    vals: dict[int, bool] = {}
    for lit in literals:
        if isinstance(lit, bool) or not isinstance(lit, int) or lit == 0:
            raise InvalidInput(f"{lit!r} is not a non-zero integer literal")
        v = abs(lit)
        if v > num_vars:
            continue
        if v in vals and vals[v] != (lit > 0):
            raise InvalidInput(f"variable {v} is given both values")
        vals[v] = lit > 0
    missing = [v for v in range(1, num_vars + 1) if v not in vals]
    if missing:
        raise InvalidInput(f"the assignment leaves variables {missing[:10]} unset")
    return tuple(vals[v] for v in range(1, num_vars + 1))


def assignment_to_literals(assignment: Sequence[bool]) -> list[int]:
    """DIMACS literals of an assignment: ``i`` if variable i is true, ``-i`` if false."""
    return [i if v else -i for i, v in enumerate(assignment, start=1)]


def parse_assignment(text: str, num_vars: int, *, source: str = "<string>") -> Assignment:
    """Read an assignment from solver output: ``v``/``s`` lines or bare literals, ``0`` ignored.

    >>> parse_assignment("s SATISFIABLE\\nv 1 -2 0\\n", 2)
    (True, False)
    """
    lits = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s or s[0] in "cs":
            continue
        if s[0] == "v":
            s = s[1:]
        for tok in s.split():
            try:
                lit = int(tok)
            except ValueError:
                raise InvalidInput(f"{source}, line {lineno}: {tok!r} is not an integer literal") from None
            if lit != 0:
                lits.append(lit)
    return assignment_from_literals(lits, num_vars)
