"""The certificate envelope of docs/design.md: the format literal, the instance hash, provenance, read, write, verify.

Certificates are plain JSON objects. The writers of each claim family are in
:mod:`exactrelu.certificates.claims` (one module per family, named like the trusted module that
checks it); this module holds what they share, and hands certificates to the independent
:mod:`exactrelu.certificates.checker` for verification.

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
import json
import os
import re
import sys
import time
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path

from .._version import __version__
from ..errors import CertificateInvalid, InvalidInput
from ..validation import check_integer
from ..instances import Instance
from ..network import RELU, Network

__all__ = ["FORMAT", "STREAM_ENTRIES", "StringRows", "FloatRows", "instance_sha256", "instance_hash_ahead",
           "network_fields", "envelope", "rational_text", "write_certificate", "dump_layout", "read_certificate",
           "verify", "provenance"]

#: the one format literal of the library's certificates (the checker keeps its own copy: it imports nothing)
FORMAT = "exactrelu.certificate"


#: Instances of more entries n (d + m) than this are written and checked in blocks of rows of text (never the
#: whole text at once, which takes about 100 bytes per entry); smaller ones keep their text (cached, read twice).
STREAM_ENTRIES = 4_000_000


class BlockRows(Sequence):
    """Rows of a matrix made block by block when sliced (nothing cached): :meth:`block` gives rows start..stop-1."""

    def __init__(self, matrix) -> None:
        self.matrix = matrix

    def __len__(self) -> int:
        return self.matrix.shape[0]

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            if step != 1:
                raise ValueError(f"{type(self).__name__} slices have step 1")
            return self.block(start, max(start, stop))
        i = range(len(self))[key]
        return self.block(i, i + 1)[0]

    @abstractmethod
    def block(self, start: int, stop: int) -> list:
        """Rows ``start <= i < stop``."""


class StringRows(BlockRows):
    """The canonical rational strings of a matrix's rows, made block by block when sliced (nothing cached).

    >>> from exactrelu.exact import QMatrix
    >>> rows = StringRows(QMatrix.from_rows([[1, "1/2"], [3, 4]]))
    >>> len(rows), rows[1], rows[0:1]
    (2, ['3', '4'], [['1', '1/2']])
    """

    def block(self, start: int, stop: int) -> list:
        return self.matrix.row_strings(start, stop)


class FloatRows(BlockRows):
    """The rows of a float64 array as lists of Python floats, made block by block when sliced: what the checker
    reads from an .npz instance (it makes the canonical text of each float itself, ``float.as_integer_ratio``).

    >>> import numpy as np
    >>> rows = FloatRows(np.array([[0.5, -0.0], [3.0, 2.0**-1074]]))
    >>> len(rows), rows[0], rows[1:2]
    (2, [0.5, -0.0], [[3.0, 5e-324]])
    """

    def block(self, start: int, stop: int) -> list:
        return self.matrix[start:stop].tolist()


def _streamed(instance: Instance) -> bool:
    return instance.n * (instance.d + instance.m) > STREAM_ENTRIES and "_input_strings" not in instance._cache


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
    """Hash ``instance`` in a forked child while the block runs (a recovery), when :func:`check_workers` would
    fork for it (at least :data:`PARALLEL_CHECK_ENTRIES` entries, two cores, no other threads, not a daemon;
    ``EXACTRELU_CHECK_WORKERS=1`` turns it off) and a core is idle now (:func:`_idle_core`);
    :func:`instance_sha256` inside the block takes its result.
    Leaving the block (a return, an error, a time limit, a KeyboardInterrupt) kills a child still running.

    >>> from exactrelu.instances import planted
    >>> inst = planted(d=3, k=2, m=2, n=40, seed=1)
    >>> with instance_hash_ahead(inst):
    ...     sha = instance_sha256(inst)
    >>> sha == instance_sha256(inst)
    True
    """
    from . import ahead

    try:
        fork = AHEAD_KEY not in instance._cache and check_workers(instance) > 1 and _idle_core()
    except InvalidInput:  # a malformed EXACTRELU_CHECK_WORKERS: verify() reports it, nothing is forked here
        fork = False
    job = ahead.start(_text_sha256, instance, valid=_is_hex_digest) if fork else None
    if job is not None:
        instance._cache[AHEAD_KEY] = job
    try:
        yield
    finally:
        if job is not None:
            if instance._cache.get(AHEAD_KEY) is job:
                del instance._cache[AHEAD_KEY]
            job.cancel()


def _idle_core() -> bool:
    """Whether a core is idle beside this process now (the child of :func:`instance_hash_ahead` only pays there: on a
    loaded machine it slowed the recovery it overlapped, benchmarks/README.md).

    Read from the number of runnable tasks (``/proc/loadavg``, the largest of three readings 10 ms apart, this
    process counted once, its spinning BLAS threads not: :func:`_runnable`), not the one-minute load average,
    which still counts a job for a minute after it ended (a benchmark's previous process made the average miss an
    idle core). Elsewhere, the load average.
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        running = max(_runnable() for _ in range(3) if time.sleep(0.01) is None)
    except (OSError, ValueError, IndexError):
        try:
            return os.getloadavg()[0] <= cores - 1
        except OSError:  # pragma: no cover - no load average on this platform
            return False
    return running <= cores - 1


def _runnable() -> int:
    """Tasks runnable on this machine now, this process counted once: the 4th field of ``/proc/loadavg`` ("R/T")
    less this process's other runnable threads (BLAS threads still spin for about 0.1 s after a float step, the
    caller's or ours: they are this process's and about to sleep, not another job on the other core)."""
    before = _own_running_threads()
    with open("/proc/loadavg") as fh:
        total = int(fh.read().split()[3].split("/")[0])
    # a thread that stops between the readings is not subtracted (the fewer of the two): never under the count
    return max(1, total - min(before, _own_running_threads()) + 1)


def _own_running_threads() -> int:
    """This process's threads in state R (``/proc/self/task/*/stat``), at least 1 (the one reading)."""
    running = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as fh:
                stat = fh.read()
        except OSError:  # a thread that ended meanwhile
            continue
        running += stat[stat.rindex(")") + 2:].startswith("R")
    return max(1, running)


def _is_hex_digest(text: str) -> bool:
    return re.fullmatch("[0-9a-f]{64}", text) is not None


def _text_sha256(instance: Instance) -> str:
    h = hashlib.sha256()
    h.update(f"exactrelu.instance.v1\n{instance.n} {instance.d} {instance.m}\n".encode())
    if _streamed(instance):
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
    ``"c"`` are written only when some hidden, output bias is non-zero (absent means zero)."""
    cert = {
        "format": FORMAT,
        "version": 1,
        "claim": claim,
        "instance_sha256": sha256 or instance_sha256(instance),
        "activation": (network.activation or RELU).to_json(),
        "U": network.U.to_strings(),
        "V": network.V.to_strings(),
    }
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


#: containers nested at most this deep are laid out one item per line (as ``indent=1``); deeper ones are one line
LAYOUT_DEPTH = 4


def dump_layout(obj, fh, depth: int = LAYOUT_DEPTH, pad: str = "") -> None:
    """Write ``obj`` as JSON to ``fh``, streaming: the outer ``depth`` levels one item per line, the rest compact.

    ``json.dump(indent=1)`` runs the pure-Python encoder over every number (0.45 s of a 2 MB refutation
    certificate's write at N = 200, profiled); here each inner item is one call of the C encoder and the text
    goes to the file as it is made. The result is the same JSON value (``json.loads`` reads it back equal).

    >>> import io
    >>> buf = io.StringIO(); dump_layout({"claim": "x", "lrat": [[1, 0, 2], [0, 1]]}, buf, depth=2); print(buf.getvalue())
    {
     "claim": "x",
     "lrat": [
      [1, 0, 2],
      [0, 1]
     ]
    }
    """
    if depth <= 0 or not isinstance(obj, (dict, list)) or not obj or (
            isinstance(obj, dict) and not all(isinstance(key, str) for key in obj)):
        fh.write(json.dumps(obj))
        return
    inner = pad + " "
    sep = "\n" + inner
    if isinstance(obj, dict):
        fh.write("{")
        for number, (key, value) in enumerate(obj.items()):
            fh.write(("," if number else "") + sep + json.dumps(key) + ": ")
            dump_layout(value, fh, depth - 1, inner)
        fh.write("\n" + pad + "}")
    else:
        fh.write("[")
        for number, value in enumerate(obj):
            fh.write(("," if number else "") + sep)
            dump_layout(value, fh, depth - 1, inner)
        fh.write("\n" + pad + "]")


def read_certificate(path: str | os.PathLike) -> dict:
    from ..io.files import read_json

    obj = read_json(path, what="certificate")
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise CertificateInvalid(f"{path}: not an {FORMAT}")
    return obj


def checker_instance(instance: Instance) -> dict:
    """The instance as the checker reads it: rows of canonical rational strings (a JSON file's), or rows of floats
    (an .npz file's) for a matrix of float64 values, whose text the checker then makes itself.

    An instance too large to keep its text (:data:`STREAM_ENTRIES`) or large enough to be checked on workers
    (:data:`PARALLEL_CHECK_ENTRIES`; its hash may have been made ahead, in a child) gets rows made a block at a
    time, by the workers that check them: its float64 matrices as floats (:class:`FloatRows`; the checker reads a
    row of floats in about 60% of the time it takes to read its text back, so even cached text is not used), its
    exact ones as text (:class:`StringRows`, or the cached text). A small one gets its text, made once and cached.
    """
    entries = instance.n * (instance.d + instance.m)
    lazy = entries > STREAM_ENTRIES or entries >= PARALLEL_CHECK_ENTRIES

    def rows(matrix, key, strings):
        floats = matrix.float_source if lazy else None  # float64 values: the checker makes their text itself
        if floats is not None:  # (as from an .npz), faster than reading text back even when the text is cached
            return FloatRows(floats[0])
        return strings() if key in instance._cache or not lazy else StringRows(matrix)

    return {
        "inputs": rows(instance.inputs, "_input_strings", instance.input_strings),
        "labels": rows(instance.labels, "_label_strings", instance.label_strings),
        "activation": instance.activation.to_json() if instance.activation else None,
    }


#: Instances of at least this many entries n (d + m) are checked in forked workers when cores are free
#: (benchmarks/README.md: at (200,20,20,2e4), unloaded, the check took 7.2 s in one process, 4.1 s on 2 workers)
PARALLEL_CHECK_ENTRIES = 1_000_000


def check_workers(instance: Instance) -> int:
    """How many processes :func:`verify` checks ``instance`` with: ``EXACTRELU_CHECK_WORKERS`` when set, else 2 for
    instances of at least :data:`PARALLEL_CHECK_ENTRIES` entries on a machine with two free cores, else 1.

    Never more than one in a daemonic process (a pool worker may not fork children), or while other Python threads
    run (a fork copies their held locks); the verdict is the same either way (the checker combines the ranges).

    >>> from exactrelu.instances import planted
    >>> check_workers(planted(d=3, k=2, m=2, n=40, seed=1))
    1
    """
    import multiprocessing
    import threading

    asked = os.environ.get("EXACTRELU_CHECK_WORKERS", "").strip()
    if asked:
        workers = check_integer(int(asked) if asked.isascii() and asked.isdigit() and len(asked) < 20 else asked,
                                "EXACTRELU_CHECK_WORKERS", minimum=1, maximum=64)
    else:
        n, d = instance.inputs.shape
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        workers = 2 if n * (d + instance.labels.shape[1]) >= PARALLEL_CHECK_ENTRIES and cores >= 2 else 1
    if workers > 1 and (multiprocessing.current_process().daemon or threading.active_count() > 1):
        return 1
    return workers


def verify(cert: dict, instance: Instance) -> str:
    """Run the independent checker; return its summary or raise CertificateInvalid."""
    # imported here, not at module level: ``python -m exactrelu.certificates.checker`` then runs a
    # module the package has not imported yet (runpy warns otherwise)
    from . import checker

    try:
        workers = check_workers(instance)
        data = checker_instance(instance)
        return checker.check_parallel(cert, data, workers) if workers > 1 else checker.check(cert, data)
    except checker.CheckFailed as exc:
        raise CertificateInvalid(str(exc)) from None
    except checker.UnreadableInput as exc:  # over one of the checker's size limits
        raise InvalidInput(str(exc)) from None
