"""The .npz instance reader of the checker. Standard library only.

An .npz instance has exactly the members ``inputs.npy`` and ``labels.npy`` (stored or deflated), each an .npy
array (version 1.0 or 2.0), 1-D or 2-D, of float64, float32, int64 or int32 in either byte order, C or Fortran
order, whose data are exactly the bytes the shape announces; declared sizes are checked before decompressing
(docs/limits.md). C-order members are read a block of rows at a time (:class:`NpzRows`). The library's reader
(``exactrelu/io/npz.py``) follows the same rules, written separately, and calls :func:`npy_header` so that both
accept the same headers.
"""

from __future__ import annotations

import ast
import struct
import zipfile

from .common import HELD, UnreadableInput, check_inflation, check_memory, limit, over

NPZ_MEMBERS = ("inputs.npy", "labels.npy")
_DTYPES = {"f8": "d", "f4": "f", "i8": "q", "i4": "i"}


def npy_header(data: bytes, name: str) -> tuple[str, bool, tuple, int]:
    """(dtype descr such as '<f8', fortran order, shape, data offset) of an .npy file, checked: version 1.0 or
    2.0, a header within the limit, a 1-D or 2-D shape, dtype float64, float32, int64 or int32 (the library's
    .npz reader calls this too, so that both accept the same files)."""
    if data[:6] != b"\x93NUMPY" or data[6:8] not in (b"\x01\x00", b"\x02\x00"):
        raise UnreadableInput(f"{name}: not a .npy array (version 1.0 or 2.0)")
    wide = data[6] == 2
    start = 12 if wide else 10
    if len(data) < start:
        raise UnreadableInput(f"{name}: truncated .npy header")
    (hlen,) = struct.unpack("<I" if wide else "<H", data[8:start])
    if hlen > limit("header"):
        raise over("header", f"{name}: an .npy header of {hlen} bytes")
    if start + hlen > len(data):
        raise UnreadableInput(f"{name}: truncated .npy header")
    try:
        header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise UnreadableInput(f"{name}: malformed .npy header") from None
    if not (isinstance(header, dict) and set(header) == {"descr", "fortran_order", "shape"}
            and isinstance(header["descr"], str) and isinstance(header["fortran_order"], bool)
            and isinstance(header["shape"], tuple) and len(header["shape"]) in (1, 2)
            and all(type(s) is int and s >= 0 for s in header["shape"])):
        raise UnreadableInput(f"{name}: malformed .npy header (descr, fortran_order, and a 1-D or 2-D shape)")
    descr = header["descr"]
    if len(descr) != 3 or descr[0] not in "<>" or descr[1:] not in _DTYPES:
        raise UnreadableInput(f"{name}: dtype {descr!r} not supported (float64, float32, int64 or int32)")
    return descr, header["fortran_order"], header["shape"], start + hlen


def _npy_layout(head: bytes, name: str, size_on_disk: int) -> tuple:
    """(struct format such as '<d', item size, rows, columns, fortran order, data offset) of an .npy member whose
    first bytes are ``head`` and whose size is ``size_on_disk``: at least one row and one column, exactly the data
    bytes the shape announces (the bytes hold the entries: a shape they do not hold is refused, no count is)."""
    descr, fortran, shape, start = npy_header(head, name)
    fmt, size = descr[0] + _DTYPES[descr[1:]], int(descr[2])
    if len(shape) == 1:
        shape = (shape[0], 1)
    r, c = shape
    if r == 0 or c == 0:
        raise UnreadableInput(f"{name}: shape {shape} has no entries (at least one sample and one column)")
    if size_on_disk - start != r * c * size:
        raise UnreadableInput(f"{name}: shape {shape} needs {r * c * size} data bytes, the file has {size_on_disk - start}")
    return fmt, size, r, c, fortran, start


def _read_npy(data: bytes, name: str) -> list:
    """Rows of a 1-D (one column) or 2-D array with at least one row and one column, read whole."""
    fmt, size, r, c, fortran, start = _npy_layout(data, name, len(data))
    values = struct.unpack(f"{fmt[0]}{r * c}{fmt[1]}", data[start:])
    if fortran:
        return [[values[i + j * r] for j in range(c)] for i in range(r)]
    return [list(values[i * c:(i + 1) * c]) for i in range(r)]


class NpzRows:
    """The rows of one C-order .npy member of an .npz, read from the file a block of rows at a time when sliced.

    Nothing is kept between slices but an open file: a check that streams holds one block's rows at once. A stored
    member is read at its offset in the archive (any block, in any order, by any process); a deflated one is
    decompressed forwards (the next block continues where the last stopped; a block before it starts over).
    A forked process opens its own file. Unreadable data raise UnreadableInput.
    """

    def __init__(self, path: str, info, fmt: str, size: int, rows: int, cols: int, start: int, offset) -> None:
        self.path, self.info, self.name = path, info, info.filename[:-4]
        self.fmt, self.size, self.rows, self.cols, self.start = fmt, size, rows, cols, start
        self.offset = offset  # where the .npy bytes of a stored member start in the file; None: deflated
        self._pid, self._fh, self._zip, self._at = None, None, None, 0

    def __len__(self) -> int:
        return self.rows

    def __getitem__(self, key):
        if isinstance(key, slice):
            a, b, step = key.indices(self.rows)
            if step != 1:
                raise ValueError("NpzRows slices have step 1")
            return self._block(a, max(a, b))
        i = range(self.rows)[key]
        return self._block(i, i + 1)[0]

    def _bytes(self, at: int, count: int) -> bytes:
        """``count`` bytes of the .npy member from its byte ``at``."""
        import os

        if self._pid != os.getpid():  # a forked worker must not share the parent's file position
            self._pid, self._fh, self._zip, self._at = os.getpid(), None, None, 0
        if self.offset is not None:
            if self._fh is None:
                self._fh = open(self.path, "rb")
            self._fh.seek(self.offset + at)
            return self._fh.read(count)
        if self._fh is None or at < self._at:
            self._zip = zipfile.ZipFile(self.path)
            self._fh, self._at = self._zip.open(self.info), 0
        while self._at < at:  # skip forwards, a bounded piece at a time
            skipped = len(self._fh.read(min(at - self._at, 1 << 22)))
            if not skipped:
                break
            self._at += skipped
        data = self._fh.read(count)
        self._at += len(data)
        return data

    def _block(self, a: int, b: int) -> list:
        if a >= b:
            return []
        c, count = self.cols, (b - a) * self.cols
        try:
            data = self._bytes(self.start + a * c * self.size, count * self.size)
            if len(data) != count * self.size:
                raise UnreadableInput(f"{self.path}: member {self.info.filename} is shorter than its header says")
            values = struct.unpack(f"{self.fmt[0]}{count}{self.fmt[1]}", data)
        except (zipfile.BadZipFile, NotImplementedError, EOFError, OSError, struct.error, ValueError) as exc:
            raise UnreadableInput(f"{self.path}: not a valid .npz instance ({exc})") from None
        return [list(values[i:i + c]) for i in range(0, count, c)]


def _stored_offset(fh, info) -> int:
    """Where the data of a stored member start in the archive: after its local header, which must name it."""
    fh.seek(info.header_offset)
    local = fh.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise UnreadableInput(f"member {info.filename}: bad local header")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    if fh.read(name_len) != info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437"):
        raise UnreadableInput(f"member {info.filename}: its local header names another file")
    if info.compress_size != info.file_size:
        raise UnreadableInput(f"member {info.filename}: stored, but its sizes differ")
    return info.header_offset + 30 + name_len + extra_len


def read_npz(path: str) -> dict:
    """The members of an .npz instance as rows: C-order members as :class:`NpzRows` (read a block at a time),
    Fortran-order ones read whole (within the memory there is)."""
    try:
        with zipfile.ZipFile(path) as z, open(path, "rb") as raw:
            infos = z.infolist()
            if sorted(i.filename for i in infos) != list(NPZ_MEMBERS):
                raise UnreadableInput(f"{path}: an .npz instance has exactly the members inputs.npy and labels.npy, "
                                      f"found {sorted(i.filename for i in infos)[:10]}")
            arrays = {}
            for info in infos:
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise UnreadableInput(f"{path}: member {info.filename} is neither stored nor deflated")
                if info.compress_type == zipfile.ZIP_DEFLATED:  # before decompressing: no deflate bomb
                    check_inflation(info.compress_size, info.file_size, f"{path}: member {info.filename}")
                with z.open(info) as fh:
                    head = fh.read(12 + limit("header"))
                name = info.filename[:-4]
                fmt, size, r, c, fortran, start = _npy_layout(head, name, info.file_size)
                if fortran:  # read whole: held as rows
                    check_memory(r * c * HELD, f"{path}: member {info.filename} ({r} x {c}, Fortran order)")
                    with z.open(info) as fh:
                        data = fh.read(info.file_size + 1)
                    if len(data) != info.file_size:
                        raise UnreadableInput(f"{path}: member {info.filename} is not the size its header says")
                    arrays[info.filename] = _read_npy(data, name)
                    continue
                stored = info.compress_type == zipfile.ZIP_STORED
                offset = _stored_offset(raw, info) if stored else None
                arrays[info.filename] = NpzRows(path, info, fmt, size, r, c, start, offset)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError, struct.error,
            ValueError) as exc:
        raise UnreadableInput(f"{path}: not a valid .npz instance ({exc})") from None
    return {"inputs": arrays["inputs.npy"], "labels": arrays["labels.npy"], "activation": None}
