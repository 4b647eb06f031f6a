"""Sign patterns of a subspace: the orthants it meets and the faces of its non-negative cone.

The subspace is the row span of a rational matrix ``B`` (k x n); its vectors are ``c^T B``
for ``c`` in Q^k, and coordinate ``j`` is the linear form ``c -> b_j . c`` (``b_j`` the
j-th column). Everything here is exact (Python integers on ``B`` scaled to integers).

* :func:`sign_patterns` streams every sign vector in ``{-1, +1}^n`` met by the subspace:
  the full-dimensional cells of the central arrangement of the hyperplanes ``b_j . c = 0``
  in Q^k. There are at most :func:`cover_count` ``(n, k) = 2 sum_{i<k} C(n-1, i)`` of them
  (Cover 1965), with equality when every k columns of B are independent. Method: every cell
  is a pointed cone, so it has an extreme ray, which lies on a line cut out by k - 1
  independent hyperplanes; the cells around a line are its sign vector with the zeros
  filled in by the cells of the (k-1)-dimensional arrangement of the hyperplanes through
  it (recursively). That is ``C(n, k-1)`` lines of ``O(n k)`` work: ``n^(k+O(1))``.
* :func:`extreme_rays` gives the extreme rays of the cone ``K = {c : c^T B >= 0}``
  (the non-negative vectors of the subspace) by the double-description method with the
  combinatorial adjacency test, in exact integers; :func:`nonnegative_patterns` lists the
  supports of the non-negative vectors (one per face of K, from the apex up).

>>> B = [[1, 0, 1], [0, 1, 1]]
>>> sorted(sign_patterns(B))
[(-1, -1, -1), (-1, 1, -1), (-1, 1, 1), (1, -1, -1), (1, -1, 1), (1, 1, 1)]
>>> cover_count(3, 2)
6
>>> [r.support for r in extreme_rays(B)]
[(0, 2), (1, 2)]
>>> nonnegative_patterns(B)
[(), (0, 2), (1, 2), (0, 1, 2)]
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from dataclasses import dataclass
from typing import Iterator

import flint

from ...deadline import Deadline
from ...errors import InvalidInput
from ...exact.linalg import independent_rows
from ...exact.matrix import QMatrix
from ...progress import rate_eta

__all__ = ["cover_count", "sign_patterns", "count_sign_patterns", "extreme_rays", "nonnegative_patterns", "Ray",
           "integer_basis"]


def cover_count(n: int, k: int) -> int:
    """Cover's bound ``2 sum_{i<k} C(n-1, i)`` on the orthants of R^n a k-dim subspace meets.

    >>> cover_count(10, 1), cover_count(10, 2), cover_count(4, 4)
    (2, 20, 16)
    """
    if n < 1 or k < 0:
        raise InvalidInput(f"cover_count needs n >= 1 and k >= 0, got n={n}, k={k}")
    return 2 * sum(math.comb(n - 1, i) for i in range(k))


def integer_basis(B) -> list[list[int]]:
    """Rows of ``B`` (any matrix form QMatrix accepts) reduced to independent rows, scaled to integers.

    Scaling a row by a positive number changes neither signs nor supports.
    """
    Q = B if isinstance(B, QMatrix) else QMatrix.coerce(B, name="basis")
    rows = independent_rows(Q.num)
    return [[int(x) for x in Q.num.tolist()[i]] for i in rows] if rows else []


def _primitive(v):
    g = 0
    for x in v:
        g = math.gcd(g, x)
    return tuple(x // g for x in v) if g > 1 else tuple(v)


def _kernel_line(vectors: list[tuple[int, ...]], k: int):
    """The primitive generator of ``{c : v . c = 0 for v in vectors}`` if it is a line, else None."""
    M = flint.fmpz_mat(len(vectors), k, [x for v in vectors for x in v])
    N, nullity = M.nullspace()
    if int(nullity) != 1:
        return None
    return _primitive([int(N[i, 0]) for i in range(k)])


def _perp_basis(r: tuple[int, ...], k: int) -> list[tuple[int, ...]]:
    """An integer basis (k - 1 vectors) of the orthogonal complement of ``r``."""
    N, nullity = flint.fmpz_mat(1, k, list(r)).nullspace()
    return [tuple(int(N[i, c]) for i in range(k)) for c in range(int(nullity))]


def _dot(a, b) -> int:
    return sum(x * y for x, y in zip(a, b))


def _local_cells(normals: list[tuple[int, ...]], k: int) -> set[tuple[int, ...]]:
    """All sign vectors in {-1,1}^len(normals) of the central arrangement ``normals`` spanning Q^k."""
    p = len(normals)
    if k == 1:
        s = tuple(1 if v[0] > 0 else -1 for v in normals)
        return {s, tuple(-x for x in s)}
    if p == k:  # independent normals: every orthant
        return set(itertools.product((-1, 1), repeat=p))
    out: set[tuple[int, ...]] = set()
    for _, signs in _cells_by_lines(normals, k):
        out.add(signs)
    return out


def _cells_by_lines(normals: list[tuple[int, ...]], k: int, progress=None) -> Iterator[tuple[tuple, tuple[int, ...]]]:
    """Yield ``(line, sign vector)`` for every cell around every line of the arrangement (with repeats)."""
    p = len(normals)
    seen: set[tuple[int, ...]] = set()
    for subset in itertools.combinations(range(p), k - 1):
        if progress is not None:
            progress(1)
        r = _kernel_line([normals[j] for j in subset], k)
        if r is None:
            continue
        first = next(x for x in r if x)
        if first < 0:
            r = tuple(-x for x in r)
        if r in seen:
            continue
        seen.add(r)
        vals = [_dot(v, r) for v in normals]
        zeros = [j for j, v in enumerate(vals) if v == 0]
        P = _perp_basis(r, k)
        local = _local_cells([tuple(_dot(normals[j], q) for q in P) for j in zeros], k - 1)
        base = [1 if v > 0 else -1 for v in vals]
        for sgn in (1, -1):
            for loc in local:
                s = [sgn * b for b in base]
                for j, t in zip(zeros, loc):
                    s[j] = t
                yield r, tuple(s)


class _Progress:
    """tqdm if installed, else :class:`exactrelu.progress.LineProgress` lines on stderr; silent when disabled.

    Either way the display is finished (cleared or ended by a newline) on :meth:`close`, so that
    the next output starts on its own line.

    >>> import io
    >>> bar = _Progress(2, True, "rays", stream=io.StringIO(), use_tqdm=False)
    >>> bar(1); bar(1); bar.close()
    >>> bar.line.stream.getvalue().split(" (")[0]
    '  .. rays: 2/2'
    """

    def __init__(self, total: int, enabled: bool, desc: str, *, stream=None, use_tqdm: bool = True):
        from ...progress import LineProgress

        self.bar = self.line = None
        self.enabled = enabled
        self.total, self.done, self.desc = total, 0, desc
        self.start = self.last = time.monotonic()
        if not enabled:
            return
        try:
            if not use_tqdm:
                raise ImportError("tqdm not wanted")
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, file=stream or sys.stderr, leave=False)
        except ImportError:
            self.line = LineProgress(stream)

    def __call__(self, step: int) -> None:
        if not self.enabled:
            return
        self.done += step
        if self.bar is not None:
            self.bar.update(step)
        else:  # a line per second at most (the first after one second), with the rate and the ETA
            now = time.monotonic()
            if now - self.last >= 1.0 or self.done == self.total:
                self.last = now
                eta = rate_eta(self.done, self.total, now - self.start)
                self.line(f"{self.desc}: {self.done}/{self.total} ({eta})")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        if self.line is not None:
            self.line.close()


def sign_patterns(B, *, progress: bool = False, deadline: Deadline | None = None) -> Iterator[tuple[int, ...]]:
    """Stream every sign vector in ``{-1, +1}^n`` of a vector in the row span of ``B`` (k x n).

    Each pattern is yielded once. A zero column of B (a coordinate that vanishes on the
    whole subspace) means no such vector exists, and nothing is yielded.

    Parameters
    ----------
    B : the basis (rows; any form :class:`~exactrelu.exact.QMatrix` accepts). Dependent rows are dropped.
    progress : show a progress bar (tqdm, on stderr) over the ``C(n, k-1)`` candidate lines.
    deadline : a :class:`~exactrelu.deadline.Deadline` checked at every candidate line (TimeLimitExceeded).

    >>> list(sign_patterns([[1, -2, 0.5]]))
    [(1, -1, 1), (-1, 1, -1)]
    >>> sum(1 for _ in sign_patterns([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]])) == cover_count(4, 3)
    True
    """
    rows = integer_basis(B)
    k = len(rows)
    if k == 0:
        return
    n = len(rows[0])
    normals = [tuple(row[j] for row in rows) for j in range(n)]
    if any(not any(v) for v in normals):
        return
    if k == 1:
        s = tuple(1 if v[0] > 0 else -1 for v in normals)
        yield s
        yield tuple(-x for x in s)
        return
    bar = _Progress(math.comb(n, k - 1), progress, "lines")
    seen: set[int] = set()
    try:
        for _, s in _cells_by_lines(normals, k, bar):
            if deadline is not None:
                deadline.check(lambda: f"{len(seen)} sign patterns found (of lines among C({n}, {k - 1}))")
            key = sum(1 << j for j, t in enumerate(s) if t > 0)
            if key not in seen:
                seen.add(key)
                yield s
    finally:
        bar.close()


def count_sign_patterns(B, *, progress: bool = False, deadline: Deadline | None = None) -> int:
    """The number of sign vectors :func:`sign_patterns` yields."""
    return sum(1 for _ in sign_patterns(B, progress=progress, deadline=deadline))


# -- the non-negative cone ---------------------------------------------------------------------

@dataclass(frozen=True)
class Ray:
    """An extreme ray of ``K = {c : c^T B >= 0}``: coefficients ``c`` (primitive integers),
    the vector ``w = c^T B`` of the subspace (integers, for the integer-scaled basis) and its support."""

    c: tuple[int, ...]
    w: tuple[int, ...]
    support: tuple[int, ...]


def extreme_rays(B, *, deadline: Deadline | None = None, progress=None) -> list[Ray]:
    """Extreme rays of the cone of non-negative vectors of the row span of ``B``, exactly.

    Double description (Motzkin et al.; Fukuda-Prodon's combinatorial adjacency test): start from
    the simplicial cone of k independent constraints, add the others one at a time, keep the
    rays on the non-negative side and combine each adjacent (+, -) pair. Sorted by support.
    ``deadline`` (a :class:`~exactrelu.deadline.Deadline`) is checked at every constraint added;
    ``progress`` (a callable) receives a one-line message there.

    >>> [r.w for r in extreme_rays([[1, 1, 0], [0, 1, 1]])]
    [(1, 1, 0), (0, 1, 1)]
    >>> extreme_rays([[1, -1]])
    []
    """
    rows = integer_basis(B)
    k = len(rows)
    if k == 0:
        return []
    n = len(rows[0])
    normals = [tuple(row[j] for row in rows) for j in range(n)]
    first, rays = _simplicial_cone(rows, normals)
    firstset = set(first)
    for j in range(n):
        if j in firstset:
            continue
        if deadline is not None:
            deadline.check(lambda: f"extreme rays: {j} of {n} constraints added, {len(rays)} rays so far")
        if progress is not None:
            progress(f"extreme rays: {j} of {n} constraints added, {len(rays)} rays so far")
        rays = _with_constraint(rays, normals[j], j, k)
        if not rays:
            return []
    out = []
    for c, _ in rays:
        w = tuple(_dot(normals[j], c) for j in range(n))
        out.append(Ray(tuple(c), w, tuple(j for j, v in enumerate(w) if v)))
    out.sort(key=lambda r: (r.support, r.w))
    return out


def _simplicial_cone(rows: list, normals: list) -> tuple[list[int], list]:
    """The first k independent constraints and the rays (c, zero mask) of the simplicial cone they bound:
    ``b_first[a] . r_i = delta_ai`` (columns of the inverse, scaled to primitive integers)."""
    k, n = len(rows), len(rows[0])
    cols = flint.fmpz_mat(k, n, [x for row in rows for x in row])
    first = [j for j in independent_rows(cols.transpose())]
    Bk = flint.fmpz_mat([list(normals[j]) for j in first])
    inv = Bk.inv()  # fmpq_mat; b_first[a] . inv[:, i] = delta
    num, _ = inv.numer_denom()
    rays = []  # (c, zero mask)
    for i in range(k):
        c = _primitive([int(num[a, i]) for a in range(k)])
        z = 0
        for a, j in enumerate(first):
            if a != i:
                z |= 1 << j
        rays.append((c, z))
    return first, rays


def _with_constraint(rays: list, b: tuple, j: int, k: int) -> list:
    """One step of the double description: the rays (c, zero mask) of the cone cut by ``b . c >= 0`` (constraint
    j): those on its non-negative side, and a new ray for each adjacent (+, -) pair (the combinatorial test)."""
    vals = [_dot(b, c) for c, _ in rays]
    pos = [i for i, v in enumerate(vals) if v > 0]
    neg = [i for i, v in enumerate(vals) if v < 0]
    new = [(rays[i][0], rays[i][1] | ((1 << j) if vals[i] == 0 else 0)) for i in range(len(rays)) if vals[i] >= 0]
    if neg:
        masks = [z for _, z in rays]
        for p in pos:
            for q in neg:
                common = masks[p] & masks[q]
                if bin(common).count("1") < k - 2:
                    continue
                if any(t != p and t != q and (masks[t] & common) == common for t in range(len(rays))):
                    continue
                cp, cq = rays[p][0], rays[q][0]
                c = _primitive([vals[p] * y - vals[q] * x for x, y in zip(cp, cq)])
                new.append((c, common | (1 << j)))
    return new


def nonnegative_patterns(B, *, rays: list[Ray] | None = None, deadline: Deadline | None = None,
                         progress=None) -> list[tuple[int, ...]]:
    """Supports of the non-negative vectors of the row span of ``B``: one per face of the cone K.

    A face is generated by its extreme rays and its support is the union of theirs; faces are
    closed under "join with one more ray, then add every ray whose zero set contains the new
    zero set". Sorted by size, then lexicographically; the apex gives the empty support.
    The number of faces can be exponential in k (2^k for a simplicial cone). ``deadline`` is
    checked, and ``progress`` (a callable) told, once per face extended.
    """
    rays = extreme_rays(B, deadline=deadline, progress=progress) if rays is None else rays
    if not rays:
        return [()]
    n = len(rays[0].w)
    full = (1 << n) - 1
    zmask = [full & ~sum(1 << j for j in r.support) for r in rays]

    def close(members: frozenset[int]) -> frozenset[int]:
        z = full
        for i in members:
            z &= zmask[i]
        return frozenset(i for i in range(len(rays)) if zmask[i] & z == z)

    faces = {frozenset()}
    frontier = [frozenset()]
    while frontier:
        nxt = []
        for f in frontier:
            if deadline is not None:
                deadline.check(lambda: f"faces of the cone: {len(faces)} found from {len(rays)} extreme rays")
            if progress is not None:
                progress(f"faces of the cone: {len(faces)} found from {len(rays)} extreme rays")
            for i in range(len(rays)):
                if i in f:
                    continue
                g = close(f | {i})
                if g not in faces:
                    faces.add(g)
                    nxt.append(g)
        frontier = nxt
    supports = {tuple(sorted(set().union(*(rays[i].support for i in f)))) for f in faces}
    return sorted(supports, key=lambda s: (len(s), s))
