"""The instance record: exact inputs (n x d) and labels (n x m), optionally the activation and the planted network.

An :class:`Instance` holds ``inputs`` and ``labels`` as exact :class:`~exactrelu.exact.QMatrix`.
Float inputs are kept beside their exact form so proposals need not convert back. The planted
generators are in :mod:`exactrelu.instances.planted`, the files in :mod:`exactrelu.instances.files`.

>>> inst = Instance.from_arrays([[1.5, 2], [3, 4]], [1, "1/3"])
>>> inst.n, inst.d, inst.m, inst.labels.to_strings()
(2, 2, 1, [['1'], ['1/3']])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import tensor_array
from ..exact.matrix import QMatrix
from ..limits import check_entries
from ..network import Activation, Network
from .noise import NoiseModel, subtract_exact

__all__ = ["Instance"]


@dataclass(eq=False)
class Instance:
    """Inputs (n x d) and labels (n x m), exact; optional activation and planted network."""

    inputs: QMatrix
    labels: QMatrix
    activation: Activation | None = None
    planted: Network | None = None
    inputs_float: np.ndarray | None = field(default=None, repr=False)
    labels_float: np.ndarray | None = field(default=None, repr=False)
    meta: dict = field(default_factory=dict)
    _cache: dict = field(default_factory=dict, repr=False)
    clean_labels: QMatrix | None = field(default=None, repr=False)
    noise_model: NoiseModel | None = None

    def __post_init__(self):
        if self.inputs.shape[0] != self.labels.shape[0]:
            raise InvalidInput(
                f"inputs have {self.inputs.shape[0]} samples (rows) but labels have {self.labels.shape[0]}; "
                "samples are rows in both (n x d and n x m)"
            )
        if self.planted is not None:
            if self.planted.d != self.d or self.planted.m != self.m:
                raise InvalidInput(f"planted network has d={self.planted.d}, m={self.planted.m}; the data have "
                                   f"d={self.d}, m={self.m}")
        if self.clean_labels is not None and self.clean_labels.shape != self.labels.shape:
            raise InvalidInput(f"clean labels are {self.clean_labels.shape[0]} x {self.clean_labels.shape[1]}; "
                               f"the labels are {self.n} x {self.m}")

    @classmethod
    def from_arrays(cls, inputs, labels, *, activation: Activation | None = None,
                    planted: Network | None = None) -> "Instance":
        """Build from arrays or nested rows (floats taken exactly); 1-D labels mean m = 1.

        Arrays may be NumPy arrays or PyTorch tensors (any device, float16/bfloat16/float32/float64 or
        integers, taken exactly). 1-D labels may be an array or a plain sequence of numbers (ints, floats,
        Fractions, strings).
        Float arrays are converted exactly (float16/32/64 keep a float64 view; long doubles beyond
        float64 go entry by entry); complex arrays are refused.

        >>> Instance.from_arrays([[1, 2], [3, 4]], ["1/2", 3]).labels.to_strings()
        [['1/2'], ['3']]
        """
        inputs, labels = tensor_array(inputs), tensor_array(labels)  # PyTorch tensors: their values, on the CPU
        if isinstance(labels, np.ndarray) and labels.ndim == 1:
            labels = labels[:, None]
        elif isinstance(labels, (list, tuple)) and not any(isinstance(y, (list, tuple, np.ndarray)) for y in labels):
            labels = [[y] for y in labels]  # a 1-D sequence of scalars: one output (an empty one stays empty)
        shapes = [np.shape(a) if isinstance(a, np.ndarray) else None for a in (inputs, labels)]
        if all(sh is not None and len(sh) == 2 for sh in shapes):
            check_entries(shapes[0][0], shapes[0][1], shapes[1][1])
        # float64 inputs and labels are converted to FLINT only if some computation needs the integer matrix
        X, Y = (QMatrix.from_numpy(a, name=name, lazy=True) if _is_float(a) else QMatrix.coerce(a, name=name)
                for a, name in ((inputs, "inputs"), (labels, "labels")))
        return cls(X, Y, activation, planted)

    @property
    def n(self) -> int:
        return self.inputs.shape[0]

    @property
    def d(self) -> int:
        return self.inputs.shape[1]

    @property
    def m(self) -> int:
        return self.labels.shape[1]

    @property
    def noise(self) -> QMatrix | None:
        """The planted label noise ``labels - clean_labels`` (exact), or None when no clean labels are known."""
        return None if self.clean_labels is None else subtract_exact(self.labels, self.clean_labels)

    def float_inputs(self) -> np.ndarray:
        """The inputs as float64, for proposals and display only (rounded when they are not dyadic)."""
        return self._float("inputs")

    def float_labels(self) -> np.ndarray:
        """The labels as float64, for proposals and display only (rounded when they are not dyadic)."""
        return self._float("labels")

    def _float(self, name: str) -> np.ndarray:
        key = f"_{name}_float"
        if key not in self._cache:
            given = getattr(self, f"{name}_float")
            exact = getattr(self, name)
            self._cache[key] = given if given is not None else exact.to_float()
        return self._cache[key]

    def input_strings(self) -> list[list[str]]:
        """Canonical rational strings of the inputs, from the exact values (cached; fast when they came
        from float64, which :meth:`QMatrix.to_strings` knows by construction)."""
        if "_input_strings" not in self._cache:
            self._cache["_input_strings"] = self.inputs.to_strings()
        return self._cache["_input_strings"]

    def label_strings(self) -> list[list[str]]:
        """Canonical rational strings of the labels, from the exact values (cached)."""
        if "_label_strings" not in self._cache:
            self._cache["_label_strings"] = self.labels.to_strings()
        return self._cache["_label_strings"]

    def __repr__(self) -> str:
        act = f", activation={self.activation}" if self.activation else ""
        pl = ", planted" if self.planted is not None else ""
        return f"Instance(n={self.n}, d={self.d}, m={self.m}{act}{pl})"


def _is_float(a) -> bool:
    """A float (or complex, to be refused) NumPy array: QMatrix.from_numpy converts it exactly."""
    return isinstance(a, np.ndarray) and a.dtype.kind in "fc"
