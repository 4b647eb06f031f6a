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

from ...errors import InvalidInput
from ...instances import Instance
from ...network import Network

__all__ = ["Residual", "exact_residual"]


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


def exact_residual(network: Network, instance: Instance, *, max_listed: int = 10_000) -> Residual:
    """The exact residual of ``network`` on ``instance`` (prediction minus labels, over Q).

    The differences are integers over one common denominator (FLINT), so the sums are exact
    integer sums; ``max_listed`` caps the list of failing entries kept
    (``max_listed=None`` keeps all of them, as a ``realizes-except`` certificate needs).
    """
    if network.d != instance.d or network.m != instance.m:
        raise InvalidInput(f"the network has d={network.d}, m={network.m}; the instance has d={instance.d}, m={instance.m}")
    P = network.evaluate_exact(instance.inputs)
    a, b = int(instance.labels.den), int(P.den)
    R = P.num * a - instance.labels.num * b  # (prediction - labels) * a * b, integers
    m = R.ncols()
    den = a * b
    sq = _trace_gram(R)  # sum of squares in FLINT (C), not a Python loop over n * m integers
    lab = _trace_gram(instance.labels.num)
    ents = R.entries()
    # exact integers throughout: float(v) overflows past 1e308 (a power-100 network's residual did)
    bad_idx = np.array([i for i, v in enumerate(ents) if v], dtype=np.int64)
    n_bad = int(bad_idx.size)
    worst = max(bad_idx.tolist(), key=lambda i: abs(ents[i])) if n_bad else None
    listed = bad_idx.tolist() if max_listed is None else bad_idx[:max_listed].tolist()
    return Residual(
        squared_error=Fraction(sq, den * den),
        max_abs_error=Fraction(abs(int(ents[worst])), den) if n_bad else Fraction(0),
        label_norm_sq=Fraction(lab, a * a),
        n_failing=n_bad,
        n_entries=len(ents),
        worst=divmod(worst, m) if n_bad else None,
        first=divmod(int(bad_idx[0]), m) if n_bad else None,
        failing=[divmod(int(i), m) for i in listed],
        complete=len(listed) == n_bad,
    )


def _trace_gram(M) -> int:
    """``sum of squares`` of the entries of an integer matrix: trace(M^T M), computed by FLINT."""
    if M.nrows() == 0 or M.ncols() == 0:
        return 0
    G = M.transpose() * M
    return sum(int(G[i, i]) for i in range(G.nrows()))
