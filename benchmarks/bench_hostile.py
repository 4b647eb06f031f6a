"""Hostile and malformed inputs against the command line and the independent checker.

Each case writes a small file (most under 100 KB) and runs one command in a child process with a
wall-clock timeout and an address-space limit; it records the exit code, the wall time, the peak
resident memory (``ru_maxrss`` of the child, from ``os.wait4``) and the last line the command printed.
The contract (issue 15): every hostile case is refused with one line and exit 2 in well under a
second; the exactness and .npz cases at the end must give the stated answer.

Usage::

    python benchmarks/bench_hostile.py --label after            # all cases -> results/bench_hostile_after.json
    python benchmarks/bench_hostile.py --only npz --timeout 5   # cases whose name contains 'npz'
    python benchmarks/bench_hostile.py --table before after     # markdown table comparing two runs

Absolute times are noisy on a loaded machine; the point is the order of magnitude (milliseconds
against minutes), and the exit code.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
sys.path.insert(0, str(ROOT))

EXE = [sys.executable, "-m", "exactrelu.cli"]
CHECKER = [sys.executable, "-m", "exactrelu.certificates.checker"]


# -- files -------------------------------------------------------------------------------------------

def _json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def _instance_obj(inputs, labels, **extra):
    return {"format": "exactrelu.instance", "version": 1, "inputs": inputs, "labels": labels, **extra}


def _npy(shape, descr="<f8", body=b"", header=None) -> bytes:
    """An .npy file: version 1.0 header (or the raw ``header`` text) and ``body``."""
    text = header if header is not None else f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    text = text + " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1") + body


def _npz(path: Path, members: dict[str, bytes], compress: bool = False) -> Path:
    mode = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", mode) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _bomb(path: Path, gigabytes: float = 3.0) -> Path:
    """An .npz whose inputs.npy is ``gigabytes`` of zeros deflated (about 1000:1)."""
    rows = int(gigabytes * 2**30) // 8
    head = _npy(f"({rows}, 1)")
    labels = _npy("(1, 1)", body=struct.pack("<d", 0.0))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("inputs.npy", "w", force_zip64=True) as fh:
            fh.write(head)
            chunk = bytes(2**24)
            left = rows * 8
            while left:
                fh.write(chunk[: min(left, len(chunk))])
                left -= min(left, len(chunk))
        z.writestr("labels.npy", labels)
    return path


class Files:
    """The valid small instance and certificate most cases start from, made once with the library."""

    def __init__(self, tmp: Path):
        from exactrelu.certificates.claims.realizes import realizes_certificate
        from exactrelu.instances import planted, write_instance

        self.tmp = tmp
        inst = planted(d=3, k=2, m=2, n=20, seed=0, input_bits=8)
        self.inst = write_instance(inst, tmp / "small.json", include_planted=False)
        self.inst_obj = json.loads(self.inst.read_text())
        self.cert_obj = realizes_certificate(inst, inst.planted)
        self.cert = _json(tmp / "small.cert.json", self.cert_obj)
        self.inst_npz = write_instance(inst, tmp / "small.npz")
        big = planted(d=20, k=5, m=5, n=5000, seed=0)
        self.big = write_instance(big, tmp / "big.json", include_planted=False)
        self.exact = inst

    def path(self, name: str) -> Path:
        return self.tmp / name


# -- the cases ---------------------------------------------------------------------------------------
# each returns argv; ``expect`` is the exit code the contract asks for

CASES: list[tuple[str, str, int, object]] = []


def case(name: str, what: str, expect: int = 2):
    def deco(fn):
        CASES.append((name, what, expect, fn))
        return fn
    return deco


HUGE = "1e999999999"


@case("exponent-in-instance/check", 'instance entry "1e999999999", checker')
def _(F):
    obj = F.inst_obj | {"inputs": [[HUGE] + r[1:] for r in F.inst_obj["inputs"]]}
    return CHECKER + [str(F.cert), str(_json(F.path("exp_inst.json"), obj))]


@case("exponent-in-instance/recover", 'instance entry "1e999999999", recover')
def _(F):
    obj = F.inst_obj | {"inputs": [[HUGE] + r[1:] for r in F.inst_obj["inputs"]]}
    return EXE + ["recover", str(_json(F.path("exp_inst2.json"), obj)), "-k", "2", "-o", str(F.path("o.json"))]


@case("exponent-in-certificate", 'U entry "1e999999999", checker')
def _(F):
    cert = dict(F.cert_obj)
    cert["U"] = [[HUGE] + r[1:] for r in cert["U"]]
    return CHECKER + [str(_json(F.path("exp_cert.json"), cert)), str(F.inst)]


@case("exponent-in-lp-point", 'lp-feasible point "1e999999999"')
def _(F):
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "lp-feasible",
            "system": {"nvars": 1, "A_eq": [], "b_eq": [], "A_ub": [[1]], "b_ub": [0]}, "point": [HUGE]}
    return CHECKER + [str(_json(F.path("exp_lp.json"), cert))]


# readable but false certificates: refuted at once, exit 1 ("it does not hold"), not exit 2 ("cannot be read")
@case("lp-infeasible-nvars-1e12", "lp-infeasible, nvars = 10^12, no rows (false: exit 1)", expect=1)
def _(F):
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "lp-infeasible",
            "system": {"nvars": 10**12, "A_eq": [], "b_eq": [], "A_ub": [], "b_ub": []}, "y_eq": [], "y_ub": []}
    return CHECKER + [str(_json(F.path("lp_nvars.json"), cert))]


@case("power-degree-1e8/check", "realizes with activation power degree 10^8")
def _(F):
    cert = dict(F.cert_obj) | {"activation": {"name": "power", "degree": 10**8}}
    inst = {key: v for key, v in F.inst_obj.items() if key != "activation"}  # the checker then computes t**c
    return CHECKER + [str(_json(F.path("deg_cert.json"), cert)), str(_json(F.path("no_act.json"), inst))]


@case("power-degree-1e8/recover", "instance with activation power degree 10^8, recover")
def _(F):
    obj = F.inst_obj | {"activation": {"name": "power", "degree": 10**8}}
    return EXE + ["recover", str(_json(F.path("deg_inst.json"), obj)), "-k", "2", "-o", str(F.path("o.json"))]


def _m1_instance(F, n, name):
    obj = _instance_obj([[str(j), "1"] for j in range(n)], [["0"] for _ in range(n)])
    return _json(F.path(name), obj)


def _sha(path: Path) -> str:
    """The instance hash of DESIGN.md for a JSON instance of canonical strings (computed here, so that
    instances the checker now refuses still get a matching hash)."""
    import hashlib

    obj = json.loads(path.read_text())
    X, Y = obj["inputs"], obj["labels"]
    text = f"exactrelu.instance.v1\n{len(X)} {len(X[0])} {len(Y[0])}\n"
    text += "".join(" ".join(x) + " | " + " ".join(y) + "\n" for x, y in zip(X, Y))
    return hashlib.sha256(text.encode()).hexdigest()


def _nr(k, cases, mode, inst_obj_path):
    return {"format": "exactrelu.certificate", "version": 1, "claim": "not-realizable",
            "instance_sha256": _sha(inst_obj_path), "activation": {"name": "relu"},
            "k": k, "output_weights": mode, "cases": cases}


@case("not-realizable-k1000-no-cases", "not-realizable, U unknown, k = 1000, no cases (false: exit 1)", expect=1)
def _(F):
    inst = _m1_instance(F, 3, "m1.json")
    return CHECKER + [str(_json(F.path("nr_k1000.json"), _nr(1000, [], "unknown", inst))), str(inst)]


@case("drup-k1e9-no-outputs", "DRUP case, k = 10^9, instance with m = 0")
def _(F):
    inst = _json(F.path("m0.json"), _instance_obj([[]], [[]]))
    cert = _nr(10**9, [{"U": [], "lemmas": [], "rup": [[]]}], "given", inst)
    return CHECKER + [str(_json(F.path("nr_k1e9.json"), cert)), str(inst)]


@case("drup-step-1e5-literals", "DRUP step of 10^5 literals, n = 1000, k = 100 (false: exit 1)", expect=1)
def _(F):
    inst = _m1_instance(F, 1000, "m1_1000.json")
    step = list(range(1, 100001))
    cert = _nr(100, [{"U": [["0"] * 100], "lemmas": [], "rup": [step, []]}], "given", inst)
    return CHECKER + [str(_json(F.path("nr_step.json"), cert)), str(inst)]


@case("tree-20000-nested-splits", "case tree of 20,000 nested splits, n = 200, k = 100 (false: exit 1)", expect=1)
def _(F):
    inst = _m1_instance(F, 200, "m1_200.json")
    tree = [{"split": [j, i]} for j in range(200) for i in range(100)] + [{"farkas": []}] * 20001
    cert = _nr(100, [{"U": [["0"] * 100], "tree": tree}], "given", inst)
    return CHECKER + [str(_json(F.path("nr_tree.json"), cert)), str(inst)]


def _shape_npz(F):
    return _npz(F.path("shape.npz"), {"inputs.npy": _npy("(1000000000, 0)"), "labels.npy": _npy("(1000000000, 0)")})


@case("npz-shape-1e9x0/check", ".npz header shape (10^9, 0), checker")
def _(F):
    return CHECKER + [str(F.cert), str(_shape_npz(F))]


@case("npz-shape-1e9x0/recover", ".npz header shape (10^9, 0), recover")
def _(F):
    return EXE + ["recover", str(_shape_npz(F)), "-k", "1", "-o", str(F.path("o.json"))]


def _bomb_file(F):
    cached = Path(tempfile.gettempdir()) / "exactrelu-bench-bomb3g.npz"  # 3 MB, kept between runs (made in ~15 s)
    if not cached.exists():
        _bomb(cached)
    return cached


@case("npz-deflate-bomb/check", ".npz deflate bomb (3 GB of zeros), checker")
def _(F):
    return CHECKER + [str(F.cert), str(_bomb_file(F))]


@case("npz-deflate-bomb/recover", ".npz deflate bomb (3 GB of zeros), recover")
def _(F):
    return EXE + ["recover", str(_bomb_file(F)), "-k", "1", "-o", str(F.path("o.json"))]


@case("dimacs-1e8-variables", "DIMACS 'p cnf 100000000 1', hardness from-cnf")
def _(F):
    p = F.path("big.cnf")
    p.write_text("p cnf 100000000 1\n1 2 3 0\n")
    return EXE + ["hardness", "from-cnf", str(p), "-o", str(F.path("o.json"))]


@case("hardness-random-1e8-variables", "hardness random --vars 10^8 --clauses 5")
def _(F):
    return EXE + ["hardness", "random", "--vars", str(10**8), "--clauses", "5", "-o", str(F.path("o.json"))]


@case("directory-as-instance/recover", "a directory given as the instance, recover")
def _(F):
    return EXE + ["recover", str(F.tmp), "-k", "1", "-o", str(F.path("o.json"))]


@case("directory-as-instance/check", "a directory given as the instance, checker")
def _(F):
    return CHECKER + [str(F.cert), str(F.tmp)]


@case("directory-as-certificate", "a directory given as the certificate, exactrelu check")
def _(F):
    return EXE + ["check", str(F.tmp), str(F.inst)]


def _digits_inst(F):
    text = F.inst.read_text().replace('"inputs":[[', '"inputs":[[' + "7" * 5000 + ",", 1)
    obj = json.loads(F.inst.read_text())
    p = F.path("digits.json")
    p.write_text(text)
    assert len(obj["inputs"][0]) == 3
    return p


@case("json-integer-5000-digits/recover", "instance with a 5000-digit JSON integer, recover")
def _(F):
    return EXE + ["recover", str(_digits_inst(F)), "-k", "2", "-o", str(F.path("o.json"))]


@case("json-integer-5000-digits/check", "instance with a 5000-digit JSON integer, checker")
def _(F):
    return CHECKER + [str(F.cert), str(_digits_inst(F))]


def _nested(F, name):
    p = F.path(name)
    p.write_text('{"format": "exactrelu.instance", "version": 1, "inputs": ' + "[" * 100000 + "]" * 100000 + "}")
    return p


@case("json-nested-100000/recover", "instance nested 100,000 deep, recover")
def _(F):
    return EXE + ["recover", str(_nested(F, "nest.json")), "-k", "1", "-o", str(F.path("o.json"))]


@case("json-nested-100000/check", "certificate nested 100,000 deep, checker")
def _(F):
    return CHECKER + [str(_nested(F, "nest_cert.json")), str(F.inst)]


NPY_HEADERS = {
    "truncated": None,
    "list-header": "[1, 2]",
    "structured-dtype": "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1, 1), }",
    "string-shape": "{'descr': '<f8', 'fortran_order': False, 'shape': 'abc', }",
    "nested-shape": "{'descr': '<f8', 'fortran_order': False, 'shape': ((1, 2),), }",
}


def _bad_npy(F, kind):
    good = _npy("(1, 1)", body=struct.pack("<d", 1.0))
    data = good[:20] if kind == "truncated" else _npy(None, header=NPY_HEADERS[kind], body=struct.pack("<d", 1.0))
    return _npz(F.path(f"npy_{kind}.npz"), {"inputs.npy": data, "labels.npy": good})


for _kind in NPY_HEADERS:
    case(f"npy-{_kind}/recover", f"malformed .npy ({_kind}), recover")(
        lambda F, kind=_kind: EXE + ["recover", str(_bad_npy(F, kind)), "-k", "1", "-o", str(F.path("o.json"))])
    case(f"npy-{_kind}/check", f"malformed .npy ({_kind}), checker")(
        lambda F, kind=_kind: CHECKER + [str(F.cert), str(_bad_npy(F, kind))])


@case("unwritable-output", "recover (n = 5000, d = 20, k = 5) with -o in a missing directory")
def _(F):
    return EXE + ["recover", str(F.big), "-k", "5", "-o", "/nonexistent/dir/cert.json"]


@case("generate-seed-negative", "generate --seed -1")
def _(F):
    return EXE + ["generate", "-d", "2", "-k", "1", "-m", "1", "-n", "10", "--seed", "-1", "-o", str(F.path("g.json"))]


@case("generate-huge-n", "generate -n 10^10")
def _(F):
    return EXE + ["generate", "-d", "10", "-k", "1", "-m", "1", "-n", str(10**10), "-o", str(F.path("g.json"))]


@case("empty-certificate", "an empty certificate file, exactrelu check")
def _(F):
    p = F.path("empty.json")
    p.write_text("")
    return EXE + ["check", str(p), str(F.inst)]


@case("truncated-certificate", "the first half of a certificate, checker")
def _(F):
    p = F.path("half.json")
    text = F.cert.read_text()
    p.write_text(text[: len(text) // 2])
    return CHECKER + [str(p), str(F.inst)]


@case("bad-number-in-instance", 'instance entry "abc", checker')
def _(F):
    obj = F.inst_obj | {"inputs": [["abc"] + r[1:] for r in F.inst_obj["inputs"]]}
    return CHECKER + [str(F.cert), str(_json(F.path("abc.json"), obj))]


def _typo(F):
    obj = dict(F.inst_obj)
    obj["activaton"] = {"name": "power", "degree": 2}
    return _json(F.path("typo.json"), obj)


@case("unknown-key-activaton/recover", 'instance key "activaton", recover')
def _(F):
    return EXE + ["recover", str(_typo(F)), "-k", "2", "-o", str(F.path("o.json"))]


@case("unknown-key-activaton/check", 'instance key "activaton", checker')
def _(F):
    return CHECKER + [str(F.cert), str(_typo(F))]


def _two_labels(F):
    import io

    import numpy as np

    X = np.array([[float(x) for x in r] for r in F.exact.float_inputs().tolist()])
    Y = F.exact.float_labels()
    other = io.BytesIO()
    np.save(other, Y + 1.0)
    good_x, good_y = io.BytesIO(), io.BytesIO()
    np.save(good_x, X)
    np.save(good_y, Y)
    return _npz(F.path("two.npz"), {"inputs.npy": good_x.getvalue(), "labels.npy": good_y.getvalue(),
                                    "labels": other.getvalue()})


@case("npz-two-label-members/check", ".npz with members labels.npy and labels, checker")
def _(F):
    return CHECKER + [str(F.cert), str(_two_labels(F))]


@case("npz-two-label-members/certify", ".npz with members labels.npy and labels, certify --as-given")
def _(F):
    return EXE + ["certify", str(_two_labels(F)), "--weights", str(F.cert), "--as-given", "-o", str(F.path("o.json"))]


def _cast_npz(F, dtype, name):
    import io

    import numpy as np

    X, Y = F.exact.float_inputs(), F.exact.float_labels()
    assert np.array_equal(X.astype(dtype).astype(np.float64), X) and np.array_equal(Y.astype(dtype).astype(np.float64), Y)
    bx, by = io.BytesIO(), io.BytesIO()
    np.save(bx, X.astype(dtype))
    np.save(by, Y.astype(dtype))
    return _npz(F.path(name), {"inputs.npy": bx.getvalue(), "labels.npy": by.getvalue()})


@case("npz-float32/check", "the small instance as float32 (exact), checker", expect=0)
def _(F):
    return CHECKER + [str(F.cert), str(_cast_npz(F, "<f4", "f32.npz"))]


@case("npz-big-endian/check", "the small instance as big-endian float64, checker", expect=0)
def _(F):
    return CHECKER + [str(F.cert), str(_cast_npz(F, ">f8", "be.npz"))]


@case("non-dyadic-inputs/recover", "JSON instance with inputs in thirds and sevenths (realizable), recover", expect=0)
def _(F):
    from exactrelu.instances import Instance, write_instance
    from exactrelu.network import Network
    from exactrelu.exact.matrix import QMatrix
    import numpy as np

    rng = np.random.default_rng(1)
    X = QMatrix.from_rows([[f"{int(a)}/{b}" for a, b in zip(rng.integers(-60, 61, 4), (3, 7, 3, 7))] for _ in range(200)])
    net = Network.from_rows([[1, 2, -1], [0, 1, 1], [2, 0, 1]], [[1, -1, 0, 2], [0, 1, 2, -1], [1, 1, -1, 0]])
    inst = Instance(X, net.evaluate_exact(X))
    p = write_instance(inst, F.path("thirds.json"))
    return EXE + ["recover", str(p), "-k", "3", "-o", str(F.path("thirds.cert.json"))]


# -- issue 26: work bounded by the file's size, memory bounded, every -k bounded -------------------------

def _issue26(builder):
    def make(F):
        from exactrelu.testing import hostile  # noqa: F401 (the builders of tests/certificates/test_hostile_work.py)

        return CHECKER + builder(F.tmp).args
    return make


def _register_issue26():
    from exactrelu.testing import hostile

    for b in hostile.BUILDERS:
        probe = b(Path(tempfile.mkdtemp(prefix="hostile-probe-")))
        case(f"26/{probe.name}", f"{b.__doc__.split(':')[0].strip()} (before: {probe.before})", probe.expect)(_issue26(b))


_register_issue26()


@case("26/certify-as-given-power100", 'certify --as-given, power:100 weights "1e4299", 1,000 samples')
def _(F):
    from exactrelu.testing import hostile

    h = hostile.residual_power(F.tmp)
    cert = json.loads(Path(h.args[0]).read_text())
    w = _json(F.path("pow_weights.json"), {"format": "exactrelu.weights", "version": 1, "activation": cert["activation"],
                                           "U": cert["U"], "V": cert["V"]})
    return EXE + ["certify", h.args[1], "--weights", str(w), "--as-given", "-o", str(F.path("o.json"))]


@case("26/npz-bomb-1e7x1/check", ".npz deflate bomb 10^7 x 1 (156 KB; before: the checker needed ~7.5 GB)")
def _(F):
    cached = Path(tempfile.gettempdir()) / "exactrelu-bench-bomb-1e7x1.npz"
    if not cached.exists():
        rows = 10**7
        with zipfile.ZipFile(cached, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("inputs.npy", _npy(f"({rows}, 1)", body=bytes(8 * rows)))
            z.writestr("labels.npy", _npy(f"({rows}, 1)", body=bytes(8 * rows)))
    return CHECKER + [str(F.cert), str(cached)]


@case("26/peer-startup", "peer: exactrelu --version (the interpreter and the CLI's start-up alone)", expect=0)
def _(F):
    return EXE + ["--version"]


@case("26/solve-k-1e9", "solve -k 1000000000 (before: 3.8 GB allocated, then a refusal)")
def _(F):
    return EXE + ["solve", str(F.inst), "-k", str(10**9)]


@case("26/hardness-decide-k-1e6", "hardness decide -k 1000000 (before: 3.7 GB allocated, then a refusal)")
def _(F):
    return EXE + ["hardness", "decide", str(F.inst), "-k", str(10**6), "-o", str(F.path("o.json"))]


@case("26/from-cnf-100000-literal-clause", "hardness from-cnf, one clause of 100,000 literals (before: 38 s)")
def _(F):
    p = F.path("long.cnf")
    p.write_text(f"p cnf 100000 1\n{' '.join(map(str, range(1, 100001)))} 0\n")
    return EXE + ["hardness", "from-cnf", str(p), "-o", str(F.path("o.json"))]


# -- issue 34: weights and data files that lie about what they hold, or would run code ------------------

def _issue34(builder):
    def make(F):
        return EXE + builder(F.tmp).argv
    return make


def _register_issue34():
    from exactrelu.testing import hostile_files

    for b in hostile_files.BUILDERS:
        probe = b(Path(tempfile.mkdtemp(prefix="hostile-probe-")))
        if probe is not None:
            doc = b.__doc__.strip().split("\n")[0].rstrip(".")
            case(f"34/{probe.name}", f"{doc} (before: {probe.before})", probe.expect)(_issue34(b))


_register_issue34()


# -- running -----------------------------------------------------------------------------------------

def run(argv, timeout: float, mem_gb: float, cwd: Path) -> dict:
    limit = int(mem_gb * 2**30)

    def child():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=child, cwd=cwd, env=env)
    out = b""
    timed_out = False
    try:
        out_b, err_b = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out_b, err_b = proc.communicate()
    wall = time.monotonic() - t0
    # the child has been reaped by communicate(); its rusage is in RUSAGE_CHILDREN (max over children)
    text = (out_b + b"\n" + err_b).decode("utf-8", "replace").strip().splitlines()
    out = text[-1] if text else ""
    return {"exit": None if timed_out else proc.returncode, "seconds": wall, "timed_out": timed_out,
            "lines": len([t for t in text if t.strip()]), "last_line": out[:160],
            "traceback": any(t.startswith("Traceback") for t in text)}


def _peak_rss_mb(argv, timeout, mem_gb, cwd) -> tuple[dict, float]:
    """Run in a fresh grandchild so that ru_maxrss is this case's own peak (RUSAGE_CHILDREN keeps maxima)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: run the case, report through the pipe
        os.close(r)
        res = run(argv, timeout, mem_gb, cwd)
        res["peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        os.write(w, json.dumps(res).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.waitpid(pid, 0)
    res = json.loads(data)
    return res, res["peak_mb"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="run", help="results go to results/bench_hostile_LABEL.json")
    ap.add_argument("--only", help="run the cases whose name contains this text")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default 10)")
    ap.add_argument("--mem-gb", type=float, default=4.0, help="address-space limit per case (default 4 GB)")
    ap.add_argument("--table", nargs="+", metavar="LABEL", help="print the markdown table of saved runs and exit")
    args = ap.parse_args()
    if args.table:
        print(table(args.table))
        return
    RESULTS.mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        F = Files(tmp)
        rows = []
        for name, what, expect, fn in CASES:
            if args.only and args.only not in name:
                continue
            argv = fn(F)
            res, _ = _peak_rss_mb(argv, args.timeout, args.mem_gb, tmp)
            res.update(case=name, what=what, expect=expect, ok=res["exit"] == expect and not res["traceback"]
                       and (expect == 0 or res["lines"] <= 2))
            rows.append(res)
            shown = "timeout" if res["timed_out"] else res["exit"]
            print(f"{name:38s} exit {shown!s:7s} {res['seconds']:7.2f} s {res['peak_mb']:7.0f} MB  "
                  f"{'ok ' if res['ok'] else 'BAD'} {res['last_line'][:90]}", flush=True)
        out = RESULTS / f"bench_hostile_{args.label}.json"
        meta = {"python": sys.version.split()[0], "timeout": args.timeout, "mem_gb": args.mem_gb,
                "load": os.getloadavg()}
        out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
        print(f"wrote {out}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def table(labels: list[str]) -> str:
    runs = [json.loads((RESULTS / f"bench_hostile_{lab}.json").read_text())["rows"] for lab in labels]
    by = [{r["case"]: r for r in rows} for rows in runs]
    head = "| case | expected exit | " + " | ".join(f"{lab}: exit, s, MB" for lab in labels) + " |"
    lines = [head, "|" + "---|" * (2 + len(labels))]
    for name, what, expect, _ in CASES:
        cells = []
        for b in by:
            r = b.get(name)
            if r is None:
                cells.append("-")
                continue
            code = "timeout" if r["timed_out"] else str(r["exit"]) + (" (traceback)" if r["traceback"] else "")
            cells.append(f"{code}, {r['seconds']:.2f}, {r['peak_mb']:.0f}")
        lines.append(f"| {what} | {expect} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
