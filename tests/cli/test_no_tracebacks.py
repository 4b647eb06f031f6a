"""The red team's tracebacks of issue 34, each a reproducer: ``--seed -1`` everywhere (command line and library), a
certificate whose claim is ``[]`` or ``{}`` or that has no ``instance_sha256``, ``check CERT`` without its instance
(a usage error, exit 2, naming the instance), a time limit too large for the platform's clock."""

from __future__ import annotations

import json

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.envelope import write_certificate
from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.instances import planted, write_instance


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    d = tmp_path_factory.mktemp("tb")
    inst = planted(d=3, k=2, m=2, n=12, seed=0)
    path = write_instance(inst, d / "inst.json")
    cert = write_certificate(realizes_certificate(inst, inst.planted), d / "cert.json")
    return inst, str(path), str(cert), d


def _usage(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "Traceback" not in err[0]
    return err[0]


@pytest.mark.parametrize("argv", [
    ["recover", "{inst}", "-k", "2"], ["certify", "{inst}", "--weights", "{cert}"], ["fit", "{inst}", "-k", "2"],
    ["extract", "--oracle", "{cert}"], ["demo"], ["generate", "-d", "2", "-k", "1", "-m", "1", "-n", "5"],
    ["hardness", "random", "--vars", "4", "--clauses", "2"]])
def test_seed_minus_one_is_a_usage_error_everywhere(small, capsys, argv):
    _, inst, cert, d = small
    argv = [a.format(inst=inst, cert=cert) for a in argv] + ["-o", str(d / "o.json"), "--seed", "-1"]
    line = _usage(capsys, argv)
    assert line.startswith("exactrelu: error: argument --seed: must be a non-negative integer, got '-1'")
    assert not (d / "o.json").exists()


def test_seed_minus_one_in_the_library_is_invalid_input(small):
    from exactrelu.extract import NetworkOracle, extract
    from exactrelu.fit import fit
    from exactrelu.recover import recover

    inst = small[0]
    for call in (lambda: recover(inst, k=2, random_state=-1), lambda: fit(inst, 2, random_state=-1),
                 lambda: extract(NetworkOracle(inst.planted), seed=-1), lambda: planted(d=2, k=1, m=1, n=5, seed=-1)):
        with pytest.raises(InvalidInput, match="must be None, a non-negative integer or a numpy Generator, got -1"):
            call()


@pytest.mark.parametrize("change, verdict", [
    (lambda c: c.__setitem__("claim", []), "INVALID: unknown claim []"),
    (lambda c: c.__setitem__("claim", {}), "INVALID: unknown claim {}"),
    (lambda c: c.pop("instance_sha256"), "INVALID: the certificate has no instance_sha256"),
    (lambda c: c.__setitem__("instance_sha256", ["0" * 64]), "INVALID: the certificate has instance_sha256")])
def test_malformed_claims_and_bindings_are_invalid_not_a_traceback(small, capsys, change, verdict):
    _, inst, cert, d = small
    bad = json.loads(open(cert).read())
    change(bad)
    path = d / "bad.json"
    path.write_text(json.dumps(bad))
    for run in (main, checker.main):
        assert run(["check", str(path), inst][1 if run is checker.main else 0:]) == 1
        out, err = capsys.readouterr()
        assert out.startswith(verdict) and not err


def test_check_without_its_instance_is_a_usage_error_naming_it(small, capsys):
    inst, _, cert, _ = small
    digest = json.loads(open(cert).read())["instance_sha256"]
    assert main(["check", cert]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"give the instance whose SHA-256 is {digest} after the certificate" in err[0]
    assert checker.main([cert]) == 2
    assert capsys.readouterr().err.startswith("error: claim 'realizes' is about an instance")


def test_a_time_limit_beyond_the_clock_is_no_limit(small, capsys):
    """``--time-limit 1e50``: a wait that long overflowed the platform's time_t (OverflowError)."""
    _, inst, cert, _ = small
    assert main(["check", cert, inst, "--time-limit", "1e50"]) == 0
    assert capsys.readouterr().out.startswith("VALID: ")
