"""The task registry: what a sweep can run, with the parameters each task accepts.

A task is one function ``run(p, seed) -> Outcome`` registered with :func:`task`: ``p`` holds every
parameter of one grid point (defaults filled in, values checked by :mod:`exactrelu.sweep.params`),
``seed`` the seed of the row. The function builds its instance from plain values (so that workers
receive only ints and strings), runs the library, and returns what it found. It does not judge its own
certificate: the worker (:mod:`exactrelu.sweep.worker`) runs the independent checker on it before the
row may say ``certified``. An :class:`~exactrelu.errors.ExactReluError` the function raises makes the
row ``refused`` with that error as its reason; any other exception makes it ``failed``.

>>> from exactrelu.sweep.registry import Outcome, REQUIRED, TASKS, task
>>> @task("example-sum", params={"n": REQUIRED}, options={}, doc="the sum 1 + ... + n (no certificate)")
... def example_sum(p, seed):
...     return Outcome("sum", reason="nothing to certify", metrics={"sum": p["n"] * (p["n"] + 1) // 2})
>>> TASKS["example-sum"].run({"n": 4}, 0).metrics
{'sum': 10}
>>> del TASKS["example-sum"]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import InvalidInput
from .params import PARAMS, Param

__all__ = ["Task", "Outcome", "TASKS", "REQUIRED", "Same", "task"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Default of a parameter the spec must give.
REQUIRED = _Required()


@dataclass(frozen=True)
class Same:
    """Default: the value of another parameter of the same point (``m`` defaults to ``Same("k")``)."""

    key: str


@dataclass
class Outcome:
    """What one task found.

    Attributes
    ----------
    outcome : the answer in one word (``"realizes"``, ``"not-realizable"``, ...).
    certificate : the certificate to check (a JSON-ready dict), or None (the row is then refused).
    instance : the instance the certificate is about (checked against it in the worker).
    method : the route, proposer or engine that produced the answer.
    reason : why there is no certificate (when ``certificate`` is None).
    timings : seconds per phase.
    metrics : further figures of the row (errors, counts); JSON values.
    """

    outcome: str
    certificate: dict | None = None
    instance: Any = None
    method: str = ""
    reason: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    """A registered task: its function, parameters (with defaults) and what its standard plots show.

    ``size`` is the parameter on the x axis of the time plot, ``rate_x`` the one on the x axis of the
    rate plot, and ``rate`` what is counted there: ``"certified"`` (the fraction of certified rows) or
    an outcome (the fraction of certified rows with that outcome, e.g. ``"realizable"``).
    """

    name: str
    run: Callable[[dict, int], Outcome]
    params: dict[str, Any]
    options: dict[str, Any]
    size: str = "n"
    rate_x: str = "n"
    rate: str = "certified"
    doc: str = ""
    check: Callable[[dict, str], None] | None = None
    error: str | None = None
    checks: dict[str, Param] = field(default_factory=dict)

    @property
    def module(self) -> str:
        """Where the task's function lives: workers import it before they look the task up."""
        return self.run.__module__

    def keys(self) -> list[str]:
        return list(self.params) + list(self.options)

    def param(self, key: str) -> Param:
        """The check of parameter ``key``: the task's own (``checks=``), else the shared one."""
        return self.checks.get(key) or PARAMS[key]

    def fill(self, given: dict[str, Any], where: str) -> dict[str, Any]:
        """Every parameter of one point: the given values, then the defaults (``None``: not passed)."""
        defaults = {**self.params, **self.options}
        for key, default in defaults.items():
            if key not in given and default is REQUIRED:
                raise InvalidInput(f"{where}: task {self.name!r} needs a value for {key!r}")
        out = {}
        for key, default in defaults.items():
            value = given.get(key, default)
            if isinstance(value, Same):
                value = given.get(value.key, defaults[value.key])
            if value is not None:
                out[key] = value
        return out


TASKS: dict[str, Task] = {}


def task(name: str, *, params: dict[str, Any], options: dict[str, Any], size: str = "n", rate_x: str | None = None,
         rate: str = "certified", doc: str = "", check: Callable[[dict, str], None] | None = None,
         error: str | None = None, checks: dict[str, Param] | None = None) -> Callable:
    """Register ``fn(p, seed) -> Outcome`` as the sweep task ``name`` (a decorator).

    Every key of ``params`` and ``options`` must be a parameter of :data:`exactrelu.sweep.params.PARAMS`
    (add it there, with its check, for a new one). The function must live in an importable module.
    ``checks`` gives the task its own check for a name (``method`` of ``fit`` is not ``method`` of
    ``decide``). ``check(point, where)``, if given, refuses a grid point when the spec is read (raise
    :class:`~exactrelu.errors.InvalidInput` starting with ``where``), before anything runs. ``error``
    names the metric plotted against the noise scale (the error figure).
    """
    checks = dict(checks or {})
    unknown = [key for key in (*params, *options) if key not in PARAMS and key not in checks]
    if unknown:
        raise ValueError(f"task {name!r}: parameters {unknown} are not in exactrelu.sweep.params.PARAMS")

    def register(fn: Callable[[dict, int], Outcome]) -> Callable[[dict, int], Outcome]:
        TASKS[name] = Task(name, fn, dict(params), dict(options), size, rate_x or size, rate, doc or (fn.__doc__ or ""),
                           check, error, checks)
        return fn
    return register
