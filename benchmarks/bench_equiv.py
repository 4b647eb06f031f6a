"""exactrelu equiv against the sizes, beside what a float tool can say about the same pairs.

Pairs (m = 1 output, hidden and output biases): a random network N, and (same) a copy of it with units
permuted, rescaled by positive powers of two, one unit split in two, and the block
relu(z) - relu(-z) - 1/2 relu(2z) + 1/2 relu(-2z) (which sums to zero) added; (diff) the same copy with one
original unit removed. Weights are float32 Gaussians (PyTorch's default dtype), float64 Gaussians (taken
exactly, as a trained network's are) or integers in [-1000, 1000].

Columns: the exact decision (both canonical forms, the comparison, the witness), building the certificate,
writing it, the independent checker (in this process, on the parsed file), and the total. Peers on the
same pairs, over the box [-1, 1]^d only: float64 sampling at random points (claims nothing when it finds
no difference) and a big-M MILP of max |f1 - f2| on HiGHS (scipy.optimize.milp) with a time limit (a float
bound on the box, when it closes).

The PyTorch example (``--torch``, needs torch): a small biased network trained on a regression task;
units never active on the training data pruned; weights rounded to a grid, where near-duplicate units become
exact duplicates that minimize merges; float16 quantization. Each step is decided exactly with a witness.

Usage::

    python benchmarks/bench_equiv.py [--quick] [--torch] [--milp-time 30]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from exactrelu.certificates import checker  # noqa: E402
from exactrelu.equiv import canonical_form, functionally_equal  # noqa: E402
from exactrelu.equiv.minimize import minimize  # noqa: E402
from exactrelu.network import Network  # noqa: E402


def pair(k: int, d: int, kind: str, seed: int = 0):
    """(N, same, diff) as float arrays (U 1 x k, V k x d, b k, c 1), exact in float64."""
    rng = np.random.default_rng(seed)
    if kind == "integer":
        V, b, U = (rng.integers(-1000, 1001, s).astype(np.float64) for s in ((k, d), k, (1, k)))
    elif kind == "float32":  # PyTorch's default dtype, widened exactly
        V, b, U = (rng.standard_normal(s).astype(np.float32).astype(np.float64) for s in ((k, d), k, (1, k)))
    else:
        V, b, U = rng.standard_normal((k, d)), rng.standard_normal(k), rng.standard_normal((1, k))
    c = np.array([0.5])
    perm = rng.permutation(k)
    s = np.ldexp(1.0, rng.integers(-3, 4, k))  # positive powers of two: rescaling stays exact in float64
    V2, b2, U2 = V[perm] * s[:, None], b[perm] * s, U[:, perm] / s
    half = np.vstack([V2[:1], V2[:1] * 2])  # unit 0 split: u relu(z) = u/2 relu(z) + u/4 relu(2z)
    V2, b2, U2 = np.vstack([half, V2[1:]]), np.concatenate([[b2[0], 2 * b2[0]], b2[1:]]), \
        np.hstack([[[U2[0, 0] / 2, U2[0, 0] / 4]], U2[:, 1:]])
    z, z0 = np.round(rng.standard_normal(d) * 4), 3.0
    block_V = np.vstack([z, -z, 2 * z, -2 * z])
    same = (np.hstack([U2, [[1, -1, -0.5, 0.5]]]), np.vstack([V2, block_V]), np.concatenate([b2, [z0, -z0, 2 * z0, -2 * z0]]), c)
    diff = (same[0][:, 2:], same[1][2:], same[2][2:], c)  # drop both halves of unit 0: the function changes
    return (U, V, b, c), same, diff


def network(arrays) -> Network:
    from exactrelu.exact.matrix import QMatrix

    U, V, b, c = arrays
    return Network(QMatrix.from_numpy(U), QMatrix.from_numpy(V), b=QMatrix.from_numpy(b.reshape(-1, 1)),
                   c=QMatrix.from_numpy(c.reshape(-1, 1)))


def exact_row(a, b, tmp: Path) -> dict:
    t0 = time.perf_counter()
    fa, fb = canonical_form(a), canonical_form(b)
    t_forms = time.perf_counter() - t0
    res = functionally_equal(a, b, check=False)  # the decision again, with the witness and the certificate
    t_all = time.perf_counter() - t0 - t_forms
    path = tmp / "cert.json"
    t1 = time.perf_counter()
    path.write_text(json.dumps(res.certificate))
    t_write = time.perf_counter() - t1
    t2 = time.perf_counter()
    summary = checker.check_files(str(path), None)
    t_check = time.perf_counter() - t2
    decide = t_forms + res.evidence.get("seconds_witness", 0.0)
    return {"status": res.status, "decide_s": decide, "certificate_s": t_all - res.evidence["seconds_canonical"]
            - res.evidence.get("seconds_witness", 0.0), "write_s": t_write, "check_s": t_check,
            "total_s": decide + (t_all - res.evidence["seconds_canonical"] - res.evidence.get("seconds_witness", 0.0))
            + t_write + t_check, "hyperplanes": fa.units, "checked": summary.split(":")[0], "bytes": path.stat().st_size,
            "witness_in_box": None if res.witness is None else bool(max(abs(x) for x in res.witness) <= 1)}


def sampling_peer(A, B, points: int, seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    d = A[1].shape[1]
    t = time.perf_counter()
    worst = 0.0
    for _ in range(max(1, points // 1000)):
        X = rng.uniform(-1, 1, (1000, d))
        fa = np.maximum(X @ A[1].T + A[2], 0) @ A[0].T + A[3]
        fb = np.maximum(X @ B[1].T + B[2], 0) @ B[0].T + B[3]
        worst = max(worst, float(np.max(np.abs(fa - fb))))
    return {"seconds": time.perf_counter() - t, "max_abs_diff": worst, "points": points}


def milp_peer(A, B, time_limit: float) -> dict:
    """max (f_A - f_B) and max (f_B - f_A) over [-1, 1]^d by a big-M MILP on HiGHS; (status, bound) of each."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import lil_matrix

    d = A[1].shape[1]
    units = [(A[1][i], A[2][i], A[0][0, i]) for i in range(A[1].shape[0])] + \
            [(B[1][i], B[2][i], -B[0][0, i]) for i in range(B[1].shape[0])]
    K = len(units)
    n = d + 2 * K  # x, y_i, a_i
    rows, lo, hi = lil_matrix((3 * K, n)), [], []
    lb, ub = np.r_[-np.ones(d), np.zeros(2 * K)], np.r_[np.ones(d), np.full(K, np.inf), np.ones(K)]
    integrality = np.r_[np.zeros(d + K), np.ones(K)]
    obj = np.zeros(n)
    r = 0
    for i, (w, beta, u) in enumerate(units):
        L, Uu = beta - np.abs(w).sum(), beta + np.abs(w).sum()
        obj[d + i] = -u  # milp minimizes
        rows[r, :d], rows[r, d + i] = -w, 1.0  # y - w x >= beta
        lo.append(beta), hi.append(np.inf)
        r += 1
        if Uu <= 0:
            ub[d + i] = 0
        elif L >= 0:
            lo[-1] = hi[-1] = beta
        else:
            rows[r, :d], rows[r, d + i], rows[r, d + K + i] = -w, 1.0, -L  # y - w x - L a <= beta - L
            lo.append(-np.inf), hi.append(beta - L)
            rows[r + 1, d + i], rows[r + 1, d + K + i] = 1.0, -Uu  # y - U a <= 0
            lo.append(-np.inf), hi.append(0.0)
            r += 2
    cons = LinearConstraint(rows[:r].tocsr(), np.array(lo), np.array(hi))
    out, t0 = {}, time.perf_counter()
    for name, sign in (("max f1-f2", 1), ("max f2-f1", -1)):
        res = milp(sign * obj, constraints=cons, integrality=integrality, bounds=Bounds(lb, ub),
                   options={"time_limit": time_limit, "disp": False})
        const = sign * (A[3][0] - B[3][0])
        best = None if res.x is None else -res.fun + const
        bound = getattr(res, "mip_dual_bound", None)
        out[name] = {"status": res.status, "message": res.message[:40], "best": best,
                     "bound": None if bound is None or not np.isfinite(bound) else -bound + const}
    out["seconds"] = time.perf_counter() - t0
    return out


def sizes_table(args, tmp: Path) -> list[dict]:
    shapes = [(100, 10), (1000, 100)] if args.quick else [(100, 10), (1000, 100), (1000, 1000), (10_000, 100)]
    rows = []
    for kind in ("float32", "float64", "integer"):
        for k, d in shapes:
            base, same, diff = pair(k, d, kind)
            N, S, D = network(base), network(same), network(diff)
            for label, other, arrays in (("same", S, same), ("diff", D, diff)):
                row = {"weights": kind, "k": k, "d": d, "pair": label, **exact_row(N, other, tmp)}
                row["sampling"] = sampling_peer(base, arrays, 10_000 if k * d <= 10**5 else 2000)
                if k <= args.milp_max_k and kind == "float64":
                    row["milp"] = milp_peer(base, arrays, args.milp_time)
                rows.append(row)
                print(json.dumps(row, default=str), flush=True)
    return rows


def torch_example(seed: int = 0) -> list[dict]:
    import torch

    torch.manual_seed(seed)
    d, k, n = 8, 64, 4000
    X = torch.randn(n, d)
    y = (torch.sin(X[:, :1] * 2) + 0.5 * X[:, 1:2] ** 2 - X[:, 2:3].abs()).double()
    model = torch.nn.Sequential(torch.nn.Linear(d, k), torch.nn.ReLU(), torch.nn.Linear(k, 1)).double()
    with torch.no_grad():  # near-duplicate units: the second half starts as a copy of the first, plus 1e-3 noise
        model[0].weight[k // 2:] = model[0].weight[: k // 2] + 1e-3 * torch.randn(k // 2, d, dtype=torch.double)
        model[0].bias[k // 2:] = model[0].bias[: k // 2]
        model[0].bias[:4] = -20.0  # four units (and their copies) that no training input ever activates
        model[0].bias[k // 2: k // 2 + 4] = -20.0
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(300):
        opt.zero_grad()
        loss = torch.mean((model(X.double()) - y) ** 2)
        loss.backward()
        opt.step()
    W1, b1 = model[0].weight.detach().numpy(), model[0].bias.detach().numpy()
    W2, b2 = model[2].weight.detach().numpy(), model[2].bias.detach().numpy()
    trained = (W2, W1, b1, b2)
    active = (X.double().numpy() @ W1.T + b1 > 0).any(axis=0)
    pruned = (W2[:, active], W1[active], b1[active], b2)
    grid = 2.0**-4
    rnd = lambda a: np.round(a / grid) * grid  # noqa: E731
    rounded = tuple(rnd(a) for a in trained)
    half = tuple(a.astype(np.float16).astype(np.float64) for a in trained)
    rows = []
    data = X.double().numpy()
    for name, a, b in (("trained vs units inactive on the data pruned", trained, pruned),
                       ("trained vs weights rounded to 2^-4", trained, rounded),
                       ("trained vs float16", trained, half)):
        A, B = network(a), network(b)
        t = time.perf_counter()
        res = functionally_equal(A, B)
        secs = time.perf_counter() - t
        row = {"comparison": name, "units": f"{A.k} vs {B.k}", "status": res.status, "seconds": secs,
               "max_diff_on_data_float": float(np.max(np.abs(A.predict(data) - B.predict(data))))}
        if res.witness is not None:
            gap = abs(res.values[0][0] - res.values[1][0])
            row.update(witness_norm=float(max(abs(x) for x in res.witness)), difference=float(gap))
        rows.append(row)
        print(json.dumps(row), flush=True)
    R = network(rounded)
    t = time.perf_counter()
    small = minimize(R)
    rows.append({"comparison": "rounded vs minimize(rounded)", "units": f"{R.k} vs {small.network.k}",
                 "status": small.equivalence.status, "seconds": time.perf_counter() - t,
                 "optimal": small.optimal, "removed": small.removed})
    print(json.dumps(rows[-1]), flush=True)
    return rows


def markdown(rows: list[dict]) -> str:
    out = ["| weights | k | d | pair | exact answer | decide s | cert s | write s | check s | total s | "
           "sampling (box) s, max diff | MILP (box) s: max f1-f2, max f2-f1 |", "|" + "---|" * 12]
    for r in rows:
        s = r["sampling"]
        milp = r.get("milp")
        if milp:
            def fmt(x):
                best, bound = x["best"], x["bound"]
                return f"{'-' if best is None else f'{best:.3g}'} (bound {'-' if bound is None else f'{bound:.3g}'})"
            mtxt = f"{milp['seconds']:.1f}: {fmt(milp['max f1-f2'])}, {fmt(milp['max f2-f1'])}"
        else:
            mtxt = "not run"
        out.append(f"| {r['weights']} | {r['k']} | {r['d']} | {r['pair']} | {r['status']} | {r['decide_s']:.3f} | "
                   f"{r['certificate_s']:.3f} | {r['write_s']:.3f} | {r['check_s']:.3f} | {r['total_s']:.3f} | "
                   f"{s['seconds']:.3f}, {s['max_abs_diff']:.2g} | {mtxt} |")
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--torch", action="store_true", help="also run the PyTorch example (needs torch)")
    p.add_argument("--milp-time", type=float, default=30.0, help="HiGHS time limit per MILP (seconds)")
    p.add_argument("--milp-max-k", type=int, default=1000, help="run the MILP peer up to this many units")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = sizes_table(args, Path(tmp))
    results = {"sizes": rows}
    if args.torch:
        results["torch"] = torch_example()
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "bench_equiv.json").write_text(json.dumps(results, indent=1, default=str))
    print(markdown(rows))


if __name__ == "__main__":
    main()
