"""Mutation testing of the independent checker (the trusted base), with the standard library only.

A test suite that cannot see a broken checker is no guarantee: this script makes small changes
(mutants) to the files of ``checker.TRUSTED_FILES``, one at a time, and runs the checker's tests
against each. A mutant the tests reject is *killed*; one they accept *survives* and must be shown
harmless (equivalent to the original) or killed by a new test.

Mutations (on the syntax tree, never in strings or docstrings):

* comparisons: ``==``/``!=``, ``<``/``<=``, ``>``/``>=``, ``in``/``not in``, ``is``/``is not``;
* ``and``/``or``; ``not x`` -> ``x``; ``any``/``all``;
* integer constants c -> c + 1 and c -> c - 1; ``True``/``False``;
* ``+``/``-``; ``range(x)`` -> ``range(x - 1)``;
* a ``raise`` -> ``pass`` (a check deleted); a ``continue`` -> ``pass``;
* **statement deletion**: any other statement -> ``pass`` (an assignment, a call, a ``return``, a whole
  ``if``/``for`` block; never a ``def``, ``class``, import or docstring): the operator that found the two
  unsound DRUP-replay mutants of issue 26;
* an ``if`` (or ``elif``) condition -> ``True`` and -> ``False``;
* an augmented assignment ``x op= y`` -> ``x = y``;
* the two adjacent positional arguments of a call swapped, ``f(a, b)`` -> ``f(b, a)``;
* two local variables loaded in one statement swapped there (sibling variables: ``i`` and ``j``,
  ``n`` and ``m``, ``X`` and ``Y``), every occurrence of each in that statement.

Each mutant is written into a copy of the package and the tests run in a fresh interpreter with
``pytest -x`` (stop at the first failure) and a timeout (a mutant that loops forever counts as
killed). Results go to results/mutate_checker.json; the survivors are listed with their line.

The fast checker (``exactrelu/certificates/fast/``, ``--fast``) is mutated the same way, against its own tests (the
agreement with the reference on the corpus and on tampered certificates, and its arithmetic against Python integers).

Usage::

    python benchmarks/mutate_checker.py                       # every file, every mutant (long)
    python benchmarks/mutate_checker.py --fast --sample 40    # the fast checker's files, 40 mutants each
    python benchmarks/mutate_checker.py --files trusted/lrat.py --sample 40 --seed 1
    python benchmarks/mutate_checker.py --list                # count the mutants only
    python benchmarks/mutate_checker.py --files trusted/span.py --lines 88-135   # the mutants of some lines only
    python benchmarks/mutate_checker.py --files trusted/schedule.py --lines 149-210 \
        --tests tests/certificates/test_pool_stop.py tests/certificates/test_verify_workers.py   # other tests
"""

from __future__ import annotations

import argparse
import ast
import copy
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PKG = ROOT / "exactrelu" / "certificates"

#: the tests that exercise each trusted file (every checker test for checker.py and common.py), fast killers first
_C = "tests/certificates/"
_ALL = [_C + "test_checker_mutants.py", _C + "test_certificates.py", "tests/corpus/test_corpus.py", _C + "test_checker_limits.py",
        _C + "test_hostile_work.py", _C + "test_mutant_killers.py",
        "tests/io/test_limits.py", "tests/io/test_npz.py", _C + "test_span_checker.py", _C + "test_lp_checker.py",
        _C + "test_claims_biases_residuals.py", _C + "test_model_classes.py", _C + "test_case_trees.py",
        _C + "test_hinted_check.py", _C + "test_drup_upgrade.py", "tests/decide/test_span_refutation.py",
        "tests/decide/test_pattern_search.py", "tests/decide/test_lazy.py", "tests/decide/test_hints.py"]
TESTS = {
    "checker.py": _ALL,
    "trusted/common.py": _ALL,  # shared by every claim
    "trusted/instance.py": [_C + "test_mutants_source_rows.py"] + _ALL[:6]
    + ["tests/io/test_exactness.py", "tests/decide/test_source.py"] + _ALL[6:],
    "trusted/npz.py": [_C + "test_checker_mutants.py", "tests/io/test_npz.py", "tests/io/test_limits.py",
                       _C + "test_checker_limits.py", _C + "test_hostile_work.py", "tests/corpus/test_corpus.py",
                       _C + "test_certificates.py", _C + "test_checker_ranges.py", _C + "test_mutant_killers.py"],
    "trusted/realizes.py": [_C + "test_checker_mutants.py", _C + "test_certificates.py", "tests/corpus/test_corpus.py",
                            _C + "test_hostile_work.py", _C + "test_mutant_killers.py",
                            _C + "test_claims_biases_residuals.py", _C + "test_model_classes.py",
                            "tests/network/test_output_bias.py", _C + "test_deep_realizes.py"],
    # the corpus first: it kills a broken check in 1 s (a hypothesis test that fails takes 5 s to shrink)
    "trusted/realizes_bounds.py": ["tests/corpus/test_corpus.py", _C + "test_mutants_bounds.py",
                                   _C + "test_residual_sums.py", _C + "test_deep_realizes.py",
                                   _C + "test_bound_per_sample.py", _C + "test_sample_bits.py",
                                   _C + "test_checker_limits.py", _C + "test_hostile_work.py"],
    "trusted/refutation.py": [_C + "test_mutants_source_rows.py", _C + "test_checker_mutants.py",
                              "tests/decide/test_source.py",
                              _C + "test_output_bias_checker.py",
                              "tests/corpus/test_corpus.py", _C + "test_case_trees.py",
                              _C + "test_hostile_work.py", _C + "test_mutant_killers.py",
                              _C + "test_hinted_check.py", _C + "test_checker_limits.py", _C + "test_model_classes.py",
                              _C + "test_drup_upgrade.py", "tests/decide/test_pattern_search.py", "tests/decide/test_lazy.py"],
    "trusted/lrat.py": [_C + "test_checker_mutants.py", _C + "test_hinted_check.py", "tests/corpus/test_corpus.py",
                        _C + "test_hostile_work.py", _C + "test_mutant_killers.py",
                        _C + "test_checker_limits.py", _C + "test_drup_upgrade.py", "tests/decide/test_hints.py"],
    "trusted/span.py": [_C + "test_checker_mutants.py", _C + "test_output_bias_checker.py", _C + "test_span_checker.py",
                        "tests/corpus/test_corpus.py",
                        _C + "test_model_classes.py", "tests/decide/test_span_refutation.py"],
    "trusted/lp.py": [_C + "test_checker_mutants.py", _C + "test_lp_checker.py", "tests/corpus/test_corpus.py",
                      _C + "test_checker_limits.py"],
    "trusted/tree.py": [_C + "test_checker_mutants.py", _C + "test_mutant_killers.py", "tests/corpus/test_corpus.py", _C + "test_case_trees.py",
                        _C + "test_span_checker.py", _C + "test_checker_limits.py", _C + "test_deep_claims.py"],
    "trusted/model.py": [_C + "test_model_classes.py", _C + "test_output_bias_checker.py",
                         "tests/corpus/test_corpus.py", _C + "test_span_checker.py",
                         _C + "test_case_trees.py"],
    "trusted/equivalence.py": [_C + "test_equivalence_claims.py", "tests/corpus/test_corpus.py", _C + "test_hostile_work.py",
                               _C + "test_mutant_killers.py",
                               "tests/equiv/test_functional_equality.py", "tests/equiv/test_minimize.py",
                               _C + "test_deep_claims.py", _C + "test_box_claims.py", _C + "test_top1_claims.py"],
    "trusted/deep.py": [_C + "test_deep_claims.py", _C + "test_deep_realizes.py", "tests/corpus/test_corpus.py",
                        "tests/equiv/test_deep_equivalence.py", "tests/equiv/test_subtree_pool.py"],
    "trusted/phases.py": [_C + "test_relaxed_claims.py", _C + "test_mutants_relaxed.py", _C + "test_top1_claims.py",
                          _C + "test_deep_claims.py", _C + "test_box_claims.py",
                          "tests/corpus/test_corpus.py",
                          "tests/equiv/test_deep_equivalence.py", "tests/equiv/test_relaxed_search.py"],
    # the checker's scheduling (moved out of checker.py, issue 35): its tests are checker.py's, ranges and workers first
    "trusted/schedule.py": [_C + "test_pool_stop.py", _C + "test_mutants_schedule.py", _C + "test_checker_ranges.py",
                            _C + "test_verify_workers.py", _C + "test_checker_collector.py",
                            "tests/recover/test_streaming.py"] + _ALL,
    "trusted/transcript.py": [_C + "test_transcript_claim.py", "tests/corpus/test_corpus.py", "tests/extract/test_extract.py"],
}

#: the fast checker's files and their tests (agreement with the reference first: it kills most mutants)
_F = [_C + "test_fast_checker.py", _C + "test_bound_per_sample.py", _C + "test_fast_checker_handoff.py",
      _C + "test_fast_arithmetic.py",
      _C + "test_verify_workers.py", _C + "test_fast_deep.py"]
FAST_FILES = ("fast/__init__.py", "fast/blocks.py", "fast/deep.py", "fast/limbs.py", "fast/network.py",
              "fast/numbers.py", "fast/sources.py")
TESTS.update({name: _F for name in FAST_FILES})
#: deep networks (issue 36 item 2): their own tests first, which kill most of their mutants quickly
TESTS["fast/deep.py"] = [_C + "test_fast_deep.py", _C + "test_fast_arithmetic.py"] + _F[:2]

#: a slow test of plumbing (a wall-clock limit), not of verdicts: left out of the mutant runs (the checker's
#: command-line tests stay in: they call main() in-process and pin its exit codes and help text)
DESELECT = ("not test_time_limit_interrupts_the_solver and not test_the_checker_command_gives_each_verdict "
            "and not test_the_corpus_is_what_its_generator_writes")  # the corpus runs in-process as well

#: statements never deleted (deleting them breaks the module at import: killed trivially, says nothing)
_KEEP = (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Pass, ast.Global, ast.Nonlocal)

SWAP_CMP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
            ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


def _docstrings(tree) -> set[int]:
    """ids of docstring expression nodes (never mutated)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first))
    return out


def mutation_points(tree) -> list[tuple[int, str, int]]:
    """(node index in ast.walk order, kind, line) of every mutation of ``tree``."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.JoinedStr, ast.Assign)) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in getattr(node, "targets", [])):
            skip |= {id(n) for n in ast.walk(node)}
        if isinstance(node, ast.JoinedStr):
            skip |= {id(n) for n in ast.walk(node)}
        if id(node) in _docstrings(tree):
            skip |= {id(n) for n in ast.walk(node)}
    points, scope = [], _scopes(tree)
    for i, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            for j, op in enumerate(node.ops):
                if type(op) in SWAP_CMP:
                    points.append((i, f"cmp{j}", line))
        elif isinstance(node, ast.BoolOp):
            points.append((i, "boolop", line))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            points.append((i, "not", line))
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            points.append((i, "bool", line))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            points.append((i, "int+1", line))
            if node.value != 0:
                points.append((i, "int-1", line))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            points.append((i, "addsub", line))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("any", "all"):
                points.append((i, "anyall", line))
            elif node.func.id == "range" and node.args:
                points.append((i, "range-1", line))
        elif isinstance(node, ast.Raise):
            points.append((i, "raise", line))
        elif isinstance(node, ast.Continue):
            points.append((i, "continue", line))
        points += _new_points(node, i, line, scope.get(id(node), set()))
    return points


def _new_points(node, i, line, local: set) -> list:
    """The operators added for issue 26: statement deletion, if -> True/False, x op= y -> x = y, swaps."""
    out = []
    if isinstance(node, ast.stmt) and not isinstance(node, _KEEP + (ast.Raise, ast.Continue)):
        out.append((i, "delete", line))
    if isinstance(node, ast.If):
        out += [(i, "if-true", line), (i, "if-false", line)]
    if isinstance(node, ast.AugAssign):
        out.append((i, "augassign", line))
    if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args):
        out += [(i, f"argswap{j}", line) for j in range(len(node.args) - 1)
                if ast.dump(node.args[j]) != ast.dump(node.args[j + 1])]
    if isinstance(node, ast.stmt) and not isinstance(node, _KEEP + (ast.If, ast.For, ast.While, ast.With, ast.Try)):
        names = _sibling_names(node, local)
        out += [(i, f"varswap:{a}:{b}", line) for a, b in itertools.combinations(names, 2)]
    return out


def _sibling_names(stmt, local: set) -> list[str]:
    """The function's own variables loaded in one simple statement, in order (not the names it calls, not globals:
    swapping ``len`` and ``CheckFailed`` says nothing)."""
    called = {id(n.func) for n in ast.walk(stmt) if isinstance(n, ast.Call)}
    names: list = []
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in called and n.id in local \
                and n.id not in names:
            names.append(n.id)
    return names


def _scopes(tree) -> dict:
    """id(statement) -> the variables of its innermost function and of the functions around it."""
    fns = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]  # breadth first: outer before inner
    parent: dict = {}
    for fn in fns:
        for sub in ast.walk(fn):
            if isinstance(sub, ast.FunctionDef) and sub is not fn:
                parent[id(sub)] = fn
    local, scope = {}, {}
    for fn in fns:
        own = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
        own |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        local[id(fn)] = own | (local[id(parent[id(fn)])] if id(fn) in parent else set())
        for sub in ast.walk(fn):
            if isinstance(sub, ast.stmt):
                scope[id(sub)] = local[id(fn)]
    return scope


class _Apply(ast.NodeTransformer):
    def __init__(self, target: int, kind: str, order: dict):
        self.target, self.kind, self.order = target, kind, order

    def generic_visit(self, node):
        node = super().generic_visit(node)
        return node

    def visit(self, node):
        node = self.generic_visit(node) if self.order.get(id(node)) != self.target else node
        if self.order.get(id(node)) != self.target:
            return node
        k = self.kind
        if k.startswith("cmp"):
            j = int(k[3:])
            node.ops[j] = SWAP_CMP[type(node.ops[j])]()
        elif k == "boolop":
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif k == "not":
            return node.operand
        elif k == "bool":
            node.value = not node.value
        elif k == "int+1":
            node.value += 1
        elif k == "int-1":
            node.value -= 1
        elif k == "addsub":
            node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        elif k == "anyall":
            node.func.id = "all" if node.func.id == "any" else "any"
        elif k == "range-1":
            node.args[-1 if len(node.args) > 1 else 0] = ast.BinOp(node.args[-1 if len(node.args) > 1 else 0], ast.Sub(),
                                                                   ast.Constant(1))
        elif k in ("raise", "continue", "delete"):
            return ast.Pass()
        elif k in ("if-true", "if-false"):
            node.test = ast.Constant(k == "if-true")
        elif k == "augassign":
            return ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)
        elif k.startswith("argswap"):
            j = int(k[7:])
            node.args[j], node.args[j + 1] = node.args[j + 1], node.args[j]
        elif k.startswith("varswap:"):
            _, a, b = k.split(":")
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in (a, b):
                    n.id = b if n.id == a else a
        return node


def mutant_source(source: str, index: int, kind: str) -> str:
    tree = ast.parse(source)
    order = {id(n): i for i, n in enumerate(ast.walk(tree))}
    new = _Apply(index, kind, order).visit(tree)
    ast.fix_missing_locations(new)
    return ast.unparse(new)


#: how many of a file's test files run first, alone (collecting every test file imports the whole library: 10 s a
#: mutant under load; most mutants die in the first files); the rest run only when the first ones pass
FIRST = 2


def run_tests(workdir: Path, tests: list[str], timeout: float) -> tuple[str, float, str]:
    """Run ``tests`` on the package copy in ``workdir``: the first :data:`FIRST` files, then (if they pass) the rest;
    a mutant is killed exactly when some test fails, as in one run of them all."""
    env = dict(os.environ, PYTHONPATH=str(workdir), HYPOTHESIS_PROFILE="ci", PYTHONDONTWRITEBYTECODE="1")
    paths = [str(ROOT / t) for t in tests if (ROOT / t).exists()]
    t = time.perf_counter()
    tail = ""
    for stage in (paths[:FIRST], paths[FIRST:]):
        if not stage:
            continue
        argv = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=",
                "-k", DESELECT, *stage]
        try:
            p = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True,
                               timeout=max(1.0, timeout - (time.perf_counter() - t)))
        except subprocess.TimeoutExpired:
            return "killed (timeout)", time.perf_counter() - t, ""
        tail = (p.stdout.strip().splitlines() or [""])[-1]
        if p.returncode != 0:
            return "killed", time.perf_counter() - t, tail
    return "survived", time.perf_counter() - t, tail


def show(path: Path) -> None:
    """The survivors of a saved run, each as the line before and after the mutation."""
    import difflib

    for name, r in json.loads(path.read_text()).items():
        source = (PKG / name).read_text()
        base = ast.unparse(ast.parse(source)).splitlines()
        points = mutation_points(ast.parse(source))
        for srv in r["survivors"]:
            for index, kind, line in points:
                if (line, kind) != (srv["line"], srv["kind"]) or ("index" in srv and srv["index"] != index):
                    continue
                new = mutant_source(source, index, kind).splitlines()
                diff = [d for d in difflib.unified_diff(base, new, lineterm="", n=0) if d[:1] in "+-" and d[:3] not in ("+++", "---")]
                print(f"{name}:{line} {kind}\n    " + "\n    ".join(diff))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", nargs="*", help="trusted files (as in checker.TRUSTED_FILES); default all")
    ap.add_argument("--fast", action="store_true",
                    help="the fast checker's files (default out: results/mutate_fast.json)")
    ap.add_argument("--sample", type=int, help="at most this many mutants per file, drawn at random")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kinds", help="only these kinds of mutant, comma-separated prefixes (delete,if-true,varswap,...)")
    ap.add_argument("--lines", help="only the mutants of these source lines, comma-separated ranges (88-135,140)")
    ap.add_argument("--merge", action="store_true",
                    help="add the rows of this run to the file's entry in --out instead of replacing it")
    ap.add_argument("--tests", nargs="*", help="run these test files (paths from the repository) instead of the "
                    "file's list in TESTS: for the mutants of a few lines, the tests that reach them")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant before it counts as killed")
    ap.add_argument("--list", action="store_true", help="count the mutants and exit")
    ap.add_argument("--rerun", action="store_true",
                    help="test again only the survivors recorded in --out (after adding tests), updating the scores")
    ap.add_argument("--show", action="store_true", help="print the diff of every survivor recorded in --out and exit")
    ap.add_argument("--out")
    args = ap.parse_args()
    args.out = args.out or str(HERE / "results" / ("mutate_fast.json" if args.fast else "mutate_checker.json"))
    if args.show:
        show(Path(args.out))
        return
    sys.path.insert(0, str(ROOT))
    from exactrelu.certificates.checker import TRUSTED_FILES

    files = args.files or list(FAST_FILES if args.fast else TRUSTED_FILES)
    rng = random.Random(args.seed)
    results = {}
    for name in files:
        source = (PKG / name).read_text()
        points = mutation_points(ast.parse(source))
        if args.kinds:
            points = [p for p in points if p[1].startswith(tuple(args.kinds.split(",")))]
        if args.lines:
            spans = [tuple(int(x) for x in (part.split("-") * 2)[:2]) for part in args.lines.split(",")]
            points = [p for p in points if any(a <= p[2] <= b for a, b in spans)]
        if args.sample and len(points) > args.sample:
            points = sorted(rng.sample(points, args.sample))
        previous = None
        if args.rerun:
            previous = json.loads(Path(args.out).read_text()).get(name)
            if previous is None:
                continue
            wanted = {(r["line"], r["kind"], r.get("index")) for r in previous["survivors"]}
            points = [p for p in mutation_points(ast.parse(source)) if (p[2], p[1], p[0]) in wanted]
        if args.list:
            print(f"{name}: {len(mutation_points(ast.parse(source)))} mutants")
            continue
        # the baseline must pass, else every mutant would look killed
        work = Path(tempfile.mkdtemp(prefix="mutants-"))
        try:
            shutil.copytree(ROOT / "exactrelu", work / "exactrelu")
            status, secs, tail = run_tests(work, args.tests or TESTS[name], args.timeout)
            if status != "survived":
                raise SystemExit(f"{name}: the tests fail without any mutation ({status}: {tail}); fix that first")
            rows = []
            for index, kind, line in points:
                mutated = mutant_source(source, index, kind)
                (work / "exactrelu" / "certificates" / name).write_text(mutated)
                status, secs, tail = run_tests(work, args.tests or TESTS[name], args.timeout)
                text = source.splitlines()[line - 1].strip() if line else ""
                rows.append({"index": index, "kind": kind, "line": line, "code": text, "status": status,
                             "seconds": round(secs, 2)})
                print(f"{name}:{line:<4} {kind:9s} {status:16s} {secs:6.1f} s  {text[:80]}", flush=True)
            (work / "exactrelu" / "certificates" / name).write_text(source)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if previous is not None:  # survivors tested again: keep the first run's kills, replace the survivors
            again = {(r["line"], r["kind"], r["index"]): r for r in rows}  # several mutants can share a line and kind
            merged = []
            for r in previous["rows"]:
                new_r = again.get((r["line"], r["kind"], r.get("index")))
                merged.append(dict(r, status=new_r["status"], rerun=True) if r["status"] == "survived" and new_r else r)
            rows = merged
        if args.merge and not args.rerun:  # keep the rows of other kinds from earlier runs of the same source
            earlier = json.loads(Path(args.out).read_text()).get(name, {}) if Path(args.out).exists() else {}
            mine = {(r["index"], r["kind"]) for r in rows}
            rows = [r for r in earlier.get("rows", []) if (r["index"], r["kind"]) not in mine] + rows
        killed = sum(r["status"].startswith("killed") for r in rows)
        results[name] = {"mutants": len(rows), "killed": killed, "score": round(killed / max(1, len(rows)), 3),
                         "survivors": [r for r in rows if r["status"] == "survived"], "rows": rows}
        print(f"== {name}: {killed} of {len(rows)} mutants killed ({results[name]['score']:.1%})", flush=True)
    if args.list:
        return
    old = json.loads(Path(args.out).read_text()) if Path(args.out).exists() else {}
    old.update(results)
    Path(args.out).write_text(json.dumps(old, indent=1) + "\n")
    print("| file | mutants | killed | score |\n|---|---|---|---|")
    for name, r in old.items():
        print(f"| {name} | {r['mutants']} | {r['killed']} | {r['score']:.1%} |")


if __name__ == "__main__":
    main()
