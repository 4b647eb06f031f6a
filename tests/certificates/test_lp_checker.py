"""The checker's lp-feasible and lp-infeasible claims (trusted/lp.py): valid certificates verify without an instance,
and every tampering is rejected. The exact LP itself is tested in tests/exact/test_lp.py."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.claims.lp import lp_certificate
from exactrelu.exact.lp import feasible


def _feasible_cert():
    return lp_certificate(feasible(A_eq=[[1, 1]], b_eq=[1], A_ub=[[-1, 0], [0, -1]], b_ub=[0, 0]))



def _infeasible_cert():
    return lp_certificate(feasible(A_eq=[[1, 1]], b_eq=[3], A_ub=[[1, 0], [0, 1]], b_ub=[1, 1]))



def test_valid_certificates_verify_without_instance():
    f, i = _feasible_cert(), _infeasible_cert()
    assert checker.check(f, None).startswith("lp-feasible")
    assert checker.check(i, None).startswith("lp-infeasible")
    assert f["provenance"]["method"] in ("highs", "highs-presolve", "exact-simplex")



def _tamper(cert, path, value):
    c = copy.deepcopy(cert)
    obj = c
    for key in path[:-1]:
        obj = obj[key]
    if value is _DELETE:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value
    return c


_DELETE = object()


FEASIBLE_TAMPERINGS = [
    (("point", 0), "5"),
    (("point",), ["0"]),
    (("point",), "0 1"),
    (("point", 0), "x"),
    (("point", 0), "1/0"),
    (("point", 0), True),
    (("system", "b_eq", 0), "2"),
    (("system", "b_ub", 0), "-1"),
    (("system", "A_ub", 0), ["-1"]),
    (("system", "A_eq"), "1 1"),
    (("system", "nvars"), 3),
    (("system", "nvars"), True),
    (("system", "extra"), 1),
    (("system",), _DELETE),
    (("system", "b_eq"), _DELETE),
    (("claim",), "lp-infeasible"),
    (("y_ub",), ["1"]),
    (("version",), 2),
    (("format",), "other"),
]


INFEASIBLE_TAMPERINGS = [
    (("y_ub", 0), "-1"),
    (("y_ub", 0), "0"),
    (("y_eq", 0), "1"),
    (("y_eq",), []),
    (("system", "b_eq", 0), "2"),
    (("system", "A_ub", 1, 1), "2"),
    (("system", "b_ub", 0), "2"),
    (("claim",), "lp-feasible"),
    (("point",), ["0", "0"]),
    (("y_ub",), _DELETE),
]



@pytest.mark.parametrize("path, value", FEASIBLE_TAMPERINGS)
def test_tampered_feasible_certificates_are_rejected(path, value):
    with pytest.raises(checker.CheckFailed):
        checker.check(_tamper(_feasible_cert(), path, value), None)



@pytest.mark.parametrize("path, value", INFEASIBLE_TAMPERINGS)
def test_tampered_infeasible_certificates_are_rejected(path, value):
    with pytest.raises(checker.CheckFailed):
        checker.check(_tamper(_infeasible_cert(), path, value), None)



def test_scaled_farkas_vector_still_verifies_and_zero_vector_does_not():
    c = _infeasible_cert()
    c2 = copy.deepcopy(c)
    c2["y_eq"] = [str(Fraction(v) * 7 / 3) for v in c["y_eq"]]
    c2["y_ub"] = [str(Fraction(v) * 7 / 3) for v in c["y_ub"]]
    assert checker.check(c2, None).startswith("lp-infeasible")
    c2["y_eq"], c2["y_ub"] = ["0"], ["0", "0"]
    with pytest.raises(checker.CheckFailed, match="not negative"):
        checker.check(c2, None)



def test_realizes_still_needs_an_instance():
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "realizes", "instance_sha256": "ab" * 32}
    with pytest.raises(checker.UnreadableInput, match="give the instance whose SHA-256 is abab"):  # usage: exit 2
        checker.check(cert, None)
    with pytest.raises(checker.CheckFailed, match="has no instance_sha256"):  # no binding: the claim fails
        checker.check({**cert, "instance_sha256": None}, None)



def test_checker_command_line_on_lp_certificate(tmp_path, capsys):
    p = tmp_path / "c.json"
    p.write_text(json.dumps(_infeasible_cert()))
    assert checker.main([str(p)]) == 0
    assert "VALID: lp-infeasible" in capsys.readouterr().out
    bad = _tamper(_infeasible_cert(), ("y_ub", 0), "-1")
    p.write_text(json.dumps(bad))
    assert checker.main([str(p)]) == 1



@pytest.mark.parametrize("nvars", [True, False, "2", 2.0, -1, None])
def test_nvars_is_a_non_negative_integer_and_nothing_else(nvars):
    for cert in (_feasible_cert(), _infeasible_cert()):
        bad = _tamper(cert, ("system", "nvars"), nvars)
        with pytest.raises(checker.CheckFailed, match="nvars must be a non-negative integer"):
            checker.check(bad, None)
