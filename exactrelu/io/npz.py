"""Strict reading of ``.npz`` instance files: the rules the independent checker applies, by its own header reader.

An ``.npz`` instance has exactly the members ``inputs.npy`` and ``labels.npy`` (stored or deflated;
no other member, no duplicate), each an ``.npy`` array of version 1.0 or 2.0 with

* a header of at most ``limit("header")`` bytes holding exactly ``descr``, ``fortran_order`` and a
  1-D or 2-D ``shape`` of non-negative integers (1-D means one column);
* ``descr`` one of float64, float32, int64, int32, little- or big-endian (``<f8``, ``>f4``, ...);
* exactly ``rows * columns * itemsize`` bytes of data, with at least one row and one column.

Declared member sizes are checked against ``limit("entries")`` before anything is decompressed,
and the decompressed size must be the declared one. Floats are then taken exactly (a float32 or
float64 is a dyadic rational). ``numpy.load`` is not used: it reads a member ``labels`` as well as
``labels.npy``, and accepts what the checker does not, so the two could see different instances.
The checker's reader is ``exactrelu/certificates/trusted/instance.py``; ``tests/io/test_npz.py``
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
from ..certificates.trusted.instance import npy_header
from ..errors import InvalidInput
from ..limits import limit, over

__all__ = ["read_npz_instance", "read_npz_arrays", "MEMBERS", "DTYPES"]

MEMBERS = ("inputs.npy", "labels.npy")
DTYPES = tuple(f"{order}{kind}" for order in "<>" for kind in ("f8", "f4", "i8", "i4"))


def read_npz_instance(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, labels) of an ``.npz`` instance as float64 (or int64) arrays, n x d and n x m."""
    arrays = read_npz_arrays(path, MEMBERS, what="instance")
    return arrays["inputs.npy"], arrays["labels.npy"]


def read_npz_arrays(path: str | os.PathLike, required: tuple[str, ...], optional: tuple[str, ...] = (), *,
                    what: str = "instance") -> dict[str, np.ndarray]:
    """The members of an ``.npz`` archive, read by the rules above: ``required`` members must all be
    there, ``optional`` ones may be, nothing else may; each comes back 2-D (a 1-D array as one column).

    >>> import numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "w.npz")
    >>> np.savez(path, U=np.ones((1, 2)), V=np.eye(2))
    >>> sorted(read_npz_arrays(path, ("U.npy", "V.npy"), ("b.npy",), what="weights"))
    ['U.npy', 'V.npy']
    """
    allowed = set(required) | set(optional)
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            names = sorted(i.filename for i in infos)
            if len(set(names)) != len(names) or not set(required) <= set(names) or not set(names) <= allowed:
                want = " and ".join(required) + (f" (and optionally {', '.join(optional)})" if optional else "")
                raise InvalidInput(f"{path}: an .npz {what} has exactly the members {want}, found {names[:10]}")
            cap = 8 * limit("entries") + 12 + limit("header")
            arrays = {}
            for info in infos:
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise InvalidInput(f"{path}: member {info.filename} is neither stored nor deflated")
                if info.file_size > cap:
                    raise over("entries", f"{path}: member {info.filename} of {info.file_size} bytes")
                with z.open(info) as fh:
                    data = fh.read(info.file_size + 1)
                if len(data) != info.file_size:
                    raise InvalidInput(f"{path}: member {info.filename} is not the size its header says")
                arrays[info.filename] = _array(data, f"{path}: {info.filename[:-4]}")
    except FileNotFoundError:
        raise InvalidInput(f"no such {what} file: {path}") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path} is a directory, not a file ({what} file expected)") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError, struct.error) as exc:
        raise InvalidInput(f"{path}: not a readable .npz {what} file ({exc})") from None
    return arrays


def _header(data: bytes, name: str) -> tuple[str, bool, tuple, int]:
    """(descr, fortran order, shape, offset of the data) of an .npy file, checked by the checker's own reader."""
    try:
        return npy_header(data, name)
    except UnreadableInput as exc:
        raise InvalidInput(str(exc)) from None


def _array(data: bytes, name: str) -> np.ndarray:
    descr, fortran, shape, start = _header(data, name)
    r, c = shape if len(shape) == 2 else (shape[0], 1)
    if r == 0 or c == 0:
        raise InvalidInput(f"{name}: shape {shape} has no entries (at least one sample and one column)")
    if r * c > limit("entries"):
        raise over("entries", f"{name}: {r} x {c} entries")
    size = int(descr[2])
    if len(data) - start != r * c * size:
        raise InvalidInput(f"{name}: shape {shape} needs {r * c * size} data bytes, the file has {len(data) - start}")
    flat = np.frombuffer(data, dtype=np.dtype(descr), count=r * c, offset=start)
    out = flat.reshape((r, c), order="F" if fortran else "C")
    return out.astype(np.float64 if descr[1] == "f" else np.int64)  # native order; float32 widens exactly
