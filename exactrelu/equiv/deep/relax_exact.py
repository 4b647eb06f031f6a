"""The exact phase of a relaxed leaf (:mod:`.relax`): the float multipliers of a batch of bounds made exact, in
FLINT's matrices.

A *batch* is the bounds of one level of relaxed neurons (both sides: rows ``z_u <= U`` then ``-z_u <= -l``), or the
leaf's targets; the float back-substitution (:mod:`.relax_float`) gives every row of a batch its multipliers on the
node's rows: the lines of the relaxed neurons below (``y - s z - t <= 0``), their lower rows (``z - y <= 0`` or
``-y <= 0``) and the phase rows of the decided neurons. The rows (substituted: in the inputs and the relaxed
neurons' outputs) are kept as integers over their own denominators D_j, and each float multiplier is rounded onto
its row's grid, ``N_j D_j / 2^k`` (one power of two per combination, :func:`_grid`), so that ``2^k`` times a
combination's sum is ``sum_j N_j (D_j row_j)``: integer matrix products, one per kind of row and level below
(FLINT's ``fmpz_mat``), with no common denominator of the rows (the reduced difference's forms have odd
denominators: one of a whole level has thousands of bits). What the rounding leaves of each coefficient is absorbed
exactly by a row of one variable (the box's rows for an input, ``-y <= 0`` or ``y <= relu(U)`` for a neuron), so
each combination matches its target; the bound a row proves is then exact, whatever the floats were.

The certificate cites the checker's *original* rows (:mod:`exactrelu.certificates.trusted.phases`): a row that
reads a decided neuron's output is completed by that neuron's equation (``post``), its multiplier the coefficient
the sum leaves on it, decided neurons taken from the top level down (a level's neurons read lower levels only). In
matrix form the ``post`` multipliers p solve ``p (I - W) = r`` (r the sum's coefficients on the decided neurons, W
the active decided neurons' forms on them), one product per pair of levels.

>>> from exactrelu.network import Network
>>> from exactrelu.equiv.deep import deep_equivalence
>>> f = Network.from_layers([([[3], [-3]], [0, 0]), ([["1/3", "1/3"]], None), ([[1]], None)])     # |x|
>>> g = Network.from_layers([([[1], [-1]], ["1/7", "1/7"]), ([[1, 1]], None), ([[1]], None)])
>>> chain = deep_equivalence(f, g, lower=[-1], upper=[1], epsilon=2).tree[0]["relaxed"]["chain"]
>>> [[round(float(Fraction(b)), 4) for b in entry[1:3]] for entry in chain]    # each neuron's [l, U] on the box
[[-1.0, 1.0], [-0.8571, 1.1429], [-0.8571, 1.1429], [-1.0, 1.0]]
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

import numpy as np

from ...exact.rationals import format_rational

__all__ = ["ExactPhase"]

BITS = 40  # each combination's largest multiplier has about this many bits (the smallest, relatively fewer)


def _q(x):
    import flint

    return flint.fmpq(x.numerator, x.denominator)


def _integers(row: dict) -> tuple[list, int]:
    """A sparse row {column: Fraction} as ``([(column, integer)], D)``: the row is the integers over D."""
    D = math.lcm(1, *(a.denominator for a in row.values()))
    return [(col, a.numerator * (D // a.denominator)) for col, a in sorted(row.items()) if a], D


def _grid(C: dict, dens: dict, R: int):
    """Integer multipliers N of the float ones C (per kind of row, R x rows), with a power of two W = 2^k per
    combination: the multiplier of row j of a kind is ``N D_j / W``, D_j the row's denominator, so that the sum of
    the multipliers times the rows is ``N . (the rows' integers) / W`` (no common denominator of the rows). Any
    integer N is a valid multiplier (the rounding only loosens the bound): k >= 0 is the least that gives BITS
    bits to each N of a multiplier above 2^-BITS times the row's largest; each N keeps about BITS significant
    bits (then zeros)."""
    ratio = {name: -np.array([_log2(D) for D in dens[name]], dtype=float)[None, :] for name in C}
    big = np.max([np.abs(M).max(axis=1, initial=0) for M in C.values()], axis=0) * 2.0 ** -BITS
    need = np.zeros(R)
    with np.errstate(divide="ignore"):
        for name, M in C.items():
            size = np.where(np.abs(M) > big[:, None], np.log2(np.abs(M)) + ratio[name], np.inf)
            need = np.maximum(need, np.ceil(BITS - size.min(axis=1, initial=np.inf)))
    k = np.maximum(need, 0)
    N = {}
    for name, M in C.items():
        with np.errstate(divide="ignore"):
            size = np.log2(np.abs(M)) + ratio[name] + k[:, None]  # log2 of |c| W / D_j (-inf for c = 0)
        shift = np.where(np.isfinite(size), np.maximum(np.ceil(size) - BITS, 0), 0)
        V = np.rint(np.sign(M) * np.exp2(size - shift)).astype(np.int64).astype(object)
        N[name] = V * (2 ** shift.astype(np.int64).astype(object)) if shift.any() else V
    return N, [2 ** int(e) for e in k]


def _over(n: int, X: int) -> str:
    """The rational n / X as the certificate writes it (lowest terms).

    >>> _over(6, 4), _over(8, 4)
    ('3/2', '2')
    """
    g = math.gcd(n, X)
    return str(n // g) if g == X else f"{n // g}/{X // g}"


def _dyadic(n: int, k: int) -> str:
    """The rational n / 2^k as the certificate writes it (lowest terms).

    >>> _dyadic(12, 3), _dyadic(-8, 2)
    ('3/2', '-2')
    """
    z = min((n & -n).bit_length() - 1, k) if n else k
    return str(n >> z) if z == k else f"{n >> z}/{1 << (k - z)}"


def _dense(rows: list) -> tuple:
    """Sparse integer rows [(column, int)] as ``(fmpz_mat, columns)`` over the columns they use."""
    import flint

    cols = sorted({col for r in rows for col, _ in r})
    at = {col: i for i, col in enumerate(cols)}
    out = [[0] * len(cols) for _ in rows]
    for dense, r in zip(out, rows):
        for col, a in r:
            dense[at[col]] = a
    return (flint.fmpz_mat(out) if out and cols else flint.fmpz_mat(len(rows), len(cols))), cols


def _log2(x: int) -> float:
    """log2 of a positive integer, also beyond the floats' range."""
    b = x.bit_length()
    return math.log2(x >> (b - 60)) + (b - 60) if b > 60 else math.log2(x)


class ExactPhase:
    """The node's rows over the columns ``[x | y of the relaxed neurons (rel.order) | 1]``, each as integers over
    its own denominator."""

    def __init__(self, rel):
        self.rel, self.s = rel, rel.s
        d, n = self.s.d, len(rel.order)
        self.d, self.n, self.c = d, n, d + n
        self.Z = [self._place({}, rel.form(u)) for u in rel.order]  # the substituted forms {column: Fraction}
        self.Zint = [_integers(z) for z in self.Z]  # ... as (integer row, D)
        self.RELU = [(r + [(d + j, -D)], D) for j, (r, D) in enumerate(self.Zint)]  # z - y
        self.LINE: list = [([], 1)] * n  # y - s z - t: rows set as each level's lines are fixed
        self.blocks: dict = {}  # (kind, level): its rows as one integer matrix (:meth:`_block`)
        self.U: dict = {}  # position j: relu of its upper bound U, a dyadic: (numerator, log2 of its denominator)
        self.ubits = 0  # the largest such log2
        self.s_of: dict = {}  # position j: the slope s of its line
        self._decided()

    def _place(self, row: dict, form) -> dict:
        """Write ``form`` (substituted: inputs and relaxed outputs) into a row {column: Fraction}."""
        f, k = form
        col = self.rel.col
        for v, a in f.items():
            row[v if v < self.d else col[v - self.d]] = a
        row[self.c] = k
        return row

    def _decided(self) -> None:
        """The decided neurons (by level) and the parts of the original rows on their outputs: the relaxed
        neurons' forms (``F``), the phase rows (their sign included) and the active neurons' forms (``W``)."""
        s, d = self.s, self.d
        self.levels: dict = defaultdict(list)
        for w in sorted(s.dec):
            self.levels[s.level[w]].append(w)
        self.pos = {w: (lv, i) for lv, ws in self.levels.items() for i, w in enumerate(ws)}
        forms = s.red.forms
        self.reading = [j for j, u in enumerate(self.rel.order)
                        if any(v >= d and v - d in s.dec for v in forms[u][0])]  # relaxed neurons reading them

    def on_decided(self, form: dict, scale) -> dict:
        """``scale * form``'s coefficients on the decided neurons' outputs, by level: {level: {index: fmpq}}."""
        out: dict = defaultdict(dict)
        for v, a in form.items():
            w = v - self.d
            if w >= 0 and w in self.pos:
                lv, i = self.pos[w]
                out[lv][i] = _q(a * scale)
        return out

    def block(self, parts: list, lv: int):
        """The matrix of rows ``parts`` (dicts from :meth:`on_decided`) on the decided neurons of level lv."""
        import flint

        width = len(self.levels[lv])
        rows = [[0] * width for _ in parts]
        for r, p in zip(rows, parts):
            for i, a in p.get(lv, {}).items():
                r[i] = a
        return flint.fmpq_mat(rows) if rows else flint.fmpq_mat(0, width)

    def set_line(self, j: int, lo: Fraction, hi: Fraction, s: Fraction, t: Fraction) -> None:
        """Neuron at position j has its bounds and line: its row ``y - s z - t`` (integers)."""
        row = {col: -s * a for col, a in self.Z[j].items()}
        row[self.c] = row.get(self.c, 0) - t
        row[self.d + j] = Fraction(1)
        self.LINE[j] = _integers(row)
        top = max(hi, Fraction(0))  # a dyadic (:func:`.relax.outward`)
        shift = top.denominator.bit_length() - 1
        self.ubits = max(self.ubits, shift)
        self.s_of[j], self.U[j] = s, (top.numerator, shift)

    # -- one batch ------------------------------------------------------------------------------------------------
    def _block(self, name: str, lv: int):
        """The rows of kind ``name`` ("line", "relu") of the relaxed neurons of level lv as one integer matrix over
        the columns they use (kept: a level's lines are fixed before any batch reads them)."""
        key = name, lv
        if key not in self.blocks:
            rows = self.LINE if name == "line" else self.RELU
            self.blocks[key] = _dense([rows[i][0] for i in self.rel.idx[lv]])
        return self.blocks[key]

    def _add_product(self, total: np.ndarray, N: np.ndarray, block, P: int) -> None:
        """``total += N . block`` (block: an integer matrix over some columns: :func:`_dense`), on the columns
        ``[x | y_0 .. y_{P-1} | 1]``."""
        M, cols = block
        if N.any():
            where = [self.d + P if col == self.c else col for col in cols]
            total[:, where] += np.array((_fmpz(N) * M).tolist(), dtype=object).reshape(len(N), len(cols))

    def batch(self, rec, targets: list, decided_targets: list, P: int) -> list:
        """Exact combinations of a batch: ``rec`` the float back-substitution's record (:meth:`.relax_float.
        Relaxation.backsub`), ``targets`` each row's target substituted ``(form, constant)``, reading the relaxed
        neurons of positions below P only, and ``decided_targets`` its original form's coefficients on the decided
        neurons ({variable: Fraction}). Returns, per row, the certificate's combination (the checker's original
        rows) and the value v it proves (target <= v)."""
        R, rel = len(targets), self.rel
        C = {name: np.zeros((R, P)) for name in ("line", "relu", "pos")}
        C["phase"] = np.zeros((R, len(rel.phase)))
        for r in range(R):
            y = rel.duals(rec[-1][1], r)
            if len(y):
                C["phase"][r] = np.maximum(np.asarray(y, dtype=float), 0)
        for idx, M in rec[:-1]:
            pos, neg = np.maximum(M, 0), np.maximum(-M, 0)
            relu = np.array([rel.a_[i] != 0 for i in idx])
            C["line"][:, idx], C["relu"][:, idx], C["pos"][:, idx] = pos, neg * relu, neg * ~relu
        used = np.flatnonzero(C["phase"].any(axis=0))
        rows = {"line": self.LINE[:P], "relu": self.RELU[:P], "pos": [([(self.d + j, -1)], 1) for j in range(P)],
                "phase": [_integers(self._place({}, self.s.prow[rel.phase[i]][1])) for i in used]}
        C["phase"] = C["phase"][:, used]
        tg = [t if isinstance(t[1], int) else _integers(self._place({}, t)) for t in targets]
        N, W = _grid(C, {k: [D for _, D in v] for k, v in rows.items()}, R)
        # the sum of the multipliers times the substituted rows, times W: N . (the rows' integers), level by level
        total = np.zeros((R, self.d + P + 1), dtype=object)
        for lv, idx in enumerate(rel.idx):
            if idx and idx[0] < P:
                for name in ("line", "relu"):
                    self._add_product(total, N[name][:, idx], self._block(name, lv), P)
        if len(used):
            self._add_product(total, N["phase"], _dense([r for r, _ in rows["phase"]]), P)
        total[:, self.d:self.d + P] -= N["pos"]  # the rows -y <= 0
        # W D_T (target - the sum), D_T the target's denominator
        res = total * np.array([[-D] for _, D in tg], dtype=object)
        for row, w, (t, _) in zip(res, W, tg):
            for col, a in t:
                row[self.d + P if col == self.c else col] += w * a
        res = res.tolist()
        posts = self._posts(N, rows, used, decided_targets, W)
        out = []
        for r in range(R):
            mult = {name: [(j, int(M[r, j]) * rows[name][j][1]) for j in np.flatnonzero(M[r])]
                    for name, M in N.items()}
            out.append(self._one(res[r], W[r], W[r] * tg[r][1], P, mult, used, posts[r]))
        return out

    def target(self, j: int, sign: int) -> tuple[list, int]:
        """``sign`` times the substituted form of the neuron at position j, as (integer row, D)."""
        row, D = self.Zint[j]
        return [(col, sign * a) for col, a in row], D

    def _one(self, res: list, W: int, X: int, P: int, mult: dict, used, post: dict) -> tuple[dict, Fraction]:
        """A row's combination and value: its multipliers (``N D / W``), the absorbing rows of what is left (``res``,
        times X = W D_T), the posts. Multipliers are kept as integers over X until written."""
        d, rel, box = self.d, self.rel, self.s.box
        order, DT, k = rel.order, X // W, W.bit_length() - 1
        written: dict = {}
        for name, terms in mult.items():
            if name != "pos":
                names = [rel.phase[used[j]] for j, _ in terms] if name == "phase" else [order[j] for j, _ in terms]
                written[name] = sorted([u, _dyadic(m, k)] for u, (_, m) in zip(names, terms))
        entries: dict = defaultdict(dict)
        entries["pos"] = {order[j]: m * DT for j, m in mult["pos"]}
        res = list(map(int, res))
        value = Fraction(res[d + P], X)  # the target's constant minus the sum's
        for t in range(d):
            if res[t]:
                entries["upper" if res[t] > 0 else "lower"][t] = abs(res[t])
                value += Fraction(res[t], X) * box[1 if res[t] > 0 else 0][t]
        top, pos = 0, entries["pos"]
        for j in range(P):
            a = res[d + j]
            if a > 0:
                entries["ymax"][order[j]] = a
                num, shift = self.U[j]
                top += (a * num) << (self.ubits - shift)
            elif a < 0:
                pos[order[j]] = pos.get(order[j], 0) - a
        value += Fraction(top, X << self.ubits)
        written.update({kind: [[u, _over(m, X)] for u, m in sorted(rows.items())] for kind, rows in entries.items()
                        if rows})
        if post:
            written["post"] = [[u, format_rational(m)] for u, m in sorted(post.items())]
        return dict(sorted(written.items())), value

    def _posts(self, N: dict, rows: dict, used, decided_targets: list, W: list) -> list:
        """Each row's ``post`` multipliers {neuron: Fraction} (module docstring)."""
        R, s = len(decided_targets), self.s
        if not self.levels:
            return [{} for _ in range(R)]
        forms, rel = s.red.forms, self.rel
        P = N["line"].shape[1]
        rd = [j for j in self.reading if j < P]
        # W times the rest r on the decided neurons: W target - sum of N D (the rows' parts on them)
        t_parts = [self.on_decided(tg, w) for tg, w in zip(decided_targets, W)]
        line = [self.on_decided(forms[rel.order[j]][0], -self.s_of[j] * rows["line"][j][1]) for j in rd]
        relu = [self.on_decided(forms[rel.order[j]][0], rows["relu"][j][1]) for j in rd]
        phase = [self.on_decided(forms[rel.phase[i]][0], (-1 if s.dec[rel.phase[i]] else 1) * D)
                 for i, (_, D) in zip(used, rows["phase"])]
        L, Rl, Ph = _fmpz(N["line"][:, rd]), _fmpz(N["relu"][:, rd]), _fmpz(N["phase"])
        rest = {}
        for lv in self.levels:
            m = self.block(t_parts, lv)
            if rd:
                m = m - L * self.block(line, lv) - Rl * self.block(relu, lv)
            if len(used):
                m = m - Ph * self.block(phase, lv)
            rest[lv] = m
        out: list = [{} for _ in range(R)]
        for lv in sorted(self.levels, reverse=True):
            ws = self.levels[lv]
            p = rest[lv]
            for r, row in enumerate(p.tolist()):
                for w, a in zip(ws, row):
                    if a != 0:
                        out[r][w] = Fraction(int(a.p), int(a.q) * W[r])
            w_parts = [self.on_decided(forms[w][0], 1) if s.dec[w] else {} for w in ws]
            for below in self.levels:
                if below < lv:
                    rest[below] = rest[below] + p * self.block(w_parts, below)
        return out


def _fmpz(M: np.ndarray):
    import flint

    return flint.fmpz_mat(M.tolist()) if M.size else flint.fmpz_mat(*M.shape)
