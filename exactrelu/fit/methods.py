"""The registry of fit methods: a method is one start function plus two flags.

A start function has the signature ``start(X, Y, k, *, activation, rng, bias, progress) -> Start``
(float inputs n x d, labels n x m; :class:`~exactrelu.fit._model.Start` holds U, V, b, c and
diagnostics), and ``offset=True`` when an output bias c is asked for. Adding a method is one entry here, or
one call of :func:`register_method`::

    register_method("mine", "mypackage.module:my_start", refine=True, bias=False,
                    summary="what it does and what it assumes")

``refine``: run the Levenberg-Marquardt refinement after the start (reported as its own stage);
``bias``: the method can fit hidden biases (with refinement), else ``bias=True`` is refused;
``output_bias``: its start takes ``offset=True`` and returns c, else an output bias is refused.

>>> sorted(METHODS)
['fpt', 'gradient', 'hermite', 'paper', 'tensor']
>>> METHODS["paper"].refine, METHODS["tensor"].refine
(False, True)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from ..errors import InvalidInput

__all__ = ["Method", "METHODS", "register_method", "method_names", "start_function"]


@dataclass(frozen=True)
class Method:
    """``start``: "module:function"; ``refine``: refine after it; ``bias``: can fit hidden biases; ``output_bias``:
    can fit an output bias (its start takes ``offset``)."""

    start: str
    refine: bool = True
    bias: bool = True
    summary: str = ""
    output_bias: bool = True


METHODS: dict[str, Method] = {
    "paper": Method("exactrelu.fit.paper:paper_start", refine=False, bias=False,
                    summary="COLT 2019 sub-Gaussian algorithm alone: tensor directions, signs by projection, "
                            "least-squares U (Gaussian inputs, m >= k or one output, k <= d)"),
    "tensor": Method("exactrelu.fit.paper:paper_start", refine=True, bias=True,
                     summary="the paper's algorithm, then Levenberg-Marquardt refinement (biases: in the refinement)"),
    "fpt": Method("exactrelu.fit.fpt:fpt_start", refine=True, bias=False,
                  summary="fixed-parameter algorithm for arbitrary independent noise (sketch, grid, noisy halfspaces; "
                          "k <= 3), then refinement"),
    "hermite": Method("exactrelu.fit.hermite:hermite_start", refine=False, bias=True,
                      summary="Awasthi-Tang-Vijayaraghavan 2021: Hermite tensors f_0..f_4, signs from f_0/f_1, "
                              "large-|b| units as two linear units (Gaussian inputs, ReLU, k <= d); no refinement"),
    "gradient": Method("exactrelu.fit.gradient:gradient_start", refine=True, bias=True,
                       summary="L-BFGS from random weights (restarts), then refinement; no assumption on the data"),
}


def register_method(name: str, start: str, *, refine: bool = True, bias: bool = True, summary: str = "",
                    output_bias: bool = False) -> Method:
    """Add (or replace) a fit method; ``start`` is "module:function" (imported when used)."""
    if not isinstance(name, str) or not name or name == "auto" or ":" not in start:
        raise InvalidInput(f"a fit method needs a name other than 'auto' and a 'module:function', got {name!r}, {start!r}")
    METHODS[name] = Method(start, refine, bias, summary, output_bias)
    return METHODS[name]


def method_names() -> list[str]:
    return ["auto"] + sorted(METHODS)


def start_function(name: str) -> Callable:
    """The start function of a registered method."""
    if name not in METHODS:
        raise InvalidInput(f"unknown fit method {name!r}; choose from {', '.join(method_names())}")
    mod, fn = METHODS[name].start.split(":")
    return getattr(importlib.import_module(mod), fn)
