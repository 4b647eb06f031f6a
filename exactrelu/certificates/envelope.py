"""The certificate envelope of docs/design.md: the format literal, the instance hash, provenance, read, write, verify.

Certificates are plain JSON objects. The writers of each claim family are in
:mod:`exactrelu.certificates.claims` (one module per family, named like the trusted module that
checks it); this module holds what they share, and hands certificates to the independent
:mod:`exactrelu.certificates.checker` for verification. The instance reaches the checker as
:mod:`exactrelu.instances.checker_view` makes it; how many processes check it, and the child that
hashes it ahead, are the runtime floor's (:mod:`exactrelu.parallel`).

>>> from exactrelu.instances import planted
>>> inst = planted(d=3, k=2, m=2, n=40, seed=1)
>>> cert = {**network_fields(inst, inst.planted, "realizes"), "provenance": provenance()}
>>> cert["claim"], len(cert["instance_sha256"])
('realizes', 64)
>>> verify(cert, inst)
'realizes: 40 samples x 2 outputs equal exactly (k=2, d=3, activation degree 1)'
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

from .. import blas, parallel
from .._moved import moved_names
from ..io.layout import LAYOUT_DEPTH, dump_layout  # noqa: F401 (the certificate's writer; re-exported)
from .._version import __version__
from ..errors import CertificateInvalid, InvalidInput
from ..instances import Instance, checker_view
from ..network import RELU, Network

__all__ = ["FORMAT", "instance_sha256", "instance_hash_ahead", "network_fields", "envelope", "rational_text",
           "write_certificate", "dump_layout", "read_certificate", "verify", "provenance"]

#: names that moved out of this module (issue 35: the row adapters to the instances' wing, the worker count to the
#: runtime floor): still importable from here for one release, with a DeprecationWarning
__getattr__ = moved_names(__name__, {
    "STREAM_ENTRIES": "exactrelu.instances.checker_view", "BlockRows": "exactrelu.instances.checker_view",
    "StringRows": "exactrelu.instances.checker_view", "FloatRows": "exactrelu.instances.checker_view",
    "checker_instance": "exactrelu.instances.checker_view", "PARALLEL_CHECK_ENTRIES": "exactrelu.parallel"})

#: the one format literal of the library's certificates (the checker keeps its own copy: it imports nothing)
FORMAT = "exactrelu.certificate"


#: where :func:`instance_hash_ahead` keeps the forked child computing the hash (``instance._cache``)
AHEAD_KEY = "_sha256_ahead"


def instance_sha256(instance: Instance) -> str:
    """SHA-256 of the canonical text of the instance (docs/design.md): exact, independent of file format.

    Inside :func:`instance_hash_ahead` the text was hashed by a forked child: its hex digest is taken when the
    child succeeded, else the hash is computed here (the same function on the same data either way).
    """
    ahead = instance._cache.pop(AHEAD_KEY, None)
    if ahead is not None:
        sha = ahead.result()
        if sha is not None:
            return sha
    return _text_sha256(instance)


@contextlib.contextmanager
def instance_hash_ahead(instance: Instance) -> Iterator[None]:
    """Hash ``instance`` in a forked child while the block runs (a recovery), when the check would fork for it
    (:func:`exactrelu.parallel.check_workers`: at least ``PARALLEL_CHECK_ENTRIES`` entries, two cores, no other
    threads, not a daemon; ``EXACTRELU_CHECK_WORKERS=1`` turns it off) and a core is idle now
    (:func:`exactrelu.parallel.idle_core`);
    :func:`instance_sha256` inside the block takes its result.
    Leaving the block (a return, an error, a time limit, a KeyboardInterrupt) kills a child still running.

    >>> from exactrelu.instances import planted
    >>> inst = planted(d=3, k=2, m=2, n=40, seed=1)
    >>> with instance_hash_ahead(inst):
    ...     sha = instance_sha256(inst)
    >>> sha == instance_sha256(inst)
    True
    """
    try:
        fork = AHEAD_KEY not in instance._cache and parallel.check_workers(_entries(instance)) > 1 \
            and parallel.idle_core()
    except InvalidInput:  # a malformed EXACTRELU_CHECK_WORKERS: verify() reports it, nothing is forked here
        fork = False
    job = parallel.start(_text_sha256, instance, valid=_is_hex_digest) if fork else None
    if job is not None:
        instance._cache[AHEAD_KEY] = job
    try:
        yield
    finally:
        if job is not None:
            if instance._cache.get(AHEAD_KEY) is job:
                del instance._cache[AHEAD_KEY]
            job.cancel()


def _entries(instance: Instance) -> int:
    return instance.n * (instance.d + instance.m)


def _is_hex_digest(text: str) -> bool:
    return re.fullmatch("[0-9a-f]{64}", text) is not None


def _text_sha256(instance: Instance) -> str:
    h = hashlib.sha256()
    h.update(f"exactrelu.instance.v1\n{instance.n} {instance.d} {instance.m}\n".encode())
    if checker_view.streamed(instance):
        X, Y = instance.inputs, instance.labels
        for a in range(0, instance.n, 8192):
            b = min(a + 8192, instance.n)
            h.update("".join(f"{x} | {y}\n" for x, y in zip(X.row_texts(a, b), Y.row_texts(a, b))).encode())
        return h.hexdigest()
    for x, y in zip(instance.input_strings(), instance.label_strings()):
        h.update(f"{' '.join(x)} | {' '.join(y)}\n".encode())
    return h.hexdigest()


def provenance(**extra) -> dict:
    """Library version, command line and anything else worth recording (cnfgen-style provenance)."""
    out = {"exactrelu_version": __version__, "command": " ".join([Path(sys.argv[0]).name] + sys.argv[1:])}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def network_fields(instance: Instance, network: Network, claim: str, sha256: str | None = None) -> dict:
    """The envelope and the network of a claim about one network on one instance (docs/design.md); ``"b"`` and
    ``"c"`` are written only when some hidden, output bias is non-zero (absent means zero). A network of another
    depth than two is written as ``"layers"`` instead of U, V, b, c."""
    cert = {
        "format": FORMAT,
        "version": 1,
        "claim": claim,
        "instance_sha256": sha256 or instance_sha256(instance),
        "activation": (network.activation or RELU).to_json(),
    }
    if network.depth != 2:
        cert["layers"] = network.to_json()["layers"]
        return cert
    cert["U"], cert["V"] = network.U.to_strings(), network.V.to_strings()
    if network.has_bias:
        cert["b"] = [r[0] for r in network.b.to_strings()]
    if network.has_output_bias:
        cert["c"] = [r[0] for r in network.c.to_strings()]
    return cert


def rational_text(x) -> str:
    """A rational for a message or a JSON record: exact (``"p/q"``) while Python can print it (under 4,300 digits
    each), else the checker's bounded display (``str()`` of a longer integer raises ValueError: a traceback).

    >>> from fractions import Fraction
    >>> rational_text(Fraction(-3, 4)), rational_text(Fraction(10**5000))
    ('-3/4', '~1.00000e+5000 (a number of 16610 bits; exact value not shown)')
    """
    from .trusted.common import display

    f = Fraction(x)
    if max(f.numerator.bit_length(), f.denominator.bit_length()) <= 14_000:
        return str(f)
    return display(f)


def envelope(claim: str, **fields) -> dict:
    """``{"format", "version", "claim", **fields}``: the start of every certificate (provenance is added last)."""
    return {"format": FORMAT, "version": 1, "claim": claim, **fields}


def write_certificate(cert: dict, path: str | os.PathLike) -> Path:
    """Write ``cert`` as JSON, atomically (a kill leaves the old file or the new one: io.files.atomic_output)."""
    from ..io.files import atomic_output

    path = Path(path)
    with atomic_output(path, what="certificate") as fh:
        dump_layout(cert, fh)
        fh.write("\n")
    return path


def read_certificate(path: str | os.PathLike) -> dict:
    from ..io.files import read_json

    obj = read_json(path, what="certificate")
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise CertificateInvalid(f"{path}: not an {FORMAT}")
    return obj


def _checker() -> str:
    """``EXACTRELU_CHECKER``: "fast" (the default) or "reference", the checker of the library's own check."""
    name = os.environ.get("EXACTRELU_CHECKER", "fast").strip() or "fast"
    if name not in ("fast", "reference"):
        raise InvalidInput(f"EXACTRELU_CHECKER must be 'fast' or 'reference', not {name[:20]!r}")
    return name


def check_read(cert: dict, instance: dict | None, where: str, workers: int | None = None, *,
               reference: bool | None = None) -> str:
    """Verify ``cert`` against an instance read by the checker's own reader (``checker.load_instance(path,
    parse=False)``: a JSON or .npz file, not parsed); the summary, or the checker's CheckFailed / UnreadableInput.

    The fast checker (the reference when ``reference`` is true; None: ``EXACTRELU_CHECKER``), on ``workers``
    processes, by default every idle core of a large instance (:func:`exactrelu.parallel.check_workers`) with one
    BLAS thread each. The fast checker hands every claim it does not decide itself to the reference.
    """
    from . import checker, fast

    rows = 0 if instance is None else len(instance["inputs"])
    entries = rows and rows * (len(instance["inputs"][0]) + len(instance["labels"][0]))
    if workers is None:
        workers = parallel.check_workers(entries)
    if reference if reference is not None else _checker() == "reference":
        return checker.check_parallel(cert, instance, workers, where) if workers > 1 else \
            checker.check(cert, instance, where)
    with blas.fixed_threads(1 if entries >= parallel.PARALLEL_CHECK_ENTRIES else None):  # small products: one thread
        return fast.check(cert, instance, workers, where=where)


def verify(cert: dict, instance: Instance) -> str:
    """Run the independent check; return its summary or raise CertificateInvalid.

    The claims about one network on the instance (``realizes``, ``realizes-except``, ``residual``) are checked by the
    fast exact checker (:mod:`exactrelu.certificates.fast`: NumPy, the float64 data handed over as held), every other
    claim, and every claim when ``EXACTRELU_CHECKER=reference``, by the reference checker
    (:mod:`exactrelu.certificates.checker`); large instances on every idle core
    (:func:`exactrelu.parallel.check_workers`), the fast checker with one BLAS thread per process.
    """
    # imported here, not at module level: ``python -m exactrelu.certificates.checker`` then runs a
    # module the package has not imported yet (runpy warns otherwise)
    from . import checker, fast

    try:
        workers = parallel.check_workers(_entries(instance))
        if isinstance(cert, dict) and cert.get("claim") in fast.CLAIMS and _checker() == "fast":
            large = _entries(instance) >= parallel.PARALLEL_CHECK_ENTRIES  # (setting the threads costs ~4 ms)
            with blas.fixed_threads(1 if large else None):  # small products: a second BLAS thread only spins
                return fast.check(cert, checker_view.fast_instance(instance), workers)
        data = checker_view.checker_instance(instance)
        return checker.check_parallel(cert, data, workers) if workers > 1 else checker.check(cert, data)
    except checker.CheckFailed as exc:
        raise CertificateInvalid(str(exc)) from None
    except checker.UnreadableInput as exc:  # over one of the checker's size limits
        raise InvalidInput(str(exc)) from None
