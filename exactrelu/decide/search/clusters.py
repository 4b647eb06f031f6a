"""Clusters of samples and their compilation into lemmas (the lazy engine's eager phase).

A *cluster* is a sample's support (a few coordinates) with every sample whose support lies inside
it: for the reduction's instances, a gadget pair, or a clause point with its three gadgets.
:func:`compile_cluster` enumerates every activation pattern of a cluster by a small exact case
tree with backjumping; the refuted patterns become lemmas. Clusters whose data are equal up to
relabelling samples and coordinates share a *shape* and are compiled once: each lemma of a shape
is then a template, instantiated on every cluster of that shape (docs/certificates.md).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import NamedTuple

from .rows import Rows, ScaledRow, decide_rows

__all__ = ["Cluster", "ClusterRefutation", "clusters", "singletons", "compile_cluster", "CLUSTER_SUPPORT",
           "CLUSTER_SAMPLES"]

#: clusters: supports of at most this many coordinates, with at most this many samples
CLUSTER_SUPPORT = 6
CLUSTER_SAMPLES = 40


# -- clusters -----------------------------------------------------------------------------------------

@dataclass
class Cluster:
    members: list  # sample indices, in canonical order
    shape: int  # id of the data up to relabelling (clusters with equal shape share LP answers)
    coords: tuple = ()  # the coordinates of the support, in order: members' entries lie inside


def clusters(R: Rows) -> list[Cluster]:
    """Samples whose support lies inside one sample's support (small supports only)."""
    by_supp: dict = {}
    for j, s in enumerate(R.supp):
        by_supp.setdefault(s, []).append(j)
    shapes: dict = {}
    out = []
    for S in by_supp:
        if not (0 < len(S) <= CLUSTER_SUPPORT):
            continue
        members = []
        for size in range(len(S) + 1):
            for sub in itertools.combinations(S, size):
                members += by_supp.get(sub, [])
        if len(members) > CLUSTER_SAMPLES or (len(members) == R.n and R.n > 1):
            continue
        pos = {t: p for p, t in enumerate(S)}
        data = {j: (tuple(sorted((pos[t], R.X[j][t]) for t in R.supp[j])), tuple(R.Y[j])) for j in members}
        members.sort(key=lambda j: (data[j], j))
        key = (len(S), tuple(data[j] for j in members))
        out.append(Cluster(members, shapes.setdefault(key, len(shapes)), S))
    return out


def singletons(R: Rows, covered: set) -> list[Cluster]:
    """Each sample not inside a cluster, alone (samples with equal data share a shape)."""
    shapes: dict = {}
    out = []
    for j in range(R.n):
        if j not in covered:
            key = (tuple(R.X[j][t] for t in R.supp[j]), len(R.supp[j]), tuple(R.Y[j]))
            out.append(Cluster([j], shapes.setdefault(key, -1 - len(shapes)), R.supp[j]))
    return out


class ClusterRefutation(NamedTuple):
    """A refutation at a leaf of a cluster's case tree, by member position: ``core`` a list of
    ``((kind, position, index), y)`` on original rows, ``assumed`` the literal values
    ``{(position, unit): active}`` its rows depend on."""

    core: list
    assumed: dict


def compile_cluster(R: Rows, members: list, method: str, stats: dict, max_nodes: int) -> list[ClusterRefutation] | None:
    """Every activation pattern of a few samples, by a small exact case tree with backjumping.

    Returns the refutations found at its leaves (:class:`ClusterRefutation`). Every infeasible pattern of
    the samples contains one of them. Returns None past ``max_nodes`` nodes (the cluster stays lazy).
    """
    search = _ClusterSearch(R, members, method, stats, max_nodes)
    try:
        search.dfs(0, {}, [])
    except _TooBig:
        return None
    return search.out


class _TooBig(Exception):
    """Raised inside :class:`_ClusterSearch` past its node budget (never leaves this module)."""


class _ClusterSearch:
    """The case tree of :func:`compile_cluster`: the assignment so far, the refutations found, the nodes."""

    def __init__(self, R: Rows, members: list, method: str, stats: dict, max_nodes: int):
        self.R, self.method, self.stats, self.max_nodes = R, method, stats, max_nodes
        self.pos = {j: p for p, j in enumerate(members)}
        # samples with small supports first: their equations fix coordinates the larger ones then reuse
        self.order = [(j, i) for j in sorted(members, key=lambda j: (len(R.supp[j]), self.pos[j])) for i in R.rel]
        self.assign: dict = {}
        self.out: list[ClusterRefutation] = []
        self.nodes = 0

    def new_rows(self, j: int, i: int) -> list[ScaledRow]:
        R, assign = self.R, self.assign
        rows = [R.sign_row(j, i, assign[(j, i)])]
        for r in range(R.m):
            us = R.units(r)
            if i in us and all((j, u) in assign for u in us):
                rows.append(R.eq_row(j, r, tuple(assign[(j, u)] for u in us)))
            if R.mixed and i in us:  # a sign's units all decided: its half row (shorter lemmas, docs/hardness.md)
                for sign in (1, -1):
                    half = R.half_units(r, sign)
                    if i in half and all((j, u) in assign for u in half):
                        rows.append(R.half_row(j, r, sign, tuple(assign[(j, u)] for u in half)))
        return rows

    @staticmethod
    def holds(point: dict, rows: list[ScaledRow]) -> bool:
        for (_, coefs, rhs, is_eq), _ in rows:
            lhs = sum(a * point.get(key, 0) for key, a in coefs.items())
            if (lhs != rhs) if is_eq else (lhs > rhs):
                return False
        return True

    def refute(self, rows: list[ScaledRow]):
        """Decide the node's rows: a point, or None after recording the refutation (with the literals it uses)."""
        self.stats["lps"] += 1
        point, cores = decide_rows([sr.row for sr in rows], method=self.method, stats=self.stats)
        if point is not None:
            return point, None
        R, pos = self.R, self.pos
        scales = {sr.row.tag: sr.scale for sr in rows}
        core = min(cores, key=len)
        used = {key for key, _ in R.assumed(core, self.assign)}
        self.out.append(ClusterRefutation([((t[0], pos[t[1]], t[2]), y * scales[t]) for t, y in core],
                                          {(pos[j], i): self.assign[(j, i)] for j, i in used}))
        return None, used

    def dfs(self, depth: int, point, rows: list[ScaledRow]):
        """The literals the refutation of this subtree uses, or None when a leaf is feasible."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _TooBig
        if point is None:
            point, used = self.refute(rows)
            if point is None:
                return used
        if depth == len(self.order):
            return None
        j, i = self.order[depth]
        conflict: set | None = set()
        for a in (True, False):
            self.assign[(j, i)] = a
            add = self.new_rows(j, i)
            res = self.dfs(depth + 1, point if self.holds(point, add) else None, rows + add)
            del self.assign[(j, i)]
            if res is not None and (j, i) not in res:
                return res  # the sibling falls to the same refutation
            conflict = None if res is None or conflict is None else conflict | (res - {(j, i)})
        return conflict
