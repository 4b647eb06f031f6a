import json
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.errors import InvalidInput
from exactrelu.instances import planted
from exactrelu.network import Activation, Network
from exactrelu.io.torch_weights import state_dict_arrays, state_dict_weights
from exactrelu.io.weights import read_weights, weights_json, write_weights


def test_round_trip_is_exact(tmp_path):
    net = Network.from_rows([["1/3", 2]], [["-1/7", 1], [0, "5/11"]], Activation.power(2), b=["1/3", "-2"])
    path = write_weights(net, tmp_path / "w.json", method="test")
    obj = json.loads(path.read_text())
    assert obj["format"] == "exactrelu.weights" and obj["version"] == 1 and obj["b"] == ["1/3", "-2"]
    assert obj["provenance"]["method"] == "test" and obj["activation"] == {"name": "power", "degree": 2}
    back = read_weights(path)
    assert back.equivalent(net) and back.activation == Activation.power(2)
    plain = Network.from_rows([[1]], [[1, 2]])
    assert "b" not in weights_json(plain)


def test_reads_certificates_decimals_and_npz(tmp_path):
    inst = planted(d=3, k=2, m=2, n=20, seed=0, bias=1.0)
    cpath = tmp_path / "cert.json"
    cpath.write_text(json.dumps(realizes_certificate(inst, inst.planted)))
    assert read_weights(cpath).equivalent(inst.planted)
    dec = tmp_path / "dec.json"
    dec.write_text(json.dumps({"U": [["0.1"]], "V": [["1e-3", 2]], "b": ["0.25"]}))
    assert read_weights(dec).b_fractions() == [Fraction(1, 4)] and read_weights(dec).U.to_fractions() == [[Fraction(1, 10)]]
    npz = tmp_path / "w.npz"
    np.savez(npz, U=np.ones((2, 2)), V=np.eye(2), b=np.array([0.5, -0.1]))
    net = read_weights(npz, Activation.power(3))
    assert net.b_fractions()[1] == Fraction(*(-0.1).as_integer_ratio()) and net.activation.degree == 3
    np.savez(tmp_path / "nob.npz", U=np.ones((2, 2)), V=np.eye(2))
    assert read_weights(tmp_path / "nob.npz").b is None


@pytest.mark.parametrize("content, match", [
    ("[1, 2]", "JSON object"),
    ('{"U": [[1]]}', "'U'"),
    ('{"format": "exactrelu.weights", "version": 2, "U": [[1]], "V": [[1]]}', "version"),
    ('{"format": "exactrelu.weights", "version": 1, "U": [[1]], "V": [[1]], "activaton": {}}', "unknown fields"),
    ('{"U": [[1]], "V": [[1]], "b": [1, 2]}', "b must"),
    ('{"U": [[1]], "V": [[1]], "b": "1"}', "'b'"),
    ('{"U": [["x"]], "V": [[1]]}', "not a rational"),
    ('{"U": [[1]], "V": [[1]', "not valid JSON"),
    ('{"U": [[1]], "V": [[1]], "activation": {"name": "power", "degree": 2}}', "differs"),
])
def test_bad_weights_files(tmp_path, content, match):
    p = tmp_path / "w.json"
    p.write_text(content)
    with pytest.raises(InvalidInput, match=match):
        read_weights(p, Activation.relu())


def test_missing_and_directory(tmp_path):
    with pytest.raises(InvalidInput, match="no such"):
        read_weights(tmp_path / "nope.json")
    with pytest.raises(InvalidInput, match="is a directory, not a file \\(weights file expected\\)"):
        read_weights(tmp_path)
    with pytest.raises(InvalidInput, match="cannot write"):
        write_weights(Network.from_rows([[1]], [[1]]), tmp_path / "no" / "dir" / "w.json")
    bad = tmp_path / "b.npz"
    np.savez(bad, U=np.ones((2, 2)), V=np.eye(2), b=np.ones(3))
    with pytest.raises(InvalidInput, match="b has 3"):
        read_weights(bad)
    np.savez(bad, U=np.ones((2, 2)), V=np.eye(2), extra=np.ones(3))
    with pytest.raises(InvalidInput, match="optionally"):
        read_weights(bad)


def test_state_dict_biases():
    U, V, b, c = state_dict_arrays({"0.weight": np.ones((3, 4)), "0.bias": np.array([1.0, 0, -1]),
                                    "2.weight": np.ones((2, 3)), "2.bias": np.zeros(2)})
    assert b.tolist() == [1.0, 0.0, -1.0] and c.tolist() == [0.0, 0.0]
    assert state_dict_arrays({"0.weight": np.ones((3, 4)), "2.weight": np.ones((2, 3)), "2.bias": np.ones(2)})[3].tolist() == [1, 1]
    with pytest.raises(InvalidInput, match=r"2.bias has shape \(3,\); 2.weight has 2 rows"):
        state_dict_arrays({"0.weight": np.ones((3, 4)), "2.weight": np.ones((2, 3)), "2.bias": np.ones(3)})
    with pytest.raises(InvalidInput, match="non-zero bias"):
        state_dict_weights({"0.weight": np.ones((3, 4)), "0.bias": np.ones(3), "2.weight": np.ones((2, 3))})


def test_weights_npz_is_read_strictly_and_bounded(tmp_path, monkeypatch):
    """A weights archive follows the instance rules: named members only, bounded before decompressing."""
    import zipfile


    ok = tmp_path / "w.npz"
    np.savez(ok, U=np.array([[1.0, -2.0]], dtype=">f4"), V=np.eye(2), b=np.array([0.5, -1.0]))
    net = read_weights(ok)
    assert net.U.to_strings() == [["1", "-2"]] and [str(x) for x in net.b_fractions()] == ["1/2", "-1"]
    extra = tmp_path / "x.npz"
    np.savez(extra, U=np.ones((1, 2)), V=np.eye(2), W=np.eye(2))
    with pytest.raises(InvalidInput, match="exactly the members U.npy and V.npy"):
        read_weights(extra)
    big = tmp_path / "i.npz"
    np.savez(big, U=np.array([[2**60, 1]], dtype=np.int64), V=np.eye(2, dtype=np.int64))
    assert read_weights(big).U.to_strings() == [[str(2**60), "1"]]  # integers are taken exactly, not refused
    bomb = tmp_path / "bomb.npz"
    rows = 2**21
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, 1), }" % rows
        header = header.ljust(117) + "\n"
        z.writestr("U.npy", b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + bytes(8 * rows))
        z.writestr("V.npy", b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + bytes(8 * rows))
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InvalidInput, match="limit inflation"):  # 16 MB of zeros from 16 KB: a deflate bomb
        read_weights(bomb)


def test_weights_json_numbers_are_bounded(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"U": [[1' + "0" * 5000 + ']], "V": [[1]]}')
    with pytest.raises(InvalidInput, match="limit digits"):
        read_weights(path)


def test_the_digit_limit_holds_whatever_python_s_own_limit_is(tmp_path, monkeypatch):
    """Another library may lift Python's int/str limit; our readers (and the checker's) still bound JSON integers."""
    import sys

    from exactrelu.certificates import checker

    path = tmp_path / "w.json"
    path.write_text('{"U": [[1' + "0" * 5000 + ']], "V": [[1]]}')
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # unlimited
    try:
        with pytest.raises(InvalidInput, match="limit digits"):
            read_weights(path)
        inst = tmp_path / "i.json"
        inst.write_text('{"format": "exactrelu.instance", "version": 1, "inputs": [[1' + "0" * 5000 + ']], '
                        '"labels": [[1]]}')
        with pytest.raises(checker.UnreadableInput, match="limit digits"):
            checker.load_instance(str(inst))
    finally:
        sys.set_int_max_str_digits(old)
