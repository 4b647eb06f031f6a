"""The search's certificates in the checker's rows (:mod:`exactrelu.certificates.trusted.phases`): each row of a
node in the reduced difference's own variables, and the combinations that a tree's nodes carry.

A node's rows are *substituted* (every decided neuron's output replaced by its form); a proof found on them is a
combination of the checker's *original* rows once the decided neurons' equations (``post``) are added back, which
:meth:`CheckerRows.combination` does.
"""

from __future__ import annotations

from fractions import Fraction

from ...exact.rationals import format_rational
from .forms import Form, add_to, scaled

__all__ = ["CheckerRows"]


class CheckerRows:
    """The rows and combinations of :class:`~.search.Search` (which sets ``red``, ``d``, ``box`` and ``dec``)."""

    def _original(self, kind: str, u: int) -> Form:
        if kind in ("lower", "upper"):  # the box's rows l_t - x_t <= 0, x_t - u_t <= 0
            return ({u: Fraction(-1)}, self.box[0][u]) if kind == "lower" else ({u: Fraction(1)}, -self.box[1][u])
        f, k = self.red.forms[u]
        y = self.d + u
        if kind == "relu":
            return {**f, y: Fraction(-1)}, k
        if kind == "pos":
            return {y: Fraction(-1)}, Fraction(0)
        if kind == "phase":
            return scaled((f, k), Fraction(-1)) if self.dec[u] else (f, k)
        if not self.dec[u]:
            return {y: Fraction(1)}, Fraction(0)
        return {**{v: -a for v, a in f.items()}, y: Fraction(1)}, -k

    def combination(self, multipliers: dict, target: Form | None) -> dict:
        """The certificate's combination: ``multipliers`` on substituted rows ({(kind, u): m}), completed by the
        decided neurons' equations so that its coefficients are exactly ``target``'s (zero when None)."""
        entries: dict[str, list] = {}
        rest = dict(target[0]) if target is not None else {}
        for (kind, u), m in sorted(multipliers.items()):
            entries.setdefault(kind, []).append([u, m])
            add_to(rest, self._original(kind, u)[0], -m)
        for u in sorted(self.dec, reverse=True):  # a neuron's form reads only lower neurons
            m = rest.get(self.d + u)
            if m:
                entries.setdefault("post", []).append([u, m])
                add_to(rest, self._original("post", u)[0], -m)
        if rest:
            raise RuntimeError("bug: a combination does not match its target after substitution")  # pragma: no cover
        return _written(entries)

    def interval(self, form: Form) -> dict | None:
        """Multipliers of the box's rows proving ``form <= 0`` when it reads the inputs only and its largest value on
        the box (exact interval arithmetic) is <= 0; else None."""
        if self.box is None or any(v >= self.d for v in form[0]):
            return None
        lower, upper = self.box
        top = form[1] + sum(a * (upper[t] if a > 0 else lower[t]) for t, a in form[0].items())
        if top > 0:
            return None
        return {("upper" if a > 0 else "lower", t): abs(a) for t, a in form[0].items()}


def _written(entries: dict) -> dict:
    """A combination as the certificate writes it: each kind's rows sorted, multipliers as canonical rationals."""
    return {kind: [[u, format_rational(m)] for u, m in sorted(rows)] for kind, rows in sorted(entries.items())}
