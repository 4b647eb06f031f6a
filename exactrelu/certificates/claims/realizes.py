"""Writers of the claims about one network on one instance: ``realizes``, ``realizes-except``, ``residual``.

Read by the trusted :mod:`exactrelu.certificates.trusted.realizes` (docs/design.md, "Certificates").
Nothing is verified here: :func:`exactrelu.certificates.envelope.verify` runs the checker.

>>> from exactrelu.instances import planted
>>> from exactrelu.certificates.envelope import verify
>>> inst = planted(d=3, k=2, m=2, n=40, seed=1)
>>> cert = realizes_certificate(inst, inst.planted)
>>> cert["claim"], len(cert["instance_sha256"])
('realizes', 64)
>>> verify(cert, inst)
'realizes: 40 samples x 2 outputs equal exactly (k=2, d=3, activation degree 1)'
"""

from __future__ import annotations

from ...exact.rationals import format_rational
from ...instances import Instance
from ...network import Network
from ..envelope import network_fields, provenance
from .residual import exact_residual

__all__ = ["realizes_certificate", "realizes_except_certificate", "residual_certificate", "except_extent"]


def realizes_certificate(instance: Instance, network: Network, *, sha256: str | None = None, **prov) -> dict:
    """The ``realizes`` certificate for ``network`` on ``instance`` (not verified here: see :func:`verify`).

    The field ``"b"`` is written only when the network has a non-zero hidden bias.
    """
    return {**network_fields(instance, network, "realizes", sha256), "provenance": provenance(**prov)}


def realizes_except_certificate(instance: Instance, network: Network, except_entries, *, sha256: str | None = None,
                                max_except=None, **prov) -> dict:
    """``realizes-except``: ``network`` reproduces every label but the listed (sample, output) entries.

    ``except_entries`` is any iterable of (j, r) pairs; it is written sorted and without duplicates.
    Not verified here (see :func:`verify`): the claim holds only if the list is exactly the set of
    entries where the network differs from the labels. ``max_except`` (a rational in [0, 1]) is written as the
    claim's bound on the excepted fraction of the n m entries, which the checker enforces.

    >>> from exactrelu.instances import planted
    >>> inst = planted(d=3, k=2, m=3, n=30, seed=0)
    >>> cert = realizes_except_certificate(inst, inst.planted, [])
    >>> from exactrelu.certificates.envelope import verify
    >>> verify(cert, inst).startswith("realizes-except")
    True
    """
    entries = sorted({(int(j), int(r)) for j, r in except_entries})
    cert = {**network_fields(instance, network, "realizes-except", sha256), "except": [list(e) for e in entries]}
    if max_except is not None:
        cert["max_except"] = format_rational(max_except)
    cert["provenance"] = provenance(**prov)
    return cert


def except_extent(excepted: int, total: int, max_except=None) -> str:
    """'37 of 1,200 entries excepted (3.1%)': the extent of a ``realizes-except`` claim, in the library's lines.

    >>> from fractions import Fraction
    >>> except_extent(37, 1200), except_extent(3, 24, Fraction(1, 4)), except_extent(1, 10**6)
    ('37 of 1,200 entries excepted (3.1%)', '3 of 24 entries excepted (12.5%, at most 1/4 allowed)',
     '1 of 1,000,000 entries excepted (0.0001%)')
    """
    pct = 100 * excepted / total if total else 0.0
    shown = f"{pct:.1f}%" if pct == 0 or pct >= 0.1 else f"{pct:.2g}%"
    bound = "" if max_except is None else f", at most {format_rational(max_except)} allowed"
    return f"{excepted:,} of {total:,} entries excepted ({shown}{bound})"


def residual_certificate(instance: Instance, network: Network, *, max_abs: bool = True, residual=None,
                         sha256: str | None = None, **prov) -> dict:
    """``residual``: the exact squared error (and largest absolute error) of ``network`` on ``instance``.

    ``residual`` may pass an :class:`~exactrelu.certificates.claims.residual.Residual` already computed for this pair.
    The claim states how good the fit is, not that it is optimal.

    >>> from exactrelu.instances import planted
    >>> inst = planted(d=3, k=2, m=2, n=30, seed=0)
    >>> cert = residual_certificate(inst, inst.planted)
    >>> cert["squared_error"], cert["max_abs_error"]
    ('0', '0')
    """

    res = residual if residual is not None else exact_residual(network, instance, max_listed=0)
    cert = network_fields(instance, network, "residual", sha256)
    cert["squared_error"] = format_rational(res.squared_error)
    if max_abs:
        cert["max_abs_error"] = format_rational(res.max_abs_error)
    cert["provenance"] = provenance(**prov)
    return cert
