"""Where the fast check's time goes (issue 36): CPU seconds of each part of the check of a certificate about an .npz,
summed over its blocks (every ``--every``-th block, best of 3, scaled to all), in one process with one BLAS thread.

    python benchmarks/bench_check_parts.py CERT.json FILE.npz
    PYTHONPATH=/path/to/another/checkout python benchmarks/bench_check_parts.py CERT.json FILE.npz   # a peer

Parts: reading the .npz members' bytes, the numbers and canonical text of every entry (``sources.block``), the sizes,
bounds and exact evaluation of a block (``Judge.differences``), joining the rows' text, and its SHA-256.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("certificate")
    ap.add_argument("npz")
    ap.add_argument("--every", type=int, default=4, help="measure every N-th block (default 4)")
    args = ap.parse_args()
    from exactrelu import blas
    from exactrelu.certificates.fast import blocks, sources
    from exactrelu.certificates.trusted.common import read_certificate
    from exactrelu.certificates.trusted.instance import instance_shape, load_instance

    cert, inst = read_certificate(args.certificate), load_instance(args.npz, parse=False)
    shape = instance_shape(inst["inputs"], inst["labels"], args.npz)
    judge = blocks.Judge(cert, shape, None)
    ranges = blocks.blocks(*shape)
    seconds: dict = {}

    def part(name, f):
        best = float("inf")
        for _ in range(3):
            t0 = time.process_time()
            out = f()
            best = min(best, time.process_time() - t0)
        seconds[name] = seconds.get(name, 0.0) + best
        return out

    with blas.fixed_threads(1):
        for a, b in ranges[::args.every]:
            X, Y = inst["inputs"], inst["labels"]
            part("read the .npz bytes", lambda: [M._bytes(M.start + a * M.cols * M.size, (b - a) * M.cols * M.size)
                                                 for M in (X, Y)])
            (xs, xt), (ys, yt) = part("numbers and text", lambda: (sources.block(X, a, b), sources.block(Y, a, b)))
            part("sizes, bounds, evaluation", lambda: judge.differences(xs, ys))
            text = part("join the rows' text", lambda: b"".join(b"%s | %s\n" % p for p in zip(xt, yt)))
            part("SHA-256", lambda: hashlib.sha256(text).digest())
    scale = len(ranges) / len(ranges[::args.every])
    print(json.dumps({"blocks": len(ranges), **{k: round(v * scale, 3) for k, v in seconds.items()}}))


if __name__ == "__main__":
    main()
