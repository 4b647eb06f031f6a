"""Deciding a reduction's instance by its source formula (exactrelu/decide/search/source.py, issue 36 item 5).

The answer comes from CaDiCaL on the formula; the certificate is in the existing not-realizable / realizes format and
the standard-library checker verifies it with its existing rules. Here: the recognition is exact (any change to an
image is refused), both answers agree with brute force and with the general engine, every tampered certificate is
refused (no false accept), the command takes the route only where it applies, and it loads no numpy or FLINT.
"""

import copy
import itertools
import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactrelu.certificates import checker
from exactrelu.certificates.checker import load_instance
from exactrelu.certificates.trusted.common import CheckFailed
from exactrelu.cli import main
from exactrelu.decide.search.pattern_search import decide
from exactrelu.decide.search.sat.solver import trace_core
from exactrelu.errors import ProofFormatError
from exactrelu.hardness import CNF, CnfToNae, NAEFormula, NaeToRelu, random_nae3
from exactrelu.decide.search import source as source_module
from exactrelu.decide.search.source import decide_source, recognize
from exactrelu.decide.search.source_proof import clause_lemmas
from exactrelu.instances import write_instance


def _file(tmp_path, formula, name="i.json"):
    path = tmp_path / name
    write_instance(NaeToRelu().apply(formula)[0], path)
    return path


def _nae_satisfiable(f: NAEFormula) -> bool:
    return any(f.satisfied_by(tau) for tau in itertools.product((False, True), repeat=f.num_vars))


#: unsatisfiable: every sign pattern of three variables (with its complement) is a clause
ALL_SIGNS = NAEFormula(3, [(1, 2, 3), (1, 2, -3), (1, -2, 3), (1, -2, -3)])


@st.composite
def nae_formulas(draw):
    """NAE formulas of 1-6 variables, clauses of three literals on distinct or repeated variables, none with a literal
    and its complement (a point of weight 1: not an image this route takes)."""
    N = draw(st.integers(1, 6))
    literal = st.integers(1, N).flatmap(lambda v: st.sampled_from((v, -v)))
    clause = st.tuples(literal, literal, literal).filter(lambda c: not any(-x in c for x in c))
    return NAEFormula(N, draw(st.lists(clause, min_size=0, max_size=16)))


@settings(max_examples=30, deadline=None)
@given(nae_formulas(), st.booleans())
def test_both_answers_agree_with_brute_force(tmp_path_factory, f, given_u):
    path = _file(tmp_path_factory.mktemp("s"), f)
    res = decide_source(load_instance(str(path)), given=given_u)
    assert res.status == ("realizable" if _nae_satisfiable(f) else "not-realizable")
    assert res.evidence["engine"] == "source"
    assert checker.check(res.certificate, load_instance(str(path))) == res.summary  # checked again, from the file
    if res.status == "realizable":
        inputs = NaeToRelu().apply(f)[0].inputs
        assert res.network.evaluate_exact(inputs).to_strings() == [["1"]] * inputs.shape[0]


def test_repeated_variables_and_cnf_images(tmp_path):
    """CnfToNae writes NAE(a, z, z) for a 1-literal clause: points 2 e_z +- e_a, and 3 e_z for the empty clause."""
    for cnf in (CNF(2, [(1,), (-1, 2), (-2,)]), CNF(2, [(1, 2), (-1, 2), (1, -2), (-1, -2)]), CNF(1, [()]),
                CNF(3, [(1, 2, 3, -1), (-2,), (-3,)])):
        nae, _ = CnfToNae().apply(cnf)
        path = _file(tmp_path, nae)
        assert recognize(load_instance(str(path))) is not None
        for given_u in (True, False):
            res = decide_source(load_instance(str(path)), given=given_u)
            general = decide(NaeToRelu().apply(nae)[0], U=[[1, 1]] if given_u else None)
            assert res.status == general.status


def _image(tmp_path):
    path = _file(tmp_path, ALL_SIGNS)
    return path, json.loads(path.read_text())


@pytest.mark.parametrize("change", [
    lambda o: o["labels"][0].__setitem__(0, "2"),                      # a label not 1
    lambda o: o["labels"][-1].__setitem__(0, "1/2"),
    lambda o: o["inputs"][0].__setitem__(0, "1/2"),                    # a gadget scaled
    lambda o: o["inputs"].__setitem__(0, o["inputs"][1]),              # a gadget's two points equal
    lambda o: o["inputs"][2].__setitem__(0, "1"),                      # a gadget point with two entries
    lambda o: o["inputs"][-1].__setitem__(0, "2"),                     # a clause point of weight 4
    lambda o: o["inputs"][-1].__setitem__(2, "0"),                     # ... of weight 2
    lambda o: o["inputs"][-1].__setitem__(0, "1/3"),                   # ... not integer
    lambda o: o["inputs"].__setitem__(-1, ["1", "0", "0"]),            # ... of weight 1 (complementary literals)
    lambda o: o["inputs"].__setitem__(-1, ["0", "0", "0"]),
    lambda o: (o["inputs"].pop(5), o["labels"].pop(5)),               # a gadget point missing
    lambda o: (o["inputs"].insert(0, o["inputs"].pop(1))),            # gadget points out of order
    lambda o: [row.append("1") for row in o["labels"]],                # two outputs
    lambda o: o.__setitem__("activation", {"name": "power", "degree": 2}),
])
def test_recognition_is_exact(tmp_path, change):
    path, obj = _image(tmp_path)
    assert recognize(load_instance(str(path))) is not None
    change(obj)
    path.write_text(json.dumps(obj))
    assert recognize(load_instance(str(path))) is None


@pytest.mark.parametrize("entry", ["true", "1.5", "null", "[1]", "{}"])
def test_the_checkers_reader_refuses_other_entries(tmp_path, entry):
    """Entries are read by type, row by row (trusted/instance.py): a bool, float, null, list or object is refused."""
    from exactrelu.certificates.trusted.common import UnreadableInput

    path, obj = _image(tmp_path)
    text = json.dumps(obj).replace('"-1"', entry, 1)
    path.write_text(text)
    with pytest.raises(UnreadableInput, match="rational strings or JSON integers"):
        load_instance(str(path))


def _refutation(tmp_path, given_u=True):
    path = _file(tmp_path, random_nae3(9, 30, seed=4))
    inst = load_instance(str(path))
    res = decide_source(inst, given=given_u)
    assert res.status == "not-realizable"
    return res.certificate, inst


def _case(cert):
    return cert["cases"][0]


def _leaves(c, t=0, lemma=0):
    return [node for node in _case(c)["templates"][t]["lemmas"][lemma]["tree"] if "farkas" in node]


TAMPERINGS = {
    "a gadget leaf's multiplier": lambda c: _leaves(c)[0]["farkas"][0].__setitem__(3, "1"),
    "a point leaf's multiplier": lambda c: max(_leaves(c, 1, 1), key=lambda x: len(x["farkas"]))[
        "farkas"][-1].__setitem__(3, "-7"),
    "a leaf's row dropped": lambda c: _leaves(c, 0, 1)[2]["farkas"].pop(),
    "two leaves exchanged": lambda c: _case(c)["templates"][0]["lemmas"][0]["tree"].__setitem__(
        slice(3, 5), _case(c)["templates"][0]["lemmas"][0]["tree"][3:5][::-1]),
    "a split dropped": lambda c: _case(c)["templates"][1]["lemmas"][0]["tree"].pop(0),
    "an assumption flipped": lambda c: _case(c)["templates"][0]["lemmas"][0]["assume"][0].__setitem__(
        2, not _case(c)["templates"][0]["lemmas"][0]["assume"][0][2]),
    "an assumption dropped": lambda c: _case(c)["templates"][1]["lemmas"][1]["assume"].pop(),
    "a lemma dropped": lambda c: _case(c)["templates"][0]["lemmas"].pop(1),
    "the lemmas of two shapes exchanged": lambda c: _case(c)["templates"][1].__setitem__(
        "lemmas", _case(c)["templates"][2]["lemmas"]),
    "a template instance dropped": lambda c: _case(c)["templates"][1]["instances"].pop(0),
    "a clause point moved": lambda c: _case(c)["templates"][1]["instances"][0][0].__setitem__(-1, 0),
    "another clause's coordinates": lambda c: _case(c)["templates"][1]["instances"][0].__setitem__(
        1, _case(c)["templates"][2]["instances"][0][1]),
    "a gadget on another coordinate": lambda c: _case(c)["templates"][0]["instances"][0][1].__setitem__(0, 8),
    "g1's multiplier": lambda c: _case(c)["lemmas"][0]["tree"][0]["farkas"][0].__setitem__(3, "1"),
    "g1 dropped": lambda c: _case(c)["lemmas"].pop(),
    "a hint dropped": lambda c: _case(c)["lrat"][-1].pop(),
    "a hint changed": lambda c: _case(c)["lrat"][len(_case(c)["lrat"]) // 2].__setitem__(-1, 1),
    "a literal flipped": lambda c: _case(c)["lrat"][-2].__setitem__(0, -_case(c)["lrat"][-2][0]),
    "the last step dropped": lambda c: _case(c)["lrat"].pop(),
    "the source steps dropped": lambda c: _case(c).__setitem__("lrat", _case(c)["lrat"][:1] + [[0, 1]]),
    "U changed": lambda c: _case(c).__setitem__("U", [["1", "2"]]),
    "the symmetry dropped": lambda c: _case(c).pop("symmetry"),
    "the symmetry on another sample": lambda c: _case(c)["symmetry"].__setitem__("sample", 1),
    "another hash": lambda c: c.__setitem__("instance_sha256", "0" * 64),
    "an output bias claimed": lambda c: c.__setitem__("model", {"biases": False, "output_bias": True}),
    "hidden biases claimed": lambda c: c.__setitem__("model", {"biases": True, "output_bias": False}),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_every_tampering_is_refused(tmp_path, name):
    cert, inst = _refutation(tmp_path)
    bad = copy.deepcopy(cert)
    TAMPERINGS[name](bad)
    with pytest.raises(CheckFailed):
        checker.check(bad, inst)


def test_unknown_cases_tampered_and_moved(tmp_path):
    cert, inst = _refutation(tmp_path, given_u=False)
    assert [c["U"] for c in cert["cases"]] == [[["1", "1"]], [["1", "0"]], [["1", "-1"]], [["0", "0"]],
                                               [["0", "-1"]], [["-1", "-1"]]]
    for t in range(1, 6):  # each sign case's lemmas and steps, altered
        bad = copy.deepcopy(cert)
        bad["cases"][t]["lemmas"][0]["tree"][0]["farkas"][0][3] = "-1"
        with pytest.raises(CheckFailed):
            checker.check(bad, inst)
    bad = copy.deepcopy(cert)
    bad["cases"][1], bad["cases"][2] = bad["cases"][2], bad["cases"][1]
    with pytest.raises(CheckFailed):
        checker.check(bad, inst)
    # the same proof on a satisfiable image of as many variables: another instance, another hash; and with the hash
    # rewritten, its lemmas or steps no longer hold
    sat_path = _file(tmp_path, random_nae3(9, 30, seed=4, planted=True), "sat.json")
    other = load_instance(str(sat_path))
    assert decide_source(other, given=False).status == "realizable"
    with pytest.raises(CheckFailed):
        checker.check(cert, other)
    moved = dict(cert, instance_sha256=other["parsed"][2])
    with pytest.raises(CheckFailed):
        checker.check(moved, other)


def test_a_refused_certificate_is_never_an_answer(tmp_path, monkeypatch, capsys):
    """A bug in the writer makes the checker refuse: the command decides by the general path instead."""
    real = source_module.case_refutation

    def broken(*args):
        case = real(*args)
        case["lrat"][-1] = case["lrat"][-1][:2]
        return case

    monkeypatch.setattr(source_module, "case_refutation", broken)
    path = _file(tmp_path, ALL_SIGNS)
    assert decide_source(load_instance(str(path)), given=True) is None
    assert main(["hardness", "decide", str(path), "--U", "1,1", "-o", str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr().out
    assert "solver rounds" in out and "source formula" not in out
    assert checker.main([str(tmp_path / "c.json"), str(path)]) == 0


def test_the_command_takes_the_route_where_it_applies(tmp_path, capsys):
    path = _file(tmp_path, ALL_SIGNS)
    cert = tmp_path / "c.json"
    for extra in ([], ["--U", "1,1"], ["--U", "2/2, 1"], ["--method", "exact"], ["--json"], ["-v"]):
        assert main(["hardness", "decide", str(path), "-o", str(cert)] + extra) == 0
        out = capsys.readouterr()
        assert "source formula" in out.out or '"engine": "source"' in out.out
        if "-v" in extra:
            assert "source formula" in out.err
        assert checker.main([str(cert), str(path)]) == 0
    small = _file(tmp_path, NAEFormula(1, [(1, 1, 1)]), "small.json")  # the general path is slower: a tiny image
    assert main(["hardness", "decide", str(small), "-o", str(cert)]) == 0
    assert "source formula" in capsys.readouterr().out
    for extra in (["--engine", "lazy"], ["--engine", "tree"], ["--proof", "drup"], ["-k", "3"], ["--U", "1,2"],
                  ["--max-nodes", "100"], ["--bias", "output"]):
        assert main(["hardness", "decide", str(small), "-o", str(cert)] + extra) == 0
        assert "source formula" not in capsys.readouterr().out
    assert main(["hardness", "decide", str(path), "--U", "1,x", "-o", str(cert)]) == 2  # the general path's error
    (tmp_path / "bad.json").write_text("{")
    assert main(["hardness", "decide", str(tmp_path / "bad.json"), "-o", str(cert)]) == 2
    sat = _file(tmp_path, NAEFormula(2, [(1, 1, 2)]), "sat.json")
    assert main(["hardness", "decide", str(sat), "-o", str(cert)]) == 0
    assert "realizable: certificate (realizes)" in capsys.readouterr().out
    assert checker.main([str(cert), str(sat)]) == 0
    assert main(["hardness", "decide", str(sat), "--time-limit", "0", "-o", str(tmp_path / "x.json")]) == 1
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("planted", [False, True])
def test_the_program_loads_no_numpy_nor_flint(tmp_path, planted):
    path = _file(tmp_path, random_nae3(30, 66, seed=1, planted=planted))
    """Nor dataclasses (with inspect: 6 ms of the 0.3 s at N = 200); the collector, paused on the route, is back."""
    code = ("import sys; sys.argv = ['exactrelu'] + sys.argv[1:]; import exactrelu.cli as c; rc = c.main(); import gc; "
            "print(gc.isenabled(), sorted(m for m in ('numpy', 'flint', 'scipy', 'dataclasses') if m in sys.modules)); "
            "sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, "hardness", "decide", str(path), "-o", str(tmp_path / "c.json")],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.returncode == 0, proc.stderr
    assert "source formula" in proc.stdout and proc.stdout.strip().endswith("True []")
    assert ("realizable: certificate (realizes)" in proc.stdout) == planted


def test_the_route_leaves_the_collector_as_it_found_it(tmp_path, capsys):
    """Paused while the route runs (what it made then goes to the oldest generation, nothing left frozen), then as it
    was: on, or off."""
    import gc

    path, cert = _file(tmp_path, ALL_SIGNS), str(tmp_path / "c.json")
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            assert main(["hardness", "decide", str(path), "-o", cert, "--json"]) == 0
            assert gc.isenabled() is enabled and gc.get_freeze_count() == 0
            record = json.loads(capsys.readouterr().out)
            assert record["stats"]["engine"] == "source" and record["model"] == {"biases": False, "output_bias": False}
    finally:
        gc.enable()


def test_the_answer_is_the_decisions(tmp_path):
    """``answer_by_source`` (the command line's, no Decision) and ``decide_source`` give one answer."""
    for formula, given_u in ((ALL_SIGNS, True), (ALL_SIGNS, False), (NAEFormula(2, [(1, 1, 2)]), False)):
        inst = load_instance(str(_file(tmp_path, formula)))
        answer, res = source_module.answer_by_source(inst, given=given_u), decide_source(inst, given=given_u)
        assert (answer.status, answer.summary) == (res.status, res.summary)
        assert {**answer.certificate, "provenance": 0} == {**res.certificate, "provenance": 0}
        assert (res.network is None) == (res.status == "not-realizable")


def test_the_closed_form_lemmas_are_the_checkers_trees():
    """Every lemma written in closed form is a case tree the checker's rule accepts on its template's data, on every
    shape a clause point of three literals can have."""
    from fractions import Fraction

    from exactrelu.certificates.trusted.refutation import _check_tree, support

    U = [[Fraction(1), Fraction(1)]]
    for values in ((1, 1, 1), (1, 1, -1), (1, -1, -1), (-1, -1, -1), (2, 1), (2, -1), (1, -2), (-1, -2), (3,), (-3,)):
        X = [row for q in range(len(values)) for row in ([(q, Fraction(1))], [(q, Fraction(-1))])]
        X.append([(q, Fraction(c)) for q, c in enumerate(values)])
        Y = [[Fraction(1)]] * len(X)
        lemmas = clause_lemmas(values)
        assert len(lemmas) == 2
        for lemma in lemmas:
            dec = {(j, i): a for j, i, a in lemma["assume"]}
            leaves = sum("farkas" in node for node in lemma["tree"])
            assert _check_tree(lemma["tree"], dec, [], X, Y, U, 2, support(U)) == leaves


@pytest.mark.parametrize("trace", [b"", b"5 1 0 1 2 0\n", b"5 0 1\n", b"5 x 0 1 0\n", b"5 0 6 0\n", b"5 0 0\n",
                                   b"5 1 0 5 0\n6 0 5 0\n", b"5 1 0 1 0\n6 0 5 9 0\n"])
def test_malformed_traces(trace):
    with pytest.raises(ProofFormatError):
        trace_core(trace, [0, 1, 2, 3])


def test_a_trace_read_back():
    inputs, steps = trace_core(b"5 2 0 2 4 0\n5 d 2 0\n6 0 5 1 3 0\n", [3, 2, 1, 0])
    assert steps == [([2], [-3, -1]), ([], [0, -4, -2])] and inputs == [0, 1, 2, 3]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["0", "1", "-1", "10", "-0", "01", "+1", "", "-", "1 ", " 1", "1/1", "2/4", "00",
                                 "123456789", "-5", "1e3", "0x1", "١"]), min_size=1, max_size=6))
def test_rows_of_integers_read_in_bulk_as_entry_by_entry(row):
    """The checker's bulk reading of a row with no "/" (trusted/instance.py) gives what ``entry`` gives entry by
    entry, or declines (None) and leaves the row to it."""
    from exactrelu.certificates.trusted.instance import _canonical_text, entry

    got = _canonical_text(row, " ".join(row))
    try:
        es = [entry(x) for x in row]
    except CheckFailed:
        es = None
    if got is not None:
        assert es is not None and got == ([e[0] for e in es], [e[1] for e in es])
        assert " ".join(e[2] for e in es) == " ".join(row)  # the hashed text is the row's own


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.integers(-3, 3) | st.sampled_from(["d", "], [", "["]),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from("ab"), inner),
                    max_leaves=20), st.integers(1, 4))
def test_the_layout_is_the_same_json(obj, depth):
    import io

    from exactrelu.io.layout import dump_layout

    buf = io.StringIO()
    dump_layout(obj, buf, depth)
    assert json.loads(buf.getvalue()) == obj


def test_lists_of_steps_are_laid_out_one_a_line():
    import io

    from exactrelu.io.layout import dump_layout

    buf = io.StringIO()
    dump_layout({"lrat": [[1, 0, 2], [], ["d", 4], [0, 1]]}, buf, 2)
    assert buf.getvalue() == '{\n "lrat": [\n  [1, 0, 2],\n  [],\n  ["d", 4],\n  [0, 1]\n ]\n}'
