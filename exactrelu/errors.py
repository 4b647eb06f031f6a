"""The one error hierarchy of exactrelu.

Malformed input is a different error from a rejected claim (STYLE.md, 4).
The command line maps :class:`InvalidInput` to exit code 2 and every other
:class:`ExactReluError` to exit code 1.
"""

from __future__ import annotations

__all__ = [
    "ExactReluError",
    "InvalidInput",
    "AssumptionViolated",
    "NotRealizable",
    "CertificateInvalid",
    "ProposalFailed",
    "TimeLimitExceeded",
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
    """No exact realisation was found, so no certificate is given; ``evidence`` says why.

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

    Usually the labels are not exactly realisable (noise, rounding); this is evidence, not a proof.
    """

    def __init__(self, message: str, *, evidence: dict | None = None):
        super().__init__(message, evidence=evidence)


class TimeLimitExceeded(ExactReluError):
    """A time limit (``time_limit=`` / ``--time-limit``) passed before the answer: nothing is claimed.

    ``done`` says what was done so far (for the message and for callers); exit code 1 on the command line.
    """

    def __init__(self, message: str, *, done: str | None = None):
        self.done = done
        super().__init__(message if not done else f"{message}; done so far: {done}")
