"""Weights from elsewhere (.npz, PyTorch state dicts), certify_weights, and the CLI (certify, recover --init)."""

import json
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.certificates import checker
from exactrelu.cli import main
from exactrelu.exact.matrix import QMatrix
from exactrelu.errors import InvalidInput, NotRealizable
from exactrelu.instances import Instance, planted, write_instance
from exactrelu.propose.torch_weights import load_weights, state_dict_weights
from exactrelu.recover.weights import certify_weights, exact_residual


def run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def inst():
    return planted(5, 3, 3, 300, seed=4)


def test_npz_weights_roundtrip_and_errors(tmp_path):
    p = tmp_path / "w.npz"
    np.savez(p, U=np.arange(6.0).reshape(2, 3), V=np.ones((3, 4), dtype=np.float32))
    U, V = load_weights(p)
    assert U.dtype == V.dtype == np.float64 and U.shape == (2, 3) and V.shape == (3, 4)
    np.savez(tmp_path / "a.npz", U=np.ones((2, 2)), W=np.ones((2, 4)))
    with pytest.raises(InvalidInput, match="'U' .* and 'V'"):
        load_weights(tmp_path / "a.npz")
    np.savez(tmp_path / "b.npz", U=np.ones((2, 2)), V=np.ones((3, 4)))
    with pytest.raises(InvalidInput, match="k columns"):
        load_weights(tmp_path / "b.npz")
    np.savez(tmp_path / "c.npz", U=np.full((2, 3), np.inf), V=np.ones((3, 4)))
    with pytest.raises(InvalidInput, match="non-finite"):
        load_weights(tmp_path / "c.npz")
    (tmp_path / "d.npz").write_bytes(b"not a zip")
    with pytest.raises(InvalidInput, match="readable"):
        load_weights(tmp_path / "d.npz")
    with pytest.raises(InvalidInput, match="no such"):
        load_weights(tmp_path / "missing.npz")


def test_state_dict_rules():
    U, V = state_dict_weights({"0.weight": np.ones((3, 4)), "0.bias": np.zeros(3), "2.weight": np.ones((2, 3))})
    assert U.shape == (2, 3) and V.shape == (3, 4)
    with pytest.raises(InvalidInput, match="bias"):
        state_dict_weights({"0.weight": np.ones((3, 4)), "0.bias": np.ones(3), "2.weight": np.ones((2, 3))})
    with pytest.raises(InvalidInput, match="exactly two"):
        state_dict_weights({"a": np.ones((3, 4)), "b": np.ones((3, 3)), "c": np.ones((2, 3))})
    with pytest.raises(InvalidInput, match="2-D"):
        state_dict_weights({"a": np.ones((3, 4, 1))})
    with pytest.raises(InvalidInput, match="k columns"):
        state_dict_weights({"a": np.ones((3, 4)), "b": np.ones((2, 2))})
    with pytest.raises(InvalidInput, match="state dict"):
        state_dict_weights([np.ones((3, 4))])


def test_torch_state_dict_file(capsys, tmp_path, inst):
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(5, 3, bias=False), torch.nn.ReLU(), torch.nn.Linear(3, 3, bias=False))
    with torch.no_grad():  # float32 weights near the planted ones, as training would leave them
        model[0].weight.copy_(torch.tensor(inst.planted.V.to_float() * 1.01 + 1e-3))
        model[2].weight.copy_(torch.tensor(inst.planted.U.to_float()))
    p = tmp_path / "model.pt"
    torch.save(model.state_dict(), p)
    U, V = load_weights(p)
    assert V.shape == (3, 5) and np.array_equal(V, model[0].weight.detach().double().numpy())
    torch.save({"state_dict": model.state_dict()}, tmp_path / "ckpt.pt")
    assert load_weights(tmp_path / "ckpt.pt")[1].shape == (3, 5)
    torch.save(model, tmp_path / "whole.pt")  # a pickled module: refused (weights_only=True)
    with pytest.raises(InvalidInput, match="weights_only"):
        load_weights(tmp_path / "whole.pt")
    ip = tmp_path / "i.json"
    write_instance(inst, ip)
    cert = tmp_path / "c.json"
    code, out, _ = run(capsys, "certify", ip, "--weights", p, "-o", cert)
    assert code == 0 and "recovered from their first layer" in out
    assert checker.check_files(str(cert), str(ip)).startswith("realizes")
    res = certify_weights(inst, U, V)
    assert res.how == "recovered from the given first layer" and res.network.equivalent(inst.planted)


def test_certify_weights_as_given_recovered_and_refused(inst):
    U, V = inst.planted.U.to_float(), inst.planted.V.to_float()
    exact = certify_weights(inst, U, V)
    assert exact.how == "as given" and exact.given_residual is None and exact.checked.startswith("realizes")
    near = certify_weights(inst, U * 1.1, V + 1e-3)
    assert near.network.equivalent(inst.planted) and near.max_weight_change > 0
    assert near.given_residual["n_failing"] > 0 and near.certificate["claim"] == "realizes"
    with pytest.raises(NotRealizable, match="label entries differ") as e:
        certify_weights(inst, U * 1.1, V, as_given=True)
    assert 0 < e.value.evidence["n_failing"] <= 900 and "worst" in e.value.evidence
    for bad in ((U, V[:, :4]), (U[:2], V), (U[:, :2], V)):
        with pytest.raises(InvalidInput):
            certify_weights(inst, *bad)


def test_certify_weights_noisy_labels_give_no_certificate(inst):
    Y = inst.float_labels().copy()
    Y[0, 0] += 0.5
    noisy = Instance.from_arrays(inst.float_inputs(), Y)
    with pytest.raises(NotRealizable, match="exact recovery from their first layer failed"):
        certify_weights(noisy, inst.planted.U.to_float(), inst.planted.V.to_float())


def test_exact_residual_locates_the_difference(inst):
    Y = inst.labels.to_fractions()
    Y[7][2] += Fraction(1, 4)
    r = exact_residual(inst.planted, Instance(inst.inputs, QMatrix.from_rows(Y)))
    assert r == {"n_failing": 1, "n_entries": 900, "max_residual": "1/4", "worst": (7, 2), "first": (7, 2)}


def test_cli_certify(capsys, tmp_path, inst):
    ip = tmp_path / "i.json"
    write_instance(inst, ip)
    w = tmp_path / "w.npz"
    np.savez(w, U=inst.planted.U.to_float(), V=inst.planted.V.to_float())
    code, out, _ = run(capsys, "certify", ip, "--weights", w)
    assert code == 0 and "certified as given" in out
    cert = tmp_path / "i.json.cert.json"
    assert checker.check_files(str(cert), str(ip)).startswith("realizes")
    np.savez(w, U=inst.planted.U.to_float() + 0.01, V=inst.planted.V.to_float() * 1.02)
    code, out, _ = run(capsys, "certify", ip, "--weights", w, "-o", tmp_path / "c2.json", "--activation", "relu")
    assert code == 0 and "recovered from their first layer" in out and "independent checker" in out
    assert json.loads((tmp_path / "c2.json").read_text())["claim"] == "realizes"
    code, _, err = run(capsys, "certify", ip, "--weights", w, "--as-given", "-o", tmp_path / "c3.json")
    assert code == 1 and "NotRealizable" in err and not (tmp_path / "c3.json").exists()
    code, _, err = run(capsys, "certify", ip, "--weights", tmp_path / "none.npz")
    assert code == 2 and "no such weights file" in err
    code, _, err = run(capsys, "certify", ip, "--weights", w, "--activation", "power:2")
    assert code == 2


def test_cli_recover_with_init(capsys, tmp_path):
    inst = planted(6, 4, 4, 600, seed=1)
    ip = tmp_path / "i.json"
    write_instance(inst, ip)
    for init in ("gradient", "auto", "tensor"):
        code, out, _ = run(capsys, "recover", ip, "-k", 4, "--init", init, "-o", tmp_path / f"{init}.json")
        assert code == 0 and "parameter error vs planted (canonical form): 0" in out, init
    w = tmp_path / "w.npz"
    np.savez(w, U=inst.planted.U.to_float(), V=inst.planted.V.to_float() + 0.01)
    code, out, _ = run(capsys, "recover", ip, "-k", 4, "--init", w, "-o", tmp_path / "w.json")
    assert code == 0 and "certified" in out
    code, _, err = run(capsys, "recover", ip, "-k", 4, "--init", "bogus")
    assert code == 2 and "unknown proposer" in err


def test_optional_dependencies_missing_are_named(monkeypatch, tmp_path):
    import sys

    from exactrelu.propose.ica import ICAProposer

    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.decomposition", None)
    X = np.random.default_rng(0).standard_normal((50, 3))
    with pytest.raises(InvalidInput, match="scikit-learn"):
        ICAProposer(2).fit(X, X[:, :2])
    monkeypatch.setitem(sys.modules, "torch", None)
    (tmp_path / "m.pt").write_bytes(b"whatever")
    with pytest.raises(InvalidInput, match="needs torch"):
        load_weights(tmp_path / "m.pt")


def test_certify_exact_json_weights_and_certificates(tmp_path, capsys):
    """A realizes certificate (or any JSON with rational rows U, V) is read exactly as weights."""
    import json

    from exactrelu.cli import main
    from exactrelu.instances import planted, write_instance

    inst = planted(d=4, k=2, m=2, n=120, seed=5, weights="dyadic")
    ip = write_instance(inst, tmp_path / "i.json")
    wp = tmp_path / "w.json"
    wp.write_text(json.dumps({"U": inst.planted.U.to_strings(), "V": inst.planted.V.to_strings()}))
    assert main(["certify", str(ip), "--weights", str(wp), "--as-given", "-o", str(tmp_path / "c.json")]) == 0
    assert "certified as given" in capsys.readouterr().out
    assert main(["certify", str(ip), "--weights", str(tmp_path / "c.json"), "--as-given"]) == 0  # a certificate
    obj = {"U": inst.planted.U.to_strings(), "V": inst.planted.V.to_strings()}
    obj["U"][0][0] = "1/3"
    wp.write_text(json.dumps(obj))
    assert main(["certify", str(ip), "--weights", str(wp), "--as-given"]) == 1  # exact residual, no certificate
    assert main(["certify", str(ip), "--weights", str(wp), "-o", str(tmp_path / "c2.json")]) == 0  # recovered
    wp.write_text('{"U": [[1]]}')
    assert main(["certify", str(ip), "--weights", str(wp)]) == 2
    wp.write_text('{"U": [[1], oops')
    assert main(["certify", str(ip), "--weights", str(wp)]) == 2
