"""The house of docs/design.md, checked: the import order, no circles, a small top level, a stdlib-only face."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "exactrelu"


def test_the_import_contracts_of_pyproject_hold():
    """import-linter: the layers of docs/design.md, the stdlib-only checker, exact/ writes no certificate, no cycles.

    grimp reads every import statement, those inside functions included, so a lazy import cannot hide an arrow
    that runs back up a floor."""
    pytest.importorskip("importlinter")
    out = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                          "sys.exit(lint_imports(no_cache=True, no_logo=True))"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "BROKEN" not in out.stdout and out.stdout.count("KEPT") >= 4


def test_the_allow_list_contract_refuses_what_is_not_on_its_list():
    """The contract type of tests/runtime/import_contracts.py on a graph of four modules: a module of the source
    package imports the standard library (allowed), its sibling (allowed), then sympy and exactrelu.errors."""
    grimp = pytest.importorskip("grimp")
    pytest.importorskip("importlinter")
    sys.path.insert(0, str(ROOT))
    try:
        from tests.runtime.import_contracts import AllowListContract
    finally:
        sys.path.remove(str(ROOT))

    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.trusted", "pkg.trusted.lp", "pkg.trusted.common", "pkg.errors", "json", "sympy"):
        graph.add_module(name, is_squashed=name in ("json", "sympy"))
    graph.add_import(importer="pkg.trusted.lp", imported="json", line_number=1, line_contents="import json")
    graph.add_import(importer="pkg.trusted.lp", imported="pkg.trusted.common", line_number=2, line_contents="from . import common")
    contract = AllowListContract("trusted", {}, {"source_modules": ["pkg.trusted"], "allowed_modules": ["json"]})
    assert contract.check(graph, verbose=False).kept
    graph.add_import(importer="pkg.trusted.lp", imported="sympy", line_number=3, line_contents="import sympy")
    graph.add_import(importer="pkg.trusted.common", imported="pkg.errors", line_number=7, line_contents="from .. import errors")
    check = contract.check(graph, verbose=False)
    assert not check.kept
    assert check.metadata["broken"] == [("pkg.trusted.common", "pkg.errors", [7]), ("pkg.trusted.lp", "sympy", [3])]


def test_the_top_level_of_the_package_is_small():
    files = sorted(p.name for p in PACKAGE.glob("*.py"))
    # the runtime floor, the model and the command: docs/design.md, "Layout" (validation.py: issue 35 item 4 puts the
    # one argument-checking vocabulary on the runtime floor)
    assert len(files) <= 12, files


def test_importing_the_package_loads_only_the_standard_library():
    """The package face and the checker's import must not pull FLINT, NumPy or SciPy (a bare-Python auditor)."""
    code = ("import sys, exactrelu, exactrelu.certificates, exactrelu.certificates.checker; "
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'flint', 'numpy', 'scipy', 'highspy', 'pysat'}); "
            "print(heavy); sys.exit(1 if heavy else 0)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_public_names_load_on_first_use():
    import exactrelu

    assert exactrelu.Network.__module__ == "exactrelu.network.model"  # the package exactrelu.network (issue 37)
    assert exactrelu.recover_exact.__module__ == "exactrelu.recover.front_door"
    assert "planted" in dir(exactrelu)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        exactrelu.nothing  # noqa: B018


def _moved_modules():
    from exactrelu._moved import MOVED

    return sorted(MOVED.items())


@pytest.mark.parametrize(("old", "new"), _moved_modules())
def test_old_module_paths_still_import_with_a_warning(old, new):
    """One test per old path (exactrelu._moved.MOVED): it imports, warns naming its new home, and is that module."""
    import importlib

    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        mod = importlib.import_module(old)
    assert mod is importlib.import_module(new)


def test_every_module_decide_and_exact_had_before_the_cut_still_imports():
    """The modules of decide/ and exact/ before issue 35's cut: each moved one has an old path in MOVED (tested
    above), each kept one is where it was."""
    import importlib.util

    from exactrelu._moved import MOVED

    moved = ["worstcase", "worstcase_parallel", "patterns", "pattern_lps", "span_refutation", "bias", "refusal",
             "pattern_search", "lazy", "tree", "rows", "elimination", "clusters", "lemma_store", "lemma_cache",
             "float_screen", "hint", "sat", "sat.core", "sat.proof", "sat.trim", "sat.upgrade"]
    codecs = ["limbs", "text", "float64", "float_text", "int_text", "dyadic_product"]
    kept = ["exactrelu.decide.decision"] + [f"exactrelu.exact.{m}" for m in
                                            ("matrix", "rationals", "linalg", "lp", "lp_highs", "lp_simplex",
                                             "lp_system")]
    for name in [f"exactrelu.decide.{m}" for m in moved] + [f"exactrelu.exact.{m}" for m in codecs]:
        assert name in MOVED, name
    for name in kept:
        assert name not in MOVED and importlib.util.find_spec(name) is not None, name


#: the modules that keep old names of moved or renamed definitions (exactrelu._moved.moved_names)
MODULES_WITH_OLD_NAMES = ["exactrelu.certificates.envelope", "exactrelu.decide.enumeration.span_refutation",
                          "exactrelu.hardness.lemmas", "exactrelu.fit._model", "exactrelu.propose.floats"]


@pytest.mark.parametrize("module", MODULES_WITH_OLD_NAMES)
def test_old_names_still_import_with_a_warning(module):
    import importlib

    from exactrelu._moved import MOVED_NAMES

    mod = importlib.import_module(module)
    assert MOVED_NAMES[module]
    for old, place in MOVED_NAMES[module].items():
        where, _, new = place.partition(":")
        change = f"is renamed {new}" if where == module else f"moved to {where}.{new or old}"
        with pytest.warns(DeprecationWarning, match=f"{module}.{old} {change};"):
            value = getattr(mod, old)
        assert value is getattr(importlib.import_module(where), new or old)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        mod.nothing  # noqa: B018
