"""Certificates of the corpus that the library no longer writes: old DRUP certificates, and the forgery of issue 26.

Used by make_corpus.py only (untrusted helpers: python-sat for the solver's DRUP proof, the library's exact rows
for valid Farkas lemmas).
"""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction

from pysat.solvers import Solver

from exactrelu.certificates.claims.refutation import cases_certificate
from exactrelu.certificates.trusted.refutation import case_clauses, read_claim
from exactrelu.decide.search.rows import Rows, decide_rows
from exactrelu.instances.checker_view import checker_instance


def solver_drup(clauses) -> list:
    """CaDiCaL's whole DRUP proof of unsatisfiable clauses, in the certificate's old ``"rup"`` format."""
    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
        assert not s.solve()
        lines = s.get_proof()
    out = [(["d", *map(int, ln.split()[1:-1])] if ln.startswith("d") else list(map(int, ln.split()[:-1]))) for ln in lines]
    return out if out and out[-1] == [] else out + [[]]


def old_drup_certificate(cert: dict, inst) -> dict:
    """``cert`` as the checker before issue 26 accepted it: each hinted case with the solver's DRUP proof instead."""
    X, Y, d, k, _, _, Us = read_claim(cert, checker_instance(inst))
    old = copy.deepcopy(cert)
    for case, U in zip(old["cases"], Us):
        if "lrat" in case:
            clauses, _ = case_clauses(case, U, X, Y, k, d)
            case["rup"] = solver_drup(clauses)
            del case["lrat"]
    return old


def valid_lemmas(inst, U, size: int = 2) -> list[dict]:
    """Every Farkas lemma over at most ``size`` samples of ``inst`` (each pattern of their units refuted exactly)."""
    X, Y = inst.inputs.to_fractions(), inst.labels.to_fractions()
    R = Rows(X, Y, [[Fraction(u) for u in row] for row in U])
    lemmas, seen = [], set()
    for samples in itertools.chain.from_iterable(itertools.combinations(range(R.n), s) for s in range(1, size + 1)):
        pairs = [(j, i) for j in samples for i in R.rel]
        for bits in itertools.product((True, False), repeat=len(pairs)):
            active = dict(zip(pairs, bits))
            rows, scales = R.rows(samples, active)
            point, cores = decide_rows(rows)
            if point is not None:
                continue
            assume, farkas = R.lemma(cores[0], scales, active)
            key = tuple(assume)
            if key not in seen:
                seen.add(key)
                lemmas.append({"assume": [[j, i, a] for (j, i), a in assume], "tree": [{"farkas": farkas}]})
    return lemmas


def forged_drup_certificate(tiny) -> dict:
    """Issue 26: valid lemmas of a *realizable* instance (U = [[1, 1]]) and DRUP steps made of tautologies, supersets
    of lemma clauses and the unit [7]. Two statement-deletion mutants of the old DRUP replay accepted such a
    certificate; a sound replay refuses it ([7] does not follow), and the checker now refuses DRUP outright."""
    lemmas = valid_lemmas(tiny, [[1, 1]])
    k = 2
    clauses = [[-(j * k + i + 1) if a else j * k + i + 1 for j, i, a in lem["assume"]] for lem in lemmas]
    steps = []
    for t, c in enumerate(clauses[:8]):
        v = t % (tiny.n * k) + 1
        steps.append([v, -v, *c[:1]])  # a tautology
        steps.append(sorted(set(c) | {((t * 3) % (tiny.n * k)) + 1}))  # a superset of a lemma clause
    steps += [[7], []]
    return cases_certificate(tiny, k, True, [{"U": [["1", "1"]], "lemmas": lemmas, "rup": steps}])
