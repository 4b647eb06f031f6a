"""The parameters a sweep spec may name, each with its check and its bounds.

Every value of a spec passes through one of these checks before any task runs, so that a typo or
a hostile value costs one line and exit 2, never a worker's time. A check returns the value in its
canonical form (``"power:2"`` for ``"Power2"``) or raises :class:`InvalidInput` naming the key.

>>> PARAMS["n"].check(100, "[grid] n")
100
>>> PARAMS["activation"].check("Power2", "[grid] activation")
'power:2'
>>> PARAMS["n"].check(0, "[grid] n")
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: [grid] n must be an integer from 1 to 1000000000, got 0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..errors import InvalidInput
from ..limits import check_entries
from ..validation import check_integer, check_number

__all__ = ["Param", "PARAMS", "MAX_TASKS", "check_point", "boolean"]

#: At most this many tasks in one spec (grid points x seeds).
MAX_TASKS = 100_000


@dataclass(frozen=True)
class Param:
    """One spec parameter: ``check(value, where)`` returns the canonical value or raises."""

    check: Callable[[Any, str], Any]
    doc: str


def _integer(lo: int, hi: int) -> Callable[[Any, str], int]:
    def check(v, where):
        return check_integer(v, where, minimum=lo, maximum=hi)
    return check


def _number(lo: float, hi: float) -> Callable[[Any, str], float]:
    def check(v, where):
        check_number(v, where, minimum=lo, maximum=hi)
        return v
    return check


def _choice(*values: str) -> Callable[[Any, str], str]:
    def check(v, where):
        if v not in values:
            raise InvalidInput(f"{where}: expected one of {', '.join(map(repr, values))}, got {v!r}")
        return v
    return check


def boolean(v, where):
    """Check a TOML boolean."""
    if not isinstance(v, bool):
        raise InvalidInput(f"{where}: expected true or false, got {v!r}")
    return v


def _bias_class(v, where):
    """A model class as ``--bias`` names it: true / 'both' (hidden and output biases), 'hidden', 'output', false."""
    if isinstance(v, bool) or v in ("both", "hidden", "output"):
        return v
    raise InvalidInput(f"{where}: expected true, false, 'both', 'hidden' or 'output', got {v!r}")


def _activation(v, where):
    from ..network import Activation

    if not isinstance(v, str):
        raise InvalidInput(f"{where}: expected 'relu' or 'power:C', got {v!r}")
    try:
        act = Activation.parse(v)
    except InvalidInput:
        raise InvalidInput(f"{where}: expected 'relu' or 'power:C', got {v!r}") from None
    if act.degree > 16:
        raise InvalidInput(f"{where}: expected a degree of at most 16, got {v!r}")
    return str(act)


def _inputs(v, where):
    from ..instances import INPUT_DISTRIBUTIONS

    return _choice(*INPUT_DISTRIBUTIONS)(v, where)


def _noise(v, where):
    from ..instances.noise import NOISE_KINDS

    return _choice(*NOISE_KINDS)(v, where)


def _route(v, where):
    from ..recover.front_door import ROUTES

    return _choice(*ROUTES)(v, where)


PARAMS: dict[str, Param] = {
    # planted instances (exactrelu.instances.planted)
    "d": Param(_integer(1, 10_000), "input dimension"),
    "k": Param(_integer(1, 1_000), "hidden units"),
    "m": Param(_integer(1, 10_000), "outputs (default: k)"),
    "n": Param(_integer(1, 10**9), "samples (the instance must fit the memory a worker has: an estimate)"),
    "activation": Param(_activation, "'relu' or 'power:C'"),
    "inputs": Param(_inputs, "input distribution (gaussian, uniform, laplace, rademacher-mixture, integer)"),
    "weights": Param(_choice("integer", "dyadic"), "planted weights: integers or quarters"),
    "weight_bound": Param(_integer(1, 1_000_000), "planted weights in [-B, B]"),
    "input_bits": Param(_integer(0, 40), "round inputs to multiples of 2**-B"),
    "bias": Param(_number(0, 1e6), "hidden biases drawn in [-s, s] (quarters); 0: none"),
    "output_bias": Param(_number(0, 1e6), "an output bias drawn in [-s, s] (quarters); 0: none"),
    "noise": Param(_noise, "label noise kind (exactrelu.instances.noise: gaussian, rademacher, uniform, laplace, ...)"),
    "noise_scale": Param(_number(0, 1e12), "standard deviation of the label noise"),
    "corrupt": Param(_number(0, 1), "share of the label entries corrupted (exactrelu.instances.corruption); 0: none"),
    # random formulas (exactrelu.hardness.generators)
    "vars": Param(_integer(3, 100_000), "variables of the random formula"),
    "clauses": Param(_integer(0, 1_000_000), "clauses of the random formula"),
    "density": Param(_number(0, 100), "clauses per variable (instead of clauses)"),
    "formula": Param(_choice("nae", "cnf"), "random NAE-3SAT (default) or random 3-CNF"),
    "planted_formula": Param(boolean, "keep only clauses a hidden assignment satisfies"),
    # options of the tasks
    "init": Param(_choice("auto", "search", "gradient", "tensor", "ica"), "float proposal of exact recovery"),
    "route": Param(_route, "recover: the exact route (exactrelu.recover.ROUTES)"),
    "learn_bias": Param(_bias_class, "recover, fit: the model class, as --bias: true or 'both' (hidden biases b and "
                                     "an output bias c), 'hidden', 'output', false"),
    "sparse_noise": Param(boolean, "recover: labels may have corrupted entries; certify realizes-except"),
    "refine": Param(boolean, "fit: run the refinement after the start method (default: as the method says)"),
    "try_recovery": Param(boolean, "solve: try row-span recovery before the enumeration"),
    "output_weights": Param(_choice("given", "unknown"), "decide: the planted U is given, or unknown (m = 1)"),
    "engine": Param(_choice("auto", "lazy", "tree"), "decide: the decision procedure"),
    "method": Param(_choice("auto", "exact"), "decide: LP method"),
    "time_limit": Param(_number(0.001, 1e6), "decide: seconds before giving up (the row is refused)"),
    "max_nodes": Param(_integer(1, 10**9), "decide: search nodes or solver rounds before giving up"),
}


def check_point(point: dict[str, Any], where: str) -> None:
    """Bounds that involve several parameters of one task (checked on every grid point)."""
    if ("noise" in point) != ("noise_scale" in point):
        raise InvalidInput(f"{where}: give both noise (the kind) and noise_scale, or neither")
    if {"n", "d"} <= set(point):
        check_entries(point["n"], point["d"], point.get("m", 1), f"{where}: the task's instance")
