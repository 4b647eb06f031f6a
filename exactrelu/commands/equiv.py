"""``exactrelu equiv NET1 NET2`` (same function on all of R^d?) and ``exactrelu minimize NET -o OUT``."""

from __future__ import annotations

import json

from ._limit import add_time_limit, limited
from ._report import emit, json_command
from ._weights import add_layers_argument, read_net

WEIGHTS_HELP = ("weights file: exactrelu.weights JSON (or any JSON with U, V, b, c), .npz, .safetensors, a PyTorch "
                "state dict (.pt) or an ONNX graph (.onnx); float weights are taken exactly")


def register(sub) -> None:
    p = sub.add_parser("equiv", help="decide exactly whether two networks are the same function on all of R^d",
                       description="Compare the canonical forms of two networks exactly (docs/equivalence.md). "
                                   "Exit 0: the same function on all of R^d; 1: different, with an exact input "
                                   "where they differ; 2: bad input. With -o, both answers write a certificate "
                                   "that 'exactrelu check CERT' verifies without any other file.")
    p.add_argument("first", metavar="NET1", help=WEIGHTS_HELP)
    p.add_argument("second", metavar="NET2", help="the other network (same kinds of file)")
    p.add_argument("-o", "--output", help="write the equivalent / not-equivalent certificate here")
    p.add_argument("--activation", help="relu or power:C for files that name none (default relu)")
    add_layers_argument(p, of="NET1")
    add_layers_argument(p, "--layers2", of="NET2")
    add_time_limit(p)
    json_command(p, "equiv", limited(cmd_equiv))

    p = sub.add_parser("minimize", help="the smallest network of the same form computing the same function",
                       description="Drop dead and zero units, merge parallel ones, fold opposite pairs, write the "
                                   "affine part back as units, and certify the result equivalent to the input "
                                   "(docs/equivalence.md). Reports how many units were removed and whether the "
                                   "result is proved smallest.")
    p.add_argument("network", metavar="NET", help=WEIGHTS_HELP)
    p.add_argument("-o", "--output", required=True, help="the minimized network (exactrelu.weights JSON)")
    p.add_argument("--certificate", dest="certificate_out", help="write the equivalent certificate (input, output) here")
    p.add_argument("--activation", help="relu or power:C for files that name none (default relu)")
    add_layers_argument(p)
    add_time_limit(p)
    json_command(p, "minimize", limited(cmd_minimize))


def _read(args, path: str, layers: str | None):
    from ..network import Activation

    return read_net(args, path, None if args.activation is None else Activation.parse(args.activation), layers)


def _write_json(obj: dict, path: str) -> None:
    from ..io.files import write_text_atomic

    write_text_atomic(path, json.dumps(obj, indent=1) + "\n")


def _short(values, limit: int = 6) -> str:
    text = ", ".join(str(v) for v in values[:limit])
    return f"({text}{', ...' if len(values) > limit else ''})"


def cmd_equiv(args) -> int:
    from ..equiv import functionally_equal

    a, b = _read(args, args.first, args.layers), _read(args, args.second, args.layers2)
    args.done = f"read both networks ({a.k} and {b.k} units)"
    res = functionally_equal(a, b)
    if args.output:
        _write_json(res.certificate, args.output)
    record = {"equivalent": res.equal, "status": res.status, "summary": res.summary,
              "hyperplanes": res.evidence["hyperplanes"], "certificate": args.output}
    if res.equal:
        lines = [f"EQUIVALENT: {args.first} and {args.second} are the same function on all of R^{a.d} "
                 f"({res.canonical.units} hyperplanes after merging; {a.k} and {b.k} units)"]
    else:
        record.update(witness=res.witness, values=list(res.values), differs_in=res.evidence["differs_in"])
        lines = [f"NOT EQUIVALENT: the networks differ at x = {_short(res.witness)} "
                 f"(their canonical forms differ in the {res.evidence['differs_in']})",
                 f"  {args.first}: {_short(res.values[0])}", f"  {args.second}: {_short(res.values[1])}"]
    lines.append(f"checked: {res.summary}")
    if args.output:
        lines.append(f"certificate: {args.output} (exactrelu check {args.output})")
    return emit(args, record, lines, ok=res.equal)


def cmd_minimize(args) -> int:
    from ..equiv.minimize import minimize
    from ..io.weights import weights_json

    net = _read(args, args.network, args.layers)
    args.done = f"read the network ({net.k} units)"
    res = minimize(net)
    _write_json(weights_json(res.network, minimized_from=str(args.network)), args.output)
    if args.certificate_out:
        _write_json(res.certificate, args.certificate_out)
    proved = "proved smallest" if res.optimal else f"not proved smallest (at least {res.lower_bound} units are needed)"
    lines = [f"minimized {args.network}: {net.k} -> {res.network.k} units ({res.removed} removed), {proved}",
             f"wrote {args.output}", f"checked: {res.equivalence.summary}"]
    if args.certificate_out:
        lines.append(f"certificate: {args.certificate_out} (exactrelu check {args.certificate_out})")
    record = {"units_before": net.k, "units": res.network.k, "removed": res.removed, "lower_bound": res.lower_bound,
              "optimal": res.optimal, "output": args.output, "certificate": args.certificate_out,
              "summary": res.equivalence.summary, "candidates": res.evidence["candidates"]}
    return emit(args, record, lines)
