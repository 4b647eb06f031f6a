"""Hostile inputs cost nothing (issue 15, findings 3 and 4): sizes are bounded before any work, every
refusal is one InvalidInput / UnreadableInput line (exit 2), on the library's side and the checker's.

The cases that were slow before (quadratic or unbounded loops) are checked by the *memory* they use
(tracemalloc, deterministic) or, for pure CPU loops, under a generous watchdog (60 s for work that
now takes well under a second and took hours before): no assertion here depends on timing.
"""

from __future__ import annotations

import contextlib
import json
import signal
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest

from exactrelu import limits
from exactrelu.certificates import checker
from exactrelu.certificates.trusted import common
from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.exact.rationals import to_fraction
from exactrelu.hardness.cnf import parse_dimacs
from exactrelu.instances import planted, read_instance, write_instance
from exactrelu.network import Activation

HUGE = "1e999999999"


@contextlib.contextmanager
def watchdog(seconds: int = 60):
    """Fail (instead of hanging for hours) if the block runs longer than ``seconds``."""
    def fire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: the work is not bounded")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def peak_memory_below(megabytes: float):
    tracemalloc.start()
    try:
        yield
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < megabytes * 2**20, f"peak {peak / 2**20:.0f} MB"


@pytest.fixture
def small(tmp_path):
    inst = planted(d=3, k=2, m=2, n=12, seed=0, input_bits=6)
    path = write_instance(inst, tmp_path / "small.json", include_planted=False)
    from exactrelu.certificates.claims.realizes import realizes_certificate

    cert = realizes_certificate(inst, inst.planted)
    return inst, path, json.loads(path.read_text()), cert


# -- numbers --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [HUGE, "1e-999999999", "1" * 5000, "1/" + "3" * 5000, "0." + "1" * 5000 + "e10"])
def test_numbers_over_the_digit_limit_are_refused_before_they_are_built(text):
    with peak_memory_below(5), watchdog():
        with pytest.raises(common.UnreadableInput, match="limit digits"):
            common.parse_rational(text)
        with pytest.raises(InvalidInput, match="limit digits"):
            to_fraction(text)


def test_both_readers_agree_on_number_syntax():
    for good, value in (("0.25", Fraction(1, 4)), ("-3/6", Fraction(-1, 2)), ("1e3", Fraction(1000)), (".5", Fraction(1, 2)),
                        ("5.", Fraction(5)), ("+7", Fraction(7)), ("-2.5e-1", Fraction(-1, 4)), ("1e999", Fraction(10**999))):
        assert common.parse_rational(good) == to_fraction(good) == value
    for bad in ("1/+3", "1/-3", "٣", "1_0", "e5", ".", "1/", "/2", "1e", "0x10", "1e1234567890", "nan", "inf"):
        with pytest.raises(common.CheckFailed):
            common.parse_rational(bad)
        with pytest.raises(InvalidInput):
            to_fraction(bad)


def test_limits_can_be_raised(monkeypatch):
    monkeypatch.setattr(common, "_limits", {})
    monkeypatch.setattr(limits, "_limits", {})
    monkeypatch.setenv("EXACTRELU_MAX_DIGITS", "6000")
    try:
        big = "7" * 5000
        assert common.parse_rational(big) == to_fraction(big) == int(big)
        assert common.limit("digits") == limits.limit("digits") == 6000
    finally:
        monkeypatch.delenv("EXACTRELU_MAX_DIGITS")
    monkeypatch.setattr(common, "_limits", {})
    monkeypatch.setattr(limits, "_limits", {})
    monkeypatch.setenv("EXACTRELU_MAX_DEGREE", "ten")
    with pytest.raises(common.UnreadableInput, match="not a positive integer"):
        common.limit("degree")
    with pytest.raises(InvalidInput, match="not a positive integer"):
        limits.limit("degree")
    with pytest.raises(InvalidInput, match="unknown limit"):
        limits.set_limit("nope", 3)
    with pytest.raises(InvalidInput, match="positive integer"):
        limits.set_limit("degree", 0)


# -- certificates and instances: bounded before the work ----------------------------------------------

def test_huge_exponents_anywhere_are_unreadable(small, tmp_path):
    inst, path, obj, cert = small
    bad_inst = tmp_path / "bad.json"
    bad_inst.write_text(json.dumps(obj | {"inputs": [[HUGE] + r[1:] for r in obj["inputs"]]}))
    cpath = tmp_path / "c.json"
    cpath.write_text(json.dumps(cert))
    with watchdog():
        with pytest.raises(checker.UnreadableInput, match="limit digits"):
            checker.check_files(str(cpath), str(bad_inst))
        with pytest.raises(InvalidInput, match="limit digits"):
            read_instance(bad_inst)
        bad_cert = dict(cert, U=[[HUGE] + r[1:] for r in cert["U"]])
        cpath.write_text(json.dumps(bad_cert))
        assert checker.main([str(cpath), str(path)]) == 2
        lp = {"format": "exactrelu.certificate", "version": 1, "claim": "lp-feasible",
              "system": {"nvars": 1, "A_eq": [], "b_eq": [], "A_ub": [[1]], "b_ub": [0]}, "point": [HUGE]}
        with pytest.raises(checker.UnreadableInput):
            checker.check(lp, None)


def test_power_degree_is_bounded(small, tmp_path):
    _, _, obj, cert = small
    noact = tmp_path / "noact.json"
    noact.write_text(json.dumps({key: v for key, v in obj.items() if key != "activation"}))
    cpath = tmp_path / "deg.json"
    cpath.write_text(json.dumps(cert | {"activation": {"name": "power", "degree": 10**8}}))
    with watchdog():
        with pytest.raises(checker.UnreadableInput, match="limit degree"):
            checker.check_files(str(cpath), str(noact))
    with pytest.raises(InvalidInput, match="limit degree"):
        Activation.power(10**8)
    deg = tmp_path / "deg_inst.json"
    deg.write_text(json.dumps(obj | {"activation": {"name": "power", "degree": 10**8}}))
    with pytest.raises(InvalidInput, match="limit degree"):
        read_instance(deg)
    with pytest.raises(checker.UnreadableInput, match="limit degree"):
        checker.load_instance(str(deg))
    for bad in ({"name": "relu", "degree": True}, {"name": "relu", "degree": 1.0}, {"name": "power"}):
        with pytest.raises(InvalidInput):
            Activation.from_json(bad)
        with pytest.raises(common.CheckFailed):
            common.activation_degree(bad)
    assert common.activation_degree({"name": "relu", "degree": 1}) == Activation.from_json({"name": "relu", "degree": 1}).degree == 1


def test_instance_without_columns_is_unreadable(tmp_path):
    p = tmp_path / "m0.json"
    p.write_text(json.dumps({"format": "exactrelu.instance", "version": 1, "inputs": [[]], "labels": [[]]}))
    with pytest.raises(checker.UnreadableInput, match="non-empty rows"):
        checker.load_instance(str(p))
    with pytest.raises(InvalidInput, match="non-empty rows"):
        read_instance(p)
    with pytest.raises(checker.UnreadableInput, match="at least one column"):
        checker.parsed_instance([[]], [[]])  # the k = 10^9 DRUP certificate of the review needed m = 0


def test_dimacs_header_is_bounded_against_the_limit_and_the_body():
    with pytest.raises(InvalidInput, match="limit variables"):
        parse_dimacs("p cnf 100000000 1\n1 2 3 0\n")
    with pytest.raises(InvalidInput, match="announces"):
        parse_dimacs("p cnf 3 100000000000\n1 2 3 0\n")
    with pytest.raises(InvalidInput, match="too large"):
        parse_dimacs("p cnf 3" + "0" * 20 + " 1\n1 2 3 0\n")


def test_generate_bounds_and_seed(capsys, tmp_path):
    assert main(["generate", "-d", "10", "-k", "1", "-m", "1", "-n", str(10**12), "-o", str(tmp_path / "g.json")]) == 2
    assert "needs about" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["generate", "-d", "2", "-k", "1", "-m", "1", "-n", "5", "--seed", "-1", "-o", str(tmp_path / "g.json")])
    assert exc.value.code == 2 and "--seed" in capsys.readouterr().err
    with pytest.raises(InvalidInput, match="limit units"):
        planted(d=2, k=10**6, m=1, n=3)
    with pytest.raises(InvalidInput, match="needs about"):
        limits.check_entries(10**12, 10, 1)
    with pytest.raises(InvalidInput, match="every side"):
        limits.check_entries(3, 0, 1)


# -- one line, exit 2 ---------------------------------------------------------------------------------

def test_files_that_cannot_be_read_are_one_line_exit_2(small, tmp_path, capsys):
    _, path, obj, cert = small
    cpath = tmp_path / "c.json"
    cpath.write_text(json.dumps(cert))
    digits = tmp_path / "digits.json"
    digits.write_text(path.read_text().replace('"inputs":[[', '"inputs":[[' + "7" * 5000 + ",", 1))
    nested = tmp_path / "nested.json"
    nested.write_text('{"format": "exactrelu.instance", "version": 1, "inputs": ' + "[" * 100000 + "]" * 100000 + "}")
    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps(obj | {"activaton": {"name": "power", "degree": 2}}))
    floats = tmp_path / "floats.json"
    floats.write_text(json.dumps(obj | {"inputs": [[0.5] + r[1:] for r in obj["inputs"]]}))
    for bad in (tmp_path, digits, nested, typo, floats, tmp_path / "missing.json"):
        assert main(["recover", str(bad), "-k", "2", "-o", str(tmp_path / "o.json")]) == 2, bad
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert checker.main([str(cpath), str(bad)]) == 2, bad
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
    assert checker.main([str(nested), str(path)]) == 2  # a certificate nested too deeply
    assert main(["check", str(tmp_path), str(path)]) == 2  # a directory as the certificate


def test_unwritable_output_is_refused_before_the_work(small, tmp_path, capsys, monkeypatch):
    _, path, _, _ = small
    import exactrelu.recover.front_door as rx

    def boom(*a, **k):  # pragma: no cover - must not run
        raise AssertionError("recover ran before the output path was checked")

    monkeypatch.setattr(rx, "recover", boom)
    for out in (tmp_path / "missing" / "c.json", tmp_path):
        assert main(["recover", str(path), "-k", "2", "-o", str(out)]) == 2
        assert "cannot write" in capsys.readouterr().err
    assert main(["certify", str(path), "--weights", str(path), "-o", str(tmp_path / "no" / "c.json")]) == 2
    assert main(["solve", str(path), "-k", "2", "-o", str(tmp_path / "no" / "c.json")]) == 2
    assert main(["hardness", "random", "--vars", "3", "--clauses", "2", "-o", str(tmp_path / "no" / "i.json")]) == 2
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        import os

        if not os.access(ro, os.W_OK):  # root may write anywhere
            assert main(["recover", str(path), "-k", "2", "-o", str(ro / "c.json")]) == 2
            assert "permission denied" in capsys.readouterr().err
    finally:
        ro.chmod(0o700)


@pytest.mark.parametrize("error, code", [(MemoryError(), 2), (RecursionError(), 2), (OSError(28, "No space left on device"), 2)])
def test_command_line_maps_resource_errors_to_one_line(monkeypatch, capsys, error, code, small):
    import exactrelu.commands.core as core

    def fail(args):
        raise error

    monkeypatch.setattr(core, "cmd_recover", fail)
    _, path, _, _ = small
    assert main(["recover", str(path), "-k", "2"]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("exactrelu: error:")


def test_complex_and_boolean_arrays_are_refused():
    from exactrelu.exact.matrix import QMatrix, as_float_array

    with pytest.raises(InvalidInput, match="complex"):
        QMatrix.from_numpy(np.array([[1 + 2j]]))
    with pytest.raises(InvalidInput, match="complex"):
        as_float_array(np.array([[1 + 0j]]))
    with pytest.raises(InvalidInput, match="dtype bool"):
        QMatrix.from_numpy(np.array([[True]]))
    with pytest.raises(InvalidInput):
        to_fraction(1j)


def test_hardness_sizes_are_bounded_before_the_reduction(tmp_path, capsys):
    from exactrelu.hardness.generators import random_nae3

    with pytest.raises(InvalidInput, match="limit variables"):
        random_nae3(10**8, 5)
    with pytest.raises(InvalidInput, match="needs about"):
        random_nae3(10, 10**12)
    assert main(["hardness", "random", "--vars", "100000", "--clauses", "5", "-o", str(tmp_path / "x.json")]) == 2
    assert "the reduction's instance" in capsys.readouterr().err
    cnf = tmp_path / "big.cnf"
    cnf.write_text("p cnf 900000 1\n1 2 3 0\n")  # announced, not held by the file: refused from the header
    assert main(["hardness", "from-cnf", str(cnf), "-o", str(tmp_path / "x.json")]) == 2
    assert "the header announces 900000 variables; the file is 23 characters" in capsys.readouterr().err


def test_bad_input_is_refused_before_scipy_loads(tmp_path):
    """The hostile-input contract (well under a second): the package and the command line load the
    recovery routes (SciPy, half a second) only after the input was read."""
    import subprocess
    import sys

    bad = tmp_path / "h.json"
    bad.write_text('{"format": "exactrelu.instance", "version": 1, "inputs": [["1e999999999"]], "labels": [[1]]}')
    code = ("import sys\nimport exactrelu\nassert 'scipy' not in sys.modules, 'import exactrelu loads scipy'\n"
            "from exactrelu.cli import main\n"
            f"rc = main(['recover', {str(bad)!r}, '-k', '1'])\n"
            "print(rc, 'scipy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["2", "False"], out.stdout + out.stderr
