"""The SAT + exact-LP search: any rank, m = 1 or U given (docs/hardness.md).

:func:`decide` (``pattern_search.py``) tries each case of output weights by lazy clause generation (``lazy.py``: a
CDCL SAT solver over activation literals, whose models are checked by exact LPs on the rows they touch,
``rows.py`` with ``elimination.py``; clusters of samples compiled once, ``clusters.py``, kept on disk by
``lemma_cache.py`` and numbered by ``lemma_store.py``; a float screen, ``float_screen.py``, and a float hint,
``hint.py``) or by a case tree (``tree.py``). Its refutations are hinted clause proofs (``sat/``: the solver's
trace, its trimming to LRAT hints, and the upgrade of old DRUP certificates). An instance that is exactly a
reduction's image is decided by its source formula instead (``source.py``, certified with ``source_proof.py``).
"""


def __getattr__(name: str):  # imported on first use: the SAT helpers of ``sat/`` are used without the engines
    if name in ("decide", "sign_cases"):
        from . import pattern_search

        return getattr(pattern_search, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["decide", "sign_cases"]
