"""Independent checker for exactrelu certificates. Standard library only.

This file and the modules of :mod:`exactrelu.certificates.trusted` (the trusted base, listed in
:data:`TRUSTED_FILES`) import only the standard library: nothing else from exactrelu and no numeric
library. The checker re-reads the instance, recomputes its SHA-256, and verifies each claim with
Python integers and fractions. It shares no code with the solver, so a bug in the solver cannot
hide here.

Usage::

    python -m exactrelu.certificates.checker CERT.json INSTANCE.(json|npz) [--workers N] [--range START:STOP]

``--workers N`` checks the samples of ``realizes``, ``realizes-except`` and ``residual`` in N processes
(``multiprocessing``, forked after the instance is read once) and combines their verdicts into one.
``--range START:STOP`` checks only the samples START <= j < STOP and prints that range's verdict as one
line of JSON (``VALID-RANGE: {...}``), bound to the certificate and instance hashes; the verdicts of ranges
that tile 0..n-1 are combined by :func:`combine` (docs/certificates.md, "Checking in ranges").

Exit status: 0 the certificate holds, 1 it does not, 2 the files cannot be read or are over a size
limit (docs/limits.md: each limit is raised with an environment variable ``EXACTRELU_MAX_<NAME>``).

Claims known (every other claim is rejected):

``realizes``
    for every sample j and output r, ``sum_i U[r][i] f(V[i] . x_j + b[i]) == labels[j][r]``,
    f = ReLU or the rectified power t^c; no ``b`` means b = 0 (docs/certificates.md).
``realizes-except``
    as ``realizes`` at every entry (j, r) not listed in ``except``, and different at every listed one.
``residual``
    ``squared_error`` (and ``max_abs_error``) of the network on the instance, stated exactly.

``not-realizable``
    no real weights give ``sum_i U[r][i] relu(V[i] . x_j) == labels[j][r]``: for U given, or for
    any U when m = 1 (cases u in {1, 0, -1}^k, non-increasing). Each case carries a case tree over
    activation patterns with a Farkas vector (or a proved lemma) at every leaf, or lemmas (each a
    Farkas vector, or a template proved once and instantiated on clusters with equal data) and a
    refutation of their clauses, hinted (LRAT-style, checked in one linear pass; a DRUP proof is refused
    with the command that converts it) (docs/certificates.md). Or, for any U and any m (``exactrelu solve``): a
    non-zero (k+1) x (k+1) minor of the labels (rank > k), or a k x k one and a span refutation:
    no realisable hidden row lies outside a hyperplane of the labels' row space.
``lp-feasible``
    the inline linear system {x : A_eq x = b_eq, A_ub x <= b_ub} holds at ``point``.
``lp-infeasible``
    ``y_ub >= 0``, ``y_eq^T A_eq + y_ub^T A_ub = 0`` and ``y_eq^T b_eq + y_ub^T b_ub < 0``
    (a Farkas vector: the system has no solution). LP claims carry their data and need no instance.
``equivalent`` / ``not-equivalent``
    two inline networks are the same function on all of R^d (both canonical forms recomputed and equal to
    the stated one), or differ at the stated witness (both evaluated exactly); no instance needed.
``transcript``
    an oracle's answers at its queries (blocks: points on a line, the d points around a point along the axes, or
    points as written): an inline ReLU network gives every answer exactly, and/or disjoint windows of a line with
    answers not collinear prove that every one-hidden-layer ReLU network giving them has at least that many units.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import multiprocessing
import sys
from fractions import Fraction

from .trusted.common import CheckFailed, UnreadableInput, canonical, parse_rational, read_json
from .trusted.equivalence import check_equivalent, check_not_equivalent
from .trusted.instance import (entry, hash_header, instance_sha256, instance_shape, load_instance, parsed_instance,
                               parsed_rows)
from .trusted.lp import check_lp_feasible, check_lp_infeasible
from .trusted.realizes import (RANGE_CLAIMS, check_realizes, check_realizes_except, check_residual, combine, part,
                               part_of_rows)
from .trusted.refutation import check_not_realizable
from .trusted.span import check_rank_refutation
from .trusted.transcript import check_transcript

__all__ = ["CheckFailed", "UnreadableInput", "check", "check_files", "main", "load_instance", "instance_sha256",
           "parsed_instance", "parse_rational", "entry", "canonical", "read_json", "CLAIMS", "TRUSTED_FILES",
           "check_parallel", "check_range", "check_rows", "check_streaming", "read_certificate", "combine", "combine_rows", "range_task", "cuts", "RANGE_CLAIMS",
           "BLOCK"]

FORMAT = "exactrelu.certificate"

#: The files of the trusted base (this one and the ``trusted`` package), for audits and mutation tests.
TRUSTED_FILES = ("checker.py", "trusted/common.py", "trusted/instance.py", "trusted/npz.py", "trusted/realizes.py",
                 "trusted/lrat.py", "trusted/refutation.py", "trusted/span.py", "trusted/lp.py", "trusted/tree.py",
                 "trusted/model.py", "trusted/equivalence.py", "trusted/packed.py", "trusted/transcript.py")


def _collector_paused(check_function):
    """Run ``check_function`` with the cyclic garbage collector paused, and restore it after.

    A check makes millions of short-lived objects (rows of integers, their text), all acyclic and freed by reference
    counting as each block of rows ends; what the collector adds is its full passes over every object of the process
    (a library process holds hundreds of thousands, and a worker forked from it inherits them): 10-18% of a residual
    check (benchmarks/README.md). Nothing the check holds on to depends on the collector, and forked workers inherit
    the paused state.
    """
    @functools.wraps(check_function)
    def paused(*args, **kwargs):
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return check_function(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()
    return paused


def _not_realizable(cert: dict, instance) -> str:
    """Case refutations (U given, or unknown with m = 1) or a rank witness (any U, any m)."""
    return (check_rank_refutation if "rank" in cert else check_not_realizable)(cert, instance)


CLAIMS = {"realizes": check_realizes, "realizes-except": check_realizes_except, "residual": check_residual,
          "lp-feasible": check_lp_feasible, "lp-infeasible": check_lp_infeasible, "not-realizable": _not_realizable,
          "equivalent": check_equivalent, "not-equivalent": check_not_equivalent, "transcript": check_transcript}


def _claim(cert) -> str:
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise CheckFailed(f"not an {FORMAT}")
    if type(cert.get("version")) is not int or cert["version"] != 1:  # not true, not 1.0
        raise CheckFailed(f"unsupported certificate version {str(cert.get('version'))[:20]!r}")
    claim = cert.get("claim")
    if claim not in CLAIMS:
        raise CheckFailed(f"unknown claim {claim!r}; this checker knows {sorted(CLAIMS)}")
    return claim


@_collector_paused
def check(cert: dict, instance: dict | None, where: str = "the instance") -> str:
    """Verify a certificate (a parsed JSON object) against a loaded instance (None for claims that carry their data).

    Claims about one network on an instance not parsed yet are checked streaming (:func:`check_streaming`);
    ``where`` names the instance in messages.
    """
    claim = _claim(cert)
    if claim in RANGE_CLAIMS and instance is not None and "parsed" not in instance:
        return check_streaming(cert, instance, where)
    return CLAIMS[claim](cert, instance)


@_collector_paused
def check_range(cert: dict, instance: dict, start: int, stop: int) -> dict:
    """The verdict of the samples ``start <= j < stop`` (a dict for :func:`combine`), or CheckFailed.

    >>> from exactrelu.instances import planted
    >>> from exactrelu.certificates.claims.realizes import realizes_certificate
    >>> from exactrelu.certificates.envelope import checker_instance
    >>> inst = planted(d=3, k=2, m=2, n=40, seed=1)
    >>> cert, data = realizes_certificate(inst, inst.planted), checker_instance(inst)
    >>> combine(cert, [check_range(cert, data, 20, 40), check_range(cert, data, 0, 20)])
    'realizes: 40 samples x 2 outputs equal exactly (k=2, d=3, activation degree 1)'
    """
    if _claim(cert) not in RANGE_CLAIMS:
        raise CheckFailed(f"claim {cert['claim']!r} is checked whole, not by ranges of samples")
    return part(cert, instance, start, stop)


def check_rows(cert: dict, instance: dict, start: int, stop: int, where: str = "the instance") -> tuple:
    """Parse and check rows start..stop-1 only: ((n, d, m), their hashed text, verdict, error), for
    :func:`combine_rows`, which binds the rows to ``instance_sha256``; nothing here is a verdict on its own."""
    shape = n, d, m = instance_shape(instance["inputs"], instance["labels"], where)
    if not (type(start) is int and type(stop) is int and 0 <= start < stop <= n):
        raise UnreadableInput(f"the range {start}:{stop} is not one of samples 0 <= START < STOP <= {n}")
    try:
        X, Y, text = parsed_rows(instance["inputs"][start:stop], instance["labels"][start:stop], d, m, where)
    except UnreadableInput as exc:
        return shape, None, None, ("unreadable", str(exc))
    try:
        return shape, text, part_of_rows(cert, X, Y, instance.get("activation"), start, n), None
    except CheckFailed as exc:
        return shape, text, None, ("failed", str(exc))


def combine_rows(cert: dict, results) -> str:
    """The verdict on the whole claim from :func:`check_rows` of ranges, in sample order, that tile 0..n-1.

    ``results`` may be an iterator (each range's text is hashed as it comes, then dropped). A malformed row is
    unreadable (UnreadableInput); then the rows' text, hashed in order, must be the certificate's
    ``instance_sha256``; then the first refuted range refutes the claim.
    """
    shape, digest, errors, verdicts = None, None, [], []
    for got, text, verdict, error in results:
        if shape is None:
            shape, digest = got, hashlib.sha256(hash_header(*got))
        if got != shape:
            raise CheckFailed("the ranges' results are not all about one instance")
        if error:
            errors.append(error)
        if text is not None:
            digest.update(text)
        if verdict is not None:
            verdicts.append(verdict)
    if shape is None:
        raise CheckFailed("nothing to combine")
    if any(kind == "unreadable" for kind, _ in errors):
        raise UnreadableInput(next(text for kind, text in errors if kind == "unreadable"))
    if cert.get("instance_sha256") != digest.hexdigest():
        raise CheckFailed("instance_sha256 does not match the instance")
    if errors:
        raise CheckFailed(errors[0][1])
    if [v["samples"] for v in verdicts] != sorted(v["samples"] for v in verdicts):
        raise CheckFailed("the ranges' results are not in sample order: their rows were not hashed in order")
    return combine(cert, verdicts)  # combine checks that the ranges tile 0..n-1


#: Rows parsed and checked at a time by a check that streams (the exact rows held at once).
BLOCK = 2048


def check_streaming(cert: dict, instance: dict, where: str = "the instance") -> str:
    """:func:`check` of a claim checked by ranges on an instance whose numbers are not parsed yet: blocks of
    :data:`BLOCK` rows are parsed, hashed and checked one after the other, so that only one block's exact rows
    are held at once."""
    n = instance_shape(instance["inputs"], instance["labels"], where)[0]
    return combine_rows(cert, (check_rows(cert, instance, a, min(a + BLOCK, n), where) for a in range(0, n, BLOCK)))


@_collector_paused
def range_task(cert_path: str, instance_path: str, start: int, stop: int) -> tuple:
    """:func:`check_rows` on files: one task of a check in ranges on a cluster (each task reads the files)."""
    return check_rows(read_certificate(cert_path), load_instance(instance_path, parse=False), start, stop, instance_path)


def cuts(n: int, pieces: int) -> list:
    """``pieces`` (at most n) ranges of nearly equal size that tile 0..n-1, as (start, stop) pairs."""
    bounds = sorted({n * i // max(1, min(pieces, n)) for i in range(min(pieces, n) + 1)})
    return list(zip(bounds, bounds[1:]))


_SHARED: tuple = ()  # (certificate, instance, where) of check_parallel, inherited by the forked workers


def _shared_rows_of(span: tuple) -> tuple:
    return check_rows(*_SHARED[:2], *span, _SHARED[2])


@_collector_paused
def check_parallel(cert: dict, instance: dict | None, workers: int, where: str = "the instance") -> str:
    """:func:`check` with the samples split into ``workers`` ranges, each parsed and checked by a forked process
    (:func:`check_rows`), then bound and combined (:func:`combine_rows`).

    Claims not checked by ranges, one worker, or a platform without ``fork`` run in this process.
    """
    global _SHARED
    claim = _claim(cert)
    if claim in RANGE_CLAIMS and instance is not None and "parsed" not in instance and (
            workers <= 1 or "fork" not in multiprocessing.get_all_start_methods()):
        return check(cert, instance, where)
    if workers <= 1 or claim not in RANGE_CLAIMS or instance is None or "parsed" in instance:
        return check(cert, _parsed(instance, where))
    n = instance_shape(instance["inputs"], instance["labels"], where)[0]
    _SHARED = (cert, instance, where)
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, n)) as pool:
            # ranges of at most BLOCK rows, in order: the parent hashes each one's text as it comes
            ranges = cuts(n, max(workers, -(-n // BLOCK)))
            return combine_rows(cert, pool.imap(_shared_rows_of, ranges))
    finally:
        _SHARED = ()


def _parsed(instance: dict | None, where: str) -> dict | None:
    """The instance with its numbers parsed (read by ``load_instance(..., parse=False)``, they are not yet)."""
    if instance is None or "parsed" in instance:
        return instance
    return {**instance, "parsed": parsed_instance(instance["inputs"], instance["labels"], where=where)}


def read_certificate(cert_path: str) -> dict:
    """A certificate file's JSON object (UnreadableInput when it cannot be read)."""
    try:
        with open(cert_path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise UnreadableInput(f"cannot read {cert_path}: {exc}") from None
    return read_json(raw, cert_path)


def check_files(cert_path: str, instance_path: str | None, workers: int = 1) -> str:
    """Read both files (an unreadable one raises UnreadableInput) and verify the certificate."""
    cert = read_certificate(cert_path)
    # not parsed here: claims checked by ranges stream the rows (an .npz a block at a time), the others parse them
    instance = load_instance(instance_path, parse=False) if instance_path is not None else None
    return check_parallel(cert, instance, workers, where=instance_path or "the instance")


def _options(argv: list) -> tuple:
    """(files, workers, range or None) from the command line; UnreadableInput on a malformed option."""
    files, workers, span = [], 1, None
    it = iter(argv)
    for arg in it:
        if arg in ("--workers", "--range"):
            value = next(it, "")
            if arg == "--workers":
                if not (value.isascii() and value.isdigit() and 1 <= int(value) <= 1024):
                    raise UnreadableInput(f"--workers needs a number of processes from 1 to 1024, not {value[:20]!r}")
                workers = int(value)
            else:
                a, sep, b = value.partition(":")
                if not (sep and a.isascii() and a.isdigit() and b.isascii() and b.isdigit() and len(value) < 40):
                    raise UnreadableInput(f"--range needs START:STOP (sample numbers), not {value[:20]!r}")
                span = (int(a), int(b))
        elif arg.startswith("--"):
            raise UnreadableInput(f"unknown option {arg[:40]!r}")
        else:
            files.append(arg)
    if len(files) not in (1, 2) or (span and len(files) != 2):
        raise UnreadableInput("usage: python -m exactrelu.certificates.checker CERT [INSTANCE] [--workers N] "
                              "[--range START:STOP]")
    return files, workers, span


def _long_text(x: Fraction) -> str:
    """A range verdict's exact number as text (its digits are bounded by the limit 'intermediate', which may
    exceed Python's own int/str limit)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return canonical(x)
    finally:
        sys.set_int_max_str_digits(old)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0])
        print("usage: python -m exactrelu.certificates.checker CERT [INSTANCE] [--workers N] [--range START:STOP]")
        return 2
    try:
        files, workers, span = _options(argv)
        if span:
            verdict = check_range(read_certificate(files[0]), load_instance(files[1]), *span)
            print(f"VALID-RANGE: {json.dumps(verdict, sort_keys=True, default=_long_text)}")
            return 0
        summary = check_files(files[0], files[1] if len(files) == 2 else None, workers)
    except UnreadableInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (MemoryError, RecursionError) as exc:
        print(f"error: out of memory or nesting depth reading the files ({type(exc).__name__})", file=sys.stderr)
        return 2
    except CheckFailed as exc:
        print(f"INVALID: {exc}")
        return 1
    print(f"VALID: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
