"""One error file (issue 20): every exception and warning the package defines lives in exactrelu/errors.py;
old import paths still give the same classes; time-outs are TimeLimitExceeded; no bare TypeError or
ValueError from the exact LP's public front door."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

import exactrelu
from exactrelu import errors
from exactrelu.errors import (ExactReluError, InconsistentSystem, InvalidInput, NotRealizable, ProofFormatError,
                              RoundLimit, SearchLimit, TimeLimitExceeded)
from exactrelu.exact.lp import feasible

#: exceptions allowed outside errors.py: the checkers' own (they import nothing of exactrelu but the reference);
#: FastDomain never leaves the fast checker (its rows go to the reference)
CHECKER = {"exactrelu.certificates.trusted.common": {"CheckFailed", "UnreadableInput"},
           "exactrelu.certificates.fast.limbs": {"FastDomain"}}


def _modules():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the moved modules of 0.1 warn on import
        for info in pkgutil.walk_packages(exactrelu.__path__, "exactrelu."):
            try:
                yield importlib.import_module(info.name)
            except ImportError:  # an optional dependency (torch, dask, ...) that is not installed
                continue


def test_every_public_exception_and_warning_is_defined_in_errors_py():
    elsewhere = []
    for mod in _modules():
        for name, obj in vars(mod).items():
            if not (inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == mod.__name__):
                continue
            if mod.__name__ == "exactrelu.errors" or name in CHECKER.get(mod.__name__, ()):
                continue
            if name.startswith("_"):  # a private control-flow signal: it must not leave its module
                assert not issubclass(obj, ExactReluError), f"{mod.__name__}.{name}"
                continue
            elsewhere.append(f"{mod.__name__}.{name}")
    assert elsewhere == []


@pytest.mark.parametrize("path, name, cls", [
    ("exactrelu.decide.search.tree", "SearchLimit", SearchLimit),
    ("exactrelu.decide.search.pattern_search", "SearchLimit", SearchLimit),
    ("exactrelu.decide.search.lazy", "RoundLimit", SearchLimit),
    ("exactrelu.decide.search.sat.proof", "ProofFormatError", ProofFormatError),
    ("exactrelu.exact.linalg", "InconsistentSystem", InconsistentSystem),
    ("exactrelu.exact", "InconsistentSystem", InconsistentSystem),
    ("exactrelu.propose.hermite.estimators", "GaussianityWarning", errors.GaussianityWarning),
])
def test_old_import_paths_give_the_classes_of_errors_py(path, name, cls):
    assert getattr(importlib.import_module(path), name) is cls


def test_time_outs_and_budgets():
    assert RoundLimit is SearchLimit and issubclass(SearchLimit, TimeLimitExceeded)
    assert issubclass(InconsistentSystem, NotRealizable) and issubclass(ProofFormatError, ValueError)
    assert issubclass(errors.GaussianityWarning, errors.ExactReluWarning)
    assert str(SearchLimit("3 nodes", done="half")) == "3 nodes; done so far: half"


_garbage = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=2) | st.floats()
                        | st.just(object()), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=1), inner, max_size=2),
                        max_leaves=8)


@given(_garbage, _garbage, _garbage, _garbage)
def test_feasible_refuses_malformed_input_with_invalid_input(A_eq, b_eq, A_ub, b_ub):
    """Whatever the arguments, feasible() answers or raises InvalidInput (never a bare TypeError)."""
    try:
        res = feasible(A_eq, b_eq, A_ub, b_ub)
    except InvalidInput:
        return
    assert res.status in ("feasible", "infeasible")


@pytest.mark.parametrize("kwargs, message", [
    ({"A_eq": [1, 1]}, "row 0 is int"), ({"A_ub": [[1, 1]], "b_ub": 1}, "list of numbers"),
    ({"A_ub": "ab", "b_ub": [1]}, "got str"), ({"A_eq": [[1, 1]], "b_eq": {"a": 1}}, "got dict"),
])
def test_feasible_names_the_malformed_argument(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        feasible(**kwargs)
