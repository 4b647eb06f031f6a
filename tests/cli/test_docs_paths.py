"""Every path and module the docs and docstrings name exists: a moved or deleted file leaves no stale pointer.

Read as text: README.md, every page of docs/, benchmarks/README.md and every tracked ``.py`` file (its docstrings and
comments), CHANGELOG.md aside (a history names what was there then). Two kinds of name are checked:

* a **path** whose first part is a folder of the repository (``exactrelu/``, ``docs/``, ``tests/``, ``benchmarks/``,
  ``proofs/``) or of the package (``trusted/``, ``decide/``, ``io/``, ...): it must be a tracked file or folder, or
  end one (``trusted/npz.py`` is ``exactrelu/certificates/trusted/npz.py``). Parts in capitals are placeholders
  (``benchmarks/NAME.py``), and :data:`GONE` lists the files whose history the docs tell on purpose;
* a **dotted name** ``exactrelu.<module>...``: it must import, and its attributes resolve, without the
  DeprecationWarning of an old path (``exactrelu/_moved.py`` keeps the old names on purpose and is not read).
"""

from __future__ import annotations

import importlib
import re
import subprocess
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: deleted files that the docs name on purpose, where they tell why they went
GONE = {"trusted/rup.py": "the DRUP replay, retired from the trusted base by issue 26 (docs/design.md)"}

_EXTENSIONS = "py|md|toml|json|jsonl|npz|npy|txt|csv|pyz|cfg|ini|sh|png|onnx|safetensors|pt"
_PATH = re.compile(rf"(?<![\w./:-])((?:[A-Za-z_][\w.-]*/)+(?:[\w.-]+\.(?:{_EXTENSIONS})|))(?![\w/])")
_DOTTED = re.compile(r"(?<![\w.])exactrelu(?:\.\w+)+")


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        out = None
    if out is None or out.returncode != 0 or not out.stdout:
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [f for f in out.stdout.split() if (ROOT / f).exists()]


def _suffixes(names) -> set:
    """Every path that ends one of ``names`` at a slash (``a/b/c.py``: itself, ``b/c.py``, ``c.py``)."""
    return {name.split("/", i)[-1] for name in names for i in range(name.rstrip("/").count("/") + 1)}


@pytest.fixture(scope="module")
def house():
    files = _tracked()
    folders = {"/".join(f.split("/")[:i]) + "/" for f in files for i in range(1, f.count("/") + 1)}
    roots = {"exactrelu", "docs", "tests", "benchmarks", "proofs"}
    roots |= {d.rstrip("/").rsplit("/", 1)[-1] for d in folders if d.startswith("exactrelu/")}
    this = str(Path(__file__).resolve().relative_to(ROOT))  # (its own examples of stale names are on purpose)
    texts = [f for f in files if f != this and (f.endswith(".py") or f in ("README.md", "benchmarks/README.md")
                                                or (f.startswith("docs/") and f.endswith(".md")))]
    return _suffixes(files), _suffixes(folders), roots, texts


def _exists(name: str, files: set, folders: set) -> bool:
    return name in (folders if name.endswith("/") else files)


def _named_paths(line: str, roots: set):
    for match in _PATH.finditer(line):
        name = match.group(1)
        parts = name.rstrip("/").split("/")
        if parts[0] in roots and not any(p.split(".")[0].isupper() for p in parts) and name not in GONE:
            yield name


def test_every_path_named_exists(house):
    files, folders, roots, texts = house
    stale = [f"{f}:{number}: {name}" for f in texts
             for number, line in enumerate((ROOT / f).read_text(errors="replace").splitlines(), 1)
             for name in _named_paths(line, roots) if not _exists(name, files, folders)]
    assert stale == [], "paths named that do not exist:\n" + "\n".join(stale)


def _resolves(name: str) -> bool:
    parts = name.split(".")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an old path that still works with a warning is stale in the docs
        for i in range(len(parts), 1, -1):
            module = ".".join(parts[:i])
            try:
                obj = importlib.import_module(module)
            except ImportError:
                continue
            except Warning:
                return False
            if obj.__name__ != module:  # an old path, imported before (its warning was given then)
                return False
            try:
                for attribute in parts[i:]:
                    obj = getattr(obj, attribute)
            except (AttributeError, Warning):
                return False
            return True
    return False


def test_every_module_named_exists(house):
    files, _, _, texts = house
    package = ROOT / "exactrelu"
    modules = {p.stem for p in package.glob("*.py")} | {p.name for p in package.iterdir() if p.is_dir()}
    seen: dict[str, bool] = {}
    stale = []
    for f in texts:
        if f == "exactrelu/_moved.py":
            continue
        for number, line in enumerate((ROOT / f).read_text(errors="replace").splitlines(), 1):
            for name in _DOTTED.findall(line):
                if name.split(".")[1] not in modules:  # "exactrelu.weights": a format's name, not a module
                    continue
                if name not in seen:
                    seen[name] = _resolves(name)
                if not seen[name]:
                    stale.append(f"{f}:{number}: {name}")
    assert stale == [], "modules or names that do not resolve (or only through an old path):\n" + "\n".join(stale)


def test_the_checks_see_a_stale_name():
    files = _suffixes(["exactrelu/parallel.py", "exactrelu/certificates/trusted/npz.py"])
    assert not _exists("certificates/ahead.py", files, set()) and not _exists("ates/trusted/npz.py", files, set())
    assert _exists("trusted/npz.py", files, set()) and _exists("exactrelu/parallel.py", files, set())
    assert list(_named_paths("see `decide/lazy.py` and benchmarks/NAME.py, p/q, 1/2", {"decide", "benchmarks"})) \
        == ["decide/lazy.py"]
    assert not _resolves("exactrelu.decide.lazy")  # moved: it imports only with a DeprecationWarning
    assert not _resolves("exactrelu.io.read_weights")
    assert _resolves("exactrelu.decide.search.lazy.solve_case")
