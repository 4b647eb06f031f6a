"""Streaming instances (issue 25 item 3): the .npz read a block of rows at a time by the checker, memory-mapped by
the library, the exact phase on a subset and every sample verified in blocks. The streaming paths must give the
in-memory paths' certificates, verdicts and hashes, on every block boundary, in bounded memory."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.envelope import instance_sha256
from exactrelu.certificates.trusted import schedule
from exactrelu.cli import main
from exactrelu.errors import InvalidInput, NotRealizable
from exactrelu.instances import Instance, planted, write_instance
from exactrelu.io.npz import map_npz_instance, read_npz_instance
from exactrelu.recover import recover
from exactrelu.recover.streaming import recover_streaming, verify_blocks


def _arrays(n: int, d: int = 3, seed: int = 0):
    """Float64 inputs on a 2^-20 grid and labels of a small integer network, exact in float64."""
    rng = np.random.default_rng(seed)
    X = np.ldexp(np.round(np.ldexp(rng.standard_normal((n, d)), 20)), -20)
    V = np.array([[1.0, -2, 1], [2, 1, -1]])[:, :d]
    U = np.array([[1.0, 2], [-1, 1]])
    return X, np.maximum(X @ V.T, 0) @ U.T


def _save(path, X, Y, compressed=False):
    (np.savez_compressed if compressed else np.savez)(path, inputs=X, labels=Y)
    return str(path)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    inst = planted(d=4, k=2, m=2, n=600, seed=3, input_bits=20)
    path = tmp_path_factory.mktemp("s") / "i.npz"
    write_instance(inst, path, include_planted=False)
    return inst, str(path), realizes_certificate(inst, inst.planted)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 40), block=st.integers(1, 9), compressed=st.booleans(), order=st.sampled_from("CF"),
       dtype=st.sampled_from(["<f8", ">f8", "<f4", "<i8"]))
def test_npz_rows_match_the_whole_read(tmp_path_factory, n, block, compressed, order, dtype):
    """NpzRows' blocks, in order and out of order, are the rows of the whole read; the hash is the in-memory one."""
    X, Y = _arrays(n)
    X = np.asarray(np.round(X) if dtype == "<i8" else X, dtype=dtype, order=order)
    path = _save(tmp_path_factory.mktemp("r") / "i.npz", X, Y[:, :1].ravel() if n % 2 else Y, compressed)
    whole = checker.load_instance(path)
    lazy = checker.load_instance(path, parse=False)
    for name in ("inputs", "labels"):
        rows = lazy[name]
        blocks = [rows[a:a + block] for a in range(0, n, block)]
        assert [r for b in blocks for r in b] == whole[name]
        assert rows[n - 1] == whole[name][-1] and rows[max(0, n - block):n] == whole[name][max(0, n - block):]
    digest = whole["parsed"][2]
    assert checker.parsed_instance(lazy["inputs"], lazy["labels"])[2] == digest
    assert digest == instance_sha256(Instance.from_arrays(*read_npz_instance(path)))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 30), block=st.integers(1, 7), compressed=st.booleans())
def test_verify_blocks_hash_equals_the_instance_hash(tmp_path_factory, n, block, compressed):
    X, Y = _arrays(n)
    path = _save(tmp_path_factory.mktemp("v") / "i.npz", X, Y, compressed)
    Xm, Ym = map_npz_instance(path, block=block)
    assert np.array_equal(Xm, X) and np.array_equal(Ym, Y)
    inst = Instance.from_arrays(X, Y)
    net = planted_network()
    bad, digest = verify_blocks(net, Xm, Ym, block)
    assert bad == [] and digest == instance_sha256(inst)
    Y2 = Y.copy()
    Y2[n - 1, 1] += 2.0**-30  # the last row of the last block
    assert verify_blocks(net, X, Y2, block)[0] == [n - 1]


def planted_network():
    from exactrelu.exact import QMatrix
    from exactrelu.network import Network

    return Network(QMatrix.from_rows([[1, 2], [-1, 1]]), QMatrix.from_rows([[1, -2, 1], [2, 1, -1]]))


@pytest.mark.parametrize("block", [1, 7, 2048])
def test_streaming_check_of_an_npz_gives_the_plain_verdicts(small, monkeypatch, tmp_path, block):
    inst, path, cert = small
    monkeypatch.setattr(schedule, "BLOCK", block)
    plain = checker.check(cert, checker.load_instance(path))
    assert checker.check(cert, checker.load_instance(path, parse=False)) == plain
    bad = dict(cert, U=[["2", *row[1:]] for row in cert["U"]])
    with pytest.raises(checker.CheckFailed) as whole:
        checker.check(bad, checker.load_instance(path))
    with pytest.raises(checker.CheckFailed) as streamed:
        checker.check(bad, checker.load_instance(path, parse=False))
    assert str(whole.value) == str(streamed.value)
    X, Y = read_npz_instance(path)
    Y[-1, 0] += 1  # a wrong label in the last block: another instance, the hash refuses it
    other = _save(tmp_path / "o.npz", X, Y, compressed=True)
    with pytest.raises(checker.CheckFailed, match="instance_sha256"):
        checker.check(cert, checker.load_instance(other, parse=False))


def test_forked_workers_read_their_own_blocks(small, tmp_path):
    inst, path, cert = small
    cpath = tmp_path / "c.json"
    cpath.write_text(json.dumps(cert))
    for p in (path, _save(tmp_path / "z.npz", *read_npz_instance(path), compressed=True)):
        assert checker.check_files(str(cpath), p, workers=2) == checker.check(cert, checker.load_instance(p))


def test_truncated_member_is_unreadable(small, tmp_path):
    _, path, cert = small
    raw = open(path, "rb").read()
    cut = tmp_path / "t.npz"
    cut.write_bytes(raw[:len(raw) // 3] + raw[len(raw) // 3 + 800:])  # data gone from the middle of inputs.npy
    with pytest.raises(checker.UnreadableInput):
        checker.check(cert, checker.load_instance(str(cut), parse=False))


def test_recover_streaming_gives_the_in_memory_certificate(small):
    inst, path, _ = small
    whole = recover(Instance.from_arrays(*read_npz_instance(path)), k=2)
    streamed = recover_streaming(path, k=2, subset=150, block=97)  # a subset, blocks not dividing n
    for key in ("instance_sha256", "U", "V", "activation", "claim"):
        assert streamed.certificate[key] == whole.certificate[key]
    assert streamed.checked == whole.checked and streamed.entries_verified == 1200 and streamed.subset == 150


def test_recover_streaming_checks_with_the_checker_it_is_told(small, monkeypatch):
    """The streamed recovery's own check of the .npz is the fast checker, or the reference when
    EXACTRELU_CHECKER=reference (the streamed route once ran the reference always: 5.1 s of 9.5 s at
    (200,20,20,2e4), against 1.3 s for the fast checker)."""
    from exactrelu.certificates import fast

    _, path, _ = small
    used = []
    real_fast, real_ref = fast.check, checker.check
    monkeypatch.setattr(fast, "check", lambda *a, **kw: used.append("fast") or real_fast(*a, **kw))
    monkeypatch.setattr(checker, "check", lambda *a, **kw: used.append("reference") or real_ref(*a, **kw))
    for name, want in (("", "fast"), ("reference", "reference")):
        monkeypatch.setenv("EXACTRELU_CHECKER", name)
        res = recover_streaming(path, k=2, subset=150, block=97)
        assert res.checked.startswith("realizes: 600 samples") and used == [want]
        used.clear()


def test_recover_streaming_adds_disagreeing_samples(tmp_path):
    """A label outside the subset that the subset's network does not explain: with one round, NotRealizable names
    the sample; with two, the sample joins the subset, whose own exact recovery then refuses."""
    X, Y = _arrays(400, seed=5)
    assert recover_streaming(_save(tmp_path / "i.npz", X, Y), k=2, subset=100, block=64).rounds == 1
    Y[333, 0] += 0.5  # sample 333 is not among the 100 evenly spread samples
    bad = _save(tmp_path / "b.npz", X, Y)
    with pytest.raises(NotRealizable) as one:
        recover_streaming(bad, k=2, subset=100, block=64, rounds=1)
    assert one.value.evidence["failing_samples"] == [333]
    with pytest.raises(NotRealizable):
        recover_streaming(bad, k=2, subset=100, block=64, rounds=2)


def test_streaming_memory_does_not_grow_with_n(tmp_path, monkeypatch):
    """tracemalloc peak of the checker's streaming check and of verify_blocks at n and 4 n: the same blocks."""
    monkeypatch.setattr(schedule, "BLOCK", 256)
    peaks = []
    for n in (2000, 8000):
        X, Y = _arrays(n)
        path = _save(tmp_path / f"i{n}.npz", X, Y)
        inst = Instance.from_arrays(X, Y)
        cert = realizes_certificate(inst, planted_network())
        Xm, Ym = map_npz_instance(path)
        tracemalloc.start()
        assert checker.check(cert, checker.load_instance(path, parse=False)).startswith("realizes")
        assert verify_blocks(planted_network(), Xm, Ym, 256)[0] == []
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 1.3 * peaks[0], peaks


def test_cli_stream_and_check(small, tmp_path, capsys):
    _, path, _ = small
    out = tmp_path / "c.json"
    assert main(["recover", path, "-k", "2", "--stream", "--subset", "200", "-o", str(out)]) == 0
    assert "every sample verified in blocks" in capsys.readouterr().out
    assert main(["check", str(out), path]) == 0
    assert "VALID: realizes: 600 samples" in capsys.readouterr().out
    js = tmp_path / "i.json"
    write_instance(planted(d=2, k=1, m=1, n=5, seed=0), js)
    assert main(["recover", str(js), "-k", "1", "--stream"]) == 2
    with pytest.raises(InvalidInput):
        map_npz_instance(str(js))


def test_a_nan_outside_the_subset_is_refused(tmp_path):
    X, Y = _arrays(300, seed=2)
    X[297, 1] = np.nan  # not among the 50 evenly spread samples: the exact phase never sees it; the block verification takes every float exactly
    with pytest.raises(InvalidInput, match="NaN|finite"):
        recover_streaming(_save(tmp_path / "n.npz", X, Y), k=2, subset=50, block=64)
    with pytest.raises(checker.UnreadableInput, match="non-finite"):
        checker.check(realizes_certificate(Instance.from_arrays(*_arrays(300, seed=2)), planted_network()),
                      checker.load_instance(str(tmp_path / "n.npz"), parse=False))


def test_recover_streaming_reads_an_init_file_once_before_the_instance(small, tmp_path, monkeypatch):
    """init=PATH is read at recover_streaming's door: once for every round, and a bad file before the .npz is mapped."""
    from exactrelu.io import weights as weights_io
    from exactrelu.recover import streaming

    inst, path, _ = small
    wpath = str(weights_io.write_weights(inst.planted, tmp_path / "w.json"))
    reads, real = [], weights_io.read_weights
    monkeypatch.setattr(weights_io, "read_weights", lambda *a, **kw: reads.append(a) or real(*a, **kw))
    res = recover_streaming(path, k=2, subset=150, block=97, init=wpath, check=False)
    assert res.network.equivalent(inst.planted) and len(reads) == 1 and res.proposer == "weights file"
    monkeypatch.setattr(streaming, "map_npz_instance", lambda p: pytest.fail("the instance was mapped first"))
    with pytest.raises(InvalidInput, match="the weights have 2 hidden units, but k = 3"):
        recover_streaming(path, k=3, init=wpath)
    with pytest.raises(InvalidInput, match="must be a positive integer, got 0"):
        recover_streaming(path, k=0, init=wpath)
