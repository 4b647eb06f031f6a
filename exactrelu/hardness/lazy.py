"""Lazy clause generation: a CDCL SAT solver over activation literals, exact LP as the theory.

This is the default engine of :func:`exactrelu.hardness.decide.decide`. The Boolean variable of
the pair (sample j, unit i) says "unit i is active on sample j" (``v_i . x_j >= 0``); its negation
"inactive" (``v_i . x_j <= 0``). Every V falls in the region of at least one full assignment, and
inside a region the instance's equations are linear in V. So:

1. **Eager lemmas.** Every sample alone: each of its 2^k activation patterns is an exact LP; the
   infeasible ones become clauses (a sample with label 1 and U = [1, 1] cannot have both units
   inactive). Samples with the same data share one LP.
2. **Lazy lemmas.** A SAT solver (CaDiCaL through python-sat) proposes a full assignment. Small
   *clusters* -- the samples whose support lies in one sample's support -- are checked first
   (clusters with equal data share a cache), then the whole system. A refuted system yields a
   Farkas vector; the literals its rows depend on form a lemma, whose negation is a clause
   handed back to the solver. Exact constraint propagation (equations with one unknown fix it)
   runs before every LP and explains each violated row by back-substitution, so one model
   usually yields many small lemmas at once.
3. **Answer.** A model whose whole system is feasible gives exact weights (``realizes``). An
   unsatisfiable clause set is re-solved once by a proof-logging solver: its DRUP proof, with
   the lemmas (each with its Farkas vector), is the ``not-realizable`` certificate the stdlib
   checker replays by unit propagation (docs/certificates.md).

Symmetry: units whose output-weight columns are equal can be permuted without changing the
network, so on one chosen sample they are taken sorted, active first; the certificate states
this and the checker verifies the columns are equal.

>>> from exactrelu.hardness import NAEFormula, NaeToRelu
>>> inst, _ = NaeToRelu().apply(NAEFormula(3, [(1, 2, 3), (-1, -2, -3)]))
>>> from fractions import Fraction
>>> X, Y = inst.inputs.to_fractions(), inst.labels.to_fractions()
>>> out = solve_case(X, Y, [[Fraction(1), Fraction(1)]])
>>> out.status, out.stats["rounds"] >= 1
('realizable', True)
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint

from ..errors import ExactReluError
from ..exact.lp import feasible
from ..exact.matrix import QMatrix
from ..exact.rationals import format_rational

__all__ = ["solve_case", "CaseResult", "decide_rows", "RoundLimit"]

#: clusters: supports of at most this many coordinates, with at most this many samples
CLUSTER_SUPPORT = 6
CLUSTER_SAMPLES = 40
#: cores taken from one propagation pass (each violated row gives one)
MAX_CORES = 256
#: clusters with at most this many literals (samples x units) are compiled before the search,
#: with at most this many case-tree nodes per shape; the others are checked lazily
EAGER_LITERALS = 16
EAGER_NODES = 20000
#: with a time limit, the SAT solver runs in slices of this many conflicts
CONFLICT_SLICE = 20000


# -- one exact system: propagation, then an LP on what is left ------------------------------------

def decide_rows(rows, *, method: str = "auto", max_cores: int = MAX_CORES):
    """Decide ``{v : rows}`` exactly; explain infeasibility by Farkas vectors.

    ``rows`` is a list of ``(tag, coefs, rhs, is_eq)``: ``coefs`` maps a variable key to an
    integer, ``rhs`` is an integer, and the row reads ``coefs . v == rhs`` (``is_eq``) or
    ``coefs . v <= rhs``. Returns ``(point, [])`` with ``point`` a dict key -> Fraction satisfying
    every row (keys not present are 0), or ``(None, cores)``: each core a list of ``(tag, y)``
    with ``y`` a rational multiplier (``y >= 0`` on inequalities) such that the combination reads
    ``0 <= negative`` (or ``0 == non-zero``).

    Equations with one unknown left fix it (exactly) and every row whose unknowns are all fixed
    is checked; a violated row is explained by substituting back the equations that fixed its
    variables, so it is its own small core. What propagation leaves is one exact LP.

    >>> decide_rows([("a", {"x": 1}, 1, True), ("b", {"x": 1}, 0, False)])[1]
    [[('a', Fraction(-1, 1)), ('b', Fraction(1, 1))]]
    >>> decide_rows([("a", {"x": 1, "y": 1}, 1, True), ("b", {"x": -1}, 0, False)])[0]
    {'x': Fraction(0, 1), 'y': Fraction(1, 1)}
    """
    nrows = len(rows)
    left = [len(r[1]) for r in rows]
    rows_of: dict = {}
    for ri, (_, coefs, _, _) in enumerate(rows):
        for key in coefs:
            rows_of.setdefault(key, []).append(ri)
    val: dict = {}
    fixed_by: dict = {}  # key -> (rank in fixing order, row index)
    queue = [ri for ri in range(nrows) if left[ri] == 0 or (left[ri] == 1 and rows[ri][3])]
    violated: list[tuple[int, int]] = []
    checked = bytearray(nrows)

    def check(ri):
        if checked[ri]:
            return
        checked[ri] = 1
        _, coefs, rhs, is_eq = rows[ri]
        s = sum(a * val[key] for key, a in coefs.items()) - rhs
        if (s != 0) if is_eq else (s > 0):
            violated.append((ri, 1 if s > 0 else -1))

    qi = 0
    while qi < len(queue) and len(violated) < max_cores:
        ri = queue[qi]
        qi += 1
        if left[ri] == 0:
            check(ri)
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
        fixed_by[key] = (len(fixed_by), ri)
        checked[ri] = 1
        for rj in rows_of[key]:
            left[rj] -= 1
            if left[rj] == 0:
                check(rj)
            elif left[rj] == 1 and rows[rj][3]:
                queue.append(rj)
    if violated:
        return None, [_explain(rows, {ri: Fraction(sign)}, fixed_by) for ri, sign in violated]
    residual = [ri for ri in range(nrows) if left[ri] > 0]
    point = dict(val)
    if not residual:
        return point, []
    cols = sorted({key for ri in residual for key in rows[ri][1] if key not in val}, key=repr)
    index = {key: c for c, key in enumerate(cols)}
    blocks = {True: ([], [], []), False: ([], [], [])}  # entries, rhs, (row, scale)
    for ri in residual:
        _, coefs, rhs, is_eq = rows[ri]
        b = Fraction(rhs) - sum(a * val[key] for key, a in coefs.items() if key in val)
        den = b.denominator
        line = [0] * len(cols)
        for key, a in coefs.items():
            if key not in val:
                line[index[key]] = a * den
        ent, rh, meta = blocks[is_eq]
        ent.extend(line)
        rh.append(b.numerator)
        meta.append((ri, den))
    mats = {}
    for is_eq, (ent, rh, meta) in blocks.items():
        if meta:
            mats[is_eq] = (QMatrix(flint.fmpz_mat(len(meta), len(cols), ent), 1), QMatrix(flint.fmpz_mat(len(meta), 1, rh), 1))
        else:
            mats[is_eq] = (None, None)
    res = feasible(*mats[True], *mats[False], nvars=len(cols), method="exact" if len(cols) <= 8 else method)
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
    return None, [_explain(rows, lam, fixed_by)]


def _explain(rows, lam: dict, fixed_by: dict):
    """Cancel the fixed variables of a combination by the equations that fixed them (newest first)."""
    lam = dict(lam)
    g: dict = {}
    for ri, y in lam.items():
        for key, a in rows[ri][1].items():
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
        coefs = rows[e][1]
        alpha = -Fraction(a) / coefs[key]
        lam[e] = lam.get(e, 0) + alpha
        for t, c in coefs.items():
            g[t] = g.get(t, 0) + alpha * c
            if t != key and g[t] != 0 and t in fixed_by and t not in seen:
                heapq.heappush(heap, (-fixed_by[t][0], t))
    assert all(a == 0 for a in g.values()), "back-substitution left a variable"  # noqa: S101
    return [(rows[ri][0], Fraction(y)) for ri, y in sorted(lam.items()) if y != 0]


# -- the instance's rows ----------------------------------------------------------------------------

class _Rows:
    """The rows of the instance for one output-weight matrix U, as integer sparse rows."""

    def __init__(self, X, Y, U):
        self.X, self.Y, self.U = X, Y, U
        self.n, self.d, self.m, self.k = len(X), len(X[0]), len(Y[0]), len(U[0])
        self.rel = [i for i in range(self.k) if any(U[r][i] != 0 for r in range(self.m))]
        self.supp = [tuple(t for t in range(self.d) if X[j][t] != 0) for j in range(self.n)]
        self.xint = []
        for j in range(self.n):
            s = math.lcm(*(X[j][t].denominator for t in self.supp[j])) if self.supp[j] else 1
            self.xint.append((s, {t: int(X[j][t] * s) for t in self.supp[j]}))
        self.cache: dict = {}

    def lit(self, j: int, i: int) -> int:
        return j * self.k + i + 1

    def units(self, r: int):
        return [i for i in self.rel if self.U[r][i] != 0]

    def sign_row(self, j, i, active):
        """``-x_j . v_i <= 0`` (active) or ``x_j . v_i <= 0``, times the integer scale of x_j."""
        key = ("sign", j, i, active)
        hit = self.cache.get(key)
        if hit is None:
            s, xi = self.xint[j]
            c = -1 if active else 1
            hit = (("sign", j, i), {(i, t): c * a for t, a in xi.items()}, 0, False), Fraction(s)
            self.cache[key] = hit
        return hit

    def eq_row(self, j, r, acts):
        """``sum over active units i of U[r][i] x_j . v_i == Y[j][r]``, scaled to integers."""
        key = ("eq", j, r, acts)
        hit = self.cache.get(key)
        if hit is None:
            coefs = {}
            for i, a in zip(self.units(r), acts):
                if a:
                    for t in self.supp[j]:
                        coefs[(i, t)] = self.U[r][i] * self.X[j][t]
            y = self.Y[j][r]
            scale = math.lcm(y.denominator, *(c.denominator for c in coefs.values()))
            hit = (("eq", j, r), {key2: int(c * scale) for key2, c in coefs.items()}, int(y * scale), True), Fraction(scale)
            self.cache[key] = hit
        return hit

    def rows(self, samples, active):
        """The rows of ``samples`` under ``active[(j, i)]``, with each row's scale (row = scale x original)."""
        rows, scales = [], {}
        for j in samples:
            for i in self.rel:
                row, s = self.sign_row(j, i, active[(j, i)])
                rows.append(row)
                scales[row[0]] = s
            for r in range(self.m):
                row, s = self.eq_row(j, r, tuple(active[(j, i)] for i in self.units(r)))
                rows.append(row)
                scales[row[0]] = s
        return rows, scales

    def lemma(self, core, scales, active):
        """A core on integer rows -> (assumed literals, Farkas rows on the original rows)."""
        assume = {}
        farkas = []
        for tag, y in core:
            kind, j, x = tag
            farkas.append([kind, j, x, format_rational(y * scales[tag])])
            for i in ([x] if kind == "sign" else self.units(x)):
                assume[(j, i)] = active[(j, i)]
        return sorted(assume.items()), farkas


# -- clusters -----------------------------------------------------------------------------------------

@dataclass
class _Cluster:
    members: list  # sample indices, in canonical order
    shape: int  # id of the data up to relabelling (clusters with equal shape share LP answers)


def _clusters(R: _Rows) -> list[_Cluster]:
    """Samples whose support lies inside one sample's support (small supports only)."""
    by_supp: dict = {}
    for j, s in enumerate(R.supp):
        by_supp.setdefault(s, []).append(j)
    shapes: dict = {}
    out = []
    for S in by_supp:
        if not (0 < len(S) <= CLUSTER_SUPPORT):
            continue
        members = []
        for size in range(len(S) + 1):
            for sub in itertools.combinations(S, size):
                members += by_supp.get(sub, [])
        if len(members) > CLUSTER_SAMPLES or (len(members) == R.n and R.n > 1):
            continue
        pos = {t: p for p, t in enumerate(S)}
        data = {j: (tuple(sorted((pos[t], R.X[j][t]) for t in R.supp[j])), tuple(R.Y[j])) for j in members}
        members.sort(key=lambda j: (data[j], j))
        key = (len(S), tuple(data[j] for j in members))
        out.append(_Cluster(members, shapes.setdefault(key, len(shapes))))
    return out


def _singletons(R: _Rows, covered: set) -> list[_Cluster]:
    """Each sample not inside a cluster, alone (samples with equal data share a shape)."""
    shapes: dict = {}
    out = []
    for j in range(R.n):
        if j not in covered:
            key = (tuple(R.X[j][t] for t in R.supp[j]), len(R.supp[j]), tuple(R.Y[j]))
            out.append(_Cluster([j], shapes.setdefault(key, -1 - len(shapes))))
    return out


def _compile(R: _Rows, members: list, method: str, stats: dict, max_nodes: int):
    """Every activation pattern of a few samples, by a small exact case tree with backjumping.

    Returns the refutations found at its leaves, each ``(core, assumed)`` by member position:
    ``core`` a list of ``((kind, position, index), y)`` on original rows, ``assumed`` the literal
    values ``{(position, unit): active}`` its rows depend on. Every infeasible pattern of the
    samples contains one of them. Returns None past ``max_nodes`` nodes (the cluster stays lazy).
    """
    pos = {j: p for p, j in enumerate(members)}
    # samples with small supports first: their equations fix coordinates the larger ones then reuse
    order = [(j, i) for j in sorted(members, key=lambda j: (len(R.supp[j]), pos[j])) for i in R.rel]
    assign: dict = {}
    out: list = []
    nodes = [0]

    def new_rows(j, i):
        rows = [R.sign_row(j, i, assign[(j, i)])]
        for r in range(R.m):
            us = R.units(r)
            if i in us and all((j, u) in assign for u in us):
                rows.append(R.eq_row(j, r, tuple(assign[(j, u)] for u in us)))
        return rows

    def holds(point, rows):
        for (_, coefs, rhs, is_eq), _ in rows:
            lhs = sum(a * point.get(key, 0) for key, a in coefs.items())
            if (lhs != rhs) if is_eq else (lhs > rhs):
                return False
        return True

    def dfs(depth, point, rows):
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise _TooBig
        if point is None:
            stats["lps"] += 1
            point, cores = decide_rows([row for row, _ in rows], method=method)
            if point is None:
                scales = {row[0]: sc for row, sc in rows}
                core = min(cores, key=len)
                used = {(t[1], t[2]) if t[0] == "sign" else None for t, _ in core} - {None}
                used |= {(t[1], u) for t, _ in core if t[0] == "eq" for u in R.units(t[2])}
                out.append(([((t[0], pos[t[1]], t[2]), y * scales[t]) for t, y in core],
                            {(pos[j], i): assign[(j, i)] for j, i in used}))
                return used
        if depth == len(order):
            return None
        j, i = order[depth]
        conflict: set | None = set()
        for a in (True, False):
            assign[(j, i)] = a
            add = new_rows(j, i)
            res = dfs(depth + 1, point if holds(point, add) else None, rows + add)
            del assign[(j, i)]
            if res is not None and (j, i) not in res:
                return res  # the sibling falls to the same refutation
            conflict = None if res is None or conflict is None else conflict | (res - {(j, i)})
        return conflict

    try:
        dfs(0, {}, [])
    except _TooBig:
        return None
    return out


class _TooBig(Exception):
    pass


# -- the CEGAR loop ----------------------------------------------------------------------------------

@dataclass
class CaseResult:
    """Outcome of :func:`solve_case` for one output-weight matrix."""

    status: str  # "realizable" | "not-realizable"
    V: list | None = None  # k x d Fractions (realizable)
    lemmas: list = field(default_factory=list)  # [{"assume": ..., "tree": [{"farkas": ...}]}]
    symmetry: dict | None = None
    rup: list = field(default_factory=list)  # DRUP steps: [lits...] or ["d", lits...]
    stats: dict = field(default_factory=dict)


class RoundLimit(ExactReluError):
    """The lazy search met its round or time limit (:func:`decide` turns it into ``SearchLimit``)."""


def _symmetry(R: _Rows):
    """Classes of units with equal output-weight columns (size >= 2), and a sample to sort them on."""
    cols: dict = {}
    for i in R.rel:
        cols.setdefault(tuple(R.U[r][i] for r in range(R.m)), []).append(i)
    classes = [c for c in cols.values() if len(c) > 1]
    if not classes:
        return None
    j0 = next((j for j in range(R.n) if R.supp[j]), None)
    if j0 is None:
        return None
    return {"sample": j0, "classes": classes}


def _symmetry_clauses(R: _Rows, sym) -> list[list[int]]:
    j0 = sym["sample"]
    return [[R.lit(j0, a), -R.lit(j0, b)] for cls in sym["classes"] for a, b in zip(cls, cls[1:])]


def solve_case(X, Y, U, *, method: str = "auto", deadline: float | None = None, solver: str = "cadical195",
               max_rounds: int | None = None, symmetry: bool = True, progress=None) -> CaseResult:
    """Decide one output-weight case exactly (lists of Fractions: X n x d, Y n x m, U m x k).

    Raises :class:`RoundLimit` when ``deadline`` (a ``time.monotonic()`` value) passes or after
    ``max_rounds`` solver rounds. See the module docstring for the method.
    """
    from pysat.solvers import Solver

    R = _Rows(X, Y, U)
    stats = {"rounds": 0, "lps": 0, "lemmas": 0, "cluster_hits": 0}
    lemmas: list = []
    seen: set = set()
    clauses: list[list[int]] = []

    def add(core, scales, active):
        assume, farkas = R.lemma(core, scales, active)
        clause = tuple(sorted(-R.lit(j, i) if a else R.lit(j, i) for (j, i), a in assume))
        if clause in seen:
            return None
        seen.add(clause)
        lemmas.append({"assume": [[j, i, a] for (j, i), a in assume], "tree": [{"farkas": farkas}]})
        clauses.append(list(clause))
        return list(clause)

    # 1. eager: every activation pattern of each small cluster (and of each other sample alone),
    #    once per shape; their refutations are clauses before the solver starts
    compiled: dict = {}
    lazy: list = []
    covered: set = set()

    def eager(c):
        if c.shape not in compiled:
            small = len(c.members) * len(R.rel) <= EAGER_LITERALS
            compiled[c.shape] = _compile(R, c.members, method, stats, EAGER_NODES) if small else None
        done = compiled[c.shape]
        if done is None:
            lazy.append(c)
            return
        covered.update(c.members)
        for core, assumed in done:
            moved = [((t[0], c.members[t[1]], t[2]), y) for t, y in core]
            add(moved, _ones(moved), {(c.members[p], i): a for (p, i), a in assumed.items()})

    for c in _clusters(R):
        eager(c)
    for c in _singletons(R, covered):
        eager(c)
    clusters = [c for c in lazy if len(c.members) > 1]
    stats["clusters"] = len(clusters)
    stats["shapes_compiled"] = sum(v is not None for v in compiled.values())
    sym = _symmetry(R) if symmetry else None
    sym_clauses = _symmetry_clauses(R, sym) if sym else []
    cache: dict = {}
    with Solver(name=solver, bootstrap_with=clauses + sym_clauses) as sat:
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise RoundLimit("ran out of its time limit")
            if max_rounds is not None and stats["rounds"] >= max_rounds:
                raise RoundLimit(f"used its {max_rounds} solver rounds")
            stats["rounds"] += 1
            stats["lemmas"] = len(lemmas)
            if progress is not None:
                progress(stats)
            if not _solve(sat, deadline):
                break
            model = sat.get_model()
            truth = bytearray(R.n * R.k + 1)
            for v in model:
                if 0 < v <= R.n * R.k:
                    truth[v] = 1
            active = {(j, i): bool(truth[R.lit(j, i)]) for j in range(R.n) for i in R.rel}
            new = []
            for c in clusters:
                pattern = tuple(active[(j, i)] for j in c.members for i in R.rel)
                key = (c.shape, pattern)
                res = cache.get(key)
                if res is None:
                    rows, scales = R.rows(c.members, active)
                    stats["lps"] += 1
                    _, cores = decide_rows(rows, method=method)
                    pos = {j: p for p, j in enumerate(c.members)}
                    # stored by position and on original rows (multiplier x scale)
                    res = [[((t[0], pos[t[1]], t[2]), y * scales[t]) for t, y in core] for core in cores]
                    cache[key] = res
                else:
                    stats["cluster_hits"] += 1
                for core in res:
                    moved = [((t[0], c.members[t[1]], t[2]), y) for t, y in core]
                    cl = add(moved, _ones(moved), active)
                    if cl is not None:
                        new.append(cl)
            if not new:
                rows, scales = R.rows(range(R.n), active)
                stats["lps"] += 1
                point, cores = decide_rows(rows, method=method)
                if point is not None:
                    V = [[Fraction(point.get((i, t), 0)) for t in range(R.d)] if i in R.rel else [Fraction(0)] * R.d
                         for i in range(R.k)]
                    stats["lemmas"] = len(lemmas)
                    return CaseResult("realizable", V=V, stats=stats)
                for core in cores:
                    cl = add(core, scales, active)
                    if cl is not None:
                        new.append(cl)
                if not new:  # pragma: no cover - a refuted model always yields a clause it violates
                    raise AssertionError("a refutation gave no new clause")
            for cl in new:
                sat.add_clause(cl)
    stats["lemmas"] = len(lemmas)
    if deadline is not None and time.monotonic() > deadline:
        raise RoundLimit("ran out of its time limit")
    # all lemmas go into the certificate: trimming them to an unsatisfiable core (MiniSat with one
    # selector per lemma) cost 72 s at N = 250 and made the proof no cheaper to replay
    rup = _proof(clauses + sym_clauses, deadline)
    stats["proof_steps"] = len(rup)
    return CaseResult("not-realizable", lemmas=lemmas, symmetry=sym, rup=rup, stats=stats)


def _ones(core):
    return {tag: Fraction(1) for tag, _ in core}


def _solve(sat, deadline) -> bool:
    """``sat.solve()``, in slices of conflicts until ``deadline`` (then :class:`RoundLimit`).

    CaDiCaL cannot be interrupted through python-sat, but it keeps what it learnt between
    budget-limited calls, so slicing costs little.
    """
    if deadline is None:
        return sat.solve()
    while True:
        if time.monotonic() > deadline:
            raise RoundLimit("ran out of its time limit")
        sat.conf_budget(CONFLICT_SLICE)
        res = sat.solve_limited()
        if res is not None:
            return res


def _proof(clauses, deadline=None) -> list:
    """A DRUP refutation of ``clauses`` from a proof-logging solver, as lists of ints."""
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
        if _solve(s, deadline):  # pragma: no cover
            raise AssertionError("the lemma clauses are satisfiable")
        lines = s.get_proof() or []
    out = []
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "d":
            out.append(["d", *map(int, parts[1:-1])])
        else:
            out.append(list(map(int, parts[:-1])))
    if not out or out[-1] != []:
        out.append([])
    return out
