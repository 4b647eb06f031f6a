"""``exactrelu export`` (issue 33 item 4): certified networks out again, every rounding stated exactly.

The safetensors and ONNX round trips run without torch (CI has none); the PyTorch round trip (train -> certify ->
export -> load -> same predictions) runs where torch is installed."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.io.export import DTYPES, affine_layers, export_network, round_to, rounded_layers
from exactrelu.io.weights import read_weights, write_weights
from exactrelu.network import Activation, Network

NET = Network.from_rows([[2, "-1/4"], ["1/2", 3]], [[1, 0, -2], [0, "3/8", 1]], b=["1/2", -1], c=[3, "-5/4"])
THIRDS = Network.from_rows([[1, "1/3"]], [["2/3", 1], [0, 1]], b=["1/5", 0], c=["1/7"])


def _forward(arrays, X):
    h = X
    for i, (W, b) in enumerate(arrays):
        h = h @ W.T.astype(np.float64) + b.astype(np.float64)
        if i < len(arrays) - 1:
            h = np.maximum(h, 0.0)
    return h


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_round_to_is_the_nearest_float(x):
    """Exactly rounded: float64 values stay themselves; float32 agrees with NumPy's (single) rounding of a float64."""
    assert round_to(Fraction(x), "float64") == x
    if abs(x) < float(np.finfo(np.float32).max):
        assert round_to(Fraction(x), "float32") == float(np.float32(x))


@settings(max_examples=200, deadline=None)
@given(st.fractions(max_denominator=10**30).filter(lambda q: abs(q) < 10**30))
def test_round_to_picks_the_nearer_neighbour(q):
    for dtype in DTYPES:
        f = Fraction(round_to(q, dtype))
        up, down = (Fraction(float(np.nextafter(DTYPES[dtype][3](f), DTYPES[dtype][3](s * np.inf)))) for s in (1, -1))
        assert abs(f - q) <= abs(up - q) and abs(f - q) <= abs(down - q)


def test_round_to_ties_subnormals_and_overflow():
    assert round_to(Fraction(2**24 + 1), "float32") == 2**24  # a tie: to the even significand
    assert round_to(Fraction(2**24 + 3), "float32") == 2**24 + 4
    tiny = Fraction(1, 2**149)  # the smallest float32 subnormal
    assert round_to(tiny, "float32") == float(np.float32(2.0**-149)) and round_to(tiny / 2, "float32") == 0.0
    assert round_to(3 * tiny / 2, "float32") == 2 * float(tiny)  # a tie between 1 and 2 subnormal steps: even
    with pytest.raises(InvalidInput, match="does not fit float32"):
        round_to(Fraction(2**128), "float32")


def test_the_rounding_is_stated_exactly():
    arrays, rep = rounded_layers(affine_layers(NET), "float32")
    assert rep.exact and rep.count == 6 + 2 + 4 + 2 and "exact: all 14 values" in rep.text()
    arrays, rep = rounded_layers(affine_layers(THIRDS), "float32")
    errors = {abs(Fraction(round_to(x)) - x) for x in (Fraction(2, 3), Fraction(1, 5), Fraction(1, 3), Fraction(1, 7))}
    assert not rep.exact and rep.rounded == 4 and rep.worst == max(errors)
    assert f"largest rounding error {rep.worst}" in rep.text()
    with pytest.raises(InvalidInput, match="dtype must be"):
        rounded_layers(affine_layers(NET), "float16")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_safetensors_round_trip_without_torch(tmp_path, dtype):
    path = tmp_path / "net.safetensors"
    export_network(NET, path, dtype=dtype)
    assert read_weights(path).equivalent(NET)  # dyadic weights: exact in either dtype, read back exactly
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    state = safetensors_numpy.load_file(str(path))  # the safetensors package reads what we wrote by hand
    assert list(state) == ["0.weight", "0.bias", "2.weight", "2.bias"] and state["0.weight"].dtype == np.dtype(dtype)
    X = np.random.default_rng(0).standard_normal((50, 3))
    arrays = [(state["0.weight"], state["0.bias"]), (state["2.weight"], state["2.bias"])]
    assert np.allclose(_forward(arrays, X), NET.predict(X), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_onnx_round_trip_with_the_reference_evaluator(tmp_path, dtype):
    onnx = pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator

    path = tmp_path / "net.onnx"
    export_network(THIRDS, path, dtype=dtype)
    onnx.checker.check_model(onnx.load(str(path)))
    X = np.random.default_rng(1).standard_normal((40, 2)).astype(dtype)
    out = ReferenceEvaluator(str(path)).run(None, {"x": X})[0]
    arrays, _ = rounded_layers(affine_layers(THIRDS), dtype)
    assert np.allclose(out, _forward(arrays, X.astype(np.float64)), rtol=1e-5 if dtype == "float32" else 1e-12)
    back = read_weights(path)  # the project's ONNX reader reads the rounded values, exactly
    assert back.V.to_fractions() == rounded_layers(affine_layers(THIRDS), dtype)[1].values[0][0]


def test_deeper_networks_use_the_same_writers(tmp_path):
    """Any ordered list of affine layers: three here (two ReLUs), no code per depth."""
    onnx = pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator

    class Deep:
        activation = None
        layers = [([[1, -1], [2, 0]], [0, 1]), ([[1, 1], [-1, 2], [0, 1]], None), ([[1, 2, 3]], ["1/2"])]

    for suffix in (".safetensors", ".onnx"):
        export_network(Deep(), tmp_path / f"deep{suffix}")
    X = np.random.default_rng(2).standard_normal((20, 2)).astype(np.float32)
    arrays, _ = rounded_layers(affine_layers(Deep()), "float32")
    assert len(arrays) == 3
    out = ReferenceEvaluator(str(tmp_path / "deep.onnx")).run(None, {"x": X})[0]
    assert np.allclose(out, _forward(arrays, X.astype(np.float64)), rtol=1e-6)
    keys = json.loads((tmp_path / "deep.safetensors").read_bytes()[8:].split(b"}}")[0] + b"}}")
    assert [k for k in keys if k != "__metadata__"] == ["0.weight", "0.bias", "2.weight", "2.bias", "4.weight",
                                                          "4.bias"]
    # the command reads a binary file of any depth (its layer stack) and writes it again, here as ONNX
    assert main(["export", str(tmp_path / "deep.safetensors"), "-o", str(tmp_path / "again.onnx")]) == 0
    again = ReferenceEvaluator(str(tmp_path / "again.onnx")).run(None, {"x": X})[0]
    assert np.array_equal(again, out)



def test_a_deep_json_network_goes_out_and_back_exactly(tmp_path, capsys):
    """A depth-3 exactrelu network (``Network.from_layers``, weights JSON ``"layers"``): exported as float64
    safetensors (dyadic values: exact, said so) and read back by the project's reader as the same network."""
    from exactrelu.io.weights import read_network

    deep = Network.from_layers([([[1, -2], ["1/2", 3]], [1, "-1/4"]), ([[1, 1]], ["3/8"]), ([[2], [-1]], [3, 0])])
    src, out = tmp_path / "deep.json", tmp_path / "deep.safetensors"
    src.write_text(json.dumps(deep.to_json()), encoding="utf-8")
    assert main(["export", str(src), "-o", str(out), "--dtype", "float64"]) == 0
    said = capsys.readouterr().out
    assert "nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1), nn.ReLU(), nn.Linear(1, 2)" in said
    assert "exact: all 13 values are float64 numbers (nothing rounded)" in said
    back, _ = read_network(out)
    assert back.depth == 3 and back.layers == deep.layers

def _without(monkeypatch, *names):
    """Imports of these packages fail (as where they are not installed)."""
    import builtins

    real = builtins.__import__

    def guarded(name, *args, **kwargs):
        if name.split(".")[0] in names:
            raise ImportError(f"no {name} here")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", guarded)


def test_refusals(tmp_path, monkeypatch):
    with pytest.raises(InvalidInput, match="cannot tell the format"):
        export_network(NET, tmp_path / "net.txt")
    power = Network(NET.U, NET.V, Activation.power(2), NET.b, NET.c)
    with pytest.raises(InvalidInput, match="no layer for"):
        export_network(power, tmp_path / "net.onnx")
    big = Network.from_rows([[1]], [[2**200]])
    with pytest.raises(InvalidInput, match="does not fit float32"):
        export_network(big, tmp_path / "big.safetensors")
    _without(monkeypatch, "torch", "onnx")
    with pytest.raises(InvalidInput, match=r"needs PyTorch .*\.safetensors"):
        export_network(NET, tmp_path / "net.pt")
    with pytest.raises(InvalidInput, match="needs the onnx package"):
        export_network(NET, tmp_path / "net.onnx")
    assert not (tmp_path / "net.pt").exists() and not (tmp_path / "net.onnx").exists()


def test_cli_export(tmp_path, capsys):
    src = tmp_path / "net.json"
    write_weights(THIRDS, src)
    out = tmp_path / "net.safetensors"
    assert main(["export", str(src), "-o", str(out), "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["ok"] and rec["rounded"] == 4 and not rec["exact"] and rec["largest_rounding_error"].count("/") == 1
    assert main(["export", str(src), "-o", str(src)]) == 2
    assert "it is an input of this command" in capsys.readouterr().err
    assert main(["export", str(src), "-o", str(tmp_path / "net.h5")]) == 2
    assert "cannot tell the format" in capsys.readouterr().err


def test_pytorch_round_trip_train_certify_export_load(tmp_path):
    """Issue 33 item 4: PyTorch's default model trained on exact labels, certified, exported, loaded: the same
    predictions."""
    torch = pytest.importorskip("torch")
    from exactrelu.instances import planted
    from exactrelu.recover.given_weights import certify_weights

    inst = planted(4, 2, 2, 800, seed=4, bias=1.0, output_bias=1.0, input_bits=10)
    X = inst.float_inputs()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.ReLU(), torch.nn.Linear(2, 2)).double()
    p = inst.planted
    with torch.no_grad():  # trained from near the teacher: a float model close to the exact labels
        model[0].weight[:] = torch.tensor(p.V.to_float()) + 1e-3
        model[0].bias[:] = torch.tensor(p.b.to_float()[:, 0]) - 1e-3
        model[2].weight[:] = torch.tensor(p.U.to_float()) + 1e-3
        model[2].bias[:] = torch.tensor(p.c.to_float()[:, 0])
    opt = torch.optim.LBFGS(model.parameters(), max_iter=200)
    Xt, Yt = torch.tensor(X), torch.tensor(inst.float_labels())

    def closure():
        opt.zero_grad()
        loss = ((model(Xt) - Yt) ** 2).mean()
        loss.backward()
        return loss

    opt.step(closure)
    res = certify_weights(inst, model)
    assert res.certificate["claim"] == "realizes" and res.network.has_output_bias
    cert = tmp_path / "cert.json"
    cert.write_text(json.dumps(res.certificate))
    assert main(["export", str(cert), "-o", str(tmp_path / "net.pt")]) == 0
    fresh = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.ReLU(), torch.nn.Linear(2, 2))  # the default model
    fresh.load_state_dict(torch.load(tmp_path / "net.pt"))
    arrays, rep = rounded_layers(affine_layers(res.network), "float32")
    with torch.no_grad():
        got = fresh(torch.tensor(X, dtype=torch.float32)).numpy()
    assert np.allclose(got, _forward(arrays, X), rtol=1e-5, atol=1e-5)
    assert np.allclose(got, inst.float_labels(), rtol=1e-5, atol=1e-5)  # the certified labels, to float32
