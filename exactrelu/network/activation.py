"""The activation f between the layers: the ReLU ``max(t, 0)`` or the rectified power ``t**c`` (0 for t <= 0).

Both are positively homogeneous of degree c (ReLU: 1): ``f(s t) = s**c f(t)`` for s > 0.

>>> RELU.apply_int(-3), Activation.power(3).apply_int(2)
(0, 8)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import flint
import numpy as np

from ..errors import InvalidInput
from ..validation import check_positive_integer
from ..limits import limit, over

__all__ = ["Activation", "RELU"]


@dataclass(frozen=True)
class Activation:
    """ReLU (``name="relu"``) or the rectified power t^c (``name="power"``, ``degree=c``).

    >>> Activation.power(2).apply_float(np.array([-1.0, 3.0]))
    array([0., 9.])
    >>> Activation.from_json({"name": "relu"}) == RELU
    True
    """

    name: str = "relu"
    degree: int = 1

    def __post_init__(self):
        if self.name not in ("relu", "power"):
            raise InvalidInput(f"unknown activation {self.name!r} (expected 'relu' or 'power')")
        check_positive_integer(self.degree, "activation degree")
        if self.name == "relu" and self.degree != 1:
            raise InvalidInput("the ReLU has degree 1; use Activation.power(c) for t^c")
        if int(self.degree) > limit("degree"):  # t^c costs c times the digits of t: bounded before any work
            raise over("degree", f"the activation degree {self.degree}")

    @classmethod
    def relu(cls) -> "Activation":
        return cls("relu", 1)

    @classmethod
    def power(cls, degree: int) -> "Activation":
        return cls("power", int(degree))

    @classmethod
    def from_json(cls, obj: Any) -> "Activation":
        """Read ``{"name": "relu"}`` or ``{"name": "power", "degree": c}``."""
        if not isinstance(obj, dict) or "name" not in obj:
            raise InvalidInput(f"activation must be an object with a 'name', got {obj!r}")
        extra = set(obj) - {"name", "degree"}
        if extra:
            raise InvalidInput(f"unknown activation fields {sorted(extra)}")
        if "degree" in obj and type(obj["degree"]) is not int:
            raise InvalidInput(f"activation degree must be an integer, got {obj['degree']!r}")
        if obj["name"] == "relu":
            if obj.get("degree", 1) != 1:
                raise InvalidInput("the ReLU has degree 1")
            return cls.relu()
        if obj["name"] == "power":
            if "degree" not in obj:
                raise InvalidInput("a power activation needs a 'degree'")
            return cls("power", obj["degree"])
        raise InvalidInput(f"unknown activation {obj['name']!r} (expected 'relu' or 'power')")

    @classmethod
    def parse(cls, text: str) -> "Activation":
        """Parse command-line text: ``relu``, ``power:3`` or ``power3``."""
        t = text.strip().lower()
        if t == "relu":
            return cls.relu()
        for prefix in ("power:", "power", "pow"):
            if t.startswith(prefix) and t[len(prefix):].isdigit():
                return cls.power(int(t[len(prefix):]))
        raise InvalidInput(f"unknown activation {text!r} (expected 'relu' or 'power:C')")

    def to_json(self) -> dict:
        return {"name": "relu"} if self.name == "relu" else {"name": "power", "degree": int(self.degree)}

    def __str__(self) -> str:
        return "relu" if self.name == "relu" else f"power:{self.degree}"

    def apply_int(self, t: int) -> int:
        """f on an integer (exact)."""
        return t**self.degree if t > 0 else 0

    def apply_fmpz_mat(self, P: flint.fmpz_mat) -> flint.fmpz_mat:
        """f entrywise on an integer matrix (exact; f(t/D) = f(t)/D**c for D > 0)."""
        c = self.degree
        if c == 1:
            vals = [x if x > 0 else 0 for x in P.entries()]
        else:
            vals = [x**c if x > 0 else 0 for x in P.entries()]
        return flint.fmpz_mat(P.nrows(), P.ncols(), vals)

    def apply_float(self, t: np.ndarray) -> np.ndarray:
        """f entrywise in floating point (proposals only)."""
        r = np.maximum(t, 0.0)
        return r if self.degree == 1 else r**self.degree


RELU = Activation.relu()
