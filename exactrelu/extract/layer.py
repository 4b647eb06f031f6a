"""The first layer of a deep network from kinks on lines (docs/extraction.md, "Two hidden layers", steps 1-2).

A first-layer neuron's kinks lie on one hyperplane of its input space, met by almost every line; a deeper neuron's
lie on a bent hyperplane, whose flat pieces are met only by the lines that cross them. :func:`first_layer` counts
the hyperplanes met on random lines, :func:`layer_choices` reads first layers from the most frequent ones (choosing
again when a hyperplane fails the sign test of :func:`orient`), and :func:`orient` finds each neuron's active side.

>>> from fractions import Fraction
>>> moving, still, q = ([[1]], 1), ([[0]], 1), [Fraction(1)]       # f moves right of x = 0 only
>>> orient([(1, 0)], [([Fraction(0)], still, moving, q)])[:2]
([[Fraction(1, 1)]], [Fraction(0, 1)])
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import flint
import numpy as np

from ..errors import AssumptionViolated
from .line_search import kinks, random_line
from .oracles import Oracle
from .regions import region_jacobians

__all__ = ["first_layer", "layer_choices", "orient", "right_inverse", "frequent"]


def _independent(rows: list) -> bool:
    M = flint.fmpz_mat([list(r) for r in rows])
    return M.rank() == len(rows)


def first_layer(oracle: Oracle, rng: np.random.Generator, lines: int, progress=None):
    """(the candidate hyperplanes (v, b) of the first layer as primitive integer tuples, counts, the kinks seen):
    the hyperplanes met on at least two of ``lines`` random lines, most often first (ties in the order of the
    tuples). A line on which the search fails (a kink missed between two equal pieces shows as probes that leave
    their region; two kinks too close) is replaced by another, up to ``lines`` times: the lines only propose
    hyperplanes, the fresh queries decide. Each kink is (x, left Jacobian, right Jacobian, q)."""
    counts: Counter = Counter()
    seen, drawn, done = [], 0, 0
    while done < lines:
        drawn += 1
        line = random_line(oracle.d, rng)
        try:
            found, J = kinks(oracle, line), []
            form = region_jacobians(oracle, line, found, jacobians=J)
        except AssumptionViolated as exc:
            if not exc.evidence.get("line_specific") or drawn >= 2 * lines:
                raise
            continue
        done += 1
        counts.update(p for p, _ in form.hyperplanes)
        seen += [(line.at(kink.t), J[j], J[j + 1], line.q) for j, kink in enumerate(found)]
        if progress:
            progress(f"extract: line {done} of {lines}: {len(found)} kinks, {oracle.queries} queries")
    return frequent(counts), dict(counts), seen


def frequent(counts) -> list:
    """The hyperplanes met on at least two lines, most often first (ties in the order of the tuples)."""
    return [p for p, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n >= 2]


def _greedy(candidates: list, excluded: frozenset, size: int) -> list | None:
    """The first ``size`` candidates (in order, none excluded) with independent normals, or None."""
    planes: list = []
    for i, p in enumerate(candidates):
        if i not in excluded and _independent([q[:-1] for q in planes] + [p[:-1]]):
            planes.append(p)
            if len(planes) == size:
                return planes
    return None


def layer_choices(candidates: list, seen: list, lines: int, width: int | None = None, tries: int = 24,
                  refusals: list | None = None):
    """Oriented first layers ``(planes, (N, c, R))`` read from the candidates (module docstring, steps 1-2).

    The first is the greedy choice: the most frequent candidates with independent normals, as many as the rank of
    all candidate normals (``width`` if given; a second-layer piece's normal is a combination of first-layer ones, so
    the first layer spans them all). When :func:`orient` finds hyperplanes of it that are no first-layer neuron (a
    second-layer piece met on many lines, or a first-layer neuron judged against a set that misses another), the
    choice is made again without each of them in turn, then without each of the others (a second-layer piece can
    pass the test when the first-layer neuron it displaced is off around it; breadth first, at most ``tries`` choices
    oriented): the frequencies only propose, the fresh queries decide. Raises the first choice's refusal when no choice
    orients; ``refusals`` (a list) receives each choice's refusal by :func:`orient`."""
    rank = flint.fmpz_mat([list(p[:-1]) for p in candidates]).rank() if candidates else 0
    if rank == 0 or (width is not None and rank < width):
        raise AssumptionViolated(f"{rank} hyperplanes with independent normals met on at least 2 of {lines} lines"
                                 + (f", fewer than the {width} first-layer neurons asked for" if width else
                                    ": no first layer seen") + " (a first-layer neuron whose effect is rarely seen, or "
                                 "first-layer neurons more than the input dimension)")
    size, queue, visited, first, yielded = width or rank, [frozenset()], set(), None, False
    while queue and tries > 0:
        excluded = queue.pop(0)
        planes = _greedy(candidates, excluded, size)
        if planes is None or tuple(planes) in visited:
            continue
        visited.add(tuple(planes))
        tries -= 1
        try:
            oriented = orient(planes, seen)
        except AssumptionViolated as exc:
            first = first or exc
            if refusals is not None:
                refusals.append((len(visited), exc))
            failing = exc.evidence["failing"]
            order = failing + [i for i in range(len(planes)) if i not in failing]
            queue += [excluded | {candidates.index(planes[i])} for i in order]
            continue
        yielded = True
        yield planes, oriented
    if not yielded:
        raise first


def right_inverse(N: list[list[Fraction]]) -> list[list[Fraction]]:
    """R with N R = I (N: k x d of rank k), as N^T (N N^T)^-1, exactly."""
    M = flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in row] for row in N])
    R = M.transpose() * (M * M.transpose()).inv()
    return [[Fraction(int(v.p), int(v.q)) for v in row] for row in R.tolist()]


def _rows(planes) -> tuple[list[list[Fraction]], list[Fraction]]:
    """Each hyperplane (v, b) scaled so that max |v_l| = 1: rows N and offsets c."""
    N, c = [], []
    for p in planes:
        s = max(abs(v) for v in p[:-1])
        N.append([Fraction(v, s) for v in p[:-1]])
        c.append(Fraction(p[-1], s))
    return N, c


def _moves(J, u) -> bool:
    """Whether the Jacobian (rows, den) has a non-zero derivative along u."""
    return any(sum(a * v for a, v in zip(row, u) if a) for row in J[0])


def _wider_than_input(candidates, counts: dict, lines: int, d: int) -> str:
    """What the lines saw when the first layer cannot be oriented, if it points to k1 > d: more distinct hyperplanes
    met often than the input has dimensions (a first layer wider than its input, which this route does not handle:
    it moves one first-layer neuron at a time through a right inverse of W1); "" otherwise."""
    often = sum(1 for n in counts.values() if n >= max(2, lines // 4))
    if often <= d or flint.fmpz_mat([list(p[:-1]) for p in candidates]).rank() < d:
        return ""
    return (f"; also seen: {often} distinct hyperplanes each met on at least {max(2, lines // 4)} of {lines} lines, "
            f"more than the input dimension d = {d}: a first layer wider than its input (k1 > d) shows this way")


def _side(i: int, p, u, seen) -> int:
    """+1 or -1: the side of hyperplane ``p`` where neuron i is active, by every kink on it (:func:`orient`)."""
    votes = set()
    for x, left, right, q in seen:
        if sum(a * v for a, v in zip(p, x)) + p[-1]:
            continue
        ahead = 1 if sum(a * v for a, v in zip(p, q)) > 0 else -1  # the side of the right region
        moved = (_moves(left, u), _moves(right, u))
        if moved == (True, True) or moved == (False, False):
            raise AssumptionViolated(f"hyperplane {i} of the first layer is not a first-layer ReLU neuron: f "
                                     f"{'changes' if moved[0] else 'does not change'} with it on both sides of a "
                                     "kink (a unit that is not a ReLU, such as a leaky one, an oracle deeper than "
                                     "asked, or the first layer misread)")
        votes.add(ahead if moved[1] else -ahead)
    if len(votes) != 1:
        raise AssumptionViolated(f"first-layer neuron {i} is active on one side at one kink and on the other at "
                                 "another: the first layer read from the lines is not one (a first-layer neuron "
                                 "met on too few lines, and a second-layer piece taken in its place; or an oracle "
                                 "deeper than asked)")
    return votes.pop()


def orient(planes, seen):
    """(N, c, R) with every first-layer neuron active where ``N_i x + c_i > 0`` (module docstring, step 2): at each
    kink on hyperplane i, f does not change along ``u_i`` (column i of R: N u_i = e_i, only z_i moves) in the region
    on the inactive side, and does in the region on the other side (the Jacobian jumps by beta v_i there). Every
    hyperplane is judged; the refusal is the first one's, its evidence ``failing`` lists them all."""
    N, c = _rows(planes)
    R = right_inverse(N)
    signs, failing, first = [], [], None
    for i, p in enumerate(planes):
        try:
            signs.append(_side(i, p, [row[i] for row in R], seen))
        except AssumptionViolated as exc:
            failing.append(i)
            first = first or exc
    if first is not None:
        raise AssumptionViolated(str(first), evidence={"failing": failing})
    N = [[s * v for v in row] for s, row in zip(signs, N)]
    c = [s * v for s, v in zip(signs, c)]
    R = [[s * v for s, v in zip(signs, row)] for row in R]
    return N, c, R
