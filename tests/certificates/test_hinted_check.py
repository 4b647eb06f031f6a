"""The checker's hinted (LRAT) refutations (trusted/lrat.py, and the clauses trusted/refutation.py builds for them):
every malformed or wrong step names its failure, and every tampering of a whole certificate (hints, deletions,
template data, samples, coordinates, lemmas, multipliers) is rejected. The solver's hints and our trimmer are tested
in tests/decide/test_hints.py."""

from __future__ import annotations

import copy

import pytest

from exactrelu.certificates.envelope import verify
from exactrelu.certificates.trusted.common import CheckFailed
from exactrelu.certificates.trusted.lrat import check_hinted
from exactrelu.decide.search.pattern_search import decide
from exactrelu.errors import CertificateInvalid
from exactrelu.hardness import NAEFormula, NaeToRelu

FOUR = [[1, 2], [-1, 2], [1, -2], [-1, -2]]  # unsatisfiable; clauses 1..4
GOOD = [[2, 0, 1, 2], [0, 5, 3, 4]]  # 5 = (2): assume -2, 1 is unit (1), 2 is falsified; then 5, 3 unit, 4 falsified


def test_hinted_check_accepts_a_proof_and_names_every_failure():
    assert check_hinted(FOUR, GOOD, 2) == 2
    assert check_hinted(FOUR, [[2, 0, 1, 2], ["d", 1, 2], [0, 5, 3, 4]], 2) == 2  # deletions of spent clauses
    assert check_hinted([[]], [[0, 1]], 1) == 1  # an empty input clause is a conflict at once
    bad = {
        "wrong hint order": ([[2, 0, 1, 2], [0, 3, 5, 4]], "not unit"),
        "missing hint": ([[2, 0, 1], [0, 5, 3, 4]], "without a conflict"),
        "hint points forward": ([[2, 0, 1, 2], [0, 6, 3, 4]], "not an earlier clause"),
        "hint to itself": ([[2, 0, 5, 1, 2], [0, 5, 3, 4]], "not an earlier clause"),
        "clause never derived": ([[2, 0, 1, 2], [0, 0, 3, 4]], "no 0 between|not an earlier"),
        "hint out of range": ([[2, 0, 1, 2], [0, 5, 3, 99]], "not an earlier clause"),
        "hint not an int": ([[2, 0, 1, 2], [0, 5, 3, True]], "not an earlier clause"),
        "deleted clause used": ([[2, 0, 1, 2], ["d", 3], [0, 5, 3, 4]], "deleted clause"),
        "deleted twice": ([["d", 3], ["d", 3], [2, 0, 1, 2], [0, 5, 3, 4]], "not a live clause"),
        "delete nothing": ([["d", 0], [2, 0, 1, 2], [0, 5, 3, 4]], "not a live clause"),
        "empty clause dropped": ([[2, 0, 1, 2]], "does not derive the empty clause"),
        "steps after the empty clause": ([[2, 0, 1, 2], [0, 5, 3, 4], [1, 0, 5, 3]], "but the proof goes on"),
        "no separator": ([[2, 1, 2], [0, 5, 3, 4]], "no 0 between"),
        "step not a list": ([(2, 0, 1, 2), [0, 5, 3, 4]], "not a list"),
        "literal out of range": ([[3, 0, 1, 2], [0, 5, 3, 4]], "malformed"),
        "conflict too early": ([[2, 0, 1, 2], [0, 5, 3, 4, 1]], "conflict before the last hint"),
        "satisfied hint": ([[2, 0, 1, 2], [-1, 0, 5, 3, 4], [0, 5, 6, 1]], "not unit"),
        "empty proof": ([], "non-empty list"),
    }
    for name, (steps, msg) in bad.items():
        with pytest.raises(CheckFailed, match=msg):
            check_hinted(FOUR, steps, 2)
            pytest.fail(f"{name} was accepted")
    with pytest.raises(CheckFailed, match="malformed input"):
        check_hinted([[1, 5]], [[0, 1]], 2)



@pytest.fixture(scope="module")
def hinted():
    f = NAEFormula(3, [(1, 2, 3), (1, 2, -3), (1, -2, 3), (-1, 2, 3), (1, -2, -3), (-1, 2, -3), (-1, -2, 3), (-1, -2, -3)])
    inst, _ = NaeToRelu().apply(f)
    return inst, decide(inst, U=[[1, 1]]).certificate, decide(inst).certificate



def _tamperings(cert):
    out = []

    def t(name, fn):
        c = copy.deepcopy(cert)
        fn(c)
        out.append((name, c))

    case = lambda c: next(x for x in c["cases"] if "templates" in x and len(x["lrat"]) > 2)  # noqa: E731
    adds = lambda c: [s for s in case(c)["lrat"] if s[:1] != ["d"]]  # noqa: E731
    long_step = lambda c: next(s for s in adds(c) if len(s) - s.index(0) > 3)  # noqa: E731

    def swap(c):
        s = long_step(c)
        z = s.index(0)
        s[z + 1], s[z + 2] = s[z + 2], s[z + 1]

    def forward(c):
        s = long_step(c)
        s[-2] = 10**6

    def use_deleted(c):
        steps = case(c)["lrat"]
        s = long_step(c)
        steps.insert(steps.index(s), ["d", s[s.index(0) + 1]])

    def other_data(c):
        tpl = case(c)["templates"]
        a = max(tpl, key=lambda x: len(x["instances"][0][0]))
        b = min(tpl, key=lambda x: len(x["instances"][0][0]))
        b["instances"].append([a["instances"][0][0][:len(b["instances"][0][0])], b["instances"][0][1]])

    tpl0 = lambda c: case(c)["templates"][0]  # noqa: E731
    t("hints swapped", swap)
    t("hint dropped", lambda c: long_step(c).pop())
    t("hint points forward", forward)
    t("deleted clause used", use_deleted)
    t("empty clause dropped", lambda c: case(c)["lrat"].pop())
    t("lrat and rup", lambda c: case(c).update(rup=[[]]))
    t("lrat not a list", lambda c: case(c).update(lrat={}))
    t("templates not a list", lambda c: case(c).update(templates={}))
    t("template shape", lambda c: tpl0(c).pop("instances"))
    t("template without instances", lambda c: tpl0(c).update(instances=[]))
    t("template instance dropped", lambda c: tpl0(c)["instances"].pop(0))
    t("template lemma dropped", lambda c: tpl0(c)["lemmas"].pop())
    t("template lemma flipped", lambda c: tpl0(c)["lemmas"][0]["assume"][0].__setitem__(2, not tpl0(c)["lemmas"][0]["assume"][0][2]))
    t("template multiplier", lambda c: tpl0(c)["lemmas"][0]["tree"][0]["farkas"][0].__setitem__(3, "7"))
    t("instance with other data", other_data)
    t("instance samples swapped", lambda c: tpl0(c)["instances"][0][0].reverse())
    t("instance coordinate missing", lambda c: tpl0(c)["instances"][0][1].pop())
    t("instance coordinate repeated", lambda c: tpl0(c)["instances"][0][1].append(tpl0(c)["instances"][0][1][0]))
    t("instance coordinate out of range", lambda c: tpl0(c)["instances"][0][1].__setitem__(0, 99))
    t("instance sample repeated", lambda c: tpl0(c)["instances"][0][0].append(tpl0(c)["instances"][0][0][0]))
    t("instance malformed", lambda c: tpl0(c)["instances"].__setitem__(0, [[0]]))
    return out



def test_hinted_certificates_valid_and_every_tampering_rejected(hinted):
    inst, given_, unknown = hinted
    for cert in (given_, unknown):
        assert "hinted steps checked" in verify(cert, inst)
        tamperings = _tamperings(cert)
        assert len(tamperings) == 21
        for name, bad in tamperings:
            with pytest.raises(CertificateInvalid):
                verify(bad, inst)
                pytest.fail(f"tampering {name!r} was accepted")
