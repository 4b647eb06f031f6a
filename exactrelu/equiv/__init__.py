"""Verification questions about given networks: are two networks the same function (and which is smallest)?

* :func:`functionally_equal` decides exactly whether two networks compute the same function on all of R^d
  and returns one :class:`Equivalence` record either way, with a certificate the independent checker verifies
  (``equivalent``: the canonical form; ``not-equivalent``: an exact witness and both values).
* :func:`canonical_form` is the canonical form of the function a network computes (docs/equivalence.md).
* :func:`exactrelu.equiv.minimize.minimize` is the smallest network of the same form computing the same function.
"""

from .canonical import CanonicalForm, canonical_form
from .equality import Equivalence, functionally_equal

__all__ = ["CanonicalForm", "canonical_form", "Equivalence", "functionally_equal"]
