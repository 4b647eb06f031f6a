"""``exactrelu checker-bundle -o exactrelu-check.pyz``: the independent checker as one file an auditor can run alone.

The bundle is a zip application (the format of stdlib :mod:`zipapp`: a ``#!`` line, then a zip archive)
holding byte-for-byte copies of the trusted base, ``exactrelu/certificates/checker.py`` and
``exactrelu/certificates/trusted/*.py``
(:data:`~exactrelu.certificates.checker.TRUSTED_FILES`), under their own paths, with two empty package
files above them and a ``__main__.py`` of two lines. It needs Python 3.11 or later and nothing else::

    python -I exactrelu-check.pyz CERT.json [INSTANCE.json|.npz]   # exit 0 valid, 1 invalid, 2 unreadable

The archive is reproducible: every member has the same fixed time stamp, so two builds of one source tree
are the same bytes and the SHA-256 printed by the command can be compared with a published one.

>>> import os, tempfile, zipfile
>>> path = build_checker_bundle(os.path.join(tempfile.mkdtemp(), "check.pyz"))
>>> names = zipfile.ZipFile(path).namelist()
>>> "__main__.py" in names, "exactrelu/certificates/trusted/lrat.py" in names
(True, True)
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

from ._report import emit, json_command

__all__ = ["build_checker_bundle", "register"]

#: the bundle's entry point: the checker's own ``main``, nothing else
MAIN = "import sys\nfrom exactrelu.certificates.checker import main\nsys.exit(main())\n"
_PACKAGE_DOC = '"""The exactrelu checker bundle: only the trusted base (standard library only)."""\n'
_STAMP = (1980, 1, 2, 0, 0, 0)  # the same time stamp on every member: the build is reproducible


def build_checker_bundle(path: str | os.PathLike) -> Path:
    """Write the checker bundle to ``path`` (a ``.pyz`` zip application); return the path.

    The archive is written to a temporary file next to ``path`` and renamed into place, so an existing
    file is replaced whole or not at all.
    """
    from ..certificates import checker
    from ..io.files import atomic_output, writable

    path = writable(path)
    source = Path(checker.__file__).resolve().parent  # exactrelu/certificates
    files = {f"exactrelu/certificates/{name}": (source / name).read_bytes()
             for name in (*checker.TRUSTED_FILES, "trusted/__init__.py")}
    files.update({"__main__.py": MAIN.encode(), "exactrelu/__init__.py": _PACKAGE_DOC.encode(),
                  "exactrelu/certificates/__init__.py": _PACKAGE_DOC.encode()})
    with atomic_output(path, binary=True, what="checker bundle") as fh:
        fh.write(b"#!/usr/bin/env python3\n")  # what zipapp.create_archive(interpreter=...) writes
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in sorted(files.items()):
                info = zipfile.ZipInfo(name, date_time=_STAMP)
                info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
                z.writestr(info, data)
    os.chmod(path, 0o755)
    return path


def register(sub) -> None:
    p = sub.add_parser("checker-bundle", help="write the independent checker as one self-contained .pyz file",
                       description="Write the trusted checker (checker.py and trusted/, standard library only) as a "
                                   "zip application that runs on any Python 3.11+ with nothing installed: "
                                   "python -I exactrelu-check.pyz CERT [INSTANCE]. The build is reproducible; its "
                                   "SHA-256 is printed.")
    p.add_argument("-o", "--output", default="exactrelu-check.pyz",
                   help="the file to write (default exactrelu-check.pyz)")
    json_command(p, "checker-bundle", cmd_bundle)


def cmd_bundle(args) -> int:
    path = build_checker_bundle(args.output)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    record = {"bundle": str(path), "sha256": digest, "bytes": path.stat().st_size}
    return emit(args, record, [f"wrote {path} ({record['bytes']} bytes, sha256 {digest})",
                               f"run it with: python -I {path} CERT [INSTANCE]"])
