"""Exact weights of a two-layer ReLU network from query access (docs/extraction.md).

* :func:`extract` returns one :class:`Extraction`: the network, the queries used, a ``transcript`` certificate
  (every query and answer, the network, the windows of the lower bound on the units; checked by the independent
  checker) and the statement of what is certified and what is not.
* Oracles (:mod:`exactrelu.extract.oracles`, :mod:`exactrelu.extract.command`): a Python callable, a network, or
  a command speaking JSON lines, each counting its queries, with a budget and a time limit.
"""

from .front_door import Extraction, extract
from .command import CommandOracle
from .oracles import CallableOracle, NetworkOracle, Oracle

__all__ = ["Extraction", "extract", "Oracle", "CallableOracle", "NetworkOracle", "CommandOracle"]
