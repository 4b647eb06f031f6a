"""Independent checker for exactrelu certificates. Standard library only.

This file and the modules of :mod:`exactrelu.certificates.trusted` (the trusted base, listed in
:data:`TRUSTED_FILES`) import only the standard library: nothing else from exactrelu and no numeric
library. The checker re-reads the instance, recomputes its SHA-256, and verifies each claim with
Python integers and fractions. It shares no code with the solver, so a bug in the solver cannot
hide here.

Usage::

    python -m exactrelu.certificates.checker CERT.json INSTANCE.(json|npz) [--workers N] [--range START:STOP]

``--workers N`` checks the samples of ``realizes``, ``realizes-except`` and ``residual`` in N processes
(``multiprocessing``, forked after the instance is read once) and combines their verdicts into one. How
the checker schedules its work (ranges, streaming, workers, the collector pause) is
``trusted/schedule.py``, whose docstring says which of its lines decide soundness and which only schedule.
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
    no realizable hidden row lies outside a hyperplane of the labels' row space.
``lp-feasible``
    the inline linear system {x : A_eq x = b_eq, A_ub x <= b_ub} holds at ``point``.
``lp-infeasible``
    ``y_ub >= 0``, ``y_eq^T A_eq + y_ub^T A_ub = 0`` and ``y_eq^T b_eq + y_ub^T b_ub < 0``
    (a Farkas vector: the system has no solution). LP claims carry their data and need no instance.
``equivalent`` / ``not-equivalent``
    two inline networks are the same function on all of R^d (both canonical forms recomputed and equal to
    the stated one), or differ at the stated witness (both evaluated exactly); no instance needed. With a
    ``domain``, networks of any depth: a case tree over the neuron phases of their reduced difference.
``transcript``
    an oracle's answers at its queries (blocks: points on a line, the d points around a point along the axes, or
    points as written): an inline ReLU network gives every answer exactly, and/or disjoint windows of a line with
    answers not collinear prove that every one-hidden-layer ReLU network giving them has at least that many units.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

from .trusted.common import CheckFailed, UnreadableInput, canonical, parse_rational, read_certificate, read_json
from .trusted.equivalence import check_equivalent, check_not_equivalent
from .trusted.instance import check_digest_field, entry, instance_sha256, load_instance, parsed_instance
from .trusted.lp import check_lp_feasible, check_lp_infeasible
from .trusted.realizes import RANGE_CLAIMS, check_realizes, check_realizes_except, check_residual, combine, part
from .trusted.refutation import check_not_realizable
from .trusted.schedule import (BLOCK, check_on_workers, check_rows, check_streaming, collector_paused, combine_rows,
                               cuts, forks, range_task)
from .trusted.span import check_rank_refutation
from .trusted.transcript import check_transcript

__all__ = ["CheckFailed", "UnreadableInput", "check", "check_files", "main", "load_instance", "instance_sha256",
           "parsed_instance", "parse_rational", "entry", "canonical", "read_json", "CLAIMS", "TRUSTED_FILES",
           "check_parallel", "check_range", "check_rows", "check_streaming", "read_certificate", "combine",
           "combine_rows", "range_task", "cuts", "RANGE_CLAIMS", "BLOCK"]

FORMAT = "exactrelu.certificate"

#: The files of the trusted base (this one and the ``trusted`` package), for audits and mutation tests.
TRUSTED_FILES = ("checker.py", "trusted/common.py", "trusted/instance.py", "trusted/npz.py", "trusted/realizes.py",
                 "trusted/realizes_bounds.py", "trusted/lrat.py", "trusted/refutation.py", "trusted/span.py",
                 "trusted/lp.py", "trusted/tree.py", "trusted/model.py", "trusted/equivalence.py", "trusted/packed.py",
                 "trusted/schedule.py", "trusted/deep.py", "trusted/phases.py", "trusted/transcript.py")


def _not_realizable(cert: dict, instance) -> str:
    """Case refutations (U given, or unknown with m = 1) or a rank witness (any U, any m)."""
    return (check_rank_refutation if "rank" in cert else check_not_realizable)(cert, instance)


CLAIMS = {"realizes": check_realizes, "realizes-except": check_realizes_except, "residual": check_residual,
          "lp-feasible": check_lp_feasible, "lp-infeasible": check_lp_infeasible, "not-realizable": _not_realizable,
          "equivalent": check_equivalent, "not-equivalent": check_not_equivalent, "transcript": check_transcript}


#: the claims about an instance: the certificate names it by its SHA-256 (the others carry their data inline)
INSTANCE_CLAIMS = frozenset({"realizes", "realizes-except", "residual", "not-realizable"})


def _claim(cert) -> str:
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        named = cert.get("format") if isinstance(cert, dict) else None  # a network or an instance, said so
        raise CheckFailed(f"not an {FORMAT}" + (f" (its format is {named[:40]!r})" if type(named) is str else ""))
    if type(cert.get("version")) is not int or cert["version"] != 1:  # not true, not 1.0
        raise CheckFailed(f"unsupported certificate version {str(cert.get('version'))[:20]!r}")
    claim = cert.get("claim")
    if not isinstance(claim, str) or claim not in CLAIMS:  # not a str: [] or {} are no claim (and unhashable)
        raise CheckFailed(f"unknown claim {claim!r:.40}; this checker knows {sorted(CLAIMS)}")
    if claim in INSTANCE_CLAIMS:
        check_digest_field(cert)
    return claim


@collector_paused
def check(cert: dict, instance: dict | None, where: str = "the instance") -> str:
    """Verify a certificate (a parsed JSON object) against a loaded instance (None for claims that carry their data).

    Claims about one network on an instance not parsed yet are checked streaming (:func:`check_streaming`);
    ``where`` names the instance in messages.
    """
    claim = _claim(cert)
    if claim in RANGE_CLAIMS and instance is not None and "parsed" not in instance:
        return check_streaming(cert, instance, where)
    return CLAIMS[claim](cert, instance)


@collector_paused
def check_range(cert: dict, instance: dict, start: int, stop: int) -> dict:
    """The verdict of the samples ``start <= j < stop`` (a dict for :func:`combine`), or CheckFailed.

    >>> from exactrelu.instances import planted
    >>> from exactrelu.certificates.claims.realizes import realizes_certificate
    >>> from exactrelu.instances.checker_view import checker_instance
    >>> inst = planted(d=3, k=2, m=2, n=40, seed=1)
    >>> cert, data = realizes_certificate(inst, inst.planted), checker_instance(inst)
    >>> combine(cert, [check_range(cert, data, 20, 40), check_range(cert, data, 0, 20)])
    'realizes: 40 samples x 2 outputs equal exactly (k=2, d=3, activation degree 1)'
    """
    if _claim(cert) not in RANGE_CLAIMS:
        raise CheckFailed(f"claim {cert['claim']!r} is checked whole, not by ranges of samples")
    return part(cert, instance, start, stop)


@collector_paused
def check_parallel(cert: dict, instance: dict | None, workers: int, where: str = "the instance") -> str:
    """:func:`check` with the samples split into ``workers`` ranges, each parsed and checked by a forked process
    (``trusted/schedule.py``: :func:`check_rows`, bound and combined by :func:`combine_rows`).

    Claims not checked by ranges, one worker, or a platform without ``fork`` run in this process.
    """
    if _claim(cert) in RANGE_CLAIMS and instance is not None and "parsed" not in instance:
        return check_on_workers(cert, instance, workers, where) if forks(workers) else check(cert, instance, where)
    return check(cert, _parsed(instance, where))


def _parsed(instance: dict | None, where: str) -> dict | None:
    """The instance with its numbers parsed (read by ``load_instance(..., parse=False)``, they are not yet)."""
    if instance is None or "parsed" in instance:
        return instance
    return {**instance, "parsed": parsed_instance(instance["inputs"], instance["labels"], where=where)}


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
