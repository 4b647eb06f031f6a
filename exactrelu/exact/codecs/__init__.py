"""Bulk number codecs: many exact numbers at once, moved between NumPy arrays, text and big integers.

The algebra of :mod:`exactrelu.exact` (matrices, ranks, kernels, LP) stands on these; they know nothing of it:
``float64.py`` (float64 arrays taken exactly: one power of two, the integer matrix, the canonical text),
``float_text.py`` and ``int_text.py`` (canonical rational text of float64 and dyadic matrices, made by NumPy),
``text.py`` (matrices of rational strings read in bulk), ``limbs.py`` (many big integers as int64 limb arrays: the
exact residual) and ``dyadic_product.py`` (``V @ X.T`` from float64 inputs by exact BLAS limb products).
"""
