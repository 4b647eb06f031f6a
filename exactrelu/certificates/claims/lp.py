"""Writers of the claims ``lp-feasible`` and ``lp-infeasible``: an exact LP answer with its system inline.

Read by the trusted :mod:`exactrelu.certificates.trusted.lp`. The answer comes from
:func:`exactrelu.exact.lp.feasible`, which has already verified its witness exactly; the checker
verifies it again, independently.

>>> from exactrelu.exact.lp import feasible
>>> res = feasible(A_eq=[[1, 1]], b_eq=[3], A_ub=[[1, 0], [0, 1]], b_ub=[1, 1])
>>> lp_certificate(res)["claim"], lp_certificate(res)["y_ub"]
('lp-infeasible', ['1', '1'])
>>> verify_lp(res)
'lp-infeasible: 1 equations, 2 inequalities in 2 variables have no solution (Farkas vector checked)'
"""

from __future__ import annotations

from ...errors import CertificateInvalid
from ...exact.lp import LPResult
from ...exact.rationals import format_rational
from .. import checker
from ..envelope import envelope, provenance

__all__ = ["lp_certificate", "verify_lp"]


def lp_certificate(result: LPResult, **prov) -> dict:
    """The certificate of ``result`` (claim ``lp-feasible`` or ``lp-infeasible``), its system inline."""
    Ae, be, Au, bu = result.system

    def strs(Q):
        return Q.to_strings() if Q is not None and Q.shape[0] else []

    def col(Q):
        return [r[0] for r in strs(Q)]

    system = {"nvars": result.nvars, "A_eq": strs(Ae), "b_eq": col(be), "A_ub": strs(Au), "b_ub": col(bu)}
    if result.status == "feasible":
        cert = envelope("lp-feasible", system=system, point=[format_rational(v) for v in result.point])
    else:
        cert = envelope("lp-infeasible", system=system, y_eq=[format_rational(v) for v in result.farkas[0]],
                        y_ub=[format_rational(v) for v in result.farkas[1]])
    cert["provenance"] = provenance(method=result.method, **prov)
    return cert


def verify_lp(result: LPResult) -> str:
    """Run the independent stdlib checker on :func:`lp_certificate`; raise CertificateInvalid if it fails."""
    try:
        return checker.check(lp_certificate(result), None)
    except checker.CheckFailed as exc:
        raise CertificateInvalid(str(exc)) from None
