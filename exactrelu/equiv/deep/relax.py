"""Bounds over a whole subtree: one *relaxed leaf* closes a node of the box search instead of its case split.

At a node, every neuron the targets read and the path leaves undecided is *relaxed*: its output y = relu(z) is only
known to lie between the lower rows ``y >= 0``, ``y >= z`` and an upper line ``y <= s z + t`` above relu on an
interval ``[l, U]`` of z established on the node (the triangle relaxation: ``s = U / (U - l)``, ``t = -s l``; s = 1,
t = 0 when l >= 0; s = t = 0 when U <= 0). Bounds are found layer by layer by CROWN-style back-substitution in floats
(each neuron's bounds from the relaxations of the neurons below it, down to the box): a proposal. When it shows every
output within epsilon on the node, the same multipliers are made exact: rounded to dyadic rationals, their sum
computed exactly, and what is left of the coefficients absorbed exactly by rows of one variable (the box's rows
for an input, ``-y <= 0`` or ``y <= relu(U)`` for a neuron); each bound is then what its exact combination proves,
rounded outward to a short dyadic. The certificate is the checker's relaxed leaf (:mod:`exactrelu.certificates.
trusted.phases`, "Relaxed leaves"): the chain of bounds in order, then a bounds leaf citing the chain's rows.

>>> from exactrelu.network import Network
>>> from exactrelu.equiv.deep import deep_equivalence
>>> f = Network.from_layers([([[1], [-1]], [0, 0]), ([[1, 1]], None), ([[1]], None)])      # |x|
>>> g = Network.from_layers([([[1], [-1]], ["1/8", "1/8"]), ([[1, 1]], None), ([[1]], None)])
>>> res = deep_equivalence(f, g, lower=[-1], upper=[1], epsilon=2)                  # max |f - g| = 1/4
>>> res.status, res.stats["nodes"], list(res.tree[0])
('equivalent', 1, ['relaxed'])
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...exact.rationals import format_rational

__all__ = ["relaxed_leaf", "dyadic", "outward"]

_ZERO = Fraction(0)


def dyadic(x: float, bits: int = 32) -> Fraction:
    """``x`` rounded to a dyadic rational of ``bits`` significant bits (exact for 0).

    >>> dyadic(0.1, 8)
    Fraction(205, 2048)
    """
    if not x:
        return _ZERO
    m, e = math.frexp(x)
    return Fraction(round(m * 2**bits)) * Fraction(2) ** (e - bits)


def outward(q: Fraction, up: bool, bits: int = 32) -> Fraction:
    """A dyadic rational of about ``bits`` significant bits, >= q (``up``) or <= q.

    >>> outward(Fraction(1, 3), True, 4), outward(Fraction(1, 3), False, 4)
    (Fraction(11, 32), Fraction(5, 16))
    """
    if not q:
        return q
    shift = bits - (abs(q.numerator).bit_length() - q.denominator.bit_length())
    scale = Fraction(2) ** shift
    return Fraction(math.ceil(q * scale) if up else math.floor(q * scale)) / scale


class _Relaxation:
    """The undecided neurons a node's targets read (``order``: by level, then index), their substituted forms,
    and the float matrices of the back-substitution."""

    def __init__(self, search, outs):
        self.s, d = search, search.d
        todo, seen = search._undecided(outs), set()
        while todo:
            u = todo.pop()
            if u not in seen:
                seen.add(u)
                todo |= search._undecided([search.red.forms[u]]) - seen - search.dec.keys()
        self.subst: dict = {}  # the substituted forms, exact: only for a certificate (:meth:`form`)
        level: dict = {}
        for u in sorted(seen):  # a form reads lower neurons only
            level[u] = 1 + max((level[v - d] for v in search.red.forms[u][0] if v - d in seen), default=-1)
        self.order = sorted(seen, key=lambda u: (level[u], u))
        self.col = {u: d + j for j, u in enumerate(self.order)}
        self.groups = [[u for u in self.order if level[u] == lv] for lv in range(max(level.values(), default=-1) + 1)]
        self.idx = [[self.col[u] - d for u in g] for g in self.groups]
        self.Z, self.k = self._floats()
        self.lo = np.array([float(v) for v in search.box[0]])
        self.hi = np.array([float(v) for v in search.box[1]])
        self.s_, self.t_, self.a_ = (np.zeros(len(self.order)) for _ in range(3))
        self.phase = [u for u in search.dec if u in search.prow and search.prow[u][1][0]]
        self.lp = self._model() if self.phase else None
        self.V = self._vertices() if self.phase else None
        self.bounds: dict = {}  # u: (l, U) exact, once certified
        self.rows: dict = {}
        self.irows: dict = {}

    def _model(self):
        """HiGHS's model of the node's inputs: the box as column bounds, the decided neurons' phase rows."""
        import highspy

        from ...exact.lp_highs import feasibility_lp, new_highs

        d = self.s.d
        G = np.zeros((len(self.phase), d))
        h = np.zeros(len(self.phase))
        for i, u in enumerate(self.phase):
            f, k = self.s.prow[u][1]
            for v, a in f.items():
                G[i, v] = float(a)
            h[i] = -float(k)
        self.G, self.h = G, h
        lp = feasibility_lp(G, np.full(len(h), -highspy.kHighsInf), h)
        lp.col_lower_, lp.col_upper_ = self.lo.copy(), self.hi.copy()
        model = new_highs()
        model.passModel(lp)
        return model

    def form(self, u: int) -> tuple[dict, Fraction]:
        """Neuron u's pre-activation on the node, exactly: each decided neuron's output replaced by its form."""
        if u not in self.subst:
            self.subst[u] = self.s._subst(self.s.red.forms[u], self.s.zmemo)
        return self.subst[u]

    def _floats(self) -> tuple[np.ndarray, np.ndarray]:
        """The substituted forms of the relaxed neurons in floats (a proposal: the decided neurons' forms, affine in
        x, as floats), rows in ``order``."""
        s, d = self.s, self.s.d
        Z, k = np.zeros((len(self.order), d + len(self.order))), np.zeros(len(self.order))
        dec = {u: np.array([float(s.zmemo[u][0].get(t, 0)) for t in range(d)] + [float(s.zmemo[u][1])])
               for u, on in s.dec.items() if on}
        for j, u in enumerate(self.order):
            f, c = s.red.forms[u]
            k[j] = float(c)
            for v, a in f.items():
                if v < d:
                    Z[j, v] += float(a)
                elif v - d in self.col:
                    Z[j, self.col[v - d]] = float(a)
                elif v - d in dec:
                    Z[j, :d] += float(a) * dec[v - d][:d]
                    k[j] += float(a) * dec[v - d][d]
        return Z, k

    def dense(self, form) -> tuple[np.ndarray, float]:
        row = np.zeros(self.s.d + len(self.order))
        for v, a in form[0].items():
            row[v if v < self.s.d else self.col[v - self.s.d]] = float(a)
        return row, float(form[1])

    def backsub(self, L: np.ndarray, c: np.ndarray, top: int, need) -> tuple[np.ndarray, list]:
        """Upper bounds of the rows ``L . v + c`` (reading neurons of levels below ``top``) and the multipliers of
        each level's neurons (positive: their lines; negative: y >= z or y >= 0)."""
        d, record = self.s.d, []
        for lv in range(top - 1, -1, -1):
            idx = self.idx[lv]
            cols = [d + j for j in idx]
            C = L[:, cols]
            if not C.any():
                continue
            pos, neg = np.maximum(C, 0), np.minimum(C, 0)
            coef = pos * self.s_[idx] + neg * self.a_[idx]
            c = c + pos @ self.t_[idx] + coef @ self.k[idx]
            L[:, cols] = 0
            L += coef @ self.Z[idx]
            record.append((idx, C))
        ub, duals = self.concretize(L[:, :d], c, need)
        record.append((None, duals))
        return ub, record

    def concretize(self, X: np.ndarray, c: np.ndarray, need) -> tuple[np.ndarray, np.ndarray | None]:
        """The largest values of the rows ``X . x + c`` on the node's inputs: on the box, then, for the rows where
        ``need(box values)`` says it matters, on the box cut by the phase rows of the decided neurons (affine in x;
        one small LP per row, HiGHS: floats), with the rows' duals on those phase rows (None on the box alone)."""
        box = c + np.maximum(X, 0) @ self.hi + np.minimum(X, 0) @ self.lo
        if self.lp is None:
            return box, None
        rows, ub = np.flatnonzero(need(box)), box.copy()
        if self.V is not None:  # the inputs' polytope has few vertices: the largest value is at one of them
            if len(rows):
                ub[rows] = np.minimum(box[rows], c[rows] + (X[rows] @ self.V.T).max(axis=1))
            return ub, ("later", X, set(rows.tolist()))  # duals only for a certificate (:meth:`duals`)
        duals = np.zeros((len(X), len(self.phase)))
        for i in rows:
            top, duals[i] = self.solve(X[i])
            if top is not None:
                ub[i] = min(box[i], c[i] + top)
        return ub, duals

    def solve(self, row: np.ndarray) -> tuple[float | None, np.ndarray]:
        """HiGHS's largest value of ``row . x`` on the node's inputs and |its duals| on the phase rows (None and
        zeros when it finds no optimum: the box's bound stands, and an empty node is the search's to find)."""
        import highspy

        zero = np.zeros(len(self.phase))
        if not row.any():
            return None, zero
        h, n = self.lp, len(row)
        h.changeColsCost(n, np.arange(n, dtype=np.int32), -row)
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None, zero
        return -h.getInfo().objective_function_value, np.abs(h.getSolution().row_dual)

    def duals(self, C, row: int) -> np.ndarray | tuple:
        """The phase rows' duals of back-substituted row ``row`` (solved now when the bound came from vertices)."""
        if C is None:
            return ()
        if isinstance(C, tuple):
            _, X, rows = C
            return self.solve(X[row])[1] if row in rows else ()
        return C[row]

    def _vertices(self) -> np.ndarray | None:
        """The vertices of the node's input polytope (box and phase rows) when d <= 8 and it has an interior
        (qhull, from its Chebyshev centre); else None (then one LP per bound)."""
        from scipy.optimize import linprog
        from scipy.spatial import HalfspaceIntersection, QhullError

        d = self.s.d
        if not 2 <= d <= 8:
            return None
        A = np.vstack([self.G, np.eye(d), -np.eye(d)])
        b = np.concatenate([self.h, self.hi, -self.lo])
        norms = np.linalg.norm(A, axis=1)[:, None]
        res = linprog(np.r_[np.zeros(d), -1.0], A_ub=np.hstack([A, norms]), b_ub=b,
                      bounds=[(None, None)] * d + [(0, None)], method="highs")
        if res.status != 0 or res.x[-1] <= 1e-9 * (1 + np.abs(b).max()):
            return None
        try:
            return HalfspaceIntersection(np.hstack([A, -b[:, None]]), res.x[:d]).intersections
        except (QhullError, ValueError):
            return None

    def propose(self, targets: list) -> list | None:
        """Float bounds of every relaxed neuron, level by level; then of ``targets`` (forms that must be <= 0):
        their back-substitution records when all are below 0, else None."""
        self.records = {}
        for lv, idx in enumerate(self.idx):
            L = np.vstack([self.Z[idx], -self.Z[idx]])
            n = len(idx)
            ub, rec = self.backsub(L, np.concatenate([self.k[idx], -self.k[idx]]), lv, _unstable)
            for j, i in enumerate(idx):
                lo, hi = -ub[n + j], ub[j]
                self.records[self.order[i]] = (rec, j, n + j)
                if lo >= 0:
                    self.s_[i], self.t_[i], self.a_[i] = 1.0, 0.0, 1.0
                elif hi <= 0:
                    self.s_[i] = self.t_[i] = self.a_[i] = 0.0
                else:
                    self.s_[i] = hi / (hi - lo)
                    self.t_[i], self.a_[i] = -self.s_[i] * lo, 1.0 if hi > -lo else 0.0
        if not targets:
            return []
        rows = np.vstack([self.dense(t)[0] for t in targets])
        ub, rec = self.backsub(rows, np.array([self.dense(t)[1] for t in targets]), len(self.groups),
                               lambda box: box >= 0)
        if not (ub < -1e-9 * (1 + np.abs(ub))).all():
            return None
        return [(rec, j) for j in range(len(targets))]

    # -- exact ---------------------------------------------------------------------------------------------------
    def multipliers(self, rec, row: int) -> dict:
        """The float multipliers of one back-substituted row, as dyadic rationals on the node's rows."""
        out = {}
        for idx, C in rec:
            if idx is None:  # the phase rows' duals of the final LP
                for u, y in zip(self.phase, self.duals(C, row)):
                    if y > 0:
                        out[("phase", u)] = dyadic(float(y))
                continue
            for i, c in zip(idx, C[row]):
                if c > 0:
                    out[("line", self.order[i])] = dyadic(float(c))
                elif c < 0:
                    out[("relu" if self.a_[i] else "pos", self.order[i])] = dyadic(float(-c))
        return out

    def row(self, kind: str, u: int) -> tuple[dict, Fraction]:
        """A row of the node, substituted (the checker's rows: :mod:`exactrelu.certificates.trusted.phases`)."""
        key = kind, u
        if key not in self.rows:
            self.rows[key] = self._row(kind, u)
        return self.rows[key]

    def _row(self, kind: str, u: int) -> tuple[dict, Fraction]:
        d = self.s.d
        if kind in ("lower", "upper"):
            return self.s._original(kind, u)
        if kind == "phase":
            return self.s.prow[u][1]
        y = d + u
        if kind == "pos":
            return {y: Fraction(-1)}, _ZERO
        if kind == "relu":
            return {**self.form(u)[0], y: Fraction(-1)}, self.form(u)[1]
        return chain_row(kind, self.form(u), y, self.s.chain[u])

    def exact(self, mult: dict, target) -> tuple[dict, Fraction]:
        """Multipliers proving ``target <= value`` and the least such value: ``mult``'s sum computed exactly (each
        row as integers over its own denominator D, summed over the lcm L of the ``m.den * D``, as the checker
        does), the rest of the coefficients absorbed by rows of one variable."""
        rows = [(m, self.irow(*key)) for key, m in mult.items()]
        L = math.lcm(*(m.denominator * D for m, (_, _, D) in rows)) if rows else 1
        acc: dict = {}
        const = 0
        for m, (N, K, D) in rows:
            F = m.numerator * (L // (m.denominator * D))
            for v, a in N.items():
                acc[v] = acc.get(v, 0) + F * a
            const += F * K
        mult, value = dict(mult), target[1] - Fraction(const, L)
        d = self.s.d
        for v in set(acc) | set(target[0]):
            r = target[0].get(v, _ZERO) - Fraction(acc.get(v, 0), L)
            if not r:
                continue
            key = ("upper" if r > 0 else "lower", v) if v < d else ("ymax" if r > 0 else "pos", v - d)
            mult[key] = mult.get(key, 0) + abs(r)
            value -= abs(r) * self.row(*key)[1]
        return mult, value

    def irow(self, kind: str, u: int) -> tuple[dict, int, int]:
        """:meth:`row` as integers over one denominator: ``(N, K, D)``, the row ``(N . v + K) / D``."""
        key = kind, u
        if key not in self.irows:
            f, k = self.row(kind, u)
            D = math.lcm(k.denominator, *(a.denominator for a in f.values()))
            self.irows[key] = ({v: a.numerator * (D // a.denominator) for v, a in f.items()},
                               k.numerator * (D // k.denominator), D)
        return self.irows[key]


def relaxed_leaf(search, outs, splits: int) -> list | None:
    """A relaxed leaf proving every target within the slack on the node (``outs``: the substituted targets), or
    None when the float bounds do not show it (then the search goes on bottom-up)."""
    slack = search.slack
    rel = _Relaxation(search, outs)
    targets = []
    for o in outs:
        for sign in (1, -1):
            targets.append(({v: sign * a for v, a in o[0].items()}, sign * o[1] - slack))
    found = rel.propose(targets)
    if found is None:
        return None
    search.chain, chain, search.kept_rows = {}, [], {}
    try:
        for u in rel.order:
            search.check_time()
            rec, up, down = rel.records[u]
            f, k = rel.form(u)
            lo_m, lo_v = rel.exact(rel.multipliers(rec, down), ({v: -a for v, a in f.items()}, -k))
            hi_m, hi_v = rel.exact(rel.multipliers(rec, up), (f, k))
            lo, hi = outward(-lo_v, False), outward(hi_v, True)
            s, t = _line(lo, hi)
            search.chain[u] = (lo, hi, s, t)
            rel.bounds[u] = (lo, hi)
            orig = search.red.forms[u]
            chain.append([u, format_rational(lo), format_rational(hi), format_rational(s), format_rational(t),
                          search.combination(lo_m, ({v: -a for v, a in orig[0].items()}, lo - orig[1]), False),
                          search.combination(hi_m, (orig[0], orig[1] - hi), False)])
        proofs = []
        for r, orig in enumerate(search.targets):
            pair = []
            for sign, (rec, j) in zip((1, -1), found[2 * r: 2 * r + 2]):
                target = targets[2 * r + (sign < 0)]
                mult, value = rel.exact(rel.multipliers(rec, j), target)
                if value > 0:
                    return None  # the rounding lost what the floats showed (a bug or an extreme case): split on
                pair.append(search.combination(mult, ({v: sign * a for v, a in orig[0].items()},
                                                      sign * orig[1] - slack), False))
            proofs.append(pair)
    finally:
        search.chain, search.kept_rows = {}, None
    search.stats.relaxed += 1
    return search._leaf({"relaxed": {"chain": chain, "leaf": {"bounds": proofs}}}, splits)


def chain_row(kind: str, form, y: int, entry) -> tuple[dict, Fraction]:
    """The row ``kind`` of a chain entry ``(l, U, s, t)`` of the neuron with pre-activation ``form`` and output
    variable y (the checker's rows ``line``, ``ymax``, ``lo``, ``hi``).

    >>> chain_row("line", ({0: Fraction(2)}, Fraction(1)), 5, (-1, 3, Fraction(3, 4), Fraction(3, 4)))
    ({0: Fraction(-3, 2), 5: Fraction(1, 1)}, Fraction(-3, 2))
    """
    (f, k), (lo, hi, s, t) = form, entry
    if kind == "line":  # y - s z - t <= 0
        return {**{v: -s * a for v, a in f.items()}, y: Fraction(1)}, -s * k - t
    if kind == "ymax":  # y - relu(U) <= 0
        return {y: Fraction(1)}, -max(Fraction(hi), _ZERO)
    return ({v: -a for v, a in f.items()}, lo - k) if kind == "lo" else (f, k - hi)


def _unstable(box: np.ndarray) -> np.ndarray:
    """Rows ``[upper bounds; -lower bounds]`` of n neurons: those of the neurons whose box interval holds 0 inside
    (a stable neuron's line does not depend on its bounds: no LP for it)."""
    n = len(box) // 2
    mask = (box[:n] > 0) & (box[n:] > 0)
    return np.concatenate([mask, mask])


def _line(lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction]:
    """A line ``s z + t`` above relu at lo and hi (so on [lo, hi]): the chord, with s a short dyadic."""
    if lo >= 0:
        return Fraction(1), _ZERO
    if hi <= 0:
        return _ZERO, _ZERO
    s = outward(hi / (hi - lo), True)
    return s, max(-s * lo, hi - s * hi)
