"""``exactrelu export NET -o FILE``: a certified network as a PyTorch state dict, ``.safetensors`` or ONNX."""

from __future__ import annotations

from ._report import emit, json_command

LOADERS = {
    ".pt": "model.load_state_dict(torch.load('{path}'))",
    ".pth": "model.load_state_dict(torch.load('{path}'))",
    ".safetensors": "model.load_state_dict(safetensors.torch.load_file('{path}'))",
    ".onnx": "onnx.reference.ReferenceEvaluator('{path}').run(None, {{'x': inputs}})",
}


def register(sub) -> None:
    p = sub.add_parser("export", help="write a network as a PyTorch state dict (.pt), .safetensors or ONNX",
                       description="Write a network (any weights file the project reads, or a realizes certificate) "
                                   "for PyTorch: a state dict loadable into nn.Sequential(nn.Linear(d, k), nn.ReLU(), "
                                   "nn.Linear(k, m)), with one Linear and ReLU more per further hidden layer (.pt, "
                                   "needs torch; .safetensors, loaded by safetensors.torch.load_file), or an ONNX "
                                   "graph Gemm, Relu, ..., Gemm (.onnx). Every "
                                   "exact value is rounded to the nearest float of --dtype, and the output says "
                                   "whether that was exact or the largest rounding error, computed exactly.")
    p.add_argument("network", metavar="NET", help="weights file: exactrelu.weights JSON or a certificate with U, V "
                   "(b, c), or a binary weights file of any depth (.npz, .safetensors, .pt, .onnx)")
    p.add_argument("-o", "--output", required=True, help="the file to write: .pt, .safetensors or .onnx")
    p.add_argument("--dtype", choices=("float32", "float64"), default="float32",
                   help="the floats written (default float32, PyTorch's default; a float64 state dict loads into "
                        "model.double())")
    json_command(p, "export", cmd_export)


def cmd_export(args) -> int:
    from ..errors import InvalidInput
    from ..io.export import FORMATS, affine_layers, export_network
    from ..io.files import writable

    out = writable(args.output)  # an output that is an input is refused there
    if out.suffix.lower() not in FORMATS:
        raise InvalidInput(f"cannot tell the format of {out.name}: use .pt (PyTorch), .safetensors or .onnx")
    net = _read(args.network)
    rounding = export_network(net, out, dtype=args.dtype)
    layers = affine_layers(net)
    widths = [len(layers[0][0][0]), *(len(W) for W, _ in layers)]
    units = ", ".join(map(str, widths[1:-1]))
    parts = "".join(f", {name}" for name, there in (("hidden biases", any(any(b) for _, b in layers[:-1])),
                                                      ("output bias", any(layers[-1][1]))) if there)
    what = FORMATS[out.suffix.lower()]
    layout = "nn.Sequential(" + ", nn.ReLU(), ".join(f"nn.Linear({a}, {b})" for a, b in zip(widths, widths[1:])) + ")"
    article = "an" if what[0] in "AEIOU" else "a"
    lines = [f"exported {args.network} ({units} units{parts}) as {article} {what} of {layout} to {out}",
             f"values: {rounding.text()}",
             f"load: {LOADERS[out.suffix.lower()].format(path=out)}"]
    record = {"network": str(args.network), "output": str(out), "format": what, "dtype": args.dtype,
              "layout": layout, "values": rounding.count, "rounded": rounding.rounded, "exact": rounding.exact,
              "largest_rounding_error": str(rounding.worst), "where": rounding.worst_where or None}
    return emit(args, record, lines)


def _read(path: str):
    """The network of ``path``: a JSON weights file or certificate (two layers), or the layer stack of a binary weights
    file of any depth (read exactly by :mod:`exactrelu.io.binary_weights`)."""
    from ..io.binary_weights import read_weights_stack, weights_kind
    from ..io.weights import read_weights

    if weights_kind(path) == "json":
        return read_weights(path)
    return read_weights_stack(path)
