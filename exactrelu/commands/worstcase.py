"""``exactrelu patterns`` and ``exactrelu solve`` (the worst-case n^O(k) solver)."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from ..arguments import positive_int_arg, scheduler_arg, seconds_arg

from ..errors import InvalidInput
from ..io.files import write_text_atomic
from ._data import add_bias_argument, add_data_arguments, bias_of, read_data
from ._limit import add_time_limit, limited
from ._report import emit, json_command


def register(sub) -> None:
    p = sub.add_parser("patterns", help="sign patterns of a subspace (orthants met, with Cover's count; or non-negative supports)",
                       description="Count or list the sign vectors in {-,+}^n met by a subspace (the row span of an "
                                   "instance's labels, or of a basis file), with Cover's bound beside the count; with "
                                   "--nonnegative, the extreme rays and supports of its non-negative vectors.")
    p.add_argument("instance", nargs="?", help="instance file: the subspace is the row span of labels.T")
    p.add_argument("--basis", help="JSON file with a list of rows (k x n) spanning the subspace, instead of an instance")
    p.add_argument("--nonnegative", action="store_true", help="supports of non-negative vectors (faces of the cone)")
    p.add_argument("--list", action="store_true", help="print every pattern, one per line")
    p.add_argument("--progress", action="store_true", help="progress on stderr (default when stderr is a terminal)")
    add_time_limit(p)
    p.add_argument("--force", action="store_true", help="run even when the up-front estimate is over a day")
    json_command(p, "patterns", limited(cmd_patterns, what="the patterns were all found", backstop=True))

    p = sub.add_parser("solve", help="worst-case exact solver: a certified k-unit ReLU network, or a proof that none exists",
                       description="For arbitrary inputs and labels of rank k: enumerate the patterns of the labels' "
                                   "row span, decide each by exact LP, and certify the network (n^O(k) time). When "
                                   "no network exists, a not-realizable certificate is written instead (exit 1); "
                                   "'exactrelu check' verifies either. Networks without biases, unless --bias [CLASS]; "
                                   "every verdict names the class it covers.")
    p.add_argument("instance", nargs="?", help="instance file (.json or .npz); or --inputs X --labels Y")
    add_data_arguments(p)
    p.add_argument("-k", type=positive_int_arg, required=True, help="number of hidden units")
    p.add_argument("-o", "--output", help="certificate file (default: INSTANCE.worstcase.cert.json)")
    add_bias_argument(p, ". Hidden biases: the same algorithm on the inputs with a constant 1 column appended (a "
                         "refutation is then about that instance, written beside the certificate); an output bias: "
                         "on the labels' row span with the constant vector")
    p.add_argument("--evidence", help="when no network exists, also write the per-pattern evidence (JSON) here")
    p.add_argument("--progress", action="store_true", help="progress on stderr (default when stderr is a terminal)")
    p.add_argument("--time-limit", type=seconds_arg, help="give up (exit 3, nothing claimed) after this many seconds")
    p.add_argument("--force", action="store_true", help="run even when the up-front estimate is over a day")
    p.add_argument("--enumerate-only", action="store_true",
                   help="skip the polynomial row-span recovery tried first when rank(labels) = k")
    p.add_argument("--workers", type=positive_int_arg,
                   help="decide the enumeration's LPs (extreme rays, faces) on N local "
                   "worker processes; same answer and certificates")
    p.add_argument("--scheduler", type=scheduler_arg, metavar="ADDRESS",
                   help="decide them on the Dask cluster at ADDRESS instead "
                   "(pip install 'exactrelu[dask]')")
    json_command(p, "solve", cmd_solve)


def _basis(args):
    from ..exact.matrix import QMatrix
    from ..instances import read_instance

    if (args.instance is None) == (args.basis is None):
        raise InvalidInput("give exactly one of an instance file or --basis FILE")
    if args.basis:
        from ..io.files import read_json

        obj = read_json(args.basis, what="basis file")
        rows = obj.get("basis") if isinstance(obj, dict) else obj
        if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
            raise InvalidInput(f"{args.basis}: expected a list of rows, or {{\"basis\": [rows]}}")
        return QMatrix.from_rows(rows, name="basis")
    return read_instance(args.instance).labels.T


def _show_progress(args):
    """A progress line on stderr with --progress, or by default when stderr is a terminal; else None."""
    import sys

    from ..progress import LineProgress

    return LineProgress() if (args.progress or sys.stderr.isatty()) else None


def cmd_patterns(args) -> int:
    from ..decide.enumeration.patterns import cover_count, extreme_rays, integer_basis, nonnegative_patterns, sign_patterns

    from ..deadline import Deadline

    deadline = Deadline(args.time_limit, what="the patterns were all found")
    progress = _show_progress(args)
    B = _basis(args)
    rows = integer_basis(B)
    k, n = len(rows), B.shape[1]
    t0 = time.perf_counter()
    if not args.nonnegative:
        from ._work import patterns_estimate

        patterns_estimate(args, n=n, k=k)
    if args.nonnegative:
        rays = extreme_rays(rows, deadline=deadline, progress=progress)
        pats = nonnegative_patterns(rows, rays=rays, deadline=deadline, progress=progress)
        if progress is not None:
            progress.close()
        lines = [" ".join(map(str, s)) if s else "-" for s in pats] if args.list else []
        seconds = time.perf_counter() - t0
        lines.append(f"non-negative patterns: {len(pats)} supports (faces of the cone, apex included), {len(rays)} "
                     f"extreme rays; n={n}, k={k}; {seconds:.3f} s")
        record = {"mode": "nonnegative", "n": n, "k": k, "supports": len(pats), "extreme_rays": len(rays),
                  "seconds": seconds}
        if args.list:
            record["patterns"] = [list(s) for s in pats]
        return emit(args, record, lines)
    count, listed = 0, []
    for s in sign_patterns(rows, progress=progress is not None, deadline=deadline):
        count += 1
        if args.list:
            text = "".join("+" if x > 0 else "-" for x in s)
            if args.json:
                listed.append(text)
            else:  # stream: the list can be long
                print(text)
    bound = cover_count(n, k) if k else 0
    rel = "=" if count == bound else "<"
    zeros = sum(1 for j in range(n) if all(row[j] == 0 for row in rows))
    note = f" ({zeros} coordinates vanish on the whole subspace: no open orthant is met)" if zeros and k else ""
    seconds = time.perf_counter() - t0
    record = {"mode": "orthants", "n": n, "k": k, "patterns_met": count, "cover_bound": bound,
              "vanishing_coordinates": zeros, "seconds": seconds}
    if args.list:
        record["patterns"] = listed
    return emit(args, record, listed + [f"sign patterns: {count} {rel} Cover's bound 2*sum_(i<k) C(n-1,i) = {bound}; "
                                        f"n={n}, k={k}; {seconds:.3f} s{note}"])


def cmd_solve(args) -> int:
    from ..certificates.envelope import write_certificate
    from ..io.files import writable

    from ..deadline import Deadline
    from ._work import solve_estimate

    deadline = Deadline(args.time_limit)  # from the start: reading the file counts
    inst, name = read_data(args)
    out = writable(args.output if args.output else name + ".worstcase.cert.json")
    from ..exact.linalg import rank_mod_p

    solve_estimate(args, n=inst.n, d=inst.d, r=rank_mod_p(inst.labels.num))  # the rank mod p: enough for an estimate
    from ..decide.enumeration.worstcase import solve_decision  # after reading the input: a bad file is refused before SciPy loads
    t0 = time.perf_counter()
    backend = executor = None
    if args.workers is not None or args.scheduler is not None:
        from ..sweep.executors import Backend

        backend = Backend(workers=args.workers, scheduler=args.scheduler)
        executor = backend.make()
    try:
        res = solve_decision(inst, args.k, progress=_show_progress(args) is not None,
                             try_recovery=not args.enumerate_only, executor=executor,
                             workers=backend.workers if backend else 2, time_limit=deadline, bias=bias_of(args))
    finally:
        if backend is not None:  # after Ctrl-C, stop the workers rather than wait for them
            backend.close(executor, interrupted=sys.exc_info()[0] is KeyboardInterrupt)
    if not res.realizable:
        return _not_realizable(args, res, out, t0)
    write_certificate(res.certificate, out)
    seconds = time.perf_counter() - t0
    patterns, rank = res.evidence["patterns"], res.evidence["rank"]
    examined = sum(1 for p in patterns if p.kind != "row-span-recovery")
    used = sum(1 for p in patterns if p.outcome == "unit")
    if res.evidence["route"] == "row-span-recovery":
        route, how = "row-span recovery", "all units from row-span recovery (no enumeration needed)"
    elif res.evidence["route"] == "decide":
        route, how = "decide", f"{examined - 1} patterns examined, then decided by the lazy engine (one output)"
    else:
        route, how = "enumeration", f"{examined} patterns examined, {used} units"
    record = {"claim": res.certificate["claim"], "summary": res.summary, "rank": rank, "route": route,
              "patterns_examined": examined, "certificate": str(out), "bias": args.bias or "none", "seconds": seconds,
              "timings": {"read": args.read_seconds, "solve": seconds}}
    return emit(args, record, [f"VALID: {res.summary}",
                               f"rank(labels) = {rank}; {how}; {seconds:.3f} s (reading {args.read_seconds:.3f} s); "
                               f"certificate: {out}"])


def _not_realizable(args, res, out, t0) -> int:
    """A proved "no": its certificate (and, on request, the per-pattern evidence) written; exit 1."""
    from ..certificates.envelope import write_certificate

    ev = {key: v for key, v in res.evidence.items() if key not in ("reason", "route", "search")}
    message = f"{res.evidence['reason']}; certified: {res.summary}"
    if args.evidence:
        ev["patterns"] = [asdict(p) for p in ev.get("patterns", [])]
        obj = {"format": "exactrelu.evidence", "version": 1, "claim": "not-realizable", "message": message,
               **ev, "certificate": res.summary}
        write_text_atomic(args.evidence, json.dumps(obj, indent=1) + "\n", what="evidence file")
    write_certificate(res.certificate, out)
    about = _about(res, out, args.instance)
    seconds = time.perf_counter() - t0
    diagnosis = res.evidence.get("diagnosis")
    record = {"claim": "not-realizable", "certified": True, "summary": res.summary, "model": res.model,
              "message": message, "certificate": str(out), "instance": about, "seconds": seconds,
              "evidence": args.evidence, "diagnosis": diagnosis,
              "timings": {"read": args.read_seconds, "solve": seconds}}
    lines = [f"NOT REALIZABLE (certified): {res.summary}"]
    if about != args.instance:
        lines.append(f"the certificate is about the inputs with a constant 1 column appended, written to {about}")
    lines.append(f"{seconds:.3f} s; not-realizable certificate: {out} (verify: exactrelu check {out} "
                 f"{about or 'INSTANCE (exactrelu import writes it)'})")
    if diagnosis:
        lines.append(f"Diagnosis: {diagnosis}")
    return emit(args, record, lines, ok=False)


def _about(res, out, given: str) -> str:
    """The instance file the certificate is about: ``given``, or (``--bias`` refutations) the augmented instance,
    written beside the certificate as CERT.instance.json."""
    if res.instance is None:
        return given
    from ..instances import write_instance

    path = (str(out)[:-5] if str(out).endswith(".json") else str(out)) + ".instance.json"
    write_instance(res.instance, path)
    return path
