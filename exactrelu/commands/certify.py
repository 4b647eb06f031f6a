"""``exactrelu certify INSTANCE --weights FILE``: certify weights trained elsewhere."""

from __future__ import annotations

from fractions import Fraction


def register(sub) -> None:
    p = sub.add_parser(
        "certify", help="certify given weights (.npz U, V or a PyTorch state dict), or exact weights found from them",
        description="Read weights U (m x k), V (k x d) from an .npz or a PyTorch state dict of "
                    "Linear(d,k,bias=False) -> ReLU -> Linear(k,m,bias=False) (loaded with weights_only=True). "
                    "If they reproduce the labels exactly they are certified as given; otherwise their first layer "
                    "is a proposal for exact recovery (unless --as-given). When no exact certificate can be given "
                    "(float-rounded or noisy labels), the exact residual of the given weights is written as a "
                    "residual certificate (exit 0; with --as-given: exit 1, nothing written).")
    p.add_argument("instance", help="instance file (.json or .npz)")
    p.add_argument("--weights", required=True, help=".npz with arrays U and V, JSON with rational rows U and V "
                   "(e.g. a certificate), or a PyTorch state-dict file (.pt)")
    p.add_argument("-o", "--output", help="certificate file (default: INSTANCE.cert.json)")
    p.add_argument("--activation", help="relu or power:C (default: the instance's, else relu)")
    p.add_argument("--as-given", action="store_true", help="certify the weights exactly as given or fail; no recovery")
    p.add_argument("--seed", type=int, default=0, help="seed of the search for units the weights miss")
    p.add_argument("--no-check", action="store_true", help="skip the second, independent check")
    p.add_argument("--time-limit", type=float, help="give up (exit 1, nothing claimed) after this many seconds")
    p.set_defaults(func=cmd_certify)


def cmd_certify(args) -> int:
    from ..certificates.envelope import write_certificate
    from ..errors import InvalidInput
    from ..instances import read_instance
    from ..network import Activation
    from ..recover.weights import certify_weights
    from ..weights_file import read_weights

    from ..files import writable

    out = writable(args.output if args.output else str(args.instance) + ".cert.json")
    inst = read_instance(args.instance)
    act = None if args.activation is None else Activation.parse(args.activation)
    if act is not None and inst.activation is not None and act != inst.activation:
        raise InvalidInput(f"--activation {act} differs from the instance's activation {inst.activation}")
    # exact: JSON rationals, floats taken exactly, hidden biases; a file naming another activation is refused
    given = read_weights(args.weights, activation=act or inst.activation)
    res = certify_weights(inst, given.U, given.V, b=given.b, activation=given.activation,
                          as_given=args.as_given, random_state=args.seed, check=not args.no_check,
                          residual_fallback=not args.as_given, time_limit=args.time_limit)
    write_certificate(res.certificate, out)
    if res.given_residual is None:
        print(f"certified as given: the weights of {args.weights} reproduce all {inst.n * inst.m} label entries exactly")
    elif res.certificate["claim"] == "residual":
        r, c = res.given_residual, res.certificate
        print(f"no exact certificate: the given weights are not exact ({r['n_failing']} of {r['n_entries']} entries "
              f"differ) and no exact weights were found from them")
        print(f"residual certificate of the given weights: squared error {float(Fraction(c['squared_error'])):.6g}, "
              f"largest |error| {float(Fraction(c['max_abs_error'])):.3g} (exact rationals in the certificate; "
              "how good the fit is, not that it is exact or optimal)")
    else:
        r = res.given_residual
        print(f"the given weights are not exact ({r['n_failing']} of {r['n_entries']} entries differ, largest "
              f"residual {float(Fraction(r['max_residual'])):.3g})")
        print(f"certified exact weights recovered from their first layer; largest weight change "
              f"{res.max_weight_change:.3g} (canonical form)")
    if res.checked:
        print(f"independent checker: {res.checked}")
    print(f"certificate written to {out}")
    return 0
