"""Limits of the library and the command line: cost per input byte, not size (docs/limits.md).

Two kinds of input are told apart.

* **What is out of proportion to a file's bytes** is bounded, before any work, by the limits of :data:`DEFAULTS`:
  a number written ``1e999999999`` (``digits``), a power ``t^1000000`` (``degree``), a deflated ``.npz`` member
  that unpacks to more than ``inflation`` times its compressed size (a deflate bomb), an ``.npy`` header of more
  than ``header`` bytes, ``-k 10^9`` (``units``), and so on. A header announcing a shape that the stored bytes do
  not hold is refused by each reader (no limit needed: the bytes are counted).
* **Honest data** (arrays in memory, generated instances, files whose bytes hold their entries) are never refused
  by a count. Before the work, their memory (and time) is estimated from measured costs per entry (:data:`COSTS`)
  and compared with the machine's available memory (``MemAvailable`` of ``/proc/meminfo``; elsewhere the physical
  memory): :func:`check_memory`, :func:`check_entries`. Over it, the input is refused with the estimate.

Each limit can be set with the environment variable ``EXACTRELU_MAX_<NAME>`` (``EXACTRELU_MAX_MEMORY`` in MB:
another memory budget than the machine's) or for the running process with :func:`set_limit`. The independent
checker has the same names and defaults in ``exactrelu/certificates/trusted/common.py`` (it imports nothing from
exactrelu) and reads the same environment variables, so one setting serves both.

>>> limit("degree")
100
>>> over("degree", "the activation degree 1000")
InvalidInput('the activation degree 1000 is over the limit degree=100
(raise it with EXACTRELU_MAX_DEGREE; docs/limits.md)')
>>> check_entries(10**12, 10, 1)
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: the instance (1000000000000 x (10 + 1) = 11,000,000,000,000 entries) needs about ...
"""

from __future__ import annotations

import os
import sys

from .errors import InvalidInput
from .validation import check_positive_integer

__all__ = ["DEFAULTS", "COSTS", "limit", "set_limit", "over", "explicit_limits", "check_entries", "check_units",
           "check_digits", "check_memory", "check_inflation", "memory_budget", "machine_memory"]

#: Limits of what a file's bytes can make the program do out of proportion to them. ``memory`` (MB) is not a default
#: but the machine's available memory, read when asked (:func:`memory_budget`), unless set.
DEFAULTS = {
    "digits": 4300,           # decimal digits of one integer (numerator or denominator); decimals: digits + |exponent|
    "degree": 100,            # degree c of the rectified power t^c
    "estimate": 86_400,       # seconds of a command's up-front work estimate, above which it is refused without --force
    "literals": 10_000_000,   # activation literals n * k of a SAT encoding / DRUP refutation
    "header": 10_000,         # bytes of an .npy header (numpy's own max_header_size)
    "units": 10_000,          # hidden units k (of every -k, of a certificate's k: each Farkas row may cost k)
    "variables": 1_000_000,   # variables of a DIMACS formula
    "intermediate": 100_000,  # decimal digits of the largest integer an exact evaluation or check computes
    "propagations": 50_000_000,  # literal visits of a hinted (LRAT) replay (the checker's; same name, same default)
    "inflation": 200,         # bytes a deflated .npz member may unpack to per compressed byte (deflate's limit: 1032)
    "memory": 0,              # MB an input may make the library hold: 0 = the machine's available memory
    "terms": 50_000_000,  # coefficient operations of a deep equivalence (the checker's; same name, same default)
}
#: What honest data cost, measured (docs/limits.md, "What honest data cost"): (bytes, seconds) per instance entry.
#: ``instance``: an instance held and worked on by the library (recover at (100,50,50,1e5): 3.0 GB for 10^7
#: entries, checked in the same process); ``array``: a float64 array of the entries alone; ``generate``: a planted
#: instance made and written; ``json``: per byte of a JSON file while it is parsed (at least: 3 for long entries,
#: up to 12 for one-digit ones).
COSTS = {"instance": (320, 5e-6), "array": (8, 1e-8), "generate": (320, 3e-6), "json": (3, 2e-8)}
#: slack every deflated member gets whatever its ratio (tiny arrays of zeros compress far beyond any ratio)
INFLATION_SLACK = 1 << 20
_limits: dict[str, int] = {}
_explicit: dict[str, int] = {}  # the limits set by set_limit or the environment (explicit_limits)


def limit(name: str) -> int:
    """The limit ``name``: set by :func:`set_limit`, else ``EXACTRELU_MAX_<NAME>``, else its default."""
    if name not in _limits:
        if name not in DEFAULTS:
            raise InvalidInput(_unknown(name))
        var = f"EXACTRELU_MAX_{name.upper()}"
        raw = os.environ.get(var)
        if raw is None:
            _store(name, DEFAULTS[name])
        elif raw.isascii() and raw.isdigit() and int(raw) > 0:
            set_limit(name, int(raw))
        else:
            raise InvalidInput(f"{var}={raw!r} is not a positive integer")
    return _limits[name]


def _store(name: str, value: int) -> None:
    if name == "digits" and 0 < sys.get_int_max_str_digits() < value:
        sys.set_int_max_str_digits(value)  # so that int(), str() and json handle what the limit allows
    _limits[name] = value


def _unknown(name: str) -> str:
    if name == "entries":
        return ("'entries' is no longer a limit: honest sizes are limited by the memory they need (the limit "
                "'memory', in MB, default the machine's available memory; docs/limits.md)")
    return f"unknown limit {name!r}; the limits are {sorted(DEFAULTS)}"


def set_limit(name: str, value: int) -> None:
    """Set the limit ``name`` for this process (the checker keeps its own: use the environment variable).

    >>> set_limit("degree", 200); limit("degree")
    200
    >>> set_limit("degree", DEFAULTS["degree"])
    """
    if name not in DEFAULTS:
        raise InvalidInput(_unknown(name))
    value = check_positive_integer(value, f"limit {name}")
    _store(name, value)
    _explicit[name] = value


def explicit_limits() -> dict[str, str]:
    """The limits set in this process (by :func:`set_limit` or ``EXACTRELU_MAX_*``), as the environment variables
    that set them: what a worker process needs to apply the same limits (the sweep ships them with each task).

    >>> set_limit("degree", 7); explicit_limits()["EXACTRELU_MAX_DEGREE"]
    '7'
    >>> set_limit("degree", DEFAULTS["degree"])
    """
    env = {k: v for k, v in os.environ.items() if k.startswith("EXACTRELU_MAX_")}
    env.update({f"EXACTRELU_MAX_{name.upper()}": str(value) for name, value in _explicit.items()})
    return env


def over(name: str, what: str) -> InvalidInput:
    """The one-line error for an input over the limit ``name``."""
    return InvalidInput(f"{what} is over the limit {name}={limit(name)} "
                        f"(raise it with EXACTRELU_MAX_{name.upper()}; docs/limits.md)")


def machine_memory() -> int:
    """Bytes of memory available to this process now: ``MemAvailable`` of ``/proc/meminfo``, else the physical
    memory (``os.sysconf``), else 4 GiB."""
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def memory_budget() -> int:
    """Bytes an input may make the library hold: the limit ``memory`` (MB) when set, else :func:`machine_memory`."""
    mb = limit("memory")
    return mb << 20 if mb else machine_memory()


def _size(n: float) -> str:
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:.0f} MB"


def check_memory(need: float, what: str, *, seconds: float | None = None, cost: str = "") -> None:
    """Refuse, before any work, an input whose estimated memory ``need`` (bytes) is over :func:`memory_budget`, or
    whose estimated ``seconds`` are over the limit ``estimate``; the message gives the estimate.

    >>> check_memory(2**60, "a test array")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: a test array needs about 1073741824.0 GB here, and this machine has ... available ...
    """
    budget = memory_budget()
    when = f" and {seconds:.3g} s" if seconds is not None else ""
    if need > budget or (seconds is not None and seconds > limit("estimate")):
        source = "EXACTRELU_MAX_MEMORY" if limit("memory") else "MemAvailable"
        raise InvalidInput(f"{what} needs about {_size(need)}{when} here{f' ({cost})' if cost else ''}, and this "
                           f"machine has {_size(budget)} available ({source}; a time estimate over "
                           f"{limit('estimate')} s is refused too): refused before any work (set another memory "
                           "budget in MB with EXACTRELU_MAX_MEMORY; docs/limits.md)")


def check_entries(n: int, d: int, m: int, what: str = "the instance", *, kind: str = "instance") -> None:
    """Refuse an instance of n samples, d inputs, m outputs before building it: empty sides, or more memory than the
    machine has (at the measured cost per entry of ``kind``, :data:`COSTS`). Never a fixed count.

    >>> check_entries(3, 0, 1)
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: the instance is empty: shape n=3, d=0, m=1 (every side needs at least one entry)
    """
    if n < 1 or d < 1 or m < 1:
        raise InvalidInput(f"{what} is empty: shape n={n}, d={d}, m={m} (every side needs at least one entry)")
    entries = n * (d + m)
    per_byte, per_second = COSTS[kind]
    check_memory(entries * per_byte, f"{what} ({n} x ({d} + {m}) = {entries:,} entries)", seconds=entries * per_second,
                 cost=f"{per_byte} bytes per entry, measured: docs/limits.md")


def check_inflation(compressed: int, size: int, what: str) -> None:
    """Refuse a deflated member that unpacks to more than ``inflation`` times its compressed bytes (plus 1 MiB),
    before decompressing it: a deflate bomb.

    >>> check_inflation(3_000_000, 3 * 2**30, "inputs.npy")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: inputs.npy (deflated: 3,000,000 bytes that unpack to 3,221,225,472,
    1073 per byte) is over the limit inflation=200: ...
    """
    if size > limit("inflation") * compressed + INFLATION_SLACK:
        raise InvalidInput(f"{what} (deflated: {compressed:,} bytes that unpack to {size:,}, "
                           f"{size // max(compressed, 1)} per byte) is over the limit inflation={limit('inflation')}: "
                           "a deflate bomb, refused before decompressing (data that compress this well: save them "
                           "uncompressed with numpy.savez, or raise EXACTRELU_MAX_INFLATION; docs/limits.md)")


def check_units(k: int, what: str = "the number of hidden units") -> None:
    """Refuse a number of hidden units that is not positive or is over the limit ``units``, before any allocation.

    >>> check_units(10**9, "-k")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: -k 1000000000 is over the limit units=10000
    (raise it with EXACTRELU_MAX_UNITS; docs/limits.md)
    """
    k = check_positive_integer(k, what)
    if k > limit("units"):
        raise over("units", f"{what} {k}")


def check_digits(text: str, n_digits: int) -> None:
    """Refuse a number whose integers would have more than the limit's decimal digits (before computing them)."""
    if n_digits > limit("digits"):
        raise over("digits", f"the number {text[:24]}{'...' if len(text) > 24 else ''}")
