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

from .rows import Rows, decide_rows

__all__ = ["Cluster", "clusters", "singletons", "compile_cluster", "CLUSTER_SUPPORT", "CLUSTER_SAMPLES"]

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


def compile_cluster(R: Rows, members: list, method: str, stats: dict, max_nodes: int):
    """Every activation pattern of a few samples, by a small exact case tree with backjumping.

    Returns the refutations found at its leaves, each ``(core, assumed)`` by member position:
    ``core`` a list of ``((kind, position, index), y)`` on original rows, ``assumed`` the literal
    values ``{(position, unit): active}`` its rows depend on. Every infeasible pattern of the
    samples contains one of them. Returns None past ``max_nodes`` nodes (the cluster stays lazy).
    """
    pos = {j: p for p, j in enumerate(members)}
    # samples with small supports first: their equations fix coordinates the larger ones then reuse
    order = [(j, i) for j in sorted(members, key=lambda j: (len(R.supp[j]), pos[j])) for i in R.rel]
    assign: dict = {}
    out: list = []
    nodes = [0]

    def new_rows(j, i):
        rows = [R.sign_row(j, i, assign[(j, i)])]
        for r in range(R.m):
            us = R.units(r)
            if i in us and all((j, u) in assign for u in us):
                rows.append(R.eq_row(j, r, tuple(assign[(j, u)] for u in us)))
        return rows

    def holds(point, rows):
        for (_, coefs, rhs, is_eq), _ in rows:
            lhs = sum(a * point.get(key, 0) for key, a in coefs.items())
            if (lhs != rhs) if is_eq else (lhs > rhs):
                return False
        return True

    def dfs(depth, point, rows):
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise _TooBig
        if point is None:
            stats["lps"] += 1
            point, cores = decide_rows([row for row, _ in rows], method=method)
            if point is None:
                scales = {row[0]: sc for row, sc in rows}
                core = min(cores, key=len)
                used = {(t[1], t[2]) if t[0] == "sign" else None for t, _ in core} - {None}
                used |= {(t[1], u) for t, _ in core if t[0] == "eq" for u in R.units(t[2])}
                out.append(([((t[0], pos[t[1]], t[2]), y * scales[t]) for t, y in core],
                            {(pos[j], i): assign[(j, i)] for j, i in used}))
                return used
        if depth == len(order):
            return None
        j, i = order[depth]
        conflict: set | None = set()
        for a in (True, False):
            assign[(j, i)] = a
            add = new_rows(j, i)
            res = dfs(depth + 1, point if holds(point, add) else None, rows + add)
            del assign[(j, i)]
            if res is not None and (j, i) not in res:
                return res  # the sibling falls to the same refutation
            conflict = None if res is None or conflict is None else conflict | (res - {(j, i)})
        return conflict

    try:
        dfs(0, {}, [])
    except _TooBig:
        return None
    return out


class _TooBig(Exception):
    pass
