"""Label noise models for planted instances: ``labels = clean_labels + E``, E exact.

A noise model is a kind and a scale s >= 0; every kind has entry variance s**2 (the scale is the
standard deviation), so that ``||E||_F ~ s sqrt(n m)`` whatever the kind:

* ``gaussian``: N(0, s^2) i.i.d.; ``rademacher``: +-s i.i.d.; ``uniform``: uniform on
  [-s sqrt(3), s sqrt(3)] i.i.d. These three are sub-Gaussian (the COLT 2019 noisy algorithm).
* ``laplace``: Laplace with scale s / sqrt(2); ``student-t3``: Student t with 3 degrees of freedom
  times s / sqrt(3) (heavy tails: no fourth moment).
* ``adversarial``: a fixed matrix independent of the inputs but built to hurt: rank one, non-zero
  mean, concentrated on 10 % of the samples (entries +-s sqrt(10) there, 0 elsewhere), so its
  spectral norm equals its Frobenius norm (the worst case of the paper's fixed-parameter bound).

Draws are float64 and are taken *exactly* (a float64 is a dyadic rational), so noisy labels are
exact rationals and ``labels - clean_labels`` is exactly the drawn matrix.

>>> import numpy as np
>>> parse_noise("gaussian:0.05")
NoiseModel(kind='gaussian', scale=0.05)
>>> E = NoiseModel("rademacher", 0.5).draw(np.random.default_rng(0), (3, 2))
>>> sorted(set(np.abs(E).ravel().tolist()))
[0.5]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import flint
import numpy as np

from ..errors import InvalidInput
from ..validation import check_number
from ..exact.matrix import QMatrix

__all__ = ["NOISE_KINDS", "SUB_GAUSSIAN", "NoiseModel", "parse_noise", "add_exact", "subtract_exact"]

NOISE_KINDS = ("gaussian", "rademacher", "uniform", "laplace", "student-t3", "adversarial")
SUB_GAUSSIAN = ("gaussian", "rademacher", "uniform")
_MAX_SCALE = 1e12


@dataclass(frozen=True)
class NoiseModel:
    """A kind (one of :data:`NOISE_KINDS`) and a scale (the entries' standard deviation, >= 0)."""

    kind: str
    scale: float

    def __post_init__(self):
        if self.kind not in NOISE_KINDS:
            raise InvalidInput(f"unknown noise kind {self.kind!r}; choose from {', '.join(NOISE_KINDS)}")
        object.__setattr__(self, "scale", check_number(self.scale, "noise scale", minimum=0, maximum=_MAX_SCALE))

    def draw(self, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
        """A float64 noise matrix of ``shape`` (n x m) from ``rng``; every entry has variance scale**2."""
        s, (n, m) = self.scale, shape
        if self.kind == "gaussian":
            return s * rng.standard_normal(shape)
        if self.kind == "rademacher":
            return s * rng.choice([-1.0, 1.0], shape)
        if self.kind == "uniform":
            return s * math.sqrt(3.0) * rng.uniform(-1.0, 1.0, shape)
        if self.kind == "laplace":
            return rng.laplace(0.0, s / math.sqrt(2.0), shape)
        if self.kind == "student-t3":
            return (s / math.sqrt(3.0)) * rng.standard_t(3, shape)
        rows = rng.permutation(n)[: max(1, n // 10)]  # adversarial: rank one, on 10 % of the samples
        col = np.zeros(n)
        col[rows] = s * math.sqrt(n / rows.size)
        return np.outer(col, rng.choice([-1.0, 1.0], m))

    def to_json(self) -> dict:
        return {"kind": self.kind, "scale": repr(self.scale)}

    @classmethod
    def from_json(cls, obj) -> "NoiseModel":
        if not isinstance(obj, dict) or set(obj) != {"kind", "scale"}:
            raise InvalidInput(f"planted 'noise' must be an object with exactly 'kind' and 'scale', got {obj!r}")
        return parse_noise((obj["kind"], obj["scale"]))

    def __str__(self) -> str:
        return f"{self.kind}:{self.scale:g}"


def parse_noise(spec) -> NoiseModel:
    """A :class:`NoiseModel` from ``"KIND:SCALE"``, a (kind, scale) pair, or a NoiseModel.

    >>> parse_noise(("student-t3", "0.1")).scale
    0.1
    """
    if isinstance(spec, NoiseModel):
        return spec
    if isinstance(spec, str):
        kind, sep, scale = spec.strip().partition(":")
        if not sep:
            raise InvalidInput(f"noise must be KIND:SCALE (e.g. gaussian:0.05), got {spec!r}")
        spec = (kind.strip().lower(), scale)
    if not isinstance(spec, (tuple, list)) or len(spec) != 2:
        raise InvalidInput(f"noise must be 'KIND:SCALE' or a (kind, scale) pair, got {spec!r}")
    kind, scale = spec
    if isinstance(scale, str):
        try:
            scale = float(scale)
        except ValueError:
            raise InvalidInput(f"noise scale must be a number, got {scale!r}") from None
    return NoiseModel(str(kind), scale)


def _common(A: QMatrix, B: QMatrix) -> tuple[flint.fmpz_mat, flint.fmpz_mat, int]:
    if A.shape != B.shape:
        raise InvalidInput(f"shape mismatch: {A.shape} and {B.shape}")
    a, b = int(A.den), int(B.den)
    den = a * b // math.gcd(a, b)
    return A.num * (den // a), B.num * (den // b), den


def add_exact(A: QMatrix, B: QMatrix) -> QMatrix:
    """``A + B`` exactly (over the least common denominator).

    >>> add_exact(QMatrix.from_rows([["1/2"]]), QMatrix.from_rows([["1/3"]])).to_strings()
    [['5/6']]
    """
    a, b, den = _common(A, B)
    return QMatrix(a + b, den)


def subtract_exact(A: QMatrix, B: QMatrix) -> QMatrix:
    """``A - B`` exactly (over the least common denominator)."""
    a, b, den = _common(A, B)
    return QMatrix(a - b, den)
