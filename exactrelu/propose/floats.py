"""Shared float helpers of the proposers: validation, the label basis, the float screen.

Everything here is floating point and only *suggests*: the exact step of recovery confirms
or refuses every proposal. The screen (:func:`screen_unit`) asks the question the exact step
will ask, in float: do the ``k - 1 + extra`` samples on which the proposed unit is most
confidently inactive cut a one-dimensional kernel out of the label span, and is the vector it
spans free of sign changes (a rectified unit's activations)? Proposers use it to stop early,
as soon as the exact step can use their output.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((300, 4)); V = rng.standard_normal((2, 4)); U = rng.standard_normal((2, 2))
>>> Y = np.maximum(X @ V.T, 0) @ U.T
>>> Q = label_basis(Y, 2)
>>> screen_unit(Q, normalize_rows(X), V[0], 2).ok
True
>>> screen_unit(Q, normalize_rows(X), -V[0], 2).ok
False
>>> float(angular_errors(V, V[::-1] * 3.0).max()) < 1e-6
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular
from scipy.optimize import linear_sum_assignment

from .._moved import moved_names
from ..errors import InvalidInput
from ..exact.matrix import as_float_array
from ..network import Activation
from ..validation import as_generator, check_integer, check_k, normalize_rows
from ..validation import check_number as _check_number

__all__ = [
    "check_data",
    "check_k",
    "label_basis",
    "normalize_rows",
    "row_norms",
    "screen_unit",
    "screen_units",
    "Screen",
    "angular_errors",
    "as_generator",
    "hermite_constants",
    "check_int",
    "check_number",
]


def check_int(name: str, value, minimum: int = 1, *, none_ok: bool = False) -> int | None:
    """Deprecated (one release): :func:`exactrelu.validation.check_integer` (``value`` first, then the name)."""
    return check_integer(value, name, minimum=minimum, none_ok=none_ok)


def check_number(name: str, value, *, minimum: float = 0.0, strict: bool = True) -> float:
    """Deprecated (one release): :func:`exactrelu.validation.check_number` (``value`` first, then the name)."""
    return _check_number(value, name, minimum=minimum, strict=strict)


def check_activation(activation) -> Activation:
    """An :class:`~exactrelu.network.Activation`, or its text ``"relu"`` / ``"power:C"``, as an Activation."""
    if isinstance(activation, str):
        return Activation.parse(activation)
    if not isinstance(activation, Activation):
        raise InvalidInput(f"activation must be 'relu', 'power:C' or an exactrelu Activation, got {activation!r}")
    return activation


def check_data(inputs, labels, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Validate float data (n x d inputs, n x m labels; 1-D labels mean m = 1)."""
    X = as_float_array(inputs, name="inputs")
    Y = labels if isinstance(labels, np.ndarray) else as_float_array(labels, name="labels", ndim=np.ndim(labels))
    if Y.ndim == 1:
        Y = Y[:, None]
    Y = as_float_array(Y, name="labels")
    if X.shape[1] == 0:
        raise InvalidInput(f"inputs have 0 feature(s) (shape=({X.shape[0]}, 0)) while a minimum of 1 is required.")
    if X.shape[0] != Y.shape[0]:
        raise InvalidInput(f"inputs have {X.shape[0]} samples (rows) but labels have {Y.shape[0]}")
    if X.shape[0] < k:
        raise InvalidInput(f"need at least k = {k} samples, got {X.shape[0]}")
    return X, Y


def label_basis(labels: np.ndarray, k: int | None = None, rtol: float = 1e-9) -> np.ndarray:
    """Orthonormal basis (n x r) of the column space of ``labels``; r = k if given, else the numerical rank.

    With k given, r = min(k, numerical rank): callers compare r with k.
    """
    Ub, s, _ = np.linalg.svd(labels, full_matrices=False)
    if s.size == 0 or s[0] == 0:
        return Ub[:, :0]
    r = int(np.sum(s > rtol * s[0]))
    if k is not None:
        r = min(r, k)
    return Ub[:, :r]


def with_offset(labels: np.ndarray) -> np.ndarray:
    """The labels with a constant column appended, at the labels' root-mean-square scale (1 for zero labels).

    With an output bias c, ``labels = f(X V^T + b) U^T + 1 c^T`` has its columns in the span of the hidden
    activations *and the constant vector*: the span the row-span proposers search is that of these columns
    (k + 1 dimensions for k units).

    >>> with_offset(np.array([[3.0], [-3.0]])).tolist()
    [[3.0, 3.0], [-3.0, 3.0]]
    """
    s = float(np.sqrt(np.mean(labels * labels))) if labels.size else 0.0
    return np.hstack([labels, np.full((labels.shape[0], 1), s if s > 0 and np.isfinite(s) else 1.0)])


#: the old (UK) name of :func:`exactrelu.validation.normalize_rows`, kept for one release with a DeprecationWarning
__getattr__ = moved_names(__name__, {"normalised_rows": "exactrelu.validation:normalize_rows"})


def row_norms(A: np.ndarray) -> np.ndarray:
    """Euclidean norms of the rows, computed without intermediate overflow or underflow.

    >>> row_norms(np.array([[3e-300, 4e-300]])).tolist()
    [5e-300]
    """
    mx = np.abs(A).max(axis=1)
    safe = np.where(mx > 0, mx, 1.0)
    with np.errstate(over="ignore"):
        return mx * np.linalg.norm(A / safe[:, None], axis=1)


@dataclass
class Screen:
    """Result of the float screen of one proposed unit."""

    ok: bool
    reason: str
    activations: np.ndarray | None = None  # the kernel vector (n,), >= 0 up to rounding, max 1
    v: np.ndarray | None = None  # the unit re-fitted to the kernel vector (unit norm), when X was given


def screen_unit(Q: np.ndarray, Xn: np.ndarray, v: np.ndarray, k: int, extra: int = 3, rtol: float = 1e-7,
                X: np.ndarray | None = None, degree: int = 1) -> Screen:
    """Float screen of one proposed unit ``v`` against the label basis ``Q`` (n x k).

    Takes the ``k - 1 + extra`` samples with the most negative ``v . x_j / |x_j|``, asks for a
    one-dimensional kernel of ``Q`` restricted to them (doubling the number of samples while the
    kernel has dimension > 1, which happens when they are also inactive for another unit), and for the spanned vector to have no
    significantly negative entry after orientation. This is the test the exact step performs,
    with tolerances (it can only suggest; the exact step decides).

    With the inputs ``X`` given, the unit is also re-fitted: ``v`` solves ``X_S v = y_S^(1/c)``
    in least squares on the support S of the kernel vector y, and must reproduce y (rectified)
    on every sample. A unit that passes carries this polished ``v`` (near machine precision).
    :func:`screen_units` screens several rows at once (the same test, one pass over the data).
    """
    return screen_units(Q, Xn, np.asarray(v, dtype=np.float64)[None, :], k, extra, rtol, X, degree)[0]


def screen_units(Q: np.ndarray, Xn: np.ndarray, V: np.ndarray, k: int, extra: int = 3, rtol: float = 1e-7,
                 X: np.ndarray | None = None, degree: int = 1) -> list[Screen]:
    """:func:`screen_unit` for every row of ``V`` (rows x d), with one product of the data per stage.

    The margins of all rows are one product ``V Xn^T``, the kernel vectors one product with ``Q``,
    and the re-fits of the rows that reach them one product with ``X``; each re-fit solves its
    least squares by the normal equations (Cholesky), falling back to an SVD least squares when
    that fails or its fit is refused, so a row passes exactly when it would with the SVD alone
    (up to rounding).

    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); V = rng.standard_normal((2, 4))
    >>> Q = label_basis(np.maximum(X @ V.T, 0) @ rng.standard_normal((2, 2)), 2)
    >>> [s.ok for s in screen_units(Q, normalize_rows(X), np.vstack([V, -V[:1]]), 2, X=X)]
    [True, True, False]
    """
    V = np.asarray(V, dtype=np.float64).reshape(-1, Xn.shape[1])
    if Q.shape[1] < k:
        return [Screen(False, f"label span has rank {Q.shape[1]} < k = {k}") for _ in V]
    if k == 1:
        found: list = [np.ones(1)] * V.shape[0]
    else:
        ref = float(np.sqrt(np.max(np.einsum("ij,ij->i", Q, Q)))) if Q.shape[0] else 0.0
        found = [_kernel_direction(Q, scores, k, extra, rtol, ref) for scores in V @ Xn.T]
    rows = [i for i, c in enumerate(found) if not isinstance(c, Screen)]
    out: list = list(found)
    if rows:
        Yk = (Q @ np.array([found[i] for i in rows]).T).T  # one kernel vector per row
        for i, y in zip(rows, Yk):
            out[i] = _oriented(y, rtol)
    if X is not None:
        _refit_all(out, X, rtol, degree)
    return out


def _kernel_direction(Q: np.ndarray, scores: np.ndarray, k: int, extra: int, rtol: float, ref: float):
    """The coefficients (k,) in ``Q`` of the kernel on the most confidently inactive samples, or a refusal."""
    n = Q.shape[0]
    n_neg = int(np.count_nonzero(scores < 0))
    z = min(n, k - 1 + extra)
    while True:
        Z = np.argpartition(scores, z - 1)[:z] if z < n else np.arange(n)
        if scores[Z].max() >= 0:
            return Screen(False, "too few samples are proposed inactive")
        _, s, Vt = np.linalg.svd(Q[Z], full_matrices=True)
        rank = int(np.sum(s > rtol * ref))  # relative to the largest row of Q, not of Q[Z]: zero rows stay zero
        if rank >= k:
            return Screen(False, "the chosen samples do not cut a kernel from the label span (one is active)")
        if rank == k - 1:
            return Vt[k - 1]
        # the samples are also inactive for another unit: take more confidently inactive ones
        if z >= n_neg:
            return Screen(False, "kernel of dimension > 1 (inputs not in general position for this unit?)")
        z = min(2 * z, n_neg)


def _oriented(y: np.ndarray, rtol: float) -> Screen:
    """The kernel vector oriented and scaled to max 1, or the refusal of a zero or sign-changing one."""
    big = np.abs(y).max()
    if big == 0:
        return Screen(False, "zero kernel vector")
    if -y.min() > y.max():
        y = -y
    y = y / y.max()
    if y.min() < -1e3 * rtol:
        return Screen(False, "kernel vector changes sign (not a rectified unit)")
    return Screen(True, "ok", y)


def _refit_all(out: list, X: np.ndarray, rtol: float, degree: int) -> None:
    """Re-fit every passing screen of ``out`` to the inputs (in place): one product ``X W^T`` for all of them."""
    d = X.shape[1]
    todo = []  # (index, S, t, w from the normal equations or None)
    for i, sc in enumerate(out):
        if not sc.ok:
            continue
        y = sc.activations
        S = np.flatnonzero(y > 1e3 * rtol)
        if S.size < d:
            out[i] = Screen(False, f"unit active on {S.size} < d = {d} samples")
            continue
        if S.size > 8 * d:  # a well-spread subset suffices; every sample is checked below
            S = S[np.argsort(y[S])[-8 * d:]]
        t = y[S] if degree == 1 else y[S] ** (1.0 / degree)
        todo.append((i, S, t, _normal_solve(X[S], t)))
    if not todo:
        return
    F = X @ np.array([w if w is not None else np.zeros(d) for *_, w in todo]).T  # n x rows
    for (i, S, t, w), f in zip(todo, F.T):
        y = out[i].activations
        if w is None or not _fits(f, y, degree):
            w = np.linalg.lstsq(X[S], t, rcond=None)[0]  # the SVD least squares decides
            if not _fits(X @ w, y, degree):
                out[i] = Screen(False, "kernel vector is not a rectified linear function of the inputs")
                continue
        out[i] = Screen(True, "ok", y, w / np.linalg.norm(w))


def _fits(f: np.ndarray, y: np.ndarray, degree: int) -> bool:
    """Whether the products ``f = X w``, rectified (and raised to ``degree``), reproduce ``y`` to 1e-5."""
    fit = np.maximum(f, 0.0)
    fit = fit if degree == 1 else fit**degree
    return bool(np.abs(fit - y).max() <= 1e-5)


def _normal_solve(A: np.ndarray, t: np.ndarray) -> np.ndarray | None:
    """Least squares ``A w ~ t`` by the normal equations (columns scaled, Cholesky), or None if that fails.

    About 4-7 times cheaper than an SVD least squares at 8d x d; the caller checks the fit and falls back.
    """
    s = np.abs(A).max(axis=0)
    s = np.where(s > 0, s, 1.0)
    As = A / s
    try:
        L = np.linalg.cholesky(As.T @ As)
    except np.linalg.LinAlgError:
        return None
    w = solve_triangular(L.T, solve_triangular(L, As.T @ t, lower=True, check_finite=False), check_finite=False) / s
    return w if np.all(np.isfinite(w)) and np.any(w) else None


def angular_errors(V_hat: np.ndarray, V_true: np.ndarray) -> np.ndarray:
    """Angles (radians) between matched rows of ``V_hat`` and ``V_true`` (signs matter).

    Rows are matched by the assignment that maximises the total cosine (permutation and
    positive scale are unidentifiable, signs are not).
    """
    A = normalize_rows(np.asarray(V_hat, dtype=np.float64))
    B = normalize_rows(np.asarray(V_true, dtype=np.float64))
    if A.shape != B.shape:
        raise InvalidInput(f"cannot compare weights of shapes {A.shape} and {B.shape}")
    C = np.clip(A @ B.T, -1.0, 1.0)
    r, c = linear_sum_assignment(-C)
    return np.arccos(C[r, c])


def _half_moment(p: int) -> float:
    """E[z^p 1{z > 0}] for z ~ N(0, 1)."""
    from math import gamma, pi, sqrt

    return 2 ** (p / 2) * gamma((p + 1) / 2) / (2 * sqrt(pi))


def hermite_constants(activation: Activation) -> tuple[float, float, float]:
    """(c1, c2, c4): E[f(z) He_t(z)] for t = 1, 2, 4, f(t) = max(t, 0)^c, z ~ N(0, 1).

    With m(p) = E[z^p 1{z>0}] and m(p + 2) = (p + 1) m(p): c1 = m(c + 1), c2 = c m(c),
    c4 = c (c - 2) m(c). ReLU: 1/2, 1/sqrt(2 pi), -1/sqrt(2 pi); c4 vanishes for t^2.

    >>> from exactrelu.network import RELU
    >>> [round(x, 6) for x in hermite_constants(RELU)]
    [0.5, 0.398942, -0.398942]
    """
    c = activation.degree
    mc = _half_moment(c)
    return _half_moment(c + 1), c * mc, c * (c - 2) * mc
