"""Exact residuals: how far a network's outputs are from the labels, computed over Q.

>>> from exactrelu.instances import planted
>>> from exactrelu.network import Network
>>> inst = planted(d=3, k=2, m=2, n=20, seed=0)
>>> exact_residual(inst.planted, inst).squared_error
Fraction(0, 1)
>>> U = inst.planted.U.to_fractions()
>>> U[0][0] += Fraction(1, 3)
>>> res = exact_residual(Network.from_rows(U, inst.planted.V.to_fractions()), inst)
>>> res.n_failing > 0, res.squared_error > 0, res.worst[1]
(True, True, 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

import flint

from ...errors import InvalidInput
from ... import parallel
from ...exact.bulk import MAX_LIMBS, Rows, TwoLayer, map_blocks
from ...exact.codecs import limbs
from ...validation import check_positive_integer
from ...exact.matrix import QMatrix
from ...instances import Instance
from ...network import Network

__all__ = ["Residual", "exact_residual", "differing_samples"]


@dataclass(frozen=True)
class Residual:
    """Exact comparison of a network's outputs with the labels.

    squared_error : ``sum_{j,r} (prediction_jr - labels_jr)^2``, exactly.
    max_abs_error : ``max_{j,r} |prediction_jr - labels_jr|``, exactly.
    label_norm_sq : ``sum_{j,r} labels_jr^2``, exactly (for the relative error).
    n_failing, n_entries : entries that differ, and n * m.
    worst, first : (sample, output) of the largest and of the first difference (None if none).
    failing : the differing entries in (sample, output) order, at most ``max_listed`` of them;
        ``complete`` says whether the list holds all ``n_failing``.
    """

    squared_error: Fraction
    max_abs_error: Fraction
    label_norm_sq: Fraction
    n_failing: int
    n_entries: int
    worst: tuple[int, int] | None
    first: tuple[int, int] | None
    failing: list[tuple[int, int]] = field(default_factory=list, repr=False)
    complete: bool = True

    @property
    def exact(self) -> bool:
        """True when the network reproduces every label exactly."""
        return self.n_failing == 0

    def relative(self) -> float:
        """``||prediction - labels||_F / ||labels||_F`` as a float, for display (inf if the labels are 0)."""
        if self.label_norm_sq == 0:
            return 0.0 if self.squared_error == 0 else math.inf
        return math.sqrt(_float(self.squared_error / self.label_norm_sq))

    def rms(self) -> float:
        """Root mean squared error over all entries, as a float, for display."""
        return math.sqrt(_float(self.squared_error / self.n_entries))


def _float(f: Fraction) -> float:
    try:
        return float(f)
    except OverflowError:
        return math.inf


#: The int64 entries (limbs times columns times samples) a chunk's largest limb array holds, about: the samples per
#: chunk are this divided by the row width, so that the memory of the exact residual does not grow with n.
CHUNK_ENTRIES = 1 << 21


def exact_residual(network: Network, instance: Instance, *, max_listed: int | None = 10_000,
                   chunk: int | None = None, method: str = "auto") -> Residual:
    """The exact residual of ``network`` on ``instance`` (prediction minus labels, over Q), streamed by samples.

    The samples are taken ``chunk`` at a time (default: :data:`CHUNK_ENTRIES` over the row width), so that only one
    chunk's exact integers are held at once. A ReLU network on numbers of at most
    :data:`~exactrelu.exact.bulk.MAX_LIMBS` limbs goes by :mod:`exactrelu.exact.codecs.limbs` (int64 limb arrays, exact
    by the bounds there; every input float64 array read without converting it to FLINT); anything else (powers, huge
    entries) by FLINT products per chunk. Both give every difference as an integer over a known denominator, so the sums
    are exact integer sums per denominator; ``max_listed`` caps the list of failing entries kept (``max_listed=None``
    keeps all of them, as a ``realizes-except`` certificate needs). ``method="flint"`` takes the FLINT route whatever
    the network (the reference the limb route is tested against); ``"auto"`` chooses as above.

    >>> from exactrelu.instances import planted
    >>> inst = planted(d=3, k=2, m=2, n=50, seed=2, noise="gaussian:0.1")
    >>> whole, streamed = exact_residual(inst.planted, inst), exact_residual(inst.planted, inst, chunk=7)
    >>> whole == streamed, whole.n_failing
    (True, 100)
    """
    if network.d != instance.d or network.m != instance.m:
        raise InvalidInput(f"the network has d={network.d}, m={network.m}; the instance has d={instance.d}, m={instance.m}")
    n, m = instance.n, instance.m
    if chunk is None:
        chunk = max(1, CHUNK_ENTRIES // (8 * (sum(network.widths) + m + 2)))
    else:
        chunk = check_positive_integer(chunk, "chunk (samples)")
    if method not in ("auto", "flint"):
        raise InvalidInput(f"method must be 'auto' or 'flint', got {method!r}")
    sums = _Sums(m, max_listed)
    route = _LimbRoute.build(network, instance) if method == "auto" else None
    rows: dict = {}  # the exact rows of a matrix without a float64 source, read once (FLINT route)
    done = 0
    if route is not None:  # chunks on the idle cores (threads), their sums added in order
        try:
            for stop, part in map_blocks(lambda a, b: (b, route.part(a, b)), n, chunk,
                                         parallel.bulk_workers(n * (instance.d + m))):
                sums.add(*part)
                done = stop
        except InvalidInput:  # a limb product could leave int64 (weights of thousands of bits): FLINT from here on
            pass
    for start in range(done, n, chunk):
        _flint_chunk(sums, network, instance, start, min(n, start + chunk), rows)
    return sums.residual(n * m)


def differing_samples(network: Network, inputs: QMatrix, labels: QMatrix) -> list[int]:
    """The samples (rows of ``inputs``) where ``network`` differs from ``labels`` in some output, exactly: by limb
    products when the limb route applies (a ReLU network; float64 data read from their floats), else by FLINT.

    >>> net = Network.from_rows([[1]], [[1, -1]])
    >>> differing_samples(net, QMatrix.from_rows([[1.5, 0.5], [0, 2], [3, 1]]), QMatrix.from_rows([[1], [0], [3]]))
    [2]
    """
    inst = Instance(inputs, labels, network.activation)
    route = _LimbRoute.build(network, inst)
    if route is not None:
        try:
            return route.failing_samples(0, inputs.shape[0]).tolist()
        except InvalidInput:  # a limb product could leave int64: FLINT
            pass
    P = network.evaluate_exact(inputs)
    if P == labels:
        return []
    R = P.num * int(labels.den) - labels.num * int(P.den)
    m = labels.shape[1]
    return sorted({i // m for i, v in enumerate(R.entries()) if v != 0})


class _Sums:
    """The running exact sums of a residual: squared differences and squared labels per denominator, the
    largest |difference| (numerator, denominator, flat index), and the differing entries (flat indices)."""

    def __init__(self, m: int, max_listed: int | None) -> None:
        self.m, self.max_listed = m, max_listed
        self.squares: dict[int, int] = {}
        self.labels: dict[int, int] = {}
        self.n_failing, self.first, self.listed = 0, None, []
        self.worst = (0, 1, None)

    def add(self, squares: int, den: int, labels: int, lden: int, failing, worst: tuple) -> None:
        """One chunk: its sums (over den**2 and lden**2), its differing flat indices (ascending), its largest
        |difference| as (numerator, den, flat index), or None when every entry is equal."""
        self.squares[den] = self.squares.get(den, 0) + squares
        self.labels[lden] = self.labels.get(lden, 0) + labels
        count = len(failing)
        if not count:
            return
        if self.first is None:
            self.first = int(failing[0])
        room = count if self.max_listed is None else max(0, self.max_listed - len(self.listed))
        self.listed += [int(i) for i in failing[:room]]
        self.n_failing += count
        p, q, _ = self.worst
        if worst[0] * q > p * worst[1]:  # strictly larger: the first of equal ones stays
            self.worst = worst

    def residual(self, entries: int) -> Residual:
        m = self.m
        p, q, where = self.worst
        return Residual(
            squared_error=sum((Fraction(s, d * d) for d, s in self.squares.items()), Fraction(0)),
            max_abs_error=Fraction(p, q),
            label_norm_sq=sum((Fraction(s, d * d) for d, s in self.labels.items()), Fraction(0)),
            n_failing=self.n_failing,
            n_entries=entries,
            worst=None if where is None else divmod(where, m),
            first=None if self.first is None else divmod(self.first, m),
            failing=[divmod(i, m) for i in self.listed],
            complete=len(self.listed) == self.n_failing,
        )


class _LimbRoute:
    """The residual of a ReLU network by limb arrays (:class:`exactrelu.exact.bulk.TwoLayer`: integer products by
    float64 BLAS, exact by the bounds of :mod:`exactrelu.exact.codecs.limbs`), chunk by chunk:
    ``prediction - label = R / (K DY)`` with ``R = DY S - K NY`` (S the outputs over K, NY the labels over DY).
    """

    def __init__(self, net: TwoLayer, X: Rows, Y: Rows) -> None:
        self.net, self.X, self.Y = net, X, Y
        self.DY, self.den = net.DY, net.K * net.DY

    @classmethod
    def build(cls, network: Network, instance: Instance) -> "_LimbRoute | None":
        """The route, or None when it does not apply (a power activation, another depth than two, an operand of over
        MAX_LIMBS limbs)."""
        if network.activation.degree != 1 or network.depth != 2 or network.d != instance.d or network.m != instance.m:
            return None
        X, Y = Rows(instance.inputs), Rows(instance.labels)
        if max(X.bits, Y.bits) > limbs.W * MAX_LIMBS:
            return None
        net = TwoLayer.build(
            NV=[[int(x) for x in r] for r in network.V.num.tolist()], DV=int(network.V.den),
            NU=[[int(x) for x in r] for r in network.U.num.tolist()], DU=int(network.U.den),
            Nb=[int(x) for x in network.b.num.entries()] if network.has_bias else None,
            Db=int(network.b.den) if network.has_bias else 1,
            Nc=[int(x) for x in network.c.num.entries()] if network.has_output_bias else None,
            Dc=int(network.c.den) if network.has_output_bias else 1, Dx=X.den, DY=Y.den)
        return None if net is None else cls(net, X, Y)

    def differences(self, start: int, stop: int) -> np.ndarray:
        """``R = (prediction - label) K DY`` of samples start..stop-1 as balanced limbs (L, m, B); InvalidInput when a
        product could leave int64 (the caller then takes FLINT)."""
        return self.net.differences(self.X, self.Y, start, stop)

    def part(self, start: int, stop: int) -> tuple:
        """Samples start..stop-1: the arguments of :meth:`_Sums.add` (their exact sums, failing entries, worst)."""
        R = self.differences(start, stop)  # (L, m, B)
        m = R.shape[1]
        failing = np.flatnonzero(R.any(axis=0).T)  # flat (j, r) indices j m + r, ascending
        worst = None
        if failing.size:
            A = limbs.absolute(R.transpose(0, 2, 1).reshape(R.shape[0], -1)[:, failing])
            i = limbs.argmax(A)
            worst = (limbs.to_ints(A[:, i:i + 1])[0], self.den, start * m + int(failing[i]))
        Yl = limbs.normalized(self.Y.digits(start, stop).astype(np.int64))  # balanced, for the sum of squares
        return limbs.sum_of_squares(R), self.den, limbs.sum_of_squares(Yl), self.DY, failing + start * m, worst

    def failing_samples(self, start: int, stop: int) -> np.ndarray:
        """The samples of start..stop-1 (indices from 0 at ``start``) where the network differs from the labels."""
        return np.flatnonzero(self.differences(start, stop).any(axis=(0, 1)))


def _flint_chunk(sums: _Sums, network: Network, instance: Instance, start: int, stop: int, rows: dict) -> None:
    """Samples start..stop-1 by FLINT: ``(prediction - labels) a b`` as one integer matrix (a, b the denominators)."""
    X, Y = _rows_of(instance.inputs, start, stop, rows), _rows_of(instance.labels, start, stop, rows)
    P = network.evaluate_exact(X)
    a, b = int(Y.den), int(P.den)
    R = P.num * a - Y.num * b
    m = R.ncols()
    ents = R.entries()
    failing = [i for i, v in enumerate(ents) if v]
    worst = None
    if failing:
        i = max(failing, key=lambda i: abs(ents[i]))  # the first of the largest
        worst = (abs(int(ents[i])), a * b, start * m + i)
    # exact integers throughout: float(v) overflows past 1e308 (a power-100 network's residual did)
    sums.add(_trace_gram(R), a * b, _trace_gram(Y.num), a, [start * m + i for i in failing], worst)


def _rows_of(Q: QMatrix, start: int, stop: int, rows: dict) -> QMatrix:
    """The rows start..stop-1 of Q as a QMatrix (Q itself when that is all of it; floats stay floats)."""
    if start == 0 and stop == Q.shape[0]:
        return Q
    src = Q.float_source
    if src is not None:
        return QMatrix.from_numpy(src[0][start:stop], lazy=True)
    if id(Q) not in rows:
        rows[id(Q)] = Q.num.entries()
    c = Q.shape[1]
    return QMatrix(flint.fmpz_mat(stop - start, c, rows[id(Q)][start * c:stop * c]), int(Q.den))


def _trace_gram(M) -> int:
    """``sum of squares`` of the entries of an integer matrix: trace(M^T M), computed by FLINT."""
    if M.nrows() == 0 or M.ncols() == 0:
        return 0
    G = M.transpose() * M
    return sum(int(G[i, i]) for i in range(G.nrows()))
