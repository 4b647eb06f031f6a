"""One validation vocabulary: every argument check of the package, with one message style.

A check takes the value and the name the user knows it by, returns the value in its working type, or raises
:class:`~exactrelu.errors.InvalidInput` with ``"<name> must be <what>, got <value>"`` (cnfgen's ``localtypes``,
Hypothesis's ``internal/validation.py``). The argparse types of the command line (:mod:`exactrelu.arguments`) use
the same checks on the text the user typed, so ``-k 0`` and ``k=0`` are refused by one rule in one message style.

This module stands on the runtime floor (it imports only :mod:`exactrelu.errors`), and NumPy only inside the
functions that need it, so that the command line answers a bad argument before any numerical library loads.

>>> check_positive_integer(3, "n")
3
>>> check_k(0)
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: k (the number of hidden units) must be a positive integer, got 0
>>> check_seed(-1)
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: seed must be None, a non-negative integer or a numpy Generator, got -1
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .errors import InvalidInput

__all__ = [
    "check_integer", "check_positive_integer", "check_nonnegative_integer", "check_k", "check_seed",
    "as_generator", "check_number", "check_flag", "normalize_rows",
]

#: what a message prints of a value: its repr, cut to this many characters
_SHOWN = 60


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def _refuse(name: str, what: str, value: Any) -> InvalidInput:
    return InvalidInput(f"{name} must be {what}, got {_shown(value)}")


def _is_integer(value: Any) -> bool:
    # numbers.Integral covers int and numpy's integers without importing NumPy; bool is not an integer here
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_integer(value: Any, name: str, *, minimum: int | None = None, maximum: int | None = None,
                  none_ok: bool = False) -> int | None:
    """``value`` as an ``int`` in ``[minimum, maximum]`` (either end open when None), or InvalidInput.

    Booleans and floats are refused (``2.0`` is not a count); NumPy integers are accepted.

    Parameters
    ----------
    value : object
        The argument as given.
    name : str
        The name the user knows it by (``"k"``, ``"--workers"``).
    minimum, maximum : int, optional
        Inclusive bounds.
    none_ok : bool
        Whether None is accepted (and returned).

    Returns
    -------
    int or None

    Examples
    --------
    >>> check_integer(5, "holes", minimum=1, maximum=9)
    5
    >>> check_integer(True, "holes")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: holes must be an integer, got True
    >>> check_integer(10, "pieces", minimum=1, maximum=9)
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: pieces must be an integer from 1 to 9, got 10
    """
    if value is None and none_ok:
        return None
    if _is_integer(value):
        number = int(value)
        if (minimum is None or number >= minimum) and (maximum is None or number <= maximum):
            return number
    raise _refuse(name, _integer_range(minimum, maximum) + (" or None" if none_ok else ""), value)


def _integer_range(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"an integer from {minimum} to {maximum}"
    if minimum is not None:
        return {1: "a positive integer", 0: "a non-negative integer"}.get(minimum, f"an integer >= {minimum}")
    return "an integer" if maximum is None else f"an integer <= {maximum}"


def check_positive_integer(value: Any, name: str, *, maximum: int | None = None, none_ok: bool = False) -> int:
    """``value`` as an ``int`` >= 1 (and <= ``maximum``), or InvalidInput.

    >>> check_positive_integer(0, "holes")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: holes must be a positive integer, got 0
    """
    return check_integer(value, name, minimum=1, maximum=maximum, none_ok=none_ok)


def check_nonnegative_integer(value: Any, name: str, *, maximum: int | None = None, none_ok: bool = False) -> int:
    """``value`` as an ``int`` >= 0 (and <= ``maximum``), or InvalidInput.

    >>> check_nonnegative_integer(-2, "num_vars")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: num_vars must be a non-negative integer, got -2
    """
    return check_integer(value, name, minimum=0, maximum=maximum, none_ok=none_ok)


def check_k(k: Any, name: str = "k") -> int:
    """The number of hidden units as an ``int`` >= 1, or InvalidInput (the one message of every learner).

    The size limit on ``k`` (``limits.check_units``) is applied where an allocation depends on it.

    >>> check_k(4)
    4
    >>> check_k(2.0)
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: k (the number of hidden units) must be a positive integer, got 2.0
    """
    label = f"{name} (the number of hidden units)" if name == "k" else name
    return check_integer(k, label, minimum=1)


_SEED = "None, a non-negative integer or a numpy Generator"


def check_seed(seed: Any, name: str = "seed") -> Any:
    """A seed as every random choice of the package takes it: None, an integer >= 0, or a ``numpy.random.Generator``.

    Returned unchanged (a NumPy integer as ``int``); NumPy's own error for ``-1`` ("expected non-negative
    integer", a traceback on the command line) never shows.

    >>> check_seed(None) is None, check_seed(7)
    (True, 7)
    >>> check_seed("7")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: seed must be None, a non-negative integer or a numpy Generator, got '7'
    """
    if seed is None:
        return None
    if _is_integer(seed):
        if int(seed) < 0:
            raise _refuse(name, _SEED, seed)
        return int(seed)
    import numpy as np

    if isinstance(seed, np.random.Generator):
        return seed
    raise _refuse(name, _SEED, seed)


def as_generator(seed: Any, name: str = "seed"):
    """``numpy.random.default_rng(seed)`` after :func:`check_seed` (a Generator is returned as it is).

    >>> int(as_generator(0).integers(10)) == int(as_generator(0).integers(10))
    True
    """
    import numpy as np

    seed = check_seed(seed, name)
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def check_number(value: Any, name: str, *, minimum: float | None = None, maximum: float | None = None,
                 strict: bool = False, none_ok: bool = False) -> float | None:
    """A finite real number (``int`` or ``float``, NumPy's too, never ``bool``) in the given range, as a float.

    ``minimum`` is exclusive with ``strict=True`` (``> minimum``), inclusive otherwise; ``maximum`` is inclusive.

    >>> check_number(0.5, "noise", minimum=0)
    0.5
    >>> check_number(float("nan"), "time limit", minimum=0)
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: time limit must be a finite number >= 0, got nan
    >>> check_number(0, "threshold", minimum=0, strict=True)
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: threshold must be a finite number > 0, got 0
    """
    if value is None and none_ok:
        return None
    parts = []
    if minimum is not None:
        parts.append(f"{'>' if strict else '>='} {minimum:g}")
    if maximum is not None:
        parts.append(f"<= {maximum:g}")
    what = "a finite number" + (" " + " and ".join(parts) if parts else "") + (" or None" if none_ok else "")
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    number = float(value) if ok else math.nan
    ok = ok and math.isfinite(number)
    if ok and minimum is not None:
        ok = number > minimum if strict else number >= minimum
    if ok and maximum is not None:
        ok = number <= maximum
    if not ok:
        raise _refuse(name, what, value)
    return number


def check_flag(value: Any, name: str) -> bool:
    """A ``bool`` (NumPy's too), or InvalidInput: ``bias="no"`` must not read as True.

    >>> check_flag(False, "bias")
    False
    >>> check_flag(1, "bias")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: bias must be True or False, got 1
    """
    if isinstance(value, bool) or (type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")):
        return bool(value)
    raise _refuse(name, "True or False", value)


def normalize_rows(A):
    """Rows scaled to unit Euclidean norm (zero rows kept), with no overflow or underflow at extreme magnitudes.

    Each row is first divided by its largest absolute entry, so ``3e300`` and ``3e-300`` rows normalize exactly
    as ``3`` does.

    >>> import numpy as np
    >>> normalize_rows(np.array([[3e300, 4e300], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    import numpy as np

    A = np.asarray(A, dtype=np.float64)
    mx = np.abs(A).max(axis=1, keepdims=True)
    B = A / np.where(mx > 0, mx, 1.0)
    nb = np.linalg.norm(B, axis=1, keepdims=True)
    return B / np.where(nb > 0, nb, 1.0)
