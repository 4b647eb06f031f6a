"""Size limits of the library and the command line (docs/limits.md).

Every reader bounds the work an input can cause *before* doing it, so that a small hostile file
(a number written ``1e999999999``, an ``.npz`` header announcing 10^9 rows, a deflate bomb) is
refused at once with :class:`~exactrelu.errors.InvalidInput` (exit 2 on the command line). Each
limit can be raised with the environment variable ``EXACTRELU_MAX_<NAME>`` (read once, on first
use) or for the running process with :func:`set_limit`. The independent checker has the same names
and defaults in ``exactrelu/certificates/trusted/common.py`` (it imports nothing from exactrelu) and
reads the same environment variables, so one setting raises both.

>>> limit("degree")
100
>>> over("degree", "the activation degree 1000")
InvalidInput('the activation degree 1000 is over the limit degree=100 (raise it with EXACTRELU_MAX_DEGREE; docs/limits.md)')
"""

from __future__ import annotations

import os
import sys

from .errors import InvalidInput
from .validation import check_positive_integer

__all__ = ["DEFAULTS", "limit", "set_limit", "over", "check_entries", "check_units", "check_digits"]

#: Default limits. ``digits`` is Python's own default for int/str conversion; ``entries`` allows
#: instances of 2.5 million numbers (20 MB of float64, 20 times the largest benchmark instance), so that
#: no file within the limits costs more than about 1 GB: the checker holds an .npz entry in about 400
#: bytes when d = m = 1 (measured: docs/limits.md), the library in about 200.
DEFAULTS = {
    "digits": 4300,           # decimal digits of one integer (numerator or denominator); decimals: digits + |exponent|
    "degree": 100,            # degree c of the rectified power t^c
    "entries": 2_500_000,     # numbers in an instance, n * (d + m) (also bounds .npz members before decompressing)
    "estimate": 86_400,       # seconds of a command's up-front work estimate, above which it is refused without --force
    "literals": 10_000_000,   # activation literals n * k of a SAT encoding / DRUP refutation
    "header": 10_000,         # bytes of an .npy header (numpy's own max_header_size)
    "units": 10_000,          # hidden units k (of a planted instance, of every -k, of a certificate's k)
    "variables": 1_000_000,   # variables of a DIMACS formula
    "intermediate": 100_000,  # decimal digits of the largest integer an exact evaluation or check computes
    "propagations": 50_000_000,  # literal visits of a hinted (LRAT) replay (the checker's; same name, same default)
}
_limits: dict[str, int] = {}


def limit(name: str) -> int:
    """The limit ``name``: set by :func:`set_limit`, else ``EXACTRELU_MAX_<NAME>``, else its default."""
    if name not in _limits:
        var = f"EXACTRELU_MAX_{name.upper()}"
        raw = os.environ.get(var)
        if raw is None:
            set_limit(name, DEFAULTS[name])
        elif raw.isascii() and raw.isdigit() and int(raw) > 0:
            set_limit(name, int(raw))
        else:
            raise InvalidInput(f"{var}={raw!r} is not a positive integer")
    return _limits[name]


def set_limit(name: str, value: int) -> None:
    """Set the limit ``name`` for this process (the checker keeps its own: use the environment variable).

    >>> set_limit("degree", 200); limit("degree")
    200
    >>> set_limit("degree", DEFAULTS["degree"])
    """
    if name not in DEFAULTS:
        raise InvalidInput(f"unknown limit {name!r}; the limits are {sorted(DEFAULTS)}")
    value = check_positive_integer(value, f"limit {name}")
    if name == "digits" and 0 < sys.get_int_max_str_digits() < value:
        sys.set_int_max_str_digits(value)  # so that int(), str() and json handle what the limit allows
    _limits[name] = value


def over(name: str, what: str) -> InvalidInput:
    """The one-line error for an input over the limit ``name``."""
    return InvalidInput(f"{what} is over the limit {name}={limit(name)} "
                        f"(raise it with EXACTRELU_MAX_{name.upper()}; docs/limits.md)")


def check_entries(n: int, d: int, m: int, what: str = "the instance") -> None:
    """Refuse an instance of n samples, d inputs, m outputs before building it: empty sides or too many entries.

    >>> check_entries(10**9, 10, 1)
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: the instance (1000000000 x (10 + 1) entries) is over the limit entries=...
    """
    if n < 1 or d < 1 or m < 1:
        raise InvalidInput(f"{what} is empty: shape n={n}, d={d}, m={m} (every side needs at least one entry)")
    if n * (d + m) > limit("entries"):
        raise over("entries", f"{what} ({n} x ({d} + {m}) entries)")


def check_units(k: int, what: str = "the number of hidden units") -> None:
    """Refuse a number of hidden units that is not positive or is over the limit ``units``, before any allocation.

    >>> check_units(10**9, "-k")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: -k 1000000000 is over the limit units=10000 (raise it with EXACTRELU_MAX_UNITS; docs/limits.md)
    """
    k = check_positive_integer(k, what)
    if k > limit("units"):
        raise over("units", f"{what} {k}")


def check_digits(text: str, n_digits: int) -> None:
    """Refuse a number whose integers would have more than the limit's decimal digits (before computing them)."""
    if n_digits > limit("digits"):
        raise over("digits", f"the number {text[:24]}{'...' if len(text) > 24 else ''}")
