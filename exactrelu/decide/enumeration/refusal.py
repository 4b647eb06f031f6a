"""The worst-case solver's "no": its checked certificate, its reason in the words of the class it excludes, and
the diagnosis when networks of a wider class (hidden biases, an output bias) reproduce the labels that networks
of the class excluded cannot.

A "no" is only as wide as its proof (docs/certificates.md, "Model classes in verdicts"): it covers exactly the
class asked (``bias=``). So every reason names the class (:func:`exactrelu.certificates.claims.model.phrase`), and
after a refutation that leaves a wider class open, :func:`biased_diagnosis` tries exact recovery in the widest
class (hidden biases and an output bias): when it certifies, the "no" would mislead without that sentence.

>>> from exactrelu.instances import Instance
>>> inst = Instance.from_arrays([[0], [1], [2], [3]], [[0], [0], [1], [2]])   # relu(x - 1): biased
>>> print(biased_diagnosis(inst, 1))  # doctest: +ELLIPSIS
a 1-unit ReLU network with hidden biases and without output bias reproduces the labels exactly (certified: ...); \
this "no" is about networks without hidden biases and without output bias: ask for them (...--bias hidden)
"""

from __future__ import annotations

from ...certificates.claims.model import BOTH_BIASES, NO_BIASES, bias_name, class_words, phrase
from ...certificates.claims.span import not_realizable_certificate
from ...certificates.envelope import verify
from ...deadline import Deadline
from ...errors import ExactReluError, TimeLimitExceeded
from ...instances import Instance
from ..decision import NOT_REALIZABLE, Decision

__all__ = ["refuted", "decided_no", "biased_diagnosis", "DIAGNOSIS_SECONDS"]

#: the most a diagnosis may spend (it is not an answer: past this, or past the caller's limit, it says nothing)
DIAGNOSIS_SECONDS = 10.0


def refuted(instance: Instance, k: int, witness, span, reason: str, evidence: dict, route: str,
            deadline: Deadline | None = None, solver=None) -> Decision:
    """The Decision of a proved "no" (rank witness, or a span refutation), its certificate checked independently;
    ``reason`` starts with the class the certificate excludes."""
    outputs, samples = witness
    cert = not_realizable_certificate(instance, k, outputs, samples, span, solver="worstcase")
    evidence = {**evidence, "route": route, "reason": f"{phrase(cert['model'], k)} reproduces the labels: {reason}"}
    return _diagnosed(Decision(NOT_REALIZABLE, None, cert, verify(cert, instance), evidence), instance, k, deadline,
                      solver)


def decided_no(instance: Instance, k: int, res: Decision, evidence: dict, deadline: Deadline | None = None,
               solver=None) -> Decision:
    """The lazy engine's "no" (one output, rank(labels) < k) as the solver's, with its reason and diagnosis."""
    evidence = {**evidence, "reason": f"{phrase(res.certificate['model'], k)} reproduces the labels (rank(labels) = "
                                      f"{evidence['rank']} < k, one output: decided by the lazy engine)"}
    return _diagnosed(Decision(res.status, None, res.certificate, res.summary, evidence), instance, k, deadline, solver)


def _diagnosed(res: Decision, instance: Instance, k: int, deadline: Deadline | None, solver=None) -> Decision:
    """``res`` with ``evidence["diagnosis"]`` when its class leaves a wider one open and a network there fits."""
    if res.certificate["model"] == BOTH_BIASES:
        return res
    hint = biased_diagnosis(instance, k, deadline, res.certificate["model"], solver)
    if hint is None:
        return res
    return Decision(res.status, None, res.certificate, res.summary, {**res.evidence, "diagnosis": hint}, res.instance)


def biased_diagnosis(instance: Instance, k: int, deadline: Deadline | None = None,
                     model: dict | None = None, solver=None) -> str | None:
    """A sentence when k units with hidden biases and an output bias certifiably reproduce these labels (exact
    recovery first, then ``solver``, the worst-case solver's front door, when given), else None; ``model`` is the
    class the "no" excludes (default: neither bias).

    Spends at most :data:`DIAGNOSIS_SECONDS` (and never past ``deadline``); only a certified network is
    reported, so the sentence is a fact, and its absence claims nothing.
    """
    from ...recover.front_door import recover

    seconds = DIAGNOSIS_SECONDS
    if deadline is not None and deadline.seconds is not None:
        seconds = min(seconds, deadline.remaining())
    if seconds <= 0:
        return None
    try:
        found = recover(instance, k=k, bias=True, check=True, time_limit=seconds)
        net, checked = found.network, found.checked
    except (ExactReluError, TimeLimitExceeded):
        if solver is None:
            return None
        try:  # any inputs; its own "no" (the widest class) asks for nothing more
            res = solver(instance, k, bias=True, time_limit=seconds)
        except (ExactReluError, TimeLimitExceeded):
            return None
        if not res.realizable:
            return None
        net, checked = res.network, res.summary
    cls = {"biases": net.has_bias, "output_bias": net.has_output_bias}
    name = bias_name(cls)
    ask = "(solve_decision(..., bias=True), exactrelu solve --bias)" if name == "both" else \
        f"(solve_decision(..., bias={name!r}), exactrelu solve --bias {name})"
    return (f"a {k}-unit ReLU network {class_words(cls)} reproduces the labels exactly (certified: {checked}); "
            f"this \"no\" is about networks {class_words(model or NO_BIASES)}: ask for them {ask}")
