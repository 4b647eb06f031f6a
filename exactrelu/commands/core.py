"""``exactrelu demo | generate | recover | check``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..errors import InvalidInput, NotRealizable

DEMO = dict(d=20, k=5, m=5, n=5000)


def register(sub) -> None:
    p = sub.add_parser("demo", help="recover and certify a planted network (d=20, k=5, m=5, n=5000)",
                       description="Generate a planted instance, recover its weights exactly, check the certificate "
                                   "with the independent checker, and report times and errors.")
    p.add_argument("--seed", type=int, default=0, help="seed of the planted instance (default 0)")
    p.add_argument("--activation", default="relu", help="relu (default) or power:C")
    for name, default in DEMO.items():
        p.add_argument(f"-{name}", type=int, default=default, help=f"{name} (default {default})")
    p.add_argument("-o", "--output", help="also write the certificate here")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("generate", help="write a planted instance (JSON exact, or .npz float64)")
    for name in ("d", "k", "m", "n"):
        p.add_argument(f"-{name}", type=int, required=True)
    p.add_argument("--activation", default="relu", help="relu (default) or power:C")
    p.add_argument("--inputs", default="gaussian", help="gaussian (default), uniform, laplace, rademacher-mixture, integer")
    p.add_argument("--weights", default="integer", help="integer (default) or dyadic")
    p.add_argument("--weight-bound", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--input-bits", type=int, help="round inputs to multiples of 2**-B (needed for .npz: labels then fit float64)")
    p.add_argument("--bias", type=_bias_scale, metavar="S",
                   help="hidden biases b_i drawn uniformly in [-S, S], rounded to quarters (default: no biases)")
    p.add_argument("--noise", metavar="KIND:SCALE",
                   help="label noise with standard deviation SCALE, kept exactly: gaussian, rademacher, uniform, "
                        "laplace, student-t3 or adversarial (e.g. gaussian:0.05; default: none)")
    p.add_argument("--no-planted", action="store_true", help="leave the planted weights (and clean labels) out of the file")
    p.add_argument("-o", "--output", required=True, help="instance file (.json or .npz)")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("recover", help="recover weights exactly and write a certificate (only if it holds)")
    p.add_argument("instance", help="instance file (.json or .npz)")
    p.add_argument("-k", type=int, required=True, help="number of hidden units")
    p.add_argument("-o", "--output", help="certificate file to write (default: INSTANCE.cert.json)")
    p.add_argument("--activation", help="relu or power:C (default: the instance's, else relu)")
    p.add_argument("--init", default="auto", help="float proposal: auto (default), search, gradient, tensor, ica, "
                   "or a weights file (.npz with U, V or a PyTorch state dict)")
    p.add_argument("--seed", type=int, default=0, help="seed of the proposer")
    p.add_argument("--no-check", action="store_true", help="skip the second, independent check")
    p.add_argument("-v", "--verbose", action="store_true", help="progress messages on stderr")
    p.add_argument("--time-limit", type=float, help="give up (exit 1, nothing claimed) after this many seconds")
    p.set_defaults(func=cmd_recover)

    p = sub.add_parser("check", help="verify a certificate with the independent checker (exit 0 valid, 1 invalid)")
    p.add_argument("certificate")
    p.add_argument("instance", nargs="?", help="the instance the certificate is about")
    p.set_defaults(func=cmd_check)


def _bias_scale(text: str) -> float:
    """argparse type of --bias: a positive finite number."""
    import argparse
    import math

    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (math.isfinite(s) and s > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return s


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
    from ..recover.exact import recover

    act = _activation(args.activation)
    print(f"exactrelu demo: planted network d={args.d}, k={args.k}, m={args.m}, n={args.n}, activation {act}, seed {args.seed}")
    t0 = time.perf_counter()
    inst = planted(d=args.d, k=args.k, m=args.m, n=args.n, activation=act, seed=args.seed)
    t_gen = time.perf_counter() - t0
    print(f"  inputs N(0, I) as float64 (taken exactly), integer weights, labels computed exactly ({t_gen:.2f} s)")
    res = recover(inst, k=args.k, activation=act, random_state=args.seed)
    err = res.network.parameter_error(inst.planted)
    print("phases:")
    print(_table(_timing_rows(res.timings)))
    print("result:")
    print(_table([
        ("proposal", res.proposer + (f" ({res.tries} random subsets tried)" if res.tries else "")),
        ("label entries verified equal", f"{res.entries_verified} of {inst.n * inst.m} (exact rational arithmetic)"),
        ("independent checker", res.checked or "skipped"),
        ("parameter error vs planted", f"{err} (canonical form, exact)"),
    ]))
    if args.output:
        write_certificate(res.certificate, args.output)
        print(f"certificate written to {args.output}")
    return 0 if err == 0 else 1


def cmd_generate(args) -> int:
    from ..instances import planted, write_instance

    inst = planted(d=args.d, k=args.k, m=args.m, n=args.n, activation=_activation(args.activation), seed=args.seed,
                   inputs=args.inputs, weights=args.weights, weight_bound=args.weight_bound,
                   input_bits=args.input_bits, bias=args.bias, noise=args.noise)
    out = Path(args.output)
    if out.suffix not in (".json", ".npz"):
        raise InvalidInput(f"output must end in .json or .npz, got {out.name}")
    write_instance(inst, out, include_planted=not args.no_planted)
    bias = f", hidden biases in [-{args.bias:g}, {args.bias:g}]" if args.bias is not None else ""
    if inst.noise_model is not None:
        bias += f", label noise {inst.noise_model} (||E||_F = {_frobenius(inst.noise):.4g})"
    print(f"wrote {out}: n={inst.n}, d={inst.d}, m={inst.m}, k={args.k}, activation {inst.activation}{bias}")
    return 0


def cmd_recover(args) -> int:
    from ..certificates.envelope import write_certificate
    from ..instances import read_instance
    from ..recover.exact import recover

    from ..files import writable

    out = writable(args.output if args.output else str(args.instance) + ".cert.json")
    inst = read_instance(args.instance)
    act = _activation(args.activation)
    if act is not None and inst.activation is not None and act != inst.activation:
        raise InvalidInput(f"--activation {act} differs from the instance's activation {inst.activation}")
    from ..progress import LineProgress

    progress = LineProgress() if (args.verbose or sys.stderr.isatty()) else None
    try:
        res = recover(inst, k=args.k, activation=act, init=args.init, random_state=args.seed,
                      check=not args.no_check, progress=progress, time_limit=args.time_limit)
    except NotRealizable as exc:
        if exc.certificate is None:
            raise
        write_certificate(exc.certificate, out)  # a proved "no" (rank(labels) > k) is a certificate too
        print(f"NOT REALIZABLE (certified): {exc.evidence.get('certificate')}")
        print(f"not-realizable certificate written to {out}")
        return 1
    finally:
        if progress is not None:
            progress.close()
    write_certificate(res.certificate, out)
    tries = f", {res.tries} search tries" if res.tries else ""
    print(f"certified: {res.entries_verified} label entries reproduced exactly by k={args.k} units "
          f"(proposal {res.proposer}{tries})")
    if res.checked:
        print(f"independent checker: {res.checked}")
    if inst.planted is not None and inst.planted.k == args.k:
        print(f"parameter error vs planted (canonical form): {res.network.parameter_error(inst.planted)}")
    print(_table(_timing_rows(res.timings)))
    print(f"certificate written to {out}")
    return 0


def cmd_check(args) -> int:
    from ..certificates import checker

    try:
        summary = checker.check_files(args.certificate, args.instance)
    except checker.UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None
    except checker.CheckFailed as exc:
        print(f"INVALID: {exc}")
        return 1
    print(f"VALID: {summary}")
    return 0
