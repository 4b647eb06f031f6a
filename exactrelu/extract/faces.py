"""The last hidden layer of a deep network, face by face (docs/extraction.md, "More hidden layers", step 3).

Below the last hidden layer the layers are known; on the domain D (in y, where the layers below the last known one
are all active) the last known layer's pre-activations are ``z = M y + m``, affine. The rest is a one-hidden-layer
network G of ``h = relu(z)``: ``G(h) = sum_u v_u relu(w_u . h + b_u) + A h + e``. Where the known layer's active
set is S, ``h`` lies on the face ``h_j = 0 (j not in S)`` and G there is a network of ``h_S = M_S y + m_S``: a kink
of the oracle on a chord, not on a known hyperplane, is a unit u seen through the face, with normal ``a = w_S M_S``
(so ``w_S = a R_S``, R_S a right inverse of M_S: the rows of M are independent) and offset ``b_u = a_0 - w_S . m_S``.
Each unit is written ``gamma_u relu(w^_u . h + 1)`` with ``w^ = w / b``, ``gamma = beta |b|`` (its coefficient
beta on the primitive hyperplane): the same on every face it is seen through, so the faces' sightings of a unit are
matched by gamma and merged (they must agree where they overlap; coordinates never seen are 0). The affine part
comes from every region met: its Jacobian J gives ``grad G = J R_S`` on S, and ``A_S = grad G - sum of gamma_u w^_u
over the units active there``, which must agree between regions. Every point of the reachable set lies on one face,
so this covers what the all-active region alone does not (with random weights, the neurons of one layer are all
active at 0 to 26 % of the inputs). The fresh queries decide.
"""

from __future__ import annotations

from fractions import Fraction

import flint

from ..equiv.canonical import CanonicalForm
from ..errors import AssumptionViolated
from .regions import _primitive

__all__ = ["Faces"]

_NOT_FORM = {"line_specific": False}


def _dot(a, y) -> Fraction:
    return sum((u * v for u, v in zip(a, y) if u and v), Fraction(0))


def _inverse_rows(rows: list) -> list[list[Fraction]]:
    """R with rows R = I (rows: s x n of rank s), exactly."""
    M = flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in r] for r in rows])
    R = M.transpose() * (M * M.transpose()).inv()
    return [[Fraction(int(v.p), int(v.q)) for v in r] for r in R.tolist()]


class Faces:
    """The sightings of G's units and its affine part, face by face (module docstring)."""

    def __init__(self, M: list[list[Fraction]], m: list[Fraction], outputs: int):
        self.M, self.m, self.k, self.outputs = M, m, len(M), outputs
        self.units: list[tuple[tuple, dict, list]] = []  # (gamma, {coordinate: w^}, sightings (y, p))
        self.regions: list = []  # (S, h_S, value, grad on S)
        self._inv: dict = {}
        #: the layer below's hyperplanes, which no Jacobian probe may cross
        self.planes = [(q, max(abs(v) for v in q[:-1])) for q in (_primitive(list(r) + [mi]) for r, mi in zip(M, m))]

    def _face(self, y) -> tuple[tuple[int, ...], list[Fraction]] | None:
        z = [_dot(row, y) + mi for row, mi in zip(self.M, self.m)]
        if any(v == 0 for v in z):
            return None
        return tuple(j for j, v in enumerate(z) if v > 0), z

    def _through(self, S, a) -> list[Fraction]:
        """w_S with ``w_S M_S = a`` (refused when a is no function of the face's coordinates)."""
        if not S:
            raise AssumptionViolated("a kink where every neuron of the layer below is off: the oracle is not a "
                                     "network of this form (deeper than asked)")
        if S not in self._inv:
            self._inv[S] = _inverse_rows([self.M[j] for j in S])
        R = self._inv[S]
        w = [_dot(a, [r[i] for r in R]) for i in range(len(S))]
        if any(_dot(w, [self.M[j][l] for j in S]) != a[l] for l in range(len(a))):
            raise AssumptionViolated("a kink of the last hidden layer is no function of the outputs of the layer below "
                                     "(an oracle deeper than asked, or a neuron of the layer below never found)")
        return w

    def kink(self, y, p, beta) -> bool:
        """Record the unit seen at the kink y on hyperplane p (y-space) with coefficient beta; False when y is on a
        known hyperplane (then it is not the last layer's kink)."""
        face = self._face(y)
        if face is None:
            return False
        S, z = face
        w = self._through(S, [Fraction(v) for v in p[:-1]])
        b = p[-1] - sum(wi * self.m[j] for wi, j in zip(w, S))
        if b == 0:
            raise AssumptionViolated("a neuron of the last hidden layer through the origin of the layer below's "
                                     "outputs (bias 0) is not matched across faces by this route")
        gamma = tuple(v * abs(b) for v in beta)
        seen = {j: wi / b for j, wi in zip(S, w)}
        for g, unit, where in self.units:
            if g == gamma and all(unit[j] == v for j, v in seen.items() if j in unit):
                unit.update(seen)
                where.append((y, p))
                return True
        self.units.append((gamma, seen, [(y, p)]))
        return True

    def missing(self, every: bool = False) -> list[tuple]:
        """(unit, coordinate, the first point where the unit was seen, its hyperplane there) for every coordinate of
        the layer below that a unit was never seen with (its weight there is not known yet); with ``every``, (unit,
        coordinate, every (point, hyperplane) where it was seen)."""
        return [(u, j, where if every else where[0]) for u, (_, unit, where) in enumerate(self.units)
                for j in range(self.k) if j not in unit]

    def region(self, y, value, J, missed: bool = False) -> None:
        """Record a region's point, answer and Jacobian (rows, den) in y. ``missed``: J is the second one there, with
        a far smaller step; if it still moves along a direction the layer below does not give, a neuron of that layer
        was missed (refused: a network without it could still give every answer)."""
        face = self._face(y)
        if face is None:
            return
        S, z = face
        rows, den = J
        try:
            grad = [self._through(S, [Fraction(v, den) for v in row]) if S else [] for row in rows]
        except AssumptionViolated:
            if missed:
                raise AssumptionViolated("f moves, where the layer below is as found, along a direction its neurons "
                                         "do not give: a neuron of that layer was missed (or an oracle deeper than "
                                         "asked)") from None
            raise
        self.regions.append((S, [z[j] for j in S], list(value), grad))

    def form(self) -> CanonicalForm:
        """G's canonical form in the layer below's outputs h (module docstring); refused when the regions' affine
        parts disagree (a unit missed)."""
        units = [(gamma, [unit.get(j, Fraction(0)) for j in range(self.k)]) for gamma, unit, _ in self.units]
        A: list[list[Fraction | None]] = [[None] * self.k for _ in range(self.outputs)]
        e: list[Fraction | None] = [None] * self.outputs
        for S, hS, value, grad in self.regions:
            on = [(g, w) for g, w in units if sum(w[j] * v for j, v in zip(S, hS)) + 1 > 0]
            for r in range(self.outputs):
                for i, j in enumerate(S):
                    a = grad[r][i] - sum(g[r] * w[j] for g, w in on)
                    if A[r][j] is None:
                        A[r][j] = a
                    elif A[r][j] != a:
                        raise AssumptionViolated("the affine parts of two regions of the last hidden layer disagree (a "
                                                 "unit never seen on a chord)", evidence={"line_specific": True})
                off = value[r] - sum(g[r] * (sum(w[j] * v for j, v in zip(S, hS)) + 1) for g, w in on) \
                    - sum(A[r][j] * v for j, v in zip(S, hS))
                if e[r] is None:
                    e[r] = off
                elif e[r] != off:
                    raise AssumptionViolated("the offsets of two regions of the last hidden layer disagree (a unit "
                                             "never seen on a chord)", evidence={"line_specific": True})
        Az = [[a if a is not None else Fraction(0) for a in row] for row in A]
        ez = [v if v is not None else Fraction(0) for v in e]
        out: dict = {}
        for gamma, w in units:
            q = _primitive(w + [Fraction(1)])
            lead = next(i for i, v in enumerate(q) if v)
            s = (w + [Fraction(1)])[lead] / q[lead]
            b = [v * abs(s) for v in gamma]
            if s < 0:  # |s| relu(-q . (h, 1)) = |s| relu(q . (h, 1)) - |s| q . (h, 1)
                Az = [[a - bi * qv for a, qv in zip(row, q[:-1])] for row, bi in zip(Az, b)]
                ez = [v - bi * q[-1] for v, bi in zip(ez, b)]
            old = out.get(q, [Fraction(0)] * self.outputs)
            out[q] = [u + v for u, v in zip(old, b)]
        return CanonicalForm(1, self.k, self.outputs, tuple((p, tuple(b)) for p, b in sorted(out.items()) if any(b)),
                             tuple(tuple(r) for r in Az), (), tuple(ez))
