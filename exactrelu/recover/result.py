"""The record every exact route returns, and a phase timer.

>>> t = Timer(); t0 = t.add("rank", t.start())
>>> sorted(t.t)
['rank']
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..exact.matrix import QMatrix
from ..network import Network

__all__ = ["UnitRecord", "RecoveryResult", "Timer"]


@dataclass
class UnitRecord:
    """How one unit was found: the samples that pinned it down and its active set size."""

    zeros: list[int]
    support_size: int
    solved_on: list[int]
    source: str


@dataclass
class RecoveryResult:
    """A certified recovery: the canonical network, its certificate and how it was obtained.

    Attributes
    ----------
    network : the recovered network in canonical form (exact; with hidden biases ``b`` when asked).
    certificate : the ``realizes`` (or ``realizes-except``) certificate, a JSON-ready dict.
    timings : seconds per phase (conversion, rank, proposal, units, hidden, output, certificate,
        independent_check, ...; each route names its own).
    tries : random subsets (or restarts) tried by the proposers (0 if not used).
    proposer : which proposal(s) produced the units.
    rank : rank of the labels (exact).
    route : which exact route certified: ``"rowspan"``, ``"linearized"``, ``"sparse-columns"`` or
        ``"sparse-corruption"``.
    units : one :class:`UnitRecord` per unit (what pinned it down).
    checked : the independent checker's summary (None when ``check=False``).
    entries_verified : label entries verified equal exactly.
    attempts : routes tried before this one by ``route="auto"``, with the reason each gave no certificate.
    except_entries : for ``sparse-corruption``: the (sample, output) entries where the labels differ
        from the network (exactly the listed ones), else None.
    """

    network: Network
    certificate: dict
    timings: dict[str, float]
    tries: int
    proposer: str
    rank: int
    units: list[UnitRecord] = field(default_factory=list)
    checked: str | None = None
    entries_verified: int = 0
    route: str = "rowspan"
    attempts: list[dict] = field(default_factory=list)
    except_entries: list[tuple[int, int]] | None = None

    @property
    def U(self) -> QMatrix:
        return self.network.U

    @property
    def V(self) -> QMatrix:
        return self.network.V

    @property
    def b(self) -> QMatrix | None:
        return self.network.b


class Timer:
    """Seconds per named phase, accumulated."""

    def __init__(self):
        self.t: dict[str, float] = {}

    @staticmethod
    def start() -> float:
        return time.perf_counter()

    def add(self, name: str, t0: float) -> float:
        now = time.perf_counter()
        self.t[name] = self.t.get(name, 0.0) + now - t0
        return now
