"""``exactrelu extract --oracle NET | --oracle-cmd CMD -o OUT``: exact weights from query access, certified."""

from __future__ import annotations

import json

from ..arguments import positive_int_arg, seed_arg
from ._limit import TIME_LIMIT_HELP, limited, time_limit_seconds
from ._report import emit, json_command
from ._weights import add_layers_argument, read_net


def register(sub) -> None:
    p = sub.add_parser("extract", help="extract the exact weights of a ReLU network (one or more hidden layers) "
                                       "from query access",
                       description="Ask an exact oracle (a network file, or a command answering JSON lines: docs/"
                                   "extraction.md) at chosen rational points, find every kink on a random line, the "
                                   "hyperplanes and coefficients from the Jacobians around them, and write the "
                                   "smallest network that computes what was seen, with a transcript certificate "
                                   "(every query and answer, the network, a lower bound on the units) and a "
                                   "statement of what is certified and what is not.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--oracle", metavar="NET", help="a weights file, evaluated exactly, as the oracle")
    src.add_argument("--oracle-cmd", metavar="CMD", help="a command speaking JSON lines (docs/extraction.md)")
    p.add_argument("-k", type=positive_int_arg,
                   help="hidden units, if known (more kinks on a line than k: exit 1, proved)")
    p.add_argument("--hidden-layers", type=_depth, default=1, metavar="L", help="hidden layers of the oracle: 1 "
                   "(default), 2, or up to 8 (each layer from the hyperplanes met on most lines or chords, "
                   "docs/extraction.md)")
    p.add_argument("--widths", type=_widths, metavar="K1[,K2,...]", help="with --hidden-layers 2 or more: the first "
                   "hidden widths, if known (each picks that many neurons of its layer; more units than the last "
                   "width found in the last hidden layer: exit 1)")
    p.add_argument("--max-queries", type=positive_int_arg, metavar="N",
                   help="stop (exit 1, nothing claimed) after N queries")
    p.add_argument("--time-limit", type=time_limit_seconds, metavar="SECONDS", help=TIME_LIMIT_HELP + " (an oracle "
                   "command's every wait included)")
    p.add_argument("--force", action="store_true", help="ask an oracle command even when the up-front estimate of "
                   "its queries (about (d + 1) d numbers) is over a day")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the search line and the fresh queries (default 0)")
    p.add_argument("-o", "--output", required=True, help="the extracted network (exactrelu.weights JSON)")
    p.add_argument("--certificate", dest="certificate_out", metavar="CERT",
                   help="write the transcript certificate here: every query and answer, the network that gives them, "
                        "the windows of the lower bound on the units (exactrelu check CERT)")
    p.add_argument("--expect", metavar="NET", help="a network you believe the oracle is: compare it with the "
                   "extracted one (equivalent / not-equivalent, certificate with --expect-certificate)")
    p.add_argument("--expect-certificate", dest="evidence", metavar="FILE", help="where to write that certificate")
    add_layers_argument(p, of="the --oracle file")
    add_layers_argument(p, "--expect-layers", of="the --expect file")
    p.add_argument("-v", "--verbose", action="store_true", help="progress with the query count on stderr")
    json_command(p, "extract", limited(cmd_extract, backstop=True))


def _widths(text: str) -> tuple[int, ...]:
    import argparse

    try:
        widths = tuple(int(v) for v in text.split(","))
    except ValueError:
        widths = ()
    if not widths or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"expected K1 or K1,K2,... (positive integers), got {text!r}")
    return widths


def _depth(text: str) -> int:
    import argparse

    from ..extract.front_door import MAX_HIDDEN_LAYERS

    if not text.isdigit() or not 1 <= int(text) <= MAX_HIDDEN_LAYERS:
        raise argparse.ArgumentTypeError(f"expected an integer from 1 to {MAX_HIDDEN_LAYERS}, got {text!r}")
    return int(text)


def _oracle(args, deadline):
    from ..extract import CommandOracle, NetworkOracle

    budget = {"max_queries": args.max_queries, "time_limit": deadline}
    if args.oracle:
        return NetworkOracle(read_net(args, args.oracle, layers=args.layers), **budget)
    return CommandOracle(args.oracle_cmd, force=args.force, **budget)


def _write(obj: dict, path: str) -> None:
    from ..io.files import write_text_atomic

    write_text_atomic(path, json.dumps(obj, indent=1) + "\n")


def cmd_extract(args) -> int:
    from ..deadline import Deadline

    deadline = Deadline(args.time_limit)  # from the start: reading files and starting the oracle count
    from ..certificates.envelope import write_certificate
    from ..errors import InvalidInput, NotRealizable
    from ..extract import extract
    from ..io.weights import weights_json
    from ..progress import LineProgress

    if args.widths is not None and (args.hidden_layers < 2 or len(args.widths) > args.hidden_layers):
        raise InvalidInput("--widths is for --hidden-layers 2 or more, at most one width per hidden layer (one hidden "
                           "layer: -k)")
    if args.k is not None and args.hidden_layers >= 2:
        raise InvalidInput("-k is for one hidden layer; with --hidden-layers 2 or more give --widths K1,K2,...")
    # a bad file is refused before any query (a -k below 1 is refused by its argparse type)
    expected = read_net(args, args.expect, layers=args.expect_layers) if args.expect else None
    progress = LineProgress() if args.verbose else None
    oracle = _oracle(args, deadline)
    try:
        res = extract(oracle, k=args.k, seed=args.seed, progress=progress, hidden_layers=args.hidden_layers,
                      widths=args.widths)
    except NotRealizable as exc:
        if args.certificate_out and exc.certificate is not None:
            write_certificate(exc.certificate, args.certificate_out)
            raise NotRealizable(f"{exc} (written to {args.certificate_out}; exactrelu check {args.certificate_out})",
                                evidence=exc.evidence, certificate=exc.certificate) from None
        raise
    finally:
        oracle.close()
        if progress:
            progress.close()
    _write(weights_json(res.network, extracted_with=f"{res.queries} queries", seed=args.seed), args.output)
    record = {"queries": res.queries, "units": res.units, "widths": list(res.network.widths),
              "width_lower_bound": res.width_lower_bound,
              "hyperplanes": res.canonical.units, "output": args.output, "summary": res.summary,
              "statement": res.statement, "certificate": args.certificate_out}
    what = (f"{res.units} units" if res.network.depth == 2 else
            f"a {'-'.join(map(str, res.network.widths))} network ({res.units} hidden units)")
    lines = [f"extracted {what} with {res.queries} queries (d = {res.network.d}, m = {res.network.m}); "
             f"wrote {args.output}", f"checked: {res.summary}"]
    if args.certificate_out:
        write_certificate(res.certificate, args.certificate_out)
        lines.append(f"certificate: {args.certificate_out} (exactrelu check {args.certificate_out})")
    if expected is not None:
        from ..equiv import functionally_equal

        cmp = functionally_equal(res.network, expected)
        record["expect"] = {"status": cmp.status, "summary": cmp.summary, "certificate": args.evidence}
        if args.evidence:
            _write(cmp.certificate, args.evidence)
        lines.append(f"--expect {args.expect}: {cmp.status} ({cmp.summary})")
    lines += [f"  {part}" for part in res.statement.splitlines()]
    return emit(args, record, lines)

