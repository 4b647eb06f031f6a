"""``realizes-except`` states its count, and ``max_except`` bounds what the library certifies (issue 23, item 3).

Theorems: the default bound is the route's decoding radius (a sample with at most that many corrupted outputs
agrees with its clean label vector on more than (m + z)/2 outputs, one more and it may not); the bound the library
certifies with is the one written into the claim, which the checker enforces; a claim excepting every entry, or
more than the bound, is refused with the count and nothing is written.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.certificates.envelope import verify
from exactrelu.cli import main
from exactrelu.errors import AssumptionViolated, CertificateInvalid, InvalidInput
from exactrelu.instances import planted, write_instance
from exactrelu.instances.corruption import corrupt
from exactrelu.recover import recover
from exactrelu.recover.sparse_corruption import _bounded, default_max_except


@given(m=st.integers(2, 60), data=st.data())
def test_the_default_bound_is_the_decoding_radius(m, data):
    z = data.draw(st.integers(0, m - 1))
    radius = default_max_except(m, z) * m
    assert radius.denominator == 1 and radius >= 0
    need = (m + z) // 2 + 1  # the agreement the decoding asks for (sparse_decoding._decode)
    if radius:
        assert m - radius >= need  # radius corrupted outputs: still decoded
    assert m - (radius + 1) < need  # one more: not guaranteed


@pytest.fixture(scope="module")
def corrupted():
    clean = planted(3, 2, 6, 400, seed=1)
    return clean, corrupt(clean, 0.1, seed=1)


def test_recover_writes_the_bound_it_certified_with(corrupted):
    clean, bad = corrupted
    res = recover(bad, k=2, sparse_noise=True)
    n_except, total = len(res.except_entries), bad.n * bad.m
    bound = Fraction(res.certificate["max_except"])
    assert 0 < n_except <= bound * total and bound <= Fraction(1, 2)
    line = verify(res.certificate, bad)
    assert f"except {n_except:,} (" in line and f"at most {res.certificate['max_except']} allowed" in line
    given_bound = recover(bad, k=2, sparse_noise=True, max_except="1/5")
    assert given_bound.certificate["max_except"] == "1/5" and given_bound.except_entries == res.except_entries
    assert recover(bad, k=2, sparse_noise=True, max_except=0.125).certificate["max_except"] == "1/8"  # exact


def test_more_excepted_entries_than_the_bound_are_refused(corrupted):
    _, bad = corrupted
    n_except = len(bad.meta["corrupted"])
    tight = Fraction(n_except - 1, bad.n * bad.m)
    with pytest.raises(AssumptionViolated, match=f"{n_except} of 2,400 entries excepted .*more than max_except = "
                                                 f"{tight.numerator}/{tight.denominator} allows \\(the bound given\\)") as exc:
        recover(bad, k=2, sparse_noise=True, max_except=tight)
    assert exc.value.evidence == {"excepted": n_except, "entries": 2400, "max_except": tight}
    exact = recover(bad, k=2, sparse_noise=True, max_except=Fraction(n_except, 2400))  # exactly at the bound
    assert len(exact.except_entries) == n_except


def test_the_checker_holds_the_written_bound(corrupted):
    _, bad = corrupted
    cert = recover(bad, k=2, sparse_noise=True).certificate
    with pytest.raises(CertificateInvalid, match="more than max_except"):
        verify({**cert, "max_except": "0"}, bad)


def test_a_vacuous_claim_is_never_certified():
    with pytest.raises(AssumptionViolated, match="differs from the labels at every entry \\(1,200 of 1,200 entries "
                                                 "excepted \\(100.0%\\)\\): a realizes-except claim would say nothing"):
        _bounded(1200, 1200, Fraction(1), True)
    _bounded(1199, 1200, Fraction(1), True)  # one entry reproduced: a claim, if a weak one, within the bound given
    with pytest.raises(AssumptionViolated, match="route's decoding guarantee"):
        _bounded(2, 10, Fraction(1, 10), False)


@pytest.mark.parametrize("bad, match", [(2, "between 0 and 1"), ("-1/10", "between 0 and 1"), ("x", "rational"),
                                        (True, "boolean")])
def test_bad_bounds_are_refused_before_any_work(corrupted, bad, match):
    _, inst = corrupted
    with pytest.raises(InvalidInput, match=match):
        recover(inst, k=2, sparse_noise=True, max_except=bad)


def test_max_except_needs_sparse_noise(corrupted):
    clean, _ = corrupted
    with pytest.raises(InvalidInput, match="needs sparse_noise=True"):
        recover(clean, k=2, max_except="1/10")


def test_cli_states_count_total_and_bound(corrupted, tmp_path, capsys):
    _, bad = corrupted
    data, cert = tmp_path / "c.json", tmp_path / "cert.json"
    write_instance(bad, data)
    n_except = len(bad.meta["corrupted"])
    assert main(["recover", str(data), "-k", "2", "--sparse-noise", "--max-except", "0.2", "-o", str(cert)]) == 0
    out = capsys.readouterr().out
    assert f"{n_except} of 2,400 entries excepted ({100 * n_except / 2400:.1f}%, at most 1/5 allowed)" in out
    assert json.loads(cert.read_text())["max_except"] == "1/5"
    assert main(["recover", str(data), "-k", "2", "--sparse-noise", "-o", str(cert), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["excepted_entries"] == n_except and record["entries"] == 2400
    assert record["excepted_fraction"] == str(Fraction(n_except, 2400)) and record["max_except"]
    assert main(["recover", str(data), "-k", "2", "--sparse-noise", "--max-except", "1/1000", "-o", str(cert)]) == 1
    err = capsys.readouterr().err
    assert "more than max_except = 1/1000 allows" in err and "Traceback" not in err
    for text in ("1.5", "abc", "-0.1"):
        with pytest.raises(SystemExit) as exc:
            main(["recover", str(data), "-k", "2", "--sparse-noise", "--max-except", text])
        assert exc.value.code == 2
