"""Refutations with hints: the solver's LRAT trace, trimmed to what the empty clause needs (untrusted).

CaDiCaL (through python-sat) writes an LRAT trace when its option ``lrat`` is set before the
trace is connected: every learnt clause comes with the numbers of the clauses whose unit
propagation derives it. :func:`lrat_solver` makes such a solver; :func:`lrat_core` reads the
trace and walks it backwards from the empty clause, keeping only the clauses it reaches (drat-trim's
backward, core-first pass, with the search already done by the solver). When the trace is not
LRAT (another python-sat, another solver), :func:`exactrelu.decide.search.sat.trim.drup_core` computes the
same from a DRUP proof. Nothing here is trusted: the certificate's checker
(:mod:`exactrelu.certificates.trusted.lrat`) verifies every hint.

>>> clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
>>> core = refute(clauses)
>>> core.inputs, [lits for lits, _ in core.steps][-1]
([0, 1, 2, 3], [])
>>> numbered(core, {i: i + 1 for i in core.inputs}, 5)[-1][0]
0
"""

from __future__ import annotations

import numpy as np

from ....errors import ProofFormatError
from .core import Core
from .solver import CONFLICT_SLICE, lrat_solver, sat_interrupts, solve_until, trace  # noqa: F401 (re-exported)

__all__ = ["Core", "ProofFormatError", "lrat_solver", "lrat_core", "refute", "numbered", "solve_until", "trace",
           "sat_interrupts"]

_SENT = 1 << 62  # stands for "d" in a parsed trace
#: traces of at most this many steps are walked back in numpy
SMALL_TRACE = 20000
#: ... and those still being walked after this many levels too (each level is a few numpy calls)
MAX_LEVELS = 500


def lrat_core(data: bytes, order: list) -> Core:
    """Trim an LRAT trace (text) of the input clauses added in ``order`` to the clauses its empty clause needs.

    The numbers the trace never defines are the input clauses', in the order they were added.
    Vectorized: lines are found from the newlines, and the clauses the empty clause reaches
    through hints by a breadth-first search on the hint graph (numpy for small traces, scipy.sparse.csgraph for large).
    Raises :class:`ProofFormatError` when ``data`` is not such a trace.
    """
    text = data.replace(b" d ", b" %d " % _SENT)
    if b"d" in text or not text.endswith(b"\n"):
        raise ProofFormatError("unexpected 'd' in the trace, or a line cut short")
    b = np.frombuffer(text, dtype=np.uint8)
    sep = (b == 32) | (b == 10)
    try:
        arr = np.fromstring(text, dtype=np.int64, sep=" ")
    except ValueError:
        arr = None
    if arr is None or len(arr) != int(sep.sum()) or sep[0] or (sep[1:] & sep[:-1]).any():
        raise ProofFormatError("the trace is not single-spaced integers")
    newline = np.flatnonzero(b == 10)
    start = np.concatenate(([0], np.searchsorted(np.flatnonzero(sep), newline[:-1]) + 1))  # first token of each line
    zeros = np.flatnonzero(arr == 0)
    if len(arr) < 2 or arr[-1] != 0:
        raise ProofFormatError("a line of the trace is cut short")
    z1 = zeros[np.minimum(np.searchsorted(zeros, start, side="right"), len(zeros) - 1)]
    deleting = arr[np.minimum(start + 1, len(arr) - 1)] == _SENT
    z2 = zeros[np.minimum(np.searchsorted(zeros, z1, side="right"), len(zeros) - 1)]
    end = np.where(deleting, z1, z2)  # the 0 that ends each line
    if (np.concatenate((start[1:], [len(arr)])) != end + 1).any() or (z1 <= start).any():
        raise ProofFormatError("a line of the trace is cut short")
    added = np.flatnonzero(~deleting)
    empties = added[z1[added] == start[added] + 1]
    if not len(empties):
        raise ProofFormatError("the trace derives no empty clause")
    added = added[added <= empties[0]]
    return _backward(arr, start[added], z1[added], z2[added], order)


def _ranges(lo, hi):
    """Flat token positions of the ranges ``[lo, hi)`` (in order) and the range each belongs to."""
    counts = hi - lo
    owner = np.repeat(np.arange(len(lo)), counts)
    pos = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(lo, counts)
    return pos, owner, counts


def _backward(arr, start, z1, z2, order) -> Core:
    """The clauses reachable from the last line (the empty clause) through hints, as a :class:`Core`."""
    ids = arr[start]
    pos, owner, _ = _ranges(z1 + 1, z2)
    h = arr[pos]
    if (ids <= 0).any() or (h <= 0).any() or (h >= _SENT).any():
        raise ProofFormatError("a clause number of the trace is not positive")
    top = int(max(ids.max(), h.max(initial=0))) + 1
    line = np.full(top, -1, dtype=np.int64)
    line[ids] = np.arange(len(ids))
    original = np.setdiff1d(np.arange(1, int(ids[-1])), ids)[:len(order)]
    code = np.zeros(top, dtype=np.int64)  # input id -> -(index + 1); 0: not an input clause
    code[original] = -(np.asarray(order, dtype=np.int64)[:len(original)] + 1)
    if ((line[h] < 0) & (code[h] == 0)).any():
        raise ProofFormatError("a hint names no clause of the trace")
    derived = line[h] >= 0
    keep = _reachable(len(ids), owner[derived], line[h[derived]], len(ids) - 1)
    rank = np.full(len(ids), -1, dtype=np.int64)
    rank[keep] = np.arange(len(keep))
    pos, owner, hcount = _ranges(z1[keep] + 1, z2[keep])
    h = arr[pos]
    hints = np.where(line[h] >= 0, rank[np.maximum(line[h], 0)], code[h])
    lpos, _, lcount = _ranges(start[keep] + 1, z1[keep])
    inputs = np.unique(-hints[hints < 0] - 1).tolist()
    at = lambda c: np.concatenate(([0], np.cumsum(c)))  # noqa: E731
    return Core(inputs, arr[lpos], at(lcount), hints, at(hcount), {"trace_steps": len(ids), "core_steps": len(keep)})


def _reachable(n: int, src, dst, root: int):
    """The nodes reachable from ``root`` along edges ``src[e] -> dst[e]`` (``src`` non-decreasing), sorted.

    A breadth-first search in numpy, one vectorized step per level (importing scipy cost 0.3-0.4 s, more than
    the whole trim of a small proof); a trace of more than :data:`SMALL_TRACE` nodes that is still going after
    :data:`MAX_LEVELS` levels is handed to scipy's (a deep proof has many levels). CaDiCaL's traces of the
    reduction's instances at N = 200 and 300 (33,619 and 91,320 steps) have 31 levels each.

    >>> _reachable(4, np.array([1, 3, 3]), np.array([0, 1, 2]), 3).tolist()
    [0, 1, 2, 3]
    """
    at = np.searchsorted(src, np.arange(n + 1))
    seen = np.zeros(n, dtype=bool)
    seen[root] = True
    frontier = np.array([root], dtype=np.int64)
    levels = 0
    while len(frontier):
        levels += 1
        if levels > MAX_LEVELS and n > SMALL_TRACE:  # a deep proof: one level per step would be slow
            from scipy.sparse import csr_matrix
            from scipy.sparse.csgraph import breadth_first_order

            graph = csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
            return np.sort(breadth_first_order(graph, root, directed=True, return_predecessors=False))
        pos, _, _ = _ranges(at[frontier], at[frontier + 1])
        nxt = np.unique(dst[pos])
        frontier = nxt[~seen[nxt]]
        seen[frontier] = True
    return np.flatnonzero(seen)


def refute(clauses, deadline=None) -> Core:
    """A trimmed, hinted refutation of unsatisfiable ``clauses`` (LRAT from CaDiCaL, else DRUP + trimming)."""
    for p, c in enumerate(clauses):
        if not c:
            return Core.from_steps([p], [([], [-(p + 1)])], {"trace_steps": 0, "core_steps": 1})
    sat = lrat_solver(clauses)
    if sat is not None:
        with sat:
            if solve_until(sat, deadline):  # pragma: no cover - callers pass unsatisfiable clauses
                raise AssertionError("the clauses are satisfiable")
            data = trace(sat)
        try:
            return lrat_core(data, sat.order)
        except ProofFormatError:  # pragma: no cover - other python-sat builds write DRUP
            pass
    return drup_refute(clauses, deadline)


def drup_refute(clauses, deadline=None) -> Core:
    """The same from a DRUP proof (CaDiCaL with a DRUP trace), trimmed by :mod:`exactrelu.decide.search.sat.trim`."""
    from pysat.solvers import Solver

    from .trim import drup_core

    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
        if solve_until(s, deadline):  # pragma: no cover
            raise AssertionError("the clauses are satisfiable")
        data = trace(s)
    return drup_core(clauses, data)


def numbered(core: Core, input_id: dict, first: int, *, deletions: bool = False) -> list:
    """The certificate's hinted steps: input clause p is number ``input_id[p]``, steps from ``first`` on.

    With ``deletions``, each clause is deleted (``["d", ...]``) after the step that hints it last.
    The certificate leaves them out by default: they only bound the checker's memory, and cost
    about a third of this function's time.
    """
    n = len(core.lit_at) - 1
    keys = np.array(sorted(input_id), dtype=np.int64)
    lookup = np.zeros(int(keys.max()) + 1 if len(keys) else 1, dtype=np.int64)
    lookup[keys] = [input_id[k] for k in keys.tolist()]
    hs = core.hints
    ids = np.where(hs < 0, lookup[np.maximum(-hs - 1, 0)], first + hs)
    nl, nh = np.diff(core.lit_at), np.diff(core.hint_at)
    at = np.concatenate(([0], np.cumsum(nl + 1 + nh)))  # row t is flat[at[t]:at[t + 1]]
    flat = np.zeros(int(at[-1]), dtype=np.int64)
    flat[np.repeat(at[:-1] - core.lit_at[:-1], nl) + np.arange(len(core.lits))] = core.lits
    flat[np.repeat(at[:-1] + nl + 1 - core.hint_at[:-1], nh) + np.arange(len(ids))] = ids
    flat, at = flat.tolist(), at.tolist()
    rows = [flat[at[t]:at[t + 1]] for t in range(n)]
    if not deletions or not len(ids):
        return rows
    step = np.repeat(np.arange(n), np.diff(core.hint_at))
    dead_ids, back = np.unique(ids[::-1], return_index=True)  # the first from the end: the last use
    when = step[::-1][back]
    order = np.argsort(when, kind="stable")
    dead_ids, when = dead_ids[order], when[order]
    keep = when < n - 1
    dead_ids, when = dead_ids[keep], when[keep]
    ts, cut = np.unique(when, return_index=True)
    flat_dead = dead_ids.tolist()
    bounds = cut.tolist() + [len(flat_dead)]
    out = []
    prev = 0
    for k, t in enumerate(ts.tolist()):
        out += rows[prev:t + 1]
        out.append(["d", *flat_dead[bounds[k]:bounds[k + 1]]])
        prev = t + 1
    out += rows[prev:]
    return out
