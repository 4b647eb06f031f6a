"""Exact equivalence on all of R^d of ReLU networks of any depth (docs/equivalence.md, "Networks of any depth").

:func:`deep_equivalence` runs, in order: the *reduced difference* of the two networks (neurons merged when they
compute the same function up to a positive factor, dead and always-active neurons folded, ``relu(-z)`` written
as ``relu(z) - z`` when ``relu(z)`` exists: :mod:`.forms`), which is zero for networks equal up to permutations,
positive scalings, split, duplicated, dead and pruned-never-active neurons; then a float search for an input
where the outputs differ, checked exactly; then the exact case-split search (:mod:`.search`) with its budget.
The float search for a witness goes first (it costs a few float evaluations and ends most different pairs).
The answer is one :class:`DeepAnswer` either way, or "unknown" with how far the search got.

>>> from exactrelu.network import Network
>>> a = Network.from_layers([([[1, -1], [2, 1]], [0, 1]), ([[1, 1]], [-1]), ([[3]], None)])
>>> b = Network.from_layers([([[4, 2], [3, -3]], [2, 0]), ([["1/2", "1/3"]], [-1]), ([[3]], None)])
>>> deep_equivalence(a, b).status
'equivalent'
>>> c = Network.from_layers([([[1, -1], [2, 1]], [0, 1]), ([[1, 1]], [-2]), ([[3]], None)])
>>> res = deep_equivalence(a, c)
>>> res.status, a.evaluate_exact([res.witness]) != c.evaluate_exact([res.witness])
('not-equivalent', True)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...deadline import Deadline
from ...errors import InvalidInput
from ...exact.matrix import QMatrix
from ...network import Network
from .forms import network_layers, reduced_difference
from .search import Search, Stats, _Found, _Spent, _Stuck

__all__ = ["DeepAnswer", "deep_equivalence", "read_box", "read_epsilon"]


@dataclass
class DeepAnswer:
    """``status``: "equivalent" (``tree``: the case tree of the certificate), "not-equivalent" (``witness``, the
    two exact outputs in ``values``) or "unknown" (the budget ran out; ``reason`` and ``stats`` say how far)."""

    status: str
    tree: list | None = None
    witness: list[Fraction] | None = None
    values: tuple | None = None
    reason: str | None = None
    stats: dict = field(default_factory=dict)
    lemmas: list | None = None


def _exact_values(net: Network, x: list[Fraction]) -> list[Fraction]:
    return net.evaluate_exact(QMatrix.from_fractions(list(x), 1, len(x))).to_fractions()[0]


def _gap(a: Network, b: Network, x: list[Fraction]) -> Fraction:
    """max over the outputs of |a(x) - b(x)|, exactly."""
    return max(abs(p - q) for p, q in zip(_exact_values(a, x), _exact_values(b, x)))


def _points(d: int, box, rng, per_scale: int) -> np.ndarray:
    """Float proposals: Gaussian points at scales 1 to 1000 on R^d; on a box, its centre, corners and uniform points."""
    if box is None:
        return np.vstack([np.zeros((1, d))] + [s * rng.standard_normal((per_scale, d)) for s in (1, 10, 100, 1000)])
    lo, hi = (np.array([float(v) for v in side]) for side in box)
    corners = np.where(rng.integers(0, 2, (per_scale, d)).astype(bool), hi, lo)
    return np.vstack([(lo + hi) / 2, corners, lo + (hi - lo) * rng.random((3 * per_scale, d))])


def sampled_witness(a: Network, b: Network, *, seed: int = 0, per_scale: int = 256, box=None,
                    slack: Fraction = Fraction(0), deadline: Deadline | None = None) -> list[Fraction] | None:
    """An input (in the box, if one is given) where the networks differ by more than ``slack`` in some output, found
    by floats and confirmed exactly, or None.

    Gaussian points at scales 1, 10, 100 and 1000 and the origin (on a box: its centre, random corners and uniform
    points, each clamped into the box exactly); the float outputs rank them, and the few largest differences are
    evaluated exactly (float64 points are dyadic rationals).
    """
    rng = np.random.default_rng(seed)
    pts = _points(a.d, box, rng, per_scale)
    with np.errstate(all="ignore"):
        gap = np.abs(a.predict(pts) - b.predict(pts)).max(axis=1)
        scale = 1 + np.abs(a.predict(pts)).max(axis=1)
    order = np.argsort(-np.nan_to_num(gap / scale if box is None else gap, nan=np.inf))[:8]
    for n, i in enumerate(order):
        checked(deadline, n, len(order))
        x = [Fraction(float(v)) for v in pts[i]]
        if box is not None:
            x = [min(max(v, lo), hi) for v, lo, hi in zip(x, *box)]
        if _gap(a, b, x) > slack:
            return x
    return None


def checked(deadline: Deadline | None, done: int, of: int) -> None:
    """TimeLimitExceeded when ``deadline`` has passed, saying how far the search for a witness got."""
    if deadline is not None:
        deadline.check(lambda: f"the search for a witness ({done} of {of} candidate points evaluated exactly)")


def independent_parts(red) -> list[list[tuple[dict, Fraction]]] | None:
    """The output forms split by the connected parts of the neurons they read (two neurons are connected when one
    reads the other), one form per output for each part; None when there is one part, or the outputs have an
    input or constant term."""
    d, parent = red.d, {}

    def find(u: int) -> int:
        while parent.setdefault(u, u) != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    todo = [v - d for f, k in red.outputs for v in f if v >= d]
    if any(k or min(f, default=d) < d for f, k in red.outputs) or not todo:
        return None
    seen: set = set()
    while todo:
        u = todo.pop()
        if u in seen:
            continue
        seen.add(u)
        for v in red.forms[u][0]:
            if v >= d:
                parent[find(v - d)] = find(u)
                todo.append(v - d)
    roots = sorted({find(v - d) for f, _ in red.outputs for v in f})
    if len(roots) < 2:
        return None
    return [[({v: a for v, a in f.items() if find(v - d) == root}, Fraction(0)) for f, _ in red.outputs]
            for root in roots]


def _form_json(form) -> dict:
    from ...exact.rationals import format_rational

    return {"terms": [[v, format_rational(a)] for v, a in sorted(form[0].items())],
            "constant": format_rational(form[1])}


def _lemmas(red, differ, parts, budget: dict, stats: Stats, box=None) -> tuple[list, list]:
    """Each part proved zero by its own tree (lemmas), and the main tree: one leaf summing them per output."""
    lemmas = []
    for part in parts:
        lemmas.append({"forms": [_form_json(f) for f in part],
                       "tree": Search(red, differ, targets=part, stats=stats, box=box, **budget).subtree()})
    m = len(red.outputs)
    leaf = {"equal": [{"lemma": [[t * m + r, "1"] for t in range(len(parts))]} for r in range(m)]}
    return lemmas, [leaf]


def _check_pair(a: Network, b: Network) -> None:
    if not isinstance(a, Network) or not isinstance(b, Network):
        raise InvalidInput("deep_equivalence compares two Network objects (exactrelu.io.weights.read_weights reads files)")
    if a.activation.degree != 1 or b.activation.degree != 1:
        raise InvalidInput("equivalence of networks deeper than two layers, on a box or within epsilon is decided "
                           f"for the ReLU only (got {a.activation} and {b.activation})")
    if a.d != b.d or a.m != b.m:
        raise InvalidInput(f"the networks map R^{a.d} -> R^{a.m} and R^{b.d} -> R^{b.m}: not comparable")


def read_box(lower, upper, d: int) -> tuple[list[Fraction], list[Fraction]] | None:
    """The box ``(lower, upper)`` as exact rationals (d each, lower <= upper), or None when both are None.

    >>> read_box(["0", "1/2"], [1, "0.75"], 2)
    ([Fraction(0, 1), Fraction(1, 2)], [Fraction(1, 1), Fraction(3, 4)])
    """
    from ...exact.rationals import to_fraction

    if lower is None and upper is None:
        return None
    if lower is None or upper is None:
        raise InvalidInput("a box needs both its lower and its upper bounds")
    box = [to_fraction(v) for v in lower], [to_fraction(v) for v in upper]
    if len(box[0]) != d or len(box[1]) != d:
        raise InvalidInput(f"the box has {len(box[0])} lower and {len(box[1])} upper bounds; the networks read "
                           f"{d} inputs")
    bad = [t for t, (lo, hi) in enumerate(zip(*box)) if lo > hi]
    if bad:
        raise InvalidInput(f"the box is empty: input {bad[0]} has lower bound {box[0][bad[0]]} above its upper "
                           f"bound {box[1][bad[0]]}")
    return box


def read_epsilon(epsilon) -> Fraction | None:
    """epsilon as an exact rational >= 0, or None.

    >>> read_epsilon("0.05")
    Fraction(1, 20)
    """
    from ...exact.rationals import to_fraction

    if epsilon is None:
        return None
    eps = to_fraction(epsilon)
    if eps < 0:
        raise InvalidInput(f"epsilon must be >= 0, got {eps}")
    return eps


def deep_equivalence(a: Network, b: Network, *, time_limit=None, max_nodes: int | None = None, progress=None,
                     seed: int = 0, lower=None, upper=None, epsilon=None, top1: bool = False,
                     workers: int | None = None) -> DeepAnswer:
    """Decide whether two ReLU networks (any depths) are the same function on all of R^d (or on a box, or within
    epsilon), exactly.

    Parameters
    ----------
    a, b : ReLU networks with the same d and m.
    time_limit : seconds (or a :class:`~exactrelu.deadline.Deadline`) for the case-split search.
    max_nodes : the most case-tree nodes to visit.
    progress : a callable taking one line of text (``LineProgress``), or None.
    seed : seed of the float search for a witness (the answer does not depend on it).
    lower, upper : the box (d rationals each, decimal strings read exactly); None for all of R^d.
    epsilon : prove max over the outputs of |a(x) - b(x)| <= epsilon instead of equality (None: equality).
    top1 : prove instead that at every x some class is a largest output of both networks (their argmax sets meet;
        without ties: the same argmax); a counterexample is a point where the argmax sets do not meet.
    workers : processes for the independent subtrees of a large case split (None: every idle core); the tree is the
        one of one process, whatever the number (:mod:`.pool`).

    Returns
    -------
    DeepAnswer
        "equivalent" with the case tree, "not-equivalent" with an exact witness (in the box; differing by more than
        epsilon), or "unknown" when the budget ran out.

    Examples
    --------
    >>> from exactrelu.network import Network
    >>> net = Network.from_layers([([[1], [-1]], None), ([[1, -1]], None), ([[1]], None)])
    >>> deep_equivalence(net, Network.from_layers([([[1], [-1]], None), ([[1, -1], [1, 1]], None),
    ...                                             ([[1, 0]], None)])).tree
    [{'equal': [{}]}]
    >>> half = Network.from_layers([([[1]], None), ([["1/2"]], None)])      # relu(x) / 2
    >>> deep_equivalence(net, half, lower=[0], upper=[1], epsilon="1/2").status
    'equivalent'
    >>> deep_equivalence(net, half, lower=[-1], upper=[1], top1=True).tree   # one output: top-1 equal at once
    [{'top1': {'net': 0, 'classes': [{'beats': []}]}}]
    """
    _check_pair(a, b)
    box, eps = read_box(lower, upper, a.d), read_epsilon(epsilon)
    workers = _workers(workers)
    if top1 and eps is not None:
        raise InvalidInput("ask for --epsilon or --top1, not both")
    if top1 and a.m == 1:  # one class: the largest output of both, everywhere
        return DeepAnswer("equivalent", [{"top1": {"net": 0, "classes": [{"beats": []}]}}], stats={"nodes": 0})
    budget = {"max_nodes": max_nodes, "deadline": Deadline.coerce(time_limit), "progress": progress,
              "workers": workers}
    return _decide(a, b, box, seed, budget, eps or Fraction(0), top1)


def _workers(workers) -> int:
    """The number of processes: every idle core when None (:func:`exactrelu.parallel.idle_cores`), else 1 to 256.

    >>> _workers(2)
    2
    """
    from ...parallel import idle_cores
    from ...validation import check_integer

    return idle_cores() if workers is None else check_integer(workers, "workers", minimum=1, maximum=256)


def _decide(a: Network, b: Network, box, seed: int, budget: dict, slack: Fraction, top1: bool) -> DeepAnswer:
    """Sampled witnesses (a few float evaluations: most different pairs end there), the reduced difference, then
    the case split (:func:`_searched`); the deadline is checked in each step ("unknown", with how far it got)."""
    from ...errors import TimeLimitExceeded
    from .top1 import top1_differ, top1_witness

    deadline, red, stats = budget["deadline"], None, {}
    try:
        x = (top1_witness(a, b, seed=seed, box=box, deadline=deadline) if top1 else
             sampled_witness(a, b, seed=seed, box=box, slack=slack, deadline=deadline))
        red = reduced_difference(a, b, deadline) if x is None else None
    except TimeLimitExceeded as exc:
        return DeepAnswer("unknown", reason=str(exc).replace("\n", " "), stats={"nodes": 0})
    if red is not None:
        stats = {"reduced_neurons": len(red.forms), "reduced_terms": red.terms}
        if all(not f and k == 0 for f, k in red.outputs):
            return DeepAnswer("equivalent", [{"equal": [{} for _ in red.outputs]}], stats={**stats, "nodes": 0})
        found = _searched(a, b, red, stats, budget, box, slack, differ=top1_differ(a, b) if top1 else None)
        if isinstance(found, DeepAnswer):
            return found
        x = found
    return DeepAnswer("not-equivalent", witness=x, values=(_exact_values(a, x), _exact_values(b, x)), stats=stats)


def _searched(a: Network, b: Network, red, stats: dict, budget: dict, box=None, slack=Fraction(0), differ=None):
    """The case-split search of a difference the sampled points did not show: its DeepAnswer ("equivalent", or
    "unknown" when the budget ran out), or the exact witness it found. With ``differ`` (the top-1 property's
    counterexample test) the search is :class:`.top1.Top1Search`."""
    from .pool import Differ, search_tree
    from .top1 import Top1Search

    top1 = differ is not None
    if not top1:
        def differ(p):
            return _gap(a, b, p) > slack

    budget = dict(budget)
    workers = budget.pop("workers", 1)
    extra = {} if top1 else {"slack": slack}

    def make(cls=Top1Search if top1 else Search, **over):
        return cls(red, differ, box=box, **extra, **{**budget, **over})

    search = make()
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(depth, 3 * len(red.forms) + 1000))  # two frames per decided neuron on a path
    try:
        parts = independent_parts(red) if not slack and not top1 else None  # lemmas prove parts exactly zero
        if parts is not None:
            try:
                lemmas, tree = _lemmas(red, differ, parts, budget, search.stats, box)
                return DeepAnswer("equivalent", tree, lemmas=lemmas,
                                  stats={**stats, **search.stats.to_json(), "lemmas": len(parts)})
            except _Stuck:  # the parts are not zero one by one: the whole difference in one tree
                pass
        tree = search_tree(search, make, workers, Differ(network_layers(a), network_layers(b), slack, top1))
    except _Found as found:
        x = found.x
    except _Spent as spent:
        return DeepAnswer("unknown", reason=str(spent), stats={**stats, **search.stats.to_json()})
    except _Stuck:  # top1 only (lemmas are caught above): ties that neither network's argmax regions prove
        if not top1:
            raise  # pragma: no cover (a bug: the difference's search always finds a witness where it is not zero)
        return DeepAnswer("unknown", reason="both networks tie between their largest outputs on one leaf of the case "
                          "tree, and neither network's argmax regions prove it there (a split by a hyperplane would)",
                          stats={**stats, **search.stats.to_json()})
    else:
        return DeepAnswer("equivalent", tree, stats={**stats, **search.stats.to_json()})
    finally:
        sys.setrecursionlimit(depth)
        progress = budget["progress"]
        if progress is not None and hasattr(progress, "close"):
            progress.close()
    stats.update(search.stats.to_json())
    return x
