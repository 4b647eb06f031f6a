"""The tree engine of :func:`exactrelu.decide.decide`: a case tree over activation patterns.

A node of the tree fixes, for some (sample j, unit i), whether unit i is active
(``v_i . x_j >= 0``, contributing ``v_i . x_j``) or inactive (``v_i . x_j <= 0``, contributing 0);
both cases cover every V, and on the kink they agree. Once every unit of sample j is fixed,
its labels give linear equations. Each node's system is linear in V: decided exactly by
:func:`exactrelu.exact.lp.feasible`. Search is depth first, with four savings:

1. a child that the parent's exact point still satisfies is feasible without an LP;
2. pairs are ordered so that equations close early (samples whose coordinates are already
   met first, then the coordinate that completes the most samples);
3. conflict-directed backjumping: a refutation only uses the splits that introduced its rows;
   if the split of the current node is not among them, the same refutation closes this node;
4. learning: each refuted subtree becomes a lemma (its decisions imply infeasibility) that
   closes, without an LP, any later branch repeating those decisions.

The refutation is the tree itself, with a Farkas vector or a learnt lemma at every leaf. Its rows
come from :class:`exactrelu.decide.search.rows.Rows`, laid out densely.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import flint

from ...errors import SearchLimit, TimeLimitExceeded
from ...exact.lp import feasible
from ...exact.matrix import QMatrix
from ...exact.rationals import format_rational
from ...instances import Instance
from .rows import Rows

__all__ = ["SearchLimit", "enumerate_leaves", "case_system"]  # SearchLimit: from errors.py, re-exported (0.1 path)


def _exact_rows(Q: QMatrix) -> list[list[Fraction]]:
    """Rows of Fractions (one shared zero: the reduction's instances are sparse)."""
    d, zero = int(Q.den), Fraction(0)
    return [[Fraction(int(x), d) if x else zero for x in row] for row in Q.num.tolist()]


# -- the search -----------------------------------------------------------------------------------

@dataclass
class _Open:
    point: list[Fraction]


@dataclass
class _Closed:
    tree: list  # preorder nodes
    conflict: frozenset  # split depths the refutation uses


class _Search:
    """Depth-first search over activation patterns for one fixed U (m x k, exact)."""

    def __init__(self, X, Y, U, *, method, max_nodes, collect_all=False):
        self.X, self.Y, self.U = X, Y, U
        self.n, self.d, self.m, self.k = len(X), len(X[0]), len(Y[0]), len(U[0])
        self.rows = Rows(X, Y, U)
        self.rel = self.rows.rel
        self.pos = {i: p for p, i in enumerate(self.rel)}
        self.nv = len(self.rel) * self.d
        self.method, self.max_nodes, self.collect_all = method, max_nodes, collect_all
        self.order = [(j, i) for j in _sample_order(X) for i in self.rel]
        self.decided: dict[tuple[int, int], tuple[bool, int]] = {}  # (j, i) -> (active, depth)
        self.nodes = self.lps = 0
        self.open_leaves: list[tuple[dict, list[Fraction]]] = []
        self.cache: dict = {}
        # lemmas (refuted subtrees with the decisions they use), watched by their last decision
        self.learn = not collect_all
        self.lemmas: list[dict] = []
        self.watch: dict[tuple, list] = {}
        self.lemma_hits = 0
        self.deadline: float | None = None
        # the rows of the current node (ids), kept as stacks; rowdata holds their integer form
        self.rowdata: dict = {}
        self.E = [("eq", j, r) for j in range(self.n) for r in range(self.m)
                  if not any(U[r][i] != 0 for i in range(self.k))]
        self.B: list = []
        for row in self.E:
            self.rowdata[row] = self._int_coeffs(row)

    # rows of a node: ("eq", j, r) and ("sign", j, i), kept as integer rows times a positive scale
    def _eq_ready(self, j, r):
        return all((j, i) in self.decided for i in self.rel if self.U[r][i] != 0)

    def _scan_rows(self):
        """The rows of the node given by ``self.decided`` (found by scanning; for :func:`case_system`)."""
        eqs, ubs = [], []
        for j in range(self.n):
            for r in range(self.m):
                if self._eq_ready(j, r):
                    eqs.append(("eq", j, r))
        for (j, i) in self.decided:
            ubs.append(("sign", j, i))
        return eqs, ubs

    def _int_coeffs(self, row):
        """(integer coefficients, integer rhs, scale, support): the row times ``scale`` > 0, dense.

        The rows themselves come from :class:`~exactrelu.decide.search.rows.Rows`, shared with the lazy
        engine; here they are laid out densely over the variables of the relevant units.
        """
        hit = self.rowdata.get(row)
        if hit is not None:
            return hit
        kind, j, x = row
        if kind == "sign":
            key = (kind, j, x, self.decided[(j, x)][0])
        else:
            key = (kind, j, x, tuple(self.decided[(j, i)][0] for i in self.rows.units(x)))
        hit = self.cache.get(key)
        if hit is None:
            row, scale = self.rows.sign_row(j, x, key[3]) if kind == "sign" else self.rows.eq_row(j, x, key[3])
            coefs, rhs = row.coefs, row.rhs
            ci = [0] * self.nv
            for (i, t), a in coefs.items():
                ci[self.pos[i] * self.d + t] = a
            hit = (ci, rhs, scale, frozenset(t for t, a in enumerate(ci) if a))
            self.cache[key] = hit
        return hit

    def _coeffs(self, row):
        """The row as it reads in the certificate: (rational coefficients, rational rhs)."""
        ci, rhs, scale, _ = self._int_coeffs(row)
        return [Fraction(a) / scale for a in ci], Fraction(rhs) / scale

    def _deps(self, row):
        kind, j, x = row
        if kind == "sign":
            return {self.decided[(j, x)][1]}
        return {self.decided[(j, i)][1] for i in self.rel if self.U[x][i] != 0}

    def _satisfies(self, point, rows):
        for row in rows:
            c, b, _, _ = self._int_coeffs(row)
            lhs = sum(a * p for a, p in zip(c, point) if a)
            if (lhs != b) if row[0] == "eq" else (lhs > b):
                return False
        return True

    def _solve(self, eqs, ubs, cols, fixed=None):
        """LP on the rows ``eqs``/``ubs`` restricted to variables ``cols`` (others fixed at ``fixed``)."""
        E = [self._int_coeffs(r) for r in eqs]
        B = [self._int_coeffs(r) for r in ubs]
        nv = len(cols)

        def mats(rows):
            if not rows:
                return None, None
            rhs = [b - (sum(c[t] * fixed[t] for t in sup if t not in colset) if fixed is not None else 0)
                   for c, b, _, sup in rows]
            den = math.lcm(*(x.denominator for x in rhs)) if fixed is not None else 1
            A = (QMatrix(flint.fmpz_mat(len(rows), nv, [c[t] * den for c, _, _, _ in rows for t in cols]), 1)
                 if nv else [[]] * len(rows))
            return A, QMatrix(flint.fmpz_mat(len(rows), 1, [int(x * den) for x in rhs]), 1)

        colset = set(cols)
        Ae, be = mats(E)
        Au, bu = mats(B)
        self.lps += 1
        # small systems: the exact simplex outright (measured faster than HiGHS + exact confirmation)
        method = "exact" if nv <= 8 else self.method
        res = feasible(Ae, be, Au, bu, nvars=nv, method=method)
        if res.status == "feasible":
            return res.point, None
        ye, yu = res.farkas
        used = [(r, y * sc) for r, y, (_, _, sc, _) in zip(eqs, ye, E) if y != 0]
        used += [(r, y * sc) for r, y, (_, _, sc, _) in zip(ubs, yu, B) if y != 0]
        return None, used

    def _lp(self, parent=None, new_rows=()):
        """Decide the node: repair the parent's point locally, refute locally, else one full LP."""
        eqs, ubs = self.E, self.B
        if parent is not None and new_rows:
            data = self.rowdata
            sup = lambda r: data[r][3]  # noqa: E731
            S0 = frozenset().union(*(sup(r) for r in new_rows))
            touch_e = [r for r in eqs if sup(r) & S0]
            touch_u = [r for r in ubs if sup(r) & S0]
            S = sorted(S0.union(*(sup(r) for r in touch_e + touch_u)))
            if len(S) < self.nv:
                Sset = set(S)
                te = [r for r in eqs if sup(r) & Sset or r in new_rows]
                tu = [r for r in ubs if sup(r) & Sset or r in new_rows]
                pt, _ = self._solve(te, tu, S, fixed=parent)
                if pt is not None:
                    point = list(parent)
                    for t, v in zip(S, pt):
                        point[t] = v
                    return point, None
                inner_e = [r for r in te if sup(r) <= Sset]
                inner_u = [r for r in tu if sup(r) <= Sset]
                pt, used = self._solve(inner_e, inner_u, S)
                if pt is None:
                    return None, used
        return self._solve(eqs, ubs, list(range(self.nv)))

    def _new_rows(self, j, i):
        rows = [("sign", j, i)]
        for r in range(self.m):
            if self.U[r][i] != 0 and self._eq_ready(j, r):
                rows.append(("eq", j, r))
        return rows

    def run(self, depth=0, point=None, parent=None, new_rows=()):
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise SearchLimit(f"the search visited more than {self.max_nodes} nodes without deciding")
        if self.deadline is not None and self.nodes % 64 == 0 and time.monotonic() > self.deadline:
            raise TimeLimitExceeded("the search ran out of its time limit without deciding")
        if point is None:
            point, used = self._lp(parent, new_rows)
            if point is None:
                conflict = frozenset().union(*(self._deps(r) for r, _ in used)) if used else frozenset()
                leaf = {"farkas": [[r[0], r[1], r[2], format_rational(y)] for r, y in used]}
                return self._learn([leaf], conflict)
        if depth == len(self.order):
            if self.collect_all:  # an open leaf in the tree; no backjumping over it
                self.open_leaves.append((dict(self.decided), point))
                return _Closed([{"open": len(self.open_leaves) - 1}], frozenset(range(depth)))
            return _Open(point)
        j, i = self.order[depth]
        o = self.pos[i] * self.d
        val = sum(p * xt for p, xt in zip(point[o:o + self.d], self.X[j]) if xt)
        children = {}
        for active in ((val >= 0, val < 0) if val != 0 else (True, False)):
            self.decided[(j, i)] = (active, depth)
            res = self._lemma_hit(j, i, active)
            if res is None:
                new = self._new_rows(j, i)
                ne, nb = len(self.E), len(self.B)
                for row in new:
                    self.rowdata[row] = self._int_coeffs(row)
                    (self.E if row[0] == "eq" else self.B).append(row)
                keep = point if self._satisfies(point, new) else None
                try:
                    res = self.run(depth + 1, keep, point, new)
                finally:
                    for row in new:
                        del self.rowdata[row]
                    del self.E[ne:], self.B[nb:]
            del self.decided[(j, i)]
            if isinstance(res, _Open):
                return res
            if depth not in res.conflict and not self.collect_all:
                return res  # backjump: the refutation does not use this split
            children[active] = res
        tree = [{"split": [j, i]}] + children[True].tree + children[False].tree
        return self._learn(tree, (children[True].conflict | children[False].conflict) - {depth})

    def _learn(self, tree, conflict):
        """Record a refuted subtree as a lemma: its conflict's decisions imply infeasibility."""
        if not self.learn:
            return _Closed(tree, conflict)
        lits = [[*self.order[t], self.decided[self.order[t]][0]] for t in sorted(conflict)]
        lid = len(self.lemmas)
        self.lemmas.append({"assume": lits, "tree": tree})
        if lits:  # watched by its last decision in the (static) order
            self.watch.setdefault(tuple(lits[-1]), []).append((lid, lits))
        return _Closed([{"lemma": lid}], conflict)

    def _lemma_hit(self, j, i, active):
        """A recorded lemma whose decisions all hold now, as a closed leaf (no LP needed)."""
        for lid, lits in self.watch.get((j, i, active), ()):
            if all(self.decided.get((a, b), (None,))[0] == act for a, b, act in lits):
                self.lemma_hits += 1
                return _Closed([{"lemma": lid}], frozenset(self.decided[(a, b)][1] for a, b, _ in lits))
        return None


def _sample_order(X) -> list[int]:
    """Samples ordered so that equations close early (see the module docstring)."""
    n, d = len(X), len(X[0])
    supp = [frozenset(t for t in range(d) if X[j][t] != 0) for j in range(n)]
    covered: set[int] = set()
    left = set(range(n))
    order = []
    while left:
        ready = sorted((j for j in left if supp[j] <= covered), key=lambda j: (len(supp[j]), j))
        if ready:
            order += ready
            left -= set(ready)
            continue
        count: dict[int, int] = {}
        for j in left:
            new = supp[j] - covered
            if len(new) == 1:
                t = next(iter(new))
                count[t] = count.get(t, 0) + 1
        if count:
            t = min(count, key=lambda t: (-count[t], t))
        else:
            t = min(min(supp[j] - covered) for j in left)
        covered.add(t)
    return order


def enumerate_leaves(instance: Instance, U, *, method: str = "auto"):
    """Every activation pattern of ``instance`` with U given, as one case tree (used by proofs/).

    Returns ``(tree, open_leaves, search)``: the preorder tree (as in the ``not-realizable``
    certificate) in which a full pattern whose system is feasible is a leaf ``{"open": t}``;
    ``open_leaves[t]`` is ``(decided, point)`` with ``decided`` mapping (j, i) to (active, depth)
    and an exact feasible point. Every other leaf carries a Farkas vector. No backjumping.
    """
    Uq = QMatrix.coerce(U, name="U")
    X, Y = _exact_rows(instance.inputs), _exact_rows(instance.labels)
    s = _Search(X, Y, Uq.to_fractions(), method=method, max_nodes=None, collect_all=True)
    return s.run().tree, s.open_leaves, s


def case_system(s: _Search, decided: dict):
    """The exact system (eq rows, ub rows with coefficients) of one pattern of a search ``s``."""
    saved, data = s.decided, s.rowdata
    s.decided, s.rowdata = decided, {}
    try:
        eqs, ubs = s._scan_rows()
        return [s._coeffs(r) for r in eqs], [s._coeffs(r) for r in ubs]
    finally:
        s.decided, s.rowdata = saved, data
