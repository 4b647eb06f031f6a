"""The float half of a relaxed leaf (:mod:`.relax`): bounds of every relaxed neuron by CROWN-style
back-substitution, a proposal that :mod:`.relax_exact` makes exact.

The undecided neurons a node's targets read are taken level by level; each one's bounds come from the relaxations
of the neurons below it (a positive coefficient of y_v goes through v's upper line ``y <= s z + t``, the chord of
relu on v's interval; a negative one through ``y >= z`` or ``y >= 0``), down to the inputs, where the remaining
linear function is maximised over the box cut by the phase rows of the decided neurons (interval arithmetic on the
box; with at most 8 inputs over the vertices of that polytope; else one small HiGHS LP per bound).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["Relaxation"]


class Relaxation:
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
            s = self.s
            f = s.red.forms[u]
            reads = any(v >= s.d and v - s.d in s.dec for v in f[0])  # else it is its own substitution
            self.subst[u] = s._subst(f, s.zmemo) if reads else f
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
        their back-substitution record when all are below 0, else None."""
        self.records = []  # per level: the back-substitution's record of rows [upper bounds; -lower bounds]
        for lv, idx in enumerate(self.idx):
            L = np.vstack([self.Z[idx], -self.Z[idx]])
            n = len(idx)
            ub, rec = self.backsub(L, np.concatenate([self.k[idx], -self.k[idx]]), lv, _unstable)
            self.records.append(rec)
            for j, i in enumerate(idx):
                lo, hi = -ub[n + j], ub[j]
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
        return rec


def _unstable(box: np.ndarray) -> np.ndarray:
    """Rows ``[upper bounds; -lower bounds]`` of n neurons: those of the neurons whose box interval holds 0 inside
    (a stable neuron's line does not depend on its bounds: no LP for it)."""
    n = len(box) // 2
    mask = (box[:n] > 0) & (box[n:] > 0)
    return np.concatenate([mask, mask])
