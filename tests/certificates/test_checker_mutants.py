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
from exactrelu.certificates.claims.lp import lp_certificate
from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.envelope import instance_sha256
from exactrelu.certificates.trusted.lrat import check_hinted
from exactrelu.decide.search.sat.upgrade import lrat_from_drup
from exactrelu.errors import CertificateInvalid
from exactrelu.exact.lp import feasible
from exactrelu.exact.matrix import QMatrix
from exactrelu.exact.rationals import format_rational
from exactrelu.instances import Instance, planted
from exactrelu.instances.checker_view import checker_instance
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


# -- symmetry classes: relu(x) + relu(-x) is realizable, so no refutation of it may pass ----------------

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
                       "lrat": lrat_from_drup(clauses, proof + [[]], len(X) * K)}]}
    return cert, inst, clauses


@pytest.mark.parametrize("classes, sample, why", [
    ([[1, -1], [0, -2]], 1, "units in range"),   # negative units alias other literals (k = 2: -1 is unit 1 of sample 0)
    ([[0, 1], [1, 0]], 0, "disjoint classes"),   # overlapping classes force both units equal on sample 0
    ([[0, 2], [1, 3]], 0, "units in range"),     # units past k alias the next sample's literals
])
def test_unsound_symmetry_classes_are_refused(classes, sample, why):
    cert, inst, clauses = _certificate(classes, sample)
    # the refutation itself replays: only the symmetry check stands between it and a false claim
    assert check_hinted(clauses, cert["cases"][0]["lrat"], len(X) * K) >= 0
    with pytest.raises(checker.CheckFailed, match=why):
        _check(cert, inst)


def test_the_legitimate_symmetry_leaves_the_instance_unrefuted():
    cert, inst, clauses = _certificate([[1, -1], [0, -2]], 1)
    ok = copy.deepcopy(cert)
    ok["cases"][0]["symmetry"] = {"sample": 0, "classes": [[0, 1]]}
    with pytest.raises(checker.CheckFailed, match="hint|conflict|empty clause"):  # no refutation of these clauses exists
        _check(ok, inst)


def test_checker_command_line_exit_codes(tmp_path, capsys, monkeypatch):
    """VALID is exit 0; one argument is enough for claims that carry their data; sys.argv is read when no
    argv is given; --help names the checker."""
    import json
    import sys

    inst = planted(d=2, k=1, m=1, n=8, seed=0)
    ipath = tmp_path / "i.json"
    from exactrelu.instances import write_instance

    write_instance(inst, ipath)
    cpath = tmp_path / "c.json"
    cpath.write_text(json.dumps(realizes_certificate(inst, inst.planted)))
    assert checker.main([str(cpath), str(ipath)]) == 0
    lp = tmp_path / "lp.json"
    lp.write_text(json.dumps(lp_certificate(feasible(A_ub=[[1]], b_ub=[0]))))
    assert checker.main([str(lp)]) == 0
    monkeypatch.setattr(sys, "argv", ["checker", str(lp)])
    assert checker.main() == 0
    assert "VALID: lp-feasible" in capsys.readouterr().out
    assert checker.main(["--help"]) == 2
    assert capsys.readouterr().out.startswith("Independent checker for exactrelu certificates")


# -- boundaries of the shared readers -------------------------------------------------------------------

def test_the_limits_are_the_documented_ones():
    """docs/limits.md's table, the library's DEFAULTS and the checker's DEFAULTS say the same thing."""
    import re
    from pathlib import Path

    from exactrelu import limits
    from exactrelu.certificates.trusted import common

    text = (Path(__file__).resolve().parents[2] / "docs" / "limits.md").read_text()
    table = {m.group(1): int(m.group(2).replace(",", "")) for m in re.finditer(r"^\| `(\w+)` \| ([\d,]+) \|", text, re.M)}
    assert table == limits.DEFAULTS
    assert {k: v for k, v in table.items() if k in common.DEFAULTS} == common.DEFAULTS


def test_parse_rational_refuses_what_is_not_a_number_and_counts_digits_without_sign(monkeypatch):
    from exactrelu.certificates.trusted import common

    for bad in (None, 1.5, [1], {"p": 1}, True):
        with pytest.raises(checker.CheckFailed, match="not a rational"):
            common.parse_rational(bad)
    assert common.parse_rational("-" + "1" * 4300) == -int("1" * 4300)
    for over in ("1" * 4301, "+" + "1" * 4301 + "/3", "1/" + "3" * 4301):
        with pytest.raises(checker.UnreadableInput, match="limit digits"):
            common.parse_rational(over)
    monkeypatch.setattr(common, "_limits", {})
    monkeypatch.setenv("EXACTRELU_MAX_DIGITS", "4301")
    assert common.parse_rational("7" * 4301) == int("7" * 4301)  # the raised limit also raises Python's


def test_other_limits_leave_pythons_digit_limit_alone(monkeypatch):
    import sys

    from exactrelu.certificates.trusted import common

    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)  # Python's default, whatever earlier tests left
    try:
        monkeypatch.setattr(common, "_limits", {})
        for name in ("inflation", "memory", "literals", "degree", "header"):
            common.limit(name)
        assert sys.get_int_max_str_digits() == 4300
    finally:
        sys.set_int_max_str_digits(before)


def test_degree_bounds_are_inclusive():
    from exactrelu.certificates.trusted import common

    assert common.activation_degree({"name": "power", "degree": 100}) == 100
    assert common.activation_degree({"name": "power", "degree": 1}) == 1
    with pytest.raises(checker.UnreadableInput):
        common.activation_degree({"name": "power", "degree": 101})
    for bad in ({"name": "power", "degree": 0}, {"name": "relu", "degree": 2}, {"name": "tanh"}, {"name": "power", "degree": "2"}):
        with pytest.raises(checker.CheckFailed):
            common.activation_degree(bad)


def test_instances_need_a_column_on_both_sides():
    for inputs, labels in (([[]], [[1]]), ([[1]], [[]])):
        with pytest.raises(checker.UnreadableInput, match="at least one column"):
            checker.parsed_instance(inputs, labels)


def _nr_cert(inst, case):
    return {"format": "exactrelu.certificate", "version": 1, "claim": "not-realizable",
            "instance_sha256": instance_sha256(inst), "activation": {"name": "relu"}, "k": 2,
            "output_weights": "given", "cases": [dict(U=[["1", "1"]], **case)]}


@pytest.mark.parametrize("case, message", [
    ({"tree": [{"split": [2, 0]}, {"farkas": []}, {"farkas": []}]}, "bad split"),      # sample n
    ({"tree": [{"split": [0, 2]}, {"farkas": []}, {"farkas": []}]}, "bad split"),      # unit k
    ({"tree": [{"split": [-1, 0]}, {"farkas": []}, {"farkas": []}]}, "bad split"),
    ({"lemmas": [{"assume": [[2, 0, True]], "tree": [{"farkas": []}]}], "tree": [{"farkas": []}]}, "a lemma is"),
    ({"lemmas": [{"assume": [[0, 2, True]], "tree": [{"farkas": []}]}], "tree": [{"farkas": []}]}, "a lemma is"),
    ({"lemmas": [], "symmetry": {"sample": 2, "classes": [[0, 1]]}, "lrat": [[0]]}, "symmetry is"),
])
def test_pairs_out_of_range_are_refused(case, message):
    inst = Instance(QMatrix.from_rows(X), QMatrix.from_rows(Y))
    with pytest.raises(checker.CheckFailed, match=message):
        _check(_nr_cert(inst, case), inst)


def test_realizes_needs_units_and_except_lists_must_be_sorted():
    from exactrelu.certificates.claims.realizes import realizes_except_certificate

    inst = planted(d=3, k=2, m=1, n=12, seed=3)
    cert = realizes_certificate(inst, inst.planted)
    with pytest.raises(checker.CheckFailed, match="non-empty"):
        _check(dict(cert, V=[], U=[[]]), inst)
    Y = inst.labels.to_fractions()
    for j in (0, 5):
        Y[j][0] += 1
    bad = Instance(inst.inputs, QMatrix.from_rows(Y))
    cert = realizes_except_certificate(bad, inst.planted, [(0, 0), (5, 0)])
    assert _check(cert, bad).startswith("realizes-except")
    # a third entry, not corrupted, listed out of order: a false claim the sortedness check must catch
    unsorted = dict(cert, **{"except": [[0, 0], [5, 0], [3, 0]]})
    with pytest.raises(checker.CheckFailed, match="sorted"):
        _check(unsorted, bad)


def test_a_hinted_step_cannot_hint_the_same_clause_twice_on_the_largest_variable():
    """The literal slots of +nvars and -nvars must not share a byte: hinting [n] twice is no conflict."""
    from exactrelu.certificates.trusted.lrat import check_hinted

    for n in (1, 2, 7):
        with pytest.raises(checker.CheckFailed, match="without a conflict"):
            check_hinted([[n]], [[0, 1, 1]], n)


# -- survivors of the realizes.py mutation run (benchmarks/mutate_checker.py) -----------------------

def test_the_certificate_s_activation_must_be_the_instance_s():
    from exactrelu.network import Activation

    net = Network.from_rows([[1, 1]], [[1, 0], [0, 1]])
    X = QMatrix.from_rows([[1, 2], [-1, 3], [2, -1]])
    relu_inst = Instance(X, net.evaluate_exact(X))
    cert = realizes_certificate(relu_inst, net)
    assert _check(cert, relu_inst).startswith("realizes")
    squared = Instance(X, relu_inst.labels, Activation.power(2))  # the same labels, declared power 2
    moved = dict(cert, instance_sha256=instance_sha256(squared))
    with pytest.raises(checker.CheckFailed, match="activation differs"):
        _check(moved, squared)


def test_inputs_over_a_common_denominator_of_exactly_two():
    """Rows whose denominators are 1 and 2 (lcm 2) must be scaled like any other: kills `Dx == 1` -> `Dx == 2`."""
    net = Network.from_rows([[1, -2]], [[3, 1], [1, -1]])
    X = QMatrix.from_rows([["1/2", 1], [2, "-1/2"], ["3/2", "1/2"], [1, 1]])
    inst = Instance(X, net.evaluate_exact(X))
    assert _check(realizes_certificate(inst, net), inst).startswith("realizes: 4 samples")
    wrong = Network.from_rows([[1, -2]], [[3, 2], [1, -1]])  # agrees with net where the scaling is skipped
    with pytest.raises(checker.CheckFailed):
        _check(realizes_certificate(inst, wrong), inst)


def test_a_residual_below_one_states_its_own_largest_error():
    """Every error below 1: the largest is not 1 (kills the start value of the running maximum)."""
    from exactrelu.certificates.claims.realizes import residual_certificate

    net = Network.from_rows([[1]], [[1, 0]])
    X = QMatrix.from_rows([[1, 0], [2, 0], [3, 0]])
    Y = QMatrix.from_rows([["1"], ["2"], ["13/4"]])  # one error of 1/4
    inst = Instance(X, Y)
    cert = residual_certificate(inst, net)
    assert cert["max_abs_error"] == "1/4"
    summary = _check(cert, inst)
    assert summary.startswith("residual") and "largest |error| 0.25" in summary
    for wrong in ("1", "1/8"):
        with pytest.raises(checker.CheckFailed, match="max_abs_error"):
            _check(dict(cert, max_abs_error=wrong), inst)


def test_a_duplicated_except_entry_is_rejected():
    """[[1, 0], [1, 0], [2, 0]] with only sample 1 wrong: a duplicate would hide that entry 2 is not wrong."""
    from exactrelu.certificates.claims.realizes import realizes_except_certificate

    net = Network.from_rows([[1]], [[1, 0]])
    X = QMatrix.from_rows([[1, 0], [2, 0], [3, 0]])
    inst = Instance(X, QMatrix.from_rows([[1], [5], [3]]))
    cert = realizes_except_certificate(inst, net, [(1, 0)])
    assert _check(cert, inst).startswith("realizes-except")
    bad = dict(cert, **{"except": [[1, 0], [1, 0], [2, 0]]})
    with pytest.raises(checker.CheckFailed, match="sorted, without duplicates"):
        _check(bad, inst)


def test_a_hinted_step_without_hints_is_not_a_conflict():
    """A satisfiable formula and a one-step 'proof' of the empty clause with no hints (kills `return True`
    for empty hints in trusted/lrat.py)."""
    from exactrelu.certificates.trusted.lrat import check_hinted

    for steps in ([[0]], [[1, 0], [0, 3]]):
        with pytest.raises(checker.CheckFailed, match="without a conflict"):
            check_hinted([[1, 2], [-1, 2]], steps, 2)


def test_hinted_deletions_valid_and_misused():
    """Survivors of the lrat.py run: no test deleted a clause in a valid hinted proof, none hinted a deleted
    clause last, none gave the literal 0 in an input clause."""
    from exactrelu.certificates.trusted.lrat import check_hinted

    F = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    assert check_hinted(F, [[2, 0, 1, 2], ["d", 1, 2], [0, 5, 3, 4]], 2) == 2
    with pytest.raises(checker.CheckFailed, match="hint 4 is a deleted clause"):
        check_hinted(F, [[2, 0, 1, 2], ["d", 4], [0, 5, 3, 4]], 2)  # deleted, then hinted last
    with pytest.raises(checker.CheckFailed, match="hint 5 is a deleted clause"):
        check_hinted(F, [[2, 0, 1, 2], ["d", 5], [0, 5, 3, 4]], 2)  # deleted, then hinted first
    with pytest.raises(checker.CheckFailed, match="deletes 5, not a live clause"):
        check_hinted(F, [[2, 0, 1, 2], ["d", 5, 5], [0, 5, 3, 4]], 2)
    with pytest.raises(checker.CheckFailed, match="malformed input clause"):
        check_hinted([[1, 0], [-1]], [[0, 1, 2]], 1)


def test_the_literal_zero_cannot_derive_anything():
    """0 == -0: a 'literal 0' would be its own negation, so [0, x] and [0] look like tautologies and then
    propagate x from nothing. Refused in input clauses (in steps, 0 is the separator of the hints)."""
    with pytest.raises(checker.CheckFailed, match="malformed input clause"):
        check_hinted([[1, 0]], [[0, 1]], 2)


# A satisfiable formula has no refutation. The two pinned DRUP proofs were found by fuzzing mutants of the
# watched-literal replay the checker had before it checked hinted proofs only (a replaced watch written into
# the wrong slot; a clause left twice on a watch list after a conflict): the untrusted trimmer must not turn
# them into hints, and no hinted proof of these formulas may check.
SATISFIABLE_WITH_FORGED_PROOFS = [
    (3, [[1, -2, -3], [-1, 3], [-3, -2, -1], [-1, -2], [-1, 2, -3], [-1, 3], [-3, -1], [3, 2], [3, -2, 1]],
     [[2], [-2], []]),
    (5, [[1, 4, 2], [-4, -1], [-2, -3], [-2, 4, -5], [4, -1, 5], [-2, -4], [-4, -5], [1, -2], [5, 2]],
     [[-2], [5], [-5], [-2], []]),
]


def _satisfiable(clauses, n):
    return any(all(any((lit > 0) == bits[abs(lit) - 1] for lit in c) for c in clauses)
               for bits in itertools.product((False, True), repeat=n))


@pytest.mark.parametrize("n, clauses, proof", SATISFIABLE_WITH_FORGED_PROOFS)
def test_forged_drup_proofs_are_neither_upgraded_nor_checked(n, clauses, proof):
    assert _satisfiable(clauses, n)
    with pytest.raises(CertificateInvalid, match="does not refute"):
        lrat_from_drup(clauses, proof, n)
    with pytest.raises(checker.CheckFailed):  # the same steps with every earlier clause as hints
        check_hinted(clauses, [[*step, 0, *range(1, len(clauses) + t + 1)] for t, step in enumerate(proof)], n)


# -- survivors of the lp.py and instance.py runs ---------------------------------------------------------

def test_a_negative_inequality_multiplier_cannot_forge_infeasibility():
    """-1 <= x <= 1 is feasible; y_ub = (-1, -1) sums the rows to 0 <= -2, valid but for the signs."""
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "lp-infeasible",
            "system": {"nvars": 1, "A_eq": [], "b_eq": [], "A_ub": [["1"], ["-1"]], "b_ub": ["1", "1"]},
            "y_eq": [], "y_ub": ["-1", "-1"]}
    with pytest.raises(checker.CheckFailed, match="y_ub has a negative entry"):
        checker.check(cert, None)
    with pytest.raises(checker.CheckFailed, match="must be a list of rows"):
        checker.check(dict(cert, system=dict(cert["system"], A_ub="11")), None)


def test_the_checker_bounds_and_names_json_instances(tmp_path, monkeypatch):
    import json

    from exactrelu.certificates.trusted import common

    path = tmp_path / "i.json"
    obj = {"format": "exactrelu.instance", "version": 1, "inputs": [["1", "2"]] * 20, "labels": [["3"]] * 20}
    path.write_text(json.dumps(obj))
    assert len(checker.load_instance(str(path))["parsed"][0]) == 20
    monkeypatch.setattr(common, "memory_budget", lambda: 60 * common.HELD - 1)  # 20 x (2 + 1) = 60 entries
    with pytest.raises(checker.UnreadableInput, match="needs about 0.0 GB to check"):
        checker.load_instance(str(path))
    monkeypatch.setattr(common, "memory_budget", lambda: 60 * common.HELD)
    checker.load_instance(str(path))
    for bad in (dict(obj, format="exactrelu.certificate"), dict(obj, version=2), [obj]):
        path.write_text(json.dumps(bad))
        with pytest.raises(checker.UnreadableInput, match="not an exactrelu.instance version 1"):
            checker.load_instance(str(path))


def test_an_npy_header_that_is_not_a_literal_is_malformed(tmp_path):
    import struct
    import zipfile

    def npy(header: str) -> bytes:
        text = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1") + struct.pack("<d", 1.0)

    good = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }"
    for bad in ("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), ", "{'descr': f8}", "__import__('os')"):
        path = tmp_path / "h.npz"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("inputs.npy", npy(bad))
            z.writestr("labels.npy", npy(good))
        with pytest.raises(checker.UnreadableInput, match="malformed .npy header"):
            checker.load_instance(str(path))


# -- survivors of the refutation.py run ---------------------------------------------------------------

def test_a_negative_sign_multiplier_cannot_forge_a_case_tree():
    """relu(x) on x = 1, 2 is realizable (v = 1). With v active on sample 0, the rows v = 1 and -v <= 0 are
    consistent; multiplying the inequality by -1 'refutes' them. The correct checker refuses that row."""
    from exactrelu.certificates.envelope import instance_sha256
    from exactrelu.instances.checker_view import checker_instance

    inst = Instance(QMatrix.from_rows([[1], [2]]), QMatrix.from_rows([[1], [2]]))
    forged_leaf = {"farkas": [["eq", 0, 0, "-1"], ["sign", 0, 0, "-1"]]}
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "not-realizable",
            "instance_sha256": instance_sha256(inst), "activation": {"name": "relu"}, "k": 1,
            "output_weights": "given",
            "cases": [{"U": [["1"]], "tree": [{"split": [0, 0]}, forged_leaf, {"farkas": [["eq", 0, 0, "-1"]]}]}]}
    with pytest.raises(checker.CheckFailed, match="negative multiplier"):
        checker.check(cert, checker_instance(inst))
    forged_leaf["farkas"][1][3] = "1"
    with pytest.raises(checker.CheckFailed, match="not 0 <= negative"):
        checker.check(cert, checker_instance(inst))


def test_templates_instantiate_only_on_equal_data():
    """A lemma proved once on a template's local data holds for instances with the same data, and only those."""
    from fractions import Fraction as F

    from exactrelu.certificates.trusted.refutation import _template_clauses

    X = [[(0, F(1))], [(1, F(1))], [(1, F(1))]]  # sample 0: e_0, samples 1, 2: e_1
    Y = [[F(1)], [F(1)], [F(2)]]
    lemma = {"assume": [[0, 0, False]], "tree": [{"farkas": [["eq", 0, 0, "-1"]]}]}  # inactive contradicts y = 1
    clauses, leaves = _template_clauses({"lemmas": [lemma], "instances": [[[0], [0]], [[1], [1]]]}, X, Y, [[F(1)]], 1, 2)
    assert clauses == [[1], [2]] and leaves == 1  # "sample 0 active", "sample 1 active"
    with pytest.raises(checker.CheckFailed, match="its data differ from the template"):
        _template_clauses({"lemmas": [lemma], "instances": [[[0], [0]], [[2], [1]]]}, X, Y, [[F(1)]], 1, 2)
    for bad in ([[0], 0], [[0], [[0]]], [[0, 0], [0]], [[0], [2]]):
        with pytest.raises(checker.CheckFailed, match="bad template instance"):
            _template_clauses({"lemmas": [lemma], "instances": [bad]}, X, Y, [[F(1)]], 1, 2)


# -- survivors of the common.py run ---------------------------------------------------------------------

def test_json_integers_are_counted_without_their_sign(tmp_path, monkeypatch):
    """The checker's JSON reader bounds integers itself: 'digits' digits pass, with or without a minus
    sign; one more is refused as over the limit (not as a bad file)."""
    import sys

    from exactrelu.certificates.trusted import common

    monkeypatch.setitem(common._limits, "digits", 700)
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        for text, ok in (("7" * 700, True), ("-" + "7" * 700, True), ("7" * 701, False), ("-" + "7" * 701, False)):
            raw = ('{"x": ' + text + "}").encode()
            if ok:
                assert common.read_json(raw, "f.json") == {"x": int(text)}
            else:
                with pytest.raises(checker.UnreadableInput, match="limit digits"):
                    common.read_json(raw, "f.json")
        sys.set_int_max_str_digits(640)  # Python's own limit below ours: still one line over the limit
        with pytest.raises(checker.UnreadableInput, match="limit digits"):
            common.read_json(('{"x": ' + "7" * 650 + "}").encode(), "f.json")
    finally:
        sys.set_int_max_str_digits(before)


def test_pairs_are_pairs_of_integers():
    from exactrelu.certificates.trusted.common import is_pair

    assert is_pair([0, 1], 2, 2) and is_pair([1, 0], 2, 2)
    for bad in ([0, "1"], ["0", 1], [0.0, 1], [True, 1], [0, 1.5], [2, 0], [0, 2], [-1, 0]):
        assert not is_pair(bad, 2, 2), bad


def test_a_case_refutation_has_a_positive_integer_k_and_a_list_of_cases():
    from exactrelu.certificates.envelope import instance_sha256
    from exactrelu.instances.checker_view import checker_instance

    inst = Instance(QMatrix.from_rows([[1], [2]]), QMatrix.from_rows([[1], [3]]))  # not relu(v x): 1, 3 on x = 1, 2
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "not-realizable",
            "instance_sha256": instance_sha256(inst), "activation": {"name": "relu"}, "k": 1, "output_weights": "given",
            "cases": [{"U": [["1"]], "tree": [{"split": [0, 0]},
                                              {"split": [1, 0]},
                                              {"farkas": [["eq", 0, 0, "2"], ["eq", 1, 0, "-1"]]},
                                              {"farkas": [["eq", 1, 0, "-1"]]},
                                              {"farkas": [["eq", 0, 0, "-1"]]}]}]}
    assert checker.check(cert, checker_instance(inst)).startswith("not-realizable")
    for bad in (dict(cert, k=0), dict(cert, k=True), dict(cert, k="1"), dict(cert, cases={"U": [["1"]]})):
        with pytest.raises(checker.CheckFailed, match="k must be a positive integer and cases a list"):
            checker.check(bad, checker_instance(inst))


def test_unknown_output_weights_need_every_sign_case():
    """-relu(x) on x = 1, 2 is realizable with u = -1. Three refutations of u = +1 are not the cases
    u in {1, 0, -1}: the checker must insist on exactly those (a mutant that only counted them accepted this)."""
    from exactrelu.certificates.envelope import instance_sha256
    from exactrelu.instances.checker_view import checker_instance

    inst = Instance(QMatrix.from_rows([[1], [2]]), QMatrix.from_rows([[-1], [-2]]))
    tree_u_plus = [{"split": [0, 0]}, {"farkas": [["eq", 0, 0, "1"], ["sign", 0, 0, "1"]]}, {"farkas": [["eq", 0, 0, "1"]]}]
    cert = {"format": "exactrelu.certificate", "version": 1, "claim": "not-realizable",
            "instance_sha256": instance_sha256(inst), "activation": {"name": "relu"}, "k": 1, "output_weights": "unknown",
            "cases": [{"U": [["1"]], "tree": tree_u_plus} for _ in range(3)]}
    with pytest.raises(checker.CheckFailed, match="exactly the cases"):
        checker.check(cert, checker_instance(inst))
    given = dict(cert, output_weights="given", cases=cert["cases"][:1])  # u = +1 alone: a true claim
    assert "1 output-weight case(s) (given)" in checker.check(given, checker_instance(inst))
    for row in (["eq", 2, 0, "1"], ["eq", 0, 1, "1"], ["sign", 0, 1, "1"], ["eq", -1, 0, "1"]):
        bad = dict(given, cases=[{"U": [["1"]], "tree": [{"split": [0, 0]}, {"farkas": [row]}, {"farkas": [["eq", 0, 0, "1"]]}]}])
        with pytest.raises(checker.CheckFailed, match="out of range"):
            checker.check(bad, checker_instance(inst))


def test_template_samples_and_symmetry_literals_are_exact():
    """Clause literals name (sample, unit) as j k + i + 1: a template instance with one sample out of range
    (-1 would alias the last sample, or name another literal) is refused, and symmetry clauses are exactly
    'active(j0, a) or not active(j0, b)' for consecutive a, b of a class."""
    from fractions import Fraction as F

    from exactrelu.certificates.trusted.refutation import _symmetry_clauses, _template_clauses

    X = [[(0, F(1))], [(1, F(1))], [(1, F(1))]]
    Y = [[F(1)], [F(1)], [F(1)]]
    lemma = {"assume": [[0, 0, False]], "tree": [{"farkas": [["eq", 0, 0, "-1"]]}]}
    for bad in ([[1, -1], [1, 0]], [[-1], [1]], [[1, 3], [1, 0]]):
        with pytest.raises(checker.CheckFailed, match="bad template instance"):
            _template_clauses({"lemmas": [lemma], "instances": [[[1], [1]], bad]}, X, Y, [[F(1)]], 1, 2)
    U = [[F(1), F(1), F(1)]]
    assert _symmetry_clauses({"sample": 2, "classes": [[0, 1, 2]]}, U, 4, 3) == [[7, -8], [8, -9]]
    assert _symmetry_clauses({"sample": 0, "classes": [[1, 2]]}, U, 4, 3) == [[2, -3]]
    with pytest.raises(checker.CheckFailed, match="bad symmetry class"):
        _symmetry_clauses({"sample": 0, "classes": [[1]]}, U, 4, 3)


def test_an_activation_is_exactly_a_name_and_a_degree():
    from exactrelu.certificates.trusted.common import activation_degree

    assert activation_degree({"name": "relu"}) == 1 and activation_degree({"name": "power", "degree": 3}) == 3
    for bad in ({"name": "power", "degree": 2, "note": "x"}, ["name"], "relu", {"name": "relu", "degree": 2},
                {"name": "power"}, {"name": "power", "degree": 0}, {"name": "power", "degree": True}):
        with pytest.raises(checker.CheckFailed, match="unknown activation"):
            activation_degree(bad)


def test_fractions_at_the_digit_limit_and_limits_that_are_not_positive(monkeypatch):
    from exactrelu.certificates.trusted import common

    assert common.parse_rational("+" + "1" * 4300 + "/3") == F_(int("1" * 4300), 3)
    assert common.parse_rational("1/" + "3" * 4300) == F_(1, int("3" * 4300))
    for raw in ("0", "-1", "x", "1e3"):
        monkeypatch.setattr(common, "_limits", {})
        monkeypatch.setenv("EXACTRELU_MAX_DEGREE", raw)
        with pytest.raises(checker.UnreadableInput, match="is not a positive integer"):
            common.limit("degree")
    monkeypatch.setattr(common, "_limits", {})
    monkeypatch.setenv("EXACTRELU_MAX_DEGREE", "1")
    assert common.limit("degree") == 1


from fractions import Fraction as F_  # noqa: E402
