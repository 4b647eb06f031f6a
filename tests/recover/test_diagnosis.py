"""Failed recoveries name the wider model class that reproduces exact labels (exactrelu.recover.diagnosis), and only
what they certified: never "noise" for exact labels."""

import json

from fractions import Fraction

import numpy as np

from exactrelu.cli import main
from exactrelu.recover.diagnosis import constant_in_label_span, explain_failure, with_constant_input
from exactrelu.errors import AssumptionViolated, NotRealizable
from exactrelu.instances import Instance, planted, write_instance


def offset(inst, c=1):
    return Instance.from_arrays(inst.inputs, [[y + c for y in row] for row in inst.labels.to_fractions()])


def test_hidden_biases_are_found_exactly():
    inst = planted(d=4, k=3, m=3, n=400, seed=1, bias=1)
    text = explain_failure(inst, 3)
    assert text.startswith("The labels are reproduced exactly by 3 units with hidden biases")
    assert f"on all {inst.n * inst.m} entries" in text
    # the biases it prints are the planted ones up to each unit's positive scale (V_i, b_i) -> s (V_i, b_i)
    can = inst.planted.canonical()
    for v, b in zip(can.V.to_fractions(), can.b_fractions()):
        if b:
            assert str(b / abs(next(x for x in v if x))) in text or str(b) in text


def test_constant_offsets_are_certified_as_an_output_bias():
    inst = offset(planted(d=4, k=2, m=3, n=200, seed=2))
    assert constant_in_label_span(inst) == (True, 3)  # the exact rank test: an offset joins the labels' span
    text = explain_failure(inst, 2)
    assert text.startswith("The labels are reproduced exactly by 2 units without hidden biases and with output bias")
    assert "c = [1, 1, 1]" in text and "--bias output" in text and "realizes: 200 samples" in text
    assert explain_failure(inst, 2, bias="output") is None or "lies in the class asked" in explain_failure(
        inst, 2, bias="output")
    assert explain_failure(inst, 2, bias=True) is None  # nothing wider than both biases


def test_pytorch_default_labels_are_not_blamed_on_noise():
    """Issue 33 item 3: exact labels of U relu(V x + b) + c, asked without the output bias."""
    inst = offset(planted(d=4, k=2, m=3, n=300, seed=1, bias=1), c=Fraction(3, 4))
    text = explain_failure(inst, 2, bias="hidden")
    assert text.startswith("The labels are reproduced exactly by 2 units with hidden biases and with output bias")
    assert "the class asked, with hidden biases and without output bias, cannot represent it" in text
    assert "(bias=True, --bias)" in text


def test_nothing_is_claimed_for_unbiased_noise():
    inst = planted(d=4, k=2, m=2, n=200, seed=3)
    Y = inst.float_labels().copy()
    Y[5, 0] += 0.25
    noisy = Instance.from_arrays(inst.float_inputs(), Y)
    assert constant_in_label_span(noisy) == (False, 2)
    assert explain_failure(noisy, 2) is None  # rank k, but no biased network reproduces the labels either
    assert explain_failure(noisy, 5) is None  # rank != k, k + 1: nothing to try


def test_constant_input_is_appended_exactly():
    exact = Instance.from_arrays([["1/3", 2], [0, "-1/2"]], [[1], [2]])
    assert with_constant_input(exact).inputs.to_strings() == [["1/3", "2", "1"], ["0", "-1/2", "1"]]
    floats = with_constant_input(Instance.from_arrays(np.array([[0.1], [2.0]]), [[1], [2]]))
    assert floats.inputs.to_fractions()[0] == [Fraction(0.1), 1] and floats.inputs.float_source is not None


def test_cli_recover_appends_the_diagnosis(tmp_path, capsys):
    biased = write_instance(planted(d=4, k=3, m=3, n=400, seed=1, bias=1), tmp_path / "b.json")
    assert main(["recover", str(biased), "-k", "3"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("Diagnosis (certified: the labels are exact): The labels are reproduced exactly "
                                     "by 3 units with hidden biases") in err
    shifted = write_instance(offset(planted(d=4, k=2, m=3, n=200, seed=2)), tmp_path / "o.json")
    assert main(["recover", str(shifted), "-k", "2", "--json"]) == 1  # rank 3 > k: a certified "no" ...
    rec = json.loads(capsys.readouterr().out)
    assert rec["ok"] is False and rec["claim"] == "not-realizable" and rec["certified"] is True
    assert rec["diagnosis"].startswith("The labels are reproduced exactly by 2 units without hidden biases and with "
                                       "output bias")  # ... and the class that does reproduce them, certified
    assert main(["check", rec["certificate"], str(shifted)]) == 0
    capsys.readouterr()
    assert main(["recover", str(shifted), "-k", "2"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("NOT REALIZABLE (certified)") and "--bias output" in out
    assert main(["recover", str(shifted), "-k", "2", "--bias", "output"]) == 0  # asked for: certified
    capsys.readouterr()
    plain = write_instance(planted(d=4, k=2, m=2, n=100, seed=0), tmp_path / "p.json")
    assert main(["recover", str(plain), "-k", "3"]) == 1  # rank 2 < k = 3: no structure to report
    assert "Diagnosis" not in capsys.readouterr().err


def test_explained_keeps_the_error_class():
    from exactrelu.commands.core import explained

    inst = planted(d=4, k=3, m=3, n=400, seed=1, bias=1)
    for exc in (NotRealizable("no units", evidence={"a": 1}), AssumptionViolated("nullity", evidence={"b": 2})):
        out = explained(exc, inst, 3, None, 0)
        assert type(out) is type(exc) and out.evidence == exc.evidence
        assert str(out).startswith(str(exc) + ". Diagnosis (certified: the labels are exact): ")
    plain = planted(d=4, k=2, m=2, n=100, seed=0)
    exc = NotRealizable("nothing.")
    assert explained(exc, plain, 3, None, 0) is exc


def test_certify_appends_the_diagnosis(tmp_path, capsys):
    inst = planted(d=4, k=3, m=3, n=400, seed=1, bias=1)
    ip = write_instance(inst, tmp_path / "b.json")
    w = tmp_path / "w.npz"
    np.savez(w, U=inst.planted.U.to_float(), V=inst.planted.V.to_float())  # the biases left out
    # no exact certificate: the given weights' residual certificate, and the structure of the data
    assert main(["certify", str(ip), "--weights", str(w), "-o", str(tmp_path / "c.json")]) == 1
    out = capsys.readouterr().out
    assert "residual certificate of the given weights" in out
    assert "Diagnosis: The labels are reproduced exactly by 3 units with hidden biases" in out
    assert main(["certify", str(ip), "--weights", str(w), "--as-given"]) == 1
    assert "Diagnosis" not in capsys.readouterr().err
    assert main(["recover", str(ip), "-k", "3", "--json"]) == 1
    assert "bias=True" in capsys.readouterr().out
