"""Writer of the claim ``transcript``: an oracle's answers at its queries, a network that gives every one, and a lower
bound on the units of every network that does (read by :mod:`exactrelu.certificates.trusted.transcript`).

The queries are blocks, each with its answers: ``{"line": {"p", "q"}, "t", "answers"}`` (the points p + t q),
``{"axes": {"x", "step"}, "answers"}`` (the d points x + h e_l) and ``{"points", "answers"}``; every number a
canonical rational string. ``network`` is :meth:`exactrelu.network.Network.to_json`; ``windows`` is
``{"block": i, "points": [[a, b, c], ...]}``, indices of points of the line block i (docs/certificates.md,
"Transcripts"). Nothing is verified here: :func:`verify_transcript` runs the independent checker.

>>> from exactrelu.network import Network
>>> net = Network.from_rows(U=[[1]], V=[[1, 0]], b=[-1])                   # relu(x - 1)
>>> line = {"line": {"p": ["0", "0"], "q": ["1", "0"]}, "t": ["0", "1", "2", "3"], "answers": [["0"], ["0"], ["1"], ["2"]]}
>>> axes = {"axes": {"x": ["2", "5"], "step": "1/2"}, "answers": [["3/2"], ["1"]]}
>>> cert = transcript_certificate(2, 1, [line, axes], network=net, windows={"block": 0, "points": [[0, 2, 3]]})
>>> print(verify_transcript(cert))  # doctest: +NORMALIZE_WHITESPACE
transcript: 6 answers at the queries (1 line, 1 axis batch, 0 point blocks; d = 2, m = 1); the network (k = 1) gives
every one exactly; every ReLU network U relu(V x + b) + c giving them has at least 1 unit (1 disjoint window of block 0
with answers not collinear), so none has fewer units than this network
"""

from __future__ import annotations

from ...network import Network
from ..envelope import envelope, provenance
from .equivalence import verify_equivalence

__all__ = ["transcript_certificate", "verify_transcript"]


def transcript_certificate(d: int, m: int, blocks: list[dict], *, network: Network | None = None,
                           windows: dict | None = None, bases: list | None = None, **prov) -> dict:
    """The ``transcript`` certificate of the query ``blocks`` (module docstring), with the network said to give every
    answer and/or the windows said to prove a lower bound on the units (not verified here); ``bases``: the vectors of
    the axis batches with ``"basis": i`` (left out when empty)."""
    fields = {"d": d, "m": m, "queries": blocks}
    if bases:
        fields["bases"] = bases
    if network is not None:
        fields["network"] = network.to_json()
    if windows is not None:
        fields["windows"] = windows
    return {**envelope("transcript", **fields), "provenance": provenance(**prov)}


def verify_transcript(cert: dict) -> str:
    """Run the independent checker on a ``transcript`` certificate: its summary, or CertificateInvalid (InvalidInput
    when it is over one of the checker's size limits). Like every claim that carries its data, it is checked with
    no instance, through the same call as :func:`~exactrelu.certificates.claims.equivalence.verify_equivalence`."""
    return verify_equivalence(cert)
