"""``exactrelu sweep SPEC.toml -o DIR [--workers N | --scheduler ADDRESS] [--resume]`` and ``exactrelu sweep plot DIR``.

>>> import argparse
>>> p = argparse.ArgumentParser(); sub = p.add_subparsers()
>>> register(sub)
>>> a = p.parse_args(["sweep", "grid.toml", "-o", "out", "--workers", "2"])
>>> a.spec, a.output, a.workers, a.resume
('grid.toml', 'out', 2, False)
"""

from __future__ import annotations

import argparse
import signal
import sys
from ..arguments import positive_int_arg, scheduler_arg

from ..errors import InvalidInput
from ._limit import add_time_limit
from ._report import emit, json_command

__all__ = ["register"]


def register(sub) -> None:
    p = sub.add_parser(
        "sweep", help="run a grid of experiments from a TOML spec (process pool or Dask); 'sweep plot DIR' for figures",
        description="Run every task of SPEC.toml (a grid of parameters x seeds) on local worker processes or on a "
                    "Dask cluster. Each task writes one row to DIR/results.jsonl (and DIR/results.csv); a row is "
                    "'certified' only after the independent checker accepted its certificate. Exit 0 when every "
                    "row is certified or refused, 1 when some failed, 130 when interrupted (then --resume). "
                    "'exactrelu sweep plot DIR' writes the standard figures to DIR/plots/. See docs/sweep.md.")
    p.add_argument("spec", metavar="SPEC.toml", help="the sweep spec (or 'plot', then DIR)")
    p.add_argument("directory", nargs="?", metavar="DIR", help=argparse.SUPPRESS)
    p.add_argument("-o", "--output", metavar="DIR", help="directory for rows, certificates and the table")
    p.add_argument("--workers", type=positive_int_arg,
                   help="local worker processes (default: the cores available; 1: in this process)")
    p.add_argument("--scheduler", type=scheduler_arg, metavar="ADDRESS",
                   help="run on the Dask cluster at ADDRESS (tcp://host:8786); "
                   "needs pip install 'exactrelu[dask]'")
    p.add_argument("--resume", action="store_true", help="continue the sweep in DIR, skipping tasks that have a row")
    p.add_argument("--force", action="store_true", help="with --resume: continue even when DIR was made by another "
                   "spec (its rows and the new ones then mix in one table)")
    p.add_argument("--plot", action="store_true",
                   help="then write the standard figures (as 'exactrelu sweep plot DIR')")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    add_time_limit(p)
    p.set_defaults(directory_outputs=("output",))  # -o DIR: a directory (cli._check_outputs)
    json_command(p, "sweep", cmd_sweep)


def cmd_sweep(args) -> int:
    if args.spec == "plot":
        return _plot(args)
    if args.directory is not None:
        raise InvalidInput(f"unexpected argument {args.directory!r} (the output directory goes after -o)")
    if not args.output:
        raise InvalidInput("give the output directory: exactrelu sweep SPEC.toml -o DIR")
    from ..sweep import load_spec, run_sweep

    spec = load_spec(args.spec)
    previous = signal.signal(signal.SIGTERM, _stop)  # a batch system's SIGTERM stops like Ctrl-C
    try:
        s = run_sweep(spec, args.output, workers=args.workers, scheduler=args.scheduler, resume=args.resume,
                      progress=not args.quiet, force=args.force, time_limit=args.time_limit)
    finally:
        signal.signal(signal.SIGTERM, previous)
    c = s.counts
    already = f", {s.skipped} already there" if s.skipped else ""
    if s.timed_out:
        return _timed_out(args, s)
    code = 130 if s.interrupted else (1 if c["failed"] else 0)
    record = {"task": spec.task, "counts": dict(c), "skipped": s.skipped, "total": s.total, "seconds": s.seconds,
              "executor": s.executor, "directory": str(s.directory), "table": str(s.directory / "results.csv"),
              "interrupted": bool(s.interrupted)}
    lines = [f"sweep {spec.task}: {sum(c.values())} rows written ({c['certified']} certified, {c['refused']} refused, "
             f"{c['failed']} failed){already}, {s.total} tasks in the spec; "
             f"{s.seconds:.1f} s on {s.executor or 'nothing'}",
             f"table: {s.directory / 'results.csv'}"]
    if args.plot and not s.interrupted:
        record["figures"] = _figures(args.output)
        lines += [f"wrote {path}" for path in record["figures"]]
    code = emit(args, record, lines, ok=code == 0, code=code)
    if s.interrupted:
        print(f"interrupted: run again with --resume to continue ({s.total - s.skipped - sum(c.values())} tasks left)",
              file=sys.stderr)
    return code


def _timed_out(args, s) -> int:
    """The sweep's time limit passed: the finished rows are kept (and tabled); the message says how to go on."""
    from ..errors import TimeLimitExceeded

    written = sum(s.counts.values())
    left = s.total - s.skipped - written
    raise TimeLimitExceeded(f"the time limit of {args.time_limit:g} s passed before the sweep was done (nothing is "
                            "claimed for the tasks not run)",
                            done=f"{written} rows written to {s.directory / 'results.jsonl'} ({s.counts['certified']} "
                                 f"certified, {s.counts['refused']} refused, {s.counts['failed']} failed), {left} "
                                 f"tasks left: run again with --resume to continue")


def _stop(signum, frame):
    raise KeyboardInterrupt


def _plot(args) -> int:
    directory = args.directory or args.output
    if directory is None:
        raise InvalidInput("give the sweep directory: exactrelu sweep plot DIR")
    paths = _figures(directory)
    return emit(args, {"figures": paths}, [f"wrote {path}" for path in paths])


def _figures(directory) -> list[str]:
    from ..sweep.plots import plot_directory

    return [str(path) for path in plot_directory(directory)]
