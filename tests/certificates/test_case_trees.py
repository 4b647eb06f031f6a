"""The checker's not-realizable by case trees and lemmas (trusted/refutation.py, trusted/tree.py): the certificates of
the tree engine verify, in-process and through the checker's command line, and every tampering of a tree, a leaf,
a lemma or the header is rejected. The engine itself is tested in tests/decide/test_pattern_search.py."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.envelope import verify
from exactrelu.certificates.trusted.common import is_pair
from exactrelu.certificates.trusted.refutation import _fraction, _indices
from exactrelu.decide.search.pattern_search import decide
from exactrelu.errors import CertificateInvalid
from exactrelu.hardness import NAEFormula, NaeToRelu
from exactrelu.instances import Instance


@pytest.fixture(scope="module")
def refuted():
    f = NAEFormula(2, [(1, 1, 1), (1, 2, -2)])  # (x1, x1, x1) is never NAE
    inst, _ = NaeToRelu().apply(f)
    return inst, decide(inst, engine="tree").certificate, decide(inst, U=[[1, 1]], engine="tree").certificate



def _trees(c):
    """Every tree of the first case: the lemmas' trees in order, then the main tree."""
    case = c["cases"][0]
    return [lem["tree"] for lem in case.get("lemmas", [])] + [case["tree"]]



def _first(c, key):
    """(tree, index) of the first node with ``key`` in any tree of the first case."""
    for tr in _trees(c):
        for idx, node in enumerate(tr):
            if key in node:
                return tr, idx
    raise AssertionError(f"no {key} node")



def _tamperings(cert):
    """(name, tampered certificate) pairs; every one must be rejected."""
    out = []

    def t(name, fn):
        c = copy.deepcopy(cert)
        fn(c)
        out.append((name, c))

    def leaf(c):
        tr, idx = _first(c, "farkas")
        return tr[idx]

    main = lambda c: c["cases"][0]["tree"]  # noqa: E731
    lemmas = lambda c: c["cases"][0]["lemmas"]  # noqa: E731
    t("hash", lambda c: c.update(instance_sha256="0" * 64))
    t("claim", lambda c: c.update(claim="not-realisable"))
    t("field", lambda c: c.update(extra=1))
    t("activation", lambda c: c.update(activation={"name": "power", "degree": 2}))
    t("k", lambda c: c.update(k=3))
    t("k-bool", lambda c: c.update(k=True))
    t("mode", lambda c: c.update(output_weights="maybe"))
    t("drop-case", lambda c: c["cases"].pop())
    t("case-U", lambda c: c["cases"][0].update(U=[["2", "1"]]))
    t("case-field", lambda c: c["cases"][0].update(note=1))
    t("drop-lemmas", lambda c: c["cases"][0].pop("lemmas"))
    t("drop-leaf", lambda c: main(c).pop())
    t("extra-node", lambda c: main(c).append(main(c)[-1]))
    t("empty-tree", lambda c: c["cases"][0].update(tree=[]))
    t("multiplier", lambda c: leaf(c)["farkas"][0].__setitem__(3, "12345"))
    t("zero-leaf", lambda c: leaf(c).update(farkas=[]))
    t("leaf-shape", lambda c: leaf(c).update(farkas=1))
    t("row-kind", lambda c: leaf(c)["farkas"][0].__setitem__(0, "ge"))
    t("row-range", lambda c: leaf(c)["farkas"][0].__setitem__(1, 10**6))
    t("row-rational", lambda c: leaf(c)["farkas"][0].__setitem__(3, "1/0"))
    t("sign-negative", lambda c: leaf(c)["farkas"].append(["sign", 0, 0, "-1"]))

    def split(c, value):
        tr, idx = _first(c, "split")
        tr[idx] = {"split": value}
    t("split-range", lambda c: split(c, [0, 7]))
    t("split-shape", lambda c: split(c, [0]))

    def eq_undecided(c):  # a leaf's decisions: its lemma's assumptions and the splits before it
        for lem in lemmas(c):
            if "farkas" in lem["tree"][0]:
                path = {a[0] for a in lem["assume"]}
                j = min(set(range(6)) - path)  # the fixture has 6 samples
                lem["tree"][0]["farkas"].append(["eq", j, 0, "1"])
                return
    t("eq-undecided", eq_undecided)

    def lemma_ref(c, value):
        tr, idx = _first(c, "lemma")
        tr[idx] = {"lemma": value}
    t("lemma-future", lambda c: lemma_ref(c, len(lemmas(c))))
    t("lemma-bool", lambda c: lemma_ref(c, True))
    t("lemma-self", lambda c: lemmas(c)[0].update(tree=[{"lemma": 0}]))
    first_assuming = next(t_ for t_, lem in enumerate(cert["cases"][0]["lemmas"]) if lem["assume"])

    def assume(c, fn):
        fn(lemmas(c)[first_assuming]["assume"])
    t("assume-flip", lambda c: assume(c, lambda a: a[-1].__setitem__(2, not a[-1][2])))
    t("assume-int", lambda c: assume(c, lambda a: a[-1].__setitem__(2, 1)))
    t("assume-dup", lambda c: assume(c, lambda a: a.append([a[-1][0], a[-1][1], not a[-1][2]])))
    t("assume-range", lambda c: assume(c, lambda a: a[-1].__setitem__(0, 99)))
    t("lemma-shape", lambda c: lemmas(c)[0].update(extra=1))
    return out



def test_valid_certificates_and_every_tampering_rejected(refuted, tmp_path):
    inst, unknown, given = refuted
    assert "6 output-weight case(s) (unknown)" in verify(unknown, inst)
    assert "1 output-weight case(s) (given)" in verify(given, inst)
    # through files and the checker's command line
    from exactrelu.instances import write_instance
    write_instance(inst, tmp_path / "i.json")
    (tmp_path / "c.json").write_text(json.dumps(unknown))
    assert checker.main([str(tmp_path / "c.json"), str(tmp_path / "i.json")]) == 0
    for cert in (unknown, given):
        for name, bad in _tamperings(cert):
            with pytest.raises(CertificateInvalid):
                verify(bad, inst)
                pytest.fail(f"tampering {name!r} was accepted")



def test_certificate_against_another_instance(refuted):
    inst, unknown, _ = refuted
    other, _ = NaeToRelu().apply(NAEFormula(2, [(1, 1, 1), (1, 2, 2)]))
    with pytest.raises(CertificateInvalid, match="sha256"):
        verify(unknown, other)



def test_unknown_mode_needs_one_output():
    inst = Instance.from_arrays([[1], [-1]], [[1, 1], [1, 1]])
    res = decide(inst, U=[[1, 0], [0, 1]])
    cert = dict(res.certificate, output_weights="unknown")
    with pytest.raises(CertificateInvalid, match="m = 1"):
        verify(cert, inst)



@given(st.integers(-40, 40) | st.integers(), st.integers(1, 40) | st.integers(1))
def test_shared_small_fractions_are_the_fractions(p, q):
    """read_claim's entries: Fraction(p, q), one object for each integer in [-16, 16] (compared by identity first)."""
    assert _fraction(p, q) == Fraction(p, q) and type(_fraction(p, q)) is Fraction
    if q == 1 and -16 <= p <= 16:
        assert _fraction(p, 1) is _fraction(p, 1)


VALUES = st.integers(-3, 12) | st.booleans() | st.floats(-2, 12) | st.just("1") | st.none() | st.integers(2**62, 2**64)


@given(st.lists(VALUES, max_size=6), st.integers(0, 10))
def test_template_indices_as_pairs_read_them(values, n):
    """A template instance's samples and coordinates: in range and ints (no bools), as ``is_pair`` reads each one."""
    assert _indices(values, n) == all(is_pair([v, 0], n, 1) for v in values)
