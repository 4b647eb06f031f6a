"""Independent checker for exactrelu certificates. Standard library only.

This file and the modules of :mod:`exactrelu.certificates.trusted` (the trusted base, listed in
:data:`TRUSTED_FILES`) import only the standard library: nothing else from exactrelu and no numeric
library. The checker re-reads the instance, recomputes its SHA-256, and verifies each claim with
Python integers and fractions. It shares no code with the solver, so a bug in the solver cannot
hide here.

Usage::

    python -m exactrelu.certificates.checker CERT.json INSTANCE.(json|npz)

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
"""

from __future__ import annotations

import sys

from .trusted.common import CheckFailed, UnreadableInput, canonical, parse_rational, read_json
from .trusted.equivalence import check_equivalent, check_not_equivalent
from .trusted.instance import entry, instance_sha256, load_instance, parsed_instance
from .trusted.lp import check_lp_feasible, check_lp_infeasible
from .trusted.realizes import check_realizes, check_realizes_except, check_residual
from .trusted.refutation import check_not_realizable
from .trusted.span import check_rank_refutation

__all__ = ["CheckFailed", "UnreadableInput", "check", "check_files", "main", "load_instance", "instance_sha256",
           "parsed_instance", "parse_rational", "entry", "canonical", "read_json", "CLAIMS", "TRUSTED_FILES"]

FORMAT = "exactrelu.certificate"

#: The files of the trusted base (this one and the ``trusted`` package), for audits and mutation tests.
TRUSTED_FILES = ("checker.py", "trusted/common.py", "trusted/instance.py", "trusted/realizes.py", "trusted/lrat.py",
                 "trusted/refutation.py", "trusted/span.py", "trusted/lp.py", "trusted/tree.py",
                 "trusted/model.py", "trusted/equivalence.py", "trusted/packed.py")

def _not_realizable(cert: dict, instance) -> str:
    """Case refutations (U given, or unknown with m = 1) or a rank witness (any U, any m)."""
    return (check_rank_refutation if "rank" in cert else check_not_realizable)(cert, instance)


CLAIMS = {"realizes": check_realizes, "realizes-except": check_realizes_except, "residual": check_residual,
          "lp-feasible": check_lp_feasible, "lp-infeasible": check_lp_infeasible, "not-realizable": _not_realizable,
          "equivalent": check_equivalent, "not-equivalent": check_not_equivalent}


def check(cert: dict, instance: dict | None) -> str:
    """Verify a certificate (a parsed JSON object) against a loaded instance (None for claims that carry their data)."""
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise CheckFailed(f"not an {FORMAT}")
    if type(cert.get("version")) is not int or cert["version"] != 1:  # not true, not 1.0
        raise CheckFailed(f"unsupported certificate version {str(cert.get('version'))[:20]!r}")
    claim = cert.get("claim")
    if claim not in CLAIMS:
        raise CheckFailed(f"unknown claim {claim!r}; this checker knows {sorted(CLAIMS)}")
    return CLAIMS[claim](cert, instance)


def check_files(cert_path: str, instance_path: str | None) -> str:
    """Read both files (an unreadable one raises UnreadableInput) and verify the certificate."""
    try:
        with open(cert_path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise UnreadableInput(f"cannot read {cert_path}: {exc}") from None
    cert = read_json(raw, cert_path)
    instance = load_instance(instance_path) if instance_path is not None else None
    return check(cert, instance)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (1, 2) or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0])
        print("usage: python -m exactrelu.certificates.checker CERT [INSTANCE]")
        return 2
    try:
        summary = check_files(argv[0], argv[1] if len(argv) == 2 else None)
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
