"""``exactrelu certify INSTANCE --weights FILE``: certify weights trained elsewhere, and say exactly what was certified."""

from __future__ import annotations

from ._data import add_data_arguments, read_data
from ._report import emit, json_command
from ..arguments import seconds_arg, seed_arg
from ._weights import add_layers_argument, read_net


#: the claims certify can certify, strongest first (a stronger claim implies what --require asks for)
CLAIMS = ("realizes", "realizes-except", "residual")


def register(sub) -> None:
    p = sub.add_parser(
        "certify", help="certify given weights exactly, or say how far they are and certify weights recovered from the labels",
        description="Read weights (an exactrelu.weights or other JSON file with U, V and optionally b, c, such as a "
                    "certificate; an .npz with U, V, b, c; a .safetensors file; an ONNX graph; a PyTorch state dict "
                    "of Linear -> ReLU -> ... -> Linear, whose last bias is the output bias c). If they "
                    "reproduce every label exactly, they are certified as given (claim realizes, exit 0). Otherwise "
                    "their exact residual is reported and, unless --as-given, exact recovery from the labels runs "
                    "with their first layer as proposal: the realizes certificate is then about the recovered "
                    "weights. When no exact certificate can be given (float-rounded or noisy labels), the exact "
                    "residual of the given weights is written as a residual certificate. The first line names the "
                    "claim certified and why a stronger one failed. Exit 0 only when the given weights are certified "
                    "as given (with --require CLAIM: when CLAIM or a stronger claim is certified, about any "
                    "weights), else 1 (a certificate is still written); --as-given: exit 1 and nothing written "
                    "unless the given weights are exact.")
    p.add_argument("instance", nargs="?", help="instance file (.json or .npz); or --inputs X --labels Y")
    add_data_arguments(p)
    p.add_argument("--weights", required=True, help="weights file: exactrelu.weights JSON (or any JSON with rational "
                   "rows U, V, b, c, e.g. a certificate), .npz with U, V (b, c), .safetensors, .onnx, or a PyTorch "
                   "state dict (.pt: torch.save(model.state_dict(), path))")
    add_layers_argument(p)
    p.add_argument("-o", "--output", help="certificate file (default: INSTANCE.cert.json)")
    p.add_argument("--activation", help="relu or power:C (default: the instance's, else relu)")
    p.add_argument("--as-given", action="store_true", help="certify the weights exactly as given or fail; no recovery")
    p.add_argument("--require", choices=CLAIMS, metavar="CLAIM",
                   help="exit 0 when this claim or a stronger one is certified, about the given or recovered weights "
                        "(realizes > realizes-except > residual); else 1")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the search for units the weights miss")
    p.add_argument("--no-check", action="store_true", help="skip the second, independent check")
    p.add_argument("--time-limit", type=seconds_arg, help="give up (exit 3, nothing claimed) after this many seconds")
    json_command(p, "certify", cmd_certify)


def _num(x) -> str:
    from ..certificates.trusted.common import approx

    return approx(x)  # float(x) overflows past 1e308


def cmd_certify(args) -> int:
    from ..certificates.envelope import write_certificate

    inst, act, given, out = _inputs(args)
    from ..recover.given_weights import certify_weights  # after reading the input: a bad file is refused before SciPy loads
    res = certify_weights(inst, given, activation=act, as_given=args.as_given, random_state=args.seed,
                          check=not args.no_check, residual_fallback=not args.as_given,
                          time_limit=args.time_limit)
    write_certificate(res.certificate, out)
    record = _record(args, res, out)
    claim = res.certificate["claim"]
    if res.how == "as given":
        lines = _as_given_lines(args, res)
    elif res.how == "residual of the given weights":
        lines = _residual_lines(args, res, inst, given, act, record)
    else:
        lines = _recovered_lines(args, res)
    if res.checked:
        lines.append(f"independent checker: {res.checked}")
    about = "the recovered weights" if res.how == "recovered from the labels" else "the given weights"
    lines.append(f"certificate ({claim}, about {about}) written to {out}")
    ok = res.how == "as given" if args.require is None else CLAIMS.index(claim) <= CLAIMS.index(args.require)
    if not ok:
        why = ("the given weights were not certified as given" if args.require is None
               else f"--require {args.require}: only {claim} was certified")
        lines.append(f"exit 1: {why}")
    return emit(args, record, lines, ok=ok)


def _inputs(args) -> tuple:
    """(instance, activation asked for or None, the given network, the output path), all checked."""
    from ..errors import InvalidInput
    from ..io.files import writable
    from ..network import Activation

    inst, name = read_data(args)
    out = writable(args.output if args.output else name + ".cert.json")
    act = None if args.activation is None else Activation.parse(args.activation)
    if act is not None and inst.activation is not None and act != inst.activation:
        raise InvalidInput(f"--activation {act} differs from the instance's activation {inst.activation}")
    given = read_net(args, args.weights, act or inst.activation, args.layers)
    if given.d == inst.d:
        given.check_exact_size(inst.inputs)  # before SciPy loads: a hostile power is refused at once
    return inst, act, given, out


def _record(args, res, out) -> dict:
    """The ``--json`` record of a certification."""
    r, k = res.given_residual, (res.network.k if res.network.depth == 2 else None)
    certified = {"as given": "given weights", "recovered from the labels": "weights recovered from the labels",
                 "residual of the given weights": "residual of the given weights"}[res.how]
    return {"certified": certified, "about": "given" if res.how != "recovered from the labels" else "recovered",
            "stronger_claim_failed": res.stronger_failed, "required": args.require,
            "weights": str(args.weights), "claim": res.certificate["claim"], "certificate": str(out), "k": k,
            "widths": list(res.network.widths),
            "given_residual": {"n_failing": r.n_failing, "n_entries": r.n_entries,
                               "squared_error": str(r.squared_error), "max_abs_error": str(r.max_abs_error),
                               "relative_error": r.relative(), "worst": r.worst},
            "units_from_given_first_layer": res.from_given,
            "distance_to_given": res.distance.to_json() if res.distance else None, "checked": res.checked}


def _not_exact(args, res) -> str:
    """How far the given weights are from the labels (empty when they are exact)."""
    r = res.given_residual
    if not r.n_failing:
        return ""
    return (f"the weights in {args.weights} are not exact on this instance: {r.n_failing} of {r.n_entries} label "
            f"entries differ; exact squared error {_num(r.squared_error)} (relative {r.relative():.3g}), largest "
            f"difference {_num(r.max_abs_error)} at sample {r.worst[0]}, output {r.worst[1]}")


def _as_given_lines(args, res) -> list[str]:
    if res.given.depth != 2:
        shape = f"depth {res.given.depth}, widths {'-'.join(map(str, res.given.widths))}"
    else:
        bias = ", hidden biases included" if res.given.has_bias else ""
        bias += ", output bias included" if res.given.has_output_bias else ""
        shape = f"{res.network.k} units{bias}"
    return [f"certified: realizes, about the given weights (certified as given): the weights in {args.weights} "
            f"reproduce all {res.given_residual.n_entries} label entries exactly ({shape})"]


def _residual_lines(args, res, inst, given, act, record: dict) -> list[str]:
    """Only a residual was certified: say so, and add the diagnosis of the labels (also to ``record``)."""
    from ..recover.diagnosis import explain_failure
    from ..recover.given_weights import weights_class

    r = res.given_residual
    also = ("and for weights recovered from the labels" if given.depth == 2 else
            "(recovery from the labels is for two-layer networks)")
    lines = [f"certified: residual only (the residual certificate of the given weights: their exact squared and "
             f"largest error, how good the fit is, not that it is exact or optimal); realizes failed for them "
             f"({r.n_failing} of {r.n_entries} label entries differ) {also}",
             _not_exact(args, res), f"why no exact certificate: {res.stronger_failed}"]
    record["diagnosis"] = (explain_failure(inst, given.k, act or given.activation, bias=weights_class(given),
                                           random_state=args.seed) if given.depth == 2 else None)
    if record["diagnosis"]:
        lines.append(f"Diagnosis: {record['diagnosis']}")
    return lines


def _recovered_lines(args, res) -> list[str]:
    """Weights recovered from the labels were certified: how they were found, and how far from the given ones."""
    k = res.network.k
    if res.from_given is None:
        found = f"the given weights were the float proposal of the {res.route} route"
    else:
        searched = k - res.from_given
        found = (f"{res.from_given} of its {k} units were found from the given first layer used as a float "
                 "proposal (it only chooses samples; the exact step finds whichever unit they isolate)"
                 + (f", {searched} by blind search" if searched else ""))
    dist = res.distance
    return [
        f"certified: realizes, about weights recovered from the labels, not the given ones (realizes failed for "
        f"them: {res.given_residual.n_failing} of {res.given_residual.n_entries} label entries differ)",
        _not_exact(args, res),
        f"certified instead: a network recovered exactly from the labels, not the given weights; {found}",
        f"distance from the given weights (units matched, each rescaled to the given unit's scale: the same "
        f"function): largest entry difference "
        f"{_num(dist.max_abs)} (U {_num(dist.max_U)}, V {_num(dist.max_V)}, b {_num(dist.max_b)}), relative "
        f"{dist.relative:.3g}",
    ]
