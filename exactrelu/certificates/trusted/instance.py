"""Instance files (JSON and .npz) and the instance hash. Standard library only.

The readers are strict and bound every size before doing the work (docs/limits.md); the library's
readers (``exactrelu/instances/instance.py``, ``exactrelu/io/npz.py``) follow the same rules, written separately:

* JSON: exactly the fields of DESIGN.md; inputs and labels non-empty lists of equal-length,
  non-empty rows of rational strings or JSON integers.
* .npz: read by :mod:`.npz` (exactly the members ``inputs.npy`` and ``labels.npy``, sizes checked
  before decompressing). Floats are read exactly (a float is a dyadic rational); NaN and
  infinities are refused.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from fractions import Fraction
from itertools import repeat
from operator import and_

from .common import (HELD, JSON_BYTE, CheckFailed, UnreadableInput, activation_degree, canonical, check_memory, limit,
                     parse_rational, read_json)

#: The fields an instance file may have (``provenance`` is free-form and not read).
INSTANCE_FIELDS = {"format", "version", "inputs", "labels", "activation", "planted", "provenance"}


def entry(x, digits: int = 0) -> tuple[int, int, str]:
    """(numerator, denominator, canonical text) of one instance entry: a str, int or finite float.

    ``digits`` is the limit "digits" when the caller has read it (once per instance, not per entry).

    >>> entry("3/4"), entry(0.5), entry("0.25")
    ((3, 4, '3/4'), (1, 2, '1/2'), (1, 4, '1/4'))
    """
    t = type(x)
    if t is str:
        p, sep, q = x.partition("/")
        if len(x) <= (digits or limit("digits")):  # int() below is then cheap and within Python's limit
            try:
                pi = int(p)
                qi = int(q) if sep else 1
            except ValueError:
                pi = None
            # int() also reads "+1", " 1", "1_0": only the canonical text itself takes this path
            if pi is not None and str(pi) == p and (not sep or (str(qi) == q and qi > 1 and math.gcd(pi, qi) == 1)):
                return pi, qi, x  # already canonical: hash the text as it is
        f = parse_rational(x)
        return f.numerator, f.denominator, canonical(f)
    if t is int:
        return x, 1, str(x)
    if t is float:
        if x != x or x in (float("inf"), float("-inf")):
            raise CheckFailed(f"non-finite value {x}")
        p, q = x.as_integer_ratio()
        return p, q, (str(p) if q == 1 else f"{p}/{q}")
    if t is Fraction:
        return x.numerator, x.denominator, canonical(x)
    raise CheckFailed(f"not a rational: {str(x)[:40]}")


def _rows(obj, name: str, path: str) -> list:
    rows = obj.get(name)
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) and r for r in rows):
        raise UnreadableInput(f"{path}: '{name}' must be a non-empty list of non-empty rows")
    return rows


def load_instance(path: str, parse: bool = True) -> dict:
    """Read an instance file: {'inputs': rows of entries, 'labels': ..., 'activation': dict or None, 'parsed'}.

    Everything about the file is checked here (fields, shapes, numbers, limits): a bad instance is
    unreadable (exit 2), never an invalid certificate. ``parse=False`` leaves the numbers to the caller
    (no 'parsed': a parallel check parses each range of rows in its own worker), and the rows of an .npz in the
    file (:class:`NpzRows`: a check that streams reads one block of rows at a time).
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read(2)
            if raw != b"PK":  # an .npz is read a block of rows at a time (NpzRows), never whole
                raw += fh.read()
    except OSError as exc:
        raise UnreadableInput(f"cannot read {path}: {exc}") from None
    if raw == b"PK":
        from .npz import read_npz  # here: its ast and zipfile cost 4 ms of every JSON check

        instance = read_npz(path)
    else:
        check_memory(len(raw) * JSON_BYTE, f"{path} ({len(raw):,} bytes of JSON)")
        obj = read_json(raw, path)
        if not isinstance(obj, dict) or obj.get("format") != "exactrelu.instance" or type(obj.get("version")) is not int \
                or obj["version"] != 1:
            raise UnreadableInput(f"{path}: not an exactrelu.instance version 1")
        if set(obj) - INSTANCE_FIELDS:
            raise UnreadableInput(f"{path}: unknown fields {sorted(set(obj) - INSTANCE_FIELDS)[:5]} in the instance")
        instance = {"inputs": _rows(obj, "inputs", path), "labels": _rows(obj, "labels", path),
                    "activation": obj.get("activation")}
        for name in ("inputs", "labels"):
            types: set = set()
            for row in instance[name]:  # the types of a row's entries, collected in C (not 168,000 steps of Python)
                types.update(map(type, row))
            if not types <= {str, int}:  # exactly str or int: not bool, not float, not a subclass
                raise UnreadableInput(f"{path}: '{name}' entries must be rational strings or JSON integers")
        if instance["activation"] is not None:
            try:
                activation_degree(instance["activation"])
            except CheckFailed as exc:
                raise UnreadableInput(f"{path}: {exc}") from None
    if parse:
        n, d, m = instance_shape(instance["inputs"], instance["labels"], path)
        check_memory(n * (d + m) * HELD, f"{path} ({n} x ({d} + {m}) entries, parsed whole)")
        for name in ("inputs", "labels"):  # everything is held anyway: rows as lists
            if not isinstance(instance[name], list):  # rows of an .npz member (NpzRows)
                instance[name] = instance[name][:]
        instance["parsed"] = parsed_instance(instance["inputs"], instance["labels"], where=path)  # every number, now
    return instance


#: A row of canonical rationals (``entry`` returns them unchanged), one space between entries: integers without
#: sign "+" or leading zeros ("-0" is not one), denominators > 1 (coprime to the numerator: checked apart).
_RATIONAL = r"(?:0|-?[1-9][0-9]*)(?:/(?:[2-9]|[1-9][0-9]+))?"
_CANONICAL_ROW = re.compile(f"{_RATIONAL}(?: {_RATIONAL})*")
#: Deletes the characters a row of canonical rationals is made of: what is left is a character no such row has.
_ROW_CHARACTERS = str.maketrans("", "", "-0123456789/ ")
#: An entry of a row's text with no "/" (an integer): from the start or a space to a space or the end.
_INTEGER_ENTRY = re.compile(r"(?<![^ ])-?[0-9]+(?![^ ])")


#: Two slashes in one entry (no space between them).
_TWO_SLASHES = re.compile(r"/[^ ]*/")


def _canonical_text(row: list, text: str):
    """(numerators, denominators) of a row whose entries (joined by single spaces: ``text``) are all canonical
    rationals in lowest terms; None when any is not (the caller then reads the row entry by entry).

    The integers are read by one ``json.loads`` of the text with "/" and " " made ",": after the checks below this
    reads exactly the integers of the entries, in order, two per entry (numerator, denominator):

    * every character is one of ``-0123456789/`` and the space, and there are exactly len(row) - 1 spaces, so no
      entry holds a space and the text's space-separated fields are the entries;
    * an entry with no "/" (an integer) gets "/1" (counted); then there are exactly len(row) slashes and no entry
      holds two, so every entry holds exactly one, and the JSON list is (p, q) entry by entry;
    * JSON reads a field of these characters only as an integer ``-?(0|[1-9][0-9]*)``: no "+", no leading zero, no
      empty field (else it raises, and the row is read entry by entry); "-0" is the one JSON integer that is not
      canonical text, and a text holding "-0" anywhere is refused;
    * a row with no "/" at all is read the same way without the added "/1" (all its denominators are 1): the
      fields are exactly len(row) JSON integers, and a regular expression's 200 substitutions per row of a
      reduction's instance cost 0.2 s at 168,000 entries;
    * each denominator is >= 2 as written (a written "/1", "/0" or "/-3" is refused: the only denominators 1 are
      the ones added), and coprime to its numerator (for denominators that are powers of two: odd numerators).
    """
    if text.translate(_ROW_CHARACTERS) or "-0" in text or text.count(" ") != len(row) - 1:
        return None
    if "/" not in text:  # integers only: each field is read as JSON reads it, with no "/1" added (0.2 s at 168,000)
        try:
            nums = json.loads(f"[{text.replace(' ', ',')}]")
        except ValueError:  # "+1", "01", "-", an empty field between two spaces
            return None
        return (nums, [1] * len(nums)) if len(nums) == len(row) else None  # [""] reads as no field at all
    added = 0
    if text.count("/") != len(row):
        text, added = _INTEGER_ENTRY.subn(r"\g<0>/1", text)
        if text.count("/") != len(row):
            return None
    if _TWO_SLASHES.search(text):
        return None
    try:
        values = json.loads(f"[{text.replace(' ', ',').replace('/', ',')}]")
    except ValueError:  # a field that is not a JSON integer ("+1", "01", "", "-")
        return None
    nums, dens = values[0::2], values[1::2]
    if min(dens) < (1 if added else 2) or (added and dens.count(1) != added):
        return None
    distinct = set(dens)
    if not added and all(q & (q - 1) == 0 for q in distinct):  # q = 2^e >= 2: p / q is in lowest terms iff p is odd
        return (nums, dens) if all(map(and_, nums, repeat(1))) else None
    return (nums, dens) if distinct == {1} or max(map(math.gcd, nums, dens)) == 1 else None


def _float_row(row: list):
    """(text, numerators, denominators) of a row of floats (an .npz instance), or None when an entry is not a float.

    ``float.as_integer_ratio`` gives each entry in lowest terms with a positive denominator (it raises on NaN and
    infinities: None, and ``entry`` says which); an integer-valued float is "p/1", written "p".
    """
    if set(map(type, row)) != {float}:  # entry refuses a float subclass: read entry by entry
        return None
    try:
        pairs = list(map(float.as_integer_ratio, row))
    except (TypeError, ValueError, OverflowError):
        return None
    text = " ".join(map("%d/%d".__mod__, pairs))
    if "/1 " in text or text.endswith("/1"):  # "/1" followed by a space or the end is exactly a denominator 1
        text = (text + " ").replace("/1 ", " ")[:-1]
    nums, dens = map(list, zip(*pairs))
    return text, nums, dens


def _parsed_row(row: list, digits: int) -> tuple:
    """(canonical text, numerators, denominators) of one row, as ``entry`` gives them entry by entry.

    A row of canonical strings (what the library writes) is read in bulk (:func:`_canonical_text`), a row of floats
    too (:func:`_float_row`); any other row (JSON integers, non-canonical text) entry by entry.

    >>> _parsed_row(["3/4", "-2", "0"], 4300), _parsed_row(["6/8", 2], 4300), _parsed_row([0.5, -3.0], 4300)
    (('3/4 -2 0', [3, -2, 0], [4, 1, 1]), ('3/4 2', [3, 2], [4, 1]), ('1/2 -3', [1, -3], [2, 1]))
    """
    if type(row[0]) is float:  # before the join: a join that raises costs a third of reading the floats
        floats = _float_row(row)
        if floats is not None:
            return floats
    try:
        text = " ".join(row)
    except TypeError:  # an entry that is not a string
        text = None
    if text is not None and (len(text) <= digits or max(map(len, row)) <= digits):  # json's int() is within limits
        read = _canonical_text(row, text)
        if read is not None:
            return text, read[0], read[1]
    es = [entry(v, digits) for v in row]
    return " ".join([e[2] for e in es]), [e[0] for e in es], [e[1] for e in es]


def instance_shape(inputs, labels, where: str = "the instance") -> tuple:
    """(n, d, m) of an instance's rows, refused (UnreadableInput) when empty."""
    n = len(inputs)
    if n == 0 or len(labels) != n:
        raise UnreadableInput(f"{where}: an instance has n >= 1 samples and as many label rows")
    d, m = len(inputs[0]), len(labels[0])
    if d == 0 or m == 0:
        raise UnreadableInput(f"{where}: inputs and labels need at least one column each")
    return n, d, m


def hash_header(n: int, d: int, m: int) -> bytes:
    """The first line of the hashed text: its format and shape."""
    return f"exactrelu.instance.v1\n{n} {d} {m}\n".encode()


def parsed_rows(inputs, labels, d: int, m: int, where: str = "the instance"):
    """Parse rows of an instance of row lengths d and m: (X, Y, text), text the hashed lines of these samples.

    A malformed row raises UnreadableInput: bad numbers or shapes are not a false claim.
    """
    digits = limit("digits")
    if any(len(x) != d for x in inputs) or any(len(y) != m for y in labels):
        raise UnreadableInput(f"{where}: instance rows have unequal lengths")
    X, Y, lines = [], [], []
    try:
        for x, y in zip(inputs, labels):
            tx, nx, dx = _parsed_row(x, digits)
            ty, ny, dy = _parsed_row(y, digits)
            lines.append(f"{tx} | {ty}\n")
            X.append((nx, dx))
            Y.append((ny, dy))
    except CheckFailed as exc:
        raise UnreadableInput(f"{where}: {exc}") from None
    return X, Y, "".join(lines).encode()


def parsed_instance(inputs, labels, where: str = "the instance"):
    """Parse every entry once: rows of (nums, dens) for inputs and labels, and the SHA-256.

    A malformed instance raises UnreadableInput: bad numbers or shapes are not a false claim.
    """
    n, d, m = instance_shape(inputs, labels, where)
    h = hashlib.sha256(hash_header(n, d, m))
    X, Y = [], []
    for a in range(0, n, 4096):  # the hashed text of a block of rows at a time
        Xa, Ya, text = parsed_rows(inputs[a:a + 4096], labels[a:a + 4096], d, m, where)
        h.update(text)
        X += Xa
        Y += Ya
    return X, Y, h.hexdigest()


def instance_sha256(inputs, labels) -> str:
    """SHA-256 of the canonical instance text (docs/design.md, "Certificates")."""
    return parsed_instance(inputs, labels)[2]


def _is_digest(value) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(ch in "0123456789abcdef" for ch in value)


def check_digest_field(cert: dict) -> None:
    """CheckFailed unless the certificate names its instance by a SHA-256 (64 lower-case hex digits)."""
    digest = cert.get("instance_sha256")
    if not _is_digest(digest):
        shown = "no instance_sha256" if digest is None else f"instance_sha256 {str(digest)[:20]!r}, not a SHA-256"
        raise CheckFailed(f"the certificate has {shown}: it does not say which instance it is about")


def bound_instance(cert: dict, instance: dict | None, claim: str):
    """The parsed instance a claim is about, after checking that its hash is the certificate's."""
    if instance is None:  # a usage error, not a failed claim (exit 2): say which instance is needed
        digest = cert.get("instance_sha256")
        which = f"the instance whose SHA-256 is {digest}" if _is_digest(digest) else "its instance file"
        raise UnreadableInput(f"claim '{claim}' is about an instance: give {which} after the certificate "
                              "(CERT INSTANCE)")
    X, Y, digest = instance.get("parsed") or parsed_instance(instance["inputs"], instance["labels"])
    if cert.get("instance_sha256") != digest:
        raise CheckFailed("instance_sha256 does not match the instance")
    return X, Y
