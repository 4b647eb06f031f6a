"""The standard figures of a sweep (``exactrelu sweep plot DIR``; needs matplotlib).

* **rate**: the fraction of certified rows (or, for decision tasks, of certified answers that say
  ``realizable``) against n (or the clause density), one curve per other varying parameter, with 95%
  Wilson score intervals;
* **time**: seconds per certified task (median, quartile band) against the size (n, or the number of
  variables), on log axes;
* **error**: for approximate fits, the certified relative error (median, quartile band) against the
  noise scale, with the error against the noiseless labels dashed beside it.

Figures go to DIR/plots/ as PNG and PDF, titled from the spec's ``name`` and labeled with units and the
number of seeds per point.

>>> lo, hi = wilson(9, 10)
>>> round(lo, 3), round(hi, 3)
(0.596, 0.982)
>>> wilson(0, 0)
(nan, nan)
"""

from __future__ import annotations

import importlib.util
import math
import os
import statistics
from pathlib import Path

from ..errors import InvalidInput
from ..io.files import atomic_output
from .results import SPEC, read_rows
from .spec import Spec, parse_spec

__all__ = ["wilson", "plot_directory", "rate_points", "time_points", "metric_points", "standard_figures"]

_Z95 = 1.959963984540054
PLOTS = "plots"


def wilson(successes: int, trials: int, z: float = _Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% for the default z)."""
    if trials == 0:
        return math.nan, math.nan
    p = successes / trials
    denom = 1 + z * z / trials
    center = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # at the ends the interval is exactly [0, .] and [., 1]; rounding would leave them 1e-16 away
    lo = 0.0 if successes == 0 else max(0.0, center - half)
    hi = 1.0 if successes == trials else min(1.0, center + half)
    return lo, hi


def _series(rows: list[dict], x: str, keys: list[str]) -> dict[tuple, dict[float, list[dict]]]:
    """Rows grouped by the values of ``keys`` (one curve each), then by the value of ``x``."""
    out: dict[tuple, dict[float, list[dict]]] = {}
    for r in rows:
        p = r["params"]
        if x not in p:
            continue
        label = tuple((k, p.get(k)) for k in keys)
        out.setdefault(label, {}).setdefault(p[x], []).append(r)
    return out


def rate_points(rows: list[dict], x: str, keys: list[str], rate: str) -> dict[tuple, list[tuple]]:
    """Per curve: ``(x, successes, trials, low, high)`` sorted by x. Failed rows are left out of the trials;
    with ``rate`` an outcome, only certified rows count (the fraction of certified answers with that outcome)."""
    out = {}
    for label, by_x in _series(rows, x, keys).items():
        pts = []
        for xv, group in sorted(by_x.items()):
            if rate == "certified":
                trials = [r for r in group if r["status"] != "failed"]
                wins = sum(r["status"] == "certified" for r in trials)
            else:
                trials = [r for r in group if r["status"] == "certified"]
                wins = sum(r["outcome"] == rate for r in trials)
            pts.append((xv, wins, len(trials), *wilson(wins, len(trials))))
        out[label] = pts
    return out


def _solver_seconds(r: dict) -> float:
    return r["seconds"] - r.get("timings", {}).get("generate", 0.0)


def time_points(rows: list[dict], x: str, keys: list[str]) -> dict[tuple, list[tuple]]:
    """Per curve: ``(x, median, first quartile, third quartile, count)`` of the certified rows' seconds
    (instance generation left out)."""
    out = {}
    for label, by_x in _series([r for r in rows if r["status"] == "certified"], x, keys).items():
        pts = []
        for xv, group in sorted(by_x.items()):
            t = sorted(_solver_seconds(r) for r in group)
            q = statistics.quantiles(t, n=4, method="inclusive") if len(t) > 1 else [t[0], t[0], t[0]]
            pts.append((xv, statistics.median(t), q[0], q[2], len(t)))
        out[label] = pts
    return out


def metric_points(rows: list[dict], x: str, keys: list[str], metric: str) -> dict[tuple, list[tuple]]:
    """Per curve: ``(x, median, first quartile, third quartile, count)`` of ``metric`` over certified rows."""
    out = {}
    good = [r for r in rows if r["status"] == "certified" and r.get("metrics", {}).get(metric) is not None]
    for label, by_x in _series(good, x, keys).items():
        pts = []
        for xv, group in sorted(by_x.items()):
            v = sorted(float(r["metrics"][metric]) for r in group)
            q = statistics.quantiles(v, n=4, method="inclusive") if len(v) > 1 else [v[0], v[0], v[0]]
            pts.append((xv, statistics.median(v), q[0], q[2], len(v)))
        out[label] = pts
    return out


def _axis(varying: list[str], first: str, second: str) -> str | None:
    for key in (first, second):
        if key in varying:
            return key
    return None


_XLABEL = {"noise_scale": "noise scale (standard deviation of each label entry)", "n": "samples n",
           "vars": "variables of the formula", "density": "clauses per variable",
           "clauses": "clauses", "d": "input dimension d", "k": "hidden units k"}


def _label(label: tuple) -> str:
    return ", ".join(f"{k}={v}" for k, v in label) or "all rows"


def standard_figures(spec: Spec, rows: list[dict]) -> list[tuple[str, object]]:
    """``(name, matplotlib figure)`` for each standard figure the sweep's grid supports."""
    task, varying = spec.registered, spec.varying()
    figures = []
    x = _axis(varying, task.rate_x, task.size)
    if x is not None:
        figures.append((f"rate_vs_{x}", _rate_figure(spec, rows, x, [k for k in varying if k != x])))
    x = _axis(varying, task.size, task.rate_x)
    if x is not None:
        figures.append((f"time_vs_{x}", _time_figure(spec, rows, x, [k for k in varying if k != x])))
    if task.error is not None and "noise_scale" in varying:
        keys = [k for k in varying if k != "noise_scale"]
        figures.append(("error_vs_noise_scale", _error_figure(spec, rows, "noise_scale", keys, task.error)))
    return figures


def _figure():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    return fig, fig.add_subplot()


def _rate_figure(spec: Spec, rows: list[dict], x: str, keys: list[str]):
    fig, ax = _figure()
    rate = spec.registered.rate
    what = "certified" if rate == "certified" else f"{rate} (of certified answers)"
    curves = rate_points(rows, x, keys, rate)
    for i, (label, pts) in enumerate(curves.items()):
        dodge = 1.012 ** (i - (len(curves) - 1) / 2)  # so that coinciding points and bars stay visible
        xs = [p[0] * dodge for p in pts]
        ys = [p[1] / p[2] if p[2] else math.nan for p in pts]
        err = [[max(0.0, y - p[3]) for y, p in zip(ys, pts)], [max(0.0, p[4] - y) for y, p in zip(ys, pts)]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=_label(label))
    _log_x(ax, rows, x)
    ax.set(xlabel=_XLABEL.get(x, x), ylabel=f"fraction {what}", ylim=(-0.03, 1.03))
    _titles(fig, ax, spec, f"fraction {what} against {x}")
    ax.legend(fontsize=8, title=f"{len(spec.seeds)} seeds per point; bars: 95% Wilson intervals", title_fontsize=8)
    return fig


def _time_figure(spec: Spec, rows: list[dict], x: str, keys: list[str]):
    fig, ax = _figure()
    for label, pts in time_points(rows, x, keys).items():
        xs, med = [p[0] for p in pts], [p[1] for p in pts]
        line, = ax.plot(xs, med, marker="o", label=_label(label))
        ax.fill_between(xs, [p[2] for p in pts], [p[3] for p in pts], color=line.get_color(), alpha=0.2)
    ax.set(xscale="log", yscale="log", xlabel=_XLABEL.get(x, x),
           ylabel="seconds per certified task (median; band: quartiles)")
    _titles(fig, ax, spec, f"time to a checked certificate against {x}")
    _ticks(ax, sorted({r["params"][x] for r in rows if x in r["params"]}))
    ax.legend(fontsize=8, title=f"{len(spec.seeds)} seeds per point; solver and independent check", title_fontsize=8)
    return fig


def _error_figure(spec: Spec, rows: list[dict], x: str, keys: list[str], metric: str):
    fig, ax = _figure()
    for label, pts in metric_points(rows, x, keys, metric).items():
        xs = [p[0] for p in pts]
        line, = ax.plot(xs, [p[1] for p in pts], marker="o", label=_label(label))
        ax.fill_between(xs, [p[2] for p in pts], [p[3] for p in pts], color=line.get_color(), alpha=0.2)
        clean = metric_points(rows, x, keys, f"clean_{metric}").get(label)
        if clean:
            ax.plot([p[0] for p in clean], [p[1] for p in clean], ls="--", marker=".", color=line.get_color())
    _log_x(ax, rows, x)
    ax.set_yscale("log")
    ax.set(xlabel=_XLABEL.get(x, x), ylabel="relative error ||f(X) - Y|| / ||Y|| (median; band: quartiles)")
    _titles(fig, ax, spec, "certified residual against the noise (dashed: against the noiseless labels)")
    ax.legend(fontsize=8, title=f"{len(spec.seeds)} seeds per point; exact residuals, checked", title_fontsize=8)
    return fig


def _titles(fig, ax, spec: Spec, what: str) -> None:
    fig.suptitle(spec.name or f"exactrelu sweep: {spec.task}")
    ax.set_title(f"{spec.task}: {what}", fontsize=9)


def _log_x(ax, rows, x) -> None:
    xs = sorted({r["params"][x] for r in rows if x in r["params"]})
    if xs and min(xs) > 0 and max(xs) >= 4 * min(xs):
        ax.set_xscale("log")
        _ticks(ax, xs)


def _ticks(ax, xs) -> None:
    """On a log axis, tick the grid's own values, written plainly (not as powers of ten)."""
    from matplotlib.ticker import NullLocator

    if len(xs) <= 12:
        ax.set_xticks(xs, [f"{v:g}" for v in xs])
        ax.xaxis.set_minor_locator(NullLocator())


def plot_directory(directory: str | os.PathLike) -> list[Path]:
    """Write the standard figures of the sweep in ``directory`` to DIR/plots/ (PNG and PDF); return the paths."""
    directory = Path(directory)
    try:
        text = (directory / SPEC).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{directory} is not a sweep directory (no readable {SPEC}: {exc})") from None
    if importlib.util.find_spec("matplotlib") is None:
        raise InvalidInput("plots need matplotlib: pip install 'exactrelu[plot]'")
    spec = parse_spec(text, source=str(directory / SPEC))
    by_id = {r["id"]: r for r in read_rows(directory)}
    rows = [by_id[t.id] for t in spec.tasks() if t.id in by_id]
    if not rows:
        raise InvalidInput(f"{directory} has no rows of its spec yet")
    figures = standard_figures(spec, rows)
    if not figures:
        raise InvalidInput(f"{directory}: no standard figure for this grid (vary n, vars or density)")
    out = directory / PLOTS
    out.mkdir(exist_ok=True)
    paths = []
    for name, fig in figures:
        for ext in ("png", "pdf"):
            path = out / f"{name}.{ext}"
            with atomic_output(path, binary=True, what="plot") as fh:
                fig.savefig(fh, format=ext, dpi=150)
            paths.append(path)
    return paths
