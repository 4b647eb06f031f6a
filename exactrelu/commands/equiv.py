"""``exactrelu equiv NET1 NET2`` (same function on all of R^d?) and ``exactrelu minimize NET -o OUT``."""

from __future__ import annotations

import json

from ._limit import add_time_limit, limited
from ._report import emit, json_command
from ._weights import add_layers_argument, read_net

WEIGHTS_HELP = ("weights file: exactrelu.weights JSON (or any JSON with U, V, b, c), .npz, .safetensors, a PyTorch "
                "state dict (.pt) or an ONNX graph (.onnx); float weights are taken exactly")


def register(sub) -> None:
    p = sub.add_parser("equiv", help="decide exactly whether two networks are the same function (on R^d or a box, "
                                     "within E, or the same top class)",
                       description="Two-layer networks: compare their canonical forms exactly. Networks of any other "
                                   "depth (ReLU): reduce their difference, search for a witness, then split on "
                                   "neuron phases with exact LP proofs (docs/equivalence.md). Exit 0: the same "
                                   "function on all of R^d; 1: different, with an exact input where they differ; "
                                   "2: bad input; 3: unknown (the --time-limit or --max-nodes budget ran out; "
                                   "nothing is claimed). With -o, both answers write a certificate that "
                                   "'exactrelu check CERT' verifies without any other file.")
    p.add_argument("first", metavar="NET1", help=WEIGHTS_HELP)
    p.add_argument("second", metavar="NET2", help="the other network (same kinds of file)")
    p.add_argument("-o", "--output", help="write the equivalent / not-equivalent certificate here")
    p.add_argument("--activation", help="relu or power:C for files that name none (default relu)")
    p.add_argument("--max-nodes", type=_positive, metavar="N",
                   help="visit at most N case-tree nodes (networks deeper than two layers); then answer unknown "
                        "(exit 3)")
    p.add_argument("--lower", metavar="L1,...,Ld", help="the box's lower bounds (rationals or decimals, read exactly; "
                                                         "write --lower=-1,0 when the first is negative)")
    p.add_argument("--upper", metavar="U1,...,Ud", help="the box's upper bounds: decide on the box instead of R^d")
    p.add_argument("--vnnlib", metavar="FILE", help="the box is the input box of this VNN-LIB property (its output "
                                                    "constraints are not read)")
    p.add_argument("--epsilon", metavar="E", help="prove max over the outputs of |NET1(x) - NET2(x)| <= E instead "
                                                  "of equality (ReLU; a counterexample differs by more than E)")
    p.add_argument("--workers", type=_positive, metavar="N",
                   help="processes for the independent subtrees of a large case split (default: every idle core); "
                        "the certificate is the same for any N")
    p.add_argument("--top1", action="store_true",
                   help="prove instead that at every x some class is a largest output of both networks (ties: their "
                        "sets of largest outputs meet; ReLU; a counterexample is a point where they do not)")
    p.add_argument("--plot", metavar="FILE", help="when the networks differ, draw both along a segment through the "
                   "counterexample (the box's chord, or a segment of R^d) to FILE (.png, .pdf or .svg; needs "
                   "matplotlib)")
    p.set_defaults(output_args=("plot",))  # an output, checked before the work (cli._check_outputs)
    add_layers_argument(p, of="NET1")
    add_layers_argument(p, "--layers2", of="NET2")
    add_time_limit(p)
    json_command(p, "equiv", _unknown_on_time_out(limited(cmd_equiv, backstop=True)))

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


def _positive(text: str) -> int:
    import argparse

    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def _unknown_on_time_out(func):
    """A time limit that passes before the answer is the answer "unknown": exit 3, nothing claimed."""
    from ..errors import TimeLimitExceeded

    def run(args) -> int:
        try:
            return func(args)
        except TimeLimitExceeded as exc:
            return emit(args, {"status": "unknown", "equivalent": None, "reason": str(exc)},
                        [f"UNKNOWN: {exc}"], ok=False, code=3)

    return run


def _read(args, path: str, layers: str | None):
    from ..network import Activation

    return read_net(args, path, None if args.activation is None else Activation.parse(args.activation), layers)


def _write_json(obj: dict, path: str) -> None:
    from ..io.files import write_text_atomic

    write_text_atomic(path, json.dumps(obj, indent=1) + "\n")


def _short(values, limit: int = 6) -> str:
    """Numbers for reading, as floats (to six digits, any size): the exact values are in the certificate."""
    from ..certificates.trusted.common import approx

    text = ", ".join(approx(v) for v in values[:limit])
    return f"({text}{', ...' if len(values) > limit else ''})"


def _shape(net) -> str:
    return f"{net.k} units" if net.depth == 2 else "widths " + "-".join(map(str, net.widths))


def _domain(args) -> tuple[list | None, list | None, str]:
    """(lower, upper, the domain in words) from --lower/--upper or --vnnlib; (None, None, 'all of R^d') without."""
    from ..errors import InvalidInput

    if args.vnnlib and (args.lower or args.upper):
        raise InvalidInput("give the box by --lower/--upper or by --vnnlib, not both")
    if args.vnnlib:
        from ..io.vnnlib import read_vnnlib

        box = read_vnnlib(args.vnnlib)
        unread = f"; its {box.outputs} output constraints not read" if box.outputs else ""
        return box.lower, box.upper, f"the input box of {args.vnnlib} ({len(box.lower)} intervals{unread})"
    if (args.lower is None) != (args.upper is None):
        raise InvalidInput("a box needs both --lower and --upper")
    if args.lower is None:
        return None, None, ""
    lower, upper = (v.split(",") for v in (args.lower, args.upper))
    return lower, upper, f"the box --lower/--upper ({len(lower)} intervals)"


def _search_budget(seconds: float | None) -> float | None:
    """The case split's share of ``--time-limit``: in the program's watched child (:mod:`._watch`), what is left of it
    since the program started, less a margin, so that the search answers "unknown" (exit 3, with how far it got)
    before the program's own limit stops it; called in-process, the limit itself."""
    import time

    from ._watch import in_child, process_start

    if seconds is None or not in_child():
        return seconds
    return max(0.05, 0.97 * seconds - (time.monotonic() - process_start()) - 0.25)


def cmd_equiv(args) -> int:
    import sys

    from ..equiv import functionally_equal
    from ..errors import InvalidInput
    from ..progress import LineProgress

    if args.plot:
        from ..equiv.plot import require_plot

        require_plot(args.plot)  # before any work
    lower, upper, where = _domain(args)
    a, b = _read(args, args.first, args.layers), _read(args, args.second, args.layers2)
    where = where or f"all of R^{a.d}"
    args.done = f"read both networks ({_shape(a)} and {_shape(b)})"
    progress = LineProgress() if sys.stderr.isatty() and not getattr(args, "json", False) else None
    if args.top1 and args.epsilon is not None:
        raise InvalidInput("ask for --epsilon or --top1, not both")
    res = functionally_equal(a, b, time_limit=_search_budget(args.time_limit), max_nodes=args.max_nodes,
                             progress=progress, lower=lower, upper=upper, epsilon=args.epsilon, top1=args.top1,
                             workers=args.workers)
    record = {"equivalent": res.equal if res.status != "unknown" else None, "status": res.status,
              "summary": res.summary, "certificate": args.output if res.status != "unknown" else None}
    record["domain"] = where
    if args.top1:
        record["property"] = "top1 (ties: some class is among the largest outputs of both networks)"
    two = "hyperplanes" in res.evidence
    record.update({"hyperplanes": res.evidence["hyperplanes"]} if two else {k: res.evidence.get(k) for k in (
        "depths", "reduced_neurons", "nodes", "leaves", "splits", "fixes", "closed_share", "relaxed_leaves")})
    if res.status == "not-equivalent":
        record.update(witness=[str(x) for x in res.witness], values=[[str(v) for v in r] for r in res.values])
    if res.status == "unknown":
        return emit(args, record, [f"UNKNOWN: {res.summary}",
                                   "  search further with a larger --time-limit or --max-nodes"], ok=False, code=3)
    if args.output:
        _write_json(res.certificate, args.output)
    drawn = _plot(args, a, b, res, lower, upper, record)
    if args.top1:
        return emit(args, record, _top1_lines(args, res, where, lower is not None) + drawn, ok=res.equal)
    eps = f" by more than {args.epsilon}" if args.epsilon is not None else ""
    if res.equal:
        how = (f"{res.canonical.units} hyperplanes after merging; {a.k} and {b.k} units" if two else
               f"{_shape(a)} and {_shape(b).replace('widths ', '')}; "
               f"{_count(res.evidence['reduced_neurons'], 'neuron')} in their reduced difference, "
               f"{_count(res.evidence.get('leaves', 1), 'leaf', 'leaves')} in the case tree")
        what = "the same function" if args.epsilon is None else f"within {args.epsilon} of each other"
        lines = [f"{'EPSILON-' if eps else ''}EQUIVALENT: {args.first} and {args.second} are {what} on {where} "
                 f"({how})"]
    else:
        why = f" (their canonical forms differ in the {res.evidence['differs_in']})" if two else ""
        if two:
            record["differs_in"] = res.evidence["differs_in"]
        inside = f", in {where}" if lower is not None else ""
        lines = [f"NOT {'EPSILON-' if eps else ''}EQUIVALENT: the networks differ{eps} at x = {_short(res.witness)}"
                 f"{inside}{why}"] + _values(args, res)
    return emit(args, record, lines + _tail(args, res) + drawn, ok=res.equal)


def _values(args, res) -> list[str]:
    """The two networks' outputs at the counterexample, as floats for reading."""
    return [f"  {args.first}: {_short(res.values[0])}", f"  {args.second}: {_short(res.values[1])}",
            "  (floats for reading; the exact rationals are in the certificate)"]


def _tail(args, res) -> list[str]:
    """The checker's line, and where the certificate was written."""
    lines = [f"checked: {res.summary}"]
    if args.output:
        lines.append(f"certificate: {args.output} (exactrelu check {args.output})")
    return lines


def _plot(args, a, b, res, lower, upper, record: dict) -> list[str]:
    """``--plot FILE``: the figure through the counterexample (record["plot"]: its path, or None); its line."""
    if not args.plot:
        return []
    if res.status != "not-equivalent":
        record["plot"] = None
        return [f"plot: not drawn ({args.plot}): there is no counterexample to draw through"]
    from ..equiv.plot import plot_counterexample

    path = plot_counterexample(a, b, res.witness, res.values, args.plot, lower=lower, upper=upper,
                               epsilon=args.epsilon, top1=args.top1, names=(args.first, args.second))
    record["plot"] = str(path)
    return [f"plot: {path} (both networks along a segment through the counterexample)"]


def _count(n: int, one: str, many: str | None = None) -> str:
    """``n`` with the noun in the right number: "1 leaf", "3 leaves"."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def _top1_lines(args, res, where: str, on_box: bool) -> list[str]:
    """The answer to --top1, in words, with the tie rule (and the JSON record gets the witness)."""
    from ..equiv.deep.top1 import argmax_set

    tie = "ties: a class counts when it is among the largest outputs, and the two sets must meet"
    if res.equal:
        how = res.evidence.get("leaves", 1)
        lines = [f"TOP1-EQUIVALENT: {args.first} and {args.second} have a largest output in common at every x of "
                 f"{where} ({tie}; {_count(how, 'leaf', 'leaves')} in the case tree)"]
    else:
        tops = [sorted(argmax_set(v)) for v in res.values]
        inside = f", in {where}" if on_box else ""
        lines = [f"NOT TOP1-EQUIVALENT: at x = {_short(res.witness)}{inside} the largest outputs are classes {tops[0]} "
                 f"of {args.first} and {tops[1]} of {args.second}, none in common ({tie})"] + _values(args, res)
    return lines + _tail(args, res)


def cmd_minimize(args) -> int:
    from ..equiv.minimize import minimize
    from ..io.weights import weights_json

    net = _read(args, args.network, args.layers)
    args.done = f"read the network ({_shape(net)})"
    res = minimize(net)
    _write_json(weights_json(res.network, minimized_from=str(args.network)), args.output)
    if args.certificate_out:
        _write_json(res.certificate, args.certificate_out)
    if net.depth != 2:
        before, after = "-".join(map(str, net.widths)), "-".join(map(str, res.network.widths))
        head = (f"minimized {args.network}: widths {before} -> {after} ({res.removed} hidden units removed: dead, "
                "constant, duplicate and silent ones; not claimed smallest)")
    else:
        proved = ("proved smallest" if res.optimal else
                  f"not proved smallest (at least {res.lower_bound} units are needed)")
        head = f"minimized {args.network}: {net.k} -> {res.network.k} units ({res.removed} removed), {proved}"
    lines = [head,
             f"wrote {args.output}", f"checked: {res.equivalence.summary}"]
    if args.certificate_out:
        lines.append(f"certificate: {args.certificate_out} (exactrelu check {args.certificate_out})")
    units = (lambda n: n.k) if net.depth == 2 else (lambda n: sum(n.widths[1:-1]))  # noqa: E731
    record = {"units_before": units(net), "units": units(res.network), "removed": res.removed,
              "lower_bound": res.lower_bound, "optimal": res.optimal, "output": args.output,
              "certificate": args.certificate_out, "summary": res.equivalence.summary,
              "candidates": res.evidence.get("candidates"), "widths": res.evidence.get("widths")}
    return emit(args, record, lines)
