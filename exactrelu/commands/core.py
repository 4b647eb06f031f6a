"""``exactrelu demo | generate | recover`` (and ``check``, from :mod:`.check`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from ..arguments import integer_arg, number_arg, positive_int_arg, seconds_arg, seed_arg

from ..errors import AssumptionViolated, InvalidInput, NotRealizable
from ._data import add_bias_argument, add_data_arguments, bias_of, read_data, read_timings
from ._limit import add_time_limit, limited
from .check import register_check
from ._report import emit, json_command

DEMO = dict(d=20, k=5, m=5, n=5000)
DIMENSIONS = {"d": "input dimension", "k": "hidden units", "m": "outputs", "n": "samples"}


def register(sub) -> None:
    """Add ``demo``, ``generate``, ``recover`` and ``check`` to the sub-command parsers ``sub``."""
    for add in (_register_demo, _register_generate, _register_recover, register_check):
        add(sub)


def _register_demo(sub) -> None:
    p = sub.add_parser("demo", help="recover and certify a planted network (d=20, k=5, m=5, n=5000)",
                       description="Generate a planted instance, recover its weights exactly, check the certificate "
                                   "with the independent checker, and report times and errors.")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the planted instance (default 0)")
    p.add_argument("--activation", default="relu", help="relu (default) or power:C")
    for name, default in DEMO.items():
        p.add_argument(f"-{name}", type=positive_int_arg, default=default,
                       help=f"{DIMENSIONS[name]} (default {default})")
    p.add_argument("-o", "--output", help="also write the certificate here")
    p.add_argument("-v", "--verbose", action="store_true", help="progress on stderr (default when stderr is a terminal)")
    p.add_argument("--time-limit", type=seconds_arg, help="give up (exit 3, nothing claimed) after this many seconds")
    p.add_argument("--force", action="store_true", help="run even when the up-front estimate is over a day")
    json_command(p, "demo", cmd_demo)


def _register_generate(sub) -> None:
    p = sub.add_parser("generate", help="write a planted instance (JSON exact, or .npz float64)",
                       description="Draw inputs, plant a network and write the instance with its exact labels.")
    for name, what in DIMENSIONS.items():
        p.add_argument(f"-{name}", type=positive_int_arg, required=True, help=what)
    p.add_argument("--activation", default="relu", help="relu (default) or power:C")
    p.add_argument("--inputs", default="gaussian", help="gaussian (default), uniform, laplace, rademacher-mixture, integer")
    p.add_argument("--weights", default="integer", help="integer (default) or dyadic")
    p.add_argument("--weight-bound", type=positive_int_arg, default=3, metavar="B",
                   help="planted weights drawn from [-B, B] (default 3)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the inputs and the planted weights (default 0)")
    p.add_argument("--input-bits", type=integer_arg(0, 40),
                   help="round inputs to multiples of 2**-B (needed for .npz: labels then fit float64)")
    p.add_argument("--bias", type=_bias_scale, metavar="S",
                   help="hidden biases b_i drawn uniformly in [-S, S], rounded to quarters (default: no biases)")
    p.add_argument("--output-bias", type=_bias_scale, metavar="S",
                   help="an output bias c_r drawn uniformly in [-S, S], rounded to quarters: labels = "
                        "f(inputs V^T + b) U^T + c, PyTorch's default Linear (default: none)")
    p.add_argument("--corrupt", type=_fraction_01, metavar="P",
                   help="add arbitrary values to a random share P of the label entries (sparse corruption)")
    p.add_argument("--noise", metavar="KIND:SCALE",
                   help="label noise with standard deviation SCALE, kept exactly: gaussian, rademacher, uniform, "
                        "laplace, student-t3 or adversarial (e.g. gaussian:0.05; default: none)")
    p.add_argument("--allow-degenerate", action="store_true",
                   help="keep planted units that are dead or active on every sample (by default redrawn)")
    p.add_argument("--no-planted", action="store_true", help="leave the planted weights (and clean labels) out of the file")
    p.add_argument("-o", "--output", required=True, help="instance file (.json or .npz)")
    add_time_limit(p)
    json_command(p, "generate", limited(cmd_generate, what="the instance was written"))


def _register_recover(sub) -> None:
    p = sub.add_parser("recover", help="recover weights exactly and write a certificate (only if it holds)")
    p.add_argument("instance", nargs="?", help="instance file (.json or .npz); or --inputs X --labels Y")
    add_data_arguments(p)
    p.add_argument("-k", type=positive_int_arg, required=True, help="number of hidden units")
    p.add_argument("-o", "--output", help="certificate file to write (default: INSTANCE.cert.json)")
    p.add_argument("--activation", help="relu or power:C (default: the instance's, else relu)")
    p.add_argument("--init", default="auto", help="float proposal: auto (default), search, gradient, tensor, ica, hermite, "
                   "or a weights file (.npz with U, V or a PyTorch state dict)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the proposer")
    add_bias_argument(p)
    p.add_argument("--sparse-noise", action="store_true",
                   help="labels may have a sparse set of corrupted entries (m > k): certify realizes-except")
    p.add_argument("--max-except", type=_fraction_text, metavar="FRACTION",
                   help="with --sparse-noise: certify only if at most this fraction of the label entries is excepted "
                        "(exact, e.g. 1/10 or 0.1; written into the claim; default: the route's decoding guarantee)")
    p.add_argument("--route", default="auto", choices=["auto", "rowspan", "linearized", "sparse-columns",
                                                       "sparse-corruption"],
                   help="exact route (default auto: chosen from rank(labels), m vs k and the flags; docs/recovery.md)")
    p.add_argument("--no-check", action="store_true", help="skip the second, independent check")
    p.add_argument("--stream", action="store_true", help="an .npz instance: the exact phase on a subset of samples, "
                   "then every sample verified exactly in blocks (bounded memory; automatic above 4,000,000 entries; with "
                   "--bias too)")
    p.add_argument("--subset", type=positive_int_arg, metavar="N",
                   help="with --stream: samples of the exact phase (default: sized from d, k and m; 20000 if those "
                        "give no network)")
    p.add_argument("-v", "--verbose", action="store_true", help="progress messages on stderr")
    p.add_argument("--time-limit", type=seconds_arg, help="give up (exit 3, nothing claimed) after this many seconds")
    p.add_argument("--force", action="store_true", help="run even when the up-front estimate is over a day")
    json_command(p, "recover", cmd_recover)


#: argparse type of --bias: a positive finite number (the scale of the drawn hidden biases)
_bias_scale = number_arg(0, strict=True)


def _fraction_text(text: str):
    """argparse type of --max-except: an exact rational in [0, 1] ("1/10", "0.1", "1e-2")."""
    import argparse

    from ..errors import InvalidInput as Bad
    from ..exact.rationals import to_fraction

    try:
        value = to_fraction(text)
    except Bad:
        raise argparse.ArgumentTypeError(f"must be a fraction from 0 to 1, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a fraction from 0 to 1, got {text!r}")
    return value


#: argparse type of --corrupt: a number from 0 to 1
_fraction_01 = number_arg(0, 1)


def _frobenius(M) -> float:
    """||M||_F of an exact matrix, as a float for display."""
    import numpy as np

    return float(np.linalg.norm(M.to_float()))


def _activation(text):
    from ..network import Activation

    return None if text is None else Activation.parse(text)


def _table(rows: list[tuple[str, str]]) -> str:
    w = max(len(a) for a, _ in rows)
    return "\n".join(f"  {a:<{w}}  {b}" for a, b in rows)


def _timing_rows(timings: dict[str, float]) -> list[tuple[str, str]]:
    rows = [(name, f"{t:8.3f} s") for name, t in timings.items()]
    rows.append(("total", f"{sum(timings.values()):8.3f} s"))
    return rows


def cmd_demo(args) -> int:
    from ..certificates.envelope import write_certificate
    from ..instances import planted
    from ..recover.front_door import recover

    from ..deadline import Deadline
    from ..limits import check_entries
    from ..progress import LineProgress
    from ._work import search_estimate

    deadline = Deadline(args.time_limit)
    act = _activation(args.activation)
    check_entries(args.n, args.d, args.m, "the demo instance")
    if not args.json:  # say what is being done before the work starts
        print(f"exactrelu demo: planted network d={args.d}, k={args.k}, m={args.m}, n={args.n}, activation {act}, "
              f"seed {args.seed}", flush=True)
    search_estimate(args, n=args.n, d=args.d, m=args.m, k=args.k)
    t0 = time.perf_counter()
    inst = planted(d=args.d, k=args.k, m=args.m, n=args.n, activation=act, seed=args.seed)
    t_gen = time.perf_counter() - t0
    progress = LineProgress() if (args.verbose or sys.stderr.isatty()) else None
    try:
        res = recover(inst, k=args.k, activation=act, random_state=args.seed, progress=progress, time_limit=deadline)
    finally:
        if progress is not None:
            progress.close()
    err = res.network.parameter_error(inst.planted)
    if args.output:
        write_certificate(res.certificate, args.output)
    lines = [
        f"  inputs N(0, I) as float64 (taken exactly), integer weights, labels computed exactly ({t_gen:.2f} s)",
        "phases:", _table(_timing_rows(res.timings)), "result:",
        _table([
            ("proposal", res.proposer + (f" ({res.tries} random subsets tried)" if res.tries else "")),
            ("label entries verified equal", f"{res.entries_verified} of {inst.n * inst.m} (exact rational arithmetic)"),
            ("independent checker", res.checked or "skipped"),
            ("parameter error vs planted", f"{err} (canonical form, exact)"),
        ]),
    ]
    if args.output:
        lines.append(f"certificate written to {args.output}")
    record = {"instance": {"d": args.d, "k": args.k, "m": args.m, "n": args.n, "activation": act.to_json(),
                           "seed": args.seed},
              "proposer": res.proposer, "tries": res.tries, "entries_verified": res.entries_verified,
              "n_entries": inst.n * inst.m, "checked": res.checked, "parameter_error": str(err),
              "timings": res.timings, "certificate": args.output}
    return emit(args, record, lines, ok=err == 0)


def cmd_generate(args) -> int:
    from ..instances import planted, write_instance

    inst = planted(d=args.d, k=args.k, m=args.m, n=args.n, activation=_activation(args.activation), seed=args.seed,
                   inputs=args.inputs, weights=args.weights, weight_bound=args.weight_bound,
                   input_bits=args.input_bits, bias=args.bias, noise=args.noise,
                   allow_degenerate=args.allow_degenerate, output_bias=args.output_bias)
    args.done = f"drew the instance (n={inst.n}, d={inst.d}, m={inst.m}); nothing written"
    if args.corrupt:
        from ..instances.corruption import corrupt

        inst = corrupt(inst, args.corrupt, seed=args.seed)
    out = Path(args.output)
    if out.suffix not in (".json", ".npz"):
        raise InvalidInput(f"output must end in .json or .npz, got {out.name}")
    write_instance(inst, out, include_planted=not args.no_planted)
    bias = f", hidden biases in [-{args.bias:g}, {args.bias:g}]" if args.bias is not None else ""
    if args.output_bias is not None:
        bias += f", output bias in [-{args.output_bias:g}, {args.output_bias:g}]"
    if inst.noise_model is not None:
        bias += f", label noise {inst.noise_model} (||E||_F = {_frobenius(inst.noise):.4g})"
    bad = f", {len(inst.meta['corrupted'])} corrupted label entries" if args.corrupt else ""
    record = {"instance": str(out), "n": inst.n, "d": inst.d, "m": inst.m, "k": args.k,
              "activation": inst.activation.to_json(), "bias": args.bias, "output_bias": args.output_bias,
              "noise": args.noise, "seed": args.seed,
              "corrupted_entries": len(inst.meta["corrupted"]) if args.corrupt else 0}
    if inst.noise_model is not None:
        record["noise_frobenius"] = _frobenius(inst.noise)
    return emit(args, record, f"wrote {out}: n={inst.n}, d={inst.d}, m={inst.m}, k={args.k}, "
                              f"activation {inst.activation}{bias}{bad}")


def cmd_recover(args) -> int:
    from ..certificates.envelope import write_certificate
    from ..io.files import writable

    from ..deadline import Deadline
    from ._work import search_estimate

    deadline = Deadline(args.time_limit)  # from the start: reading the file counts
    if _streams(args):
        return _recover_streaming(args, deadline)
    inst, name = read_data(args)
    out = writable(args.output if args.output else name + ".cert.json")
    if args.route in ("auto", "rowspan") and not args.sparse_noise:
        search_estimate(args, n=inst.n, d=inst.d, m=inst.m, k=args.k,
                        init=args.init if args.init in ("auto", "search") else "given")
    from ..recover.front_door import recover  # after reading the input: a bad file is refused before SciPy loads
    act = _activation(args.activation)
    if act is not None and inst.activation is not None and act != inst.activation:
        raise InvalidInput(f"--activation {act} differs from the instance's activation {inst.activation}")
    from ..progress import LineProgress

    progress = LineProgress() if (args.verbose or sys.stderr.isatty()) else None
    try:
        res = recover(inst, k=args.k, activation=act, init=args.init, random_state=args.seed, bias=bias_of(args),
                      sparse_noise=args.sparse_noise, route=args.route, check=not args.no_check, progress=progress,
                      time_limit=deadline, max_except=args.max_except)
    except NotRealizable as exc:
        if exc.certificate is None:
            if not _diagnosed(args):
                raise
            raise explained(exc, inst, args.k, act, args.seed, bias=bias_of(args)) from None
        return _certified_no(args, exc, out, inst, act)
    except AssumptionViolated as exc:
        if not _diagnosed(args):
            raise
        raise explained(exc, inst, args.k, act, args.seed, bias=bias_of(args)) from None
    finally:
        if progress is not None:
            progress.close()
    write_certificate(res.certificate, out)
    tries = f", {res.tries} {'gradient starts' if res.route == 'linearized' else 'search tries'}" if res.tries else ""
    lines = [f"certified: {res.entries_verified} label entries reproduced exactly by k={args.k} units "
             f"(route {res.route}, proposal {res.proposer}{tries})"]
    record = {"claim": res.certificate["claim"], "certificate": str(out), "k": args.k, "route": res.route,
              "entries_verified": res.entries_verified, "proposer": res.proposer, "tries": res.tries,
              "checked": res.checked, "timings": read_timings(args, res.timings), "attempts": res.attempts}
    if res.except_entries is not None:
        lines.append(_excepted(res, inst, record))
    for a in res.attempts:
        lines.append(f"route {a['route']} gave no certificate first: {a.get('error', '')}")
    if res.checked:
        lines.append(f"independent checker: {res.checked}")
    if inst.planted is not None and inst.planted.k == args.k:
        record["parameter_error"] = str(res.network.parameter_error(inst.planted))
        lines.append(f"parameter error vs planted (canonical form): {record['parameter_error']}")
    lines += [_table(_timing_rows(read_timings(args, res.timings))), f"certificate written to {out}"]
    if args.instance is None:
        lines.append(f"to check it: exactrelu import --inputs {args.inputs} --labels {args.labels} -o inst.json, then "
                     f"exactrelu check {out} inst.json")
    return emit(args, record, lines)


def _diagnosed(args) -> bool:
    """Whether a failed ``recover`` tries the wider model class (the class asked is narrower than both biases, and
    neither sparse noise nor a route was asked for)."""
    return args.bias != "both" and not args.sparse_noise and args.route == "auto"


def _streams(args) -> bool:
    """``recover`` of a large ``.npz`` (more than STREAM_ENTRIES entries, or --stream) on the row-span route without
    --sparse-noise (with or without --bias): the exact phase on a subset, every sample verified in blocks
    (recover/streaming.py)."""
    if getattr(args, "stream", False):
        if args.instance is None or not args.instance.endswith(".npz") or args.sparse_noise \
                or args.route not in ("auto", "rowspan"):
            raise InvalidInput("--stream takes an .npz instance file, without --sparse-noise, route auto or rowspan")
        return True
    if args.instance is None or not args.instance.endswith(".npz") or args.sparse_noise \
            or args.route not in ("auto", "rowspan"):
        return False
    from ..instances.checker_view import STREAM_ENTRIES
    from ..io.npz import map_npz_instance

    X, Y = map_npz_instance(args.instance)  # memory-mapped: no cost; a bad file is refused here
    return X.shape[0] * (X.shape[1] + Y.shape[1]) > STREAM_ENTRIES


def _recover_streaming(args, deadline) -> int:
    from ..certificates.envelope import write_certificate
    from ..io.files import writable
    from ..recover.streaming import recover_streaming

    out = writable(args.output if args.output else args.instance + ".cert.json")
    res = recover_streaming(args.instance, k=args.k, activation=_activation(args.activation), init=args.init,
                            random_state=args.seed, check=not args.no_check, subset=args.subset,
                            time_limit=deadline, bias=bias_of(args))
    write_certificate(res.certificate, out)
    lines = [f"certified: {res.entries_verified} label entries reproduced exactly by k={args.k} units (route "
             f"{res.route} on {res.subset} samples, every sample verified in blocks; proposal {res.proposer})"]
    if res.checked:
        lines.append(f"independent checker (reading the .npz a block at a time): {res.checked}")
    lines += [_table(_timing_rows(res.timings)), f"certificate written to {out}"]
    record = {"claim": "realizes", "certificate": str(out), "k": args.k, "route": res.route, "streamed": True,
              "subset": res.subset, "subsets_tried": res.subsets_tried, "rounds": res.rounds,
              "entries_verified": res.entries_verified,
              "proposer": res.proposer, "tries": res.tries, "checked": res.checked, "timings": res.timings}
    return emit(args, record, lines)


def _excepted(res, inst, record: dict) -> str:
    """The extent of a realizes-except claim ('37 of 1,200 entries excepted (3.1%, at most 3/8 allowed)'), also
    into ``record``."""
    from fractions import Fraction

    from ..certificates.claims.realizes import except_extent

    n_except, total = len(res.except_entries), inst.n * inst.m
    bound = res.certificate.get("max_except")
    record.update(corrupted_entries=n_except, excepted_entries=n_except, entries=total,
                  excepted_fraction=str(Fraction(n_except, total)), max_except=bound)
    return (f"{except_extent(n_except, total, None if bound is None else Fraction(bound))}, listed in the certificate "
            "(the network differs from the labels exactly there)")


def _certified_no(args, exc: NotRealizable, out: Path, inst, act) -> int:
    """A proved "no" (rank(labels) > k) is a certificate too: write it and say so (exit 1).

    The certificate refutes every k-unit network (any activation, any hidden biases); when the
    labels have a structure that explains the extra rank (a constant output offset, say), the
    diagnosis follows on the next line, as for an uncertified refusal.
    """
    from ..certificates.envelope import write_certificate
    from ..recover.diagnosis import explain_failure

    write_certificate(exc.certificate, out)
    summary = exc.evidence.get("certificate")
    hint = None if not _diagnosed(args) else explain_failure(inst, args.k, act, bias=bias_of(args),
                                                             random_state=args.seed)
    record = {"claim": "not-realizable", "certificate": str(out), "k": args.k, "certified": True,
              "model": exc.certificate.get("model"), "message": str(exc), "checked": summary, "diagnosis": hint}
    lines = [f"NOT REALIZABLE (certified): {summary}", f"not-realizable certificate written to {out}"]
    if hint is not None:
        lines.append(f"Diagnosis: {hint}")
    return emit(args, record, lines, ok=False)


def explained(exc, inst, k: int, act, seed, *, bias=False) -> Exception:
    """``exc`` with the wider model class that reproduces the labels appended, when
    :mod:`exactrelu.recover.diagnosis` certifies one (``bias``: the class asked)."""
    from ..recover.diagnosis import explain_failure

    hint = explain_failure(inst, k, act, bias=bias, random_state=seed)
    if hint is None:
        return exc
    text = str(exc).rstrip()
    text = f"{text}{'' if text.endswith('.') else '.'} Diagnosis (certified: the labels are exact): {hint}"
    return type(exc)(text, evidence=exc.evidence)  # AssumptionViolated's suggestion is already in its text
