"""The fast exact checker of the bulk claims: ``realizes``, ``realizes-except`` and ``residual`` on an instance.

A second checker beside the reference (``exactrelu/certificates/checker.py`` and ``trusted/``, standard library
only), for the library's own check and ``exactrelu check``: NumPy and the standard library, no FLINT, nothing of the
library's solvers or of ``exactrelu/exact``. It reads the instance in blocks of rows (float64 arrays as the library
holds them, .npz members as bytes, rows of canonical text, integers over a power of two), makes the canonical text
of every number itself and decides
the claim with integer arithmetic done by float64 BLAS on 24-bit limbs (:mod:`.limbs`; the proofs are in
docs/design.md, "The fast checker"), for a network of any depth (the hidden layers of a ``"layers"`` network:
:mod:`.deep`). What it shares with the reference, and why: the certificate's parsers, the
limits, the verdicts' wording and the rules that bind blocks of rows to the certificate (``combine_rows``); rows
it does not read (other numbers than dyadic ones, non-canonical text, numbers beyond its limbs) are read by the
reference, block by block, so that both give the same verdict on every input. Every other claim goes to the reference.

>>> from exactrelu.certificates.claims.realizes import realizes_certificate
>>> from exactrelu.instances import planted
>>> from exactrelu.instances.checker_view import fast_instance
>>> inst = planted(d=3, k=2, m=2, n=40, seed=1)
>>> check(realizes_certificate(inst, inst.planted), fast_instance(inst))
'realizes: 40 samples x 2 outputs equal exactly (k=2, d=3, activation degree 1)'
"""

from __future__ import annotations

from .. import checker
from ..trusted.common import CheckFailed, UnreadableInput, read_certificate
from ..trusted.instance import instance_shape, load_instance
from ..trusted.realizes import RANGE_CLAIMS
from ..trusted.schedule import collector_paused
from .blocks import check_blocks
from .sources import reference_view

__all__ = ["check", "check_files", "CLAIMS", "CheckFailed", "UnreadableInput"]

#: the claims this checker decides itself (the others go to the reference)
CLAIMS = frozenset(RANGE_CLAIMS)


@collector_paused
def check(cert: dict, instance: dict | None, workers: int = 1, where: str = "the instance") -> str:
    """Verify a certificate against an instance (``{"inputs", "labels", "activation"}``, not parsed); the summary, or
    CheckFailed (the claim does not hold) or UnreadableInput (the input cannot be read, or is over a limit).

    ``workers`` > 1 judges the blocks of rows in that many forked processes (the verdict is the same).
    """
    claim = checker._claim(cert)
    if claim not in CLAIMS or instance is None or "parsed" in instance:
        view = None if instance is None else reference_view(instance)
        return checker.check_parallel(cert, view, workers, where)
    view = reference_view(instance)
    shape = instance_shape(view["inputs"], view["labels"], where)
    return check_blocks(cert, instance, shape, workers, where)


def check_files(cert_path: str, instance_path: str | None, workers: int = 1) -> str:
    """Read both files (the reference's readers; UnreadableInput when they cannot be read) and verify."""
    cert = read_certificate(cert_path)
    instance = load_instance(instance_path, parse=False) if instance_path is not None else None
    return check(cert, instance, workers, where=instance_path or "the instance")
