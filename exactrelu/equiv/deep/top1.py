"""Top-1 equivalence on a box (or R^d): at every x some class is a largest output of both networks.

The case split is the one of :mod:`.search`, over the neurons both networks' outputs read (not only their
difference); a node where both networks are affine is a ``top1`` leaf (docs/certificates.md): for one of the two
networks, say F (the other G), every *argmax region* ``R_j = {F_j >= F_i for all i}`` of the leaf is empty (an exact
Farkas combination) or has, for every i != j, an exact proof of ``G_i - G_j <= 0`` on it (HiGHS's duals made exact,
or an exact LP). Every x lies in ``R_j`` for each j in F's argmax, so j is in G's argmax too: the two argmax sets
meet (and F's is inside G's). A failing bound is a point of ``R_j`` where G prefers another class, tried exactly as
a counterexample (argmax sets that do not meet); when it is none, the classes tie there in F, and the other
network's regions are tried. Ties of both networks on one leaf that neither side proves end the search "unknown"
(:class:`~exactrelu.equiv.deep.search._Stuck`): the leaf would have to be split by a hyperplane, not a neuron.

>>> from exactrelu.network import Network
>>> net = Network.from_layers([([[1], [-1]], None), ([[1, 0], [0, 1]], None), ([[1, 0], [0, 1]], None)])
>>> top1_differ(net, net)([Fraction(1)])
False
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .bounds import box_farkas, box_proof, prove_at_most, prove_empty, screen
from .forms import Form, add_to, is_zero
from .search import Search, _Found, _Spent

__all__ = ["Top1Search", "top1_differ", "top1_witness", "argmax_set"]


def argmax_set(values) -> set[int]:
    """The indices of the largest values (exact comparisons).

    >>> sorted(argmax_set([Fraction(1), Fraction(3), Fraction(3)]))
    [1, 2]
    """
    top = max(values)
    return {r for r, v in enumerate(values) if v == top}


def top1_differ(a, b):
    """``differ(x)`` for the top-1 property: True when the two networks' argmax sets at x (exact) do not meet."""
    from . import _exact_values

    def differ(x) -> bool:
        return not argmax_set(_exact_values(a, x)) & argmax_set(_exact_values(b, x))

    return differ


def top1_witness(a, b, *, seed: int = 0, per_scale: int = 256, box=None, deadline=None) -> list[Fraction] | None:
    """A point (in the box, if one is given) where the argmax sets of the two networks do not meet, found by floats
    (the points of :func:`exactrelu.equiv.deep.sampled_witness`, ranked by how clearly the two top classes differ)
    and confirmed exactly; or None."""
    from . import _points, checked

    rng = np.random.default_rng(seed)
    pts = _points(a.d, box, rng, per_scale)
    with np.errstate(all="ignore"):
        fa, fb = a.predict(pts), b.predict(pts)
    rows = np.arange(len(pts))
    ja, jb = fa.argmax(axis=1), fb.argmax(axis=1)
    margin = np.minimum(fa[rows, ja] - fa[rows, jb], fb[rows, jb] - fb[rows, ja])
    margin = np.where(ja != jb, np.nan_to_num(margin, nan=0.0), -np.inf)
    differ = top1_differ(a, b)
    for n, i in enumerate(np.argsort(-margin)[:8]):
        if margin[i] == -np.inf:
            break
        checked(deadline, n, 8)
        x = [Fraction(float(v)) for v in pts[i]]
        if box is not None:
            x = [min(max(v, lo), hi) for v, lo, hi in zip(x, *box)]
        if differ(x):
            return x
    return None


def _minus(f: Form, g: Form) -> Form:
    acc = dict(f[0])
    add_to(acc, g[0], Fraction(-1))
    return acc, f[1] - g[1]


class Top1Search(Search):
    """The case split for the top-1 property: targets are both networks' outputs; leaves are ``top1`` leaves (or
    ``equal`` ones where the difference is zero, or Farkas ones where the node is empty)."""

    relaxes = False

    def __init__(self, red, differ, **kwargs):
        super().__init__(red, differ, targets=list(red.nets[0]) + list(red.nets[1]), **kwargs)
        self.m = len(red.outputs)
        self.zero_targets = red.outputs
        self.arg: tuple | None = None  # (the original outputs of the leaf's network, j) while class j is proved

    def _zero(self, outs, memo: dict) -> bool:
        return all(is_zero(self._subst(o, memo)) for o in self.red.outputs)

    def _original(self, kind: str, u: int) -> Form:
        if kind == "argmax":
            forms, j = self.arg
            return _minus(forms[u], forms[j])
        return super()._original(kind, u)

    def _bounds_leaf(self, rows, outs, splits: int) -> list | None:
        """Both networks affine on the node (``outs``: their substituted outputs): a ``top1`` leaf by the argmax
        regions of either network, or None (then the search splits on, or ends unknown)."""
        m = self.m
        subs, origs = (outs[:m], outs[m:]), (self.targets[:m], self.targets[m:])
        for s in (0, 1):
            classes = []
            for j in range(m):
                self.arg = origs[s], j
                try:
                    entry = self._class(rows, subs[s], subs[1 - s], origs[1 - s], j)
                finally:
                    self.arg = None
                if entry is None:
                    break
                classes.append(entry)
            else:
                return self._leaf({"top1": {"net": s, "classes": classes}}, splits)
        return None

    def _class(self, rows, F, G, G_orig, j: int) -> dict | None:
        """Class j of a top1 leaf: {"farkas": C} when the node with F's argmax rows of j is empty, {"beats": [...]}
        when G_j is proved largest there, else None (raises :class:`_Found` at a counterexample)."""
        m = self.m
        node = rows + [(("argmax", i), _minus(F[i], F[j])) for i in range(m) if i != j]
        beats = []
        for i in (i for i in range(m) if i != j):
            if self.deadline is not None and self.deadline.expired():  # up to m (m - 1) LPs on one leaf
                raise _Spent(f"the time limit of {self.deadline.seconds:g} s passed")
            target = _minus(G[i], G[j])
            proof = {} if not target[0] and target[1] <= 0 else self._bounded(node, target)
            if proof == "empty":
                empty = box_farkas(node, self.d, self.box) if self.box is not None else None
                empty = self._exact(prove_empty, node) if empty is None else empty
                if isinstance(empty, dict):
                    self.stats.farkas += 1
                    return {"farkas": self.combination(empty, None)}
                proof = None
            if proof is None:
                self.stats.lps += 1
                proof = self._exact(prove_at_most, node, target)
            if not isinstance(proof, dict):
                self._strict(rows, F, G, j, i)
                if proof[0] == "ray":  # the node may be empty (a ray of the homogenized system): Farkas first
                    empty = self._exact(prove_empty, node)
                    if isinstance(empty, dict):
                        self.stats.farkas += 1
                        return {"farkas": self.combination(empty, None)}
                self._try_witness(node, proof, target)
                return None
            beats.append(self.combination(proof, _minus(G_orig[i], G_orig[j])))
        return {"beats": beats}

    def _bounded(self, node, target: Form):
        """On a box: a proof of ``target <= 0`` from HiGHS's duals, "empty" when HiGHS finds the node empty, or None;
        raises :class:`_Found` when HiGHS's maximizer, made exact and put into the box, is a counterexample."""
        if self.box is None:
            return None
        found: dict = {}
        span = screen(node, target, found)
        if span is None:
            return "empty"
        if "max" not in found:
            return None
        if span[1] <= 0:
            return box_proof(node, target, found["max"][0], self.d, self.box)
        point = found["max"][1]
        x = [min(max(Fraction(float(point.get(t, 0))), lo), hi) for t, lo, hi in zip(range(self.d), *self.box)]
        if self.differ(x):
            raise _Found(x)
        return None

    def _strict(self, rows, F, G, j: int, i: int) -> None:
        """Raise :class:`_Found` at a point of the node where F_j beats every other class of F and G_i beats G_j by
        a margin: HiGHS maximizes the margin t (``F_k - F_j + t <= 0``, ``G_j - G_i + t <= 0``, t <= 1), and its
        point, made exact (and put into the box), is tried. The maximizer of ``G_i - G_j`` alone lies where F ties,
        which is no counterexample; this point lies inside the region, where one is."""
        from scipy.optimize import linprog

        margins = [_minus(F[k], F[j]) for k in range(self.m) if k != j] + [_minus(G[j], G[i])]
        names = sorted({v for _, (f, _) in rows for v in f} | {v for f, _ in margins for v in f} | set(range(self.d)))
        index = {v: c for c, v in enumerate(names)}
        A = np.zeros((len(rows) + len(margins), len(names) + 1))
        b = np.zeros(len(A))
        for r, (f, k) in enumerate([f for _, f in rows] + margins):
            for v, a in f.items():
                A[r, index[v]] = float(a)
            b[r] = -float(k)
            A[r, -1] = 1.0 if r >= len(rows) else 0.0
        box = self.box or ([None] * self.d, [None] * self.d)
        bounds = [(float(box[0][v]) if v < self.d and box[0][v] is not None else None,
                   float(box[1][v]) if v < self.d and box[1][v] is not None else None) for v in names] + [(None, 1.0)]
        cost = np.zeros(len(names) + 1)
        cost[-1] = -1.0
        res = linprog(cost, A_ub=A, b_ub=b, bounds=bounds, method="highs")
        if res.status != 0 or res.x[-1] <= 0:
            return
        x = [Fraction(float(res.x[index[t]])) for t in range(self.d)]
        if self.box is not None:
            x = [min(max(v, lo), hi) for v, lo, hi in zip(x, *self.box)]
        if self.differ(x):
            raise _Found(x)

