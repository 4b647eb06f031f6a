"""``exactrelu equiv --plot FILE``: both networks along a segment through the counterexample (issue 37 item 5)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from exactrelu.cli import main
from exactrelu.equiv.plot import segment
from exactrelu.io.weights import write_weights
from exactrelu.network import Network

pytest.importorskip("matplotlib")


def _write(path, layers):
    write_weights(Network.from_layers(layers), path)
    return str(path)


@pytest.fixture
def pair(tmp_path):
    a = [([[1, -1], [2, 1]], [0, -1]), ([[1, 1], [-1, 2]], [0, 0]), ([[1, -1]], [0])]
    b = [([[1, -1], [2, 1]], [0, -1]), ([[1, 1], [-1, 2]], [0, "1/100"]), ([[1, -1]], [0])]
    return _write(tmp_path / "a.json", a), _write(tmp_path / "b.json", b), tmp_path


@pytest.mark.parametrize("extra", [[], ["--lower=-1,-1", "--upper", "1,1"], ["--lower=-1,-1", "--upper", "1,1",
                                                                              "--epsilon", "1/1000"]])
def test_a_counterexample_is_drawn(pair, capsys, extra):
    a, b, tmp = pair
    out = tmp / "diff.svg"
    assert main(["equiv", a, b, "--plot", str(out), "--json", *extra]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["plot"] == str(out) and out.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_top1_counterexample_is_drawn(tmp_path, capsys):
    a = _write(tmp_path / "a.json", [([[1], [-1]], [0, 0]), ([[1, 0], [0, 1]], [0, 0])])
    b = _write(tmp_path / "b.json", [([[1], [-1]], [0, 0]), ([[0, 1], [1, 0]], [0, 0])])
    out = tmp_path / "top.png"
    assert main(["equiv", a, b, "--top1", "--lower=-1", "--upper", "1", "--plot", str(out)]) == 1
    assert f"plot: {out}" in capsys.readouterr().out and out.read_bytes()[:4] == b"\x89PNG"


def test_no_counterexample_no_figure(pair, capsys):
    a, _, tmp = pair
    out = tmp / "same.png"
    assert main(["equiv", a, a, "--plot", str(out)]) == 0
    assert "plot: not drawn" in capsys.readouterr().out and not out.exists()


def test_a_bad_suffix_or_input_path_is_refused_before_work(pair, capsys):
    a, b, tmp = pair
    assert main(["equiv", a, b, "--plot", str(tmp / "d.txt")]) == 2
    assert "png, .pdf or .svg" in capsys.readouterr().err
    before = open(a).read()
    assert main(["equiv", a, b, "--plot", a]) == 2  # an input is never replaced
    assert open(a).read() == before


def test_the_segment_passes_through_the_witness_and_stays_in_the_box():
    rng = np.random.default_rng(0)
    for _ in range(50):
        lo = rng.uniform(-3, 0, 3)
        hi = lo + rng.uniform(0.1, 3, 3)
        w = [Fraction(float(v)) for v in rng.uniform(lo, hi)]
        a, b = segment(w, lo.tolist(), hi.tolist())
        assert np.all(a >= lo - 1e-9) and np.all(b <= hi + 1e-9) and np.all(a <= hi + 1e-9)
        wf = np.array([float(v) for v in w])
        u, v = wf - a, b - a  # w on the segment [a, b]
        assert np.linalg.norm(np.cross(u, v)) <= 1e-9 * max(1.0, np.linalg.norm(v) ** 2) and u @ v >= -1e-12
