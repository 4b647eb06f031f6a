"""The fixed-parameter algorithm for arbitrary label noise independent of the inputs.

Bakshi, Jayaram and Woodruff (2019): ``A = U* f(V* X) + E``, X Gaussian, E arbitrary but independent
of X. Steps, as implemented here (papers' orientation in the comments: A is ``labels.T``):

1. Sketch: ``S A`` with S a k x m Gaussian matrix (SU* is k x k, invertible when rank U* = k);
   the sketched labels are whitened (a change of sketch).
2. Guess each row w of the pseudo-inverse of S U* on a grid: unit vectors of R^k with angular
   spacing about pi / ``resolution`` (k = 1: +-1; k = 2: a circle; k = 3: a Fibonacci sphere).
   For the right w, ``w S A = c f(v_i X) + w S E``: one unit plus noise independent of X.
3. For each guess, noisy halfspace learning on the signs: add the smoothing Gaussian (standard
   deviation ``smoothing`` times the spread of w S A), take the signs, and their sign-weighted
   average of the (whitened) inputs, which for Gaussian inputs points along v_i whatever the
   noise (Chow parameters). Each guess gives one candidate direction.
4. Keep the k candidates whose span ``f(V X)`` leaves the smallest least-squares residual
   ``min_U ||U f(V X) - A||_F`` (the paper's objective), computed for every k-subset from the
   candidates' Gram matrix. U by least squares.

With an output bias c (``offset``), ``w S A = c' f(v_i X) + w S c + noise``: still a function of v_i . x plus
independent noise, so its Chow vector still points along v_i; the signs are taken about the median (the constant
would otherwise fix most of them), and step 4 fits ``min_(U, c)``, the centerd least squares.

There are N ~ (resolution)^(k-1) candidates and C(N, k) subsets: (1/eps)^O(k^2), the paper's
fixed-parameter cost. ``max_subsets`` bounds it; past it AssumptionViolated says so (in practice
k <= 3). Measured growth: benchmarks/bench_noisy.py, part fpt.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((20000, 4)); V = np.array([[1.0, 0, 0, 0], [0, 1.0, 1.0, 0]])
>>> Y = np.maximum(X @ V.T, 0) @ np.array([[1.0, 2.0], [-1.0, 1.0]]).T + rng.laplace(0, 0.3, (20000, 2))
>>> start = fpt_start(X, Y, 2, activation=None, rng=rng)
>>> from exactrelu.propose.floats import angular_errors
>>> bool(angular_errors(start.V, V).max() < 0.1), start.info["candidates"] > 2
(True, True)
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..errors import AssumptionViolated
from ..network import RELU, Activation
from ._model import Start, best_U, best_Uc, hidden

__all__ = ["fpt_start", "sphere_grid"]


def sphere_grid(dim: int, resolution: int) -> np.ndarray:
    """Unit vectors of R^dim, spacing about pi / resolution (rows). dim 1: [[1], [-1]].

    >>> sphere_grid(2, 4).shape
    (8, 2)
    """
    if dim == 1:
        return np.array([[1.0], [-1.0]])
    if dim == 2:
        t = np.pi * np.arange(2 * resolution) / resolution
        return np.stack([np.cos(t), np.sin(t)], axis=1)
    count = max(dim + 1, int(math.ceil(resolution ** (dim - 1) * 4 / math.pi)))
    if dim == 3:  # Fibonacci sphere: near-uniform
        i = np.arange(count) + 0.5
        z = 1 - 2 * i / count
        r = np.sqrt(1 - z * z)
        phi = np.pi * (1 + 5**0.5) * i
        return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)
    G = np.random.default_rng(0).standard_normal((count, dim))  # pragma: no cover - beyond k = 3, by count
    return G / np.linalg.norm(G, axis=1, keepdims=True)  # pragma: no cover


def _whiten(M: np.ndarray) -> np.ndarray:
    """``L^-1`` with ``M^T M / n = L L^T`` (M n x q of full column rank)."""
    S = (M.T @ M) / M.shape[0]
    try:
        return np.linalg.inv(np.linalg.cholesky(S))
    except np.linalg.LinAlgError:
        raise AssumptionViolated("the data do not span their space (singular second moment)",
                                 suggestion="--method gradient") from None


def _candidates(W: np.ndarray, Ys: np.ndarray, grid: np.ndarray, smoothing: float, rng,
                centerd: bool = False) -> np.ndarray:
    """One unit direction (whitened inputs) per grid guess, by the Chow vector of smoothed signs (``centerd``:
    signs about the median, for labels with an output bias)."""
    n = W.shape[0]
    out = []
    for w in grid:
        y = Ys @ w
        spread = float(np.median(np.abs(y - np.median(y)))) or 1.0
        if centerd:
            y = y - np.median(y)
        signs = np.sign(y + smoothing * spread * rng.standard_normal(n))
        c = (W.T @ signs) / n
        nrm = float(np.linalg.norm(c))
        if nrm > 0:
            out.append(c / nrm)
    C = np.array(out)
    keep = []  # merge near-identical candidates (many guesses give one unit)
    for i, c in enumerate(C):
        if all(float(c @ C[j]) < 0.9995 for j in keep):
            keep.append(i)
    return C[keep]


def _best_subset(F: np.ndarray, Y: np.ndarray, k: int) -> tuple[tuple[int, ...], float]:
    """The k columns of F whose span fits Y best (least squares), over all k-subsets, and its residual."""
    G = F.T @ F
    B = F.T @ Y
    total = float(np.einsum("ij,ij->", Y, Y))
    subsets = np.array(list(itertools.combinations(range(F.shape[1]), k)))
    best, best_val = None, math.inf
    for chunk in np.array_split(subsets, max(1, len(subsets) // 20000)):
        Gs = G[chunk[:, :, None], chunk[:, None, :]] + 1e-12 * np.eye(k) * np.trace(G) / G.shape[0]
        Bs = B[chunk]
        try:
            sol = np.linalg.solve(Gs, Bs)
        except np.linalg.LinAlgError:  # pragma: no cover - the ridge keeps every block invertible
            continue
        vals = total - np.einsum("sij,sij->s", Bs, sol)
        i = int(np.argmin(vals))
        if vals[i] < best_val:
            best, best_val = tuple(int(x) for x in chunk[i]), float(vals[i])
    return best, best_val


def fpt_start(X: np.ndarray, Y: np.ndarray, k: int, *, activation: Activation | None, rng: np.random.Generator,
              bias: bool = False, progress=None, resolution: int | None = None, smoothing: float = 1.0,
              max_subsets: int = 5_000_000, offset: bool = False) -> Start:
    """Run the fixed-parameter algorithm (module docstring); ``info`` has the grid and subset counts."""
    act = activation or RELU
    n, d = X.shape
    m = Y.shape[1]
    if m < k:
        raise AssumptionViolated(f"the fixed-parameter algorithm guesses the inverse of a sketch of U (m x k): it needs "
                                 f"m >= k outputs (m = {m}, k = {k})", suggestion="--method gradient")
    if k > d:
        raise AssumptionViolated(f"k = {k} units cannot have independent rows in dimension d = {d}",
                                 suggestion="--method gradient")
    res = resolution or {1: 1, 2: 24, 3: 10}.get(k, 6)
    grid = sphere_grid(k, res)
    Linv = _whiten(X)
    W = X @ Linv.T
    Ys = Y @ rng.standard_normal((m, k))  # S A, k sketched outputs
    Ys = Ys @ _whiten(Ys - Ys.mean(axis=0)).T
    if progress is not None:
        progress(f"fpt: {len(grid)} guesses of a row of the inverse sketch")
    C = _candidates(W, Ys, grid, smoothing, rng, offset)
    if len(C) < k:
        raise AssumptionViolated(f"the grid gave {len(C)} distinct candidate units, fewer than k = {k}",
                                 suggestion="a finer resolution, more samples, or --method gradient")
    n_subsets = math.comb(len(C), k)
    if n_subsets > max_subsets:
        raise AssumptionViolated(f"{len(C)} candidates give {n_subsets} subsets of k = {k} (limit {max_subsets}): "
                                 "the fixed-parameter algorithm is (1/eps)^O(k^2)", suggestion="--method tensor")
    V_all = C @ Linv  # back to input coordinates: v . x = (Linv^T v_w) . x
    V_all /= np.linalg.norm(V_all, axis=1, keepdims=True)
    if progress is not None:
        progress(f"fpt: best {k} of {len(C)} candidates ({n_subsets} subsets)")
    F = hidden(X, V_all, None, act.degree)
    sub, _ = _best_subset(F - F.mean(axis=0), Y - Y.mean(axis=0), k) if offset else _best_subset(F, Y, k)
    V = V_all[list(sub)]
    info = {"grid": len(grid), "candidates": len(C), "subsets": n_subsets, "resolution": res, "smoothing": smoothing}
    if offset:
        U, c = best_Uc(X, Y, V, None, act.degree)
        return Start(U, V, None, info, c)
    return Start(best_U(X, Y, V, None, act.degree), V, None, info)
