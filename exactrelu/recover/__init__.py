"""Polynomial routes that turn data (and a float proposal) into certified weights, under stated assumptions.

:func:`recover` is the front door (``route="auto"`` chooses among the routes and names the one it
used); each route raises when it cannot certify (docs/recovery.md). Exact answers either way, with a
certified "no", are in :mod:`exactrelu.decide`.

>>> from exactrelu.instances import planted
>>> from exactrelu.recover import recover
>>> inst = planted(d=4, k=2, m=2, n=100, seed=0)
>>> recover(inst, k=2).certificate["claim"]
'realizes'
"""

from .front_door import ROUTES, RecoveryResult, UnitRecord, recover

__all__ = ["recover", "RecoveryResult", "UnitRecord", "ROUTES"]
