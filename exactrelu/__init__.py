"""exactrelu: learn and certify two-layer rectified networks in exact arithmetic.

>>> import exactrelu as er
>>> inst = er.planted(d=4, k=2, m=2, n=100, seed=0)
>>> er.recover_exact(inst, k=2).network.equivalent(inst.planted)
True

Importing the package loads nothing but the standard library: every name below is imported on
first use (PEP 562), so that ``python -m exactrelu.certificates.checker`` runs on a Python without
FLINT or NumPy, and the command line answers a bad argument before SciPy loads (docs/limits.md).
``recover_exact`` is the front door of the subpackage ``exactrelu.recover``. The subpackages are the wings of
docs/design.md: ``exactrelu.recover`` (polynomial routes),
``exactrelu.decide`` (exact answers both ways), ``exactrelu.certificates``, ``exactrelu.io``, ...
"""

from __future__ import annotations

import importlib

from . import _moved

_moved.install()

#: public name -> the module that defines it (imported on first use; the errors and the version too, so that
#: the checker's run loads nothing of exactrelu beyond the trusted base and ``_moved``, a finder for old paths)
_LAZY = {
    "__version__": "exactrelu._version",
    **{name: "exactrelu.errors" for name in ("AssumptionViolated", "CertificateInvalid", "ExactReluError",
                                             "InvalidInput", "NotRealizable", "ProposalFailed", "TimeLimitExceeded")},
    "QMatrix": "exactrelu.exact.matrix",
    "Activation": "exactrelu.network", "RELU": "exactrelu.network", "Network": "exactrelu.network",
    "Instance": "exactrelu.instances", "planted": "exactrelu.instances",
    "read_instance": "exactrelu.instances", "write_instance": "exactrelu.instances",
    "RecoveryResult": "exactrelu.recover", "Decision": "exactrelu.decide",
}
#: public name -> (module, the name there): ``exactrelu.recover`` is the subpackage, its front door is here
_ALIASES = {"recover_exact": ("exactrelu.recover", "recover")}
_SUBPACKAGES = ("exact", "io", "instances", "propose", "certificates", "recover", "decide", "fit", "hardness",
                "sweep", "theorems", "testing", "commands")


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _ALIASES:
        module, attr = _ALIASES[name]
        return getattr(importlib.import_module(module), attr)
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'exactrelu' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_ALIASES) | set(_SUBPACKAGES))


__all__ = [
    "__version__", "Activation", "RELU", "Network", "QMatrix", "Instance", "planted", "read_instance",
    "write_instance", "recover_exact", "RecoveryResult", "Decision", "ExactReluError", "InvalidInput",
    "AssumptionViolated", "NotRealizable", "ProposalFailed", "CertificateInvalid", "TimeLimitExceeded",
]
