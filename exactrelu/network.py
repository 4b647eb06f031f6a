"""The model: ``labels = f(inputs @ V.T + b) @ U.T + c`` with U (m x k), V (k x d), hidden biases b (k), output bias c (m).

The activation ``f`` is the ReLU ``max(t, 0)`` or the rectified power ``t**c`` for t > 0
(0 otherwise), c a positive integer. Both are positively homogeneous of degree c (ReLU: 1),
so ``U f(V x + b) = (U D**-c) f(D V x + D b)`` for a positive diagonal D, and units can be
permuted. :meth:`Network.canonical` picks one representative per class (docs/design.md): each
unit's (V_i, b_i) is scaled so that the first non-zero entry of V_i is +1 or -1, the scale moves
into U's column, and units are sorted by (V_i, b_i). A unit with V_i = 0 is a constant,
``U[:, i] f(b_i)``: it is written with b_i = 1 when b_i > 0. A dead unit (zero column of U, or
V_i = 0 and b_i <= 0) computes 0 and is written all zero. ``b = None`` means no hidden biases (zero);
``c = None`` means no output bias (zero), so every network and file made before c existed keeps its meaning.
The output bias is what PyTorch's ``nn.Linear(k, m)`` adds by default; it is part of the canonical form
as it is (positive rescaling of units leaves it unchanged).

>>> net = Network.from_rows(U=[[1, 2]], V=[[2, 0], [-1, 1]])
>>> X = QMatrix.from_rows([[1, 1], [-1, 3]])
>>> net.evaluate_exact(X).to_fractions()
[[Fraction(2, 1)], [Fraction(8, 1)]]
>>> can = net.canonical()
>>> can.V.to_fractions(), can.U.to_fractions()
([[Fraction(-1, 1), Fraction(1, 1)], [Fraction(1, 1), Fraction(0, 1)]], [[Fraction(2, 1), Fraction(2, 1)]])
>>> can.equivalent(net)
True
>>> biased = Network.from_rows(U=[[1, 2]], V=[[2, 0], [-1, 1]], b=[-1, "1/2"])
>>> biased.evaluate_exact(X).to_fractions()
[[Fraction(2, 1)], [Fraction(9, 1)]]
>>> biased.canonical().b_fractions()
[Fraction(1, 2), Fraction(-1, 2)]
>>> shifted = Network.from_rows(U=[[1, 2]], V=[[2, 0], [-1, 1]], c=["1/3"])
>>> shifted.evaluate_exact(X).to_fractions()
[[Fraction(7, 3)], [Fraction(25, 3)]]
>>> shifted.equivalent(net), shifted.c_fractions()
(False, [Fraction(1, 3)])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from .errors import InvalidInput
from .limits import limit, over
from .exact.codecs.float64 import as_float_array, int_times_dyadic
from .exact.matrix import QMatrix


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


def _bias_column(b, k: int, name: str = "b") -> QMatrix | None:
    """``b`` (None, k rationals, a k-vector array or a k x 1 QMatrix) as a k x 1 QMatrix, or None."""
    if b is None:
        return None
    if isinstance(b, QMatrix):
        col = b
    elif isinstance(b, np.ndarray):
        col = QMatrix.from_numpy(as_float_array(b.reshape(-1, 1), name=name), name=name) if b.size else None
    elif not isinstance(b, (list, tuple)):
        raise InvalidInput(f"{name} must be a list of {_SIZE[name]} = {k} rationals, got {type(b).__name__}")
    else:
        col = QMatrix.coerce([[x] for x in b], name=name) if len(b) else None
    if col is None or col.shape != (k, 1):
        raise InvalidInput(f"{name} must have {_SIZE[name]} = {k} entries, got shape {None if col is None else col.shape}")
    return col


_SIZE = {"b": "k", "c": "m"}


@dataclass(frozen=True, eq=False)
class Network:
    """Weights ``U`` (m x k) and ``V`` (k x d), hidden biases ``b`` (k x 1, or None for zero), output bias ``c``
    (m x 1, or None for zero), exact, and an activation."""

    U: QMatrix
    V: QMatrix
    activation: Activation = RELU
    b: QMatrix | None = None
    c: QMatrix | None = None

    def __post_init__(self):
        if not isinstance(self.U, QMatrix) or not isinstance(self.V, QMatrix):
            raise InvalidInput("Network weights must be QMatrix; use Network.from_rows or Network.from_arrays")
        if self.U.shape[1] != self.V.shape[0]:
            raise InvalidInput(f"U has {self.U.shape[1]} columns but V has {self.V.shape[0]} rows (both must be k)")
        if self.b is not None and (not isinstance(self.b, QMatrix) or self.b.shape != (self.V.shape[0], 1)):
            raise InvalidInput(f"b must be a {self.V.shape[0]} x 1 QMatrix or None; use Network.from_rows(..., b=[...])")
        if self.c is not None and (not isinstance(self.c, QMatrix) or self.c.shape != (self.U.shape[0], 1)):
            raise InvalidInput(f"c must be a {self.U.shape[0]} x 1 QMatrix or None; use Network.from_rows(..., c=[...])")

    @classmethod
    def from_rows(cls, U, V, activation: Activation = RELU, b=None, c=None) -> "Network":
        """Build from nested rows of rationals (ints, Fractions, floats taken exactly, strings); ``b``: k of them,
        ``c``: m of them."""
        Uq, Vq = QMatrix.coerce(U, name="U"), QMatrix.coerce(V, name="V")
        return cls(Uq, Vq, activation, _bias_column(b, Vq.shape[0]), _bias_column(c, Uq.shape[0], "c"))

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

    @property
    def has_bias(self) -> bool:
        """True when some hidden bias is non-zero."""
        return self.b is not None and any(x != 0 for x in self.b.num.entries())

    def b_fractions(self) -> list[Fraction]:
        """The hidden biases as k Fractions (zeros when ``b`` is None)."""
        return [Fraction(0)] * self.k if self.b is None else [r[0] for r in self.b.to_fractions()]

    @property
    def has_output_bias(self) -> bool:
        """True when some output bias is non-zero."""
        return self.c is not None and any(x != 0 for x in self.c.num.entries())

    def c_fractions(self) -> list[Fraction]:
        """The output bias as m Fractions (zeros when ``c`` is None)."""
        return [Fraction(0)] * self.m if self.c is None else [r[0] for r in self.c.to_fractions()]

    def without_output_bias(self) -> "Network":
        """The same hidden layer and U, with c = 0 (the labels minus c are what this network computes)."""
        return Network(self.U, self.V, self.activation, self.b)

    def pre_activations_exact(self, inputs: QMatrix) -> QMatrix:
        """``V X + b 1^T`` (k x n) exactly, X = inputs.T (the papers' orientation)."""
        if inputs.shape[1] != self.d:
            raise InvalidInput(f"inputs have {inputs.shape[1]} columns, the network expects d = {self.d}")
        src = inputs.float_source
        P = int_times_dyadic(self.V.num.tolist(), *src) if src is not None else None
        if P is None:
            P = self.V.num * inputs.num.transpose()
        den = int(self.V.den) * int(inputs.den)
        if not self.has_bias:
            return QMatrix(P, den)
        bd = int(self.b.den)
        shift = flint.fmpz_mat(P.nrows(), 1, [int(x) * den for x in self.b.num.entries()])  # b_i * bd * den
        ones = flint.fmpz_mat(1, P.ncols(), [1] * P.ncols())
        return QMatrix(P * bd + shift * ones, den * bd)  # FLINT products: no Python loop over k * n entries

    def hidden_exact(self, inputs: QMatrix) -> QMatrix:
        """``f(V X + b 1^T)`` (k x n) exactly, X = inputs.T (the papers' orientation)."""
        self.check_exact_size(inputs)
        P = self.pre_activations_exact(inputs)
        c = self.activation.degree
        return QMatrix(self.activation.apply_fmpz_mat(P.num), int(P.den) ** c)

    def check_exact_size(self, inputs: QMatrix) -> None:
        """Refuse, before computing anything, an exact evaluation on ``inputs`` whose integers would have more
        decimal digits than the limit ``intermediate``: the pre-activations' numerators and denominator bounded
        from the entries' sizes, to the power c (power:100 with V = "1e4299" took 18 s and 856 MB, then overflowed).

        >>> net = Network.from_rows([[1]], [["1e4299"]], Activation.power(100))
        >>> net.check_exact_size(QMatrix.from_rows([[1]]))
        Traceback (most recent call last):
        ...
        exactrelu.errors.InvalidInput: the exact evaluation (pre-activations of up to about 4,300 digits, to the power 100) is over the limit intermediate=...
        """
        def bits(M: QMatrix) -> int:
            return max([0, *(x.bit_length() for x in M.num.entries())])

        X = QMatrix.coerce(inputs, name="inputs")
        den = int(self.V.den).bit_length() + int(X.den).bit_length() + (int(self.b.den).bit_length() if self.has_bias else 0)
        num = bits(self.V) + bits(X) + (self.d + 1).bit_length() + (bits(self.b) + int(self.b.den).bit_length() if self.has_bias else 0)
        top, c = max(num, den), self.activation.degree
        if c * top > limit("intermediate") * 3322 // 1000 + 1:
            raise over("intermediate", f"the exact evaluation (pre-activations of up to about {(top * 30103 + 99999) // 100000:,} "
                                       f"digits, to the power {c})")

    def evaluate_exact(self, inputs) -> QMatrix:
        """Labels ``f(inputs @ V.T + b) @ U.T + c`` (n x m), exactly."""
        X = QMatrix.coerce(inputs, name="inputs")
        W = self.hidden_exact(X)
        P, den = (self.U.num * W.num).transpose(), int(self.U.den) * int(W.den)
        if not self.has_output_bias:
            return QMatrix(P, den)
        cd = int(self.c.den)
        ones = flint.fmpz_mat(P.nrows(), 1, [1] * P.nrows())
        shift = flint.fmpz_mat(1, P.ncols(), [int(x) * den for x in self.c.num.entries()])  # c_r * cd * den
        return QMatrix(P * cd + ones * shift, den * cd)

    def predict(self, inputs) -> np.ndarray:
        """Labels in floating point (for display and proposals, never for claims)."""
        X = as_float_array(inputs, name="inputs")
        pre = X @ self.V.to_float().T
        if self.has_bias:
            pre = pre + self.b.to_float()[:, 0]
        out = self.activation.apply_float(pre) @ self.U.to_float().T
        return out + self.c.to_float()[:, 0] if self.has_output_bias else out

    def canonical(self) -> "Network":
        """The canonical representative of the class of networks computing the same function."""
        c = self.activation.degree
        V, U, b = self.V.to_fractions(), self.U.to_fractions(), self.b_fractions()
        zero_v, zero_u = [Fraction(0)] * self.d, [Fraction(0)] * self.m
        units = []
        for i, row in enumerate(V):
            col = [U[r][i] for r in range(len(U))]
            if all(x == 0 for x in col) or (all(x == 0 for x in row) and b[i] <= 0):
                units.append((zero_v, Fraction(0), zero_u))  # a dead unit computes 0: zero it all
                continue
            s = next((abs(x) for x in row if x != 0), b[i])  # V_i = 0: a constant unit, scaled to b_i = 1
            units.append(([x / s for x in row], b[i] / s, [x * s**c for x in col]))
        units.sort(key=lambda u: (u[0], u[1], u[2]))
        k, m = len(units), len(U)
        Uc = [units[i][2][r] for r in range(m) for i in range(k)]
        Vc = [x for u in units for x in u[0]]
        bc = QMatrix.from_fractions([u[1] for u in units], k, 1) if any(u[1] != 0 for u in units) else None
        cc = self.c if self.has_output_bias else None
        return Network(QMatrix.from_fractions(Uc, m, k), QMatrix.from_fractions(Vc, k, self.d), self.activation, bc, cc)

    def equivalent(self, other: "Network") -> bool:
        """True when both have equal canonical forms (exactly); biases and output biases included (None equals zero).

        This is equality of parameters up to permutation and positive rescaling of units, not equality of
        functions: ``relu(z) - relu(-z)`` and ``z`` are the same function with different parameters. For
        equality of functions on all of R^d, with a certificate either way, use
        :func:`exactrelu.equiv.functionally_equal` (docs/equivalence.md).
        """
        if self.activation.degree != other.activation.degree or self.U.shape != other.U.shape or self.V.shape != other.V.shape:
            return False
        a, b = self.canonical(), other.canonical()
        return a.U == b.U and a.V == b.V and a.b_fractions() == b.b_fractions() and a.c_fractions() == b.c_fractions()

    def parameter_error(self, other: "Network") -> Fraction:
        """Largest absolute entry difference between the canonical forms (exact; both biases included)."""
        a, b = self.canonical(), other.canonical()
        if a.U.shape != b.U.shape or a.V.shape != b.V.shape:
            raise InvalidInput(f"cannot compare networks of shapes {a.U.shape},{a.V.shape} and {b.U.shape},{b.V.shape}")
        err = Fraction(0)
        pairs = ((a.U.to_fractions(), b.U.to_fractions()), (a.V.to_fractions(), b.V.to_fractions()),
                 ([a.b_fractions()], [b.b_fractions()]), ([a.c_fractions()], [b.c_fractions()]))
        for A, B in pairs:
            for ra, rb in zip(A, B):
                for x, y in zip(ra, rb):
                    err = max(err, abs(x - y))
        return err

    def to_json(self) -> dict:
        """``{"U", "V", "activation"}`` with rational strings, plus ``"b"`` (``"c"``) when some hidden (output) bias
        is non-zero."""
        out = {"U": self.U.to_strings(), "V": self.V.to_strings(), "activation": self.activation.to_json()}
        if self.has_bias:
            out["b"] = [r[0] for r in self.b.to_strings()]
        if self.has_output_bias:
            out["c"] = [r[0] for r in self.c.to_strings()]
        return out

    @classmethod
    def from_json(cls, obj: dict, activation: Activation | None = None) -> "Network":
        """Read ``{"U", "V"}`` with optional ``"b"``, ``"c"`` and ``"activation"``; entries are exact rationals."""
        if not isinstance(obj, dict) or "U" not in obj or "V" not in obj:
            raise InvalidInput("a network needs 'U' and 'V'")
        act = Activation.from_json(obj["activation"]) if "activation" in obj else (activation or RELU)
        b, c = obj.get("b"), obj.get("c")
        for name, v, size in (("b", b, "k"), ("c", c, "m")):
            if v is not None and not isinstance(v, list):
                raise InvalidInput(f"'{name}' must be a list of {size} rationals, got {type(v).__name__}")
        return cls.from_rows(obj["U"], obj["V"], act, b, c)

    def __repr__(self) -> str:
        bias = (", biased" if self.has_bias else "") + (", output bias" if self.has_output_bias else "")
        return f"Network(m={self.m}, k={self.k}, d={self.d}, activation={self.activation}{bias})"
