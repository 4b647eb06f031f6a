"""One .npz, one instance (issue 15, finding 2): the library's reader (exactrelu/io/npz.py) and the checker's
(trusted/npz.py) accept exactly the same files, read the same exact values, and refuse the rest
with exit 2. Every file of the corpus below goes to both."""

from __future__ import annotations

import io
import json
import struct
import zipfile

import numpy as np
import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.envelope import instance_sha256
from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.trusted import common
from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.instances import planted, read_instance
from exactrelu import limits

X = np.array([[0.5, -1.25], [3.0, 0.0], [1e-300, 2.0 ** 70]])
Y = np.array([[1.0], [0.0], [-0.375]])


def _npy(a=None, *, header=None, body=b"", version=b"\x01\x00") -> bytes:
    if a is not None:
        buf = io.BytesIO()
        np.save(buf, a)
        return buf.getvalue()
    text = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY" + version + struct.pack("<H", len(text)) + text.encode("latin1") + body


def _zip(path, members, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in members:
            z.writestr(name, data)
    return path


def _hdr(descr="<f8", shape="(1, 1)", fortran="False"):
    return f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}"


ONE = struct.pack("<d", 1.0)

VALID = {
    "float64": [("inputs.npy", _npy(X)), ("labels.npy", _npy(Y))],
    "float32": [("inputs.npy", _npy(X[:2].astype("<f4"))), ("labels.npy", _npy(Y[:2].astype("<f4")))],
    "big-endian float64": [("inputs.npy", _npy(X.astype(">f8"))), ("labels.npy", _npy(Y.astype(">f8")))],
    "big-endian float32": [("inputs.npy", _npy(X[:2].astype(">f4"))), ("labels.npy", _npy(Y[:2].astype(">f4")))],
    "int64 and int32": [("inputs.npy", _npy(np.array([[1, -2], [3, 4]], dtype="<i8"))),
                        ("labels.npy", _npy(np.array([5, 6], dtype=">i4")))],
    "fortran order": [("inputs.npy", _npy(np.asfortranarray(X))), ("labels.npy", _npy(Y))],
    "1-D labels": [("inputs.npy", _npy(X)), ("labels.npy", _npy(Y[:, 0]))],
    "deflated": [("labels.npy", _npy(Y)), ("inputs.npy", _npy(X))],
    "version 2.0": [("inputs.npy", _npy(header=_hdr(), body=ONE, version=b"\x02\x00")[:8]
                     + struct.pack("<I", 118) + _npy(header=_hdr(), body=ONE)[10:]), ("labels.npy", _npy(header=_hdr(), body=ONE))],
}

INVALID = {
    "extra member 'labels'": VALID["float64"] + [("labels", _npy(Y + 1))],
    "member without .npy": [("inputs.npy", _npy(X)), ("labels", _npy(Y))],
    "duplicate member": VALID["float64"] + [("labels.npy", _npy(Y + 1))],
    "member in a folder": [("inputs.npy", _npy(X)), ("x/labels.npy", _npy(Y))],
    "missing member": [("inputs.npy", _npy(X))],
    "shape (10^9, 0)": [("inputs.npy", _npy(header=_hdr(shape="(1000000000, 0)"))), ("labels.npy", _npy(Y))],
    "data shorter than the shape": [("inputs.npy", _npy(header=_hdr(shape="(2, 1)"), body=ONE)), ("labels.npy", _npy(Y))],
    "data longer than the shape": [("inputs.npy", _npy(header=_hdr(), body=ONE * 2)), ("labels.npy", _npy(Y))],
    "truncated header": [("inputs.npy", _npy(X)[:20]), ("labels.npy", _npy(Y))],
    "list header": [("inputs.npy", _npy(header="[1, 2]", body=ONE)), ("labels.npy", _npy(Y))],
    "structured dtype": [("inputs.npy", _npy(header="{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1, 1), }",
                                             body=ONE)), ("labels.npy", _npy(Y))],
    "string shape": [("inputs.npy", _npy(header=_hdr(shape="'abc'"), body=ONE)), ("labels.npy", _npy(Y))],
    "nested shape": [("inputs.npy", _npy(header=_hdr(shape="((1, 2),)"), body=ONE)), ("labels.npy", _npy(Y))],
    "boolean shape": [("inputs.npy", _npy(header=_hdr(shape="(True, 1)"), body=ONE)), ("labels.npy", _npy(Y))],
    "3-D shape": [("inputs.npy", _npy(header=_hdr(shape="(1, 1, 1)"), body=ONE)), ("labels.npy", _npy(Y))],
    "native byte order '='": [("inputs.npy", _npy(header=_hdr(descr="=f8"), body=ONE)), ("labels.npy", _npy(Y))],
    "float16": [("inputs.npy", _npy(X[:2].astype("<f2"))), ("labels.npy", _npy(Y[:2]))],
    "complex": [("inputs.npy", _npy(X.astype("<c16"))), ("labels.npy", _npy(Y))],
    "extra header key": [("inputs.npy", _npy(header=_hdr()[:-1] + "'x': 1}", body=ONE)), ("labels.npy", _npy(Y))],
    "fortran_order not a bool": [("inputs.npy", _npy(header=_hdr(fortran="0"), body=ONE)), ("labels.npy", _npy(Y))],
    "header of 20000 bytes": [("inputs.npy", _npy(header=_hdr() + " " * 20000, body=ONE)), ("labels.npy", _npy(Y))],
    "version 3.0": [("inputs.npy", _npy(header=_hdr(), body=ONE, version=b"\x03\x00")), ("labels.npy", _npy(Y))],
    "not a .npy": [("inputs.npy", b"hello"), ("labels.npy", _npy(Y))],
    "NaN": [("inputs.npy", _npy(np.array([[np.nan]]))), ("labels.npy", _npy(np.array([[1.0]])))],
    "infinity": [("inputs.npy", _npy(np.array([[1.0]]))), ("labels.npy", _npy(np.array([[np.inf]])))],
    "rows differ": [("inputs.npy", _npy(X)), ("labels.npy", _npy(Y[:2]))],
}


def _write(tmp_path, name, members):
    method = zipfile.ZIP_DEFLATED if name == "deflated" else zipfile.ZIP_STORED
    return _zip(tmp_path / (name.replace(" ", "_").replace("/", "_") + ".npz"), members, method)


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_files_read_the_same_exact_values_on_both_sides(tmp_path, name):
    path = _write(tmp_path, name, VALID[name])
    inst = read_instance(path)
    loaded = checker.load_instance(str(path))
    assert instance_sha256(inst) == checker.instance_sha256(loaded["inputs"], loaded["labels"])
    assert inst.inputs.to_strings() == [[checker.entry(x)[2] for x in row] for row in loaded["inputs"]]


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_files_are_refused_by_both_sides(tmp_path, name):
    path = _write(tmp_path, name, INVALID[name])
    with pytest.raises(InvalidInput):
        read_instance(path)
    with pytest.raises(checker.UnreadableInput):
        checker.load_instance(str(path))


def test_other_compression_methods_are_refused(tmp_path):
    path = _zip(tmp_path / "bz.npz", VALID["float64"], zipfile.ZIP_BZIP2)
    with pytest.raises(InvalidInput, match="neither stored nor deflated"):
        read_instance(path)
    with pytest.raises(checker.UnreadableInput, match="neither stored nor deflated"):
        checker.load_instance(str(path))


def test_a_deflate_bomb_is_refused_before_decompressing(tmp_path, monkeypatch):
    import tracemalloc

    rows = 2**22  # 32 MB of zeros, about 32 KB deflated: out of proportion to its bytes (the limit inflation)
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("inputs.npy", _npy(header=_hdr(shape=f"({rows}, 1)")) + bytes(8 * rows))
        z.writestr("labels.npy", _npy(header=_hdr(), body=ONE))
    assert path.stat().st_size < 200_000
    tracemalloc.start()
    with pytest.raises(InvalidInput, match="limit inflation"):
        read_instance(path)
    with pytest.raises(checker.UnreadableInput, match="limit inflation"):
        checker.load_instance(str(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * 2**20


def test_a_member_larger_than_declared_is_refused(tmp_path):
    path = _write(tmp_path, "plain", VALID["float64"])
    data = bytearray(path.read_bytes())
    # shrink the declared size of labels.npy in the central directory: the reader must notice
    pos = data.rfind(b"labels.npy")
    cd = data.rfind(b"PK\x01\x02", 0, pos)
    size = struct.unpack("<I", data[cd + 24:cd + 28])[0]
    data[cd + 24:cd + 28] = struct.pack("<I", size - 8)
    path.write_bytes(bytes(data))
    with pytest.raises(InvalidInput):
        read_instance(path)
    with pytest.raises(checker.UnreadableInput):
        checker.load_instance(str(path))


def test_one_archive_one_instance_on_the_command_line(tmp_path, capsys):
    """The review's archive: check said VALID while certify --as-given said the labels differ."""
    inst = planted(d=3, k=2, m=2, n=20, seed=0, input_bits=8)
    cert = tmp_path / "c.json"
    cert.write_text(json.dumps(realizes_certificate(inst, inst.planted)))
    two = _zip(tmp_path / "two.npz", [("inputs.npy", _npy(inst.float_inputs())), ("labels.npy", _npy(inst.float_labels())),
                                      ("labels", _npy(inst.float_labels() + 1))])
    assert main(["check", str(cert), str(two)]) == 2
    assert main(["certify", str(two), "--weights", str(cert), "--as-given", "-o", str(tmp_path / "o.json")]) == 2
    capsys.readouterr()
    for dtype in ("<f4", ">f8", ">f4"):  # certified from the file, verified by the checker on the same file
        path = _zip(tmp_path / f"{dtype[1:]}{dtype[0] == '>'}.npz",
                    [("inputs.npy", _npy(inst.float_inputs().astype(dtype))), ("labels.npy", _npy(inst.float_labels().astype(dtype)))])
        out = tmp_path / "cert.json"
        assert main(["certify", str(path), "--weights", str(cert), "--as-given", "-o", str(out)]) == 0
        assert main(["check", str(out), str(path)]) == 0
        assert "VALID" in capsys.readouterr().out


def test_a_header_over_the_limit_is_refused_by_both_sides(tmp_path):
    """A 20 KB header (spaces after the dict: numpy would parse it) is over limit("header") = 10,000 bytes."""
    big = _npy(header=_hdr() + " " * 20_000, body=ONE)
    path = tmp_path / "big_header.npz"
    _zip(path, [("inputs.npy", big), ("labels.npy", _npy(header=_hdr(), body=ONE))])
    with pytest.raises(InvalidInput, match="limit header"):
        read_instance(path)
    with pytest.raises(checker.UnreadableInput, match="limit header"):
        checker.load_instance(str(path))


def test_the_checker_bounds_memory_and_truncation_inside_a_member(tmp_path, monkeypatch):
    """An instance parsed whole is refused when its entries need more memory than there is (a budget of 1 MB here:
    3,000 x (1 + 1) entries at 400 bytes each); streamed, it is read; a 9-byte member is a truncated header, not a
    crash."""
    from exactrelu.certificates.trusted import common

    path = tmp_path / "e.npz"
    np.savez(path, inputs=np.ones((3000, 1)), labels=np.ones(3000))
    monkeypatch.setitem(common._limits, "memory", 1)
    with pytest.raises(checker.UnreadableInput, match="3000 x \\(1 \\+ 1\\) entries, parsed whole\\) needs about"):
        checker.load_instance(str(path))
    assert checker.load_instance(str(path), parse=False)["inputs"].rows == 3000  # a block at a time: no refusal
    short = tmp_path / "t.npz"
    _zip(short, [("inputs.npy", b"\x93NUMPY\x01\x00\x10"), ("labels.npy", _npy(header=_hdr(), body=ONE))])
    with pytest.raises(checker.UnreadableInput, match="truncated .npy header"):
        checker.load_instance(str(short))


@pytest.mark.parametrize("name, message", [("truncated header", "truncated"), ("shape (10^9, 0)", "has no entries"),
                                           ("data shorter than the shape", "data bytes"), ("boolean shape", "malformed")])
def test_npz_refusals_say_why(tmp_path, name, message):
    from exactrelu.errors import InvalidInput
    from exactrelu.instances import read_instance


    from test_npz import INVALID, _write


    path = _write(tmp_path, name, INVALID[name])
    with pytest.raises(checker.UnreadableInput, match=message):
        checker.load_instance(str(path))
    with pytest.raises(InvalidInput, match=message):
        read_instance(path)


def test_inflation_is_bounded_exactly_by_both_readers(tmp_path, monkeypatch):
    """A deflated member may unpack to ``inflation`` times its compressed bytes plus 1 MiB, not one byte more, in
    the library and the checker alike (the bound is checked from the zip directory, before decompressing)."""
    from exactrelu.certificates.trusted import common

    for check, error in ((limits.check_inflation, InvalidInput), (common.check_inflation, checker.UnreadableInput)):
        check(1000, 200 * 1000 + 2**20, "m")
        with pytest.raises(error, match="limit inflation"):
            check(1000, 200 * 1000 + 2**20 + 1, "m")
    rows = 2**18  # 2 MB of zeros, deflated to about 2 KB; an honest (random) member of the same size is read
    path = tmp_path / "zeros.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("inputs.npy", _npy(header=_hdr(shape=f"({rows}, 1)")) + bytes(8 * rows))
        z.writestr("labels.npy", _npy(header=_hdr(), body=ONE))
    with pytest.raises(checker.UnreadableInput, match="limit inflation"):
        checker.load_instance(str(path), parse=False)
    monkeypatch.setitem(common._limits, "inflation", 2000)  # raised: the same file is read
    assert checker.load_instance(str(path), parse=False)["inputs"].rows == rows
    honest = tmp_path / "honest.npz"
    rng = np.random.default_rng(0)
    np.savez_compressed(honest, inputs=rng.standard_normal((rows, 1)), labels=rng.integers(-3, 4, rows) * 1.0)
    monkeypatch.setitem(common._limits, "inflation", 200)
    assert checker.load_instance(str(honest), parse=False)["inputs"].rows == rows
    assert read_instance(honest).n == rows
