"""Experiments at scale: a grid of tasks declared in TOML, run on local processes or a Dask cluster.

``exactrelu sweep SPEC.toml -o DIR`` (see docs/sweep.md). The pieces, one job each:
:mod:`~exactrelu.sweep.spec` (parse and check the spec), :mod:`~exactrelu.sweep.registry` and
:mod:`~exactrelu.sweep.tasks` (what can run), :mod:`~exactrelu.sweep.worker` (one task -> one row, its
certificate checked independently), :mod:`~exactrelu.sweep.executors` (where it runs),
:mod:`~exactrelu.sweep.runner` (the scheduling loop, resume), :mod:`~exactrelu.sweep.results`
(results.jsonl, certs/, results.csv) and :mod:`~exactrelu.sweep.plots` (the standard figures).

>>> import tempfile
>>> from exactrelu.sweep import parse_spec, run_sweep
>>> spec = parse_spec('[sweep]\\ntask = "recover"\\nseeds = 3\\n[grid]\\nd = 4\\nk = 2\\nn = 80')
>>> run_sweep(spec, tempfile.mkdtemp(), workers=1).counts["certified"]
3
"""

from .registry import REQUIRED, TASKS, Outcome, Same, Task, task
from .results import read_rows
from .runner import SweepSummary, run_sweep, write_results_table
from .spec import Spec, SweepTask, load_spec, parse_spec
from .tasks import get_task

__all__ = ["parse_spec", "load_spec", "Spec", "SweepTask", "run_sweep", "SweepSummary", "write_results_table",
           "read_rows", "task", "Task", "Outcome", "TASKS", "REQUIRED", "Same", "get_task"]
