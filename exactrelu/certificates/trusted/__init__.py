"""The trusted base: the independent checker's modules. Standard library only.

Every module here imports only the Python standard library and other modules of this
package (never the rest of exactrelu, never a numeric library), so the whole trusted base can
be audited in one sitting and shares no code with the solver. The entry point is
:mod:`exactrelu.certificates.checker`; one module per family of claims:

``common``      errors, exact rationals, size limits, field and matrix readers, the certificate file
``instance``    instance files (JSON; .npz through ``npz``) and the instance hash
``npz``         the .npz reader (the .npy header, rows a block at a time)
``schedule``    how a check is scheduled (ranges, streaming, forked workers, the collector pause), and
                the two functions that bind ranges of rows to the instance hash
``realizes``    ``realizes`` (with hidden biases), ``realizes-except``, ``residual``
``packed``      many exact dot products at once through packed integers (Kronecker substitution)
``refutation``  ``not-realizable``: case trees, lemmas, templates, Farkas leaves
``span``        ``not-realizable`` for any U and m: a rank witness, and a span refutation
``tree``        the one reader of case trees in preorder (refutation, span)
``lrat``        check of hinted (LRAT-style) refutations, linear in their size
``lp``          ``lp-feasible`` and ``lp-infeasible``
``model``       the model class a ``not-realizable`` verdict names
``equivalence`` ``equivalent`` and ``not-equivalent``
"""
