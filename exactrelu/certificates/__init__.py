"""Certificates: the JSON envelope (``envelope``), one writer per claim family (``claims/``), and the
independent checker (``checker`` + ``trusted/``, standard library only).

Importing this package loads nothing: ``python -m exactrelu.certificates.checker`` must run on a
Python without FLINT or NumPy. The names below are imported from :mod:`.envelope` on first use.
"""

_ENVELOPE = ("instance_sha256", "read_certificate", "realizes_certificate", "verify", "write_certificate")


def __getattr__(name: str):
    if name in _ENVELOPE:
        from . import envelope

        return getattr(envelope, name)
    raise AttributeError(f"module 'exactrelu.certificates' has no attribute {name!r}")


__all__ = list(_ENVELOPE)
