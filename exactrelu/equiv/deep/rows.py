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
    """The rows and combinations of :class:`~.search.Search` (which sets ``red``, ``d``, ``box``, ``dec`` and
    ``chain``)."""

    def _original(self, kind: str, u: int) -> Form:
        if kind in ("lower", "upper"):  # the box's rows l_t - x_t <= 0, x_t - u_t <= 0
            return ({u: Fraction(-1)}, self.box[0][u]) if kind == "lower" else ({u: Fraction(1)}, -self.box[1][u])
        f, k = self.red.forms[u]
        y = self.d + u
        if kind in ("line", "ymax", "lo", "hi"):  # the rows of a relaxed leaf's chain
            from .relax import chain_row

            return chain_row(kind, (f, k), y, self.chain[u])
        if kind == "relu":
            return {**f, y: Fraction(-1)}, k
        if kind == "pos":
            return {y: Fraction(-1)}, Fraction(0)
        if kind == "phase":
            return scaled((f, k), Fraction(-1)) if self.dec[u] else (f, k)
        if not self.dec[u]:
            return {y: Fraction(1)}, Fraction(0)
        return {**{v: -a for v, a in f.items()}, y: Fraction(1)}, -k

    def combination(self, multipliers: dict, target: Form | None, complete: bool = True) -> dict:
        """The certificate's combination: ``multipliers`` on substituted rows ({(kind, u): m}), completed by the
        decided neurons' equations so that its coefficients are exactly ``target``'s (zero when None). With
        ``complete=False`` only the decided neurons' coefficients are summed (:mod:`.relax` made the substituted
        sum equal to the target exactly; the checker verifies the whole sum)."""
        if not complete:
            return self._decided_part(multipliers, target)
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

    def _decided_part(self, multipliers: dict, target: Form) -> dict:
        """:meth:`combination` with ``complete=False``: the decided neurons' coefficients only, in FLINT's
        rationals (the rows' parts on them kept while a relaxed leaf is written: :meth:`_kept`)."""
        import flint

        keep = {self.d + u for u in self.dec}
        entries: dict[str, list] = {}
        rest = {v: flint.fmpq(a.numerator, a.denominator) for v, a in target[0].items() if v in keep}
        for (kind, u), m in sorted(multipliers.items()):
            entries.setdefault(kind, []).append([u, m])
            if kind != "pos" and kind != "ymax" and keep:
                m = flint.fmpq(m.numerator, m.denominator)
                for v, a in self._kept(kind, u, keep).items():
                    rest[v] = rest.get(v, 0) - m * a
        for u in sorted(self.dec, reverse=True):  # a neuron's form reads only lower neurons
            m = rest.get(self.d + u)
            if m:
                entries.setdefault("post", []).append([u, Fraction(int(m.p), int(m.q))])
                for v, a in self._kept("post", u, keep).items():
                    rest[v] = rest.get(v, 0) - m * a
        return _written(entries)

    def _kept(self, kind: str, u: int, keep: set) -> dict:
        """The coefficients of row u of ``kind`` (original) on the variables ``keep`` (the decided neurons'), in
        FLINT's rationals, kept in ``kept_rows`` while a relaxed leaf is written (its decisions and chain do not
        change meanwhile)."""
        cache = self.kept_rows
        if cache is not None and (kind, u) in cache:
            return cache[kind, u]
        import flint

        if kind in ("line", "lo", "hi"):  # a chain row is a multiple of the form, plus y_u (not decided)
            scale = -self.chain[u][2] if kind == "line" else Fraction(-1 if kind == "lo" else 1)
            f = {v: scale * a for v, a in self.red.forms[u][0].items() if v in keep}
        else:
            f = {v: a for v, a in self._original(kind, u)[0].items() if v in keep}
        f = {v: flint.fmpq(a.numerator, a.denominator) for v, a in f.items()}
        if cache is not None:
            cache[kind, u] = f
        return f

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
