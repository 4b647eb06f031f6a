"""The lemma clauses of the lazy engine, where each comes from, and the certificate case they make.

Every clause handed to the SAT solver is the negation of a lemma: a plain lemma (its own Farkas
vector, found during the search) or an instance of a *template* (a lemma of a cluster shape,
proved once on the shape's data and instantiated on every cluster of that shape), or a symmetry
clause. After a trimmed refutation (:mod:`exactrelu.decide.search.sat.proof`), :meth:`LemmaStore.case`
keeps only what the refutation uses and numbers the clauses as the checker does: plain lemmas,
then for each template each instance's clauses (its lemmas in order), then the symmetry clauses.

>>> from fractions import Fraction
>>> from exactrelu.decide.search.rows import Rows
>>> R = Rows([[Fraction(1)]], [[Fraction(-1)]], [[Fraction(1)]])
>>> store = LemmaStore(R)
>>> store.plain([(("eq", 0, 0), Fraction(1)), (("sign", 0, 0), Fraction(1))], {("eq", 0, 0): 1, ("sign", 0, 0): 1},
...             {(0, 0): True})
[-1]
"""

from __future__ import annotations

from ...exact.rationals import format_rational
from .sat.proof import Core, numbered

__all__ = ["LemmaStore"]


class LemmaStore:
    """The solver's clause list (no duplicates), each clause with its origin."""

    def __init__(self, R):
        self.R = R
        self.clauses: list[list[int]] = []
        self.origin: list[tuple] = []  # ("plain", lemma) | ("template", shape, instance, lemma) | ("symmetry", t)
        self.seen: dict = {}
        self.lemmas: list[tuple] = []  # plain lemmas, in order: (assumed literals, [(tag, multiplier)])
        self.templates: dict = {}  # shape -> {"lemmas": [...], "instances": [[members, coords], ...], "at": {...}}
        self.symmetry: dict | None = None
        self.symmetry_clauses: list = []

    def _clause(self, assumed, origin):
        lit = self.R.lit
        clause = sorted(-lit(j, i) if a else lit(j, i) for (j, i), a in assumed)
        key = tuple(clause)
        if key in self.seen:
            return None
        self.seen[key] = len(self.clauses)
        self.clauses.append(clause)
        self.origin.append(origin)
        return clause

    def plain(self, core, scales, active):
        """A lemma from a refuted system (``core`` on integer rows with their ``scales``): its new clause, or None."""
        assume = self.R.assumed(core, active)
        origin = ("plain", len(self.lemmas))
        clause = self._clause(assume, origin)
        if clause is not None:  # the multipliers are written out only if the certificate keeps the lemma
            self.lemmas.append((assume, [(tag, y * scales[tag]) for tag, y in core]))
        return clause

    def instance(self, shape, refutations, members, coords):
        """The clauses of one cluster of ``shape``, whose compiled ``refutations`` are by member position."""
        tpl = self.templates.get(shape)
        if tpl is None:
            k = self.R.k
            # literal of (p, i, active) at members: -+(members[p] * k + i + 1), as (p, i + 1, sign)
            tpl = self.templates[shape] = {"lemmas": [_local_lemma(core, assumed) for core, assumed in refutations],
                                           "instances": [],
                                           "pattern": [[(p, i + 1, -1 if a else 1) for (p, i), a in assumed.items()]
                                                       for _, assumed in refutations]}
        number = len(tpl["instances"])
        tpl["instances"].append([list(members), list(coords)])
        k, seen = self.R.k, self.seen
        for t, pattern in enumerate(tpl["pattern"]):
            clause = sorted([s * (members[p] * k + i) for p, i, s in pattern])
            key = tuple(clause)
            if key not in seen:
                seen[key] = len(self.clauses)
                self.clauses.append(clause)
                self.origin.append(("template", shape, number, t))

    def add_symmetry(self, sym, clauses):
        self.symmetry = sym
        self.symmetry_clauses = clauses
        for t, c in enumerate(clauses):
            key = tuple(sorted(c))
            if key not in self.seen:
                self.seen[key] = len(self.clauses)
                self.clauses.append(list(c))
                self.origin.append(("symmetry", t))

    def case(self, core: Core, *, deletions: bool = False) -> dict:
        """The certificate case (without ``U``) for a refutation of :attr:`clauses`: used lemmas only."""
        used = [self.origin[p] for p in core.inputs]
        at = {o: p for p, o in enumerate(self.origin)}
        ids: dict = {}
        plain = sorted(o[1] for o in used if o[0] == "plain")
        for number, t in enumerate(plain, 1):
            ids[at[("plain", t)]] = number
        nxt = len(plain) + 1
        templates = []
        for shape, tpl in self.templates.items():
            lem = sorted({o[3] for o in used if o[0] == "template" and o[1] == shape})
            inst = sorted({o[2] for o in used if o[0] == "template" and o[1] == shape})
            if not lem:
                continue
            templates.append({"lemmas": [tpl["lemmas"][t] for t in lem],
                              "instances": [tpl["instances"][i] for i in inst]})
            for i in inst:
                for t in lem:
                    p = at.get(("template", shape, i, t))
                    if p is not None:
                        ids[p] = nxt
                    nxt += 1
        out = {"lemmas": [_plain_lemma(*self.lemmas[t]) for t in plain]}
        if templates:
            out["templates"] = templates
        if any(o[0] == "symmetry" for o in used):
            out["symmetry"] = self.symmetry
            for t in range(len(self.symmetry_clauses)):
                p = at.get(("symmetry", t))
                if p is not None:
                    ids[p] = nxt
                nxt += 1
        # a clause the solver got once may stand for a duplicate elsewhere: hints name the copy kept
        for p in core.inputs:
            if p not in ids:  # pragma: no cover - every used origin was numbered above
                raise AssertionError(f"input clause {p} was not numbered")
        out["lrat"] = numbered(core, ids, nxt, deletions=deletions)
        return out


def _plain_lemma(assume, farkas) -> dict:
    """A plain lemma as the certificate states it: its literals and its Farkas rows on the original rows."""
    return {"assume": [[j, i, a] for (j, i), a in assume],
            "tree": [{"farkas": [[kind, j, x, format_rational(y)] for (kind, j, x), y in farkas]}]}


def _local_lemma(core, assumed) -> dict:
    """A compiled refutation, by member position: the template lemma the checker proves on the shape's data."""
    return {"assume": [[p, i, a] for (p, i), a in sorted(assumed.items())],
            "tree": [{"farkas": [[kind, p, x, format_rational(y)] for (kind, p, x), y in core]}]}
