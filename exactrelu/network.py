"""The model: ``labels = f(inputs @ V.T) @ U.T`` with U (m x k), V (k x d).

The activation ``f`` is the ReLU ``max(t, 0)`` or the rectified power ``t**c`` for t > 0
(0 otherwise), c a positive integer. Both are positively homogeneous of degree c (ReLU: 1),
so ``U f(V x) = (U D**-c) f(D V x)`` for a positive diagonal D, and units can be permuted.
:meth:`Network.canonical` picks one representative per class (DESIGN.md): each row of V is
scaled so that its first non-zero entry is +1 or -1, the scale moves into U's column, and
units are sorted by the rows of V. A dead unit (zero row of V or zero column of U) computes 0 and
is written with both zero.

>>> net = Network.from_rows(U=[[1, 2]], V=[[2, 0], [-1, 1]])
>>> X = QMatrix.from_rows([[1, 1], [-1, 3]])
>>> net.evaluate_exact(X).to_fractions()
[[Fraction(2, 1)], [Fraction(8, 1)]]
>>> can = net.canonical()
>>> can.V.to_fractions(), can.U.to_fractions()
([[Fraction(-1, 1), Fraction(1, 1)], [Fraction(1, 1), Fraction(0, 1)]], [[Fraction(2, 1), Fraction(2, 1)]])
>>> can.equivalent(net)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from .errors import InvalidInput
from .limits import limit, over
from .exact.matrix import QMatrix, as_float_array, int_times_dyadic
from .exact.rationals import to_fraction

__all__ = ["Activation", "RELU", "Network"]


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
        if isinstance(self.degree, bool) or not isinstance(self.degree, (int, np.integer)) or int(self.degree) < 1:
            raise InvalidInput(f"activation degree must be a positive integer, got {self.degree!r}")
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


@dataclass(frozen=True, eq=False)
class Network:
    """Weights ``U`` (m x k) and ``V`` (k x d), exact, and an activation."""

    U: QMatrix
    V: QMatrix
    activation: Activation = RELU

    def __post_init__(self):
        if not isinstance(self.U, QMatrix) or not isinstance(self.V, QMatrix):
            raise InvalidInput("Network weights must be QMatrix; use Network.from_rows or Network.from_arrays")
        if self.U.shape[1] != self.V.shape[0]:
            raise InvalidInput(f"U has {self.U.shape[1]} columns but V has {self.V.shape[0]} rows (both must be k)")

    @classmethod
    def from_rows(cls, U, V, activation: Activation = RELU) -> "Network":
        """Build from nested rows of rationals (ints, Fractions, floats taken exactly, strings)."""
        return cls(QMatrix.coerce(U, name="U"), QMatrix.coerce(V, name="V"), activation)

    from_arrays = from_rows

    @property
    def k(self) -> int:
        return self.V.shape[0]

    @property
    def d(self) -> int:
        return self.V.shape[1]

    @property
    def m(self) -> int:
        return self.U.shape[0]

    def hidden_exact(self, inputs: QMatrix) -> QMatrix:
        """``f(V X)`` (k x n) exactly, X = inputs.T (the papers' orientation)."""
        if inputs.shape[1] != self.d:
            raise InvalidInput(f"inputs have {inputs.shape[1]} columns, the network expects d = {self.d}")
        src = inputs.float_source
        P = int_times_dyadic(self.V.num.tolist(), *src) if src is not None else None
        if P is None:
            P = self.V.num * inputs.num.transpose()
        c = self.activation.degree
        return QMatrix(self.activation.apply_fmpz_mat(P), (int(self.V.den) * int(inputs.den)) ** c)

    def evaluate_exact(self, inputs) -> QMatrix:
        """Labels ``f(inputs @ V.T) @ U.T`` (n x m), exactly."""
        X = QMatrix.coerce(inputs, name="inputs")
        W = self.hidden_exact(X)
        return QMatrix((self.U.num * W.num).transpose(), int(self.U.den) * int(W.den))

    def predict(self, inputs) -> np.ndarray:
        """Labels in floating point (for display and proposals, never for claims)."""
        X = as_float_array(inputs, name="inputs")
        return self.activation.apply_float(X @ self.V.to_float().T) @ self.U.to_float().T

    def canonical(self) -> "Network":
        """The canonical representative of the class of networks computing the same function."""
        c = self.activation.degree
        V = self.V.to_fractions()
        U = self.U.to_fractions()
        units = []
        for i, row in enumerate(V):
            col = [U[r][i] for r in range(len(U))]
            if all(x == 0 for x in row) or all(x == 0 for x in col):  # a dead unit computes 0: zero it all
                units.append(([Fraction(0)] * len(row), [Fraction(0)] * len(col)))
                continue
            s = next(abs(x) for x in row if x != 0)
            units.append(([x / s for x in row], [x * s**c for x in col]))
        units.sort(key=lambda u: (u[0], u[1]))
        k, m = len(units), len(U)
        Vc = [u[0] for u in units]
        Uc = [[units[i][1][r] for i in range(k)] for r in range(m)]
        return Network(QMatrix.from_fractions([x for r in Uc for x in r], m, k),
                       QMatrix.from_fractions([x for r in Vc for x in r], k, self.d), self.activation)

    def equivalent(self, other: "Network") -> bool:
        """True when both have equal canonical forms (exactly)."""
        if self.activation.degree != other.activation.degree or self.U.shape != other.U.shape or self.V.shape != other.V.shape:
            return False
        a, b = self.canonical(), other.canonical()
        return a.U == b.U and a.V == b.V

    def parameter_error(self, other: "Network") -> Fraction:
        """Largest absolute entry difference between the canonical forms (exact)."""
        a, b = self.canonical(), other.canonical()
        if a.U.shape != b.U.shape or a.V.shape != b.V.shape:
            raise InvalidInput(f"cannot compare networks of shapes {a.U.shape},{a.V.shape} and {b.U.shape},{b.V.shape}")
        err = Fraction(0)
        for A, B in ((a.U, b.U), (a.V, b.V)):
            for ra, rb in zip(A.to_fractions(), B.to_fractions()):
                for x, y in zip(ra, rb):
                    err = max(err, abs(x - y))
        return err

    def to_json(self) -> dict:
        return {"U": self.U.to_strings(), "V": self.V.to_strings(), "activation": self.activation.to_json()}

    @classmethod
    def from_json(cls, obj: dict, activation: Activation | None = None) -> "Network":
        if not isinstance(obj, dict) or "U" not in obj or "V" not in obj:
            raise InvalidInput("a network needs 'U' and 'V'")
        act = Activation.from_json(obj["activation"]) if "activation" in obj else (activation or RELU)
        return cls.from_rows(obj["U"], obj["V"], act)

    def __repr__(self) -> str:
        return f"Network(m={self.m}, k={self.k}, d={self.d}, activation={self.activation})"
