"""The case-split search over the neuron phases of a reduced difference, and the tree it certifies.

A node is the set of neurons decided on its path (:mod:`exactrelu.certificates.trusted.phases` defines the
rows and the nodes). Substituting each decided neuron's output (``z_u`` if active, 0 if inactive) into the
output forms either leaves them zero (an ``equal`` leaf), or leaves undecided neurons in them (the *frontier*:
the deepest is decided next), or leaves forms in the inputs alone, whose bounds on the node's polyhedron are
proved by exact LPs (a ``bounds`` leaf) or fail at a point, where both networks are then evaluated exactly: a
difference there is a witness. Before a neuron is split, HiGHS screens its range: a sign it cannot leave on the
node is proved exactly and the neuron is *fixed* (one child); an empty node is a ``farkas`` leaf. Floats choose,
exact LPs prove, and the checker verifies the tree.

Search and certificate are kept apart: :meth:`Search.subtree` searches below any decisions (:mod:`.pool`: workers).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

from ...deadline import Deadline
from .bounds import box_farkas, box_proof, prove_at_most, prove_empty, screen, variables_of
from .forms import Form, add_to, is_zero, scaled
from .rows import CheckerRows

__all__ = ["Search", "Stats"]


class _Found(Exception):
    """A point where the two networks differ (exactly), found during the search."""

    def __init__(self, x: list[Fraction]):
        self.x = x
        super().__init__("witness found")


class _Spent(Exception):
    """The node or time budget ran out before the search finished."""


class _Stuck(Exception):
    """A target of a lemma search is not zero at a point where the two networks agree: the lemma is false."""


@dataclass
class Stats:
    nodes: int = 0
    leaves: int = 0
    splits: int = 0
    fixes: int = 0
    farkas: int = 0
    lps: int = 0
    relaxed: int = 0  # relaxed leaves: bounds over a whole subtree (:mod:`.relax`)
    closed: float = 0.0  # the share of the tree closed: each leaf 2^-(splits above it)
    deepest: int = 0
    worker_cpu: float = 0.0  # CPU seconds of the pool's workers (:mod:`.pool`)
    started: float = field(default_factory=time.monotonic)

    def to_json(self) -> dict:
        return {"nodes": self.nodes, "leaves": self.leaves, "splits": self.splits, "fixes": self.fixes,
                "farkas_leaves": self.farkas, "exact_lps": self.lps,
                "relaxed_leaves": self.relaxed, "closed_share": self.closed,
                "deepest_path": self.deepest, "seconds": time.monotonic() - self.started,
                "worker_cpu_seconds": self.worker_cpu}


class Search(CheckerRows):
    """Depth-first search over the phases of ``red``'s neurons (``red``: a reduced difference).

    ``differ(x)`` evaluates both networks exactly at x and returns True when they differ there.
    """

    relaxes = True  # on a box with an epsilon: a relaxed leaf tried at the root, below each split and at each new level

    def __init__(self, red, differ, *, max_nodes: int | None = None, deadline: Deadline | None = None,
                 progress=None, targets=None, stats: Stats | None = None, box=None, slack=Fraction(0)):
        self.red, self.d, self.differ = red, red.d, differ
        self.box, self.slack = box, slack  # box: (lower, upper) lists of Fractions, or None for R^d
        self.targets = red.outputs if targets is None else targets
        self.zero_targets = self.targets  # the forms an equal leaf proves zero
        self.max_nodes, self.deadline, self.progress = max_nodes, deadline, progress
        self.dec: dict[int, bool] = {}
        self.zmemo: dict = {}  # on a box: the substituted forms of the decided neurons, set and dropped by _decide
        self.prow: dict = {}  # ... and their phase rows
        self.stats = Stats() if stats is None else stats
        self.fresh = True  # the next node is the root or a child of a split
        self.at_level: dict = defaultdict(int)  # on a box: decided neurons per level
        self._shown = 0.0
        self.level = []
        self.reads = [[v - self.d for v in f if v >= self.d] for f, _ in red.forms]  # the neurons each form reads
        self.readers: list[list[int]] = [[] for _ in red.forms]
        for u, below in enumerate(self.reads):
            for v in below:
                self.readers[v].append(u)
        self.pending = [len(below) for below in self.reads]  # undecided reads (on a box: kept by _decided)
        self.ready = {u for u, n in enumerate(self.pending) if not n}
        self.read_by_targets = {v - self.d for f, _ in self.targets for v in f if v >= self.d}
        for f, _ in red.forms:  # 1 + the deepest neuron it reads
            self.level.append(1 + max((self.level[v - self.d] for v in f if v >= self.d), default=0))

    # -- forms under the path's decisions --------------------------------------------------------------
    def _z(self, u: int, memo: dict) -> Form:
        if u not in memo:
            memo[u] = self._subst(self.red.forms[u], memo)
        return memo[u]

    def _subst(self, form: Form, memo: dict) -> Form:
        """The form with every decided neuron's output replaced (z_u if active, 0 if inactive)."""
        acc: dict = {}
        const = form[1]
        for v, a in form[0].items():
            u = v - self.d
            if u < 0 or u not in self.dec:
                add_to(acc, {v: a}, Fraction(1))
            elif self.dec[u]:
                g, k = self._z(u, memo)
                add_to(acc, g, a)
                const += a * k
        return acc, const

    def _zero(self, outs, memo: dict) -> bool:
        """The substituted targets ``outs`` are zero on the node: an ``equal`` leaf over ``self.zero_targets``."""
        return all(is_zero(o) for o in outs)

    def _undecided(self, forms) -> set[int]:
        return {v - self.d for f, _ in forms for v in f if v >= self.d}

    def _rows(self, memo: dict, forms) -> list:
        """The node's rows, substituted: the decided neurons' phases, and the relaxation (y >= z, y >= 0) of every
        undecided neuron they or ``forms`` read, closed under the neurons those read."""
        rows = []
        for t in range(self.d if self.box is not None else 0):
            rows += [(("lower", t), self._original("lower", t)), (("upper", t), self._original("upper", t))]
        for u, active in self.dec.items():
            if u in self.prow:  # on a box: kept while u is decided
                rows.append(self.prow[u])
                continue
            z = self._z(u, memo)
            rows.append((("phase", u), scaled(z, Fraction(-1)) if active else z))
        todo = self._undecided([f for _, f in rows] + list(forms)) if self.box is None else set()  # box: bottom-up
        seen: set = set()
        while todo:
            u = todo.pop()
            if u in seen:
                continue
            seen.add(u)
            z = self._z(u, memo)
            rows.append((("relu", u), ({**z[0], self.d + u: Fraction(-1)}, z[1])))
            rows.append((("pos", u), ({self.d + u: Fraction(-1)}, Fraction(0))))
            todo |= self._undecided([z]) - seen
        return rows

    def _next_on_box(self) -> int | None:
        """On a box: the lowest undecided neuron whose reads are all decided (``self.ready``) and that the targets
        read through undecided and active neurons, or None when the targets read no undecided neuron (then the
        lowest such neuron is ready). Decided bottom-up, every decided neuron's form reads the inputs only: so does
        this one's, and its range on the box is an exact interval."""
        for u in sorted(self.ready, key=lambda v: (self.level[v], v)):
            todo, seen = [u], {u}
            while todo:  # up through the readers that pass u's value on, to a target
                w = todo.pop()
                if w in self.read_by_targets:
                    return u
                for r in self.readers[w]:
                    if r not in seen and self.dec.get(r) is not False:
                        seen.add(r)
                        todo.append(r)
        return None

    @property
    def relaxing(self) -> bool:
        """Relaxed leaves are tried (on a box with epsilon > 0): :mod:`.pool` then searches in one process."""
        return self.relaxes and self.box is not None and self.slack > 0

    def _new_level(self) -> bool:
        """On a box: the next neuron bottom-up is the first of its level on the path (a relaxed leaf is tried: the
        levels below are all decided, the relaxation is of the levels above only)."""
        u = self._next_on_box()
        return u is not None and not self.at_level[self.level[u]]

    def _decided(self, u: int, on: bool) -> None:
        """Keep ``self.ready`` (undecided neurons all of whose reads are decided) as u is decided (on) or undone, and
        the number of decided neurons of each level."""
        self.at_level[self.level[u]] += 1 if on else -1
        (self.ready.discard if on else self.ready.add)(u)
        for w in self.readers[u]:
            if on:
                self.pending[w] -= 1
                if not self.pending[w]:
                    self.ready.add(w)
            else:
                self.ready.discard(w)
                self.pending[w] += 1

    # -- the search ---------------------------------------------------------------------------------------
    def _tick(self) -> None:
        s = self.stats
        s.nodes += 1
        s.deepest = max(s.deepest, len(self.dec))
        if self.max_nodes is not None and s.nodes > self.max_nodes:
            raise _Spent(f"the node budget of {self.max_nodes:,} ran out")
        if self.deadline is not None and self.deadline.expired():
            raise _Spent(f"the time limit of {self.deadline.seconds:g} s passed")
        now = time.monotonic()
        if self.progress is not None and now - self._shown > 0.5:
            self._shown = now
            self.progress(f"equiv: {s.nodes:,} nodes, {s.leaves:,} leaves, {s.closed:.1%} of the tree closed, "
                          f"path of {len(self.dec)} phases")

    def _leaf(self, node: dict, splits: int) -> list:
        self.stats.leaves += 1
        self.stats.closed += 2.0 ** -splits
        return [node]

    def subtree(self, splits: int = 0) -> list:
        """The nodes (preorder) of a tree proving the outputs zero below the current decisions (``self.dec``).

        Raises :class:`_Found` with a witness, or :class:`_Spent` when the budget runs out (private signals of
        this wing, caught by :func:`exactrelu.equiv.deep.deep_equivalence`).
        """
        self._tick()
        fresh, self.fresh = self.fresh, False
        if self.relaxing and (fresh or self._new_level()):
            from .relax import relaxed_leaf

            done = relaxed_leaf(self, [self._subst(o, self.zmemo) for o in self.targets], splits)
            if done is not None:
                return done
        if self.box is not None:  # bottom-up: the outputs are substituted only once they read decided neurons only
            u = self._next_on_box()
            if u is not None:
                return self._branch(u, self._rows(self.zmemo, []), self.zmemo, splits)
        memo: dict = {} if self.box is None else self.zmemo  # on a box decided neurons keep their forms
        outs = [self._subst(o, memo) for o in self.targets]
        if self._zero(outs, memo):
            return self._leaf({"equal": [self.combination({}, o) for o in self.zero_targets]}, splits)
        rows = self._rows(memo, outs)
        frontier = self._undecided(outs)
        if not frontier:
            done = self._bounds_leaf(rows, outs, splits)
            if done is not None:
                return done
            frontier = self._undecided([f for _, f in rows])
            if not frontier:  # the targets are not zero where the networks agree: not a lemma that holds
                raise _Stuck("a lemma's target is not zero on a node where every neuron is decided")
        return self._branch(max(frontier, key=lambda v: (self.level[v], -v)), rows, memo, splits)

    def _branch(self, u: int, rows, memo: dict, splits: int) -> list:
        """Decide neuron u on the node: fixed when a proof keeps it on one side, else split."""
        z = self._z(u, memo) if self.box is None else self._subst(self.red.forms[u], memo)  # cached once decided
        for active in (False, True):
            quick = self.interval(scaled(z, Fraction(-1)) if active else z)
            if quick is not None:
                return self._fixed(u, active, quick, splits)
        found: dict = {}
        span = screen(rows, z, found)
        if span is None:
            empty = self._empty(rows, splits)
            if empty is not None:
                return empty
            span = (-float("inf"), float("inf"))
        for active, ok in ((False, span[1] <= 0), (True, span[0] >= 0)):
            if ok:
                target = scaled(z, Fraction(-1)) if active else z
                proof = self._from_duals(rows, target, found.get("min" if active else "max"))
                if proof is None and self.box is None:  # on a box, splitting is cheaper than an exact LP
                    self.stats.lps += 1
                    proof = self._exact(prove_at_most, rows, target)
                if isinstance(proof, dict):
                    return self._fixed(u, active, proof, splits)
        self.stats.splits += 1
        return [{"split": u}] + self._child(u, True, splits + 1) + self._child(u, False, splits + 1)

    def _child(self, u: int, active: bool, splits: int) -> list:
        self.fresh = True
        return self._decide(u, active, splits)

    def check_time(self) -> None:
        """Raise :class:`_Spent` when the time limit has passed."""
        if self.deadline is not None and self.deadline.expired():
            raise _Spent(f"the time limit of {self.deadline.seconds:g} s passed")

    def _exact(self, lp, *rows_and_target):
        """An exact LP of :mod:`.bounds` within the search's time limit (its exact simplex checks it per pivot)."""
        from ...errors import TimeLimitExceeded
        try:
            return lp(*rows_and_target, deadline=self.deadline)
        except TimeLimitExceeded:
            raise _Spent(f"the time limit of {self.deadline.seconds:g} s passed") from None

    def _fixed(self, u: int, active: bool, proof: dict, splits: int) -> list:
        target = scaled(self.red.forms[u], Fraction(-1)) if active else self.red.forms[u]
        self.stats.fixes += 1
        return [{"fix": [u, active], "bound": self.combination(proof, target)}] + self._decide(u, active, splits)

    def _decide(self, u: int, active: bool, splits: int) -> list:
        self.push(u, active)
        try:
            return self.subtree(splits)
        finally:
            del self.dec[u]
            if self.box is not None:
                self.zmemo.pop(u)
                self.prow.pop(u)
                self._decided(u, False)

    def push(self, u: int, active: bool) -> None:
        """Decide neuron u (a path's decisions are pushed in order: :mod:`.pool` replays a path this way)."""
        if self.box is not None:  # its reads are decided (bottom-up) and stay so while it is: its form holds below
            z = self.zmemo[u] = self._subst(self.red.forms[u], self.zmemo)
            self.prow[u] = (("phase", u), scaled(z, Fraction(-1)) if active else z)
            self._decided(u, True)
        self.dec[u] = active

    def _empty(self, rows, splits: int) -> list | None:
        self.stats.lps += 1
        proof = box_farkas(rows, self.d, self.box) if self.box is not None else None  # floats first on a box
        proof = self._exact(prove_empty, rows) if proof is None else proof
        if not isinstance(proof, dict):
            return None
        self.stats.farkas += 1
        return self._leaf({"farkas": self.combination(proof, None)}, splits)

    def _from_duals(self, rows, target: Form, solved) -> dict | None:
        """On a box: exact multipliers proving ``target <= 0``, made from HiGHS's duals (:func:`.bounds.box_proof`)."""
        if self.box is None or solved is None or any(v >= self.d for v in target[0]):
            return None
        return box_proof(rows, target, solved[0], self.d, self.box)

    def _bounds_leaf(self, rows, outs, splits: int) -> list | None:
        """Outputs that read the inputs only: prove each zero (within the slack) on the node, or find where it is
        not. On a box the floats go first: HiGHS's duals are made exact proofs, its maximizers tried as witnesses;
        only what they leave open goes to exact LPs."""
        empty = self._empty(rows, splits) if self.box is None else None
        if empty is not None:
            return empty
        proofs = []
        for o, orig in zip(outs, self.targets):
            pair = []
            for sign in (Fraction(1), Fraction(-1)):
                form = scaled(o, sign)
                form = (form[0], form[1] - self.slack)  # |O| <= slack (0: O = 0) on the node
                proof = {} if is_zero(o) else self.interval(form)
                if proof is None and self.box is not None:
                    proof = self._float_first(rows, form, splits)
                    if isinstance(proof, list):
                        return proof  # the node is empty: a Farkas leaf
                if proof is None:
                    self.stats.lps += 1
                    proof = self._exact(prove_at_most, rows, form)
                if not isinstance(proof, dict):
                    self._try_witness(rows, proof, form)
                    return None
                pair.append(self.combination(proof, scaled(orig, sign)))
            proofs.append(pair)
        return self._leaf({"bounds": proofs}, splits)

    def _float_first(self, rows, form: Form, splits: int):
        """On a box: a proof of ``form <= 0`` from HiGHS's duals, a Farkas leaf if the node is empty, or None; raises
        :class:`_Found` when HiGHS's maximizer, made exact and put into the box, is a witness."""
        found: dict = {}
        span = screen(rows, form, found)
        if span is None:
            return self._empty(rows, splits)
        if "max" not in found:
            return None
        if span[1] <= 0:
            return self._from_duals(rows, form, found["max"])
        point = found["max"][1]
        x = [min(max(Fraction(float(point.get(t, 0))), lo), hi) for t, lo, hi in zip(range(self.d), *self.box)]
        if self.differ(x):
            raise _Found(x)
        return None

    def _try_witness(self, rows, found, form: Form) -> None:
        """The inputs of a point (or far along a ray) of the node where ``form`` > 0: a witness if the networks
        differ there (evaluated exactly); otherwise the relaxation was loose and the search splits on."""
        kind, vec = found
        names = variables_of(rows, form)
        if kind == "ray":
            base = self._exact(prove_empty, rows)[1]  # the node is not empty (checked before)
            point = dict(zip(variables_of(rows), base))
            ray = dict(zip(names, vec))
            value = form[1] + sum(a * point.get(v, 0) for v, a in form[0].items())
            step = max(Fraction(1), 1 - value)
            point = {v: point.get(v, 0) + step * ray.get(v, 0) for v in set(point) | set(ray)}
        else:
            point = dict(zip(names, vec))
        x = [point.get(t, Fraction(0)) for t in range(self.d)]
        if self.differ(x):
            raise _Found(x)
