"""Float64 arrays taken exactly: every finite double is ``M * 2**e``, so one common power of two turns an array
into integers (:func:`dyadic_scale`), converted to FLINT through two exact 52-bit halves when they fit in 104
bits (:func:`fmpz_mat_from_scaled`), and written as canonical rational strings without a Fraction per entry
(:func:`float_strings`, made by NumPy in :mod:`exactrelu.exact.codecs.float_text`). :func:`as_float_array` is the one
door by which float data enter (finite, real, dense).

>>> import numpy as np
>>> float_strings(np.array([[0.5, -3.0]]))
[['1/2', '-3']]
>>> dyadic_scale(np.array([0.5, -1.25]))
(2, 3)
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from ...errors import InvalidInput
from .dyadic_product import int_times_dyadic, rectified_int_times_dyadic
from .float_text import float_row_texts, float_strings

__all__ = ["float_strings", "float_row_texts", "as_float_array", "tensor_array", "exact_values", "exact_float64",
           "float_or_inf", "convert_scaled", "int_times_dyadic", "rectified_int_times_dyadic",
           "fmpz_mat_from_int64", "fmpz_mat_from_scaled", "dyadic_scale"]


def exact_float64(raw: np.ndarray, name: str) -> np.ndarray | None:
    """``raw`` as float64 when that is exact (float16/32/64, long doubles that fit), None for long doubles
    that do not fit; complex arrays raise (their imaginary part would be dropped)."""
    if raw.dtype.kind == "c":
        raise InvalidInput(f"Complex data not supported: {name} has dtype {raw.dtype}; only real numbers are accepted")
    if raw.dtype.kind != "f" or raw.dtype.itemsize <= 8:
        return raw  # float16 and float32 widen exactly
    with np.errstate(over="ignore"):
        as64 = raw.astype(np.float64)
    return as64 if np.array_equal(as64.astype(raw.dtype), raw) else None


def tensor_array(a):
    """A PyTorch tensor (any dtype, any device, with or without gradients) as a NumPy array of the same values;
    anything else is returned unchanged. torch is never imported here: a tensor is known by its type's module.

    bfloat16 becomes float32 (exact: a bfloat16 is the top half of a float32); the other dtypes keep theirs.

    >>> tensor_array([1, 2])
    [1, 2]
    """
    if not type(a).__module__.startswith("torch") or not hasattr(a, "detach"):
        return a
    t = a.detach()
    if getattr(t, "layout", None) is not None and "strided" not in str(t.layout):
        t = t.to_dense()  # a sparse tensor: the same values, dense
    t = t.cpu()
    if str(t.dtype) == "torch.bfloat16":
        t = t.float()
    return t.resolve_conj().resolve_neg().numpy()


def exact_values(a, name: str = "array") -> np.ndarray:
    """``a`` (an array, a tensor, nested rows) as a NumPy array holding exactly its values: floats as float64
    (float16, bfloat16 and float32 widen exactly; NaN, infinities and long doubles beyond float64 are refused),
    integers as int64, or as Python ints in an object array when they exceed int64 (uint64). Never rounded:
    the integer 2**53 + 1 stays 2**53 + 1. Booleans and other dtypes are refused.

    >>> exact_values(np.array([2**53 + 1], dtype=np.int64)).tolist(), exact_values(np.float16([0.5])).dtype
    ([9007199254740993], dtype('float64'))
    """
    arr = np.asarray(tensor_array(a))
    if arr.dtype.name == "bfloat16":  # ml_dtypes' bfloat16 (ONNX arrays): widen exactly
        arr = arr.astype(np.float32)
    if arr.dtype.kind in "iu":
        if arr.dtype == np.uint64 and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            return arr.astype(object)  # Python ints, exact
        return arr.astype(np.int64)
    if arr.dtype.kind in "fc":
        return as_float_array(arr, name=name, ndim=arr.ndim)
    if arr.dtype == object and all(type(x) is int for x in arr.flat):
        return arr  # Python ints already (what this function returns for uint64 beyond int64)
    raise InvalidInput(f"{name} has dtype {arr.dtype}; expected integers or floats")


def as_float_array(a, *, name: str = "array", ndim: int = 2) -> np.ndarray:
    """Return ``a`` as a finite float64 NumPy array of ``ndim`` dimensions, or raise InvalidInput.

    Values float64 cannot hold exactly are refused, never rounded silently: complex arrays (converting
    them would drop the imaginary part), long doubles (``np.longdouble``) with more precision than
    float64 (convert those exactly with :meth:`QMatrix.from_numpy`), and sparse matrices (pass a dense array).

    >>> as_float_array(np.array([1 + 2j]), ndim=1)
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: Complex data not supported: array has dtype complex128; only real numbers are
    accepted
    """
    a = tensor_array(a)
    if type(a).__module__.startswith("scipy.sparse"):
        raise InvalidInput(f"{name} is a sparse matrix: sparse input is not supported, pass a dense array")
    if getattr(a, "dtype", None) is not None and np.dtype(a.dtype).kind == "c":
        raise InvalidInput(f"Complex data not supported: {name} has dtype {a.dtype}; only real numbers are accepted")
    if isinstance(a, np.ndarray):
        fit = exact_float64(a, name)
        if fit is None:
            raise InvalidInput(f"{name} has {a.dtype} values that float64 cannot hold exactly; "
                               "use QMatrix.from_numpy (exact) or Fractions")
        a = fit
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{name} is not a numeric array: {exc}") from None
    if arr.ndim != ndim:
        raise InvalidInput(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        what = "NaN" if np.isnan(arr[idx]) else "an infinity"
        raise InvalidInput(f"{name} has a non-finite entry ({what}) at index {idx}: exact arithmetic needs finite "
                           "values")
    return arr


def float_or_inf(f: Fraction) -> float:
    try:
        return float(f)
    except OverflowError:
        return math.inf if f > 0 else -math.inf  # copysign(inf, f) would convert f again, and overflow


def convert_scaled(arr: np.ndarray, shift: int, bits: int) -> flint.fmpz_mat:
    r, c = arr.shape
    if arr.size == 0 or bits == 0:
        return flint.fmpz_mat(r, c)
    if bits <= 104 and shift <= 1074 and bits <= 1023:
        return fmpz_mat_from_scaled(np.ldexp(arr, shift), bits)
    flat = []
    for x in arr.ravel().tolist():
        p, q = x.as_integer_ratio()
        flat.append(p * ((1 << shift) // q))  # q is a power of two dividing 2**shift
    return flint.fmpz_mat(r, c, flat)


def fmpz_mat_from_int64(a: np.ndarray) -> flint.fmpz_mat:
    r, c = a.shape
    return flint.fmpz_mat(r, c, a.ravel().tolist())


def fmpz_mat_from_scaled(scaled: np.ndarray, bits: int = 104) -> flint.fmpz_mat:
    """FLINT integer matrix of a float64 array whose entries are integers below 2**bits (bits <= 104), exactly.

    Entries below 2**62 go through int64 directly; larger ones are split into two 52-bit halves
    that NumPy computes exactly and FLINT recombines (FLINT builds word-size entries ~5x faster
    than Python integers of 64-104 bits).
    """
    if bits <= 62:
        return fmpz_mat_from_int64(scaled.astype(np.int64))
    hi = np.floor(np.ldexp(scaled, -52))
    lo = scaled - np.ldexp(hi, 52)  # exact: representable difference
    return fmpz_mat_from_int64(hi.astype(np.int64)) * (1 << 52) + fmpz_mat_from_int64(lo.astype(np.int64))


def dyadic_scale(arr: np.ndarray) -> tuple[int, int]:
    """(shift, bits) of a finite float64 array: every ``x * 2**shift`` is an integer below ``2**bits``.

    ``shift`` is the smallest such non-negative exponent.
    """
    nz = arr[arr != 0]
    if nz.size == 0:
        return 0, 0
    mant, e = np.frexp(np.abs(nz))  # |x| = m 2**e, m in [1/2, 1); m 2**53 is an integer
    mi = np.ldexp(mant, 53).astype(np.int64)
    _, tz1 = np.frexp((mi & -mi).astype(np.float64))  # lowest set bit of the mantissa, plus one
    lo_exp = int((e - 54 + tz1).min())  # every entry is an integer multiple of 2**lo_exp
    hi_exp = int(e.max())  # every |entry| < 2**hi_exp
    shift = max(0, -lo_exp)
    return shift, hi_exp + shift
