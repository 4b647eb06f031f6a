"""Errors, exact rationals, size limits and the small readers every claim shares. Standard library only."""

from __future__ import annotations

import json
import math
import os
import re
import sys
from fractions import Fraction


class CheckFailed(Exception):
    """The certificate does not verify (the claim is false, or the file is not a valid certificate)."""


class UnreadableInput(Exception):
    """An instance or certificate file cannot be read at all, or is over a size limit (exit 2)."""


#: The checker's limits (docs/limits.md). Each bounds, *before* it is done, work out of proportion to a file's
#: bytes, so that a small hostile file is refused at once; honest sizes are limited only by the memory they need
#: (``memory``, MB: 0 is the machine's available memory). Each can be set with the environment variable
#: ``EXACTRELU_MAX_<NAME>`` (read once, on first use). The library has the same names and defaults in
#: ``exactrelu/limits.py`` (kept separate: the checker imports nothing from exactrelu).
DEFAULTS = {
    "digits": 4300,            # decimal digits of one integer (Python's own int/str limit); decimals: digits + |exponent|
    "degree": 100,             # degree c of the rectified power t^c
    "inflation": 200,          # bytes a deflated .npz member may unpack to per compressed byte (plus 1 MiB)
    "memory": 0,               # MB a check may hold: 0 = the machine's available memory (MemAvailable)
    "literals": 10_000_000,    # activation literals n * k of a hinted refutation
    "header": 10_000,          # bytes of an .npy header (numpy's own max_header_size)
    "intermediate": 100_000,   # decimal digits of the largest integer a check computes (powers, common denominators)
    "units": 10_000,           # hidden units k of a certificate
    "propagations": 50_000_000,  # literal visits of a hinted (LRAT) replay, counted from the hints before replaying
    "terms": 50_000_000,       # coefficient operations of a deep equivalence: the reduction and the case tree's rows
}
_limits: dict = {}


def limit(name: str) -> int:
    """The size limit ``name``: its default, or the value of ``EXACTRELU_MAX_<NAME>`` when that is set."""
    if name not in _limits:
        var = f"EXACTRELU_MAX_{name.upper()}"
        raw = os.environ.get(var)
        if raw is None:
            value = DEFAULTS[name]
        elif raw.isascii() and raw.isdigit() and int(raw) > 0:
            value = int(raw)
        else:
            raise UnreadableInput(f"{var}={raw!r} is not a positive integer")
        if name == "digits" and value > 4300 and 0 < sys.get_int_max_str_digits() < value:
            sys.set_int_max_str_digits(value)  # let int() and json read what the raised limit allows
        _limits[name] = value
    return _limits[name]


#: bytes the checker holds per instance entry of a whole parsed instance (at worst, d = m = 1; docs/limits.md), and
#: per byte of JSON while it is parsed (at least)
HELD, JSON_BYTE = 400, 3


def memory_budget() -> int:
    """Bytes a check may hold: the limit ``memory`` (MB) when set, else ``MemAvailable`` (else 4 GiB)."""
    if limit("memory"):
        return limit("memory") << 20
    try:
        with open("/proc/meminfo", "rb") as fh:
            return next(int(ln.split()[1]) * 1024 for ln in fh if ln.startswith(b"MemAvailable:"))
    except (OSError, ValueError, IndexError, StopIteration):
        return 4 << 30


def check_memory(need: int, what: str) -> None:
    """Refuse, before the work, what needs more memory (bytes, estimated) than there is."""
    if need > memory_budget():
        raise UnreadableInput(f"{what} needs about {need / 2**30:.1f} GB to check, and this machine has "
                              f"{memory_budget() / 2**30:.1f} GB available (set another budget in MB with "
                              "EXACTRELU_MAX_MEMORY; docs/limits.md)")


def check_inflation(compressed: int, size: int, what: str) -> None:
    """Refuse a deflated member that unpacks out of proportion to its compressed bytes (a deflate bomb)."""
    if size > limit("inflation") * compressed + (1 << 20):
        raise UnreadableInput(f"{what} (deflated: {compressed:,} bytes that unpack to {size:,}) is over the checker's "
                              f"limit inflation={limit('inflation')}: a deflate bomb, refused before decompressing "
                              "(save such data uncompressed, numpy.savez, or raise EXACTRELU_MAX_INFLATION)")


def over(name: str, what: str) -> UnreadableInput:
    """The one-line refusal of an input over the limit ``name``."""
    return UnreadableInput(f"{what} is over the checker's limit {name}={limit(name)} "
                           f"(raise it with EXACTRELU_MAX_{name.upper()}; docs/limits.md)")


def digits_of(bits: int) -> str:
    """About how many decimal digits an integer of ``bits`` bits has, for messages (``1,234``).

    >>> digits_of(1000), len(str(2**1000 - 1))
    ('302', 302)
    """
    return f"{(bits * 30103 + 99999) // 100000:,}"


def cap_bits() -> int:
    """The limit ``intermediate`` (decimal digits) in bits: no integer a check computes may be longer."""
    return limit("intermediate") * 3322 // 1000 + 1


def lcm_within(dens, cap: int, what: str) -> int:
    """The lcm of ``dens``, refused as soon as it has more than ``cap`` bits (distinct large denominators multiply).

    >>> lcm_within([4, 6, 4], 64, "x")
    12
    """
    D = 1
    for q in dens:
        if D % q:
            D = math.lcm(D, q)
            if D.bit_length() > cap:
                raise over("intermediate", f"{what}: the common denominator of its numbers (over {digits_of(cap)} digits)")
    return D


def check_power(c: int, bits: int, what: str) -> None:
    """Refuse to raise an integer of ``bits`` bits to the power c when the result would be over the limit ``intermediate``."""
    if c * bits > cap_bits():
        raise over("intermediate", f"{what} (an integer of {digits_of(bits)} digits to the power {c})")


def read_certificate(cert_path: str) -> dict:
    """A certificate file's JSON object (UnreadableInput when it cannot be read)."""
    try:
        with open(cert_path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise UnreadableInput(f"cannot read {cert_path}: {exc}") from None
    return read_json(raw, cert_path)


def read_json(raw: bytes, path: str, *, digits: int | None = None):
    """A JSON document; unreadable (exit 2) when it is not valid UTF-8 JSON, too deep, has too long numbers or
    repeats a key in one object. ``digits`` (default: the checker's limit) bounds the digits of one integer; the
    library reads its files through this function with its own limit, so that both read a file the same way."""
    own = digits is None
    if own:
        digits = limit("digits")  # a raised digit limit also raises Python's own, which int() obeys

    def too_long(what: str) -> UnreadableInput:
        if own:
            return over("digits", what)
        return UnreadableInput(f"{what} is over the limit digits={digits} "
                               "(raise it with EXACTRELU_MAX_DIGITS; docs/limits.md)")

    def bounded_int(text: str) -> int:  # our limit, whatever Python's own is set to in this process
        if len(text) - (text[0] == "-") > digits:
            raise too_long(f"{path}: an integer of {len(text)} characters")
        return int(text)

    def unique_keys(pairs):  # a repeated key would let two readers see two documents
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set = set()
            key = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise UnreadableInput(f"{path}: the key {key[:40]!r} appears twice in one object")
        return obj

    try:
        return json.loads(raw.decode("utf-8"), parse_int=bounded_int, object_pairs_hook=unique_keys)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UnreadableInput(f"{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise UnreadableInput(f"{path}: JSON nested too deeply") from None
    except UnreadableInput:
        raise
    except ValueError as exc:  # Python refuses integers over sys.get_int_max_str_digits() digits
        raise too_long(f"{path}: a number ({str(exc)[:60]})") from None


_INT = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,9}))?")


def parse_rational(x) -> Fraction:
    """A JSON integer, or a string 'p/q', 'p' or a decimal, read exactly (sizes bounded first)."""
    if isinstance(x, bool):
        raise CheckFailed(f"not a rational: {x!r}")
    if isinstance(x, int):
        return Fraction(x)
    if not isinstance(x, str):
        raise CheckFailed(f"not a rational: {x!r}")
    digits = limit("digits")
    if "/" in x:
        p, _, q = x.partition("/")
        if not (_INT.fullmatch(p) and q.isascii() and q.isdigit()):
            raise CheckFailed(f"not a rational: {x[:40]!r}")
        if len(p.lstrip("+-")) > digits or len(q) > digits:
            raise over("digits", f"the number {x[:20]}...")
        if int(q) == 0:
            raise CheckFailed(f"non-positive denominator in {x[:40]!r}")
        return Fraction(int(p), int(q))
    m = _DECIMAL.fullmatch(x)
    if not m or not (m.group(2) or m.group(3)):
        raise CheckFailed(f"not a rational: {x[:40]!r}")
    exp = int(m.group(4) or 0)
    if len(m.group(2)) + len(m.group(3) or "") + abs(exp) > digits:
        raise over("digits", f"the number {x[:20]}...")
    return Fraction(x)


def canonical(f: Fraction) -> str:
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def approx(x) -> str:
    """A rational for display only, to about six significant digits, however large (the claim is decided exactly).

    >>> approx(Fraction(1, 3)), approx(-10**5000), approx(Fraction(1, 7**9000))
    ('0.333333', '-1.00000e+5000', '1.31111e-7606')
    """
    f = Fraction(x)
    if f == 0:
        return "0"
    e = math.log10(abs(f.numerator)) - math.log10(f.denominator)  # exact enough for any size of integer
    if -300 < e < 300:
        return f"{float(f):.6g}"
    exp = math.floor(e)
    return f"{'-' if f < 0 else ''}{10 ** (e - exp):.5f}e{exp:+d}"


def display(x) -> str:
    """The one display of a number in a message: exact when short (up to 40 digits each), else approximate.

    Never ``str()`` of a long integer (Python refuses those over 4300 digits, and they say nothing).

    >>> display(Fraction(-3, 4)), display(10**60 + 1)
    ('-3/4', '~1e+60 (a number of 200 bits; exact value not shown)')
    """
    f = Fraction(x)
    bits = max(f.numerator.bit_length(), f.denominator.bit_length())
    if bits <= 133:
        return canonical(f)
    return f"~{approx(f)} (a number of {bits} bits; exact value not shown)"


def read_matrix(obj, rows, cols, name):
    if not isinstance(obj, list) or len(obj) != rows:
        raise CheckFailed(f"{name} must have {rows} rows")
    out = []
    for r in obj:
        if not isinstance(r, list) or len(r) != cols:
            raise CheckFailed(f"every row of {name} must have {cols} entries")
        out.append([parse_rational(x) for x in r])
    return out


def read_vector(obj, size, name):
    if not isinstance(obj, list) or len(obj) != size:
        raise CheckFailed(f"{name} must be a list of {size} rationals")
    return [parse_rational(x) for x in obj]


def activation_degree(act) -> int:
    """1 for the ReLU, c for the rectified power t^c (1 <= c <= the limit 'degree')."""
    if isinstance(act, dict) and set(act) in ({"name"}, {"name", "degree"}):
        c = act.get("degree", 1)
        if type(c) is int and (act["name"] == "relu" and c == 1 or act["name"] == "power" and "degree" in act and c >= 1):
            if c > limit("degree"):
                raise over("degree", f"the activation degree {c}")
            return c
    raise CheckFailed(f"unknown activation {str(act)[:80]}")


def only_fields(cert: dict, allowed: set) -> None:
    if set(cert) - allowed:
        raise CheckFailed(f"unknown fields {sorted(set(cert) - allowed)}")


def is_pair(p, n, k):
    return all(isinstance(t, int) and not isinstance(t, bool) for t in p) and 0 <= p[0] < n and 0 <= p[1] < k
