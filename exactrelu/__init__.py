"""exactrelu: learn and certify two-layer rectified networks in exact arithmetic.

>>> import exactrelu as er
>>> inst = er.planted(d=4, k=2, m=2, n=100, seed=0)
>>> er.recover_exact(inst, k=2).network.equivalent(inst.planted)
True

``exactrelu.recover`` is the subpackage of algorithms (``exactrelu.recover.exact``,
``exactrelu.recover.worstcase``, ...); ``recover_exact`` is its main entry point.
"""

__version__ = "0.1.0"

from .errors import (AssumptionViolated, CertificateInvalid, ExactReluError, InvalidInput, NotRealizable,  # noqa: E402
                     ProposalFailed)
from .exact.matrix import QMatrix  # noqa: E402
from .instances import Instance, planted, read_instance, write_instance  # noqa: E402
from .network import RELU, Activation, Network  # noqa: E402

# The recovery routes import SciPy (half a second): loaded on first use, so that the command line
# answers a bad argument or a hostile file at once (docs/limits.md).
_LAZY = {"recover_exact": "recover", "RecoveryResult": "RecoveryResult"}


def __getattr__(name: str):
    if name in _LAZY:
        from .recover import exact

        return getattr(exact, _LAZY[name])
    if name in ("recover", "propose", "fit", "hardness", "sweep", "certificates", "patterns", "theorems"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'exactrelu' has no attribute {name!r}")

__all__ = [
    "__version__", "Activation", "RELU", "Network", "QMatrix", "Instance", "planted", "read_instance",
    "write_instance", "recover_exact", "RecoveryResult", "ExactReluError", "InvalidInput", "AssumptionViolated",
    "NotRealizable", "ProposalFailed", "CertificateInvalid",
]
