"""Deep networks in binary weights files (issue 37, item 0): PyTorch, safetensors and .npz read at any depth."""

from __future__ import annotations

import json

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.io.weights import read_network, weights_json

RNG = np.random.default_rng(37)
LAYERS = [(RNG.standard_normal((4, 3)), RNG.standard_normal(4)), (RNG.standard_normal((3, 4)), RNG.standard_normal(3)),
          (RNG.standard_normal((2, 3)), None)]


def _json(tmp_path):
    from exactrelu.network import Network

    path = tmp_path / "deep.json"
    path.write_text(json.dumps(weights_json(Network.from_layers(LAYERS))))
    return path


def test_npz_deep_network_is_equivalent_to_its_json_and_minimizes(tmp_path, capsys):
    path = tmp_path / "deep.npz"
    arrays = {f"W{i}": W for i, (W, _) in enumerate(LAYERS)}
    arrays.update({f"b{i}": b for i, (_, b) in enumerate(LAYERS) if b is not None})
    np.savez(path, **arrays)
    net, line = read_network(path)
    assert net.widths == (3, 4, 3, 2) and line == f"read {path}: W0 (4 x 3) + b0 -> W1 (3 x 4) + b1 -> W2 (2 x 3)"
    assert main(["equiv", str(path), str(_json(tmp_path))]) == 0
    assert "EQUIVALENT" in capsys.readouterr().out
    assert main(["minimize", str(path), "-o", str(tmp_path / "small.json")]) == 0


def test_torch_and_safetensors_deep_sequentials(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3), torch.nn.ReLU(),
                                torch.nn.Linear(3, 2, bias=False)).double()
    with torch.no_grad():
        for layer, (W, b) in zip(model[::2], LAYERS):
            layer.weight.copy_(torch.from_numpy(W))
            if b is not None:
                layer.bias.copy_(torch.from_numpy(b))
    pt = tmp_path / "deep.pt"
    torch.save(model.state_dict(), pt)
    assert main(["equiv", str(pt), str(_json(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "read " + str(pt) + ": 0.weight (4 x 3) + 0.bias -> 2.weight (3 x 4) + 2.bias -> 4.weight (2 x 3)" in out
    safetensors = pytest.importorskip("safetensors.torch")
    st = tmp_path / "deep.safetensors"
    safetensors.save_file(model.state_dict(), str(st))
    net, _ = read_network(st)
    x = RNG.standard_normal((6, 3))
    assert np.allclose(net.predict(x), model(torch.from_numpy(x)).detach().numpy())
    assert main(["equiv", str(st), str(pt)]) == 0
