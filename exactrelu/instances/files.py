"""Instances from and to their files: :mod:`exactrelu.io.instance_file` reads and writes the formats as plain
parts, this module turns those parts into an :class:`Instance` and back.

>>> import os, tempfile
>>> from exactrelu.instances import planted
>>> inst = planted(d=2, k=1, m=1, n=5, seed=0, noise="gaussian:0.1")
>>> path = write_instance(inst, os.path.join(tempfile.mkdtemp(), "i.json"))
>>> back = read_instance(path)
>>> back.labels == inst.labels, back.planted.V == inst.planted.V, str(back.noise_model)
(True, True, 'gaussian:0.1')
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..io.arrays import read_data_arrays
from ..io.instance_file import InstanceParts, read_instance_parts, write_instance_parts
from .instance import Instance
from .noise import NoiseModel

__all__ = ["read_instance", "write_instance", "read_data_files"]


def write_instance(instance: Instance, path: str | os.PathLike, *, include_planted: bool = True) -> Path:
    """Write ``instance`` as JSON (exact, ``.json``) or ``.npz`` (float64; exact only if labels are dyadic floats).

    Writing ``.npz`` refuses labels that are not exactly float64 (rather than rounding them).
    ``include_planted=False`` leaves out the planted network, clean labels and noise model.
    """
    keep = include_planted
    noise = instance.noise_model.to_json() if keep and instance.noise_model is not None else None
    parts = InstanceParts(instance.inputs, instance.labels, instance.activation,
                          instance.planted if keep else None, instance.clean_labels if keep else None, noise)
    return write_instance_parts(path, parts)


def read_instance(path: str | os.PathLike) -> Instance:
    """Read a JSON or ``.npz`` instance (docs/design.md); malformed or over-limit files raise InvalidInput.

    The rules are the independent checker's (docs/limits.md): exact fields, bounded sizes, the
    strict ``.npz`` reader of :mod:`exactrelu.io.npz`.
    """
    return _instance(read_instance_parts(path))


def read_data_files(inputs: str | os.PathLike, labels: str | os.PathLike) -> Instance:
    """The instance of an inputs file and a labels file, each ``.npy`` or CSV (:mod:`exactrelu.io.arrays`).

    >>> import numpy as np, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> np.save(os.path.join(d, "X.npy"), np.eye(2)); np.save(os.path.join(d, "Y.npy"), np.array([0.5, 1]))
    >>> read_data_files(os.path.join(d, "X.npy"), os.path.join(d, "Y.npy")).labels.to_strings()
    [['1/2'], ['1']]
    """
    return _instance(read_data_arrays(inputs, labels))


def _instance(parts: InstanceParts) -> Instance:
    if isinstance(parts.inputs, np.ndarray) or isinstance(parts.labels, np.ndarray):
        return Instance.from_arrays(parts.inputs, parts.labels)  # an .npz: float arrays, taken exactly
    model = NoiseModel.from_json(parts.noise) if parts.noise is not None else None
    return Instance(parts.inputs, parts.labels, parts.activation, parts.planted,
                    clean_labels=parts.clean_labels, noise_model=model)
