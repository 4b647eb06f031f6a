"""Reading and writing files without surprises: every failure is one :class:`InvalidInput` line.

:func:`read_json` turns every way a JSON file can be unreadable (missing, a directory, not UTF-8,
not JSON, nested too deeply, an integer over the digit limit) into InvalidInput; :func:`check_fields`
refuses unknown keys (a typo such as ``"activaton"`` would otherwise be ignored);
:func:`writable` checks an output path *before* a long computation instead of after it.

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> writable(os.path.join(d, "out.json")).name
'out.json'
>>> writable(os.path.join(d, "missing", "out.json"))
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: cannot write .../missing/out.json: the directory ... does not exist
"""

from __future__ import annotations

import os
from pathlib import Path

from ..certificates.trusted.common import UnreadableInput
from ..certificates.trusted.common import read_json as checker_read_json
from ..errors import InvalidInput
from ..limits import limit

__all__ = ["read_json", "check_fields", "writable", "read_bytes", "write_text_atomic"]


def read_bytes(path: str | os.PathLike, *, what: str = "file") -> bytes:
    """The bytes of ``path``; InvalidInput if it is missing, a directory or unreadable."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise InvalidInput(f"no such {what}: {path}") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path} is a directory, not a file ({what} expected)") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def read_json(path: str | os.PathLike, *, what: str = "file", raw: bytes | None = None):
    """Parse the JSON document in ``path`` (or in ``raw``, its bytes); every failure is InvalidInput.

    The document is read by the checker's own reader (:func:`exactrelu.certificates.trusted.common.read_json`)
    with the library's digit limit, so that the library and the checker never see two documents in one file
    (a repeated key is refused by both).

    >>> read_json("x.json", raw=b'{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: x.json: the key 'a' appears twice in one object
    """
    data = read_bytes(path, what=what) if raw is None else raw
    try:
        return checker_read_json(data, str(path), digits=limit("digits"))
    except UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None


def check_fields(obj: dict, allowed: set | frozenset, where: str) -> None:
    """Refuse keys of ``obj`` outside ``allowed`` (typos must not be read as defaults)."""
    extra = sorted(set(obj) - set(allowed))
    if extra:
        raise InvalidInput(f"{where}: unknown fields {extra[:5]} (known: {sorted(allowed)})")


def writable(path: str | os.PathLike, *, directory_ok: bool = False) -> Path:
    """``path`` as a Path after checking that a file (or, with ``directory_ok``, a directory) can be
    written there, before any long work."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir() and directory_ok:
        parent = path
    elif path.is_dir():
        raise InvalidInput(f"cannot write {path}: it is a directory")
    if not parent.is_dir():
        raise InvalidInput(f"cannot write {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InvalidInput(f"cannot write {path}: permission denied")
    return path


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` so that a kill leaves the old file or the new one, never half of either
    (a temporary file in the same directory, flushed and fsynced, then ``os.replace``).

    >>> import tempfile, os
    >>> p = write_text_atomic(os.path.join(tempfile.mkdtemp(), "a.json"), "{}\\n")
    >>> p.read_text()
    '{}\\n'
    """
    import tempfile

    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise InvalidInput(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InvalidInput(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
    return path
