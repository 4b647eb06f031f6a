"""Old import paths of modules and names that moved (CHANGELOG.md), kept working for one release.

``import exactrelu.recover.exact`` (say) still works and gives the module's new home,
``exactrelu.recover.front_door``, with a :class:`DeprecationWarning` naming it. Nothing here is
imported unless an old name is asked for: the finder answers only for the names in :data:`MOVED`.
A name that left a module that stays (or was renamed in it) is kept by :func:`moved_names`, the
module's ``__getattr__``, with the same warning.

>>> import importlib, sys, warnings
>>> _ = sys.modules.pop("exactrelu.files", None)  # imported before (by another test, say): import it afresh
>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     old = importlib.import_module("exactrelu.files")
>>> old.__name__, "moved to exactrelu.io.files" in str(seen[0].message)
('exactrelu.io.files', True)
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings

__all__ = ["MOVED", "MOVED_NAMES", "moved_names"]

#: old module name -> new module name
MOVED: dict[str, str] = {
    "exactrelu.files": "exactrelu.io.files",
    "exactrelu.npz": "exactrelu.io.npz",
    "exactrelu.weights_file": "exactrelu.io.weights",
    "exactrelu.propose.torch_weights": "exactrelu.io.torch_weights",
    "exactrelu.noise": "exactrelu.instances.noise",
    "exactrelu.corruption": "exactrelu.instances.corruption",
    "exactrelu.conditioning": "exactrelu.instances.conditioning",
    "exactrelu.propose.hermite_instances": "exactrelu.instances.hermite",
    "exactrelu.residual": "exactrelu.certificates.claims.residual",
    "exactrelu.diagnosis": "exactrelu.recover.diagnosis",
    "exactrelu.patterns": "exactrelu.decide.enumeration.patterns",
    "exactrelu.recover.exact": "exactrelu.recover.front_door",
    "exactrelu.recover.data": "exactrelu.recover.views",
    "exactrelu.recover.steps": "exactrelu.recover.unit_steps",
    "exactrelu.recover.finish": "exactrelu.recover.output_layer",
    "exactrelu.recover.proposal": "exactrelu.recover.proposals",
    "exactrelu.recover.weights": "exactrelu.recover.given_weights",
    "exactrelu.recover.nocert": "exactrelu.decide.enumeration.span_refutation",
    "exactrelu.recover.worstcase": "exactrelu.decide.enumeration.worstcase",
    "exactrelu.recover.worstcase_parallel": "exactrelu.decide.enumeration.worstcase_parallel",
    "exactrelu.hardness.decide": "exactrelu.decide.search.pattern_search",
    "exactrelu.hardness.lazy": "exactrelu.decide.search.lazy",
    "exactrelu.hardness.tree": "exactrelu.decide.search.tree",
    "exactrelu.hardness.rows": "exactrelu.decide.search.rows",
    "exactrelu.hardness.clusters": "exactrelu.decide.search.clusters",
    "exactrelu.hardness.store": "exactrelu.decide.search.lemma_store",
    "exactrelu.hardness.proof": "exactrelu.decide.search.sat.proof",
    "exactrelu.hardness.trim": "exactrelu.decide.search.sat.trim",
    "exactrelu.hardness.commands": "exactrelu.commands.hardness",
    "exactrelu.propose.hermite_estimators": "exactrelu.propose.hermite.estimators",
    "exactrelu.propose.hermite_decompose": "exactrelu.propose.hermite.decompose",
    "exactrelu.propose.hermite_signs": "exactrelu.propose.hermite.signs",
    "exactrelu.propose.hermite_params": "exactrelu.propose.hermite.params",
    "exactrelu.propose.hermite_large_bias": "exactrelu.propose.hermite.large_bias",
    "exactrelu.propose.hermite_overcomplete": "exactrelu.propose.hermite.overcomplete",
    "exactrelu.propose._common": "exactrelu.propose.floats",
    # issue 35: the house after growth
    "exactrelu.certificates.ahead": "exactrelu.parallel",
    "exactrelu.decide.worstcase": "exactrelu.decide.enumeration.worstcase",
    "exactrelu.decide.worstcase_parallel": "exactrelu.decide.enumeration.worstcase_parallel",
    "exactrelu.decide.patterns": "exactrelu.decide.enumeration.patterns",
    "exactrelu.decide.pattern_lps": "exactrelu.decide.enumeration.pattern_lps",
    "exactrelu.decide.span_refutation": "exactrelu.decide.enumeration.span_refutation",
    "exactrelu.decide.bias": "exactrelu.decide.enumeration.bias",
    "exactrelu.decide.refusal": "exactrelu.decide.enumeration.refusal",
    "exactrelu.decide.pattern_search": "exactrelu.decide.search.pattern_search",
    "exactrelu.decide.lazy": "exactrelu.decide.search.lazy",
    "exactrelu.decide.tree": "exactrelu.decide.search.tree",
    "exactrelu.decide.rows": "exactrelu.decide.search.rows",
    "exactrelu.decide.elimination": "exactrelu.decide.search.elimination",
    "exactrelu.decide.clusters": "exactrelu.decide.search.clusters",
    "exactrelu.decide.lemma_store": "exactrelu.decide.search.lemma_store",
    "exactrelu.decide.lemma_cache": "exactrelu.decide.search.lemma_cache",
    "exactrelu.decide.float_screen": "exactrelu.decide.search.float_screen",
    "exactrelu.decide.hint": "exactrelu.decide.search.hint",
    "exactrelu.decide.sat": "exactrelu.decide.search.sat",
    "exactrelu.decide.sat.core": "exactrelu.decide.search.sat.core",
    "exactrelu.decide.sat.proof": "exactrelu.decide.search.sat.proof",
    "exactrelu.decide.sat.trim": "exactrelu.decide.search.sat.trim",
    "exactrelu.decide.sat.upgrade": "exactrelu.decide.search.sat.upgrade",
    "exactrelu.exact.limbs": "exactrelu.exact.codecs.limbs",
    "exactrelu.exact.text": "exactrelu.exact.codecs.text",
    "exactrelu.exact.float64": "exactrelu.exact.codecs.float64",
    "exactrelu.exact.float_text": "exactrelu.exact.codecs.float_text",
    "exactrelu.exact.int_text": "exactrelu.exact.codecs.int_text",
    "exactrelu.exact.dyadic_product": "exactrelu.exact.codecs.dyadic_product",
}

#: module -> {old name: its new place}, filled by :func:`moved_names` as those modules are imported
MOVED_NAMES: dict[str, dict[str, str]] = {}


class _MovedFinder:
    """Finds the old names of moved modules; loading one puts the new module in its place.

    A meta path finder and loader by protocol (``find_spec``, ``create_module``, ``exec_module``), not by the
    ABCs of ``importlib.abc``: importing those costs 16 ms of every command's start (importlib.resources)."""

    def find_spec(self, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname in MOVED else None

    def create_module(self, spec):
        return None  # a placeholder module, replaced in exec_module

    def exec_module(self, module) -> None:
        new = MOVED[module.__name__]
        warnings.warn(f"{module.__name__} moved to {new}; the old name will be removed in a later release",
                      DeprecationWarning, stacklevel=2)
        # the import system returns what sys.modules holds after exec_module: the new module itself
        sys.modules[module.__name__] = importlib.import_module(new)


def install() -> None:
    """Add the finder once, before the normal finders: it answers only for the old names of :data:`MOVED`, and a
    module of a moved package (``exactrelu.decide.sat.core``) must not be found a second time, under its old name,
    in the new package's folder."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())


def moved_names(module: str, names: dict[str, str]):
    """A module ``__getattr__`` (PEP 562) that still gives the old ``names`` of ``module``, with a DeprecationWarning.

    ``names`` maps an old name to ``"new.module"`` (it moved, keeping its name) or ``"new.module:new_name"`` (it
    moved or was renamed; ``module`` itself: renamed in place, as the UK spellings of 0.1 were); any other name
    raises AttributeError as usual.

    >>> import warnings
    >>> getattr_ = moved_names("exactrelu.demo", {"old": "exactrelu.errors:InvalidInput"})
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     getattr_("old").__name__, str(seen[0].message)
    ('InvalidInput',
     'exactrelu.demo.old moved to exactrelu.errors.InvalidInput; the old name will be removed in a later release')
    """
    MOVED_NAMES[module] = names

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, _, new = names[name].partition(":")
        new = new or name
        change = f"is renamed {new}" if where == module else f"moved to {where}.{new}"  # US spelling: a rename
        warnings.warn(f"{module}.{name} {change}; the old name will be removed in a later release",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(where), new)

    return __getattr__
