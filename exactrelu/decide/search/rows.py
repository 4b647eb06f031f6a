"""The exact rows of a ReLU instance and the exact decision of a system of them.

One definition of the rows, shared by both engines of :mod:`exactrelu.decide.search.pattern_search`. For the
pair (sample j, unit i) the *sign row* reads ``-x_j . v_i <= 0`` (unit i active on sample j) or
``x_j . v_i <= 0`` (inactive); once every unit of output r is decided on sample j, the *equation*
reads ``sum over active i of U[r][i] x_j . v_i == Y[j][r]``. :class:`Rows` gives each row as sparse
integer coefficients on the variables ``(i, t)`` (``V[i][t]``), an integer right-hand side, and
the positive scale that turned the original row into integers; a Farkas multiplier on the integer
row times that scale is the multiplier on the original row (what the certificates record).

With an output bias (``offset``) the variable ``("c", r)`` (c_r) joins every equation of output r with
coefficient 1 (``... + c_r == Y[j][r]``), and the half rows with coefficient ``-sign``: the label is the sum of
both signs' parts and c_r, so ``-positive part - c_r <= -Y`` and ``negative part + c_r <= Y``.

:func:`decide_rows` decides such a system: exact propagation, then one exact LP.
"""

from __future__ import annotations

import heapq
import math
import time
from fractions import Fraction
from itertools import chain
from typing import NamedTuple

import flint

from ...exact.lp import feasible
from ...exact.matrix import QMatrix
from ...exact.rationals import format_rational
from .elimination import eliminate, substituted

__all__ = ["Rows", "Row", "Tag", "ScaledRow", "decide_rows", "MAX_CORES"]

#: cores taken from one propagation pass (each violated row gives one)
MAX_CORES = 256


class Tag(NamedTuple):
    """Which row: ``("sign", sample j, unit i)`` or ``("eq", sample j, output r)`` (equal to the plain tuple)."""

    kind: str
    sample: int
    index: int


class Row(NamedTuple):
    """One exact row ``coefs . v == rhs`` (``is_eq``) or ``coefs . v <= rhs``: ``coefs`` maps a variable key
    (``(unit, coordinate)`` for an instance's rows) to an integer, ``rhs`` is an integer."""

    tag: Tag
    coefs: dict
    rhs: int
    is_eq: bool


class ScaledRow(NamedTuple):
    """A :class:`Row` and the positive ``scale`` that turned the original row into it (row = scale x original)."""

    row: Row
    scale: Fraction


# -- one exact system: propagation, then an LP on what is left ------------------------------------

def decide_rows(rows, *, method: str = "auto", max_cores: int = MAX_CORES, stats: dict | None = None,
                lp: bool = True):
    """Decide ``{v : rows}`` exactly; explain infeasibility by Farkas vectors.

    ``rows`` is a list of :class:`Row` (or plain ``(tag, coefs, rhs, is_eq)`` tuples). Returns
    ``(point, [])`` with ``point`` a dict key -> Fraction satisfying every row (keys not present are 0),
    or ``(None, cores)``: each core a list of ``(tag, y)`` with ``y`` a rational multiplier (``y >= 0``
    on inequalities) such that the combination reads ``0 <= negative`` (or ``0 == non-zero``).

    Equations with one unknown left fix it (exactly) and every row whose unknowns are all fixed
    is checked; a violated row is explained by substituting back the equations that fixed its
    variables, so it is its own small core. What propagation leaves is decided by its equations when
    they suffice (:mod:`~exactrelu.decide.search.elimination`), else by one exact LP. With ``stats``, the seconds
    of both go into ``stats["elimination_seconds"]`` and ``stats["lp_seconds"]`` (HiGHS proposals and
    their exact confirmation, or the exact simplex), their counts into ``"eliminated"`` and ``"exact_lps"``.
    With ``lp=False`` no LP is run: ``(None, [])`` then means "not decided by propagation and elimination".

    >>> decide_rows([Row("a", {"x": 1}, 1, True), Row("b", {"x": 1}, 0, False)])[1]
    [[('a', Fraction(-1, 1)), ('b', Fraction(1, 1))]]
    >>> decide_rows([("a", {"x": 1, "y": 1}, 1, True), ("b", {"x": -1}, 0, False)])[0]
    {'x': Fraction(0, 1), 'y': Fraction(1, 1)}
    """
    rows = rows if all(type(r) is Row for r in rows) else [Row(*r) for r in rows]
    prop = _Propagation(rows, max_cores)
    prop.run()
    if prop.violated:
        return None, [_explain(rows, {ri: Fraction(sign)}, prop.fixed_by) for ri, sign in prop.violated]
    residual = [ri for ri in range(len(rows)) if prop.left[ri] > 0]
    point = dict(prop.val)
    if not residual:
        return point, []
    return _residual_lp(rows, residual, prop, point, method, {} if stats is None else stats, lp)


class _Propagation:
    """Exact constraint propagation: equations with one unknown left fix it; fully fixed rows are checked."""

    def __init__(self, rows: list[Row], max_cores: int):
        self.rows, self.max_cores = rows, max_cores
        self.is_eq = [r[3] for r in rows]  # by index: the hot loop below reads these many times
        self.left = [len(r[1]) for r in rows]
        self.rows_of: dict = {}
        for ri, r in enumerate(rows):
            for key in r[1]:
                self.rows_of.setdefault(key, []).append(ri)
        self.val: dict = {}
        self.fixed_by: dict = {}  # key -> (rank in fixing order, row index)
        self.violated: list[tuple[int, int]] = []
        self.checked = bytearray(len(rows))

    def check(self, ri: int) -> None:
        if self.checked[ri]:
            return
        self.checked[ri] = 1
        _, coefs, rhs, is_eq = self.rows[ri]
        val = self.val
        s = sum(a * val[key] for key, a in coefs.items()) - rhs
        if (s != 0) if is_eq else (s > 0):
            self.violated.append((ri, 1 if s > 0 else -1))

    def run(self) -> None:
        rows, left, val, checked, is_eq = self.rows, self.left, self.val, self.checked, self.is_eq
        queue = [ri for ri in range(len(rows)) if left[ri] == 0 or (left[ri] == 1 and is_eq[ri])]
        qi = 0
        while qi < len(queue) and len(self.violated) < self.max_cores:
            ri = queue[qi]
            qi += 1
            if left[ri] == 0:
                self.check(ri)
                continue
            if left[ri] != 1 or checked[ri]:
                continue
            _, coefs, rhs, _ = rows[ri]
            unknown = [key for key in coefs if key not in val]
            if len(unknown) != 1:  # pragma: no cover - left[] counts the unknowns
                continue
            key = unknown[0]
            num = rhs - sum(a * val[t] for t, a in coefs.items() if t != key)
            a = coefs[key]
            if type(num) is int and num % a == 0:  # stay in machine-friendly ints while they suffice
                val[key] = num // a
            else:
                val[key] = Fraction(num) / a
            self.fixed_by[key] = (len(self.fixed_by), ri)
            checked[ri] = 1
            for rj in self.rows_of[key]:
                left[rj] -= 1
                if left[rj] == 0:
                    self.check(rj)
                elif left[rj] == 1 and is_eq[rj]:
                    queue.append(rj)


def _residual_lp(rows: list[Row], residual: list[int], prop: _Propagation, point: dict, method: str, stats: dict,
                 lp: bool = True):
    """The rows propagation left, with the fixed values substituted: decided by their equations when these
    suffice (:func:`~exactrelu.decide.search.elimination.eliminate`), else as one exact LP; cores explained."""
    val = prop.val
    t = time.perf_counter()
    done = eliminate(rows, residual, val, prop.max_cores)
    t1 = time.perf_counter()
    _add(stats, "elimination_seconds", t1 - t)
    if done is not None:
        _add(stats, "eliminated", 1)
        free, cores = done
        if free is not None:
            point.update(free)
            return point, []
        return None, [_explain(rows, lam, prop.fixed_by) for lam in cores]
    if not lp:
        return None, []
    cols, lines = substituted(rows, residual, val)
    blocks = {True: ([], [], []), False: ([], [], [])}  # entries, rhs, (row, scale)
    for ri, line, b, den in lines:
        ent, rh, meta = blocks[rows[ri].is_eq]
        ent.extend(line)
        rh.append(b)
        meta.append((ri, den))
    mats = {}
    for is_eq, (ent, rh, meta) in blocks.items():
        if meta:
            mats[is_eq] = (QMatrix(flint.fmpz_mat(len(meta), len(cols), ent), 1), QMatrix(flint.fmpz_mat(len(meta), 1, rh), 1))
        else:
            mats[is_eq] = (None, None)
    res = feasible(*mats[True], *mats[False], nvars=len(cols), method="exact" if len(cols) <= 8 else method)
    _add(stats, "lp_seconds", time.perf_counter() - t1)
    _add(stats, "exact_lps", 1)
    if res.status == "feasible":
        for key, v in zip(cols, res.point):
            point[key] = v
        return point, []
    ye, yu = res.farkas
    lam: dict = {}
    for ys, (_, _, meta) in ((ye, blocks[True]), (yu, blocks[False])):
        for y, (ri, den) in zip(ys, meta):
            if y != 0:
                lam[ri] = y * den
    return None, [_explain(rows, lam, prop.fixed_by)]


def _add(stats: dict, key: str, x) -> None:
    stats[key] = stats.get(key, 0) + x


def _explain(rows, lam: dict, fixed_by: dict):
    """Cancel the fixed variables of a combination by the equations that fixed them (newest first).

    A combination whose rows hold no fixed variable is returned as it is (the common case on instances in
    general position, where propagation fixes nothing: it saved 9 of 18 s on a (3, 2, 40) instance). The
    checker verifies every combination itself.
    """
    if not fixed_by or not any(key in fixed_by for ri in lam for key in rows[ri].coefs):
        return [(rows[ri].tag, y if type(y) is Fraction else Fraction(y)) for ri, y in sorted(lam.items()) if y != 0]
    lam = dict(lam)
    g: dict = {}
    for ri, y in lam.items():
        for key, a in rows[ri].coefs.items():
            g[key] = g.get(key, 0) + y * a
    heap = [(-fixed_by[key][0], key) for key, a in g.items() if a != 0 and key in fixed_by]
    heapq.heapify(heap)
    seen = set()
    while heap:
        _, key = heapq.heappop(heap)
        if key in seen:
            continue
        seen.add(key)
        a = g.get(key, 0)
        if a == 0:
            continue
        _, e = fixed_by[key]
        coefs = rows[e].coefs
        alpha = -Fraction(a) / coefs[key]
        lam[e] = lam.get(e, 0) + alpha
        for t, c in coefs.items():
            g[t] = g.get(t, 0) + alpha * c
            if t != key and g[t] != 0 and t in fixed_by and t not in seen:
                heapq.heappush(heap, (-fixed_by[t][0], t))
    assert all(a == 0 for a in g.values()), "back-substitution left a variable"  # noqa: S101
    return [(rows[ri].tag, Fraction(y)) for ri, y in sorted(lam.items()) if y != 0]


# -- the instance's rows ----------------------------------------------------------------------------

class Rows:
    """The rows of an instance (lists of Fractions X n x d, Y n x m) for one output-weight matrix U.

    >>> R = Rows([[Fraction(1, 2)]], [[Fraction(1)]], [[Fraction(1), Fraction(1)]])
    >>> R.sign_row(0, 1, True)
    ScaledRow(row=Row(tag=Tag(kind='sign', sample=0, index=1), coefs={(1, 0): -1}, rhs=0, is_eq=False), scale=Fraction(2, 1))
    >>> R.eq_row(0, 0, (True, False)) == ((("eq", 0, 0), {(0, 0): 1}, 2, True), 2)
    True
    >>> Rows([[Fraction(1, 2)]], [[Fraction(1)]], [[Fraction(1)]], offset=True).eq_row(0, 0, (False,)).row.coefs
    {('c', 0): 1}
    """

    def __init__(self, X, Y, U, *, like: "Rows | None" = None, offset: bool = False):
        self.X, self.Y, self.U, self.offset = X, Y, U, offset
        if like is not None and like.X is X and like.Y is Y:  # another U on the same data: share what U does not change
            self._for_u(U)
            self.order, self.supp, self.xint = like.order, like.supp, like.xint
            self.cache: dict = {}
            return
        self._for_u(U)
        #: samples with large labels first (their equations constrain most): the lazy engine's prefix order
        self.order = sorted(range(self.n), key=lambda j: (-max((abs(y) for y in Y[j]), default=0), j))
        self.supp = [tuple([t for t, x in enumerate(row) if x]) for row in X]
        self.xint = []
        for j in range(self.n):
            s = math.lcm(*(X[j][t].denominator for t in self.supp[j])) if self.supp[j] else 1
            self.xint.append((s, {t: int(X[j][t] * s) for t in self.supp[j]}))
        self.cache = {}

    def _for_u(self, U) -> None:
        X, Y = self.X, self.Y
        self.n, self.d, self.m, self.k = len(X), len(X[0]), len(Y[0]), len(U[0])
        self.rel = [i for i in range(self.k) if any(U[r][i] != 0 for r in range(self.m))]
        self._units = [[i for i in self.rel if U[r][i] != 0] for r in range(self.m)]
        self._mixed = [any(U[r][i] > 0 for i in us) and any(U[r][i] < 0 for i in us) for r, us in enumerate(self._units)]
        self.mixed = any(self._mixed)  # some output has units of both signs: half rows say more than nothing

    def lit(self, j: int, i: int) -> int:
        return j * self.k + i + 1

    def units(self, r: int):
        return self._units[r]

    def sign_row(self, j: int, i: int, active: bool) -> ScaledRow:
        """``-x_j . v_i <= 0`` (active) or ``x_j . v_i <= 0``, times the integer scale of x_j."""
        key = ("sign", j, i, active)
        hit = self.cache.get(key)
        if hit is None:
            s, xi = self.xint[j]
            c = -1 if active else 1
            hit = ScaledRow(Row(Tag("sign", j, i), {(i, t): c * a for t, a in xi.items()}, 0, False), Fraction(s))
            self.cache[key] = hit
        return hit

    def eq_row(self, j: int, r: int, acts: tuple[bool, ...]) -> ScaledRow:
        """``sum over active units i of U[r][i] x_j . v_i == Y[j][r]``, scaled to integers."""
        key = ("eq", j, r, acts)
        hit = self.cache.get(key)
        if hit is None:
            coefs = {}
            for i, a in zip(self.units(r), acts):
                if a:
                    for t in self.supp[j]:
                        coefs[(i, t)] = self.U[r][i] * self.X[j][t]
            if self.offset:
                coefs[("c", r)] = Fraction(1)
            y = self.Y[j][r]
            scale = math.lcm(y.denominator, *(c.denominator for c in coefs.values()))
            hit = ScaledRow(Row(Tag("eq", j, r), {key2: int(c * scale) for key2, c in coefs.items()}, int(y * scale), True),
                            Fraction(scale))
            self.cache[key] = hit
        return hit

    def half_row(self, j: int, r: int, sign: int, acts: tuple[bool, ...]) -> ScaledRow:
        """The units of one sign of output r on sample j, the others dropped (their part has the other sign):
        ``sum over active i with U[r][i] > 0 of U[r][i] x_j . v_i >= Y[j][r]`` (``sign`` 1, tag ``eq+``), or
        ``sum over active i with U[r][i] < 0 of ... <= Y[j][r]`` (``sign`` -1, tag ``eq-``), as ``<=`` rows
        scaled to integers. ``acts``: the activity of those units (:meth:`half_units`)."""
        key = ("half", j, r, sign, acts)
        hit = self.cache.get(key)
        if hit is None:
            coefs = {}
            for i, a in zip(self.half_units(r, sign), acts):
                if a:
                    for t in self.supp[j]:
                        coefs[(i, t)] = -sign * self.U[r][i] * self.X[j][t]
            if self.offset:
                coefs[("c", r)] = Fraction(-sign)
            y = -sign * self.Y[j][r]
            scale = math.lcm(y.denominator, *(c.denominator for c in coefs.values()))
            tag = Tag("eq+" if sign > 0 else "eq-", j, r)
            hit = ScaledRow(Row(tag, {key2: int(c * scale) for key2, c in coefs.items()}, int(y * scale), False),
                            Fraction(scale))
            self.cache[key] = hit
        return hit

    def half_units(self, r: int, sign: int) -> list[int]:
        """The units of output r whose weight has this sign."""
        return [i for i in self._units[r] if (self.U[r][i] > 0) == (sign > 0)]

    def half_rows(self, samples, active: dict) -> tuple[list[Row], dict]:
        """Sign rows and both half rows of every output with units of both signs (no equations)."""
        def outputs(j):
            for r in range(self.m):
                if self._mixed[r]:
                    for sign in (1, -1):
                        yield self.half_row(j, r, sign, tuple(active[(j, i)] for i in self.half_units(r, sign)))
        return self._sample_rows(samples, active, outputs)

    def rows(self, samples, active: dict) -> tuple[list[Row], dict]:
        """The rows of ``samples`` under ``active[(j, i)]``, with each row's scale (row = scale x original)."""
        def outputs(j):
            for r in range(self.m):
                yield self.eq_row(j, r, tuple(active[(j, i)] for i in self.units(r)))
        return self._sample_rows(samples, active, outputs)

    def _sample_rows(self, samples, active: dict, outputs) -> tuple[list[Row], dict]:
        """For each sample j: its sign rows, then ``outputs(j)``'s rows; with each row's scale."""
        rows, scales = [], {}
        for j in samples:
            for row, s in chain((self.sign_row(j, i, active[(j, i)]) for i in self.rel), outputs(j)):
                rows.append(row)
                scales[row.tag] = s
        return rows, scales

    def assumed(self, core, active) -> list:
        """The literals a core's rows depend on, sorted: ``[((j, i), active), ...]``."""
        assume = {}
        units = self._units
        for (kind, j, x), _ in core:
            us = (x,) if kind == "sign" else units[x] if kind == "eq" else self.half_units(x, 1 if kind == "eq+" else -1)
            for i in us:
                assume[(j, i)] = active[(j, i)]
        return sorted(assume.items())

    def lemma(self, core, scales, active):
        """A core on integer rows -> (assumed literals, Farkas rows on the original rows)."""
        farkas = [[kind, j, x, format_rational(y * scales[(kind, j, x)])] for (kind, j, x), y in core]
        return self.assumed(core, active), farkas
