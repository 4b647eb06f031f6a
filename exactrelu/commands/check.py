"""``exactrelu check``: a certificate verified by the independent checkers, in one process, on workers, in ranges on a
Dask cluster, or after upgrading an old DRUP certificate.

The claims about one network on an instance (``realizes``, ``realizes-except``, ``residual``) are checked by the fast
exact checker (:mod:`exactrelu.certificates.fast`) unless ``--reference`` asks for the standard-library checker
(:mod:`exactrelu.certificates.checker`, which checks every other claim); both give the same verdict."""

from __future__ import annotations

from ..errors import CertificateInvalid, InvalidInput
from ..arguments import positive_int_arg, scheduler_arg
from ._limit import add_time_limit, limited
from ._report import emit, json_command


def register_check(sub) -> None:
    """Add ``check`` to the sub-command parsers ``sub``."""
    p = sub.add_parser("check", help="verify a certificate with the independent checker (exit 0 valid, 1 invalid)",
                       description="Verify a certificate with the independent checkers: the fast exact checker (NumPy) "
                       "for realizes, realizes-except and residual, the standard-library reference for every claim.")
    p.add_argument("certificate", help="the certificate file (JSON)")
    p.add_argument("instance", nargs="?", help="the instance the certificate is about (not needed for lp-* claims)")
    p.add_argument("--upgrade", metavar="NEW", help="rewrite the DRUP cases ('rup') of an old not-realizable certificate "
                   "with hints (untrusted), write the result to NEW, and check NEW")
    p.set_defaults(output_args=("upgrade",))  # an output, checked before the work, never taken for an input
    p.add_argument("--reference", action="store_true", help="use the standard-library reference checker for every "
                   "claim (the one the bundle and python -m exactrelu.certificates.checker run)")
    p.add_argument("--workers", type=positive_int_arg, metavar="N",
                   help="check the samples of realizes / realizes-except / residual "
                   "in N processes, verdicts combined into one (default: the fast checker takes every idle core of "
                   "a large instance, the reference one process)")
    p.add_argument("--scheduler", type=scheduler_arg, metavar="ADDRESS",
                   help="check them range by range on this Dask scheduler "
                   "(pip install 'exactrelu[dask]')")
    p.add_argument("--pieces", type=positive_int_arg, metavar="N",
                   help="ranges of samples for --scheduler (default: 4 per worker)")
    add_time_limit(p)
    json_command(p, "check", limited(cmd_check, what="the verdict"))


def cmd_check(args) -> int:
    from ..certificates import checker

    if args.upgrade:
        _upgrade(args)
        args.certificate = args.upgrade
    workers = getattr(args, "workers", None)
    if workers is not None and not 1 <= workers <= 1024:
        raise InvalidInput(f"--workers needs a number of processes from 1 to 1024, not {workers}")
    ranges = getattr(args, "scheduler", None) or getattr(args, "pieces", None)
    used = "reference" if getattr(args, "reference", False) or ranges else "fast"
    try:
        if ranges:
            summary = _check_in_ranges(args)
        elif used == "reference":
            summary = checker.check_files(args.certificate, args.instance, workers=workers or 1)
        else:
            summary = _check_fast(args.certificate, args.instance, workers)
    except checker.UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None
    except (checker.CheckFailed, CertificateInvalid) as exc:
        return emit(args, {"valid": False, "reason": str(exc), "checker": used}, f"INVALID: {exc}", ok=False)
    return emit(args, {"valid": True, "summary": summary, "checker": used, **_scope(args.certificate)},
                f"VALID: {summary}")


def _check_fast(cert_path: str, instance_path: str | None, workers: int | None) -> str:
    """The fast checker on the files: ``workers`` processes, or every idle core for a large instance."""
    from ..certificates import checker
    from ..certificates.envelope import check_read

    cert = checker.read_certificate(cert_path)
    instance = checker.load_instance(instance_path, parse=False) if instance_path is not None else None
    return check_read(cert, instance, instance_path or "the instance", workers, reference=False)


def _scope(path: str) -> dict:
    """The claim of a valid certificate and, for ``not-realizable``, the class it states (None: an old certificate,
    read with its old meaning, as the summary says)."""
    from ..certificates import checker
    from ..certificates.claims.model import model_of

    with open(path, "rb") as fh:
        cert = checker.read_json(fh.read(), path)
    scope = {"claim": cert.get("claim")}
    if cert.get("claim") == "not-realizable":
        scope["model"] = model_of(cert)
    if cert.get("claim") == "realizes-except":
        scope["excepted"] = len(cert["except"])
    return scope


def _check_in_ranges(args) -> str:
    """``exactrelu check --scheduler / --pieces``: the samples in ranges on the sweep's executor."""
    from ..sweep.check_ranges import check_in_ranges

    if args.instance is None:
        raise InvalidInput("--scheduler and --pieces need the instance file")
    if args.scheduler and args.workers:
        raise InvalidInput("give --workers or --scheduler, not both (a Dask cluster has its own workers)")
    pieces = args.pieces or 4 * (args.workers or 2)
    return check_in_ranges(args.certificate, args.instance, pieces=pieces, workers=args.workers, scheduler=args.scheduler)


def _upgrade(args) -> None:
    """Write ``args.upgrade``: the certificate with its DRUP cases rewritten as hinted cases (checked next)."""
    from ..certificates import checker
    from ..certificates.envelope import write_certificate
    from ..decide.search.sat.upgrade import upgrade_certificate
    from ..io.files import writable

    if args.instance is None:
        raise InvalidInput("--upgrade needs the instance file the certificate is about")
    writable(args.upgrade)
    try:
        with open(args.certificate, "rb") as fh:
            cert = checker.read_json(fh.read(), args.certificate)
        instance = checker.load_instance(args.instance)
    except OSError as exc:
        raise InvalidInput(f"cannot read {args.certificate}: {exc}") from None
    except checker.UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None
    write_certificate(upgrade_certificate(cert, instance), args.upgrade)
