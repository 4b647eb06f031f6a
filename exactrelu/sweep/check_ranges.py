"""One certificate checked range by range on the sweep's executors (a process pool, or a Dask cluster).

Each task runs the independent checker on its files for one range of samples
(:func:`exactrelu.certificates.checker.range_task`: it parses only its rows and returns their hashed text and
its verdict); the checker's :func:`~exactrelu.certificates.checker.combine_rows` binds the ranges to the
certificate's instance hash and combines their verdicts into one. The claims checked this way are
``realizes``, ``realizes-except`` and ``residual``; any other claim is checked whole, here.

>>> import tempfile, os
>>> from exactrelu.instances import planted
>>> from exactrelu.certificates.claims.realizes import realizes_certificate
>>> from exactrelu.certificates.envelope import write_certificate
>>> from exactrelu.instances.files import write_instance
>>> inst = planted(d=3, k=2, m=2, n=50, seed=1)
>>> folder = tempfile.mkdtemp()
>>> _ = write_certificate(realizes_certificate(inst, inst.planted), os.path.join(folder, "c.json"))
>>> _ = write_instance(inst, os.path.join(folder, "i.json"))
>>> check_in_ranges(os.path.join(folder, "c.json"), os.path.join(folder, "i.json"), pieces=3, workers=1)
'realizes: 50 samples x 2 outputs equal exactly (k=2, d=3, activation degree 1)'
"""

from __future__ import annotations

from ..errors import CertificateInvalid, InvalidInput
from ..validation import check_positive_integer
from .executors import Backend


def check_in_ranges(cert_path: str, instance_path: str, *, pieces: int, workers: int | None = None,
                    scheduler: str | None = None) -> str:
    """The checker's verdict on a certificate, its samples checked in ``pieces`` ranges by the sweep's executor
    (``workers`` local processes, or the Dask scheduler at ``scheduler``); CertificateInvalid when it does not hold."""
    from ..certificates import checker
    from ..certificates.trusted.instance import instance_shape

    check_positive_integer(pieces, "pieces")
    try:
        cert = checker.read_certificate(cert_path)
        if not isinstance(cert, dict) or cert.get("claim") not in checker.RANGE_CLAIMS:
            return checker.check_files(cert_path, instance_path)
        instance = checker.load_instance(instance_path, parse=False)
        n = instance_shape(instance["inputs"], instance["labels"], instance_path)[0]
        del instance  # each task reads the files itself
        backend = Backend(workers=workers, scheduler=scheduler)
        ex = backend.make()
        try:
            futures = [ex.submit(checker.range_task, cert_path, instance_path, a, b)
                       for a, b in checker.cuts(n, pieces)]
            return checker.combine_rows(cert, (f.result() for f in futures))
        finally:
            backend.close(ex)
    except checker.UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None
    except checker.CheckFailed as exc:
        raise CertificateInvalid(str(exc)) from None
