"""The layers of a weights file and their order are read, never guessed (issue 34 item 1, issue 33 item 5).

The red team's case: a ``.safetensors`` model whose first layer's name sorts after the second's (``encoder``,
``decoder``; square shapes) was read with its layers swapped, and ``equiv`` printed a false EQUIVALENT with a
VALID certificate about the swapped network. Every reader (safetensors, PyTorch, .npz, a state dict in memory)
now takes the order from numbered names or asks for it, key order never matters, and pruned layers are read as
pruned.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.io.binary_weights import read_weights_stack
from exactrelu.io.state_dict import numbered_order
from exactrelu.io.torch_weights import state_dict_stack
from exactrelu.io.weights import as_network, read_network, read_weights, write_weights
from exactrelu.network import Network

ENC = np.array([[1.0, 2.0], [3.0, -1.0]])   # the first layer (applied first), k x d
DEC = np.array([[2.0, 1.0], [0.0, 3.0]])    # the second layer, m x k
#: the network read with its layers swapped: V = DEC, U = ENC (the false reading)
SWAPPED = Network.from_rows(U=ENC, V=DEC)
TRUE = Network.from_rows(U=DEC, V=ENC)


def save(kind: str, tmp_path, tensors: dict) -> str:
    """``tensors`` written as a weights file of ``kind`` (keys in the dict's order where the format keeps one)."""
    if kind == "safetensors":
        from safetensors.numpy import save_file

        save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(tmp_path / "m.safetensors"))
        return str(tmp_path / "m.safetensors")
    if kind == "npz":
        np.savez(tmp_path / "m.npz", **tensors)
        return str(tmp_path / "m.npz")
    torch = pytest.importorskip("torch")
    torch.save({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in tensors.items()}, tmp_path / "m.pt")
    return str(tmp_path / "m.pt")


KINDS = ["safetensors", "npz", "pt"]


def test_the_red_team_case_is_refused_then_read_as_asked(tmp_path, capsys):
    path = save("safetensors", tmp_path, {"encoder.weight": ENC, "decoder.weight": DEC})
    other = str(write_weights(SWAPPED, tmp_path / "other.json"))
    assert main(["equiv", path, other, "-o", str(tmp_path / "c.json")]) == 2  # no false EQUIVALENT
    err = capsys.readouterr().err
    assert "cannot be read from their names" in err and "--layers" in err and "decoder (2 x 2), encoder (2 x 2)" in err
    assert not (tmp_path / "c.json").exists()
    assert main(["equiv", path, other, "--layers", "encoder,decoder"]) == 1  # the model is not the swapped network
    out = capsys.readouterr().out
    assert out.startswith("NOT EQUIVALENT")
    assert f"read {path}: encoder.weight (2 x 2) -> decoder.weight (2 x 2)" in out
    assert read_weights(path, layers=["encoder", "decoder"]).evaluate_exact([[1, 1]]).to_fractions() == [[8, 6]]
    assert SWAPPED.evaluate_exact([[1, 1]]).to_fractions() == [[9, 6]]  # what the swapped reading computed


@pytest.mark.parametrize("kind", KINDS)
def test_every_reader_asks_for_an_order_its_names_do_not_show(tmp_path, kind):
    path = save(kind, tmp_path, {"encoder.weight": ENC, "decoder.weight": DEC})
    with pytest.raises(InvalidInput, match="cannot be read from their names"):
        read_weights(path)
    net = read_weights(path, layers=["encoder", "decoder.weight"])  # a name, or the name of its weight
    assert net.equivalent(TRUE) and not net.equivalent(SWAPPED)
    with pytest.raises(InvalidInput, match="leaves out \\['decoder'\\]"):
        read_weights(path, layers=["encoder"])
    with pytest.raises(InvalidInput, match="names \\['head'\\] that are not layers of the file"):
        read_weights(path, layers=["encoder", "head"])


def test_a_state_dict_in_memory_follows_the_same_rule():
    state = {"encoder.weight": ENC, "decoder.weight": DEC}
    with pytest.raises(InvalidInput, match="cannot be read from their names"):
        as_network(state)
    assert as_network(state, layers=["encoder", "decoder"]).equivalent(TRUE)


@pytest.mark.parametrize("kind", KINDS)
def test_key_order_never_matters(tmp_path, kind):
    """After prune.remove a state dict is 0.bias, 0.weight, 2.weight, 2.bias: every reader once failed on it."""
    b, c = np.array([1.0, -2.0]), np.array([0.5, 0.25])
    orders = [("0.bias", "0.weight", "2.weight", "2.bias"), ("2.bias", "2.weight", "0.weight", "0.bias")]
    value = {"0.weight": ENC, "0.bias": b, "2.weight": DEC, "2.bias": c}
    want = Network.from_rows(U=DEC, V=ENC, b=b.tolist(), c=c.tolist())
    for order in orders:
        net = read_weights(save(kind, tmp_path, {k: value[k] for k in order}))
        assert net.equivalent(want)
        assert as_network({k: value[k] for k in order}).equivalent(want)


@pytest.mark.parametrize("names, order", [
    (["2", "0"], ["0", "2"]), (["fc10", "fc2"], ["fc2", "fc10"]), (["layers.1", "layers.0"], ["layers.0", "layers.1"]),
    (["net.3", "net.0", "net.6"], ["net.0", "net.3", "net.6"]),
    (["block2.fc", "block1.fc"], ["block1.fc", "block2.fc"]),
    (["encoder", "decoder"], None), (["fc1", "out"], None), (["a1.0", "a2.1"], None), (["fc01", "fc1"], None),
    (["hidden", "output"], None),
])
def test_known_numbered_patterns_and_nothing_else(names, order):
    assert numbered_order(names) == order


def test_pruned_models_are_read_as_the_pruned_weights(tmp_path):
    torch = pytest.importorskip("torch")
    from torch.nn.utils import prune

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    prune.l1_unstructured(model[0], "weight", amount=0.5)
    prune.l1_unstructured(model[2], "bias", amount=0.5)
    assert "0.weight_orig" in model.state_dict() and "2.bias_mask" in model.state_dict()
    torch.save(model.state_dict(), tmp_path / "pruned.pt")
    net, line = read_network(tmp_path / "pruned.pt")
    assert "0.weight_orig * 0.weight_mask (3 x 4)" in line and "2.bias_orig * 2.bias_mask" in line
    want = model[0].weight.detach().double().numpy()
    assert net.V.to_float().tolist() == want.tolist() and (want == 0).sum() == 6
    assert net.c_fractions() == [float(x) for x in model[2].bias.detach()]
    assert as_network(model).equivalent(net)  # the module itself
    for m in (model[0], model[2]):
        prune.remove(m, "weight") if hasattr(m, "weight_orig") else prune.remove(m, "bias")
    torch.save(model.state_dict(), tmp_path / "removed.pt")  # keys 0.bias, 0.weight, 2.weight, 2.bias
    assert read_weights(tmp_path / "removed.pt").equivalent(net)


def test_a_broken_pruning_is_refused_by_name():
    base = {"2.weight": DEC}
    cases = [({"0.weight_orig": ENC}, "0.weight_orig without its mask"),
             ({"0.weight_orig": ENC, "0.weight_mask": np.full((2, 2), 0.5)}, "must be a 0/1 mask"),
             ({"0.weight": ENC, "0.weight_orig": ENC, "0.weight_mask": np.ones((2, 2))}, "two values for one weight"),
             ({"0.bias": np.ones(2)}, "0.bias without a weight"),
             ({"0.running_mean": np.ones(2), "0.weight": ENC}, "'0.running_mean' is not the weight or bias")]
    for extra, match in cases:
        with pytest.raises(InvalidInput, match=match):
            as_network({**extra, **base})


def test_npz_numbered_layers_any_depth(tmp_path):
    path = tmp_path / "w.npz"
    W2 = np.ones((1, 2))
    np.savez(path, W2=W2, b0=np.array([1.0, 0.0]), W0=ENC, W1=DEC)
    stack = read_weights_stack(path)
    assert stack.depth == 3 and stack.widths == (2, 2, 2, 1)
    assert stack.description == f"read {path}: W0 (2 x 2) + b0 -> W1 (2 x 2) -> W2 (1 x 2)"
    deep = read_weights(path)  # any depth: the deep Network, every value exact
    assert deep.widths == (2, 2, 2, 1) and deep.layers[0].b_fractions() == [1, 0]
    assert np.allclose(deep.predict(np.eye(2)), np.maximum(np.maximum(np.eye(2) @ ENC.T + [1, 0], 0) @ DEC.T, 0) @ W2.T)
    with pytest.raises(InvalidInput, match=r"depth 3 \(widths 2-2-2-1"):
        deep.U  # a two-layer consumer names the depth and the widths
    np.savez(path, W1=ENC, W2=DEC, b2=np.zeros(2))
    assert read_weights(path).equivalent(TRUE)  # from W1: the numbers are the order
    for bad, match in [({"W0": ENC, "W2": DEC}, "without gaps"), ({"W0": ENC, "W1": DEC, "b3": np.ones(2)}, "b3"),
                       ({"W0": ENC, "W1": DEC, "U": DEC}, "exactly the members U.npy and V.npy"),
                       ({"inputs": ENC, "labels": DEC}, "is an instance"),
                       ({"W0": ENC, "W01": DEC}, "numbered layers .* and other members \\['W01'\\]")]:
        np.savez(path, **bad)
        with pytest.raises(InvalidInput, match=match):
            read_weights(path)


def test_a_module_that_is_not_linear_and_relu_is_refused():
    torch = pytest.importorskip("torch")
    with pytest.raises(InvalidInput, match="Sequential\\(Linear, Tanh, Linear\\)"):
        as_network(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1)))
    deep = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Dropout(), torch.nn.Linear(3, 3),
                               torch.nn.ReLU(), torch.nn.Linear(3, 1))
    assert state_dict_stack(deep).widths == (2, 3, 3, 1)  # order from the numbers 0, 3, 5


def test_an_npy_given_as_weights_is_refused_at_once_without_torch(tmp_path):
    np.save(tmp_path / "a.npy", ENC)
    other = write_weights(TRUE, tmp_path / "o.json")
    code = ("import sys; from exactrelu.cli import main; rc = main(['equiv', sys.argv[1], sys.argv[2]]); "
            "print('torch' in sys.modules); sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.npy"), str(other)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and out.stdout.strip() == "False"
    assert out.stderr.count("\n") == 1 and "is an .npy array (one array), not a weights file" in out.stderr


@pytest.mark.parametrize("raw, match", [
    (b"", "is an empty file, not a weights file"),
    (b"hello world", "a file beginning b'hello world', not a weights file exactrelu reads"),
])
def test_a_file_of_no_known_kind_says_what_it_is(tmp_path, raw, match):
    (tmp_path / "w.dat").write_bytes(raw)
    with pytest.raises(InvalidInput, match=match):
        read_weights(tmp_path / "w.dat")


def test_a_zip_that_is_no_weights_file_names_its_members(tmp_path):
    import zipfile

    with zipfile.ZipFile(tmp_path / "w.zip", "w") as z:
        z.writestr("readme.txt", "hi")
    with pytest.raises(InvalidInput, match="zip archive of neither .npy arrays .* \\['readme.txt'\\]"):
        read_weights(tmp_path / "w.zip")


def test_every_verdict_names_the_layers_it_read(tmp_path, capsys):
    path = save("safetensors", tmp_path, {"fc2.weight": DEC, "fc1.weight": ENC, "fc1.bias": np.array([1.0, 0.0])})
    inst_net = Network.from_rows(U=DEC, V=ENC, b=[1, 0])
    json_path = write_weights(inst_net, tmp_path / "w.json")
    assert main(["equiv", path, str(json_path), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["read"] == [f"read {path}: fc1.weight (2 x 2) + fc1.bias -> fc2.weight (2 x 2)",
                              f"read {json_path}: V (2 x 2) + b -> U (2 x 2)"]
    assert main(["minimize", path, "-o", str(tmp_path / "small.json")]) == 0
    assert f"read {path}: fc1.weight" in capsys.readouterr().out
    from exactrelu.instances import Instance, write_instance

    X = [[1, 2], [-1, 0], [3, 1], [0, -2]]
    inst = Instance.from_arrays(X, inst_net.evaluate_exact(X).to_fractions())
    ip = write_instance(inst, tmp_path / "i.json")
    assert main(["certify", str(ip), "--weights", path, "-o", str(tmp_path / "c.json")]) == 0
    assert f"read {path}: fc1.weight (2 x 2) + fc1.bias -> fc2.weight (2 x 2)" in capsys.readouterr().out
