"""Certificates: the JSON envelope (``envelope``), one writer per claim family (``claims/``), and the
independent checker (``checker`` + ``trusted/``, standard library only).

Importing this package loads nothing: ``python -m exactrelu.certificates.checker`` must run on a
Python without FLINT or NumPy. The names below are imported on first use.
"""

import importlib

#: public name -> the module that defines it
_NAMES = {
    "FORMAT": "envelope", "instance_sha256": "envelope", "read_certificate": "envelope", "verify": "envelope",
    "write_certificate": "envelope", "provenance": "envelope",
    "realizes_certificate": "claims.realizes", "realizes_except_certificate": "claims.realizes",
    "residual_certificate": "claims.realizes",
}


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
    raise AttributeError(f"module 'exactrelu.certificates' has no attribute {name!r}")


__all__ = list(_NAMES)
