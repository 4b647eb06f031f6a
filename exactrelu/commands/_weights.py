"""Weights files on the command line: ``--layers`` and the line that names what was read.

Every command that reads a network from a file reads it through :func:`read_net`, which records the line
``read FILE: 0.weight (20 x 10) + 0.bias -> 2.weight (1 x 20)`` (:func:`exactrelu.io.weights.read_network`);
:func:`exactrelu.commands._report.emit` prints those lines before the verdict (and puts them under ``"read"`` in
the ``--json`` record), so that every verdict about a file names the layers it is about.
"""

from __future__ import annotations

__all__ = ["add_layers_argument", "read_net"]


def add_layers_argument(p, flag: str = "--layers", *, of: str = "") -> None:
    """``--layers FIRST,SECOND,...``: the layers of a weights file in order, where their names do not show it."""
    from ..io.state_dict import LAYERS_HELP

    p.add_argument(flag, metavar="FIRST,SECOND,...", help=(f"{of}: " if of else "") + LAYERS_HELP)


def read_net(args, path: str, activation=None, layers: str | None = None):
    """The two-layer network in ``path`` (:func:`exactrelu.io.weights.read_network`), its line kept for the report."""
    from ..io.weights import read_network

    net, line = read_network(path, activation, layers)
    if not hasattr(args, "read_lines"):
        args.read_lines = []
    args.read_lines.append(line)
    return net
