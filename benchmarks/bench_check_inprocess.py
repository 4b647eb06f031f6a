"""The independent check, old checker beside this tree's, in one process (CPU and wall seconds, interleaved).

    git worktree add --detach /tmp/peer <commit>
    python benchmarks/bench_check_inprocess.py --peer /tmp/peer --sizes 50,10,10,20000 200,20,20,20000

For each (d, k, m, n): a planted Gaussian instance, its ``realizes`` certificate, and the check of it from the
canonical strings (JSON path: ``check`` streaming blocks, parse + hash + arithmetic) and from the float rows an
.npz file gives (``load_instance``'s rows), by the peer's checker and by this tree's, alternately, ``--repeat``
times; the medians of CPU (``time.process_time``) and wall are printed with the ratio peer / this tree.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def peer_checker(peer: Path):
    """The peer's checker and trusted base, imported as a separate package (they import only the standard library)."""
    tmp = Path(tempfile.mkdtemp(prefix="peer-checker-"))
    pkg = tmp / "peer_certificates"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    shutil.copy(peer / "exactrelu" / "certificates" / "checker.py", pkg / "checker.py")
    shutil.copytree(peer / "exactrelu" / "certificates" / "trusted", pkg / "trusted")
    sys.path.insert(0, str(tmp))
    return importlib.import_module("peer_certificates.checker")


def timed(fn) -> tuple:
    c, w = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - c, time.perf_counter() - w, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", required=True, help="another checkout of exactrelu (for example main)")
    ap.add_argument("--sizes", nargs="*", default=["50,10,10,20000", "200,20,20,20000"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from exactrelu.certificates import checker
    from exactrelu.certificates.claims.realizes import realizes_certificate
    from exactrelu.instances.checker_view import checker_instance
    from exactrelu.instances import planted

    peer = peer_checker(Path(args.peer))
    print("| (d,k,m,n) | rows | peer CPU s (wall) | this tree CPU s (wall) | CPU ratio peer / this |")
    print("|---|---|---|---|---|")
    for size in args.sizes:
        d, k, m, n = map(int, size.split(","))
        inst = planted(d=d, k=k, m=m, n=n, seed=1)
        cert = realizes_certificate(inst, inst.planted)
        data = checker_instance(inst)
        strings = {"inputs": [list(r) for r in data["inputs"]], "labels": [list(r) for r in data["labels"]],
                   "activation": None}
        floats = {"inputs": inst.float_inputs().tolist(), "labels": strings["labels"], "activation": None}
        for name, inp in (("strings (JSON)", strings), ("float inputs (.npz)", floats)):
            got = {"peer": [], "this": []}
            for _ in range(args.repeat):
                for who, mod in (("peer", peer), ("this", checker)):
                    cpu, wall, verdict = timed(lambda: mod.check(cert, dict(inp)))
                    assert verdict.startswith("realizes:"), verdict
                    got[who].append((cpu, wall))
            med = {w: (statistics.median(c for c, _ in v), statistics.median(x for _, x in v)) for w, v in got.items()}
            print(f"| ({d},{k},{m},{n}) | {name} | {med['peer'][0]:.2f} ({med['peer'][1]:.2f}) | "
                  f"{med['this'][0]:.2f} ({med['this'][1]:.2f}) | {med['peer'][0] / med['this'][0]:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
