"""Weights from elsewhere (.npz, .safetensors, PyTorch state dicts), certify_weights, the CLI (certify, recover --init)."""

import json
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.certificates import checker
from exactrelu.cli import main
from exactrelu.exact.matrix import QMatrix
from exactrelu.errors import InvalidInput, NotRealizable
from exactrelu.instances import Instance, planted, write_instance
from exactrelu.network import Network
from exactrelu.io.binary_weights import load_float_weights
from exactrelu.io.torch_weights import state_dict_weights
from exactrelu.recover.given_weights import certify_weights, weights_distance
from exactrelu.io.weights import read_weights


def load_weights(path):
    U, V, _, _ = load_float_weights(path)
    return U, V


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
    with pytest.raises(InvalidInput, match=r"exactly the members U.npy and V.npy \(and optionally b.npy, c.npy\), found \['U.npy', 'W.npy'\]"):
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
    with pytest.raises(InvalidInput, match="'a' is not the weight or bias of a Linear layer"):
        state_dict_weights({"a": np.ones((3, 4)), "b": np.ones((3, 3)), "c": np.ones((2, 3))})
    with pytest.raises(InvalidInput, match="depth 3"):
        state_dict_weights({"0.weight": np.ones((3, 4)), "1.weight": np.ones((3, 3)), "2.weight": np.ones((2, 3))})
    with pytest.raises(InvalidInput, match=r"0.weight has shape \(3, 4, 1\); a Linear layer's weight is an out x in"):
        state_dict_weights({"0.weight": np.ones((3, 4, 1))})
    with pytest.raises(InvalidInput, match="do not chain: the second takes 2 inputs, the first gives 3"):
        state_dict_weights({"0.weight": np.ones((3, 4)), "2.weight": np.ones((2, 2))})
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
    assert read_weights(p).V.to_float().tolist() == V.tolist()
    torch.save({"state_dict": model.state_dict()}, tmp_path / "ckpt.pt")
    assert load_weights(tmp_path / "ckpt.pt")[1].shape == (3, 5)
    torch.save(model, tmp_path / "whole.pt")  # a pickled module: refused (weights_only=True)
    with pytest.raises(InvalidInput, match="weights_only"):
        load_weights(tmp_path / "whole.pt")
    ip = tmp_path / "i.json"
    write_instance(inst, ip)
    cert = tmp_path / "c.json"
    code, out, _ = run(capsys, "certify", ip, "--weights", p, "-o", cert)
    assert code == 1 and "certified instead: a network recovered exactly from the labels" in out  # not the given ones
    assert out.startswith("certified: realizes, about weights recovered from the labels, not the given ones")
    assert run(capsys, "certify", ip, "--weights", p, "-o", cert, "--require", "realizes")[0] == 0
    assert checker.check_files(str(cert), str(ip)).startswith("realizes")
    res = certify_weights(inst, U, V)
    assert res.how == "recovered from the labels" and res.network.equivalent(inst.planted)


def test_certify_weights_as_given_recovered_and_refused(inst):
    U, V = inst.planted.U.to_float(), inst.planted.V.to_float()
    exact = certify_weights(inst, U, V)
    assert exact.how == "as given" and exact.given_residual.exact and exact.checked.startswith("realizes")
    assert exact.distance is None and exact.from_given == 3 and exact.given.equivalent(inst.planted)
    near = certify_weights(inst, U * 1.1, V + 1e-3)
    assert near.network.equivalent(inst.planted) and near.from_given == 3 and near.certificate["claim"] == "realizes"
    assert near.given_residual.n_failing > 0 and near.given_residual.squared_error > 0
    # the distance is measured up to the network's symmetries: only the perturbation shows
    assert near.distance.max_V <= Fraction(1, 100) and 0 < near.distance.max_U < 1 and near.distance.max_b == 0
    assert near.distance == weights_distance(near.network, near.given)
    with pytest.raises(NotRealizable, match="label entries differ") as e:
        certify_weights(inst, U * 1.1, V, as_given=True)
    assert 0 < e.value.evidence["n_failing"] <= 900 and "worst" in e.value.evidence
    assert Fraction(e.value.evidence["squared_error"]) > 0
    for bad in ((U, V[:, :4]), (U[:2], V), (U[:, :2], V)):
        with pytest.raises(InvalidInput):
            certify_weights(inst, *bad)
    with pytest.raises(InvalidInput, match="not both"):
        certify_weights(inst, inst.planted, V)
    with pytest.raises(InvalidInput, match="needs a Network"):
        certify_weights(inst, U)


def test_certify_random_weights_says_the_certificate_is_about_other_weights(capsys, tmp_path, inst):
    """Untrained weights: the labels give a certified network; the output says it is not the given one, and how far."""
    ip = write_instance(inst, tmp_path / "i.json")
    rng = np.random.default_rng(0)
    w = tmp_path / "random.npz"
    np.savez(w, U=rng.standard_normal((3, 3)), V=rng.standard_normal((3, 5)))
    res = certify_weights(inst, read_weights(w))
    assert res.how == "recovered from the labels" and res.network.equivalent(inst.planted)
    assert res.given_residual.relative() > 0.5 and res.distance.relative > 0.5
    assert 0 <= res.from_given <= 3
    code, out, _ = run(capsys, "certify", ip, "--weights", w, "-o", tmp_path / "c.json")
    assert code == 1  # random weights: a certificate about other weights is no success for these
    assert "are not exact on this instance" in out and "not the given weights" in out
    assert "about the recovered weights" in out and "distance from the given weights" in out
    code, out, _ = run(capsys, "certify", ip, "--weights", w, "-o", tmp_path / "c.json", "--json")
    rec = json.loads(out)
    assert not rec["ok"] and rec["certified"] == "weights recovered from the labels" and rec["about"] == "recovered"
    assert rec["claim"] == "realizes" and "not exact" in rec["stronger_claim_failed"]
    assert Fraction(rec["given_residual"]["squared_error"]) == res.given_residual.squared_error
    assert Fraction(rec["distance_to_given"]["max_abs"]) == res.distance.max_abs
    assert rec["units_from_given_first_layer"] == res.from_given


def test_weights_distance_sees_through_symmetries_and_refuses_other_shapes():
    ref = Network.from_rows(U=[[1, -2]], V=[[1, 0], [0, 1]], b=[0, "1/2"])
    same = Network.from_rows(U=[[-1, 4]], V=[[0, 2], ["1/4", 0]], b=[1, 0])  # permuted and rescaled: same function
    assert weights_distance(same, ref).max_abs == 0 and weights_distance(same, ref).relative == 0
    flipped = Network.from_rows(U=[[1, -2]], V=[[-1, 0], [0, 1]], b=[0, "1/2"])  # a unit pointing the other way
    d = weights_distance(flipped, ref)
    assert d.max_V == 2 and d.max_U == 0 and d.relative > 0
    with pytest.raises(InvalidInput, match="cannot compare"):
        weights_distance(Network.from_rows(U=[[1]], V=[[1, 0]]), ref)


def test_certify_weights_noisy_labels_give_no_certificate(inst):
    Y = inst.float_labels().copy()
    Y[0, 0] += 0.5
    noisy = Instance.from_arrays(inst.float_inputs(), Y)
    with pytest.raises(NotRealizable, match="exact recovery from the labels with their first layer as proposal failed"):
        certify_weights(noisy, inst.planted.U.to_float(), inst.planted.V.to_float())


def test_certify_reports_the_exact_residual_of_one_changed_label(inst):
    Y = inst.labels.to_fractions()
    Y[7][2] += Fraction(1, 4)
    with pytest.raises(NotRealizable, match="1 of 900 label entries differ") as e:
        certify_weights(Instance(inst.inputs, QMatrix.from_rows(Y)), inst.planted, as_given=True)
    ev = e.value.evidence
    assert ev["squared_error"] == "1/16" and ev["max_abs_error"] == "1/4" and ev["worst"] == ev["first"] == (7, 2)


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
    assert code == 1 and "certified instead" in out and "independent checker" in out
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
    import pickle

    (tmp_path / "m.pt").write_bytes(pickle.dumps({"0.weight": [[1.0]]}, protocol=2))  # a pickle naming no code
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
    assert main(["certify", str(ip), "--weights", str(wp), "-o", str(tmp_path / "c2.json")]) == 1  # recovered
    assert main(["certify", str(ip), "--weights", str(wp), "-o", str(tmp_path / "c2.json"), "--require", "realizes"]) == 0
    wp.write_text('{"U": [[1]]}')
    assert main(["certify", str(ip), "--weights", str(wp)]) == 2
    wp.write_text('{"U": [[1], oops')
    assert main(["certify", str(ip), "--weights", str(wp)]) == 2


def test_safetensors_weights_read_with_the_numpy_api(capsys, tmp_path, inst):
    """A .safetensors file (numpy API: no torch, no pickle) holding a biased model's layers."""
    st = pytest.importorskip("safetensors.numpy")  # in the test extra
    U, V = inst.planted.U.to_float(), inst.planted.V.to_float().astype(np.float32)
    path = tmp_path / "model.safetensors"
    st.save_file({"0.weight": V, "0.bias": np.zeros(3, np.float32), "2.weight": U}, str(path))
    net = read_weights(path)
    assert net.V.to_float().tolist() == V.astype(np.float64).tolist() and not net.has_bias
    ip = write_instance(inst, tmp_path / "i.json")
    code, out, _ = run(capsys, "certify", ip, "--weights", path, "-o", tmp_path / "c.json")
    assert code == 0 and "certified as given" in out  # small integer weights survive float32 exactly
    # layers are ordered by their names, numbers compared as numbers (the file keeps no order)
    st.save_file({"layer10.weight": U, "layer2.weight": V, "layer2.bias": np.arange(3.0)}, str(path))
    U2, V2, b2, c2 = load_float_weights(path)
    assert U2.shape == (3, 3) and V2.shape == (3, 5) and b2.tolist() == [0.0, 1.0, 2.0] and c2 is None
    assert read_weights(path).b_fractions() == [0, 1, 2]
    st.save_file({"a.weight": V, "b.weight": U, "b.bias": np.ones(3)}, str(path))
    with pytest.raises(InvalidInput, match="cannot be read from their names"):  # a < b is no order: asked for
        read_weights(path)
    assert read_weights(path, layers=["a", "b"]).c_fractions() == [1, 1, 1]  # the second layer's bias is c
    st.save_file({"a.weight": V, "b.weight": U, "b.bias": np.ones(4)}, str(path))
    with pytest.raises(InvalidInput, match=r"b.bias has shape \(4,\); b.weight has 3 rows"):
        load_float_weights(path, ["a", "b"])
    path.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}......")
    with pytest.raises(InvalidInput, match="not valid JSON"):
        load_float_weights(path)


def test_safetensors_need_no_safetensors_package(monkeypatch, tmp_path):
    """The reader is NumPy only (io/safetensors_file.py): the package's absence changes nothing."""
    import sys

    st = pytest.importorskip("safetensors.numpy")
    st.save_file({"0.weight": np.eye(2), "2.weight": np.ones((1, 2))}, str(tmp_path / "m.safetensors"))
    monkeypatch.setitem(sys.modules, "safetensors.numpy", None)
    monkeypatch.setitem(sys.modules, "safetensors", None)
    assert read_weights(tmp_path / "m.safetensors").k == 2


def test_certify_a_json_weights_file_that_is_not_an_object(capsys, tmp_path, inst):
    ip = write_instance(inst, tmp_path / "i.json")
    for text in ("[1, 2]", "[[1, 2], [3, 4]]", '"U"'):
        (tmp_path / "w.json").write_text(text)
        code, out, err = run(capsys, "certify", ip, "--weights", tmp_path / "w.json")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "torch" not in err
        assert "weights must be a JSON object with 'U' and 'V'" in err or "not valid JSON" in err
