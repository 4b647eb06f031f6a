"""Rewrite the DRUP cases of a ``not-realizable`` certificate as hinted (LRAT) cases. Untrusted.

The checker verifies hinted proofs only (docs/design.md, "Departures"): replaying DRUP means
searching by unit propagation inside the trusted base, and that search is where a mutant that
accepted false certificates hid (issue 26). A certificate written before, whose cases carry
``"rup"`` (DRUP steps), keeps its meaning: this module finds the hints with the backward trimmer
of :mod:`exactrelu.decide.search.sat.trim` and writes each such case with ``"lrat"`` instead. Nothing
here is trusted: the input clauses are the checker's own (:func:`case_clauses`, which also proves
every lemma), and the checker verifies the result like any certificate
(``exactrelu check --upgrade NEW CERT INSTANCE`` does both).
"""

from __future__ import annotations

from ....certificates.trusted.common import CheckFailed
from ....certificates.trusted.refutation import case_clauses, read_claim
from ....errors import CertificateInvalid, InvalidInput
from .proof import numbered
from .trim import drup_core

__all__ = ["upgrade_certificate", "lrat_from_drup"]


def upgrade_certificate(cert: dict, instance: dict) -> dict:
    """A copy of ``cert`` whose DRUP cases (``"rup"``) are hinted cases (``"lrat"``).

    ``instance`` is the checker's reading of the instance file
    (:func:`exactrelu.certificates.checker.load_instance`). Raises InvalidInput when no case
    carries a DRUP proof, CertificateInvalid when a lemma or a DRUP proof does not hold.

    >>> upgrade_certificate({"claim": "realizes"}, {})
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: only a not-realizable certificate with DRUP cases ('rup') can be upgraded
    """
    cases = cert.get("cases") if isinstance(cert, dict) and cert.get("claim") == "not-realizable" else None
    if not (isinstance(cases, list) and any(isinstance(c, dict) and "rup" in c for c in cases)):
        raise InvalidInput("only a not-realizable certificate with DRUP cases ('rup') can be upgraded")
    try:  # the claim's header and output weights, exactly as the checker reads them
        X, Y, d, k, _, _, Us = read_claim(cert, instance)
    except CheckFailed as exc:
        raise CertificateInvalid(str(exc)) from None
    out = []
    for number, (case, U) in enumerate(zip(cases, Us)):
        if "rup" not in case:
            out.append(case)
            continue
        if not {"U", "lemmas", "rup"} <= set(case) <= {"U", "lemmas", "rup", "symmetry", "templates"}:
            raise CertificateInvalid(f"case {number}: a DRUP case is {{'U', 'lemmas', 'rup', optional 'templates', "
                                     f"'symmetry'}}, found {sorted(case)[:8]}")
        body = {key: v for key, v in case.items() if key != "rup"}
        try:
            clauses, _ = case_clauses(body, U, X, Y, k, d, bool((cert.get("model") or {}).get("output_bias")))
        except (CheckFailed, KeyError) as exc:
            raise CertificateInvalid(f"case {number}: {exc}") from None
        out.append(dict(body, lrat=lrat_from_drup(clauses, case["rup"], len(X) * k, number)))
    upgraded = dict(cert, cases=out)
    upgraded["provenance"] = dict(cert.get("provenance") or {}, upgraded="DRUP cases rewritten with hints "
                                  "(exactrelu check --upgrade)")
    return upgraded


def lrat_from_drup(clauses: list, rup, nvars: int, number: int = 0) -> list:
    """The hinted steps (the checker's ``"lrat"``) of a DRUP refutation ``rup`` of ``clauses``.

    ``rup`` is in the certificate's old format: steps ``[l1, ...]`` and deletions ``["d", l1, ...]``.

    >>> lrat_from_drup([[1, 2], [-1, 2], [1, -2], [-1, -2]], [[2], []], 2)
    [[2, 0, 1, 2], [0, 5, 3, 4]]
    """
    if not isinstance(rup, list):
        raise CertificateInvalid(f"case {number}: rup must be a list of steps")
    steps = []
    for step in rup:
        deleted = isinstance(step, list) and step[:1] == ["d"]
        lits = step[1:] if deleted else step
        if not (isinstance(lits, list) and all(type(x) is int and 0 < abs(x) <= nvars for x in lits)):
            raise CertificateInvalid(f"case {number}: malformed DRUP step {str(step)[:60]} (literals +-1..{nvars})")
        steps.append((deleted, lits))
    try:
        core = drup_core(clauses, steps, nvars)
    except ValueError as exc:
        raise CertificateInvalid(f"case {number}: the DRUP proof does not refute the clauses ({exc})") from None
    return numbered(core, {p: p + 1 for p in core.inputs}, len(clauses) + 1)
