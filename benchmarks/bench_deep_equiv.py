"""Exact equivalence of deep ReLU networks on R^d (issue 37): times, case-tree sizes, every certificate checked.

    python benchmarks/bench_deep_equiv.py                 # ACAS Xu nets (needs `onnx`) and random 10-32-32-m pairs
    python benchmarks/bench_deep_equiv.py --no-acas       # the random pairs only

1. **ACAS Xu** (5-50x6-5, the NNEquiv networks in ../shared/benchmarks/nnequiv/, read here from ONNX: the
   input shift ``Sub`` folded into the first bias, then MatMul + Add per layer): each net against a copy rewritten
   by symmetry (every hidden layer permuted and positively rescaled, one neuron split in two halves, one dead
   neuron added), and against the net with one hidden bias changed by 1/1000.
2. **Random 10-32-32-m** nets with small integer weights: the symmetric rewrite; one bias changed; and pairs that
   only a case split proves, made with G gadgets per pair: a second-layer neuron ``relu(relu(z + 1) - relu(z))``
   (always active, in [0, 1]) in one net against its value ``relu(z + 1) - relu(z)`` passed through in the other,
   and a never-active neuron ``relu(relu(z) - relu(z + 1))`` with a non-zero output weight.

Every answer is checked by the independent checker (the times include it). Times are wall-clock seconds of one
run on a shared 2-core machine: say how loaded it was when you quote them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from exactrelu.equiv import functionally_equal  # noqa: E402
from exactrelu.network import Network  # noqa: E402

NNEQUIV = next((p / "shared" / "benchmarks" / "nnequiv" for p in Path(__file__).resolve().parents
                if (p / "shared" / "benchmarks" / "nnequiv").is_dir()), Path("shared/benchmarks/nnequiv"))
F = Fraction


def onnx_chain(path: Path) -> Network:
    """The MatMul + Add (+ Relu) chain of an NNEquiv ONNX file; a leading ``Sub`` of a constant is folded in."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    init = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in model.graph.initializer}
    shift, layers, W = None, [], None
    for node in model.graph.node:
        if node.op_type == "Sub":
            shift = init[node.input[1]].reshape(-1)
        elif node.op_type == "MatMul":
            W = init[node.input[1]].T
        elif node.op_type == "Add":
            layers.append([W, init[node.input[1]].reshape(-1)])
    if shift is not None:  # W (x - a) + b = W x + (b - W a), exactly as float64 would not be: do it exactly
        W0 = [[F(float(v)) for v in row] for row in layers[0][0]]
        b0 = [F(float(bi)) - sum(w * F(float(a)) for w, a in zip(row, shift)) for bi, row in zip(layers[0][1], W0)]
        layers[0] = [W0, b0]
    return Network.from_layers([(W, b) for W, b in layers])


def layers_of(net):
    return [([list(r) for r in layer.W.to_fractions()], layer.b_fractions()) for layer in net.layers]


def rewrite(net: Network, rnd: random.Random) -> Network:
    """Permute and positively rescale every hidden layer, split neuron 0 in two, add a dead neuron."""
    L = layers_of(net)
    for t in range(len(L) - 1):
        (W, b), (Wn, bn) = L[t], L[t + 1]
        perm = list(range(len(W)))
        rnd.shuffle(perm)
        s = [F(rnd.randint(1, 8), rnd.randint(1, 8)) for _ in W]
        W, b = [[x * s[i] for x in W[i]] for i in perm], [b[i] * s[i] for i in perm]
        Wn = [[row[i] / s[i] for i in perm] for row in Wn]
        W.append(list(W[0]))
        b.append(b[0])
        for row in Wn:
            row[0] /= 2
            row.append(row[0])
        W.append([F(0)] * len(W[0]))
        b.append(F(-1))
        for row in Wn:
            row.append(F(5))
        L[t], L[t + 1] = (W, b), (Wn, bn)
    return Network.from_layers(L)


def bias_changed(net: Network) -> Network:
    L = layers_of(net)
    L[len(L) // 2][1][0] += F(1, 1000)
    return Network.from_layers(L)


def gadgets(widths, G: int, seed: int) -> tuple[Network, Network]:
    """A random net with G always-active and G never-active gadgets (module docstring) in one of the pair."""
    rng = np.random.default_rng(seed)
    d, k1, k2, m = widths
    W1 = [[F(int(v)) for v in r] for r in rng.integers(-3, 4, (k1, d))]
    b1 = [F(int(v)) for v in rng.integers(-2, 3, k1)]
    W2 = [[F(int(v)) for v in r] for r in rng.integers(-3, 4, (k2, k1))]
    b2 = [F(int(v)) for v in rng.integers(-2, 3, k2)]
    W3 = [[F(int(v)) for v in r] for r in rng.integers(-3, 4, (m, k2))]
    A1, Ab1, B1, Bb1 = [r[:] for r in W1], b1[:], [r[:] for r in W1], b1[:]
    A2, Ab2, B2, Bb2 = [r[:] for r in W2], b2[:], [r[:] for r in W2], b2[:]
    A3, B3 = [r[:] for r in W3], [r[:] for r in W3]
    for g in range(G):
        i = g % k1
        for L1, bb in ((A1, Ab1), (B1, Bb1)):  # a shifted copy of neuron i: relu(z_i + 1), read by the gadgets only
            L1.append(W1[i][:])
            bb.append(b1[i] + 1)
        for L2 in (A2, B2):
            for row in L2:
                row.append(F(0))
        j = len(A1) - 1
        c = F(g + 2)
        e = [F(0)] * len(A1)
        up = e[:]
        up[j], up[i] = F(1), F(-1)
        down = e[:]
        down[j], down[i] = F(-1), F(1)
        A2 += [up, down]  # relu(h_j - h_i) in [0, 1], and relu(h_i - h_j) = 0
        Ab2 += [F(0), F(0)]
        passj, passi = e[:], e[:]
        passj[j], passi[i] = F(1), F(1)
        B2 += [passj, passi]  # relu(h_j) = h_j and relu(h_i) = h_i: the same value, h_j - h_i
        Bb2 += [F(0), F(0)]
        for r in range(m):
            A3[r] += [c, F(r + 1)]
            B3[r] += [c, -c]
    return (Network.from_layers([(A1, Ab1), (A2, Ab2), (A3, None)]),
            Network.from_layers([(B1, Bb1), (B2, Bb2), (B3, None)]))


def run(name: str, a: Network, b: Network, expect: str, time_limit: float) -> dict:
    t = time.perf_counter()
    res = functionally_equal(a, b, time_limit=time_limit)
    secs = time.perf_counter() - t
    ev = res.evidence
    row = {"pair": name, "answer": res.status, "seconds": round(secs, 2), "nodes": ev.get("nodes", 0),
           "leaves": ev.get("leaves", 1 if res.status == "equivalent" else 0), "splits": ev.get("splits", 0),
           "fixes": ev.get("fixes", 0), "reduced": ev.get("reduced_neurons", "-"), "checked": res.status != "unknown"}
    flag = "" if res.status == expect else f"  (expected {expect})"
    print(f"| {name} | {row['answer']}{flag} | {row['seconds']} | {row['reduced']} | {row['nodes']} | "
          f"{row['leaves']} | {row['splits']} | {row['fixes']} |", flush=True)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-acas", action="store_true", help="skip the ACAS Xu networks")
    ap.add_argument("--acas", type=int, default=3, help="how many ACAS Xu files (default 3)")
    ap.add_argument("--time-limit", type=float, default=300.0, help="per pair (default 300 s)")
    args = ap.parse_args(argv)
    print("| pair | answer | seconds | reduced neurons | nodes | leaves | splits | fixes |")
    print("|---|---|---|---|---|---|---|---|")
    rnd = random.Random(0)
    if not args.no_acas:
        for path in sorted(NNEQUIV.glob("ACASXU_*.onnx"))[: args.acas]:
            net = onnx_chain(path)
            short = path.stem.replace("ACASXU_run2a_", "acas_").replace("_batch_2000", "")
            run(f"{short} vs symmetric rewrite", net, rewrite(net, rnd), "equivalent", args.time_limit)
            run(f"{short} vs one bias + 1/1000", net, bias_changed(net), "not-equivalent", args.time_limit)
    for m in (1, 5):
        widths = (10, 32, 32, m)
        base, _ = gadgets(widths, 0, seed=m)
        tag = "-".join(map(str, widths))
        run(f"{tag} vs symmetric rewrite", base, rewrite(base, rnd), "equivalent", args.time_limit)
        run(f"{tag} vs one bias + 1/1000", base, bias_changed(base), "not-equivalent", args.time_limit)
        for G in (1, 2, 4, 8):
            a, b = gadgets(widths, G, seed=m)
            run(f"{tag} + {G} gadget pairs (case split)", a, b, "equivalent", args.time_limit)
            L = layers_of(b)
            L[-1][0][0][-2] += F(1, 1000)
            run(f"{tag} + {G} gadget pairs, one weight + 1/1000", a, Network.from_layers(L), "not-equivalent",
                args.time_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
