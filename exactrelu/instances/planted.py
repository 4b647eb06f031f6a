"""Planted instances: inputs drawn as float64 (then exact), a network drawn to the recovery theorem's assumptions,
labels computed exactly.

>>> inst = planted(d=3, k=2, m=2, n=50, seed=0)
>>> inst.n, inst.d, inst.m, inst.planted.k
(50, 3, 2, 2)
>>> inst.planted.evaluate_exact(inst.inputs) == inst.labels
True
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidInput
from ..validation import as_generator, check_integer, check_number, check_positive_integer
from ..exact.linalg import rank_mod_p
from ..exact.matrix import QMatrix, as_float_array
from ..limits import check_entries, limit, over
from ..network import RELU, Activation, Network
from .instance import Instance
from .noise import add_exact, parse_noise

__all__ = ["planted", "draw_inputs", "INPUT_DISTRIBUTIONS"]

INPUT_DISTRIBUTIONS = ("gaussian", "uniform", "laplace", "rademacher-mixture", "integer")

def _rng(seed) -> np.random.Generator:
    return as_generator(seed)


def draw_inputs(rng: np.random.Generator, n: int, d: int, distribution: str, covariance=None) -> np.ndarray:
    """n x d float64 inputs of one of :data:`INPUT_DISTRIBUTIONS` (``covariance`` for gaussian inputs only).

    >>> draw_inputs(np.random.default_rng(0), 2, 3, "integer").shape
    (2, 3)
    """
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


def _draw_bias(rng, k: int, bias, name: str = "bias", size: str = "k") -> QMatrix | None:
    """The planted bias column: None, a scale s > 0 (uniform in [-s, s], quarters), or k exact values."""
    if bias is None:
        return None
    if isinstance(bias, (int, float, np.integer, np.floating)) and not isinstance(bias, bool):
        s = check_number(bias, f"{name} scale", minimum=0, maximum=1e6, strict=True)
        b = np.round(rng.uniform(-s, s, (k, 1)) * 4.0) / 4.0
        return QMatrix.from_numpy(b, name=name)
    if isinstance(bias, (list, tuple, np.ndarray)) and len(bias) == k:
        return QMatrix.coerce([[x] for x in bias], name=name)
    raise InvalidInput(f"{name} must be None, a positive scale, or {size} = {k} rationals; got {bias!r}")


def _draw_first_layer(rng, k: int, d: int, kind: str, bound: int) -> np.ndarray:
    """V (k x d): rows non-zero and pairwise non-parallel, of full row rank when k <= d."""
    for _ in range(1000):
        V = _draw_weights(rng, (k, d), kind, bound)
        if not np.all(np.abs(V).sum(axis=1) > 0):
            continue
        Vn = V / np.linalg.norm(V, axis=1, keepdims=True)
        if k > 1 and (Vn @ Vn.T - 2 * np.eye(k)).max() > 1 - 1e-12:
            continue  # two units with the same direction are not identifiable
        if k <= d and rank_mod_p(QMatrix.from_numpy(V).num) < k:
            continue  # the recovery theorem assumes V of full row rank
        return V
    # only for d = 1 with k > 2 and similar impossible requests
    raise InvalidInput(f"cannot draw {k} pairwise non-parallel rows in dimension {d}")  # pragma: no cover


def _draw_output_layer(rng, m: int, k: int, kind: str, bound: int) -> QMatrix:
    """U (m x k), redrawn (up to 1000 times) until it has full column rank k when m >= k, and no zero column
    when m < k (every unit then reaches some output)."""
    Uq = None
    for _ in range(1000):
        U = _draw_weights(rng, (m, k), kind, bound)
        if m < k and np.all(np.any(U != 0, axis=0)):
            return QMatrix.from_numpy(U)
        Uq = QMatrix.from_numpy(U)
        if m >= k and rank_mod_p(Uq.num) == k:
            break
    return Uq


def _units_vary(X: np.ndarray, V: np.ndarray, b: QMatrix | None) -> bool:
    """Whether every unit is active (V_i x + b_i > 0) on some sample and inactive (< 0) on another, provably.

    The float64 pre-activations differ from the exact ones by less than ``tol`` (a dot product of d terms
    errs by at most d * eps times the sum of the absolute terms, and ``b`` by one rounding), so a value
    beyond ``tol`` has the exact sign; a unit whose values are all within ``tol`` of 0 fails the test.
    """
    bf = np.zeros(V.shape[0]) if b is None else b.to_float()[:, 0]
    pre = X @ V.T + bf
    tol = 4 * (X.shape[1] + 2) * np.finfo(float).eps * (np.abs(X) @ np.abs(V).T + np.abs(bf)) + 1e-300
    return bool(np.all(np.any(pre > tol, axis=0)) and np.all(np.any(pre < -tol, axis=0)))


def _draw_network(rng, X: np.ndarray, k: int, m: int, weights: str, bound: int, bias, degenerate: bool):
    """(V, U, b) drawn in that order, redrawn together (up to 1000 times) until every unit is active on some
    sample and inactive on another (unless ``degenerate``); the first draw of a seed is kept when it passes,
    so such seeds give the instances they always gave."""
    for _ in range(1000):
        V = _draw_first_layer(rng, k, X.shape[1], weights, bound)
        Uq = _draw_output_layer(rng, m, k, weights, bound)
        b = _draw_bias(rng, k, bias)
        if degenerate or _units_vary(X, V, b):
            return V, Uq, b
    raise InvalidInput(f"cannot draw {k} units that are each active on some of the n = {X.shape[0]} samples and "
                       "inactive on others (too few samples, or inputs that do not vary); draw more samples, or "
                       "pass allow_degenerate=True (generate --allow-degenerate) to keep such units")


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
    allow_degenerate: bool = False,
    output_bias=None,
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
    output_bias : an output bias c, so that ``labels = f(inputs @ V.T + b) @ U.T + c`` (PyTorch's default
        ``Linear``): None (none), a positive number s (each c_r uniform in [-s, s], rounded to a multiple of 1/4),
        or a sequence of m rationals taken exactly. Drawn after the network, so the inputs and weights are those
        of the same seed without it.
    noise : label noise (:mod:`exactrelu.instances.noise`): None, ``"KIND:SCALE"`` (e.g. ``"gaussian:0.05"``),
        a (kind, scale) pair or a :class:`~exactrelu.instances.noise.NoiseModel`. It is drawn after everything
        else from the same generator (the same seed gives the same inputs and weights with or without
        noise), as float64 taken exactly; ``clean_labels`` keeps the noiseless labels and
        :attr:`Instance.noise` is exactly the drawn matrix.

    allow_degenerate : keep units that are dead or active on every sample (by default the network is
        redrawn until every unit is active on some sample and inactive on another, so that it shapes the
        labels; InvalidInput when 1000 draws fail, as for n = 1). Biases given as values count as asked for
        (``bias=[1000, 0]`` makes the first unit active on every sample, on purpose).

    U is redrawn until it has full column rank k when m >= k (the assumption of the exact-recovery theorem,
    Bakshi, Jayaram, Woodruff 2019), and until no column is zero when m < k; V until its rows are non-zero
    and pairwise non-parallel, and of full row rank when k <= d. So every planted unit contributes to the
    labels: the k printed is the k that made them.

    >>> U = planted(d=2, k=3, m=1, n=8, seed=5).planted.U.to_strings()
    >>> [column.count("0") < len(column) for column in zip(*U)]  # no zero column of U, though m < k
    [True, True, True]
    """
    for name, v in (("d", d), ("k", k), ("m", m), ("n", n), ("weight_bound", weight_bound)):
        check_positive_integer(v, name)
    check_entries(int(n), int(d), int(m), "the planted instance")
    if k > limit("units"):
        raise over("units", f"k = {k} hidden units")
    model = None if noise is None else parse_noise(noise)  # bad noise fails before any work
    rng = _rng(seed)
    X = draw_inputs(rng, n, d, inputs, covariance)
    if input_bits is not None:
        input_bits = check_integer(input_bits, "input_bits", minimum=0, maximum=40)
        X = np.ldexp(np.round(np.ldexp(X, input_bits)), -input_bits)
    given_b = bias is not None and not isinstance(bias, (int, float, np.integer, np.floating))  # chosen, not drawn
    V, Uq, b = _draw_network(rng, X, k, m, weights, weight_bound, bias, allow_degenerate or given_b)
    c = _draw_bias(rng, m, output_bias, "output_bias", "m")
    net = Network(Uq, QMatrix.from_numpy(V), activation, b, c)
    Xq = QMatrix.from_numpy(X, name="inputs", lazy=True)
    Y = net.evaluate_exact(Xq)
    meta = {"generator": "exactrelu.instances.planted", "seed": seed if isinstance(seed, int) else None,
            "inputs": inputs, "weights": weights}
    if bias is not None:
        meta["bias"] = bias if isinstance(bias, (int, float)) else "given"
    if output_bias is not None:
        meta["output_bias"] = output_bias if isinstance(output_bias, (int, float)) else "given"
    if model is None:
        return Instance(Xq, Y, activation, net, X, None, meta)
    E = QMatrix.from_numpy(model.draw(rng, (n, m)), name="noise")
    meta["noise"] = str(model)
    return Instance(Xq, add_exact(Y, E), activation, net, X, None, meta, clean_labels=Y, noise_model=model)
