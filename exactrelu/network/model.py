"""The model: affine layers ``(W_1, b_1), ..., (W_L, b_L)`` with the activation f between them and none after the last.

``net(x) = W_L f(... f(W_2 f(W_1 x + b_1) + b_2) ...) + b_L``. The two-layer network of the papers,
``labels = f(inputs @ V.T + b) @ U.T + c`` with U (m x k), V (k x d), hidden biases b (k) and output bias c (m), is
the depth-2 case (``W_1 = V, b_1 = b, W_2 = U, b_2 = c``), not a second class: ``Network(U, V, activation, b, c)``
and :meth:`Network.from_rows` build it, :meth:`Network.from_layers` builds any depth. ``U``, ``V``, ``b``, ``c``
and ``k`` are the depth-2 view and raise InvalidInput on another depth, so that no two-layer algorithm runs on a
deep network by mistake; ``layers``, ``depth``, ``widths``, ``d``, ``m``, exact and float evaluation hold for any depth.

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
>>> deep = Network.from_layers([([[1, 0], [0, 1]], [0, -1]), ([[1, -1]], None), ([[2], [-1]], [0, "1/2"])])
>>> deep.depth, deep.widths
(3, (2, 2, 1, 2))
>>> deep.evaluate_exact(X).to_fractions()
[[Fraction(2, 1), Fraction(-1, 2)], [Fraction(0, 1), Fraction(1, 2)]]
>>> deep.U
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: U is the two-layer view (U f(V x + b) + c) of a depth-2 network; this one has ...
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

import numpy as np

from ..errors import InvalidInput
from ..exact.matrix import QMatrix
from .activation import RELU, Activation
from .evaluate import check_exact_size, first_pre_activations, forward_exact, forward_float
from .layers import Layer, bias_column
from .parameters import canonical_units, largest_difference

__all__ = ["Network"]


def _rebuild(layers: tuple, activation: Activation) -> "Network":
    return Network(activation=activation, layers=layers)


class Network:
    """Affine layers (exact ``W``, ``b``) with an activation between them: any depth L >= 1.

    ``Network(U, V, activation, b, c)`` (QMatrix weights) is the two-layer network ``U f(V x + b) + c``;
    ``Network(layers=..., activation=...)`` takes :class:`~exactrelu.network.layers.Layer` records. Immutable.
    """

    __slots__ = ("_layers", "_activation")

    def __init__(self, U: QMatrix | None = None, V: QMatrix | None = None, activation: Activation = RELU,
                 b: QMatrix | None = None, c: QMatrix | None = None, *, layers: Iterable[Layer] | None = None):
        if not isinstance(activation, Activation):
            raise InvalidInput(f"activation must be an Activation, got {type(activation).__name__}")
        if layers is not None:
            if U is not None or V is not None or b is not None or c is not None:
                raise InvalidInput("give either layers= or U, V (b, c), not both")
            layers = tuple(layers)
            if not layers or not all(isinstance(x, Layer) for x in layers):
                raise InvalidInput("layers must be a non-empty sequence of Layer records; use Network.from_layers")
            for t in range(1, len(layers)):
                if layers[t].W.shape[1] != layers[t - 1].W.shape[0]:
                    raise InvalidInput(f"layer {t} takes {layers[t].W.shape[1]} inputs but layer {t - 1} has "
                                       f"{layers[t - 1].W.shape[0]} outputs")
        else:
            if not isinstance(U, QMatrix) or not isinstance(V, QMatrix):
                raise InvalidInput("Network weights must be QMatrix; use Network.from_rows or Network.from_arrays")
            if U.shape[1] != V.shape[0]:
                raise InvalidInput(f"U has {U.shape[1]} columns but V has {V.shape[0]} rows (both must be k)")
            if b is not None and (not isinstance(b, QMatrix) or b.shape != (V.shape[0], 1)):
                raise InvalidInput(f"b must be a {V.shape[0]} x 1 QMatrix or None; use Network.from_rows(..., b=[...])")
            if c is not None and (not isinstance(c, QMatrix) or c.shape != (U.shape[0], 1)):
                raise InvalidInput(f"c must be a {U.shape[0]} x 1 QMatrix or None; use Network.from_rows(..., c=[...])")
            layers = (Layer(V, b), Layer(U, c))
        object.__setattr__(self, "_layers", layers)
        object.__setattr__(self, "_activation", activation)

    def __setattr__(self, name, value):
        raise AttributeError(f"Network is immutable: cannot set {name!r}")

    def __reduce__(self):
        return _rebuild, (self._layers, self._activation)

    # -- construction ---------------------------------------------------------------------------------
    @classmethod
    def from_rows(cls, U, V, activation: Activation = RELU, b=None, c=None) -> "Network":
        """The two-layer network from nested rows of rationals (ints, Fractions, floats taken exactly, strings);
        ``b``: k of them, ``c``: m of them."""
        Uq, Vq = QMatrix.coerce(U, name="U"), QMatrix.coerce(V, name="V")
        k, m = Vq.shape[0], Uq.shape[0]
        return cls(Uq, Vq, activation, bias_column(b, k, "b", f"k = {k}"), bias_column(c, m, "c", f"m = {m}"))

    from_arrays = from_rows

    @classmethod
    def from_layers(cls, layers, activation: Activation = RELU) -> "Network":
        """Any depth from ``[(W_1, b_1), ..., (W_L, b_L)]``: W_i as rows of rationals, an array, a tensor or a
        QMatrix (out x in, as ``nn.Linear``), b_i a list, an array or None (zero).

        >>> Network.from_layers([([[1, 2]], [1]), ([[3]], None)]).widths
        (2, 1, 1)
        >>> Network.from_layers([([[1, 2]], None), ([[3, 4]], None)])
        Traceback (most recent call last):
        ...
        exactrelu.errors.InvalidInput: layer 1 takes 2 inputs but layer 0 has 1 outputs
        """
        if isinstance(layers, (str, bytes)) or not hasattr(layers, "__iter__"):
            raise InvalidInput(f"layers must be a list of (W, b) pairs, got {type(layers).__name__}")
        built = []
        for t, item in enumerate(layers):
            if isinstance(item, Layer):
                built.append(item)
                continue
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise InvalidInput(f"layer {t} must be a pair (W, b) (b may be None)")
            built.append(Layer.coerce(item[0], item[1], index=t))
        return cls(activation=activation, layers=built)

    # -- any depth ------------------------------------------------------------------------------------
    @property
    def activation(self) -> Activation:
        return self._activation

    @property
    def layers(self) -> tuple[Layer, ...]:
        """The affine layers, first to last (exact ``W`` and ``b`` each)."""
        return self._layers

    @property
    def depth(self) -> int:
        """The number of affine layers (2 for ``U f(V x + b) + c``)."""
        return len(self._layers)

    @property
    def widths(self) -> tuple[int, ...]:
        """``(d, k_1, ..., k_{L-1}, m)``: the input size, each hidden layer's size, the output size."""
        return (self.d, *(layer.W.shape[0] for layer in self._layers))

    @property
    def d(self) -> int:
        return self._layers[0].W.shape[1]

    @property
    def m(self) -> int:
        return self._layers[-1].W.shape[0]

    @property
    def has_output_bias(self) -> bool:
        """True when some output bias (the last layer's b) is non-zero."""
        return self._layers[-1].has_bias

    def c_fractions(self) -> list[Fraction]:
        """The output bias (the last layer's b) as m Fractions (zeros when absent)."""
        return self._layers[-1].b_fractions()

    def without_output_bias(self) -> "Network":
        """The same network with the last layer's bias zero."""
        return Network(activation=self._activation, layers=(*self._layers[:-1], Layer(self._layers[-1].W)))

    def with_activation(self, activation: Activation) -> "Network":
        """The same layers with another activation."""
        return Network(activation=activation, layers=self._layers)

    # -- the depth-2 view -----------------------------------------------------------------------------
    def _two(self, name: str) -> tuple[Layer, Layer]:
        if len(self._layers) != 2:
            widths = "-".join(map(str, self.widths))
            raise InvalidInput(f"{name} is the two-layer view (U f(V x + b) + c) of a depth-2 network; this one has "
                               f"depth {self.depth} (widths {widths}): use net.layers")
        return self._layers

    @property
    def U(self) -> QMatrix:
        return self._two("U")[1].W

    @property
    def V(self) -> QMatrix:
        return self._two("V")[0].W

    @property
    def b(self) -> QMatrix | None:
        return self._two("b")[0].b

    @property
    def c(self) -> QMatrix | None:
        return self._two("c")[1].b

    @property
    def k(self) -> int:
        return self._two("k")[0].W.shape[0]

    @property
    def has_bias(self) -> bool:
        """True when some hidden bias is non-zero (depth 2)."""
        return self._two("has_bias")[0].has_bias

    def b_fractions(self) -> list[Fraction]:
        """The hidden biases as k Fractions (zeros when ``b`` is None; depth 2)."""
        return self._two("b")[0].b_fractions()

    def pre_activations_exact(self, inputs: QMatrix) -> QMatrix:
        """``V X + b 1^T`` (k x n) exactly, X = inputs.T (the papers' orientation; depth 2)."""
        first = self._two("pre_activations_exact")[0]
        return first_pre_activations(first.W, first.b, inputs)

    def hidden_exact(self, inputs: QMatrix) -> QMatrix:
        """``f(V X + b 1^T)`` (k x n) exactly, X = inputs.T (the papers' orientation; depth 2)."""
        self.check_exact_size(inputs)
        P = self.pre_activations_exact(inputs)
        return QMatrix(self._activation.apply_fmpz_mat(P.num), int(P.den) ** self._activation.degree)

    # -- evaluation -----------------------------------------------------------------------------------
    def check_exact_size(self, inputs: QMatrix) -> None:
        """Refuse, before computing anything, an exact evaluation on ``inputs`` whose integers would have more
        decimal digits than the limit ``intermediate``: the pre-activations' numerators and denominators bounded
        from the entries' sizes, layer by layer, to the power c (power:100 with V = "1e4299" took 18 s and 856 MB,
        then overflowed).

        >>> net = Network.from_rows([[1]], [["1e4299"]], Activation.power(100))
        >>> net.check_exact_size(QMatrix.from_rows([[1]]))
        Traceback (most recent call last):
        ...
        exactrelu.errors.InvalidInput: the exact evaluation (pre-activations of up to about 4,300 digits,
        to the power 100) is over the limit intermediate=...
        """
        check_exact_size(self._layers, self._activation, inputs)

    def evaluate_exact(self, inputs) -> QMatrix:
        """The outputs (n x m) at the rows of ``inputs``, exactly (``f(inputs @ V.T + b) @ U.T + c`` at depth 2)."""
        X = QMatrix.coerce(inputs, name="inputs")
        self.check_exact_size(X)
        return forward_exact(self._layers, self._activation, X)

    def predict(self, inputs) -> np.ndarray:
        """The outputs in floating point (for display and proposals, never for claims)."""
        return forward_float(self._layers, self._activation, inputs)

    # -- parameters of the depth-2 network -----------------------------------------------------------
    def canonical(self) -> "Network":
        """The canonical representative of the class of networks with these parameters up to permuting and
        positively rescaling units (depth 2)."""
        U, V = self.U.to_fractions(), self.V.to_fractions()
        units = canonical_units(U, V, self.b_fractions(), self._activation.degree)
        k, m = len(units), len(U)
        Uc = [units[i][2][r] for r in range(m) for i in range(k)]
        Vc = [x for u in units for x in u[0]]
        bc = QMatrix.from_fractions([u[1] for u in units], k, 1) if any(u[1] != 0 for u in units) else None
        cc = self.c if self.has_output_bias else None
        return Network(QMatrix.from_fractions(Uc, m, k), QMatrix.from_fractions(Vc, k, self.d), self._activation, bc,
                       cc)

    def equivalent(self, other: "Network") -> bool:
        """True when both have equal canonical forms (exactly); biases and output biases included (None equals zero).

        This is equality of parameters up to permutation and positive rescaling of units, not equality of
        functions: ``relu(z) - relu(-z)`` and ``z`` are the same function with different parameters. For
        equality of functions on all of R^d, with a certificate either way, use
        :func:`exactrelu.equiv.functionally_equal` (docs/equivalence.md).
        """
        if (self._activation.degree != other.activation.degree or self.U.shape != other.U.shape
                or self.V.shape != other.V.shape):
            return False
        a, b = self.canonical(), other.canonical()
        return a.U == b.U and a.V == b.V and a.b_fractions() == b.b_fractions() and a.c_fractions() == b.c_fractions()

    def parameter_error(self, other: "Network") -> Fraction:
        """Largest absolute entry difference between the canonical forms (exact; both biases included)."""
        a, b = self.canonical(), other.canonical()
        if a.U.shape != b.U.shape or a.V.shape != b.V.shape:
            raise InvalidInput(f"cannot compare networks of shapes {a.U.shape},{a.V.shape} and {b.U.shape},{b.V.shape}")
        return largest_difference(((a.U.to_fractions(), b.U.to_fractions()), (a.V.to_fractions(), b.V.to_fractions()),
                                   ([a.b_fractions()], [b.b_fractions()]), ([a.c_fractions()], [b.c_fractions()])))

    # -- files ----------------------------------------------------------------------------------------
    def to_json(self, *, layered: bool = False) -> dict:
        """``{"U", "V", "activation"}`` with rational strings, plus ``"b"`` (``"c"``) when some hidden (output) bias
        is non-zero; another depth (or ``layered=True``) gives ``{"activation", "layers": [{"W", "b"}, ...]}``."""
        if self.depth != 2 or layered:
            return {"activation": self._activation.to_json(), "layers": [layer.to_json() for layer in self._layers]}
        out = {"U": self.U.to_strings(), "V": self.V.to_strings(), "activation": self._activation.to_json()}
        if self.has_bias:
            out["b"] = [r[0] for r in self.b.to_strings()]
        if self.has_output_bias:
            out["c"] = [r[0] for r in self.c.to_strings()]
        return out

    @classmethod
    def from_json(cls, obj: dict, activation: Activation | None = None) -> "Network":
        """Read ``{"U", "V"}`` with optional ``"b"``, ``"c"`` and ``"activation"``, or ``{"layers": [{"W", "b"}, ...]}``
        with optional ``"activation"``; entries are exact rationals."""
        if not isinstance(obj, dict) or not ({"U", "V"} <= set(obj) or "layers" in obj):
            raise InvalidInput("a network needs 'U' and 'V', or 'layers'")
        act = Activation.from_json(obj["activation"]) if "activation" in obj else (activation or RELU)
        if "layers" in obj:
            return cls._from_layers_json(obj, act)
        b, c = obj.get("b"), obj.get("c")
        for name, v, size in (("b", b, "k"), ("c", c, "m")):
            if v is not None and not isinstance(v, list):
                raise InvalidInput(f"'{name}' must be a list of {size} rationals, got {type(v).__name__}")
        return cls.from_rows(obj["U"], obj["V"], act, b, c)

    @classmethod
    def _from_layers_json(cls, obj: dict, act: Activation) -> "Network":
        clash = sorted({"U", "V", "b", "c"} & set(obj))
        if clash:
            raise InvalidInput(f"a network has 'layers' or U, V, b, c, not both (found {clash} beside 'layers')")
        layers = obj["layers"]
        if not isinstance(layers, list) or not layers:
            raise InvalidInput("'layers' must be a non-empty list of {\"W\": rows, \"b\": entries} objects")
        pairs = []
        for t, item in enumerate(layers):
            if not isinstance(item, dict) or "W" not in item or set(item) - {"W", "b"}:
                raise InvalidInput(f"layer {t} must be an object with 'W' (rows) and optionally 'b' (one per row)")
            if "b" in item and not isinstance(item["b"], list):
                raise InvalidInput(f"layer {t}: 'b' must be a list of rationals, got {type(item['b']).__name__}")
            if not isinstance(item["W"], list) or not all(isinstance(r, list) for r in item["W"]):
                raise InvalidInput(f"layer {t}: 'W' must be a list of rows of rationals")
            pairs.append((item["W"], item.get("b")))
        return cls.from_layers(pairs, act)

    def __repr__(self) -> str:
        if self.depth != 2:
            widths = "-".join(map(str, self.widths))
            return f"Network(widths={widths}, depth={self.depth}, activation={self._activation})"
        bias = (", biased" if self.has_bias else "") + (", output bias" if self.has_output_bias else "")
        return f"Network(m={self.m}, k={self.k}, d={self.d}, activation={self._activation}{bias})"
