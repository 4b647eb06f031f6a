"""Compiled cluster shapes, kept on disk: the lazy engine compiles a shape once per machine, not once per run.

The eager phase of the lazy engine (:mod:`exactrelu.decide.search.clusters`) enumerates every activation pattern of
each small cluster *shape* by exact LPs: about 1,000 of them for the NP-hardness reduction's 9 shapes, six
times over when U is unknown, on every run. Those refutations depend only on the shape's data (its samples'
entries on its coordinates and their labels), the output weights U, the LP method and the compiler, so
:func:`compiled` keeps them in a small file per shape under the cache directory, keyed by the SHA-256 of
that text (:func:`shape_key`).

**Nothing here is trusted.** A file is used only if it parses, names exactly the key asked for (shape data,
U, method, node budget, this compiler's version: a stale file never matches), its checksum matches, and every
refutation in it is re-verified exactly on the rows of the cluster at hand (:func:`verified`: its Farkas
combination cancels to ``0 <= negative``, over literals it names); anything else is ignored and the shape
is compiled afresh (and the file rewritten). The independent checker then verifies every template lemma
of the certificate as before: a cached lemma is checked like any other. A cache that is missing, cut short,
corrupted, stale or hostile can cost time, never a wrong answer: a lemma that is not proved is never used,
and a lemma that is missing only leaves a pattern to the lazy rounds.

Where: ``$EXACTRELU_CACHE/lemmas`` if that variable is set (``off`` or an empty value: no disk cache), else
``$XDG_CACHE_HOME/exactrelu/lemmas`` or ``~/.cache/exactrelu/lemmas``. A directory that cannot be written
only means no cache. Within one process, shapes are also kept in memory.

>>> from fractions import Fraction
>>> from exactrelu.decide.search.rows import Rows
>>> R = Rows([[Fraction(1)], [Fraction(-1)]], [[Fraction(1)], [Fraction(1)]], [[Fraction(1), Fraction(1)]])
>>> key = shape_key(R, [0, 1], (0,), "auto", 100)
>>> key.splitlines()[1:]
['U 1 1', 'method auto nodes 100', 'coords 1', '0:1 | 1', '0:-1 | 1']
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from fractions import Fraction
from pathlib import Path

from ...exact.rationals import format_rational
from .clusters import ClusterRefutation, compile_cluster

__all__ = ["compiled", "shape_key", "verified", "cache_dir", "CACHE_FORMAT", "compiler_version"]

CACHE_FORMAT = "exactrelu.lemma-cache"
#: the modules whose code decides what a compilation returns: a change to any of them is a new cache key
_SOURCES = ("decide/search/clusters.py", "decide/search/rows.py", "decide/search/elimination.py", "decide/search/lemma_cache.py", "exact/lp.py",
            "exact/lp_highs.py", "exact/lp_simplex.py", "exact/lp_system.py")
_MEMORY: dict = {}
_MEMORY_SHAPES = 4096
_VERSION: list = []


def compiler_version() -> str:
    """The package version and a hash of the compiler's sources (part of every key).

    >>> compiler_version().startswith("exactrelu ")
    True
    """
    if not _VERSION:
        from ..._version import __version__

        h = hashlib.sha256()
        root = Path(__file__).resolve().parents[2]  # exactrelu/
        for name in _SOURCES:
            try:
                h.update((root / name).read_bytes())
            except OSError:  # an installation without sources: the version alone keys the cache
                h.update(name.encode())
        _VERSION.append(f"exactrelu {__version__} {h.hexdigest()[:16]}")
    return _VERSION[0]


def cache_dir() -> Path | None:
    """The directory of the disk cache, or None when it is switched off (``EXACTRELU_CACHE=off``).

    >>> import os; old = os.environ.get("EXACTRELU_CACHE"); os.environ["EXACTRELU_CACHE"] = "off"
    >>> cache_dir() is None
    True
    >>> _ = os.environ.pop("EXACTRELU_CACHE") if old is None else os.environ.update(EXACTRELU_CACHE=old)
    """
    env = os.environ.get("EXACTRELU_CACHE")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "no", "false") else Path(env) / "lemmas"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "exactrelu" / "lemmas"


def shape_key(R, members: list, coords: tuple, method: str, max_nodes: int) -> str:
    """Everything a compilation of the cluster ``members`` (inside ``coords``) depends on, as text."""
    q = {t: p for p, t in enumerate(coords)}
    fmt = format_rational
    lines = [f"{CACHE_FORMAT} v1 {compiler_version()}",
             "U " + " ; ".join(" ".join(fmt(x) for x in row) for row in R.U),
             f"method {method} nodes {max_nodes}", f"coords {len(coords)}"]
    if getattr(R, "offset", False):  # an output bias: other rows, other refutations
        lines.append("output bias")
    for j in members:
        lines.append(" ".join(f"{q[t]}:{fmt(R.X[j][t])}" for t in R.supp[j]) + " | " + " ".join(fmt(y) for y in R.Y[j]))
    return "\n".join(lines)


def _encode(refutations) -> list | None:
    if refutations is None:
        return None
    return [[[[kind, p, x, format_rational(y)] for (kind, p, x), y in core],
             [[p, i, a] for (p, i), a in sorted(assumed.items())]] for core, assumed in refutations]


def _digest(payload) -> str:
    return hashlib.sha256(json.dumps(payload, separators=(",", ":")).encode()).hexdigest()


def _decode(payload) -> list[ClusterRefutation] | None:
    """The refutations of a file's payload (shape only; :func:`verified` proves them). ValueError if malformed."""
    if payload is None:
        return None
    if not isinstance(payload, list):
        raise ValueError("not a list")
    out = []
    for item in payload:
        core_text, assumed_text = item
        core = []
        for kind, p, x, y in core_text:
            if not (isinstance(kind, str) and type(p) is int and type(x) is int and isinstance(y, str)):
                raise ValueError("bad row")
            core.append(((kind, p, x), Fraction(y)))
        assumed = {}
        for p, i, a in assumed_text:
            if not (type(p) is int and type(i) is int and type(a) is bool) or (p, i) in assumed:
                raise ValueError("bad literal")
            assumed[(p, i)] = a
        out.append(ClusterRefutation(core, assumed))
    return out


def verified(R, members: list, refutations) -> bool:
    """Whether every refutation holds on the rows of ``members`` (by position) under its own literals.

    Each Farkas row names a row of the cluster, rebuilt here from the data (sign rows with a non-negative
    multiplier, equations, half rows with a non-negative multiplier), whose literals must all be among the
    refutation's; the combination must cancel every variable and leave ``0 <= negative`` (or ``0 == non-zero``).
    """
    n = len(members)
    try:
        for core, assumed in refutations:
            if not core or any(not (0 <= p < n) or i not in R.rel for p, i in assumed):
                return False
            built = []
            for (kind, p, x), y in core:
                if not 0 <= p < n:
                    return False
                j = members[p]
                if kind == "sign":
                    if y < 0 or x not in R.rel or (p, x) not in assumed:
                        return False
                    row, s = R.sign_row(j, x, assumed[(p, x)])
                elif kind == "eq":
                    if not 0 <= x < R.m or any((p, u) not in assumed for u in R.units(x)):
                        return False
                    row, s = R.eq_row(j, x, tuple(assumed[(p, u)] for u in R.units(x)))
                elif kind in ("eq+", "eq-"):
                    sign = 1 if kind == "eq+" else -1
                    if y < 0 or not 0 <= x < R.m or not R._mixed[x]:
                        return False
                    us = R.half_units(x, sign)
                    if any((p, u) not in assumed for u in us):
                        return False
                    row, s = R.half_row(j, x, sign, tuple(assumed[(p, u)] for u in us))
                else:
                    return False
                built.append((row, Fraction(y) / s))  # y multiplies the original row; the built row is s times it
            # integer rows, integer multipliers: the Fractions' common denominator L > 0 keeps every sign
            L = math.lcm(*(c.denominator for _, c in built))
            acc: dict = {}
            rhs = 0
            for row, c in built:
                ci = c.numerator * (L // c.denominator)
                for key, a in row.coefs.items():
                    acc[key] = acc.get(key, 0) + ci * a
                rhs += ci * row.rhs
            if any(v != 0 for v in acc.values()) or rhs >= 0:
                return False
    except (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError):
        return False
    return True


def _read(path: Path, key: str, R, members: list):
    """The verified refutations stored at ``path`` for ``key``; ``False`` when the file is missing or unusable."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return False
    if not (isinstance(obj, dict) and obj.get("format") == CACHE_FORMAT and obj.get("version") == 1
            and obj.get("key") == key and "refutations" in obj and obj.get("sha256") == _digest(obj["refutations"])):
        return False
    try:
        out = _decode(obj["refutations"])
    except (ValueError, TypeError):
        return False
    if out is not None and not verified(R, members, out):
        return False
    return out


def _write(path: Path, key: str, refutations) -> None:
    payload = _encode(refutations)
    text = json.dumps({"format": CACHE_FORMAT, "version": 1, "key": key, "refutations": payload,
                       "sha256": _digest(payload)}, separators=(",", ":"))
    from ...errors import InvalidInput
    from ...io.files import atomic_output

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(path, what="lemma cache file") as fh:  # a reader sees the old file or the new one
            fh.write(text)
    except (OSError, InvalidInput):  # a read-only or full disk: no cache, same answers
        pass


def compiled(R, members: list, coords: tuple, method: str, stats: dict, max_nodes: int):
    """:func:`~exactrelu.decide.search.clusters.compile_cluster` of one cluster, through the memory and disk caches.

    ``stats["shapes_cached"]`` counts the shapes read from the cache (memory or disk).
    """
    key = shape_key(R, members, coords, method, max_nodes)
    hit = _MEMORY.get(key, False)
    if hit is not False:
        stats["shapes_cached"] = stats.get("shapes_cached", 0) + 1
        return hit
    root = cache_dir()
    path = None if root is None else root / (hashlib.sha256(key.encode()).hexdigest() + ".json")
    out = False if path is None else _read(path, key, R, members)
    if out is not False:
        stats["shapes_cached"] = stats.get("shapes_cached", 0) + 1
    else:
        out = compile_cluster(R, members, method, stats, max_nodes)
        if path is not None:
            _write(path, key, out)
    if len(_MEMORY) >= _MEMORY_SHAPES:
        _MEMORY.clear()
    _MEMORY[key] = out
    return out
