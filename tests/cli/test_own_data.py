"""Own data in (issue 22, item 5): ``--inputs X --labels Y`` (.npy, CSV) for recover, fit, solve and certify;
``exactrelu import`` writes the exact instance the checker reads; a hint where a format is wrong; reading timed."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.certificates import checker
from exactrelu.cli import main
from exactrelu.instances import planted, read_instance


@pytest.fixture
def arrays(tmp_path):
    inst = planted(d=3, k=2, m=2, n=60, seed=0, input_bits=10)
    X, Y = tmp_path / "X.npy", tmp_path / "Y.npy"
    np.save(X, inst.float_inputs())
    np.save(Y, inst.float_labels())
    return inst, X, Y


def _json(capsys, *argv) -> tuple[int, dict]:
    code = main([str(a) for a in argv] + ["--json"])
    return code, json.loads(capsys.readouterr().out)


def test_recover_from_npy_arrays_and_check_against_the_imported_instance(arrays, tmp_path, capsys):
    inst, X, Y = arrays
    cert = tmp_path / "c.json"
    code, rec = _json(capsys, "recover", "--inputs", X, "--labels", Y, "-k", 2, "-o", cert)
    assert code == 0 and rec["claim"] == "realizes"
    assert list(rec["timings"])[0] == "read" and rec["timings"]["read"] >= 0
    for suffix in (".json", ".npz"):
        out = tmp_path / f"inst{suffix}"
        assert main(["import", "--inputs", str(X), "--labels", str(Y), "-o", str(out)]) == 0
        assert read_instance(out).labels == inst.labels
        assert checker.check_files(str(cert), str(out)).startswith("realizes")
    assert "to check it: exactrelu import" in _text(capsys, "recover", "--inputs", X, "--labels", Y, "-k", 2, "-o", cert)


def _text(capsys, *argv) -> str:
    main([str(a) for a in argv])
    return capsys.readouterr().out


def test_csv_entries_are_taken_exactly_as_written(tmp_path, capsys):
    (tmp_path / "X.csv").write_text("x1,x2\n0.1,1\n-2,3/7\n1e-3,0\n")
    (tmp_path / "Y.csv").write_text("0.5\n1\n2\n")
    out = tmp_path / "i.json"
    assert main(["import", "--inputs", str(tmp_path / "X.csv"), "--labels", str(tmp_path / "Y.csv"), "-o", str(out)]) == 0
    inst = read_instance(out)
    assert inst.inputs.to_fractions() == [[Fraction(1, 10), 1], [-2, Fraction(3, 7)], [Fraction(1, 1000), 0]]
    assert inst.labels.to_fractions() == [[Fraction(1, 2)], [1], [2]]
    # 1/10 is no float64: the .npz writer refuses rather than round
    assert main(["import", "--inputs", str(tmp_path / "X.csv"), "--labels", str(tmp_path / "Y.csv"),
                 "-o", str(tmp_path / "i.npz")]) == 2
    assert "not exactly representable as float64" in capsys.readouterr().err


def test_fit_solve_and_certify_take_the_arrays_too(arrays, tmp_path, capsys):
    inst, X, Y = arrays
    code, rec = _json(capsys, "fit", "--inputs", X, "--labels", Y, "-k", 2, "-o", tmp_path / "w.json")
    assert code == 0 and "read" in rec["timings"]
    code, rec = _json(capsys, "solve", "--inputs", X, "--labels", Y, "-k", 2, "-o", tmp_path / "s.json")
    assert code == 0 and rec["claim"] == "realizes" and "read" in rec["timings"]
    w = tmp_path / "planted.npz"
    np.savez(w, U=inst.planted.U.to_float(), V=inst.planted.V.to_float())
    code, rec = _json(capsys, "certify", "--inputs", X, "--labels", Y, "--weights", w, "-o", tmp_path / "c.json")
    assert code == 0 and rec["about"] == "given"


@pytest.mark.parametrize("argv, match", [
    (["--inputs", "X.npy"], "go together"),
    (["--labels", "Y.npy"], "go together"),
    ([], "no data"),
    (["inst.json", "--inputs", "X.npy", "--labels", "Y.npy"], "not both"),
])
def test_the_data_arguments_are_refused_in_one_line(arrays, tmp_path, capsys, monkeypatch, argv, match):
    monkeypatch.chdir(arrays[1].parent)
    (tmp_path / "inst.json").write_text("{}")
    assert main(["recover", *argv, "-k", "2"]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1


def test_rows_must_agree(arrays, tmp_path, capsys):
    inst, X, _ = arrays
    np.save(tmp_path / "short.npy", np.ones(5))
    assert main(["recover", "--inputs", str(X), "--labels", str(tmp_path / "short.npy"), "-k", "2"]) == 2
    assert "one row per sample" in capsys.readouterr().err


def test_hints_where_a_format_is_wrong(arrays, tmp_path, capsys):
    inst, X, Y = arrays
    assert main(["recover", str(X), "-k", "2"]) == 2  # an .npy where an instance is expected
    assert "--inputs X --labels Y" in capsys.readouterr().err
    (tmp_path / "data.csv").write_text("1,2\n3,4\n")
    assert main(["recover", str(tmp_path / "data.csv"), "-k", "2"]) == 2
    assert "exactrelu import" in capsys.readouterr().err
    naive = tmp_path / "naive.json"  # json.dump of float lists: the first thing people try
    naive.write_text(json.dumps({"inputs": inst.float_inputs().tolist(), "labels": inst.float_labels().tolist()}))
    assert main(["recover", str(naive), "-k", "2"]) == 2
    err = capsys.readouterr().err
    assert "numpy.savez" in err and "exactrelu import" in err
    floats = tmp_path / "floats.json"
    floats.write_text(json.dumps({"format": "exactrelu.instance", "version": 1, "inputs": [[0.5]], "labels": [[1]]}))
    assert main(["recover", str(floats), "-k", "1"]) == 2
    assert "a JSON float is not exact" in capsys.readouterr().err
    assert main(["import", "--inputs", str(tmp_path / "naive.json"), "--labels", str(Y), "-o", str(tmp_path / "o.json")]) == 2
    assert "instance file, given without --inputs" in capsys.readouterr().err


def test_import_refuses_an_output_it_cannot_write_and_needs_both_arrays(arrays, tmp_path, capsys):
    _, X, Y = arrays
    assert main(["import", "--inputs", str(X), "--labels", str(Y), "-o", str(tmp_path / "i.txt")]) == 2
    assert main(["import", "--inputs", str(X), "-o", str(tmp_path / "i.json")]) == 2
    code, rec = _json(capsys, "import", "--inputs", X, "--labels", Y, "-o", tmp_path / "i.json")
    assert code == 0 and rec["n"] == 60 and set(rec["timings"]) == {"read", "write"}
