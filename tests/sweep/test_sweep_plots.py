"""Table and figures of a sweep: Wilson intervals, quartiles, the files `exactrelu sweep plot DIR` writes."""

import math

import pytest

from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.sweep import parse_spec, run_sweep
from exactrelu.sweep.plots import metric_points, plot_directory, rate_points, time_points, wilson


def row(status, n, d=4, outcome="realizes", seconds=1.0, generate=0.25):
    return {"status": status, "outcome": outcome, "params": {"n": n, "d": d}, "seconds": seconds,
            "timings": {"generate": generate}}


def test_wilson_interval_known_values():
    # Wilson (1927): p = 0.5 at n = 10 gives 0.5 -+ 0.2366 (z = 1.96)
    lo, hi = wilson(5, 10)
    assert math.isclose(lo, 0.2366, abs_tol=1e-4) and math.isclose(hi, 0.7634, abs_tol=1e-4)
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0
    assert wilson(0, 5)[1] > 0 and wilson(5, 5)[0] < 1  # never a zero-width interval at the ends
    for n in range(1, 60):  # the ends are exact (rounding left 1 - 1e-16 at n = 10, and 5e-17 for 0 of 3)
        assert wilson(n, n)[1] == 1.0 and wilson(0, n)[0] == 0.0
        assert all(lo <= k / n <= hi for k in range(n + 1) for lo, hi in [wilson(k, n)])


def test_rate_points_count_certified_and_outcomes():
    rows = [row("certified", 10), row("refused", 10), row("failed", 10), row("certified", 20, d=8),
            row("certified", 10, outcome="realizable")]
    pts = rate_points(rows, "n", ["d"], "certified")
    assert [p[:3] for p in pts[(("d", 4),)]] == [(10, 2, 3)]  # the failed row is not a trial
    assert [p[:3] for p in pts[(("d", 8),)]] == [(20, 1, 1)]
    dec = rate_points(rows, "n", [], "realizable")
    assert [p[:3] for p in dec[()]] == [(10, 1, 2), (20, 0, 1)]  # only certified rows are answers
    assert rate_points([dict(row("certified", 5), params={"d": 3})], "n", [], "certified") == {}


def test_time_points_use_certified_rows_without_generation():
    rows = [row("certified", 10, seconds=s) for s in (1.25, 2.25, 3.25, 4.25)] + [row("refused", 10, seconds=99)]
    ((x, med, q1, q3, count),) = time_points(rows, "n", [])[()]
    assert (x, med, count) == (10, 2.5, 4) and q1 < med < q3
    ((_, single, a, b, one),) = time_points([row("certified", 7, seconds=2.0)], "n", [])[()]
    assert single == a == b == 1.75 and one == 1


def test_plot_command_writes_figures(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    spec = tmp_path / "s.toml"
    spec.write_text('[sweep]\ntask = "recover"\nname = "Recovery"\nseeds = 2\n[grid]\n'
                    'size = [{d = 3, k = 2}, {d = 5, k = 2}]\nn = [8, 40]\n')
    assert main(["sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "1", "-q", "--plot"]) == 0
    first = capsys.readouterr().out
    assert main(["sweep", "plot", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert first.count("wrote ") == out.count("wrote ") == 4
    for name in ("rate_vs_n.png", "rate_vs_n.pdf", "time_vs_n.png", "time_vs_n.pdf"):
        path = tmp_path / "out" / "plots" / name
        assert f"wrote {path}" in out and path.stat().st_size > 1000
    assert (tmp_path / "out" / "plots" / "rate_vs_n.png").read_bytes()[:4] == b"\x89PNG"


def test_hardness_figures_use_density_and_variables(tmp_path):
    pytest.importorskip("matplotlib")
    spec = parse_spec('[sweep]\ntask = "hardness-random"\nseeds = 1\n[grid]\nvars = [5, 7]\ndensity = [1.0, 3.0]\n')
    run_sweep(spec, tmp_path / "h", workers=1)
    names = sorted(p.name for p in plot_directory(tmp_path / "h"))
    assert names == ["rate_vs_density.pdf", "rate_vs_density.png", "time_vs_vars.pdf", "time_vs_vars.png"]


def test_fit_sweep_plots_error_against_noise(tmp_path):
    pytest.importorskip("matplotlib")
    spec = parse_spec('[sweep]\ntask = "fit"\nseeds = 2\n[grid]\nd = 4\nk = 2\nn = 200\n'
                      'noise_scale = [0.001, 0.1]\n[options]\nmethod = "tensor"\n')
    run_sweep(spec, tmp_path / "f", workers=1)
    assert sorted(p.name for p in plot_directory(tmp_path / "f")) == ["error_vs_noise_scale.pdf", "error_vs_noise_scale.png"]


def test_metric_points_take_certified_rows():
    rows = [dict(row("certified", 10), params={"noise_scale": s}, metrics={"relative_error": e})
            for s, e in ((0.1, 0.2), (0.1, 0.4), (0.01, 0.03))]
    rows.append(dict(row("failed", 10), params={"noise_scale": 0.1}, metrics={"relative_error": 9.0}))
    pts = metric_points(rows, "noise_scale", [], "relative_error")[()]
    assert [(p[0], p[1], p[4]) for p in pts] == [(0.01, 0.03, 1), (0.1, pytest.approx(0.3), 2)]


def test_plot_refusals(tmp_path, capsys):
    with pytest.raises(InvalidInput, match="is not a sweep directory"):
        plot_directory(tmp_path)
    spec = parse_spec('[sweep]\ntask = "recover"\nseeds = 1\n[grid]\nd = 3\nk = 2\nn = 30\n')
    (tmp_path / "spec.toml").write_text(spec.text)
    with pytest.raises(InvalidInput, match="has no rows of its spec yet"):
        plot_directory(tmp_path)
    run_sweep(spec, tmp_path / "one", workers=1)
    with pytest.raises(InvalidInput, match="no standard figure for this grid"):
        plot_directory(tmp_path / "one")
    assert main(["sweep", "plot"]) == 2
    assert "give the sweep directory" in capsys.readouterr().err
