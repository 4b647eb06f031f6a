"""Label noise in planted instances: variance, exactness, reproducibility, files, bad input."""

import json
import math

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.exact.matrix import QMatrix
from exactrelu.instances import planted, read_instance, write_instance
from exactrelu.instances.noise import NOISE_KINDS, NoiseModel, add_exact, parse_noise


@pytest.mark.parametrize("kind", NOISE_KINDS)
def test_noise_has_the_stated_variance(kind):
    # fixed seed, wide bound: 60 000 entries; the standard deviation is the scale within 5 %
    E = NoiseModel(kind, 0.3).draw(np.random.default_rng(7), (12000, 5))
    assert abs(float(np.sqrt(np.mean(E * E))) / 0.3 - 1) < 0.05
    if kind != "adversarial":  # i.i.d. kinds are mean zero
        assert abs(float(E.mean())) < 0.3 * 5 / math.sqrt(E.size)


def test_adversarial_noise_is_rank_one_and_concentrated():
    E = NoiseModel("adversarial", 1.0).draw(np.random.default_rng(0), (1000, 4))
    s = np.linalg.svd(E, compute_uv=False)
    assert s[1] < 1e-9 * s[0]
    assert np.count_nonzero(np.abs(E).sum(axis=1)) == 100


def test_noisy_labels_are_exact_and_keep_the_clean_ones():
    clean = planted(d=4, k=2, m=3, n=60, seed=5)
    noisy = planted(d=4, k=2, m=3, n=60, seed=5, noise="laplace:0.1")
    assert noisy.clean_labels == clean.labels  # same seed: same inputs, weights and clean labels
    assert noisy.planted.equivalent(clean.planted)
    E = noisy.noise
    assert QMatrix.from_numpy(E.to_float()) == E  # the noise is exactly a float64 matrix (taken exactly)
    assert add_exact(noisy.clean_labels, E) == noisy.labels
    assert noisy.noise.to_float().std() > 0
    again = planted(d=4, k=2, m=3, n=60, seed=5, noise=("laplace", 0.1))
    assert again.labels == noisy.labels and again.noise_model == noisy.noise_model


def test_instance_file_keeps_clean_labels_and_noise(tmp_path):
    inst = planted(d=3, k=2, m=2, n=30, seed=1, noise="student-t3:0.2")
    back = read_instance(write_instance(inst, tmp_path / "i.json"))
    assert back.labels == inst.labels and back.clean_labels == inst.clean_labels
    assert back.noise_model == NoiseModel("student-t3", 0.2) and back.noise == inst.noise
    bare = read_instance(write_instance(inst, tmp_path / "b.json", include_planted=False))
    assert bare.clean_labels is None and bare.noise is None and bare.planted is None


@pytest.mark.parametrize("planted_field, message", [
    ({"extra": 1}, "unknown fields"),
    ({"clean_labels": "x"}, "clean_labels"),
    ({"clean_labels": [["1"]]}, "clean labels are 1 x 1"),
    ({"noise": {"kind": "gaussian"}}, "exactly 'kind' and 'scale'"),
    ({"noise": {"kind": "pink", "scale": "1"}}, "unknown noise kind"),
])
def test_instance_reader_is_strict_about_the_planted_record(tmp_path, planted_field, message):
    inst = planted(d=2, k=1, m=1, n=4, seed=0, noise="gaussian:0.1")
    obj = json.loads(write_instance(inst, tmp_path / "i.json").read_text())
    obj["planted"].update(planted_field)
    (tmp_path / "i.json").write_text(json.dumps(obj))
    with pytest.raises(InvalidInput, match=message):
        read_instance(tmp_path / "i.json")
    obj["planted"] = []
    (tmp_path / "i.json").write_text(json.dumps(obj))
    with pytest.raises(InvalidInput, match="must be an object"):
        read_instance(tmp_path / "i.json")


@pytest.mark.parametrize("spec, message", [
    ("gaussian:-0.1", "noise scale must be a finite number >= 0 and <= "),
    ("gaussian:nan", "noise scale must be a finite number"),
    ("gaussian:inf", "noise scale must be a finite number"),
    ("gaussian", "KIND:SCALE"),
    ("cauchy:1", "unknown noise kind"),
    ("gaussian:abc", "must be a number"),
    (("gaussian", None), "must be a finite number"),
    (("gaussian", True), "must be a finite number"),
    (3, "a \\(kind, scale\\) pair"),
])
def test_bad_noise_specs(spec, message):
    with pytest.raises(InvalidInput, match=message):
        parse_noise(spec)
    with pytest.raises(InvalidInput, match=message):
        planted(d=2, k=1, m=1, n=3, noise=spec)


def test_zero_scale_is_noiseless():
    inst = planted(d=3, k=2, m=2, n=20, seed=2, noise="uniform:0")
    assert inst.labels == inst.clean_labels


def test_generate_noise_cli(capsys, tmp_path):
    out = tmp_path / "i.json"
    assert main(["generate", "-d", "3", "-k", "2", "-m", "2", "-n", "50", "--noise", "rademacher:0.5", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "label noise rademacher:0.5 (||E||_F = 5)" in text  # +-0.5 on 100 entries: exactly 5
    assert read_instance(out).noise_model == NoiseModel("rademacher", 0.5)
    assert main(["generate", "-d", "3", "-k", "2", "-m", "2", "-n", "5", "--noise", "gaussian:-1", "-o", str(out)]) == 2
    assert "noise scale" in capsys.readouterr().err


def test_exact_residual_breaks_float_ties_exactly():
    # residuals 2**60 + 1 and 2**60 round to the same float64: the exact maximum must still win
    from exactrelu.instances import Instance
    from exactrelu.network import Network
    from exactrelu.certificates.claims.residual import exact_residual

    inst = Instance(QMatrix.from_rows([[1], [1], [1]]), QMatrix.from_rows([[2**60], [2**60 + 1], [0]]))
    res = exact_residual(Network.from_rows([[0]], [[1]]), inst, max_listed=1)
    assert res.worst == (1, 0) and res.max_abs_error == 2**60 + 1
    assert res.n_failing == 2 and res.first == (0, 0) and res.failing == [(0, 0)] and not res.complete
    assert res.squared_error == 2**120 + (2**60 + 1) ** 2
