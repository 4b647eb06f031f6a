"""The span refutation: "no k-unit ReLU network realizes these labels" when rank(labels) = k (the worst-case
solver's "no").

Two certificates, both written by :mod:`exactrelu.certificates.claims.span` and verified by the
independent checker (``trusted/span.py``, docs/certificates.md):

* **rank**: a non-zero (k+1) x (k+1) minor of the labels (rank(labels) > k; any activation would do);
* **span** (rank(labels) = k): the k x k minor, a non-zero functional ``a`` on the coordinates c of
  the labels' row space (hidden rows ``w = c^T A_S``), and for s = +1 and s = -1 a case tree over
  the samples whose every leaf is an infeasible linear system, proved by a Farkas vector: no
  realizable hidden row ``relu(v . x_j) = c . a_j`` has ``a . c = s``.

The span trees are found here by depth-first search (untrusted): each node adds one sample as
active or inactive; a child whose rows the parent's exact point satisfies needs no LP; otherwise an
exact LP (:func:`exactrelu.exact.lp.feasible`) decides it, and a refutation that does not use the
node's own sample closes the parent as well (backjumping). A full pattern that stays feasible is a
realizable hidden row with ``a . c != 0``: it is returned instead of a tree, so a wrong ``a`` can
never produce a certificate, and the caller learns a new unit.

>>> from exactrelu.instances import Instance
>>> X = [[t, 1] for t in (-2, -1, 0, 1, 2, 3)]
>>> inst = Instance.from_arrays(X, [[0, 1], [0, 0], [0, 0], [1, 0], [2, 0], [3, 1]])
>>> from exactrelu.exact.linalg import nonsingular_minor
>>> from exactrelu.certificates.claims.span import not_realizable_certificate
>>> outputs, samples = nonsingular_minor(inst.labels, 2)
>>> found = span_refutation(inst, outputs, [0, 1])  # the found units span c_1 only: a vanishes on them
>>> cert = not_realizable_certificate(inst, 2, outputs, samples, ([0, 1], found))
>>> from exactrelu.certificates.envelope import verify
>>> verify(cert, inst)  # x_2 = 1 at every sample: hidden biases are excluded too
'not-realizable: no 2-unit ReLU network with hidden biases ...; rank(labels) = 2 (a non-zero 2 x 2 minor) ...'
"""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import Callable

from ..._moved import moved_names
from ...deadline import Deadline
from ...exact.lp import feasible
from ...exact.rationals import format_rational
from ...instances import Instance

__all__ = ["span_refutation", "Realizable"]

#: the old (UK) spelling, kept for one release with a DeprecationWarning (issue 35: US spelling)
__getattr__ = moved_names(__name__, {"Realisable": f"{__name__}:Realizable"})


class Realizable:
    """A realizable hidden row found while refuting: ``relu(v . x_j) = c . a_j`` for every j, ``a . c = s``."""

    def __init__(self, v: list[Fraction], c: list[Fraction]):
        self.v, self.c = v, c


def _data(instance: Instance, outputs):
    X = instance.inputs.to_fractions()
    Yf = instance.labels.to_fractions()
    A = [[row[r] for r in outputs] for row in Yf]
    return X, A


def span_refutation(instance: Instance, outputs: list[int], a, *, deadline: Deadline | None = None,
                    progress: Callable[[str], None] | None = None):
    """The two case trees (s = 1, s = -1) of the span certificate, or a :class:`Realizable` row with a . c != 0."""
    X, A = _data(instance, outputs)
    a = [Fraction(x) for x in a]
    deadline = deadline or Deadline(None)
    trees = []
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 6 * len(X) + 1000))
    try:
        for s in (1, -1):
            search = _Search(X, A, a, s, deadline, progress)
            out = search.node(0, None)
            if isinstance(out, Realizable):
                return out
            trees.append(out[0])
    finally:
        sys.setrecursionlimit(old)
    return trees


class _Search:
    """Depth-first search over the samples' activity for one sign s of ``a . c``."""

    def __init__(self, X, A, a, s, deadline, progress):
        self.X, self.A, self.a, self.s = X, A, a, s
        self.n, self.d, self.k = len(X), len(X[0]), len(a)
        self.dec: dict[int, bool] = {}
        self.deadline, self.progress = deadline, progress
        self.lps = self.nodes = 0

    def _rows(self, j, active):
        """(eq coefficients, sign coefficients) of sample j, over z = (v, c); both right-hand sides 0."""
        x, aj = self.X[j], self.A[j]
        zero_v, zero_c = [Fraction(0)] * self.d, [Fraction(0)] * self.k
        if active:  # v . x_j - c . a_j = 0, -v . x_j <= 0
            return list(x) + [-t for t in aj], [-t for t in x] + zero_c
        return zero_v + list(aj), list(x) + zero_c  # c . a_j = 0, v . x_j <= 0

    def _holds(self, z, j, active) -> bool:
        eq, ub = self._rows(j, active)
        return sum(e * t for e, t in zip(eq, z)) == 0 and sum(e * t for e, t in zip(ub, z)) <= 0

    def node(self, depth, point):
        """Decide the node whose decisions are ``self.dec`` (samples 0..depth-1): a tree with the samples
        its refutation uses, or a Realizable row."""
        self.nodes += 1
        if self.nodes % 256 == 1:
            self.deadline.check(lambda: f"{self.nodes} nodes, {self.lps} exact LPs of the span refutation "
                                        f"(s = {self.s})")
            if self.progress is not None:
                self.progress(f"span refutation (a . c = {self.s:+d}): {self.nodes} nodes, {self.lps} exact LPs")
        if point is None or not (depth == 0 or self._holds(point, depth - 1, self.dec[depth - 1])):
            point, leaf = self._lp()
            if leaf is not None:
                return leaf
        if depth == self.n:
            return Realizable(point[:self.d], point[self.d:])
        j, subtrees, uses = depth, [], set()
        for active in (True, False):
            self.dec[j] = active
            try:
                out = self.node(depth + 1, point)
            finally:
                del self.dec[j]
            if isinstance(out, Realizable):
                return out
            tree, conflict = out
            if j not in conflict:  # the refutation never used sample j: it closes this node as well
                return tree, conflict
            subtrees.append(tree)
            uses |= conflict - {j}
        return [{"split": j}] + subtrees[0] + subtrees[1], uses

    def _lp(self):
        """(point, None) if the node's system is feasible, else (None, (leaf tree, samples used))."""
        self.lps += 1
        order = sorted(self.dec)
        rows = [self._rows(j, self.dec[j]) for j in order]
        A_eq = [[Fraction(0)] * self.d + self.a] + [eq for eq, _ in rows]
        b_eq = [self.s] + [0] * len(rows)
        res = feasible(A_eq=A_eq, b_eq=b_eq, A_ub=[ub for _, ub in rows] or None, b_ub=[0] * len(rows) or None,
                       nvars=self.d + self.k, time_limit=self.deadline)
        if res.status == "feasible":
            return res.point, None
        ye, yu = res.farkas
        leaf = [["norm", format_rational(ye[0])]] if ye[0] else []
        used = set()
        for j, y_eq, y_ub in zip(order, ye[1:], yu or [0] * len(order)):
            if y_eq:
                leaf.append(["eq", j, format_rational(y_eq)])
            if y_ub:
                leaf.append(["sign", j, format_rational(y_ub)])
            if y_eq or y_ub:
                used.add(j)
        return None, ([{"farkas": leaf}], used)
