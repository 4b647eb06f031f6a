"""``exactrelu fit INSTANCE -k K -o WEIGHTS``: approximate weights for noisy labels, exact residual."""

from __future__ import annotations

import sys
import warnings
from ..arguments import number_arg, positive_int_arg, seconds_arg, seed_arg

from ..errors import FitNotConverged
from ._data import add_bias_argument, add_data_arguments, bias_of, read_data, read_timings
from ._report import emit, json_command


def register(sub) -> None:
    from ..fit import METHODS, method_names

    methods = "; ".join(f"{n}: {e.summary}" for n, e in METHODS.items())
    p = sub.add_parser(
        "fit", help="fit weights to noisy labels; write them with their exact residual (a residual certificate)",
        description="Fit k hidden units to labels that need not be exactly realizable, write the weights "
                    "(exactrelu.weights, exact rationals) and their exact squared error on the data as a residual "
                    "certificate, verified by the independent checker. The certificate states how good the fit "
                    f"is, not that it is optimal. Methods: auto (tensor when k <= d, else gradient); {methods}.")
    p.add_argument("instance", nargs="?", help="instance file (.json or .npz); or --inputs X --labels Y")
    add_data_arguments(p)
    p.add_argument("-k", type=positive_int_arg, required=True, help="number of hidden units")
    add_bias_argument(p)
    p.add_argument("--method", default="auto", choices=method_names(), help="start method (default auto)")
    p.add_argument("--no-refine", action="store_true", help="skip the refinement after the start method")
    p.add_argument("-o", "--output", required=True, help="weights file to write (exactrelu.weights JSON)")
    p.add_argument("--certificate", help="also write the residual certificate here")
    p.set_defaults(output_args=("certificate",))  # checked before the work (cli._check_outputs)
    p.add_argument("--activation", help="relu or power:C (default: the instance's, else relu)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the random choices (default 0)")
    p.add_argument("--no-check", action="store_true", help="skip the independent check of the certificate")
    p.add_argument("-v", "--verbose", action="store_true", help="progress messages on stderr")
    p.add_argument("--noise", type=number_arg(0), metavar="SIGMA",
                   help="standard deviation of the label noise per entry, if known: each stage is compared with "
                        "this noise floor (default: the instance's planted noise, else the best affine map)")
    p.add_argument("--time-limit", type=seconds_arg, help="give up (exit 3, nothing claimed) after this many seconds")
    p.add_argument("--force", action="store_true", help="run even when the up-front estimate says it cannot finish")
    json_command(p, "fit", cmd_fit)


def _rows(res, inst, args) -> list[tuple[str, str]]:
    import numpy as np

    r = res.residual
    from ..certificates.trusted.common import approx

    rows = [("squared error (exact)", approx(r.squared_error) + ("" if r.squared_error == 0 else
                                                                  " (exact rational in the certificate)")),
            ("||residual||_F / ||labels||_F", f"{r.relative():.4g}"),
            ("largest |error|", approx(r.max_abs_error))]
    if inst.clean_labels is not None:
        e = float(np.linalg.norm(inst.noise.to_float()))
        ratio = f"{r.rms() * r.n_entries ** 0.5 / e:.5f}" if e > 0 else "(no noise)"  # rms(): no OverflowError
        rows.append(("||residual||_F / ||E||_F (planted noise)", ratio))
    if inst.planted is not None and inst.planted.k == args.k == res.network.k:  # hermite may add two linear units
        from ..propose.floats import angular_errors

        ang = angular_errors(res.network.V.to_float(), inst.planted.V.to_float()).max()
        rows.append(("worst row angle vs planted V", f"{float(ang):.3g} rad"))
    return rows


def cmd_fit(args) -> int:
    from ..certificates.envelope import write_certificate
    from ..progress import LineProgress
    from ..io.weights import write_weights
    from .core import _activation, _table

    from ..deadline import Deadline
    from ._work import announce_fit

    deadline = Deadline(args.time_limit)  # from the start: reading the file counts
    inst, name = read_data(args)
    announce_fit(args, inst)
    from ..fit import fit  # after reading the input: a bad file is refused before SciPy loads
    progress = LineProgress() if (args.verbose or sys.stderr.isatty()) else None
    try:
        with warnings.catch_warnings():  # FitNotConverged is printed below, with the result
            warnings.simplefilter("ignore", FitNotConverged)
            res = fit(inst, args.k, bias=bias_of(args), method=args.method, activation=_activation(args.activation),
                      random_state=args.seed, refine=False if args.no_refine else None, noise=args.noise,
                      certificate=True, check=not args.no_check, progress=progress, time_limit=deadline)
    finally:
        if progress is not None:
            progress.close()
    auto = " (auto)" if args.method == "auto" else ""
    lines = [f"fit: method {res.method}{auto}, k={args.k}{_class_text(args)}, "
             f"{inst.n} samples x {inst.m} outputs"]
    if "fallback" in res.info:
        lines.append(f"  fell back to gradient: {res.info['fallback']}")
    if "zero_labels" in res.info:
        lines.append(f"  {res.info['zero_labels']}")
    lines += [f"warning: {w}" for w in res.warnings]
    rows = [("read", f"{args.read_seconds:8.3f} s")]
    rows += [(s.name, f"{s.seconds:8.3f} s   relative residual {s.relative:.4g}") for s in res.stages]
    rows += [(n, f"{t:8.3f} s") for n, t in res.timings.items() if n not in {s.name for s in res.stages}]
    rows.append(("total", f"{sum(read_timings(args, res.timings).values()):8.3f} s"))
    lines += ["phases:", _table(rows), "residual:", _table(_rows(res, inst, args))]
    if res.realizable and "zero_labels" not in res.info:
        lines.append(f"the labels are exactly realizable by k={args.k} units; `exactrelu recover {name} "
                     f"-k {args.k}` writes a realizes certificate")
    if res.checked:
        lines.append(f"independent checker: {res.checked}")
    out = write_weights(res.network, args.output, method=res.method, seed=args.seed, command="fit")
    lines.append(f"weights written to {out}")
    if args.certificate:
        write_certificate(res.certificate, args.certificate)
        lines.append(f"residual certificate written to {args.certificate}")
    r = res.residual
    record = {"method": res.method, "k": args.k, "bias": args.bias or "none", "weights": str(out),
              "certificate": args.certificate, "squared_error": str(r.squared_error),
              "max_abs_error": str(r.max_abs_error), "relative_error": r.relative(), "realizable": res.realizable,
              "checked": res.checked, "timings": read_timings(args, res.timings), "warnings": res.warnings,
              "converged": not res.warnings, "noise_floor": res.info.get("noise_floor"),
              "affine_baseline": res.info.get("affine_baseline"), "zero_labels": "zero_labels" in res.info,
              "stages": [{"name": s.name, "seconds": s.seconds, "relative": s.relative} for s in res.stages]}
    return emit(args, record, lines)


def _class_text(args) -> str:
    """', with hidden biases and with output bias': the class fitted, in the checker's words ('' without --bias)."""
    from ..certificates.claims.model import bias_class, class_words

    return f", {class_words(bias_class(bias_of(args)))}" if args.bias else ""
