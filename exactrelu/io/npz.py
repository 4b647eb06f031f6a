"""Strict reading of ``.npz`` instance files: the rules the independent checker applies, by its own header reader.

An ``.npz`` instance has exactly the members ``inputs.npy`` and ``labels.npy`` (stored or deflated;
no other member, no duplicate), each an ``.npy`` array of version 1.0 or 2.0 with

* a header of at most ``limit("header")`` bytes holding exactly ``descr``, ``fortran_order`` and a
  1-D or 2-D ``shape`` of non-negative integers (1-D means one column);
* ``descr`` one of float64, float32, int64, int32, little- or big-endian (``<f8``, ``>f4``, ...);
* exactly ``rows * columns * itemsize`` bytes of data, with at least one row and one column.

Before anything is decompressed, a deflated member may unpack to at most ``limit("inflation")`` times its compressed
bytes (a deflate bomb is out of proportion to its file) and the arrays must fit the memory there is; the
decompressed size must be the declared one, and the shape must be exactly what the stored bytes hold. Floats are
then taken exactly (a float32 or
float64 is a dyadic rational). ``numpy.load`` is not used: it reads a member ``labels`` as well as
``labels.npy``, and accepts what the checker does not, so the two could see different instances.
The checker's reader is ``exactrelu/certificates/trusted/npz.py``; ``tests/io/test_npz.py``
feeds the same files to both.

>>> import io, numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "i.npz")
>>> np.savez(path, inputs=np.ones((3, 2), dtype=">f4"), labels=np.arange(3.0))
>>> X, Y = read_npz_instance(path)
>>> X.dtype, X.shape, Y.shape
(dtype('float64'), (3, 2), (3, 1))
"""

from __future__ import annotations

import os
import struct
import zipfile

import numpy as np

from ..certificates.trusted.common import UnreadableInput
from ..certificates.trusted.npz import NpzRows, npy_header
from ..errors import InvalidInput
from ..limits import check_inflation, check_memory, limit

__all__ = ["read_npz_instance", "map_npz_instance", "read_npz_arrays", "MEMBERS", "DTYPES", "WEIGHT_DTYPES"]

MEMBERS = ("inputs.npy", "labels.npy")
DTYPES = tuple(f"{order}{kind}" for order in "<>" for kind in ("f8", "f4", "i8", "i4"))
#: weights files (read by the library alone, not the checker) may hold any integer or float dtype but long doubles
WEIGHT_DTYPES = DTYPES + tuple(f"{order}{kind}" for order in "<>" for kind in ("f2", "i2", "u8", "u4", "u2")) + (
    "|i1", "|u1")


def read_npz_instance(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, labels) of an ``.npz`` instance as float64 (or int64) arrays, n x d and n x m."""
    arrays = read_npz_arrays(path, MEMBERS, what="instance")
    return arrays["inputs.npy"], arrays["labels.npy"]


def map_npz_instance(path: str | os.PathLike, *, block: int = 1 << 16) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, labels) of an ``.npz`` instance, n x d and n x m, without reading the file whole.

    The members are checked by the checker's own reader (the rules above). A stored (not deflated) member of
    native-order float64 or int64 is memory-mapped, read-only: the pages are read from the file when used and
    cost no memory of their own. Any other member (deflated, float32, the other byte order) is read ``block`` rows
    at a time into one float64 (or int64) array, so the peak is that array plus one block; a Fortran-order
    member is read whole. Nothing is converted yet (NaN is refused where the values are taken exactly).

    >>> import numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "i.npz")
    >>> np.savez(path, inputs=np.arange(6.0).reshape(3, 2), labels=np.ones(3, dtype=">f4"))
    >>> X, Y = map_npz_instance(path)
    >>> type(X).__name__, X[2].tolist(), Y.dtype, Y.shape
    ('memmap', [4.0, 5.0], dtype('float64'), (3, 1))
    """
    from ..certificates.trusted.npz import read_npz as _read_npz

    try:
        members = _read_npz(str(path))
    except FileNotFoundError:
        raise InvalidInput(f"no such instance file: {path}") from None
    except UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None
    try:
        return _mapped(members["inputs"], block), _mapped(members["labels"], block)
    except UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None


_NUMPY_OF = {"d": "f8", "f": "f4", "q": "i8", "i": "i4"}


def _mapped(rows, block: int) -> np.ndarray:
    """One member (NpzRows, or the rows of a Fortran-order member read whole) as a 2-D array."""
    if not isinstance(rows, NpzRows):
        return np.asarray(rows, dtype=np.float64 if any(type(x) is float for x in rows[0]) else np.int64)
    dtype = np.dtype(rows.fmt[0] + _NUMPY_OF[rows.fmt[1]])
    native = np.float64 if dtype.kind == "f" else np.int64
    if rows.offset is not None and dtype == np.dtype(native):
        return np.memmap(rows.path, dtype=native, mode="r", offset=rows.offset + rows.start,
                         shape=(rows.rows, rows.cols))
    check_memory(rows.rows * rows.cols * 8, f"{rows.path}: member {rows.info.filename} read into memory "
                 f"({rows.rows} x {rows.cols})", cost="8 bytes per entry; a stored float64 member is mapped instead")
    out = np.empty((rows.rows, rows.cols), dtype=native)
    step = rows.cols * rows.size
    for a in range(0, rows.rows, block):
        b = min(rows.rows, a + block)
        data = rows._bytes(rows.start + a * step, (b - a) * step)
        if len(data) != (b - a) * step:
            raise UnreadableInput(f"{rows.path}: member {rows.info.filename} is shorter than its header says")
        out[a:b] = np.frombuffer(data, dtype=dtype).reshape(b - a, rows.cols)
    return out


def read_npz_arrays(path: str | os.PathLike, required: tuple[str, ...] | None, optional: tuple[str, ...] = (), *,
                    what: str = "instance", dtypes: tuple[str, ...] = DTYPES,
                    keep_shape: bool = False) -> dict[str, np.ndarray]:
    """The members of an ``.npz`` archive, read by the rules above: ``required`` members must all be
    there, ``optional`` ones may be, nothing else may (``required=None``: any members, each an ``.npy``); each comes
    back 2-D (a 1-D array as one column; ``keep_shape``: as stored), floats as float64 and integers in their own
    width (native byte order), of one of ``dtypes``.

    >>> import numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "w.npz")
    >>> np.savez(path, U=np.ones((1, 2)), V=np.eye(2))
    >>> sorted(read_npz_arrays(path, ("U.npy", "V.npy"), ("b.npy",), what="weights"))
    ['U.npy', 'V.npy']
    """
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            _check_members(path, sorted(i.filename for i in infos), required, optional, what)
            _check_sizes(path, infos, what)
            arrays = {}
            for info in infos:
                with z.open(info) as fh:
                    data = fh.read(info.file_size + 1)
                if len(data) != info.file_size:
                    raise InvalidInput(f"{path}: member {info.filename} is not the size its header says")
                arrays[info.filename] = _array(data, f"{path}: {info.filename[:-4]}", dtypes, keep_shape=keep_shape)
    except FileNotFoundError:
        raise InvalidInput(f"no such {what} file: {path}") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path} is a directory, not a file ({what} file expected)") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError, struct.error) as exc:
        raise InvalidInput(f"{path}: not a readable .npz {what} file ({exc})") from None
    return arrays


def _check_sizes(path, infos, what: str) -> None:
    """Before anything is decompressed: stored or deflated members only, none that unpacks out of proportion to its
    compressed bytes (a deflate bomb: the limit ``inflation``), and their float64 copies within the memory there is
    (the stored bytes hold the entries: an honest file is limited by memory only)."""
    for info in infos:
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise InvalidInput(f"{path}: member {info.filename} is neither stored nor deflated")
        if info.compress_type == zipfile.ZIP_DEFLATED:
            check_inflation(info.compress_size, info.file_size, f"{path}: member {info.filename}")
    total = sum(i.file_size for i in infos)
    check_memory(2 * total, f"{path}: an .npz {what} of {total:,} bytes unpacked",
                 cost="its bytes and their float64 copy")


def _check_members(path, names: list[str], required: tuple[str, ...] | None, optional: tuple[str, ...],
                   what: str) -> None:
    """Refuse a duplicate member, and members other than those asked for (or, asked for none, not ``.npy``)."""
    if required is None:
        if len(set(names)) != len(names) or not names or not all(n.endswith(".npy") for n in names):
            raise InvalidInput(f"{path}: an .npz {what} file holds distinct .npy arrays (numpy.savez), found "
                               f"{names[:10]}")
        return
    if len(set(names)) != len(names) or not set(required) <= set(names) or not set(names) <= {*required, *optional}:
        want = " and ".join(required) + (f" (and optionally {', '.join(optional)})" if optional else "")
        raise InvalidInput(f"{path}: an .npz {what} has exactly the members {want}, found {names[:10]}")


def _header(data: bytes, name: str, dtypes: tuple[str, ...] = DTYPES) -> tuple[str, bool, tuple, int]:
    """(descr, fortran order, shape, offset of the data) of an .npy file, checked by the checker's own reader
    (instances); weights files, which only the library reads, may hold the wider ``WEIGHT_DTYPES``."""
    if dtypes == DTYPES:
        try:
            return npy_header(data, name)
        except UnreadableInput as exc:
            raise InvalidInput(str(exc)) from None
    return _weights_header(data, name, dtypes)


def _weights_header(data: bytes, name: str, dtypes: tuple[str, ...]) -> tuple[str, bool, tuple, int]:
    """The header of an .npy member of a weights file, read by NumPy's own header reader (bounded, no pickle)."""
    import io

    fh = io.BytesIO(data)
    fmt = np.lib.format
    try:
        version = fmt.read_magic(fh)
        if version not in ((1, 0), (2, 0)):
            raise ValueError("version")
        read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        shape, fortran, dtype = read(fh, max_header_size=limit("header"))
    except (ValueError, SyntaxError, TypeError, EOFError, struct.error):
        raise InvalidInput(f"{name}: not a readable .npy array (version 1.0 or 2.0, a header of at most "
                           f"{limit('header')} bytes)") from None
    if dtype.str not in dtypes or len(shape) not in (1, 2):
        raise InvalidInput(f"{name}: dtype {dtype.str!r} with shape {shape} not supported (a 1-D or 2-D array of "
                           "integers or float16/32/64)")
    return dtype.str, fortran, shape, fh.tell()


def _array(data: bytes, name: str, dtypes: tuple[str, ...] = DTYPES, *, keep_shape: bool = False) -> np.ndarray:
    """The array of an .npy file's bytes, 2-D (a 1-D array as one column) unless ``keep_shape``."""
    descr, fortran, shape, start = _header(data, name, dtypes)
    r, c = shape if len(shape) == 2 else (shape[0], 1)
    if r == 0 or c == 0:
        raise InvalidInput(f"{name}: shape {shape} has no entries (at least one sample and one column)")
    size = int(descr[2:])
    if len(data) - start != r * c * size:
        raise InvalidInput(f"{name}: shape {shape} needs {r * c * size} data bytes, the file has {len(data) - start}")
    flat = np.frombuffer(data, dtype=np.dtype(descr), count=r * c, offset=start)
    out = flat.reshape(shape if keep_shape else (r, c), order="F" if fortran else "C")
    if descr[1] == "f":
        return out.astype(np.float64)  # native order; float16 and float32 widen exactly
    return out.astype(np.uint64 if descr[1] == "u" and size == 8 else np.int64)  # uint64 beyond int64 stays exact
