"""Reading and writing files without surprises: every failure is one :class:`InvalidInput` line.

:func:`read_json` turns every way a JSON file can be unreadable (missing, a directory, not UTF-8,
not JSON, nested too deeply, an integer over the digit limit) into InvalidInput; :func:`check_fields`
refuses unknown keys (a typo such as ``"activaton"`` would otherwise be ignored);
:func:`writable` checks an output path *before* a long computation instead of after it;
:func:`atomic_output` is the one way the project writes a file (never a truncated one).

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
import re
import stat
import tempfile
import threading
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Iterator

from ..certificates.trusted.common import UnreadableInput
from ..certificates.trusted.common import read_json as checker_read_json
from ..errors import InvalidInput
from ..limits import limit

__all__ = ["read_json", "check_fields", "check_exact_entries", "writable", "read_bytes", "atomic_output",
           "write_text_atomic", "write_bytes_atomic", "OutputGuard", "protect_inputs"]


def read_bytes(path: str | os.PathLike, *, what: str = "file", size: int = -1) -> bytes:
    """The bytes of ``path`` (its first ``size`` bytes when ``size >= 0``); InvalidInput if it is missing, a directory
    or unreadable."""
    try:
        with open(path, "rb") as fh:
            return fh.read(size)
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


def check_exact_entries(obj: dict, keys, where: str) -> None:
    """Refuse a JSON float or boolean among the numbers of ``obj[key]`` (nested lists and objects) for each present key.

    A JSON float is already rounded by the time it is read (``0.1`` is not 1/10) and ``true`` is not a
    number: exact files write rationals as strings (``"0.1"``, ``"1/10"``) or JSON integers.

    >>> check_exact_entries({"U": [[1, "1/2"]], "b": [0.1]}, ("U", "V", "b"), "w.json")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: w.json: 'b' holds 0.1, a JSON float; write exact rationals as strings
    ("0.1", "1/10") or integers
    """
    for key in keys:
        stack = [obj.get(key)]
        while stack:
            x = stack.pop()
            if isinstance(x, list):
                stack.extend(x)
            elif isinstance(x, dict):  # the layers of a deep network: {"W": rows, "b": entries}
                stack.extend(x.values())
            elif isinstance(x, (bool, float)):
                kind = "a boolean" if isinstance(x, bool) else "a JSON float"
                shown = str(x).lower() if isinstance(x, bool) else x
                raise InvalidInput(f"{where}: '{key}' holds {shown}, {kind}; write "
                                   'exact rationals as strings ("0.1", "1/10") or integers')


def check_fields(obj: dict, allowed: set | frozenset, where: str) -> None:
    """Refuse keys of ``obj`` outside ``allowed`` (typos must not be read as defaults)."""
    extra = sorted(set(obj) - set(allowed))
    if extra:
        raise InvalidInput(f"{where}: unknown fields {extra[:5]} (known: {sorted(allowed)})")


def writable(path: str | os.PathLike, *, directory_ok: bool = False) -> Path:
    """``path`` as a Path after checking that a file (or, with ``directory_ok``, a directory) can be
    written there, before any long work: refused when it is a directory (unless ``directory_ok``), a block device
    or a socket, an input of the running command (:func:`protect_inputs`), or in a directory that does not exist.
    A symbolic link is checked at its target (which :func:`atomic_output` replaces); a character device or a FIFO
    is written directly, never replaced."""
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir() and directory_ok:
        parent = target
    elif target.is_dir():
        raise InvalidInput(f"cannot write {path}: it is a directory")
    elif target.exists() and _special(target) not in (None, "character device", "FIFO"):
        raise InvalidInput(f"cannot write {path}: it is a {_special(target)}, not a file")
    if not parent.is_dir():
        raise InvalidInput(f"cannot write {path}: the directory {parent} does not exist")
    _refuse_an_input(path)
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise InvalidInput(f"cannot write {path}: permission denied")
    return path


def _special(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file or a directory (None for those, or when it is absent)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, name in ((stat.S_ISCHR, "character device"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return None


#: the files the running command reads (:func:`protect_inputs`): no output may replace one
_INPUTS: list[str] = []


@contextmanager
def protect_inputs(paths) -> Iterator[None]:
    """While the block runs, refuse any output (:func:`writable`, :func:`atomic_output`) that is one of ``paths``
    (the same file, by ``os.path.samefile``: through a link or another spelling too). The command line puts every
    existing file among a command's arguments here, so ``recover inst.json -o inst.json`` is refused before any
    work instead of replacing the instance with its certificate.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "in.json")
    >>> _ = open(path, "w").write("{}")
    >>> with protect_inputs([path]):
    ...     writable(path)
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: cannot write .../in.json: it is an input of this command (write the output elsewhere)
    """
    added = [str(p) for p in paths if isinstance(p, (str, os.PathLike)) and str(p) and os.path.isfile(p)]
    _INPUTS.extend(added)
    try:
        yield
    finally:
        for p in added:
            _INPUTS.remove(p)


def _refuse_an_input(path: Path) -> None:
    for inp in _INPUTS:
        with suppress(OSError):
            if os.path.samefile(inp, path):
                raise InvalidInput(f"cannot write {path}: it is an input of this command (write the output elsewhere)")


#: the lock between a guarded writer's ``os.replace`` and :meth:`OutputGuard.abandon`
_GUARD_LOCK = threading.Lock()
_THREAD = threading.local()


class OutputGuard:
    """The files one thread is writing through :func:`atomic_output`, which another thread can abandon.

    A command run under ``--time-limit`` works on a thread of its own (:func:`exactrelu.deadline.run_within`);
    when the limit passes, the command gives up and :meth:`abandon` makes sure that the thread, which may still
    be running, puts no file in place from then on: its temporary files are removed, and its next ``os.replace``
    is refused. The check and the replace hold one lock with :meth:`abandon`, so a file is either in place, whole,
    before the command gave up, or never.

    >>> import tempfile, os
    >>> guard = OutputGuard(); guard.enter()
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> with atomic_output(path) as fh:
    ...     _ = fh.write("x"); guard.abandon()
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: not writing file .../a.txt: the command gave up (its time limit passed)
    >>> os.listdir(os.path.dirname(path)), OutputGuard.leave()
    ([], None)
    """

    __slots__ = ("abandoned", "pending")

    def __init__(self) -> None:
        self.abandoned = False
        self.pending: set[str] = set()

    def enter(self) -> None:
        """Guard the files the calling thread writes from now on."""
        _THREAD.guard = self

    @staticmethod
    def leave() -> None:
        """Stop guarding the calling thread's files."""
        _THREAD.guard = None

    @staticmethod
    def abandoned_here() -> bool:
        """Whether the calling thread works for a command that has given up (its report is then not printed)."""
        guard = getattr(_THREAD, "guard", None)
        return guard is not None and guard.abandoned

    def abandon(self) -> None:
        """From now on the guarded thread puts no file in place; its temporary files are removed."""
        with _GUARD_LOCK:
            self.abandoned = True
            for tmp in self.pending:
                with suppress(OSError):
                    os.unlink(tmp)
            self.pending.clear()


@contextmanager
def atomic_output(path: str | os.PathLike, *, binary: bool = False, what: str = "file") -> Iterator[IO]:
    """Open a file to stream ``path``'s new content into, replacing ``path`` only when the block ends.

    The one writer of every file the project makes (certificates, weights, instances, plots, sweep
    outputs): the content goes to a temporary file in the same directory, is flushed and fsynced,
    then ``os.replace`` puts it in place (git updates a ref the same way). A kill leaves the old file
    or the new one, never half of either; an error in the block (a full disk, an exception of the
    caller) removes the temporary file and leaves the old file untouched. OSError becomes one
    InvalidInput line.

    Only a file is ever replaced: a symbolic link is followed and its target replaced (the link stays); a
    character device (``/dev/null``) or a FIFO is written directly, never replaced by a file; a directory, a block
    device, a socket and an input of the running command (:func:`protect_inputs`) are refused. The temporary file
    is ``.NAME.PID.XXXXXXXX.tmp``: one left by a process that is gone (killed with SIGKILL) is removed the next time
    ``NAME`` is written.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> with atomic_output(path) as fh:
    ...     _ = fh.write("new")
    >>> open(path).read(), sorted(os.listdir(os.path.dirname(path)))
    ('new', ['a.txt'])
    """
    path = Path(path)
    target, kind = _writable_target(path, what)
    if kind is not None:
        with _direct(target, binary, what) as fh:  # a device or a FIFO: never replaced by a file
            yield fh
        return
    _clean_orphans(target)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".",
                                   prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp")
    except OSError as exc:
        raise InvalidInput(f"cannot write {what} {path}: {exc.strerror or exc}") from None
    guard = getattr(_THREAD, "guard", None)
    if guard is not None:
        with _GUARD_LOCK:
            guard.pending.add(tmp)
    try:
        os.chmod(tmp, _mode_for(target))  # mkstemp makes 0600: keep the mode the file has, or would get from open()
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""})) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _put_in_place(tmp, target, guard, f"{what} {path}")
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(tmp)
        if guard is not None:
            with _GUARD_LOCK:
                guard.pending.discard(tmp)
        if isinstance(exc, OSError):
            raise InvalidInput(f"cannot write {what} {path}: {exc.strerror or exc}") from None
        raise


def _writable_target(path: Path, what: str) -> tuple[Path, str | None]:
    """The file that writing ``path`` replaces (a symbolic link's target) and its kind (None: a file, or nothing yet);
    InvalidInput when it is neither a file, a character device nor a FIFO, or is an input of the running command."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    kind = "directory" if target.is_dir() else _special(target)
    if kind not in (None, "character device", "FIFO"):
        raise InvalidInput(f"cannot write {what} {path}: it is a {kind}, not a file")
    _refuse_an_input(target)
    return target, kind


def _put_in_place(tmp: str, target: Path, guard, named: str) -> None:
    """``os.replace(tmp, target)``; under a command's guard only while the command has not given up."""
    if guard is None:
        os.replace(tmp, target)
        return
    with _GUARD_LOCK:
        if guard.abandoned:
            raise InvalidInput(f"not writing {named}: the command gave up (its time limit passed)")
        os.replace(tmp, target)
        guard.pending.discard(tmp)


@contextmanager
def _direct(target: Path, binary: bool, what: str) -> Iterator[IO]:
    """``target`` (a character device or a FIFO) opened for writing as it is."""
    try:
        fh = open(target, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""}))
    except OSError as exc:
        raise InvalidInput(f"cannot write {what} {target}: {exc.strerror or exc}") from None
    try:
        with fh:
            yield fh
    except OSError as exc:
        raise InvalidInput(f"cannot write {what} {target}: {exc.strerror or exc}") from None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def _clean_orphans(target: Path) -> None:
    """Remove the temporary files ``.NAME.PID.XXXXXXXX.tmp`` of ``target`` whose process is gone (a SIGKILL leaves
    them): ours only (this user's regular files, named exactly as :func:`atomic_output` names them)."""
    pattern = re.compile(re.escape(f".{target.name}.") + r"([0-9]+)\.[a-z0-9_]{8}\.tmp")
    try:
        entries = list(os.scandir(target.parent if str(target.parent) else "."))
    except OSError:
        return
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match is None or int(match.group(1)) == os.getpid() or _alive(int(match.group(1))):
            continue
        with suppress(OSError):
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid():
                os.unlink(entry.path)


def _mode_for(path: Path) -> int:
    """The permission bits of the existing ``path``, else those ``open(path, "w")`` would give (0666 less the umask)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def write_text_atomic(path: str | os.PathLike, text: str, *, what: str = "file") -> Path:
    """Write ``text`` to ``path`` through :func:`atomic_output` (the old file or the new one, never half of either).

    >>> import tempfile, os
    >>> p = write_text_atomic(os.path.join(tempfile.mkdtemp(), "a.json"), "{}\\n")
    >>> p.read_text()
    '{}\\n'
    """
    with atomic_output(path, what=what) as fh:
        fh.write(text)
    return Path(path)


def write_bytes_atomic(path: str | os.PathLike, data: bytes, *, what: str = "file") -> Path:
    """Write ``data`` to ``path`` through :func:`atomic_output`.

    >>> import tempfile, os
    >>> write_bytes_atomic(os.path.join(tempfile.mkdtemp(), "a.bin"), b"ab").read_bytes()
    b'ab'
    """
    with atomic_output(path, binary=True, what=what) as fh:
        fh.write(data)
    return Path(path)
