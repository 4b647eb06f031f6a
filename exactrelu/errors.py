"""The one error hierarchy of exactrelu: every exception and warning the package raises on purpose.

Malformed input is a different error from a rejected claim (STYLE.md, 4 and 16; SymPy's
``polys/matrices/exceptions.py``). The command line maps :class:`InvalidInput` to exit code 2, a time-out
(:class:`TimeLimitExceeded` everywhere; a search budget that ran out is its subclass :class:`SearchLimit`) to
exit code 3, "unknown", and every other :class:`ExactReluError` to exit code 1. The only exceptions defined elsewhere
are the trusted checker's own two (it imports nothing of exactrelu) and private control-flow signals
that never leave their module (``_TooBig``, ``_Stop``, ``_Rejected``).

Old names kept for one release (CHANGELOG.md): ``RoundLimit`` (now :class:`SearchLimit`), and the
import paths ``exactrelu.decide.search.tree.SearchLimit``, ``exactrelu.decide.search.lazy.RoundLimit``,
``exactrelu.decide.search.sat.proof.ProofFormatError``, ``exactrelu.exact.linalg.InconsistentSystem`` and
``exactrelu.propose.hermite.estimators.GaussianityWarning``, which re-export the classes defined here.

>>> issubclass(SearchLimit, TimeLimitExceeded), issubclass(InconsistentSystem, NotRealizable)
(True, True)
"""

from __future__ import annotations

__all__ = [
    "exit_code",
    "ExactReluError",
    "InvalidInput",
    "AssumptionViolated",
    "NotRealizable",
    "CertificateInvalid",
    "ProposalFailed",
    "InconsistentSystem",
    "TimeLimitExceeded",
    "SearchLimit",
    "RoundLimit",
    "ProofFormatError",
    "ExactReluWarning",
    "GaussianityWarning",
    "FitNotConverged",
    "NoBetterThanConstant",
]


class ExactReluError(Exception):
    """Base class of every error exactrelu raises on purpose."""


class InvalidInput(ExactReluError, ValueError):
    """Input that cannot be read as the documented object (NaN, wrong shape, bad file)."""


class AssumptionViolated(ExactReluError):
    """The data break an assumption of the algorithm (for example rank(labels) != k).

    ``evidence`` holds what was measured, ``suggestion`` what to try instead.
    """

    def __init__(self, message: str, *, evidence: dict | None = None, suggestion: str | None = None):
        self.evidence = dict(evidence or {})
        self.suggestion = suggestion
        text = message if suggestion is None else f"{message} Try instead: {suggestion}"
        super().__init__(text)


class NotRealizable(ExactReluError):
    """No exact realization was found, so no certificate is given; ``evidence`` says why.

    The message states what is proved (for example rank(labels) > k rules out every k-unit
    network) and what is only evidence (exact checks of the candidates that failed: which unit,
    which equations, the residual). When the "no" is proved, ``certificate`` holds a
    ``not-realizable`` certificate that ``exactrelu check`` verifies; otherwise it is None.
    """

    def __init__(self, message: str, *, evidence: dict | None = None, certificate: dict | None = None):
        self.evidence = dict(evidence or {})
        #: a ``not-realizable`` certificate (verified by the independent checker) when the "no" is proved
        self.certificate = certificate
        super().__init__(message)


class CertificateInvalid(ExactReluError):
    """A certificate does not verify against its instance."""


class ProposalFailed(NotRealizable):
    """A floating-point proposer produced no usable proposal, so no certificate (nothing is claimed).

    Usually the labels are not exactly realizable (noise, rounding); this is evidence, not a proof.
    """

    def __init__(self, message: str, *, evidence: dict | None = None):
        super().__init__(message, evidence=evidence)


class TimeLimitExceeded(ExactReluError):
    """A time limit (``time_limit=`` / ``--time-limit``) passed before the answer: nothing is claimed.

    ``done`` says what was done so far (for the message and for callers); exit code 3 ("unknown") on the command
    line, as every budget that runs out before the answer.
    """

    def __init__(self, message: str, *, done: str | None = None):
        self.done = done
        super().__init__(message if not done else f"{message}; done so far: {done}")


class SearchLimit(TimeLimitExceeded):
    """A search budget (``max_nodes``: case-tree nodes, or SAT-solver rounds) ran out before the answer.

    Nothing is claimed (exit 3, "unknown", on the command line): raise the budget or shrink the instance. A time
    limit that passes is :class:`TimeLimitExceeded` itself; this subclass tells the budget apart.
    """


def exit_code(exc: BaseException) -> int:
    """The command line's exit code for a library error: 2 bad input, 3 "unknown" (a time limit or a search budget ran
    out before the answer: nothing is claimed), 1 any other (a claim failed, or could not be certified).

    >>> exit_code(InvalidInput("x")), exit_code(SearchLimit("y")), exit_code(NotRealizable("z"))
    (2, 3, 1)
    """
    return 2 if isinstance(exc, InvalidInput) else 3 if isinstance(exc, TimeLimitExceeded) else 1


#: deprecated name of :class:`SearchLimit` (the lazy engine's round limit of 0.1); kept for one release
RoundLimit = SearchLimit


class InconsistentSystem(NotRealizable):
    """An over-determined system ``M x = b`` that has no exact solution (``evidence``: the failing rows)."""


class ProofFormatError(ExactReluError, ValueError):
    """A SAT solver's proof (LRAT or DRUP trace) cannot be read, or does not refute its clauses.

    Raised on the untrusted side (reading and trimming the solver's proof); no certificate is made
    from such a proof, and the callers fall back to another proof or re-solve.
    """


class ExactReluWarning(UserWarning):
    """Base class of the warnings exactrelu gives (a guarantee may not apply; nothing exact is affected)."""


class GaussianityWarning(ExactReluWarning):
    """The inputs do not look Gaussian: the Hermite guarantees do not apply (the result may still be usable)."""


class FitNotConverged(ExactReluWarning):
    """A fit stage ended far above the noise floor, or no better than the best affine map of the inputs.

    The weights are still returned with their exact residual (nothing exact is wrong), but they are
    probably not the fit the method can give; the message names the stage and the next thing to try.
    ``fit`` also lists it in ``FitResult.warnings``, the command line prints it and ``--json`` has it.
    """


class NoBetterThanConstant(FitNotConverged):
    """A learner's result fits its own data no better than the best constant predictor (the labels' mean).

    The figure is ``||prediction - labels||_F / ||labels - mean(labels)||_F`` on the learner's samples: at 1 or above
    the weights explain nothing of the labels' variation (:mod:`exactrelu.propose.selfcheck`). The weights are still
    returned; the message names the learner, the figure and what to try. A :class:`FitNotConverged`, so that code
    that handles one handles both.
    """
