"""Approximate fits for noisy labels, with exact residual certificates (docs/noisy.md).

:func:`fit` runs a start method (:data:`METHODS`: ``paper``, ``tensor``, ``fpt``, ``gradient``), an
optional refinement, and computes the exact residual of the weights; :func:`register_method` adds a
method. Float proposes, exact disposes: only the residual is claimed, and it is exact.
"""

from .core import FitResult, Stage, choose_method, fit
from .methods import METHODS, Method, method_names, register_method

__all__ = ["fit", "FitResult", "Stage", "choose_method", "METHODS", "Method", "register_method", "method_names"]
