"""Oracles: exact query access to a function R^d -> R^m, counted, with a budget and a time limit.

Every oracle answers a batch of rational points with exact rational outputs and records the transcript
(every point asked and its answer). :meth:`Oracle.along_axes` asks the d points ``x0 + delta e_l``; a
network oracle answers it from one pre-activation vector (FLINT products, no point is built), others ask
the d points one by one. Each point counts as one query either way.

* :class:`CallableOracle`: a Python function of one point (a list of d Fractions) returning m rationals.
* :class:`NetworkOracle`: a network (a weights file the user holds in exact form, or for tests and
  demonstrations), evaluated exactly.
* :class:`~exactrelu.extract.command.CommandOracle` (:mod:`.command`): another process speaking JSON lines.

>>> from fractions import Fraction
>>> oracle = CallableOracle(lambda x: [max(x[0] - 1, 0) + x[1]], d=2)
>>> oracle([[Fraction(3), Fraction(1)]]), oracle.queries
([[Fraction(3, 1)]], 1)
>>> oracle.along_axes([Fraction(0), Fraction(0)], Fraction(1, 2)), oracle.queries
([[Fraction(0, 1)], [Fraction(1, 2)]], 3)
"""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul
from typing import Callable

import flint

from ..deadline import Deadline
from ..errors import AssumptionViolated, InvalidInput
from ..validation import check_positive_integer
from ..exact.matrix import QMatrix
from ..exact.rationals import to_fraction
from ..network import RELU, Network

__all__ = ["Oracle", "CallableOracle", "NetworkOracle", "exact_answer"]

Point = list[Fraction]


class Oracle:
    """Exact query access to f: R^d -> R^m (``m`` is learnt from the first answer when not given).

    Attributes: ``queries`` (points asked so far), ``transcript`` (``(point, answer)`` pairs, in order; points on
    a line are kept as ``("line", p, q, t, answer)`` and axis batches as ``("axes", x0, delta, answers)``, or
    ``("axes", x0, delta, answers, basis)`` along a basis, all expanded by :meth:`points`).
    """

    def __init__(self, d: int, m: int | None = None, *, max_queries: int | None = None, time_limit=None):
        d = check_positive_integer(d, "the input dimension d of an oracle")
        max_queries = check_positive_integer(max_queries, "max_queries", none_ok=True)
        self.d, self.m, self.max_queries = d, m, max_queries
        self.deadline = Deadline.coerce(time_limit)
        self.queries = 0
        self.transcript: list = []

    # -- what subclasses provide -------------------------------------------------------------------
    def _evaluate(self, points: list[Point]) -> list[list[Fraction]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _evaluate_axes(self, x0: Point, delta: Fraction) -> list[list[Fraction]]:
        points = [list(x0) for _ in range(self.d)]
        for l, x in enumerate(points):
            x[l] += delta
        return self._evaluate(points)

    # -- the public face ---------------------------------------------------------------------------
    def _spend(self, n: int) -> None:
        if self.max_queries is not None and self.queries + n > self.max_queries:
            raise AssumptionViolated(f"the query budget of {self.max_queries} is exhausted ({self.queries} asked, "
                                     f"{n} more needed); nothing is claimed.",
                                     evidence={"queries": self.queries, "budget": self.max_queries},
                                     suggestion="raise --max-queries (about (k + 1)(d + 1) + 30 k + 100 queries are needed)")
        self.deadline.check(f"{self.queries} queries")
        self.queries += n

    def _checked(self, answers, n: int) -> list[list[Fraction]]:
        if not isinstance(answers, list) or len(answers) != n:
            raise AssumptionViolated(f"the oracle gave {len(answers) if isinstance(answers, list) else 'no'} answers "
                                     f"to {n} queries")
        for y in answers:
            if self.m is None:
                self.m = len(y)
            if len(y) != self.m or not self.m:
                raise AssumptionViolated(f"the oracle answered {len(y)} outputs, expected m = {self.m}")
        return answers

    def __call__(self, points: list[Point]) -> list[list[Fraction]]:
        """The exact answers at ``points`` (each d Fractions); counts len(points) queries."""
        self._spend(len(points))
        answers = self._checked(self._evaluate(points), len(points))
        self.transcript.extend(zip(points, answers))
        return answers

    def along_line(self, p: Point, q: Point, ts: list[Fraction]) -> list[list[Fraction]]:
        """The answers at ``p + t q`` for t in ``ts`` (len(ts) queries)."""
        self._spend(len(ts))
        answers = self._checked(self._evaluate_line(p, q, ts), len(ts))
        self.transcript.extend(("line", p, q, t, y) for t, y in zip(ts, answers))
        return answers

    def _evaluate_line(self, p: Point, q: Point, ts: list[Fraction]) -> list[list[Fraction]]:
        return self._evaluate([_point(p, q, t) for t in ts])

    def along_axes(self, x0: Point, delta: Fraction, basis: tuple | None = None) -> list[list[Fraction]]:
        """The answers at ``x0 + delta e_l``, l = 0..d-1 (d queries); with ``basis`` (a tuple of n tuples of d
        Fractions), at ``x0 + delta u_l`` for its n vectors (n queries; the certificate keeps the basis once)."""
        if basis is None:
            self._spend(self.d)
            answers = self._checked(self._evaluate_axes(x0, delta), self.d)
            self.transcript.append(("axes", list(x0), delta, answers))
            return answers
        self._spend(len(basis))
        answers = self._checked(self._evaluate(_along(x0, delta, basis)), len(basis))
        self.transcript.append(("axes", list(x0), delta, answers, basis))
        return answers

    def points(self, *, axes: bool = True) -> tuple[list[Point], list[list[Fraction]]]:
        """Every point asked and its answer, in order (axis batches expanded; left out with ``axes=False``)."""
        X, Y = [], []
        for item in self.transcript:
            if item[0] == "line":
                X.append(_point(*item[1:4]))
                Y.append(item[4])
            elif item[0] == "axes":
                if not axes:
                    continue
                x0, delta, answers = item[1:4]
                basis = item[4] if len(item) > 4 else [[int(i == l) for i in range(self.d)] for l in range(self.d)]
                X += _along(x0, delta, basis)
                Y += answers
            else:
                X.append(item[0])
                Y.append(item[1])
        return X, Y

    def blocks(self) -> tuple[list[dict], dict, list]:
        """The transcript as the query blocks of a ``transcript`` certificate (one block per line, one per axis batch,
        one per run of other points; canonical rational strings), for each line ``(tuple(p), tuple(q))`` its
        block's index and the index of each t in it, and the bases of the axis batches along one (each once, as
        lists of vectors of strings; docs/certificates.md, "Transcripts")."""
        out: list[dict] = []
        lines: dict = {}
        bases: dict = {}  # id of a basis -> (its index, the basis)
        for item in self.transcript:
            if item[0] == "line":
                _, p, q, t, y = item
                key = (tuple(p), tuple(q))
                if key not in lines:
                    lines[key] = (len(out), {})
                    out.append({"line": {"p": list(map(str, p)), "q": list(map(str, q))}, "t": [], "answers": []})
                index, where = lines[key]
                where.setdefault(t, len(out[index]["t"]))
                out[index]["t"].append(str(t))
                out[index]["answers"].append(list(map(str, y)))
            elif item[0] == "axes":
                x0, delta, answers = item[1:4]
                axes = {"x": list(map(str, x0)), "step": str(delta)}
                if len(item) > 4:
                    axes["basis"] = bases.setdefault(id(item[4]), (len(bases), item[4]))[0]
                out.append({"axes": axes, "answers": [list(map(str, y)) for y in answers]})
            else:
                if not out or "points" not in out[-1]:
                    out.append({"points": [], "answers": []})
                out[-1]["points"].append(list(map(str, item[0])))
                out[-1]["answers"].append(list(map(str, item[1])))
        return out, lines, [[list(map(str, u)) for u in basis] for _, basis in bases.values()]

    def close(self) -> None:
        """Release what the oracle holds (a process); a no-op by default."""


def _along(x0: Point, delta: Fraction, basis) -> list[Point]:
    """The points ``x0 + delta u`` for the vectors u of ``basis``."""
    return [[a + delta * v if v else a for a, v in zip(x0, u)] for u in basis]


_LINE_INTS: dict = {}


def _point(p: Point, q: Point, t: Fraction) -> Point:
    """p + t q, through integers over one denominator (one Fraction per entry)."""
    key = (id(p), id(q))
    if key not in _LINE_INTS or _LINE_INTS[key][0] is not p or _LINE_INTS[key][1] is not q:
        den = math.lcm(*(x.denominator for x in p), *(x.denominator for x in q))
        _LINE_INTS.clear()
        _LINE_INTS[key] = (p, q, [x.numerator * (den // x.denominator) for x in p],
                           [x.numerator * (den // x.denominator) for x in q], den)
    _, _, P, Q, den = _LINE_INTS[key]
    tn, td = t.numerator, t.denominator
    return [Fraction(a * td + tn * b, den * td) for a, b in zip(P, Q)]


class CallableOracle(Oracle):
    """A Python callable ``f(point) -> m rationals`` (ints, Fractions, rational strings), one point at a time."""

    def __init__(self, f: Callable, d: int, m: int | None = None, **kw):
        if not callable(f):
            raise InvalidInput("CallableOracle needs a callable")
        super().__init__(d, m, **kw)
        self.f = f

    def _evaluate(self, points):
        out = []
        for x in points:
            y = self.f(list(x))
            try:
                out.append([exact_answer(v) for v in y])
            except TypeError:
                raise AssumptionViolated(f"the oracle returned {type(y).__name__}, not a list of rationals") from None
        return out


def exact_answer(v) -> Fraction:
    """An oracle's output, exactly; floats are refused (a float oracle rounds: it is not piecewise linear)."""
    if isinstance(v, float):
        raise AssumptionViolated(f"the oracle answered the float {v!r}: extraction needs exact answers (a float "
                                 "oracle rounds, so its answers are not a piecewise linear function; docs/extraction.md)")
    return to_fraction(v)


class NetworkOracle(Oracle):
    """A network evaluated exactly (``Network.evaluate_exact``); axis batches from one pre-activation vector.

    A network of any depth is accepted as an oracle (an extraction then refuses it with the check that fails,
    docs/extraction.md); the fast paths for lines and axis batches are for one hidden layer, deeper networks are
    evaluated point by point."""

    def __init__(self, net: Network, **kw):
        if not isinstance(net, Network):
            raise InvalidInput("NetworkOracle needs a Network (exactrelu.io.weights.read_weights reads files)")
        if net.activation != RELU:
            raise InvalidInput(f"extraction is for ReLU networks; this one has {net.activation}")
        super().__init__(net.d, net.m, **kw)
        self.net = net

    def _evaluate(self, points):
        return self.net.evaluate_exact(QMatrix.from_fractions([x for p in points for x in p], len(points), self.d)).to_fractions()

    def _evaluate_line(self, p, q, ts):
        """relu(z(p) + t (V q)) in integers: O(k m) per point once V p + b and V q are known (cached per line)."""
        if self.net.depth != 2:
            return super()._evaluate_line(p, q, ts)
        key = (tuple(p), tuple(q))
        if getattr(self, "_line_key", None) != key:
            zp = self.net.pre_activations_exact(QMatrix.from_fractions(list(p), 1, self.d))  # V p + b, k x 1
            zq = self.net.V @ QMatrix.from_fractions(list(q), self.d, 1)  # V q
            den = math.lcm(int(zp.den), int(zq.den))
            self._line = ([int(v) * (den // int(zp.den)) for v in zp.num.entries()],
                          [int(v) * (den // int(zq.den)) for v in zq.num.entries()], den,
                          [[int(v) for v in row] for row in self.net.U.num.tolist()], int(self.net.U.den),
                          self.net.c_fractions())
            self._line_key = key
        P, Q, den, U, uden, c = self._line
        out = []
        for t in ts:
            tn, td = t.numerator, t.denominator
            h = [z if z > 0 else 0 for z in (a * td + tn * b for a, b in zip(P, Q))]  # z * den * td
            scale = uden * den * td
            out.append([Fraction(sum(map(mul, row, h)), scale) + cr for row, cr in zip(U, c)])
        return out

    def _evaluate_axes(self, x0, delta):
        """f(x0 + delta e_l) for every l at once, exactly: with z = V x0 + b, a unit whose |z_i| exceeds
        |delta| max_l |V_il| keeps its sign on every probe, so its part is ``u_i (z_i + delta V_il)`` (or 0): two
        FLINT products with U's columns masked to those units; the few others are evaluated entry by entry."""
        if self.net.depth != 2:
            return super()._evaluate_axes(x0, delta)
        net = self.net
        if not hasattr(self, "_vmax"):
            self._vrows = net.V.num.tolist()
            self._vmax = [max(abs(int(v)) for v in row) for row in self._vrows]
            self._ucols = [[int(v) for v in col] for col in net.U.num.transpose().tolist()]
        z0 = net.pre_activations_exact(QMatrix.from_fractions(x0, 1, self.d))  # k x 1
        dz = int(z0.den) * delta.denominator * int(net.V.den)  # Z_il = (col_i + w V_il) / dz
        col = [int(v) * (dz // int(z0.den)) for v in z0.num.entries()]
        w = delta.numerator * int(z0.den)
        far_on = [c > 0 and c > abs(w) * vm for c, vm in zip(col, self._vmax)]
        near = [i for i, (c, vm) in enumerate(zip(col, self._vmax)) if abs(c) <= abs(w) * vm]
        mask = flint.fmpz_mat(net.m, net.k, [u if far_on[i] else 0 for u_row in zip(*self._ucols)
                                            for i, u in enumerate(u_row)])
        Y = mask * flint.fmpz_mat(net.k, 1, col) * flint.fmpz_mat(1, self.d, [1] * self.d) + mask * net.V.num * w
        for i in near:
            h = [max(col[i] + w * int(v), 0) for v in self._vrows[i]]
            Y += flint.fmpz_mat(net.m, 1, self._ucols[i]) * flint.fmpz_mat(1, self.d, h)
        S = int(net.U.den) * dz  # Y / S = U relu(Z), m x d
        if net.has_output_bias:  # + c, over one denominator: Y cden + c_num S
            cden = int(net.c.den)
            Y = Y * cden + net.c.num * flint.fmpz_mat(1, self.d, [S] * self.d)
            S *= cden
        return QMatrix(Y.transpose(), S).to_fractions()  # d rows of m
