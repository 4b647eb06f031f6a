"""Instances: planted generators and the JSON / .npz instance files of docs/design.md.

An :class:`Instance` holds ``inputs`` (n x d) and ``labels`` (n x m) as exact
:class:`~exactrelu.exact.QMatrix`, optionally the activation and the planted network.
Float inputs are kept beside their exact form so proposals need not convert back.

>>> inst = planted(d=3, k=2, m=2, n=50, seed=0)
>>> inst.n, inst.d, inst.m, inst.planted.k
(50, 3, 2, 2)
>>> inst.planted.evaluate_exact(inst.inputs) == inst.labels
True
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidInput
from ..io.files import check_fields, read_bytes, read_json
from ..limits import check_entries, limit, over
from ..io.npz import read_npz_instance
from ..exact.linalg import rank_mod_p
from ..exact.matrix import QMatrix, as_float_array
from ..network import RELU, Activation, Network
from .noise import NoiseModel, add_exact, parse_noise, subtract_exact

__all__ = ["Instance", "planted", "read_instance", "write_instance", "INPUT_DISTRIBUTIONS"]

INPUT_DISTRIBUTIONS = ("gaussian", "uniform", "laplace", "rademacher-mixture", "integer")


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
                raise InvalidInput(f"planted network has d={self.planted.d}, m={self.planted.m}; the data have d={self.d}, m={self.m}")
        if self.clean_labels is not None and self.clean_labels.shape != self.labels.shape:
            raise InvalidInput(f"clean labels are {self.clean_labels.shape[0]} x {self.clean_labels.shape[1]}; "
                               f"the labels are {self.n} x {self.m}")

    @classmethod
    def from_arrays(cls, inputs, labels, *, activation: Activation | None = None, planted: Network | None = None) -> "Instance":
        """Build from arrays or nested rows (floats taken exactly); 1-D labels mean m = 1.

        1-D labels may be an array or a plain sequence of numbers (ints, floats, Fractions, strings).
        Float arrays are converted exactly (float16/32/64 keep a float64 view; long doubles beyond
        float64 go entry by entry); complex arrays are refused.

        >>> Instance.from_arrays([[1, 2], [3, 4]], ["1/2", 3]).labels.to_strings()
        [['1/2'], ['3']]
        """
        if isinstance(labels, np.ndarray) and labels.ndim == 1:
            labels = labels[:, None]
        elif isinstance(labels, (list, tuple)) and not any(isinstance(y, (list, tuple, np.ndarray)) for y in labels):
            labels = [[y] for y in labels]  # a 1-D sequence of scalars: one output (an empty one stays empty)
        shapes = [np.shape(a) if isinstance(a, np.ndarray) else None for a in (inputs, labels)]
        if all(sh is not None and len(sh) == 2 for sh in shapes):
            check_entries(shapes[0][0], shapes[0][1], shapes[1][1])
        # float64 inputs are converted to FLINT only if some computation needs the integer matrix
        X = QMatrix.from_numpy(inputs, name="inputs", lazy=True) if _is_float(inputs) else QMatrix.coerce(inputs, name="inputs")
        Y = QMatrix.coerce(labels, name="labels")
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


# -- planted generator ---------------------------------------------------------------------

def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise InvalidInput(f"seed must be a non-negative integer, a numpy Generator or None, got {seed!r}")
    return np.random.default_rng(seed)


def _draw_inputs(rng, n, d, distribution, covariance):
    if distribution == "gaussian":
        Z = rng.standard_normal((n, d))
        if covariance is not None:
            S = as_float_array(covariance, name="covariance")
            if S.shape != (d, d):
                raise InvalidInput(f"covariance must be {d} x {d}, got {S.shape}")
            try:
                L = np.linalg.cholesky(S)
            except np.linalg.LinAlgError:
                raise InvalidInput("covariance must be symmetric positive definite") from None
            Z = Z @ L.T
        return Z
    if covariance is not None:
        raise InvalidInput("covariance applies to gaussian inputs only")
    if distribution == "uniform":
        return rng.uniform(-1.0, 1.0, (n, d))
    if distribution == "laplace":
        return rng.laplace(0.0, 1.0, (n, d))
    if distribution == "rademacher-mixture":
        return rng.choice([-1.0, 1.0], (n, d)) + 0.25 * rng.standard_normal((n, d))
    if distribution == "integer":
        return rng.integers(-5, 6, (n, d)).astype(np.float64)
    raise InvalidInput(f"unknown input distribution {distribution!r}; choose from {INPUT_DISTRIBUTIONS}")


def _draw_weights(rng, shape, kind, bound):
    if kind == "integer":
        W = rng.integers(-bound, bound + 1, shape).astype(np.float64)
    elif kind == "dyadic":
        W = rng.integers(-4 * bound, 4 * bound + 1, shape) / 4.0
    else:
        raise InvalidInput(f"unknown weight kind {kind!r} (expected 'integer' or 'dyadic')")
    return W


def _draw_bias(rng, k: int, bias) -> QMatrix | None:
    """The planted bias column: None, a scale s > 0 (uniform in [-s, s], quarters), or k exact values."""
    if bias is None:
        return None
    if isinstance(bias, (int, float, np.integer, np.floating)) and not isinstance(bias, bool):
        s = float(bias)
        if not (np.isfinite(s) and 0 < s <= 1e6):
            raise InvalidInput(f"bias scale must be a positive number (at most 1e6), got {bias!r}")
        b = np.round(rng.uniform(-s, s, (k, 1)) * 4.0) / 4.0
        return QMatrix.from_numpy(b, name="bias")
    if isinstance(bias, (list, tuple, np.ndarray)) and len(bias) == k:
        return QMatrix.coerce([[x] for x in bias], name="bias")
    raise InvalidInput(f"bias must be None, a positive scale, or k = {k} rationals; got {bias!r}")


def planted(
    d: int,
    k: int,
    m: int,
    n: int,
    *,
    activation: Activation = RELU,
    seed: int | np.random.Generator | None = 0,
    inputs: str = "gaussian",
    covariance=None,
    weights: str = "integer",
    weight_bound: int = 3,
    input_bits: int | None = None,
    bias=None,
    noise=None,
) -> Instance:
    """A planted instance: inputs drawn as float64 (then exact), labels computed exactly.

    Parameters
    ----------
    d, k, m, n : input dimension, hidden units, outputs, samples.
    activation : ReLU (default) or ``Activation.power(c)``.
    seed : seed or ``numpy.random.Generator``; the same seed gives the same instance.
    inputs : ``"gaussian"`` (N(0, I), or N(0, covariance)), ``"uniform"``, ``"laplace"``,
        ``"rademacher-mixture"`` or ``"integer"`` (integers in [-5, 5], not in general position).
    weights : ``"integer"`` (in [-weight_bound, weight_bound]) or ``"dyadic"`` (quarters).
    input_bits : if set, inputs are rounded to multiples of ``2**-input_bits`` before use, so that
        the exact labels are short dyadic rationals that float64 (and ``.npz`` files) hold exactly.
    bias : hidden biases b, so that ``labels = f(inputs @ V.T + b) @ U.T``: None (no biases), a
        positive number s (each b_i drawn uniformly in [-s, s] and rounded to a multiple of 1/4, an
        exact dyadic), or a sequence of k rationals taken exactly.
    noise : label noise (:mod:`exactrelu.instances.noise`): None, ``"KIND:SCALE"`` (e.g. ``"gaussian:0.05"``),
        a (kind, scale) pair or a :class:`~exactrelu.instances.noise.NoiseModel`. It is drawn after everything
        else from the same generator (the same seed gives the same inputs and weights with or without
        noise), as float64 taken exactly; ``clean_labels`` keeps the noiseless labels and
        :attr:`Instance.noise` is exactly the drawn matrix.

    U is redrawn until it has full column rank k (needs m >= k) and V until its rows are
    non-zero and pairwise non-parallel, and of full row rank when k <= d: the assumptions of the
    exact-recovery theorem (Bakshi, Jayaram, Woodruff 2019).
    """
    for name, v in (("d", d), ("k", k), ("m", m), ("n", n)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InvalidInput(f"{name} must be a positive integer, got {v!r}")
    if weight_bound < 1:
        raise InvalidInput("weight_bound must be at least 1")
    check_entries(int(n), int(d), int(m), "the planted instance")
    if k > limit("units"):
        raise over("units", f"k = {k} hidden units")
    model = None if noise is None else parse_noise(noise)  # bad noise fails before any work
    rng = _rng(seed)
    X = _draw_inputs(rng, n, d, inputs, covariance)
    if input_bits is not None:
        if not 0 <= input_bits <= 40:
            raise InvalidInput("input_bits must be between 0 and 40")
        X = np.ldexp(np.round(np.ldexp(X, input_bits)), -input_bits)
    for _ in range(1000):
        V = _draw_weights(rng, (k, d), weights, weight_bound)
        if not np.all(np.abs(V).sum(axis=1) > 0):
            continue
        Vn = V / np.linalg.norm(V, axis=1, keepdims=True)
        if k > 1 and (Vn @ Vn.T - 2 * np.eye(k)).max() > 1 - 1e-12:
            continue  # two units with the same direction are not identifiable
        if k <= d and rank_mod_p(QMatrix.from_numpy(V).num) < k:
            continue  # the recovery theorem assumes V of full row rank
        break
    else:  # pragma: no cover - only for d = 1 with k > 2 and similar impossible requests
        raise InvalidInput(f"cannot draw {k} pairwise non-parallel rows in dimension {d}")
    Uq = None
    for _ in range(1000):
        U = _draw_weights(rng, (m, k), weights, weight_bound)
        Uq = QMatrix.from_numpy(U)
        if m < k or rank_mod_p(Uq.num) == k:
            break
    net = Network(Uq, QMatrix.from_numpy(V), activation, _draw_bias(rng, k, bias))
    Xq = QMatrix.from_numpy(X, name="inputs", lazy=True)
    Y = net.evaluate_exact(Xq)
    meta = {"generator": "exactrelu.instances.planted", "seed": seed if isinstance(seed, int) else None,
            "inputs": inputs, "weights": weights}
    if bias is not None:
        meta["bias"] = bias if isinstance(bias, (int, float)) else "given"
    if model is None:
        return Instance(Xq, Y, activation, net, X, None, meta)
    E = QMatrix.from_numpy(model.draw(rng, (n, m)), name="noise")
    meta["noise"] = str(model)
    return Instance(Xq, add_exact(Y, E), activation, net, X, None, meta, clean_labels=Y, noise_model=model)


# -- files ------------------------------------------------------------------------------------

def write_instance(instance: Instance, path: str | os.PathLike, *, include_planted: bool = True) -> Path:
    """Write ``instance`` as JSON (exact, ``.json``) or ``.npz`` (float64; exact only if labels are dyadic floats).

    Writing ``.npz`` refuses labels that are not exactly float64 (rather than rounding them).
    """
    path = Path(path)
    if path.suffix == ".npz":
        arrays = {}
        for name in ("inputs", "labels"):
            exact = getattr(instance, name)
            src = exact.float_source  # the float64 array the matrix was made from: equal by construction
            arr = src[0] if src is not None else exact.to_float()
            if src is None and QMatrix.from_numpy(arr) != exact:
                raise InvalidInput(f"{name} are not exactly representable as float64; write a .json instance instead")
            arrays[name] = arr
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)
        return path
    obj: dict[str, Any] = {
        "format": "exactrelu.instance",
        "version": 1,
        "inputs": instance.inputs.to_strings(),
        "labels": instance.labels.to_strings(),
    }
    if instance.activation is not None:
        obj["activation"] = instance.activation.to_json()
    if include_planted and instance.planted is not None:
        obj["planted"] = {"U": instance.planted.U.to_strings(), "V": instance.planted.V.to_strings()}
        obj["planted"].update({key: v for key, v in instance.planted.to_json().items() if key in ("b", "c")})
    if include_planted and instance.clean_labels is not None:
        obj.setdefault("planted", {})["clean_labels"] = instance.clean_labels.to_strings()
        if instance.noise_model is not None:
            obj["planted"]["noise"] = instance.noise_model.to_json()
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, separators=(",", ":"))
        fh.write("\n")
    return path


#: The fields an instance file may have (docs/design.md); ``provenance`` is free-form and not read.
INSTANCE_FIELDS = frozenset({"format", "version", "inputs", "labels", "activation", "planted", "provenance"})


def read_instance(path: str | os.PathLike) -> Instance:
    """Read a JSON or ``.npz`` instance (docs/design.md); malformed or over-limit files raise InvalidInput.

    The rules are the independent checker's (docs/limits.md): exact fields, bounded sizes, the
    strict ``.npz`` reader of :mod:`exactrelu.io.npz`.
    """
    raw = read_bytes(path, what="instance file")
    if raw[:2] == b"PK" or Path(path).suffix == ".npz":
        X, Y = read_npz_instance(path)
        return Instance.from_arrays(X, Y)
    return _read_json(Path(path), raw)


def _read_json(path: Path, raw: bytes) -> Instance:
    obj = read_json(path, what="instance file", raw=raw)
    if not isinstance(obj, dict) or obj.get("format") != "exactrelu.instance":
        raise InvalidInput(f"{path}: not an exactrelu instance (expected \"format\": \"exactrelu.instance\")")
    if obj.get("version") != 1:
        raise InvalidInput(f"{path}: unsupported instance version {obj.get('version')!r} (this reader knows 1)")
    check_fields(obj, INSTANCE_FIELDS, str(path))
    for key in ("inputs", "labels"):
        if key not in obj:
            raise InvalidInput(f"{path}: missing '{key}'")
        rows = obj[key]
        if not isinstance(rows, list) or not rows or not all(isinstance(r, list) and r for r in rows):
            raise InvalidInput(f"{path}: '{key}' must be a non-empty list of non-empty rows")
    check_entries(len(obj["inputs"]), len(obj["inputs"][0]), len(obj["labels"][0]), str(path))
    for key in ("inputs", "labels"):
        for i, r in enumerate(obj[key]):
            for x in r:
                if type(x) not in (str, int):
                    raise InvalidInput(f"{path}: '{key}' row {i} has {str(x)[:40]}; entries must be rational strings or integers")
    X = QMatrix.from_rows(obj["inputs"], name=f"{path.name}: inputs")
    Y = QMatrix.from_rows(obj["labels"], name=f"{path.name}: labels")
    act = Activation.from_json(obj["activation"]) if "activation" in obj else None
    net = clean = model = None
    if "planted" in obj:
        net, clean, model = _read_planted(path, obj["planted"], act)
    return Instance(X, Y, act, net, clean_labels=clean, noise_model=model)


_PLANTED_FIELDS = {"U", "V", "b", "c", "clean_labels", "noise"}


def _read_planted(path: Path, pl, act) -> tuple[Network | None, QMatrix | None, NoiseModel | None]:
    """The planted record: network (U, V, b, c), clean labels and noise model, each optional but strict."""
    if not isinstance(pl, dict):
        raise InvalidInput(f"{path}: 'planted' must be an object")
    unknown = set(pl) - _PLANTED_FIELDS
    if unknown:
        raise InvalidInput(f"{path}: unknown fields {sorted(unknown)} in 'planted' (known: {sorted(_PLANTED_FIELDS)})")
    net = Network.from_json(pl, act or RELU) if ("U" in pl or "V" in pl) else None
    clean = None
    if "clean_labels" in pl:
        rows = pl["clean_labels"]
        if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
            raise InvalidInput(f"{path}: 'planted.clean_labels' must be a non-empty list of rows")
        clean = QMatrix.from_rows(rows, name=f"{path.name}: planted.clean_labels")
    model = NoiseModel.from_json(pl["noise"]) if "noise" in pl else None
    return net, clean, model
