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

from __future__ import annotations

__all__ = ["recover", "RecoveryResult", "UnitRecord", "ROUTES"]


def __getattr__(name: str):
    """The front door's names, imported when first asked for: a module of this package (``views``, ``diagnosis``)
    is imported without the routes, the float proposers and SciPy (0.6 s of ``hardness decide``'s start)."""
    if name in __all__:
        from . import front_door

        return getattr(front_door, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
