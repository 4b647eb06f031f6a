"""The certificate envelope of docs/design.md: build, hash, write, read.

Certificates are plain JSON objects; this module writes them, and hands them to the
independent :mod:`exactrelu.certificates.checker` for verification.

>>> from exactrelu.instances import planted
>>> inst = planted(d=3, k=2, m=2, n=40, seed=1)
>>> cert = realizes_certificate(inst, inst.planted)
>>> cert["claim"], len(cert["instance_sha256"])
('realizes', 64)
>>> verify(cert, inst)
'realizes: 40 samples x 2 outputs equal exactly (k=2, d=3, activation degree 1)'
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from .._version import __version__
from ..errors import CertificateInvalid, InvalidInput
from ..exact.rationals import format_rational
from ..instances import Instance
from ..network import RELU, Network

__all__ = ["instance_sha256", "realizes_certificate", "realizes_except_certificate", "residual_certificate",
           "write_certificate", "read_certificate", "verify", "provenance"]

FORMAT = "exactrelu.certificate"


def instance_sha256(instance: Instance) -> str:
    """SHA-256 of the canonical text of the instance (docs/design.md): exact, independent of file format."""
    X, Y = instance.input_strings(), instance.label_strings()
    h = hashlib.sha256()
    h.update(f"exactrelu.instance.v1\n{instance.n} {instance.d} {instance.m}\n".encode())
    for x, y in zip(X, Y):
        h.update(f"{' '.join(x)} | {' '.join(y)}\n".encode())
    return h.hexdigest()


def provenance(**extra) -> dict:
    """Library version, command line and anything else worth recording (cnfgen-style provenance)."""
    out = {"exactrelu_version": __version__, "command": " ".join([Path(sys.argv[0]).name] + sys.argv[1:])}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def _network_fields(instance: Instance, network: Network, claim: str, sha256: str | None) -> dict:
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
    return cert


def realizes_certificate(instance: Instance, network: Network, *, sha256: str | None = None, **prov) -> dict:
    """The ``realizes`` certificate for ``network`` on ``instance`` (not verified here: see :func:`verify`).

    The field ``"b"`` is written only when the network has a non-zero hidden bias.
    """
    return {**_network_fields(instance, network, "realizes", sha256), "provenance": provenance(**prov)}


def realizes_except_certificate(instance: Instance, network: Network, except_entries, *, sha256: str | None = None,
                                **prov) -> dict:
    """``realizes-except``: ``network`` reproduces every label but the listed (sample, output) entries.

    ``except_entries`` is any iterable of (j, r) pairs; it is written sorted and without duplicates.
    Not verified here (see :func:`verify`): the claim holds only if the list is exactly the set of
    entries where the network differs from the labels.

    >>> from exactrelu.instances import planted
    >>> inst = planted(d=3, k=2, m=3, n=30, seed=0)
    >>> cert = realizes_except_certificate(inst, inst.planted, [])
    >>> verify(cert, inst).startswith("realizes-except")
    True
    """
    entries = sorted({(int(j), int(r)) for j, r in except_entries})
    return {**_network_fields(instance, network, "realizes-except", sha256), "except": [list(e) for e in entries],
            "provenance": provenance(**prov)}


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
    from .claims.residual import exact_residual

    res = residual if residual is not None else exact_residual(network, instance, max_listed=0)
    cert = _network_fields(instance, network, "residual", sha256)
    cert["squared_error"] = format_rational(res.squared_error)
    if max_abs:
        cert["max_abs_error"] = format_rational(res.max_abs_error)
    cert["provenance"] = provenance(**prov)
    return cert


def write_certificate(cert: dict, path: str | os.PathLike) -> Path:
    path = Path(path)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(cert, fh, indent=1)
        fh.write("\n")
    return path


def read_certificate(path: str | os.PathLike) -> dict:
    from ..io.files import read_json

    obj = read_json(path, what="certificate")
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise CertificateInvalid(f"{path}: not an {FORMAT}")
    return obj


def checker_instance(instance: Instance) -> dict:
    """The instance as the checker reads it from a JSON file: rows of canonical rational strings."""
    return {
        "inputs": instance.input_strings(),
        "labels": instance.label_strings(),
        "activation": instance.activation.to_json() if instance.activation else None,
    }


def verify(cert: dict, instance: Instance) -> str:
    """Run the independent checker; return its summary or raise CertificateInvalid."""
    # imported here, not at module level: ``python -m exactrelu.certificates.checker`` then runs a
    # module the package has not imported yet (runpy warns otherwise)
    from . import checker

    try:
        return checker.check(cert, checker_instance(instance))
    except checker.CheckFailed as exc:
        raise CertificateInvalid(str(exc)) from None
    except checker.UnreadableInput as exc:  # over one of the checker's size limits
        raise InvalidInput(str(exc)) from None
