"""The command line's argparse types: the rules of :mod:`exactrelu.validation` on the text the user typed.

Each type reads the text (an integer may be written ``2e5``), applies the same check as the library's keyword
argument, and raises :class:`argparse.ArgumentTypeError` with the same message about the text; argparse puts
``argument -k:`` in front, and a usage error is one line with exit code 2. Runtime floor: it imports only
:mod:`exactrelu.validation` and :mod:`exactrelu.errors`, so a bad argument is answered before NumPy loads.

>>> positive_int_arg("2e5")
200000
>>> seed_arg("-1")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be a non-negative integer, got '-1'
"""

from __future__ import annotations

import argparse
import math
import re

from .errors import InvalidInput
from .validation import _refuse, _shown, check_integer, check_number, check_seed

__all__ = ["integer_arg", "positive_int_arg", "nonnegative_int_arg", "seed_arg", "seconds_arg", "number_arg",
           "scheduler_address", "scheduler_arg"]


#: an integer written plainly or in scientific notation with an integer value (``200000``, ``2e5``)
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]{1,30}(?:[eE]\+?[0-9]{1,2})?")


def _arg_error(exc: InvalidInput, text: str) -> argparse.ArgumentTypeError:
    """The check's message, about the text the user typed (argparse names the option in front)."""
    message = str(exc).strip()
    return argparse.ArgumentTypeError(message[:message.rindex(", got ")] + f", got {_shown(text)}")


def _integer_text(text: str) -> int:
    text = text.strip()
    if not _INTEGER_TEXT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"must be an integer, got {_shown(text)}")
    mantissa, _, exponent = text.lower().partition("e")
    return int(mantissa) * 10 ** int(exponent or 0)


def integer_arg(minimum: int | None = None, maximum: int | None = None):
    """An argparse type: an integer in ``[minimum, maximum]`` (``2e5`` is read as 200000).

    >>> integer_arg(1, 64)("8")
    8
    >>> integer_arg(1, 64)("65")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer from 1 to 64, got '65'
    """
    def parse(text: str) -> int:
        number = _integer_text(text)
        try:
            return check_integer(number, "", minimum=minimum, maximum=maximum)
        except InvalidInput as exc:
            raise _arg_error(exc, text) from None

    parse.__name__ = "integer"  # argparse names the type in a few messages
    return parse


def positive_int_arg(text: str) -> int:
    """An argparse type: a positive integer (``-k``, ``-n``, ``--workers``).

    >>> positive_int_arg("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a positive integer, got '0'
    """
    return integer_arg(1)(text)


def nonnegative_int_arg(text: str) -> int:
    """An argparse type: an integer >= 0.

    >>> nonnegative_int_arg("0")
    0
    """
    return integer_arg(0)(text)


def seed_arg(text: str) -> int:
    """An argparse type: a seed, an integer >= 0 (the rule of :func:`check_seed`).

    >>> seed_arg("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a non-negative integer, got '-1'
    """
    return integer_arg(0)(text)


def number_arg(minimum: float | None = None, maximum: float | None = None, *, strict: bool = False):
    """An argparse type: a finite number in the given range (as :func:`check_number`).

    >>> number_arg(0, 1)("0.25")
    0.25
    >>> number_arg(0, strict=True)("inf")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite number > 0, got 'inf'
    """
    def parse(text: str) -> float:
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        try:
            return check_number(number, "", minimum=minimum, maximum=maximum, strict=strict)
        except InvalidInput as exc:
            raise _arg_error(exc, text) from None

    parse.__name__ = "number"
    return parse


def seconds_arg(text: str) -> float:
    """An argparse type: a finite number of seconds >= 0 (``--time-limit``).

    >>> seconds_arg("2.5")
    2.5
    >>> seconds_arg("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite number >= 0 (seconds), got '-1'
    """
    try:
        return number_arg(0)(text)
    except argparse.ArgumentTypeError as exc:
        message = str(exc)
        raise argparse.ArgumentTypeError(message.replace(", got ", " (seconds), got ", 1)) from None


#: a Dask scheduler address: [scheme://]host:port (host a name, an IPv4 address or [IPv6])
_ADDRESS = re.compile(r"(?:(?P<scheme>tcp|tls|ws|wss|ucx)://)?(?P<host>[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])"
                      r":(?P<port>[0-9]{1,5})")


def scheduler_address(text: str) -> tuple[str, int]:
    """(host, port) of a Dask scheduler address ``[tcp://]host:port``, or InvalidInput (the syntax only: no network).

    >>> scheduler_address("tcp://10.0.0.5:8786")
    ('10.0.0.5', 8786)
    >>> scheduler_address("relu:0")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: the scheduler address must be [tcp://]HOST:PORT with a port from 1 to 65535, ...
    """
    match = _ADDRESS.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None or not 1 <= int(match["port"]) <= 65535:
        raise _refuse("the scheduler address", "[tcp://]HOST:PORT with a port from 1 to 65535", text)
    return match["host"].strip("[]"), int(match["port"])


def scheduler_arg(text: str) -> str:
    """An argparse type: a Dask scheduler address, checked by :func:`scheduler_address` (returned as typed).

    >>> scheduler_arg("localhost:8786")
    'localhost:8786'
    """
    try:
        scheduler_address(text)
    except InvalidInput as exc:
        raise _arg_error(exc, text) from None
    return text
