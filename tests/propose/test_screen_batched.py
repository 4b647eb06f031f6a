"""The batched float screen and the cached gradient step agree with the plain computations they replaced.

``reference_screen`` is the screen as it was before issue 25 (one row at a time, argsort, SVD least
squares); ``reference_loss`` the plain variable-projection step. The batched screen may only differ on rows
whose verdict sits at a tolerance (near-ties of margins, fits within rounding of 1e-5).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.propose.floats import Screen, label_basis, normalize_rows, screen_unit, screen_units
from exactrelu.propose.gradient import FixedUnits, loss_and_gradient


def reference_screen(Q, Xn, v, k, extra=3, rtol=1e-7, X=None, degree=1):
    n = Q.shape[0]
    if Q.shape[1] < k:
        return Screen(False, "rank")
    if k == 1:
        y = Q[:, 0].copy()
    else:
        scores = Xn @ v
        order = np.argsort(scores)
        n_neg = int(np.sum(scores < 0))
        ref = float(np.sqrt(np.max(np.sum(Q * Q, axis=1))))
        z = min(n, k - 1 + extra)
        while True:
            Z = order[:z]
            if scores[Z].max() >= 0:
                return Screen(False, "too few")
            _, s, Vt = np.linalg.svd(Q[Z], full_matrices=True)
            rank = int(np.sum(s > rtol * ref))
            if rank >= k:
                return Screen(False, "active")
            if rank == k - 1:
                break
            if z >= n_neg:
                return Screen(False, "kernel > 1")
            z = min(2 * z, n_neg)
        y = Q @ Vt[k - 1]
    if np.abs(y).max() == 0:
        return Screen(False, "zero")
    if -y.min() > y.max():
        y = -y
    y = y / y.max()
    if y.min() < -1e3 * rtol:
        return Screen(False, "sign")
    if X is None:
        return Screen(True, "ok", y)
    S = np.flatnonzero(y > 1e3 * rtol)
    d = X.shape[1]
    if S.size < d:
        return Screen(False, "few active")
    if S.size > 8 * d:
        S = S[np.argsort(y[S])[-8 * d:]]
    t = y[S] if degree == 1 else y[S] ** (1.0 / degree)
    w = np.linalg.lstsq(X[S], t, rcond=None)[0]
    fit = np.maximum(X @ w, 0.0)
    fit = fit if degree == 1 else fit**degree
    if np.abs(fit - y).max() > 1e-5:
        return Screen(False, "not rectified")
    return Screen(True, "ok", y, w / np.linalg.norm(w))


def _instance(d, k, n, seed, degree=1, scale=1.0, dup=0, zeros=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * scale
    if dup:
        X[:dup] = X[dup:2 * dup]  # duplicated samples
    if zeros:
        X[-zeros:] = 0.0  # zero samples (on every kink)
    V = rng.standard_normal((k, d))
    Y = (np.maximum(X @ V.T, 0) ** degree) @ rng.standard_normal((k, k)).T
    return X, Y, V, rng


def _assert_same(new, old, v_new_close=True):
    assert new.ok == old.ok, (new.reason, old.reason)
    if new.ok:
        assert np.allclose(new.activations, old.activations, atol=1e-9)
        if old.v is not None:
            assert new.v is not None and float(new.v @ old.v) > 1 - 1e-9


@settings(max_examples=25, deadline=None)
@given(d=st.integers(2, 7), k=st.integers(1, 4), seed=st.integers(0, 10**6), degree=st.sampled_from([1, 2]),
       scale=st.sampled_from([1.0, 1e-150, 1e150]), dup=st.integers(0, 5), zeros=st.integers(0, 5))
def test_batched_screen_agrees_with_the_previous_screen(d, k, seed, degree, scale, dup, zeros):
    """True units, their negatives, perturbed and random rows, zero rows, duplicated and zero samples,
    extreme magnitudes: the batched screen gives the verdict (and kernel vector, re-fitted row) of the old one."""
    X, Y, V, rng = _instance(d, k, 60 * d, seed, degree, scale, dup, zeros)
    Q, Xn = label_basis(Y, k), normalize_rows(X)
    rows = np.vstack([V, -V, V + 0.01 * rng.standard_normal(V.shape), rng.standard_normal((3, d)), np.zeros((1, d))])
    batch = screen_units(Q, Xn, rows, k, X=X, degree=degree)
    for v, new in zip(rows, batch):
        old = reference_screen(Q, Xn, v, k, X=X, degree=degree)
        _assert_same(new, old)
        _assert_same(screen_unit(Q, Xn, v, k, X=X, degree=degree), old)
    for v, new in zip(rows, screen_units(Q, Xn, rows, k)):  # without X: the kernel vector only
        _assert_same(new, reference_screen(Q, Xn, v, k))


def test_batched_screen_on_degenerate_spans_and_inputs():
    X, Y, V, _ = _instance(5, 3, 300, 0)
    Xn = normalize_rows(X)
    low = label_basis(Y[:, :1] @ np.ones((1, 3)), 3)  # rank 1 < k
    assert [s.ok for s in screen_units(low, Xn, V, 3, X=X)] == [False] * 3
    Qr = label_basis(np.random.default_rng(1).standard_normal((300, 3)), 3)  # labels of no network
    for v, s in zip(V, screen_units(Qr, Xn, V, 3, X=X)):
        assert not s.ok and not reference_screen(Qr, Xn, v, 3, X=X).ok
    Xg = np.repeat(X[:40], 8, axis=0)  # few distinct samples: rank-deficient subsets, the SVD fallback decides
    Yg = np.maximum(Xg @ V.T, 0) @ np.eye(3)
    Qg, Xgn = label_basis(Yg, 3), normalize_rows(Xg)
    for v, s in zip(V, screen_units(Qg, Xgn, V, 3, X=Xg)):
        _assert_same(s, reference_screen(Qg, Xgn, v, 3, X=Xg))
    assert screen_units(Qg, Xgn, np.zeros((0, 5)), 3, X=Xg) == []


def test_normal_equations_fall_back_to_the_svd_when_the_columns_are_dependent():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 4))
    X[:, 3] = X[:, 0] + X[:, 1]  # every subset is rank deficient: Cholesky fails or its fit is refused
    v = np.array([1.0, -1.0, 0.5, 0.0])
    y = np.maximum(X @ v, 0)
    Q, Xn = label_basis(y[:, None], 1), normalize_rows(X)
    new, old = screen_units(Q, Xn, v[None], 1, X=X)[0], reference_screen(Q, Xn, v, 1, X=X)
    _assert_same(new, old)
    assert new.ok and np.allclose(np.maximum(X @ new.v, 0) * (y.max() / np.maximum(X @ new.v, 0).max()), y)


def reference_loss(theta, X, Y, scale, fixed, degree, ridge):
    d = X.shape[1]
    V = np.vstack([fixed, theta.reshape(-1, d)])
    H = X @ V.T
    P = np.maximum(H, 0.0)
    A = P**degree
    G = A.T @ A
    lam = ridge * max(np.trace(G) / G.shape[0], 1e-300)
    U = np.linalg.solve(G + lam * np.eye(G.shape[0]), A.T @ Y).T
    R = A @ U.T - Y
    dH = (R @ U) * (2.0 * scale) * (degree * P ** (degree - 1) if degree > 1 else (H > 0))
    return float(np.sum(R * R)) * scale, (dH[:, fixed.shape[0]:].T @ X).ravel()


@settings(max_examples=30, deadline=None)
@given(d=st.integers(1, 6), kf=st.integers(0, 4), kv=st.integers(1, 3), m=st.integers(1, 4), seed=st.integers(0, 10**6),
       degree=st.sampled_from([1, 2]), scale=st.sampled_from([1.0, 1e-100, 1e100]), dup_unit=st.booleans())
def test_cached_loss_and_gradient_equal_the_plain_step(d, kf, kv, m, seed, degree, scale, dup_unit):
    """Fixed rows (none, many, a duplicate of a free row), extreme magnitudes, zero rows: the step with the
    fixed rows' products cached is the plain one up to rounding."""
    rng = np.random.default_rng(seed)
    n = 50
    X = rng.standard_normal((n, d)) * scale
    Y = rng.standard_normal((n, m)) * scale
    fixed = rng.standard_normal((kf, d)) / scale
    theta = rng.standard_normal((kv, d)) / scale
    if dup_unit and kf:
        theta[0] = fixed[0]  # a free row on a fixed unit: a singular Gram matrix, the ridge keeps it regular
    if kf > 1:
        fixed[1] = 0.0  # a zero row: a zero column of activations
    s = 1.0 / float(np.sum(Y * Y))
    ref = reference_loss(theta.ravel(), X, Y, s, fixed, degree, 1e-12)
    A = np.maximum(X @ np.vstack([fixed, theta]).T, 0) ** degree
    natural = 2 * s * np.sum(Y * Y) * np.linalg.norm(X) / max(np.linalg.norm(A), 1e-300)  # the gradient's scale
    tol = 1e-2 if dup_unit and kf else 1e-6  # a singular Gram matrix regularized by 1e-12 amplifies rounding 1e12 x
    for cache in (None, FixedUnits(X, Y, fixed, degree)):
        loss, g = loss_and_gradient(theta.ravel(), X, Y, s, fixed, degree, 1e-12, cache)
        assert loss == pytest.approx(ref[0], rel=tol, abs=1e-9)
        assert np.linalg.norm(g - ref[1]) <= tol * np.linalg.norm(ref[1]) + 1e-9 * natural


def reference_moments(X, Linv, Yc):
    n, d = X.shape
    W = X @ Linv.T
    M0 = Yc.mean(axis=0)
    T2 = np.stack([(W * Yc[:, r:r + 1]).T @ W for r in range(Yc.shape[1])])
    return M0, Yc.T @ W / n, T2 / n - M0[:, None, None] * np.eye(d)[None]


@settings(max_examples=30, deadline=None)
@given(d=st.integers(1, 6), q=st.integers(1, 4), n=st.integers(1, 300), seed=st.integers(0, 10**6),
       xs=st.sampled_from([1.0, 1e-100, 1e100, 3.0]), ys=st.sampled_from([1.0, 1e-100, 1e100]),
       zero_col=st.booleans(), dup=st.booleans())
def test_single_precision_second_moments_agree_with_double(d, q, n, seed, xs, ys, zero_col, dup):
    """The float32 products of T2 (scaled by powers of two) match the float64 moments to single precision, at
    extreme magnitudes, with zero label columns, zero and duplicated samples: no overflow, no underflow."""
    from exactrelu.propose import tensor

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * xs
    Yc = rng.standard_normal((n, q)) * ys
    X[: n // 4] = 0.0
    if dup:
        X[n // 2:] = X[: n - n // 2]
    if zero_col:
        Yc[:, 0] = 0.0
    Linv = np.linalg.qr(rng.standard_normal((d, d)))[0]
    got, ref = tensor._moments(X, Linv, Yc), reference_moments(X, Linv, Yc)
    for a, b in zip(got, ref):
        assert np.all(np.isfinite(a))
        assert np.abs(a - b).max() <= 1e-5 * (np.abs(b).max() + xs * xs * ys * 1e-300)
    if zero_col:
        assert not np.any(got[2][0] + ref[0][0] * np.eye(d))  # a zero column has exactly zero products


def test_second_moments_over_many_blocks(monkeypatch):
    from exactrelu.propose import tensor

    monkeypatch.setattr(tensor, "_CHUNK", 300)
    monkeypatch.setattr(tensor, "_BLOCK32", 70)  # blocks of 70 inside chunks of 300, a short last one
    rng = np.random.default_rng(5)
    X, Yc = rng.standard_normal((1001, 4)), rng.standard_normal((1001, 3)) * np.array([1e-30, 1.0, 1e30])
    Linv = np.linalg.inv(np.linalg.cholesky(X.T @ X / 1001))
    for a, b in zip(tensor._moments(X, Linv, Yc), reference_moments(X, Linv, Yc)):
        scale = np.abs(b).reshape(b.shape[0], -1).max(axis=1) if b.ndim == 3 else np.abs(b).max()
        assert np.all(np.abs(a - b).reshape(b.shape[0], -1).max(axis=1) <= 1e-5 * scale) if b.ndim == 3 else \
            np.abs(a - b).max() <= 1e-12 * scale
