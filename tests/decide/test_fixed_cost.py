"""The fixed cost of `hardness decide` (issue 25 item 5): the cache of compiled cluster shapes (never trusted: stale,
corrupted, truncated and forged files are ignored), the resumable case search, the proof walk, the streamed write."""

import io
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactrelu.certificates.envelope import dump_layout, verify, write_certificate
from exactrelu.certificates.trusted.common import CheckFailed
from exactrelu.certificates.trusted.refutation import _refute_leaf
from exactrelu.decide.search import lemma_cache
from exactrelu.decide.search.clusters import ClusterRefutation, clusters, compile_cluster
from exactrelu.decide.search.lazy import CaseSearch, solve_case
from exactrelu.decide.search.request import SearchRequest
from exactrelu.decide.search.pattern_search import decide
from exactrelu.decide.search.rows import Rows
from exactrelu.decide.search.sat import proof
from exactrelu.hardness import NaeToRelu, random_nae3


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty disk cache of this test, and an empty memory cache."""
    monkeypatch.setenv("EXACTRELU_CACHE", str(tmp_path))
    lemma_cache._MEMORY.clear()
    yield tmp_path / "lemmas"
    lemma_cache._MEMORY.clear()


def _unsat(N=12, seed=3):
    f = random_nae3(N, round(2.6 * N), seed=seed)
    return NaeToRelu().apply(f)[0]


def _files(folder):
    return sorted(folder.glob("*.json")) if folder.exists() else []


def test_the_second_decision_reads_the_shapes_from_disk_and_writes_the_same_certificate(cache):
    inst = _unsat()
    first = decide(inst, U=[[1, 1]])
    assert first.status == "not-realizable" and "shapes_cached" not in first.evidence
    files = _files(cache)
    assert len(files) == first.evidence["shapes_compiled"] > 0
    lemma_cache._MEMORY.clear()  # a new process: only the disk is left
    again = decide(inst, U=[[1, 1]])
    assert again.evidence["shapes_cached"] == len(files) and again.evidence["lps"] < first.evidence["lps"]
    drop = lambda c: {k: v for k, v in c.items() if k != "provenance"}  # noqa: E731
    assert drop(again.certificate) == drop(first.certificate)
    assert verify(again.certificate, inst).startswith("not-realizable")


def test_cache_off_writes_nothing_and_an_unwritable_cache_is_only_no_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EXACTRELU_CACHE", "off")
    lemma_cache._MEMORY.clear()
    assert lemma_cache.cache_dir() is None
    assert decide(_unsat(8, 1), U=[[1, 1]]).status == "not-realizable"
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("EXACTRELU_CACHE", str(blocker))  # lemmas/ cannot be made under a file
    lemma_cache._MEMORY.clear()
    assert decide(_unsat(8, 1), U=[[1, 1]]).status == "not-realizable"
    lemma_cache._MEMORY.clear()


def _spoil(path, how):
    text = path.read_text()
    obj = json.loads(text)
    if how == "truncated":
        return text[: len(text) // 2]
    if how == "garbage":
        return "\x00\xff not json"
    if how == "checksum":
        obj["sha256"] = "0" * 64
    elif how == "stale":  # another compiler version: the key no longer matches
        obj["key"] = obj["key"].replace("exactrelu ", "exactrelu 0.0.0-old ", 1)
    elif how == "forged":  # a multiplier changed and the checksum recomputed: only the exact re-check sees it
        for item in obj["refutations"] or []:
            row = item[0][0]
            row[3] = str(Fraction(row[3]) * 3 + 1)
        obj["sha256"] = lemma_cache._digest(obj["refutations"])
    elif how == "literal dropped":  # a lemma whose rows need a literal it does not name: an unsound clause
        for item in obj["refutations"] or []:
            item[1] = item[1][1:]
        obj["sha256"] = lemma_cache._digest(obj["refutations"])
    elif how == "not a list":
        obj["refutations"] = {"a": 1}
        obj["sha256"] = lemma_cache._digest(obj["refutations"])
    return json.dumps(obj)


@pytest.mark.parametrize("how", ["truncated", "garbage", "checksum", "stale", "forged", "literal dropped",
                                 "not a list"])
def test_a_spoiled_cache_file_is_ignored_recompiled_and_rewritten(cache, how):
    inst = _unsat()
    first = decide(inst, U=[[1, 1]])
    files = [p for p in _files(cache) if json.loads(p.read_text())["refutations"]]  # shapes with lemmas
    assert files
    for p in files:
        p.write_text(_spoil(p, how))
    lemma_cache._MEMORY.clear()
    again = decide(inst, U=[[1, 1]])
    assert again.evidence.get("shapes_cached", 0) == len(_files(cache)) - len(files)  # the spoiled ones recompiled
    assert verify(again.certificate, inst).startswith("not-realizable")
    assert again.certificate["cases"] == first.certificate["cases"]
    for p in files:  # rewritten whole
        obj = json.loads(p.read_text())
        assert obj["sha256"] == lemma_cache._digest(obj["refutations"]) and "0.0.0-old" not in obj["key"]


def _checker_accepts(R, members, coords, core, assumed) -> bool:
    """The trusted checker's verdict on one refutation, on the cluster's local data (as for a template lemma)."""
    q = {t: p for p, t in enumerate(coords)}
    Xl = [[(q[t], R.X[j][t]) for t in R.supp[j]] for j in members]
    Yl = [R.Y[j] for j in members]
    leaf = {"farkas": [[kind, p, x, str(y)] for (kind, p, x), y in core]}
    try:
        _refute_leaf(leaf, dict(assumed), Xl, Yl, R.U, R.k)
    except CheckFailed:
        return False
    return True


def test_compiled_refutations_verify_and_tampered_ones_verify_exactly_when_the_checker_accepts_them():
    inst = _unsat(10, 2)
    X, Y = inst.inputs.to_fractions(), inst.labels.to_fractions()
    for U in ([[Fraction(1), Fraction(1)]], [[Fraction(1), Fraction(-1)]]):
        R = Rows(X, Y, U)
        tried = rejected = 0
        for c in clusters(R)[:6]:
            stats = {"lps": 0}
            out = compile_cluster(R, c.members, "auto", stats, 20000)
            assert out and lemma_cache.verified(R, c.members, out)
            for core, assumed in out[:4]:
                (tag, y), rest = core[0], core[1:]
                for bad in ([(tag, y * 2 + 1)] + rest, [(tag, -y - 1)] + rest, rest, core[:1],
                            [(tag, y)] + [(t, 2 * z) for t, z in rest], [(t, -z) for t, z in core]):
                    ours = lemma_cache.verified(R, c.members, [ClusterRefutation(bad, assumed)])
                    assert ours == _checker_accepts(R, c.members, c.coords, bad, assumed), (bad, assumed)
                    rejected += not ours
                for bad in ([((tag[0], len(c.members), tag[2]), y)] + rest, [(("nope", tag[1], tag[2]), y)] + rest):
                    assert not lemma_cache.verified(R, c.members, [ClusterRefutation(bad, assumed)])
                assert not lemma_cache.verified(R, c.members, [ClusterRefutation(core, {})])
                assert not lemma_cache.verified(R, c.members, [ClusterRefutation(core, {**assumed, (0, 7): True})])
                tried += 1
        assert tried and rejected


def test_the_key_names_everything_a_compilation_depends_on():
    X = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(-1, 2)]]
    Y = [[Fraction(1)], [Fraction(1)]]
    a = Rows(X, Y, [[Fraction(1), Fraction(1)]])
    b = Rows(X, Y, [[Fraction(1), Fraction(-1)]])
    key = lemma_cache.shape_key(a, [0, 1], (0, 1), "auto", 100)
    assert key != lemma_cache.shape_key(b, [0, 1], (0, 1), "auto", 100)  # U
    assert key != lemma_cache.shape_key(a, [0, 1], (0, 1), "exact", 100)  # method
    assert key != lemma_cache.shape_key(a, [0, 1], (0, 1), "auto", 101)  # node budget
    assert key != lemma_cache.shape_key(a, [1, 0], (0, 1), "auto", 100)  # the members' order (their data)
    assert "1:-1/2 | 1" in key and lemma_cache.compiler_version() in key


def test_a_case_search_paused_and_resumed_decides_as_one_run():
    inst = _unsat(14, 5)
    X, Y = inst.inputs.to_fractions(), inst.labels.to_fractions()
    U = [[Fraction(1), Fraction(1)]]
    whole = solve_case(SearchRequest(X, Y), U)
    s = CaseSearch(SearchRequest(X, Y), U)
    try:
        calls, res = 0, None
        while res is None:
            res = s.run(conflicts=5)
            calls += 1
        assert res.status == whole.status == "not-realizable" and calls >= 1
        assert s.run() is res  # decided: asked again, the same answer
    finally:
        s.close()
    cert = {"U": [["1", "1"]], **res.case}
    assert cert["lrat"][-1][0] == 0  # it ends in the empty clause
    s = CaseSearch(SearchRequest(X, Y), U)
    s.reset()  # a fresh solver on the same clauses decides the same
    assert s.run().status == "not-realizable"
    s.close()


def test_unknown_u_asks_the_float_fit_only_for_cases_left_open_past_the_rent(monkeypatch):
    from exactrelu.decide.search import pattern_search
    from exactrelu.instances import planted

    monkeypatch.setattr(pattern_search, "HINT_AFTER", 0.0)  # the fit is bought as soon as a case stays open
    monkeypatch.setattr(pattern_search, "HINT_RATE", float("inf"))
    inst = _unsat(12, 3)
    res = decide(inst)  # (1, 1) and every other case fall within their first tries: no case is left for the fit
    assert res.status == "not-realizable" and "hint_seconds" not in res.evidence
    assert verify(res.certificate, inst).startswith("not-realizable")
    sat = planted(d=3, k=2, m=1, n=25, seed=5)
    bought = decide(sat)
    assert "hint_seconds" in bought.evidence
    monkeypatch.setattr(pattern_search, "HINT_AFTER", 1e9)  # the search always finishes before the fit would pay
    rented = decide(sat)
    assert "hint_seconds" not in rented.evidence
    for r in (bought, rented):
        assert r.realizable and r.network.evaluate_exact(sat.inputs) == sat.labels


def _plain_reach(n, src, dst, root):
    out, todo = {root}, [root]
    edges = {}
    for a, b in zip(src.tolist(), dst.tolist()):
        edges.setdefault(a, []).append(b)
    while todo:
        for b in edges.get(todo.pop(), []):
            if b not in out:
                out.add(b)
                todo.append(b)
    return sorted(out)


@given(st.integers(2, 60), st.lists(st.tuples(st.integers(0, 59), st.integers(0, 59)), max_size=150),
       st.sampled_from([(20000, 500), (0, 3)]))
def test_the_proof_walk_reaches_what_a_plain_search_reaches_deep_or_not(n, pairs, limits):
    """Edges go from a step to earlier steps; a chain makes a deep walk (handed to scipy past the level limit)."""
    edges = sorted({(a % n, b % n) for a, b in pairs if b % n < a % n} | {(t, t - 1) for t in range(1, n, 2)})
    src = np.array([a for a, _ in edges], dtype=np.int64)
    dst = np.array([b for _, b in edges], dtype=np.int64)
    old = proof.SMALL_TRACE, proof.MAX_LEVELS
    proof.SMALL_TRACE, proof.MAX_LEVELS = limits
    try:
        assert proof._reachable(n, src, dst, n - 1).tolist() == _plain_reach(n, src, dst, n - 1)
    finally:
        proof.SMALL_TRACE, proof.MAX_LEVELS = old


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                                      max_size=4), max_leaves=30)


@given(json_values, st.integers(0, 5))
def test_the_streamed_layout_is_the_same_json(value, depth):
    buf = io.StringIO()
    dump_layout(value, buf, depth=depth)
    assert json.loads(buf.getvalue()) == value


def test_a_written_refutation_reads_back_equal(tmp_path):
    inst = _unsat(8, 0)
    res = decide(inst, U=[[1, 1]])
    path = write_certificate(res.certificate, tmp_path / "c.json")
    text = path.read_text()
    assert json.loads(text) == res.certificate and text.count("\n") > len(res.certificate["cases"][0]["lrat"])


def test_the_compiler_version_hashes_files_that_exist():
    """Every source the cache key hashes is a file of the package (a moved module would silently drop out)."""
    from pathlib import Path

    root = Path(lemma_cache.__file__).resolve().parents[2]
    assert root.name == "exactrelu"
    assert [name for name in lemma_cache._SOURCES if not (root / name).is_file()] == []
