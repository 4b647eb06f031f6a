"""Exact weights of a two-layer ReLU network from query access (docs/extraction.md).

* :func:`extract` returns one :class:`Extraction`: the network, the queries used, a ``realizes`` certificate on
  the transcript of queries (checked by the independent checker) and the statement of what is proved.
* Oracles (:mod:`exactrelu.extract.oracles`): a Python callable, a network, or a command speaking JSON lines,
  each counting its queries, with a budget and a time limit.
"""

from .front_door import Extraction, extract
from .command import CommandOracle
from .oracles import CallableOracle, NetworkOracle, Oracle

__all__ = ["Extraction", "extract", "Oracle", "CallableOracle", "NetworkOracle", "CommandOracle"]
