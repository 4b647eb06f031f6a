"""Sweep specs: TOML (read with the standard library's tomllib), checked completely before anything runs.

A spec has three tables. ``[sweep]``: ``task`` (a registered task), ``seeds`` (a count or a list),
optionally ``name`` (figure titles) and ``certificates`` (keep every certificate in DIR/certs/).
``[grid]``: parameters crossed into tasks; a value, a list of values, or a list of tables whose keys
vary together (``size = [{d = 10, k = 3}, {d = 20, k = 5}]``; a key a table leaves out takes its default).
``[options]``: one value per option of
the task; an option may be varied in ``[grid]`` instead. Unknown keys and bad values are refused with
one line naming the key (:class:`~exactrelu.errors.InvalidInput`, exit 2 on the command line).

>>> spec = parse_spec('''
... [sweep]
... task = "recover"
... seeds = 2
... [grid]
... size = [{d = 4, k = 2}, {d = 6, k = 3}]
... n = [50, 100]
... ''')
>>> len(spec.tasks()), spec.varying()
(8, ['d', 'k', 'm', 'n'])
>>> t = spec.tasks()[0]
>>> t.params["m"], t.params["init"], t.seed
(2, 'auto', 0)
>>> parse_spec('[sweep]\\ntask = "recover"\\nseeds = 2\\n[grid]\\nd = 4\\nk = 2\\nn = 50\\nsamples = 3',
...            source="s.toml")
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: s.toml: [grid] samples: unknown parameter of task 'recover'
(its parameters: d, k, m, n, activation, ...)
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..validation import check_integer
from .params import MAX_TASKS, boolean, check_point
from .registry import Task
from .tasks import get_task

__all__ = ["Spec", "SweepTask", "parse_spec", "load_spec", "task_id"]

_TABLES = ("sweep", "grid", "options")
_SWEEP_KEYS = ("task", "seeds", "name", "certificates")
_MAX_SPEC_BYTES = 1_000_000


@dataclass(frozen=True)
class SweepTask:
    """One row to be: the task, every parameter (defaults filled in), the seed, and the row's id."""

    id: str
    task: str
    params: dict
    seed: int


def task_id(task: str, params: dict, seed: int) -> str:
    """The row id: a hash of the task, its parameters and its seed (stable across runs and machines)."""
    text = json.dumps([task, params, seed], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Spec:
    """A checked sweep spec (see the module docstring); :meth:`tasks` expands it."""

    task: str
    seeds: list[int]
    grid: list[tuple[str, list[dict]]]  # each entry: the values its key(s) take, as dicts
    options: dict[str, Any]
    name: str = ""
    certificates: bool = False
    text: str = ""
    source: str = "<spec>"
    _points: list[dict] = field(default_factory=list, repr=False)

    @property
    def registered(self) -> Task:
        return get_task(self.task)

    def points(self) -> list[dict]:
        """Every grid point, with the options and the task's defaults filled in (spec order)."""
        if not self._points:
            t = self.registered
            for combo in itertools.product(*(values for _, values in self.grid)):
                given = {**self.options}
                for part in combo:
                    given.update(part)
                point = t.fill(given, self.source)
                where = f"{self.source}: grid point {_describe(combo)}"
                check_point(point, where)
                if t.check is not None:
                    t.check(point, where)
                self._points.append(point)
        return self._points

    def tasks(self) -> list[SweepTask]:
        """Every task: grid points x seeds, in spec order (the order of results.csv)."""
        return [SweepTask(task_id(self.task, p, s), self.task, p, s) for p in self.points() for s in self.seeds]

    def varying(self) -> list[str]:
        """Parameters that take more than one value, in the task's order."""
        pts = self.points()
        return [key for key in self.registered.keys() if len({json.dumps(p.get(key)) for p in pts}) > 1]


def _describe(combo) -> str:
    return ", ".join(f"{k}={v}" for part in combo for k, v in part.items())


def load_spec(path: str | os.PathLike) -> Spec:
    """Read and check a spec file (:func:`parse_spec`)."""
    path = Path(path)
    try:
        if path.stat().st_size > _MAX_SPEC_BYTES:
            raise InvalidInput(f"{path}: a spec is at most {_MAX_SPEC_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read spec {path}: {exc}") from None
    return parse_spec(text, source=path.name)


def parse_spec(text: str, *, source: str = "<spec>") -> Spec:
    """Parse and check a TOML spec; every task is expanded once here so that bad points fail now."""
    try:
        obj = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"{source}: not valid TOML: {exc}") from None
    for key, value in obj.items():
        if key not in _TABLES:
            raise InvalidInput(f"{source}: unknown table or key {key!r} (expected [sweep], [grid] and [options])")
        if not isinstance(value, dict):
            raise InvalidInput(f"{source}: {key!r} must be a table [{key}]")
    head = obj.get("sweep")
    if head is None:
        raise InvalidInput(f"{source}: missing table [sweep] (with task = ... and seeds = ...)")
    for key in head:
        if key not in _SWEEP_KEYS:
            raise InvalidInput(f"{source}: [sweep] {key}: unknown key (expected one of {', '.join(_SWEEP_KEYS)})")
    for key in ("task", "seeds"):
        if key not in head:
            raise InvalidInput(f"{source}: [sweep] {key}: missing")
    if not isinstance(head["task"], str):
        raise InvalidInput(f"{source}: [sweep] task: expected a task name, got {head['task']!r}")
    try:
        task = get_task(head["task"])
    except InvalidInput as exc:
        raise InvalidInput(f"{source}: [sweep] task: {exc}") from None
    name = head.get("name", "")
    if not isinstance(name, str):
        raise InvalidInput(f"{source}: [sweep] name: expected a string, got {name!r}")
    certificates = boolean(head.get("certificates", False), f"{source}: [sweep] certificates")
    seeds = _seeds(head["seeds"], f"{source}: [sweep] seeds")
    options = _options(obj.get("options", {}), task, source)
    grid = _grid(obj.get("grid", {}), task, options, source)
    count = math.prod(len(values) for _, values in grid) * len(seeds)
    if count > MAX_TASKS:
        raise InvalidInput(f"{source}: [grid] x seeds make {count} tasks, more than the limit {MAX_TASKS}")
    spec = Spec(task.name, seeds, grid, options, name, certificates, text, source)
    spec.points()
    return spec


def _seeds(value, where: str) -> list[int]:
    if isinstance(value, list):
        seeds = [_seed(v, where) for v in value]
        if not seeds or len(set(seeds)) != len(seeds):
            raise InvalidInput(f"{where}: expected distinct seeds, got {value!r}")
        return seeds
    return list(range(check_integer(value, f"{where} (a count of seeds, or a list of seeds)", minimum=1,
                                    maximum=MAX_TASKS)))


def _seed(v, where: str) -> int:
    return check_integer(v, f"{where} (each seed)", minimum=0, maximum=2**63 - 1)


def _options(table: dict, task: Task, source: str) -> dict:
    out = {}
    for key, value in table.items():
        where = f"{source}: [options] {key}"
        if key not in task.options:
            known = ", ".join(task.options) or "none"
            raise InvalidInput(f"{where}: unknown option of task {task.name!r} (its options: {known})")
        if isinstance(value, (list, dict)):
            raise InvalidInput(f"{where}: expected one value (to vary an option, list its values in [grid])")
        out[key] = task.param(key).check(value, where)
    return out


def _grid(table: dict, task: Task, options: dict, source: str) -> list[tuple[str, list[dict]]]:
    grid, seen = [], set(options)
    for key, value in table.items():
        where = f"{source}: [grid] {key}"
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            parts = [_group_member(v, i, task, where) for i, v in enumerate(value)]
            keys = list(dict.fromkeys(k for part in parts for k in part))
        else:
            values = value if isinstance(value, list) else [value]
            if not values:
                raise InvalidInput(f"{where}: empty list")
            _known(key, task, where)
            parts, keys = [{key: task.param(key).check(v, where)} for v in values], [key]
        for k in keys:
            if k in seen:
                raise InvalidInput(f"{where}: {k!r} is given twice (in [grid] and [options], or in two entries)")
            seen.add(k)
        if len({json.dumps(p, sort_keys=True) for p in parts}) != len(parts):
            raise InvalidInput(f"{where}: a value appears twice")
        grid.append((key, parts))
    return grid


def _group_member(value: dict, i: int, task: Task, where: str) -> dict:
    if not value:
        raise InvalidInput(f"{where}[{i}]: empty table")
    out = {}
    for key, v in value.items():
        at = f"{where}[{i}].{key}"
        _known(key, task, at)
        if isinstance(v, (list, dict)):
            raise InvalidInput(f"{at}: expected one value")
        out[key] = task.param(key).check(v, at)
    return out


def _known(key: str, task: Task, where: str) -> None:
    if key not in task.params and key not in task.options:
        raise InvalidInput(f"{where}: unknown parameter of task {task.name!r} "
                           f"(its parameters: {', '.join(task.keys())})")
