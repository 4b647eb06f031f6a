"""The library's JSON readers are as strict as the checker's (issue 26 item 7): a key repeated in one object,
a JSON float where an exact number belongs and a boolean or float where an integer is required are refused
with one line (InvalidInput, exit 2), in instances, weights, certificates and the hardness weights reader."""

from __future__ import annotations

import json

import pytest

from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.envelope import read_certificate
from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.instances import planted, read_instance, write_instance
from exactrelu.io.files import read_json
from exactrelu.io.weights import read_weights, write_weights

INST = planted(d=2, k=1, m=1, n=4, seed=0, input_bits=4)


def _weights(tmp_path, **change) -> str:
    obj = json.loads(write_weights(INST.planted, tmp_path / "w.json").read_text()) | change
    return json.dumps(obj)


@pytest.mark.parametrize("reader", ["instance", "weights", "certificate"])
def test_a_repeated_key_is_refused_by_every_reader(tmp_path, reader):
    if reader == "instance":
        text = write_instance(INST, tmp_path / "i.json").read_text()
        text = text.replace('"labels":', '"labels":[["7"]],"labels":', 1)
        read = read_instance
    elif reader == "weights":
        text = _weights(tmp_path).replace('"U":', '"U": [["5"]], "U":', 1)
        read = read_weights
    else:
        text = json.dumps(realizes_certificate(INST, INST.planted)).replace('"claim":', '"claim": "residual", "claim":', 1)
        read = read_certificate
    path = tmp_path / "dup.json"
    path.write_text(text)
    with pytest.raises(InvalidInput, match="appears twice in one object"):
        read(path)


def test_a_repeated_key_deep_inside_is_refused():
    with pytest.raises(InvalidInput, match="the key 'name' appears twice"):
        read_json("a.json", raw=b'{"activation": {"name": "relu", "name": "power"}}')
    assert read_json("a.json", raw=b'{"a": {"b": 1}, "b": {"a": 2}}') == {"a": {"b": 1}, "b": {"a": 2}}


@pytest.mark.parametrize("key,value,shown", [("U", [[0.1]], "0.1"), ("V", [[1, 2.5]], "2.5"), ("b", [True], "true"),
                                             ("c", [1e300], r"1e\+300")])
def test_json_floats_and_booleans_are_refused_in_weights(tmp_path, key, value, shown):
    path = tmp_path / "f.json"
    obj = json.loads(_weights(tmp_path))
    path.write_text(json.dumps(obj | {key: value}))
    with pytest.raises(InvalidInput, match=f"'{key}' holds {shown}, a (JSON float|boolean); write exact rationals"):
        read_weights(path)


def test_the_same_numbers_as_strings_are_read_exactly(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"U": [["0.1"]], "V": [["1/3", 2]]}))
    assert str(read_weights(path).U.to_fractions()[0][0]) == "1/10"


@pytest.mark.parametrize("version", [True, 1.0, "1"])
def test_a_version_that_is_not_the_integer_1_is_refused(tmp_path, version):
    w = tmp_path / "w.json"
    w.write_text(_weights(tmp_path, version=version))
    with pytest.raises(InvalidInput, match="unsupported weights version"):
        read_weights(w)
    i = tmp_path / "i.json"
    i.write_text(json.dumps(json.loads(write_instance(INST, tmp_path / "ok.json").read_text()) | {"version": version}))
    with pytest.raises(InvalidInput, match="unsupported instance version"):
        read_instance(i)


def test_a_planted_float_is_refused_in_an_instance(tmp_path):
    obj = json.loads(write_instance(INST, tmp_path / "ok.json").read_text())
    obj["planted"]["V"][0][0] = 0.5
    path = tmp_path / "p.json"
    path.write_text(json.dumps(obj))
    with pytest.raises(InvalidInput, match="planted: 'V' holds 0.5, a JSON float"):
        read_instance(path)


def test_the_command_line_refuses_a_float_weight_in_one_line(tmp_path, capsys):
    inst = write_instance(INST, tmp_path / "i.json")
    w = tmp_path / "w.json"
    w.write_text(_weights(tmp_path, U=[[0.1]]))
    assert main(["certify", str(inst), "--weights", str(w)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a JSON float" in err[0]
