"""Instances: the exact data record, planted generators, label noise, sparse corruption, conditioning.

:class:`Instance` holds exact inputs (n x d) and labels (n x m), optionally the planted network;
:func:`planted` draws one; :func:`read_instance` / :func:`write_instance` read and write the JSON and
``.npz`` instance files of docs/design.md.

>>> from exactrelu.instances import planted
>>> inst = planted(d=3, k=2, m=2, n=10, seed=0)
>>> inst.n, inst.d, inst.m
(10, 3, 2)
"""

from .files import read_instance, write_instance
from .instance import Instance
from .planted import INPUT_DISTRIBUTIONS, planted

__all__ = ["Instance", "planted", "read_instance", "write_instance", "INPUT_DISTRIBUTIONS"]
