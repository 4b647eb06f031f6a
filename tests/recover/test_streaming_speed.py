"""Issue 36 in the streaming route: the library's own check of an ``.npz`` is the fast exact checker (the reference
under ``EXACTRELU_CHECKER=reference``), and the subset's exact phase makes no certificate of its own (the whole
instance's certificate is made after every sample is verified)."""

from __future__ import annotations

import numpy as np
import pytest

from exactrelu.certificates import envelope, fast
from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.errors import CertificateInvalid, InvalidInput
from exactrelu.instances import Instance, planted, write_instance
from exactrelu.recover import recover
from exactrelu.recover import streaming


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    inst = planted(d=4, k=2, m=2, n=300, seed=4, input_bits=20)
    path = tmp_path_factory.mktemp("s") / "i.npz"
    write_instance(inst, path, include_planted=False)
    return inst, str(path), realizes_certificate(inst, inst.planted)


@pytest.mark.parametrize("which", ["fast", "reference"])
def test_check_npz_takes_the_fast_checker_unless_told(small, monkeypatch, which):
    inst, path, cert = small
    calls = []
    real = fast.check
    monkeypatch.setattr(fast, "check", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    monkeypatch.setenv("EXACTRELU_CHECKER", which)
    assert streaming.check_npz(cert, path).startswith("realizes: 300 samples x 2 outputs equal exactly")
    assert len(calls) == (which == "fast")
    bad = dict(cert, U=[["2", *row[1:]] for row in cert["U"]])
    with pytest.raises(CertificateInvalid):
        streaming.check_npz(bad, path)


def test_check_npz_refuses_an_unreadable_file(small, tmp_path):
    _, path, cert = small
    raw = open(path, "rb").read()
    cut = tmp_path / "t.npz"
    cut.write_bytes(raw[:len(raw) // 3] + raw[len(raw) // 3 + 800:])  # data gone from the middle of inputs.npy
    with pytest.raises(InvalidInput):
        streaming.check_npz(cert, str(cut))


def test_recover_without_a_certificate_hashes_nothing(small, monkeypatch):
    inst, _, _ = small
    whole = recover(inst, k=2)
    monkeypatch.setattr(envelope, "_text_sha256", lambda *_: pytest.fail("hashed"))
    bare = recover(Instance(inst.inputs, inst.labels), k=2, certificate=False)
    assert bare.certificate == {} and bare.checked is None
    assert bare.network.U == whole.network.U and bare.network.V == whole.network.V
    with pytest.raises(InvalidInput, match="certificate must be True or False"):
        recover(inst, k=2, certificate="no")


def test_streaming_certifies_the_whole_instance_once(small, monkeypatch):
    """The subset's recovery is not certified (no hash of the subset); the certificate is the whole instance's."""
    inst, path, cert = small
    made = []
    real = streaming.realizes_certificate
    monkeypatch.setattr(streaming, "realizes_certificate", lambda *a, **kw: made.append(1) or real(*a, **kw))
    res = streaming.recover_streaming(path, k=2, subset=120, block=64)
    assert len(made) == 1 and res.certificate["instance_sha256"] == cert["instance_sha256"]
    assert res.checked.startswith("realizes: 300 samples")
    assert np.array_equal(np.asarray(res.network.U.to_fractions(), dtype=float),
                          np.asarray(recover(inst, k=2).network.U.to_fractions(), dtype=float))


@pytest.mark.parametrize("child", ["works", "fails"])
def test_the_hash_made_ahead_is_the_instance_hash(small, monkeypatch, child):
    """The instance hash made by a forked child while the subset is recovered, or (a failed child) in the
    verification's pass: the in-memory instance's hash either way."""
    from exactrelu import parallel

    inst, path, cert = small
    real = parallel.check_workers
    monkeypatch.setattr(parallel, "check_workers", lambda entries: 2)
    monkeypatch.setattr(parallel, "idle_core", lambda: True)
    if child == "fails":
        monkeypatch.setattr(streaming, "npz_sha256", lambda arrays: "not a digest")
    X, Y = streaming.map_npz_instance(path)
    job = streaming.hash_ahead(X, Y, 64)
    assert job is not None
    assert job.result() == (cert["instance_sha256"] if child == "works" else None)
    res = streaming.recover_streaming(path, k=2, subset=100, block=64)
    assert res.certificate["instance_sha256"] == cert["instance_sha256"]
    monkeypatch.setattr(parallel, "check_workers", real)
    monkeypatch.setenv("EXACTRELU_CHECK_WORKERS", "many")  # malformed: the check reports it, nothing is forked
    assert streaming.hash_ahead(X, Y, 64) is None


def test_the_decision_imports_no_router_and_no_scipy():
    """``exactrelu.recover``'s names come on first use: a module of the package (``diagnosis``, imported by the
    decision's bias step) brings neither the front door nor SciPy; an unknown name is an AttributeError."""
    import subprocess
    import sys

    code = ("import sys; import exactrelu.decide.search.pattern_search, exactrelu.recover.diagnosis; "
            "print(sorted(m for m in sys.modules if m.startswith('scipy') or m.endswith('front_door')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    import exactrelu.recover as package

    assert package.recover is recover and "recover" in package.__all__
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        package.nothing  # noqa: B018


def test_blas_leaves_the_hash_child_its_core(small, monkeypatch):
    """While the hash child runs, the subset's float steps use at most usable_cores - 1 BLAS threads: two OpenBLAS
    threads beside the child on 2 cores spin-waited, and the subset phase took 19-28 s instead of 2.4 s at
    (200,20,20,2e4). A thread count the user chose is left alone."""
    from threadpoolctl import threadpool_info

    from exactrelu import parallel
    from exactrelu.recover import streaming

    class Child:
        def cancel(self):
            pass

        def result(self):
            return None  # the caller hashes, as when the child failed

    seen = []
    real = streaming._rounds

    def rounds(*a, **kw):
        seen.append(max((p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"), default=0))
        return real(*a, **kw)

    monkeypatch.setattr(streaming, "_rounds", rounds)
    monkeypatch.setattr(streaming, "hash_ahead", lambda *a: Child())
    for var in ("EXACTRELU_BLAS_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    streaming.recover_streaming(small[1], k=2, check=False)
    assert 0 < seen.pop() <= max(1, parallel.usable_cores() - 1)
    monkeypatch.setenv("EXACTRELU_BLAS_THREADS", "default")
    before = max((p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"), default=0)
    streaming.recover_streaming(small[1], k=2, check=False)
    assert seen.pop() == before
