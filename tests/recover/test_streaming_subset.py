"""The streamed route's subset sized from (d, k, m) (issue 36): a small first subset, then SUBSET samples when the
small one gives no network that every sample confirms. Soundness never depends on the sizes (every sample is
verified exactly and checked): a subset too small to pin the network down ends certified, or with NotRealizable
evidence on labels that no network realizes, never with a wrong claim."""

from __future__ import annotations

import numpy as np
import pytest

from exactrelu.errors import InvalidInput, NotRealizable, ProposalFailed
from exactrelu.instances import Instance
from exactrelu.recover import recover, streaming
from exactrelu.recover.streaming import recover_streaming, subset_sizes

V = np.array([[1.0, 0, 0], [0.5, 1, -1]])
U = np.array([[1.0, 2], [-1, 1]])


def _rare(n: int, seed: int = 0):
    """Unit 0 is active on about 2% of the samples (its input coordinate is centred at -2): a small evenly spread
    subset holds fewer than d of them."""
    rng = np.random.default_rng(seed)
    X = np.ldexp(np.round(np.ldexp(rng.standard_normal((n, 3)) + [-2.0, 0, 0], 20)), -20)
    return X, np.maximum(X @ V.T, 0) @ U.T


def _save(path, X, Y) -> str:
    np.savez(path, inputs=X, labels=Y)
    return str(path)


@pytest.fixture
def small_sizes(monkeypatch):
    """SUBSET 600 and SUBSET_MIN 16: the first subset of d = 3, k = 2 is max(16, 16 * 4, 16) = 64 samples."""
    monkeypatch.setattr(streaming, "SUBSET", 600)
    monkeypatch.setattr(streaming, "SUBSET_MIN", 16)
    assert subset_sizes(3000, 3, 2, 2) == [64, 600]


def test_subset_sizes_follow_d_k_m():
    assert subset_sizes(20_000, 200, 20, 20) == [3216, 20_000]
    assert subset_sizes(10**6, 20, 5, 5) == [2048, 20_000]
    assert subset_sizes(10**6, 784, 10, 10) == [12_560, 20_000]
    assert subset_sizes(20_000, 20, 5, 1) == [20_000]  # m < k: not the row-span route, the old size only
    assert subset_sizes(1000, 20, 5, 5) == [1000]


def test_a_subset_too_small_moves_to_the_larger_one(tmp_path, small_sizes):
    """64 samples hold about one of unit 0's active samples: no network there (the first stage does no blind
    search); the 600-sample stage finds it, every sample confirms it, and the checker certifies it."""
    X, Y = _rare(3000)
    idx = np.unique(np.linspace(0, 2999, 64).round().astype(int))
    assert (X[idx] @ V[0] > 0).sum() < 3 <= (X @ V[0] > 0).sum() // 5
    res = recover_streaming(_save(tmp_path / "r.npz", X, Y), k=2, block=512)
    assert res.subsets_tried and res.subsets_tried[0]["subset"] == 64 and res.subset >= 600
    assert res.checked.startswith("realizes: 3000 samples")
    cert_U = np.array([[float(x) for x in row] for row in res.network.U.to_fractions()])
    assert np.array_equal(np.maximum(X @ np.asarray(res.network.V.to_fractions(), float).T, 0) @ cert_U.T, Y)


def test_a_small_subset_that_certifies_is_the_whole_answer(tmp_path, small_sizes):
    rng = np.random.default_rng(1)
    X = np.ldexp(np.round(np.ldexp(rng.standard_normal((3000, 3)), 20)), -20)
    res = recover_streaming(_save(tmp_path / "g.npz", X, np.maximum(X @ V.T, 0) @ U.T), k=2, block=512)
    assert res.subsets_tried == [] and res.subset == 64 and res.checked.startswith("realizes: 3000 samples")


def test_labels_no_network_realizes_end_without_a_claim(tmp_path, small_sizes, monkeypatch):
    """One label changed outside both evenly spread subsets: the small stage's network disagrees there, the sample
    joins the larger stage's subset, whose exact recovery refuses: NotRealizable evidence, no certificate."""
    X, Y = _rare(3000, seed=2)
    Y[2992, 1] += 0.25
    seen = []
    real = streaming._rounds
    monkeypatch.setattr(streaming, "_rounds", lambda *a, **kw: seen.append(2992 in a[2]) or real(*a, **kw))
    with pytest.raises(NotRealizable) as err:
        recover_streaming(_save(tmp_path / "b.npz", X, Y), k=2, block=512, rounds=1)
    assert err.value.certificate is None and seen == [False, True]


def test_a_proved_no_on_the_first_subset_ends_at_once(tmp_path, small_sizes, monkeypatch):
    """rank(labels) > k on the small subset is a proof for the whole instance: no second stage."""
    X, Y = _rare(3000)
    calls = []
    real = streaming._rounds
    monkeypatch.setattr(streaming, "_rounds", lambda *a, **kw: calls.append(len(a[2])) or real(*a, **kw))
    with pytest.raises(NotRealizable) as err:
        recover_streaming(_save(tmp_path / "p.npz", X, Y), k=1, block=512)
    assert err.value.certificate is not None and calls == [64]
    assert "rank" in str(err.value)


def test_recover_without_blind_search_fails_at_once():
    """search=False: the units a proposal misses are not searched for (ProposalFailed, nothing claimed)."""
    X, Y = _rare(400, seed=3)
    inst = Instance.from_arrays(X, Y)
    one_unit = np.array([[0.5, 1.0, -1.0]])  # a proposal holding unit 1 only
    with pytest.raises(ProposalFailed):
        recover(inst, k=2, init=one_unit, search=False, check=False)
    res = recover(inst, k=2, init=one_unit)  # the blind search finds unit 0
    assert res.checked.startswith("realizes: 400 samples")
    with pytest.raises(InvalidInput, match="search must be True or False"):
        recover(inst, k=2, search="no")
