"""The data a command works on: an instance file, or one's own arrays (``--inputs X --labels Y``), read and timed.

``recover``, ``fit``, ``solve`` and ``certify`` take either ``INSTANCE`` (JSON or ``.npz``) or ``--inputs X.npy
--labels Y.npy`` (``.npy`` or CSV, :mod:`exactrelu.io.arrays`). :func:`read_data` reads whichever was given,
refuses both or neither in one line, and records the seconds it took in ``args.read_seconds`` (reported in the
command's timings: a 45 MB JSON instance is not free).
"""

from __future__ import annotations

import time

from ..errors import InvalidInput

__all__ = ["add_data_arguments", "read_data", "read_timings", "add_bias_argument", "bias_of", "BIAS_HELP"]

#: the classes of ``--bias`` (docs/recovery.md, "Model classes: --bias")
BIAS_HELP = ("the model class: --bias alone (or --bias both) is PyTorch's default Linear -> ReLU -> Linear, hidden "
             "biases b and an output bias c (labels = f(inputs V^T + b) U^T + c); --bias hidden: b only (the papers' "
             "model); --bias output: c only. Without --bias: neither")


def _bias_choice(text: str) -> str:
    """argparse type of ``--bias [CLASS]``."""
    import argparse

    if text in ("both", "hidden", "output"):
        return text
    raise argparse.ArgumentTypeError(f"expected both, hidden or output (--bias alone means both), got {text!r}; "
                                     "put file names before --bias")


def add_bias_argument(p, what: str = "") -> None:
    """``--bias [both|hidden|output]``: the model class a learner works in (alone: both, PyTorch's default)."""
    p.add_argument("--bias", nargs="?", const="both", default=None, type=_bias_choice, metavar="CLASS",
                   help=BIAS_HELP + what)


def bias_of(args):
    """The library's ``bias=`` for ``args.bias``: False without the option, else the class named."""
    return args.bias or False


def add_data_arguments(p) -> None:
    """``--inputs X --labels Y``: the data as two arrays instead of an instance file."""
    p.add_argument("--inputs", metavar="X", help="inputs (n x d) as .npy or CSV, with --labels: instead of an "
                   "instance file (exactrelu import writes one for the checker)")
    p.add_argument("--labels", metavar="Y", help="labels (n x m, or n) as .npy or CSV, with --inputs")


def read_data(args):
    """(the Instance, a name for default output files) from ``args.instance`` or ``--inputs``/``--labels``."""
    from ..instances.files import read_data_files, read_instance

    own = getattr(args, "inputs", None) is not None or getattr(args, "labels", None) is not None
    if own and args.instance is not None:
        raise InvalidInput(f"give an instance file ({args.instance}) or --inputs and --labels, not both")
    if own and (args.inputs is None or args.labels is None):
        raise InvalidInput("--inputs and --labels go together: the inputs (n x d) and the labels (n x m) as .npy "
                           "or CSV")
    if not own and args.instance is None:
        raise InvalidInput("no data: give an instance file (.json or .npz), or --inputs X.npy --labels Y.npy")
    t0 = time.perf_counter()
    inst = read_data_files(args.inputs, args.labels) if own else read_instance(args.instance)
    args.read_seconds = time.perf_counter() - t0
    return inst, str(args.inputs if own else args.instance)


def read_timings(args, timings: dict | None = None) -> dict:
    """``timings`` with the reading time first (``{"read": seconds, ...}``)."""
    return {"read": getattr(args, "read_seconds", 0.0), **(timings or {})}


def register(sub) -> None:
    """``exactrelu import --inputs X --labels Y -o INSTANCE``: one's own arrays as an exact instance file."""
    from ._report import json_command

    p = sub.add_parser("import",
                       help="write an instance file (.json exact, or .npz) from one's own arrays (.npy or CSV)",
                       description="Read the inputs (n x d) and labels (n x m, or n) as .npy arrays (numpy.save) or "
                                   "CSV tables (entries read exactly as written: 0.1 is 1/10) and write them as an "
                                   "instance file: JSON (exact, any values) or .npz (float64; refused, not rounded, "
                                   "when a value is not a float64). Every command and the independent checker read it.")
    add_data_arguments(p)
    p.add_argument("--activation", help="record this activation in a JSON instance (relu or power:C)")
    p.add_argument("-o", "--output", required=True, help="instance file to write (.json or .npz)")
    from ._limit import add_time_limit, limited

    add_time_limit(p)
    json_command(p, "import", limited(cmd_import, what="the instance was written"))


def cmd_import(args) -> int:
    from pathlib import Path

    from ..instances import write_instance
    from ..network import Activation
    from ._report import emit

    out = Path(args.output)
    if out.suffix not in (".json", ".npz"):
        raise InvalidInput(f"output must end in .json or .npz, got {out.name}")
    if args.inputs is None or args.labels is None:
        raise InvalidInput("exactrelu import needs --inputs X and --labels Y (.npy or CSV)")
    args.instance = None
    inst, _ = read_data(args)
    args.done = f"read n={inst.n}, d={inst.d}, m={inst.m}; nothing written"
    if args.activation is not None:
        inst.activation = Activation.parse(args.activation)
    t0 = time.perf_counter()
    write_instance(inst, out)
    timings = read_timings(args, {"write": time.perf_counter() - t0})
    record = {"instance": str(out), "n": inst.n, "d": inst.d, "m": inst.m, "timings": timings}
    return emit(args, record, f"wrote {out}: n={inst.n}, d={inst.d}, m={inst.m} (read {timings['read']:.3f} s, "
                              f"written {timings['write']:.3f} s)")
