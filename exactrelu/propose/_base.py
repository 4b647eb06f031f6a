"""The estimator protocol every proposer follows, without a dependency on scikit-learn.

A proposer stores its keyword parameters untouched in ``__init__`` (no validation, no work),
validates them in ``fit``, draws its randomness from ``random_state``, ends every learned
attribute with ``_`` and returns ``self`` from ``fit``. :class:`Proposer` supplies what
scikit-learn's ``BaseEstimator`` would: ``get_params`` / ``set_params`` (read from the
``__init__`` signature, so ``sklearn.base.clone`` and grid searches work), a ``repr`` that shows
the parameters that differ from their defaults, and ``__sklearn_tags__`` for scikit-learn's own
checks (imported only when scikit-learn asks for them).

>>> from exactrelu.propose import GradientProposer
>>> est = GradientProposer(3, random_state=0)
>>> est
GradientProposer(k=3, random_state=0)
>>> est.set_params(max_iter=50).get_params()["max_iter"]
50
>>> est.set_params(learning_rate=1)
Traceback (most recent call last):
...
exactrelu.errors.InvalidInput: GradientProposer has no parameter 'learning_rate'; its parameters are ...
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ..errors import InvalidInput
from ..network import Activation
from .floats import check_data
from ..validation import check_k

__all__ = ["Proposer"]


class Proposer:
    """Base class of the proposers: parameters, repr and scikit-learn tags (see the module docstring)."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        names = []
        for p in list(sig.parameters.values())[1:]:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):  # pragma: no cover - a programming error
                raise TypeError(f"{cls.__name__}.__init__ must list its parameters explicitly (no *args/**kwargs)")
            names.append(p.name)
        return names

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The parameters given to ``__init__`` (with ``deep``, also ``name__param`` of nested estimators)."""
        out = {}
        for name in self._param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update({f"{name}__{key}": v for key, v in value.get_params().items()})
            out[name] = value
        return out

    def set_params(self, **params: Any) -> "Proposer":
        """Set parameters (``name=value`` or ``nested__name=value``); returns self. Nothing is validated here."""
        names = self._param_names()
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in names:
                raise InvalidInput(f"{type(self).__name__} has no parameter {name!r}; its parameters are "
                                   f"{', '.join(names)}")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub in nested.items():
            getattr(self, name).set_params(**sub)
        return self

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__)
        shown = []
        for name in self._param_names():
            default = sig.parameters[name].default
            value = getattr(self, name, None)
            if name == "activation" and isinstance(value, Activation) and isinstance(default, str):
                default = Activation.parse(default)  # RELU given as an object is still the default
            if default is inspect.Parameter.empty or not _same(value, default):
                shown.append(f"{name}={_short_repr(value)}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def __sklearn_tags__(self):
        """Tags for scikit-learn's checks: 2-D float inputs, labels required (1-D or n x m), no NaN."""
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=True, multi_output=True, single_output=True),
                    input_tags=InputTags(two_d_array=True, allow_nan=False))

    def _check_fit_data(self, inputs, labels) -> tuple[int, np.ndarray, np.ndarray]:
        """Validate k and the data for ``fit``; records ``n_features_in_`` (scikit-learn's convention)."""
        if labels is None:
            raise InvalidInput(f"{type(self).__name__} requires y to be passed, but the target y is None: "
                               "fit(inputs, labels) proposes weights from the labels")
        k = check_k(self.k)
        X, Y = check_data(inputs, labels, k)
        self.n_features_in_ = X.shape[1]
        return k, X, Y


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return False
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # pragma: no cover - exotic parameter values: show them
        return False


def _short_repr(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array(shape={value.shape})"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
