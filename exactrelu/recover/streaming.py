"""Certified recovery of instances too large to hold exactly: the exact phase on a subset, then every sample in blocks.

The row-span route needs only O(k d) well-chosen samples to determine the network; holding all n samples as exact
integers (FLINT matrices of f(V X) and of the labels, their text for the hash) is what made n = 10^6 peak at 3.5 GB.
:func:`recover_streaming` therefore

1. runs :func:`~exactrelu.recover.recover` (exact, on FLINT) on ``subset`` samples spread evenly over the instance;
2. verifies the recovered network on **every** sample, ``block`` rows at a time: each block's floats are taken as
   exact dyadic rationals (:meth:`QMatrix.from_numpy`), ``f(V x + b) U^T + c`` is computed in exact integers and
   compared with the block's labels, exactly (never a float deciding); the same pass hashes the block's canonical
   text into ``instance_sha256``;
3. when some sample disagrees, adds up to ``add`` of them to the subset and starts again (at most ``rounds``
   rounds: the subset may not have pinned the network down); then raises NotRealizable with the samples as evidence;
4. writes nothing itself: the certificate (O(k d), independent of n) is returned, and the independent checker,
   when ``check``, reads the ``.npz`` file itself a block of rows at a time (the fast exact checker on every idle
   core, :func:`check_npz`). The subset's recovery makes no certificate of its own (``certificate=False``): the
   one certificate is the whole instance's, made after every sample is verified.

Memory: the float arrays (memory-mapped from a stored ``.npz``: pages of the file), the subset's exact work, and
one block's exact rows. It does not grow with n beyond the float arrays.

>>> import numpy as np, os, tempfile
>>> rng = np.random.default_rng(0)
>>> X = np.ldexp(np.round(np.ldexp(rng.standard_normal((3000, 4)), 20)), -20)
>>> V, U = np.array([[1., 2, 0, -1], [0, 1, -3, 1]]), np.array([[1., 2], [-1, 1]])
>>> path = os.path.join(tempfile.mkdtemp(), "i.npz")
>>> np.savez(path, inputs=X, labels=np.maximum(X @ V.T, 0) @ U.T)
>>> res = recover_streaming(path, k=2, subset=500, block=1000)
>>> res.entries_verified, res.checked
(6000, 'realizes: 3000 samples x 2 outputs equal exactly (k=2, d=4, activation degree 1)')
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ..certificates.claims.realizes import realizes_certificate
from ..certificates.claims.residual import differing_samples
from ..certificates.envelope import _is_hex_digest
from ..errors import AssumptionViolated, CertificateInvalid, InvalidInput, NotRealizable
from .. import blas, parallel
from ..exact.bulk import map_blocks
from ..validation import check_k, check_positive_integer
from ..exact.matrix import QMatrix
from ..instances import Instance
from ..io.npz import map_npz_instance
from ..network import Activation, Network
from .proposals import read_init

__all__ = ["recover_streaming", "StreamedRecovery", "SUBSET", "SUBSET_MIN", "BLOCK", "subset_sizes"]

#: the largest subset of the exact phase (samples spread evenly over the instance); the rest are only verified
SUBSET = 20_000
#: the smallest automatic first subset (:func:`subset_sizes`)
SUBSET_MIN = 2_048
#: rows verified and hashed at a time (one block's exact integers are held at once)
BLOCK = 1 << 16


@dataclass
class StreamedRecovery:
    """What :func:`recover_streaming` found: the network, its ``realizes`` certificate (not written yet), the
    checker's verdict (None without ``check``), the label entries verified exactly, timings (s), the size of the
    subset the exact phase ran on, and the smaller subsets tried before it (``subsets_tried``: size, error, reason)."""

    network: Network
    certificate: dict
    checked: str | None
    entries_verified: int
    timings: dict = field(default_factory=dict)
    subset: int = 0
    rounds: int = 1
    route: str = "rowspan"
    proposer: str = ""
    tries: int = 0
    subsets_tried: list = field(default_factory=list)


def recover_streaming(path: str | os.PathLike, *, k: int, activation: Activation | None = None, init="auto",
                      random_state=0, check: bool = True, subset: int | None = None, block: int = BLOCK,
                      rounds: int = 3, add: int = 512, time_limit=None, progress=None, bias=False) -> StreamedRecovery:
    """Recover and certify the network of the ``.npz`` instance at ``path`` in bounded memory (see the module);
    ``bias`` is :func:`~exactrelu.recover.recover`'s (the model class of the subset's recovery, and so of the
    certificate: every sample is then verified with the biases found; ``True``: hidden biases and an output bias).
    ``subset``: the exact phase's samples; None sizes it from (n, d, k, m) (:func:`subset_sizes`: a small subset
    first, then :data:`SUBSET` samples if the small one gives no network that every sample confirms).

    Raises what :func:`~exactrelu.recover.recover` raises on the (last) subset, NotRealizable when samples outside
    it still disagree after ``rounds`` rounds, CertificateInvalid if the independent checker refuses.
    """
    for name, value in (("block", block), ("rounds", rounds)):
        check_positive_integer(value, name)
    if subset is not None:
        check_positive_integer(subset, "subset")
    init = read_init(init, check_k(k))  # a weights file is read once, here, not again in every round
    timings: dict[str, float] = {}
    tried: list[dict] = []
    t0 = time.perf_counter()
    X, Y = map_npz_instance(path)
    n = X.shape[0]
    hidden = bias not in (False, "output")  # hidden biases: one more coordinate to pin each unit down
    sizes = subset_sizes(n, X.shape[1] + hidden, k, Y.shape[1]) if subset is None else [min(n, subset)]
    timings["map"] = time.perf_counter() - t0
    ahead = hash_ahead(X, Y, block)  # the instance's hash on an idle core while the subset is recovered
    try:
        options = dict(k=k, activation=activation, init=init, random_state=random_state, check=False,
                       progress=progress, time_limit=time_limit, bias=bias, certificate=False)  # certified below
        # the child takes a core: BLAS threads beside it would spin-wait for it (subset 2.4 s -> 19-28 s measured
        # with two BLAS threads and the child on 2 cores), so the float steps leave it that core
        spare = None if ahead is None or blas.user_chose() else max(1, parallel.usable_cores() - 1)
        with blas.fixed_threads(spare):
            res, sub, idx, digest, round_ = _stages(X, Y, sizes, options, _Hash(ahead), (block, rounds, add), timings,
                                                    tried)
    finally:
        if ahead is not None:
            ahead.cancel()
    t0 = time.perf_counter()
    seed = random_state if isinstance(random_state, int) else None
    cert = realizes_certificate(sub, res.network, sha256=digest, seed=seed, proposer=res.proposer,
                                route=f"{res.route} on {len(idx)} samples, verified in blocks of {block}")
    timings["certificate"] = time.perf_counter() - t0
    summary = None
    if check:
        t0 = time.perf_counter()
        summary = check_npz(cert, path)
        timings["independent_check"] = time.perf_counter() - t0
    return StreamedRecovery(res.network, cert, summary, n * Y.shape[1], timings, int(len(idx)), round_, res.route,
                            res.proposer, res.tries, tried)


def subset_sizes(n: int, D: int, k: int, m: int) -> list[int]:
    """The sizes of the subsets the exact phase tries, in order, for n samples of dimension D (d, or d + 1 with
    hidden biases), k units and m outputs: ``[min(n, SUBSET)]``, or a smaller first subset when m >= k (the row-span
    route: each unit needs more than D active samples in general position and k - 1 zeros, and the float proposal
    a few times D samples): ``max(SUBSET_MIN, 16 (D + 1), 8 k)`` samples.

    Soundness does not depend on these sizes (every sample is verified exactly, and the checker reads them all);
    they only decide how much exact work finds the network (docs/design.md, "The streamed route's subset").

    >>> subset_sizes(20_000, 200, 20, 20), subset_sizes(100_000, 100, 50, 50), subset_sizes(20_000, 20, 5, 1)
    ([3216, 20000], [2048, 20000], [20000])
    >>> subset_sizes(1_500, 20, 5, 5)
    [1500]
    """
    last = min(n, SUBSET)
    first = min(last, max(SUBSET_MIN, 16 * (D + 1), 8 * k))
    return [first, last] if m >= k and first < last else [last]


def _spread(n: int, size: int) -> np.ndarray:
    """``size`` samples spread evenly over ``range(n)`` (sorted, distinct)."""
    return np.unique(np.linspace(0, n - 1, min(n, size)).round().astype(np.int64))


class _Hash:
    """The instance's SHA-256: the forked child's (validated) when there is one, else None (the caller hashes)."""

    def __init__(self, ahead):
        self.ahead, self.digest = ahead, None

    def missing(self) -> bool:
        """Whether the verification's pass must hash (no child, no digest yet)."""
        return self.ahead is None and self.digest is None

    def take(self) -> str | None:
        if self.digest is None and self.ahead is not None:
            self.digest, self.ahead = self.ahead.result(), None
        return self.digest


def _stages(X, Y, sizes: list[int], options: dict, digest: _Hash, limits: tuple, timings: dict,
            tried: list) -> tuple:
    """:func:`_rounds` on each subset size of ``sizes`` in turn (the samples of the earlier ones kept), until one
    gives a network every sample confirms. A stage before the last one does no blind search for units the proposal
    missed, and its failure (no network found, an assumption of the route not met on those samples, samples still
    disagreeing) only moves to the next size (noted in ``tried``); a proved "no" (a certificate) ends at once."""
    idx = np.zeros(0, dtype=np.int64)
    for stage, size in enumerate(sizes):
        last = stage == len(sizes) - 1
        idx = np.union1d(idx, _spread(X.shape[0], size))
        try:
            return _rounds(X, Y, idx, options if last else {**options, "search": False}, digest, *limits, timings)
        except (AssumptionViolated, NotRealizable) as exc:
            if last or getattr(exc, "certificate", None) is not None:
                raise
            idx = np.union1d(idx, np.asarray(exc.evidence.get("failing_samples", []), dtype=np.int64))
            tried.append({"subset": size, "error": type(exc).__name__, "reason": str(exc)[:200]})
            if options.get("progress"):
                options["progress"](f"{len(idx)} samples did not give a confirmed network ({type(exc).__name__}); "
                                    f"the exact phase again on {sizes[stage + 1]}")
    raise AssertionError("unreachable")  # pragma: no cover


def _rounds(X, Y, idx, options: dict, digest: _Hash, block: int, rounds: int, add: int, timings: dict) -> tuple:
    """The rounds of :func:`recover_streaming`: (result, subset instance, its samples, the instance's SHA-256, the
    round that verified every sample); NotRealizable after ``rounds`` rounds with samples still disagreeing."""
    from . import recover

    for round_ in range(1, rounds + 1):
        t0 = time.perf_counter()
        sub = Instance.from_arrays(np.asarray(X[idx]), np.asarray(Y[idx]), activation=options["activation"])
        try:
            res = recover(sub, **options)
        finally:
            timings[f"subset_round_{round_}"] = timings.get(f"subset_round_{round_}", 0) + time.perf_counter() - t0
        t0 = time.perf_counter()
        # verified while the child still hashes (the verification needs no hash); then the child's digest, else
        # the one this pass made, else (a failed child) a pass of its own
        bad, text_hash = verify_blocks(res.network, X, Y, block, hashing=digest.missing(), limit=add)
        digest.digest = digest.digest or text_hash
        if not bad:
            hashed = digest.take() or _sha256_blocks(X, Y, block)
            timings[f"verify_round_{round_}"] = time.perf_counter() - t0
            return res, sub, idx, hashed, round_
        timings[f"verify_round_{round_}"] = time.perf_counter() - t0
        idx = np.union1d(idx, np.asarray(bad[:add], dtype=np.int64))
    raise NotRealizable(
        f"the network recovered exactly from {len(idx)} samples differs from the labels at samples "
        f"{bad[:5]} (and maybe more) after {rounds} rounds of adding them: the labels may not be exactly "
        "realisable, or the instance needs the whole-data route (a JSON instance)",
        evidence={"failing_samples": bad[:10], "subset": int(len(idx)), "rounds": rounds})


def verify_blocks(network: Network, X: np.ndarray, Y: np.ndarray, block: int = BLOCK, *, hashing: bool = True,
                  limit: int = 512) -> tuple[list[int], str | None]:
    """(samples where ``network`` differs from the labels, at most ``limit`` of them; the instance's SHA-256 or None)
    of float (or integer) arrays X (n x d) and Y (n x m), ``block`` rows at a time, exactly.

    >>> net = Network(QMatrix.from_rows([[1]]), QMatrix.from_rows([[1, -1]]))
    >>> X = np.array([[1.5, 0.5], [0.0, 2.0], [3.0, 1.0]])
    >>> verify_blocks(net, X, np.array([[1.0], [0.0], [2.0]]), 2)[0], verify_blocks(net, X, np.ones((3, 1)), 2)[0]
    ([], [1, 2])
    """
    n, (d, m) = X.shape[0], (X.shape[1], Y.shape[1])
    h = hashlib.sha256(f"exactrelu.instance.v1\n{n} {d} {m}\n".encode()) if hashing else None

    def one(a: int, b: int) -> tuple[bytes, list[int]]:
        Xq = QMatrix.from_numpy(np.asarray(X[a:b]), name="inputs", lazy=True)
        Yq = QMatrix.from_numpy(np.asarray(Y[a:b]), name="labels", lazy=True)
        text = _block_text(Xq, Yq) if hashing else b""
        return text, [a + j for j in differing_samples(network, Xq, Yq)]  # exact: limb products by BLAS

    bad: list[int] = []
    for text, failing in map_blocks(one, n, block, parallel.bulk_workers(n * (d + m))):  # in order, on idle cores
        if h is not None:
            h.update(text)
        bad += failing[:limit - len(bad)]
    return bad, (h.hexdigest() if h is not None else None)


def _block_text(Xq: QMatrix, Yq: QMatrix) -> bytes:
    """The canonical text of a block's rows (exact/codecs/float_text.py), one text per block."""
    b = Xq.shape[0]
    return "".join([f"{x} | {y}\n" for x, y in zip(Xq.row_texts(0, b), Yq.row_texts(0, b))]).encode()


def npz_sha256(arrays: tuple) -> str:
    """The instance's SHA-256 (docs/design.md) of float (or integer) arrays ``(X, Y, block)``, ``block`` rows at a
    time: the digest :func:`verify_blocks` makes, without the verification.

    >>> X, Y = np.array([[0.5, -3.0]]), np.array([[1.0]])
    >>> npz_sha256((X, Y, 1)) == verify_blocks(Network(QMatrix.from_rows([[1]]), QMatrix.from_rows([[1, 0]])), X, Y)[1]
    True
    """
    return _sha256_blocks(*arrays)


def _sha256_blocks(X, Y, block: int) -> str:
    """:func:`npz_sha256` (the forked child's entry point) made here: a failed child's digest, in this process."""
    n, (d, m) = X.shape[0], (X.shape[1], Y.shape[1])
    h = hashlib.sha256(f"exactrelu.instance.v1\n{n} {d} {m}\n".encode())
    for a in range(0, n, block):
        h.update(_block_text(QMatrix.from_numpy(np.asarray(X[a:a + block]), name="inputs", lazy=True),
                             QMatrix.from_numpy(np.asarray(Y[a:a + block]), name="labels", lazy=True)))
    return h.hexdigest()


def hash_ahead(X, Y, block: int) -> "parallel.Ahead | None":
    """A forked child making :func:`npz_sha256` while the subset is recovered, when the check would fork for an
    instance this large and a core is idle now (as :func:`~exactrelu.certificates.envelope.instance_hash_ahead`);
    None otherwise. Its result is a validated hex digest or None (then the caller hashes)."""
    try:
        fork = parallel.check_workers(X.shape[0] * (X.shape[1] + Y.shape[1])) > 1 and parallel.idle_core()
    except InvalidInput:  # a malformed EXACTRELU_CHECK_WORKERS: the check reports it; nothing forked here
        return None
    return parallel.start(npz_sha256, (X, Y, block), valid=_is_hex_digest) if fork else None


def check_npz(cert: dict, path: str | os.PathLike) -> str:
    """The independent checker's verdict on ``cert`` about the ``.npz`` at ``path``, read a block of rows at a time
    (the fast checker on every idle core, or the reference when ``EXACTRELU_CHECKER=reference``);
    CertificateInvalid when it refuses."""
    from ..certificates import checker
    from ..certificates.envelope import check_read

    try:
        return check_read(cert, checker.load_instance(str(path), parse=False), str(path))
    except checker.CheckFailed as exc:
        raise CertificateInvalid(str(exc)) from None
    except checker.UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None
