"""The realizes certificate: valid ones verify, every tampering is rejected, the checker stays independent."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

import exactrelu.certificates.checker as checker
from exactrelu.certificates import instance_sha256, read_certificate, realizes_certificate, verify, write_certificate
from exactrelu.errors import CertificateInvalid, InvalidInput
from exactrelu.instances import planted, write_instance
from exactrelu.network import Activation
from exactrelu.recover import recover


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cert")
    inst = planted(d=4, k=2, m=3, n=80, seed=11)
    res = recover(inst, k=2)
    ipath = write_instance(inst, tmp / "inst.json")
    cpath = write_certificate(res.certificate, tmp / "cert.json")
    return inst, res.certificate, ipath, cpath, tmp


def test_valid_certificate_files(solved):
    inst, cert, ipath, cpath, _ = solved
    assert checker.check_files(str(cpath), str(ipath)).startswith("realizes")
    assert read_certificate(cpath) == json.loads(cpath.read_text())
    assert verify(cert, inst).startswith("realizes")


def test_hash_agrees_between_library_and_checker(solved):
    inst, cert, ipath, _, _ = solved
    loaded = checker.load_instance(str(ipath))
    assert checker.instance_sha256(loaded["inputs"], loaded["labels"]) == instance_sha256(inst) == cert["instance_sha256"]


def test_npz_instance_read_by_the_checker(tmp_path):
    inst = planted(d=3, k=2, m=2, n=60, seed=1, input_bits=10)
    p = write_instance(inst, tmp_path / "i.npz")
    res = recover(inst, k=2)
    write_certificate(res.certificate, tmp_path / "c.json")
    assert checker.check_files(str(tmp_path / "c.json"), str(p)).startswith("realizes")
    # the same instance as JSON has the same hash
    q = write_instance(inst, tmp_path / "i.json")
    assert checker.check_files(str(tmp_path / "c.json"), str(q)).startswith("realizes")


def test_power_activation_certificate(tmp_path):
    inst = planted(d=3, k=2, m=2, n=100, seed=2, activation=Activation.power(3))
    res = recover(inst, k=2)
    assert res.certificate["activation"] == {"name": "power", "degree": 3}
    assert verify(res.certificate, inst).endswith("activation degree 3)")


def _bump_digit(s: str) -> str:
    for i, ch in enumerate(s):
        if ch.isdigit() and ch != "0":
            return s[:i] + str((int(ch) % 9) + 1 if ch != "9" else 1) + s[i + 1:]
    return s + "1"


TAMPERINGS = {
    "digit in U": lambda c: c["U"][0].__setitem__(0, _bump_digit(c["U"][0][0])),
    "digit in V": lambda c: c["V"][1].__setitem__(1, _bump_digit(c["V"][1][1])),
    "swap V rows only": lambda c: c["V"].reverse(),
    "wrong hash": lambda c: c.__setitem__("instance_sha256", "0" * 64),
    "hash of other data": lambda c: c.__setitem__("instance_sha256", c["instance_sha256"][::-1]),
    "wrong activation": lambda c: c.__setitem__("activation", {"name": "power", "degree": 2}),
    "unknown activation": lambda c: c.__setitem__("activation", {"name": "tanh"}),
    "extra row in V": lambda c: c["V"].append(list(c["V"][0])),
    "extra row in U": lambda c: c["U"].append(list(c["U"][0])),
    "extra column in U": lambda c: [r.append("1") for r in c["U"]],
    "missing V": lambda c: c.pop("V"),
    "empty V": lambda c: c.__setitem__("V", []),
    "unknown claim": lambda c: c.__setitem__("claim", "realises-approximately"),
    "wrong version": lambda c: c.__setitem__("version", 2),
    "wrong format": lambda c: c.__setitem__("format", "something.else"),
    "unknown field": lambda c: c.__setitem__("tolerance", "1e-9"),
    "non-rational entry": lambda c: c["U"][0].__setitem__(0, "one"),
    "float entry": lambda c: c["U"][0].__setitem__(0, 0.5),
    "zero denominator": lambda c: c["U"][0].__setitem__(0, "1/0"),
    "scaled unit": lambda c: c["V"].__setitem__(0, [str(2 * checker.parse_rational(x)) for x in c["V"][0]]),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_tampered_certificates_rejected(solved, name):
    inst, cert, ipath, _, tmp = solved
    bad = copy.deepcopy(cert)
    TAMPERINGS[name](bad)
    assert bad != cert
    with pytest.raises(CertificateInvalid):
        verify(bad, inst)
    p = tmp / f"bad-{name.replace(' ', '_')}.json"
    p.write_text(json.dumps(bad))
    with pytest.raises(checker.CheckFailed):
        checker.check_files(str(p), str(ipath))


def test_truncated_and_non_json_certificates(solved):
    _, _, ipath, cpath, tmp = solved
    text = cpath.read_text()
    # an empty or truncated file is unreadable (exit 2); valid JSON that is no certificate is invalid (exit 1)
    for i, content in enumerate([text[: len(text) // 2], "", "[]", "null", '{"format": "exactrelu.certificate"}']):
        p = tmp / f"trunc{i}.json"
        p.write_text(content)
        with pytest.raises(checker.UnreadableInput if i < 2 else checker.CheckFailed):
            checker.check_files(str(p), str(ipath))
        assert checker.main([str(p), str(ipath)]) == (2 if i < 2 else 1)
    with pytest.raises(InvalidInput):
        read_certificate(tmp / "trunc0.json")
    with pytest.raises(InvalidInput):
        read_certificate(tmp / "does-not-exist.json")


def test_tampered_instance_rejected(solved):
    inst, cert, ipath, cpath, tmp = solved
    obj = json.loads(ipath.read_text())
    obj["labels"][5][0] = _bump_digit(obj["labels"][5][0])
    p = tmp / "inst-bad.json"
    p.write_text(json.dumps(obj))
    with pytest.raises(checker.CheckFailed, match="sha256"):
        checker.check_files(str(cpath), str(p))
    # a certificate re-hashed for the tampered data still fails on the numbers
    loaded = checker.load_instance(str(p))
    forged = dict(cert, instance_sha256=checker.instance_sha256(loaded["inputs"], loaded["labels"]))
    with pytest.raises(checker.CheckFailed, match="sample 5"):
        checker.check(forged, loaded)


def test_non_canonical_instance_text_hashes_canonically(solved):
    inst, cert, ipath, cpath, tmp = solved
    obj = json.loads(ipath.read_text())
    first = obj["inputs"][0][0]
    p, _, q = first.partition("/")
    obj["inputs"][0][0] = f"{2 * int(p)}/{2 * int(q)}" if q else f"{2 * int(p)}/2"  # same number, other text
    obj["labels"][0][0] = "+" + obj["labels"][0][0].lstrip("+") if not obj["labels"][0][0].startswith("-") else obj["labels"][0][0]
    path = tmp / "noncanon.json"
    path.write_text(json.dumps(obj))
    assert checker.check_files(str(cpath), str(path)).startswith("realizes")


def test_checker_errors_on_unreadable_instances(tmp_path, solved):
    _, _, _, cpath, _ = solved
    for content, name in [(b"{", "a.json"), (b'{"format": "x"}', "b.json"), (b"PK\x03\x04junk", "c.npz"),
                          (b'{"format": "exactrelu.instance", "version": 1, "inputs": 3, "labels": []}', "d.json")]:
        p = tmp_path / name
        p.write_bytes(content)
        with pytest.raises(checker.UnreadableInput):
            checker.check_files(str(cpath), str(p))
    with pytest.raises(checker.UnreadableInput):
        checker.check_files(str(cpath), str(tmp_path / "missing.json"))
    with pytest.raises(checker.UnreadableInput, match="is about an instance: give the instance whose SHA-256"):
        checker.check_files(str(cpath), None)


def test_checker_command_line(solved):
    _, _, ipath, cpath, tmp = solved
    run = lambda *a: subprocess.run([sys.executable, "-m", "exactrelu.certificates.checker", *map(str, a)],
                                    capture_output=True, text=True)
    ok = run(cpath, ipath)
    assert ok.returncode == 0 and ok.stdout.startswith("VALID")
    bad = tmp / "bad-wrong_hash.json"
    bad.write_text(json.dumps(dict(json.loads(cpath.read_text()), instance_sha256="0" * 64)))
    r = run(bad, ipath)
    assert r.returncode == 1 and r.stdout.startswith("INVALID")
    assert run(cpath, tmp / "missing.json").returncode == 2
    assert run().returncode == 2


def test_realizes_certificate_of_planted_weights():
    inst = planted(d=3, k=2, m=2, n=30, seed=4)
    cert = realizes_certificate(inst, inst.planted)
    assert verify(cert, inst).startswith("realizes")
    wrong = realizes_certificate(inst, planted(d=3, k=2, m=2, n=30, seed=5).planted)
    with pytest.raises(CertificateInvalid):
        verify(wrong, inst)


def _npz(path, **arrays):
    import numpy as np

    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    return str(path)


def test_checker_npy_parser_variants(tmp_path):
    """The checker's own .npz reader: Fortran order, 1-D labels and int64 equal the C-order float64 read."""
    import numpy as np

    X = np.array([[1.5, -2.0], [0.25, 3.0], [1e-300, 7.0]])
    y = np.array([1.0, 2.0, 3.0])
    ref = checker.load_instance(_npz(tmp_path / "a.npz", inputs=X, labels=y[:, None]))
    fort = checker.load_instance(_npz(tmp_path / "b.npz", inputs=np.asfortranarray(X), labels=y))
    assert fort["inputs"] == ref["inputs"] and fort["labels"] == ref["labels"]
    ints = checker.load_instance(_npz(tmp_path / "c.npz", inputs=np.array([[1, 2], [3, 4], [5, 6]]), labels=y))
    assert ints["inputs"][1] == [3, 4]
    h1 = checker.instance_sha256(ref["inputs"], ref["labels"])
    assert h1 == checker.instance_sha256(fort["inputs"], fort["labels"])


@pytest.mark.parametrize("arrays,match", [
    ({"inputs": [[1.0, 2.0]], "labels": [["a"]]}, "dtype"),
    ({"inputs": [[[1.0]]], "labels": [[1.0]]}, "2-D"),
    ({"inputs": [[1.0]]}, "npz"),
])
def test_checker_npy_parser_rejects(tmp_path, arrays, match):
    import numpy as np

    p = _npz(tmp_path / "x.npz", **{k: np.array(v) for k, v in arrays.items()})
    with pytest.raises(checker.UnreadableInput, match=match):
        checker.load_instance(p)


def test_checker_npy_parser_rejects_non_npy_member(tmp_path):
    import zipfile

    p = tmp_path / "y.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("inputs.npy", b"not an array")
        z.writestr("labels.npy", b"not an array")
    with pytest.raises(checker.UnreadableInput, match="npy"):
        checker.load_instance(str(p))


def test_checker_entry_parsing():
    from fractions import Fraction

    assert checker.entry("3/6") == (1, 2, "1/2")  # non-canonical text is re-canonicalised for the hash
    assert checker.entry("0.25") == (1, 4, "1/4")
    assert checker.entry(7) == (7, 1, "7")
    assert checker.entry(0.5) == (1, 2, "1/2")
    assert checker.entry(Fraction(-4, 6)) == (-2, 3, "-2/3")
    assert checker.entry("-0") == (0, 1, "0")
    for bad in ("1/0", "x", "1/-2", float("nan"), float("inf"), None, [1], True):
        with pytest.raises(checker.CheckFailed):
            checker.entry(bad)
    # a malformed instance is unreadable (exit 2), not a false certificate
    with pytest.raises(checker.UnreadableInput, match="unequal"):
        checker.parsed_instance([[1, 2], [3]], [[1], [2]])
    with pytest.raises(checker.UnreadableInput, match="n >= 1"):
        checker.parsed_instance([], [])
    with pytest.raises(checker.UnreadableInput, match="not a rational"):
        checker.parsed_instance([["x"]], [[1]])


def test_checker_help_and_usage(capsys):
    assert checker.main(["--help"]) == 2
    assert "usage" in capsys.readouterr().out


def test_a_file_of_another_format_is_named_not_only_refused():
    """A network file given as a certificate (``extract -o`` writes the weights, ``--certificate`` the certificate):
    the refusal says what the file is; a long or non-text format field is cut or left out, never echoed whole."""
    for cert, said in [({"format": "exactrelu.weights", "layers": []}, "not an exactrelu.certificate (its format is "
                        "'exactrelu.weights')"), ({"format": "x" * 10_000}, "(its format is '" + "x" * 40 + "')"),
                       ({"format": 7}, "not an exactrelu.certificate"), ({}, "not an exactrelu.certificate"),
                       ([], "not an exactrelu.certificate")]:
        with pytest.raises(checker.CheckFailed) as exc:
            checker.check(cert, None)
        assert str(exc.value).endswith(said) or str(exc.value) == said, str(exc.value)
