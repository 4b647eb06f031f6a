"""The figure of ``exactrelu equiv --plot FILE``: both networks along a segment through the counterexample.

The segment passes through the exact witness w in the direction from the centre of the domain (the box's centre, or
the origin on R^d) to w (the first axis when w is that centre). On a box it is the whole chord of the box along that
direction; on R^d it runs from ``w - s u`` to ``w + s u`` with u of unit length and ``s = max(|w|, 1)``. The upper
panel draws the output where the networks differ most at w (for ``--top1``: the largest class of each network at
w) for both networks; the lower panel draws their difference (``--epsilon E``: with the band ``[-E, E]``), or for
``--top1`` the largest class of each along the segment. Values are floats, for reading: the claim and its exact
values are in the certificate.

>>> [v.tolist() for v in segment([3, 4], None, None)]
[[0.0, 0.0], [6.0, 8.0]]
>>> [v.tolist() for v in segment([0, 0], [-1, -2], [1, 2])]
[[-1.0, 0.0], [1.0, 0.0]]
"""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import InvalidInput
from ..io.files import atomic_output
from ..network import Network

__all__ = ["segment", "plot_counterexample", "require_plot"]

#: points of the segment at which both networks are evaluated (floats, for the figure only)
POINTS = 801


def require_plot(path: str | Path) -> str:
    """The figure's format from ``path``'s suffix; InvalidInput (exit 2, before any work) for another suffix or
    when matplotlib is not installed.

    >>> require_plot("figure.PDF")
    'pdf'
    """
    suffix = Path(path).suffix
    if suffix.lower() not in (".png", ".pdf", ".svg"):
        raise InvalidInput(f"--plot {path}: the figure is written as .png, .pdf or .svg, not {suffix or 'no suffix'}")
    if importlib.util.find_spec("matplotlib") is None:
        raise InvalidInput("--plot needs matplotlib: pip install 'exactrelu[plot]'")
    return suffix.lower().lstrip(".")


def segment(witness, lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """The ends (a, b) of the segment through ``witness`` drawn by :func:`plot_counterexample` (floats)."""
    w = np.array([float(Fraction(v)) for v in witness])
    box = lower is not None
    lo = np.array([float(Fraction(v)) for v in lower]) if box else None
    hi = np.array([float(Fraction(v)) for v in upper]) if box else None
    centre = (lo + hi) / 2 if box else np.zeros_like(w)
    u = w - centre
    if not np.any(u):
        u = np.eye(len(w))[0]
    u = u / np.linalg.norm(u)
    if not box:
        s = max(float(np.linalg.norm(w)), 1.0)
        return w - s * u, w + s * u
    moving = u != 0  # the chord of the box: the t with lo <= w + t u <= hi on every moving coordinate
    ends = np.stack([(lo - w)[moving] / u[moving], (hi - w)[moving] / u[moving]])
    t0, t1 = float(np.max(np.min(ends, axis=0))), float(np.min(np.max(ends, axis=0)))
    return w + min(t0, 0.0) * u, w + max(t1, 0.0) * u


def plot_counterexample(net1: Network, net2: Network, witness, values, path: str | Path, *, lower=None,
                        upper=None, epsilon=None, top1: bool = False, names=("NET1", "NET2")) -> Path:
    """Draw both networks along the segment through ``witness`` (exact outputs ``values`` there) and write the
    figure to ``path`` (its suffix picks the format: .png, .pdf, .svg); returns the path.

    >>> import tempfile, os
    >>> a = Network.from_layers([([[1]], None), ([[1]], None)])            # relu(x)
    >>> b = Network.from_layers([([[1]], [-1]), ([[1]], None)])            # relu(x - 1)
    >>> out = os.path.join(tempfile.mkdtemp(), "diff.png")
    >>> plot_counterexample(a, b, [Fraction(2)], ([Fraction(2)], [Fraction(1)]), out).name
    'diff.png'
    """
    fmt = require_plot(path)
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    a, b = segment(witness, lower, upper)
    w = np.array([float(Fraction(v)) for v in witness])
    length = float(np.linalg.norm(b - a)) or 1.0
    t = np.linspace(0.0, 1.0, POINTS)
    X = a[None, :] + t[:, None] * (b - a)[None, :]
    F, G = net1.predict(X), net2.predict(X)
    at = float(np.linalg.norm(w - a)) / length  # where the witness lies on the segment
    fv = [float(v) for v in values[0]]
    gv = [float(v) for v in values[1]]
    fig, (top, low) = plt.subplots(2, 1, figsize=(7, 6), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    if top1:
        r1, r2 = int(np.argmax(fv)), int(np.argmax(gv))
        for r in sorted({r1, r2}):
            top.plot(t, F[:, r], "-", label=f"{names[0]}, output {r}")
            top.plot(t, G[:, r], "--", label=f"{names[1]}, output {r}")
        low.step(t, np.argmax(F, axis=1), where="mid", label=f"largest class of {names[0]}")
        low.step(t, np.argmax(G, axis=1), "--", where="mid", label=f"largest class of {names[1]}")
        low.set_ylabel("largest class")
        low.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    else:
        r = int(np.argmax([abs(x - y) for x, y in zip(fv, gv)]))
        top.plot(t, F[:, r], "-", label=f"{names[0]}, output {r}")
        top.plot(t, G[:, r], "--", label=f"{names[1]}, output {r}")
        low.plot(t, F[:, r] - G[:, r], "-", color="C3", label="difference")
        if epsilon is not None:
            e = float(Fraction(epsilon))
            low.axhspan(-e, e, color="0.85", label=f"|difference| <= {epsilon}")
        low.axhline(0.0, color="0.5", lw=0.8)
        low.set_ylabel(f"{names[0]} - {names[1]}, output {r}")
        top.plot([at, at], [fv[r], gv[r]], "o", color="k", ms=4, label="counterexample (exact in the certificate)")
    for ax in (top, low):
        ax.axvline(at, color="k", lw=0.6, ls=":")
        ax.legend(fontsize=8, loc="best")
    where = "the box's chord" if lower is not None else "a segment of R^d"
    top.set_title(f"{names[0]} against {names[1]} along {where} through the counterexample", fontsize=10)
    low.set_xlabel(f"position on the segment (0: x = {_short(a)}; 1: x = {_short(b)})", fontsize=9)
    fig.tight_layout()
    with atomic_output(path, binary=True, what="plot") as fh:
        fig.savefig(fh, format=fmt, dpi=150)
    plt.close(fig)
    return path


def _short(x: np.ndarray) -> str:
    shown = ", ".join(f"{v:.3g}" for v in x[:2])
    return f"({shown}{', ...' if len(x) > 2 else ''})"
