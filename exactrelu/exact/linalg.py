"""Exact linear algebra over Q on FLINT integer matrices.

Rank and the choice of independent rows/columns are computed modulo a 62-bit prime
(``nmod_mat``): rows independent modulo p are independent over Q, and the rank modulo p
is never larger than over Q. Measured on this project's machine: 90-400x faster
than an exact rref. Everything a claim rests on is then verified exactly.

>>> import flint
>>> M = flint.fmpz_mat([[1, 2, 3], [2, 4, 6], [0, 1, 1]])
>>> independent_rows(M)
[0, 2]
>>> primitive_kernel(flint.fmpz_mat([[1, 2, 3], [0, 1, 1]]))
[[1, 1, -1]]
>>> solve_consistent(flint.fmpz_mat([[1, 0], [0, 1], [1, 1]]), flint.fmpz_mat([[1], [2], [3]])).tolist()
[[1], [2]]
"""

from __future__ import annotations

import math
from typing import Sequence

import flint

from ..errors import ExactReluError, InconsistentSystem, InvalidInput  # InconsistentSystem: re-exported (0.1 path)

__all__ = [
    "nonsingular_minor",
    "PRIMES",
    "rank_mod_p",
    "independent_rows",
    "independent_columns",
    "primitive_kernel",
    "exact_rank",
    "solve_square",
    "solve_consistent",
    "InconsistentSystem",
    "rational_reconstruction",
    "solve_small_direction",
]

#: Primes below 2**62 used for modular rank computations (any prime works; these are fixed
#: so that runs are reproducible).
PRIMES = (4611686018427387847, 4611686018427387817, 4611686018427387787)


def _pivots_of_rref(R: flint.nmod_mat, rank: int) -> list[int]:
    piv = []
    ncols = R.ncols()
    c = 0
    for r in range(rank):
        while int(R[r, c]) == 0:
            c += 1
        piv.append(c)
        c += 1
        if c >= ncols:
            break
    return piv


def rank_mod_p(M: flint.fmpz_mat, p: int = PRIMES[0]) -> int:
    """Rank of ``M`` modulo the prime ``p`` (a lower bound on the rank over Q)."""
    if M.nrows() == 0 or M.ncols() == 0:
        return 0
    return flint.nmod_mat(M, p).rank()


def independent_columns(M: flint.fmpz_mat, p: int = PRIMES[0]) -> list[int]:
    """Indices of a maximal set of columns of ``M`` that are independent modulo ``p``.

    They are independent over Q; their number is ``rank_mod_p(M, p)``.
    """
    if M.nrows() == 0 or M.ncols() == 0:
        return []
    R, rank = flint.nmod_mat(M, p).rref()
    return _pivots_of_rref(R, rank)


def independent_rows(M: flint.fmpz_mat, p: int = PRIMES[0]) -> list[int]:
    """Indices of a maximal set of rows of ``M`` independent modulo ``p`` (so over Q)."""
    if M.nrows() == 0 or M.ncols() == 0:
        return []
    N = flint.nmod_mat(M, p)
    if M.nrows() < M.ncols():  # wide: reduce to the pivot columns P first (an m x rank matrix)
        R, rank = N.rref()
        cols = _pivots_of_rref(R, rank)
        if not cols:
            return []
        # M = M[:, P] C modulo p, so every set of rows has the same rank in M[:, P] as in M: same greedy rows
        N = flint.nmod_mat([[N[i, c] for c in cols] for i in range(M.nrows())], p)
    R, rank = N.transpose().rref()
    return _pivots_of_rref(R, rank)


def exact_rank(M: flint.fmpz_mat) -> int:
    """Rank over Q (exact; slower than :func:`rank_mod_p`, used to state errors)."""
    if M.nrows() == 0 or M.ncols() == 0:
        return 0
    return M.rank()


def _primitive(v: Sequence[int]) -> list[int]:
    g = 0
    for x in v:
        g = math.gcd(g, x)
    if g > 1:
        v = [x // g for x in v]
    return list(v)


def primitive_kernel(M: flint.fmpz_mat) -> list[list[int]]:
    """A basis of the right kernel {x : M x = 0} over Q, as primitive integer vectors.

    Dividing by the gcd keeps entries small (measured: 31,262 bits down to 72).
    """
    N, nullity = M.nullspace()
    cols = N.ncols()
    out = []
    for j in range(int(nullity)):
        out.append(_primitive([int(N[i, j]) for i in range(cols)]))
    return out


def solve_square(M: flint.fmpz_mat, B: flint.fmpz_mat) -> flint.fmpq_mat:
    """Exact solution of ``M X = B`` for square non-singular ``M``; ZeroDivisionError if singular."""
    return M.solve(B)


def solve_consistent(M: flint.fmpz_mat, B: flint.fmpz_mat, *, what: str = "system") -> flint.fmpq_mat:
    """Exact solution ``X`` of an over-determined consistent system ``M X = B``.

    Picks ``ncols(M)`` rows of ``M`` independent modulo a prime, solves that square system,
    then verifies **every** equation exactly. Raises :class:`InconsistentSystem` (with the
    failing rows as evidence) when no solution exists, and ``InvalidInput`` when ``M`` does
    not have full column rank modulo the primes tried (the solution would not be unique).
    """
    n = M.ncols()
    rows = []
    for p in PRIMES:
        rows = independent_rows(M, p)
        if len(rows) == n:
            break
    if len(rows) != n:
        raise InvalidInput(f"{what}: the matrix has column rank below {n}; the solution is not unique")
    Msq = flint.fmpz_mat([[M[i, j] for j in range(n)] for i in rows])
    Bsq = flint.fmpz_mat([[B[i, j] for j in range(B.ncols())] for i in rows])
    X = Msq.solve(Bsq)
    num, den = X.numer_denom()
    resid = M * num - B * den
    if not resid.is_zero():
        bad = [i for i in range(M.nrows()) if any(resid[i, j] != 0 for j in range(B.ncols()))]
        raise InconsistentSystem(
            f"{what}: {len(bad)} of {M.nrows()} equations fail exactly",
            evidence={"failing_rows": bad[:20], "n_failing": len(bad)},
        )
    return X


def rational_reconstruction(a: int, p: int) -> tuple[int, int] | None:
    """(r, s) with r / s = a mod p, |r|, s <= sqrt(p / 2), if such a pair exists (Wang's algorithm).

    >>> p = PRIMES[0]
    >>> rational_reconstruction(3 * pow(7, -1, p) % p, p)
    (3, 7)
    """
    bound = math.isqrt(p // 2)
    r0, r1, s0, s1 = p, a % p, 0, 1
    while r1 > bound:
        q = r0 // r1
        r0, r1, s0, s1 = r1, r0 - q * r1, s1, s0 - q * s1
    if s1 == 0 or abs(s1) > bound or math.gcd(r1, abs(s1)) != 1:
        return None
    return (r1, s1) if s1 > 0 else (-r1, -s1)


def solve_small_direction(M: flint.fmpz_mat, b: Sequence, p: int = PRIMES[0]) -> list | None:
    """Solve ``M x = b`` modulo ``p`` and return the direction of x with small rational entries, or None.

    Meant for systems whose solution is a multiple of a vector with small entries (the weights of a
    unit): x is scaled so that its first non-zero entry is 1 and every entry is reconstructed from its
    residue. The result is a *proposal*: callers verify it exactly. ``b`` holds ints or Fractions.
    Returns None if ``M`` is singular modulo p or an entry does not reconstruct.
    """
    from fractions import Fraction

    n = M.nrows()
    rhs = []
    for v in b:
        v = Fraction(v)
        rhs.append(v.numerator * pow(v.denominator, -1, p) % p)
    try:
        x = flint.nmod_mat(M, p).solve(flint.nmod_mat(n, 1, rhs, p))
    except ZeroDivisionError:
        return None
    vals = [int(x[i, 0]) for i in range(n)]
    lead = next((v for v in vals if v), None)
    if lead is None:
        return None
    inv = pow(lead, -1, p)
    out = []
    for v in vals:
        rr = rational_reconstruction(v * inv % p, p)
        if rr is None:
            return None
        out.append(Fraction(*rr))
    return out


def nonsingular_minor(Y, t: int, columns: list[int] | None = None) -> tuple[list[int], list[int]]:
    """(columns, rows): t columns of ``Y`` (a QMatrix; the given ``columns``, else chosen) and t rows whose
    t x t minor is non-zero (needs rank(Y) >= t). Found modulo primes; a minor non-zero modulo p is non-zero.

    >>> from exactrelu.exact.matrix import QMatrix
    >>> nonsingular_minor(QMatrix.from_rows([[1, 2], [2, 4], [0, 1]]), 2)
    ([0, 1], [0, 2])
    """
    given = columns
    for p in PRIMES:
        cols = list(given) if given is not None else independent_rows(Y.num.transpose(), p)[:t]
        if len(cols) < t:
            continue
        sub = type(Y)(Y.num, 1).take_columns(cols).num  # n x t
        samples = independent_rows(sub, p)[:t]
        if len(samples) == t:
            return cols, samples
    raise ExactReluError(  # pragma: no cover
        f"internal error: no {t} x {t} minor of the labels found modulo the primes")
