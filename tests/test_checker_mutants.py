"""Tests written to kill mutants of the trusted checker that the other tests let through
(issue 15, finding 5; benchmarks/mutate_checker.py finds them). Each builds a *false* certificate
that only a correct checker rejects: wrong only at the last sample, output or unit, or a
refutation that leans on an unsound symmetry."""

from __future__ import annotations

import copy
import itertools

import pytest
from pysat.solvers import Solver

from exactrelu.certificates import checker
from exactrelu.certificates.envelope import checker_instance, instance_sha256, realizes_certificate
from exactrelu.certificates.trusted.rup import _check_rup
from exactrelu.exact.lp import feasible
from exactrelu.exact.matrix import QMatrix
from exactrelu.exact.rationals import format_rational
from exactrelu.instances import Instance, planted
from exactrelu.network import Network


def _check(cert, inst):
    return checker.check(cert, checker_instance(inst))


@pytest.mark.parametrize("where", ["first", "last"])
def test_a_realizes_certificate_wrong_at_one_end_is_rejected(where):
    """Every sample, output and unit is checked: changing only the first or only the last label entry
    (the hash recomputed) must fail. Kills range(n - 1), range(m - 1), range(k - 1) and the like."""
    inst = planted(d=3, k=3, m=3, n=25, seed=5)
    Y = inst.labels.to_fractions()
    j, r = (0, 0) if where == "first" else (len(Y) - 1, len(Y[0]) - 1)
    Y[j][r] += 1
    bad = Instance(inst.inputs, QMatrix.from_rows(Y))
    cert = realizes_certificate(bad, inst.planted)
    with pytest.raises(checker.CheckFailed, match=f"sample {j}, output {r}"):
        _check(cert, bad)
    # and a change in the last unit only
    V = inst.planted.V.to_fractions()
    V[-1][-1] += 1
    cert = realizes_certificate(inst, Network.from_rows(inst.planted.U.to_fractions(), V))
    with pytest.raises(checker.CheckFailed):
        _check(cert, inst)


# -- symmetry classes: relu(x) + relu(-x) is realisable, so no refutation of it may pass ----------------

X = [[1], [-1]]
Y = [[1], [1]]
U = [[1, 1]]
K = 2


def _lemma(pattern):
    """An assumed full activation pattern of the two samples and its Farkas refutation (or None if feasible)."""
    eq_rows, eq_rhs, ub_rows, labels = [], [], [], []
    for j, x in enumerate(X):
        eq_rows.append([U[0][i] * x[0] if pattern[(j, i)] else 0 for i in range(K)])
        eq_rhs.append(Y[j][0])
        labels.append(("eq", j, 0))
    for (j, i), active in pattern.items():
        row = [0] * K
        row[i] = -X[j][0] if active else X[j][0]
        ub_rows.append(row)
        labels.append(("sign", j, i))
    res = feasible(A_eq=eq_rows, b_eq=eq_rhs, A_ub=ub_rows, b_ub=[0] * len(ub_rows))
    if res.status == "feasible":
        return None
    ys = list(res.farkas[0]) + list(res.farkas[1])
    rows = [[kind, j, idx, format_rational(y)] for (kind, j, idx), y in zip(labels, ys) if y]
    return {"assume": [[j, i, a] for (j, i), a in pattern.items()], "tree": [{"farkas": rows}]}


def _certificate(classes, sample):
    inst = Instance(QMatrix.from_rows(X), QMatrix.from_rows(Y))
    lemmas = []
    for bits in itertools.product((True, False), repeat=4):
        pattern = dict(zip([(0, 0), (0, 1), (1, 0), (1, 1)], bits))
        lemma = _lemma(pattern)
        if lemma is not None:
            lemmas.append(lemma)
    assert len(lemmas) == 14  # the two feasible patterns: unit 0 on x = 1 and unit 1 on x = -1, or swapped
    clauses = [[-(j * K + i + 1) if a else j * K + i + 1 for j, i, a in lem["assume"]] for lem in lemmas]
    j0 = sample
    clauses += [[j0 * K + a + 1, -(j0 * K + b + 1)] for cls in classes for a, b in zip(cls, cls[1:])]
    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
        assert not s.solve()  # the bogus clauses exclude both feasible patterns
        proof = [[int(t) for t in line.split()[:-1]] if not line.startswith("d") else
                 ["d"] + [int(t) for t in line.split()[1:-1]] for line in s.get_proof()]
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "not-realizable",
            "instance_sha256": instance_sha256(inst), "activation": {"name": "relu"}, "k": K,
            "output_weights": "given",
            "cases": [{"U": [["1", "1"]], "lemmas": lemmas, "symmetry": {"sample": j0, "classes": classes},
                       "rup": proof + [[]]}]}
    return cert, inst, clauses


@pytest.mark.parametrize("classes, sample, why", [
    ([[1, -1], [0, -2]], 1, "units in range"),   # negative units alias other literals (k = 2: -1 is unit 1 of sample 0)
    ([[0, 1], [1, 0]], 0, "disjoint classes"),   # overlapping classes force both units equal on sample 0
    ([[0, 2], [1, 3]], 0, "units in range"),     # units past k alias the next sample's literals
])
def test_unsound_symmetry_classes_are_refused(classes, sample, why):
    cert, inst, clauses = _certificate(classes, sample)
    # the refutation itself replays: only the symmetry check stands between it and a false claim
    assert _check_rup(clauses, cert["cases"][0]["rup"], len(X) * K) >= 0
    with pytest.raises(checker.CheckFailed, match=why):
        _check(cert, inst)


def test_the_legitimate_symmetry_leaves_the_instance_unrefuted():
    cert, inst, clauses = _certificate([[1, -1], [0, -2]], 1)
    ok = copy.deepcopy(cert)
    ok["cases"][0]["symmetry"] = {"sample": 0, "classes": [[0, 1]]}
    with pytest.raises(checker.CheckFailed, match="does not follow|do not refute"):
        _check(ok, inst)
