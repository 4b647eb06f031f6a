"""The one record a recovery route is asked with: built once by :func:`exactrelu.recover.recover`, passed down.

>>> req = RecoveryRequest(k=2, bias=True, output_bias=True)
>>> req.k, req.init, req.activation_for(None).name, req.model
(2, 'auto', 'relu', {'biases': True, 'output_bias': True})
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable

from ..network import RELU, Activation

__all__ = ["RecoveryRequest"]


@dataclass(frozen=True)
class RecoveryRequest:
    """What :func:`exactrelu.recover.recover` was asked, checked (its parameters say what each field means).

    ``activation`` is as given (None: the instance's, else ReLU; :meth:`activation_for`); ``k`` is a
    positive integer the front door has checked against the data. ``bias`` asks for hidden biases b,
    ``output_bias`` for an output bias c (the front door reads both from its ``bias=`` argument).
    """

    k: int
    activation: Activation | None = None
    bias: bool = False
    init: Any = "auto"
    random_state: Any = 0
    check: bool = True
    progress: Callable[[str], None] | None = None
    max_except: Fraction | None = None  # sparse corruption: the largest excepted fraction certified (None: the route's)
    output_bias: bool = False
    certificate: bool = True  # False: the network only (the caller certifies it itself: recover_streaming)
    search: bool = True  # False: no blind search for units the proposal misses (recover_streaming's small subset)

    @property
    def model(self) -> dict:
        """The class asked for, ``{"biases": ..., "output_bias": ...}`` (docs/certificates.md, "Model classes")."""
        return {"biases": self.bias, "output_bias": self.output_bias}

    def activation_for(self, inst) -> Activation:
        """The activation of the request, else the instance's (``inst`` may be None), else ReLU."""
        return self.activation or getattr(inst, "activation", None) or RELU

    def say(self, message: str) -> None:
        """Send one progress message (nothing when no callback was given)."""
        if self.progress is not None:
            self.progress(message)

    def but(self, **changes) -> "RecoveryRequest":
        """A copy with some fields changed (``dataclasses.replace``)."""
        return replace(self, **changes)
