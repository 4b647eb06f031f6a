"""Find and run proofs: modules exposing ``CLAIM``, ``SOURCE`` and ``prove() -> dict``.

Where proofs live (the choice, argued): the proof code is **in the package**
(``exactrelu/theorems/``), so ``exactrelu prove`` works from an installed wheel as well as from a
checkout; the top-level ``proofs/*.py`` are thin scripts, one per claim, that re-export
``CLAIM``, ``SOURCE`` and ``prove`` and write the record as JSON under ``proofs/results/``.
A proof written directly as a top-level ``proofs/<name>.py`` (any module following the same
protocol) is picked up too when ``exactrelu prove`` runs from a checkout (or with
``--proofs-dir``), so features can add proofs without touching this file; package theorems are
listed in :data:`MODULES`. A claim that users rely on belongs in the package: the tests require
every ``proofs/*.py`` of the checkout to be a package theorem, so that ``exactrelu prove --all``
runs the same claims installed and from a checkout.

``prove()`` returns a JSON-serializable record with at least ``"passed"`` (bool); whatever it
checked is in the record. A proof that raises counts as failed.

>>> names = [name for name, _ in discover(proofs_dir=None)]
>>> "relu_hermite" in names and "sign_ambiguity" in names
True
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from ..errors import InvalidInput
from ..io.files import write_text_atomic

__all__ = ["MODULES", "ProofResult", "discover", "default_proofs_dir", "run_proof", "record_json", "script_main"]

#: Package theorems, in the order ``exactrelu prove --all`` runs them.
MODULES = [
    "exactrelu.theorems.relu_hermite",
    "exactrelu.theorems.biased_relu_hermite",
    "exactrelu.theorems.moment_constants",
    "exactrelu.theorems.homogeneity_symmetry",
    "exactrelu.theorems.uniqueness_lemma",
    "exactrelu.theorems.offset_uniqueness",
    "exactrelu.theorems.augmented_position",
    "exactrelu.theorems.sign_ambiguity",
    "exactrelu.theorems.hardness_gadget",
    "exactrelu.theorems.sign_identifiability",
]


@dataclass
class ProofResult:
    """The outcome of one proof: ``passed``, wall time, the record it returned or the error."""

    name: str
    claim: str
    source: str
    passed: bool
    seconds: float
    record: dict = field(default_factory=dict)
    error: str | None = None


def _is_proof(mod: Any) -> bool:
    return all(hasattr(mod, a) for a in ("CLAIM", "SOURCE", "prove")) and callable(mod.prove)


def default_proofs_dir() -> Path | None:
    """``proofs/`` beside the package when running from a checkout, else None."""
    here = Path(__file__).resolve().parents[2] / "proofs"
    return here if here.is_dir() else None


def _load_file(path: Path) -> ModuleType:
    name = f"_exactrelu_proofs_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - .py files always have a loader
        raise InvalidInput(f"cannot load proof file {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def discover(proofs_dir: Path | str | None | bool = True) -> list[tuple[str, ModuleType]]:
    """``(name, module)`` of every proof: package :data:`MODULES`, then extra ``proofs/*.py``.

    ``proofs_dir=True`` looks for the checkout's ``proofs/``; a path names another folder;
    ``None`` or ``False`` lists package theorems only. Files starting with ``_`` are skipped,
    as are files that do not expose the protocol; a name already in the package wins.
    """
    found: dict[str, ModuleType] = {}
    for spec in MODULES:
        found[spec.rsplit(".", 1)[1]] = importlib.import_module(spec)
    folder = default_proofs_dir() if proofs_dir is True else (Path(proofs_dir) if proofs_dir else None)
    if folder is not None:
        if not folder.is_dir():
            raise InvalidInput(f"no proofs folder {folder}")
        for path in sorted(folder.glob("*.py")):
            if path.stem.startswith("_") or path.stem in found:
                continue
            mod = _load_file(path)
            if _is_proof(mod):
                found[path.stem] = mod
    return list(found.items())


def run_proof(name: str, module: ModuleType, **kwargs: Any) -> ProofResult:
    """Run ``module.prove(**kwargs)``, timing it; exceptions become a failed result."""
    t0 = time.perf_counter()
    try:
        record = module.prove(**kwargs)
        passed = bool(record.get("passed"))
        error = None if passed else "; ".join(map(str, record.get("failures", []))) or "a check failed"
    except Exception as exc:  # a crashing proof is a failed proof, reported with its cause
        record, passed, error = {}, False, f"{type(exc).__name__}: {exc}"
    return ProofResult(name, str(module.CLAIM), str(module.SOURCE), passed, time.perf_counter() - t0, record, error)


def record_json(result: ProofResult) -> dict:
    """The record written to disk: the proof's own record plus name, claim, source and versions."""
    from .._version import __version__

    out = {"format": "exactrelu.proof", "version": 1, "name": result.name, "claim": result.claim,
           "source": result.source, "passed": result.passed, "exactrelu": __version__}
    try:
        import sympy

        out["sympy"] = sympy.__version__
    except ImportError:  # pragma: no cover - sympy is in the test extra
        pass
    if result.error:
        out["error"] = result.error
    out["record"] = result.record
    return out


def script_main(script: str, prove: Callable[..., dict], claim: str, source: str, argv: list[str] | None = None) -> int:
    """Entry point of a ``proofs/<name>.py`` script: run, print, write ``results/<name>.json``.

    ``--out DIR`` writes elsewhere, ``--no-write`` only prints. Returns 0 if proved, 1 if not.
    """
    import argparse

    path = Path(script)
    parser = argparse.ArgumentParser(prog=path.name, description=claim)
    parser.add_argument("--out", type=Path, default=path.parent / "results", help="folder for the JSON record")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    mod = ModuleType(path.stem)
    mod.CLAIM, mod.SOURCE, mod.prove = claim, source, prove
    res = run_proof(path.stem, mod)
    target = None
    if not args.no_write:  # write first: the record must not depend on stdout staying open
        args.out.mkdir(parents=True, exist_ok=True)
        target = args.out / f"{path.stem}.json"
        write_text_atomic(target, json.dumps(record_json(res), indent=1) + "\n", what="proof record")
    print(f"{path.stem}: {'PROVED' if res.passed else 'FAILED'} in {res.seconds:.2f} s")
    print(f"  claim:  {claim}")
    print(f"  source: {source}")
    if res.error:
        print(f"  error:  {res.error}")
    if target is not None:
        print(f"  record: {target}")
    sys.stdout.flush()
    return 0 if res.passed else 1
