"""The model class a ``not-realizable`` certificate states, and the library's words for it.

Every ``not-realizable`` certificate the library writes carries ``"model": {"biases": ..., "output_bias": ...}``,
the class of networks ``U f(V x + b) + c`` it excludes (docs/certificates.md, "Model classes in verdicts"). What a
proof supports is decided by the trusted :mod:`exactrelu.certificates.trusted.model`; this module only writes the
statement, refuses to write one the checker would refuse, and phrases verdicts with the checker's own words
(:func:`~exactrelu.certificates.trusted.model.verdict`), so the library and ``exactrelu check`` say the same thing.

>>> phrase(NO_BIASES, 2)
'no 2-unit ReLU network without hidden biases and without output bias'
>>> bias_class("output") == OUTPUT_BIAS, class_words(bias_class(True))
(True, 'with hidden biases and with output bias')
>>> model_of({"claim": "not-realizable", "model": HIDDEN_BIASES})
{'biases': True, 'output_bias': False}
"""

from __future__ import annotations

from ..trusted.model import verdict

__all__ = ["NO_BIASES", "HIDDEN_BIASES", "OUTPUT_BIAS", "BOTH_BIASES", "BIAS_CHOICES", "bias_class", "bias_name",
           "class_words", "model_class", "has_constant_column", "phrase", "model_of"]

#: case trees, hinted refutations and span refutations: relu(V x), no hidden biases, no output bias
NO_BIASES = {"biases": False, "output_bias": False}
#: the same on inputs with a constant non-zero column (``solve --bias``), and a (k+1) x (k+1) rank witness
HIDDEN_BIASES = {"biases": True, "output_bias": False}
#: a (k+2) x (k+2) rank witness; and PyTorch's default model ``Linear -> f -> Linear`` (``bias=True``, ``--bias``)
BOTH_BIASES = {"biases": True, "output_bias": True}
#: an output bias c without hidden biases (``bias="output"``)
OUTPUT_BIAS = {"biases": False, "output_bias": True}

#: what a learner's ``bias=`` (the command line's ``--bias [CLASS]``) may say, and the class each names
BIAS_CHOICES = {"both": BOTH_BIASES, "hidden": HIDDEN_BIASES, "output": OUTPUT_BIAS, "none": NO_BIASES}


def bias_class(bias) -> dict:
    """The model class a learner is asked for: ``{"biases": hidden, "output_bias": output}``.

    ``True`` and ``"both"`` mean PyTorch's default two-layer model (hidden biases b and an output bias c),
    ``"hidden"`` the papers' model with hidden biases and no output bias, ``"output"`` an output bias only,
    ``False``, None and ``"none"`` neither. A dict in this form is taken as it is.

    >>> bias_class(True), bias_class("hidden")
    ({'biases': True, 'output_bias': True}, {'biases': True, 'output_bias': False})
    >>> bias_class(False)
    {'biases': False, 'output_bias': False}
    >>> bias_class("yes")
    Traceback (most recent call last):
    ...
    exactrelu.errors.InvalidInput: bias must be True, False, 'both', 'hidden', 'output' or 'none', got 'yes'
    """
    if bias is True:
        return dict(BOTH_BIASES)
    if bias is False or bias is None:
        return dict(NO_BIASES)
    if isinstance(bias, str) and bias in BIAS_CHOICES:
        return dict(BIAS_CHOICES[bias])
    if isinstance(bias, dict) and set(bias) == {"biases", "output_bias"} \
            and all(type(v) is bool for v in bias.values()):
        return dict(bias)
    from ...errors import InvalidInput

    raise InvalidInput(f"bias must be True, False, 'both', 'hidden', 'output' or 'none', got {bias!r}")


def bias_name(model: dict) -> str:
    """The word of :data:`BIAS_CHOICES` for a class: ``"both"``, ``"hidden"``, ``"output"`` or ``"none"``.

    >>> bias_name({"biases": False, "output_bias": True})
    'output'
    """
    return next(name for name, m in BIAS_CHOICES.items() if m == model)


def class_words(model: dict) -> str:
    """'with hidden biases and with output bias': the class in the checker's words.

    >>> class_words(HIDDEN_BIASES)
    'with hidden biases and without output bias'
    """
    line = verdict(model, 1, 1, 0, "", "")
    return line[len("no 1-unit ReLU network "): line.index(" reproduces the labels")]


def has_constant_column(inputs) -> bool:
    """Do the inputs (a :class:`~exactrelu.exact.QMatrix`) have a column with one non-zero value at every sample?

    Exactly what the checker asks before it lets a refutation exclude hidden biases.

    >>> from exactrelu.exact import QMatrix
    >>> has_constant_column(QMatrix.from_rows([[1, 2], [3, 2]])), has_constant_column(QMatrix.from_rows([[1, 0], [0, 1]]))
    (True, False)
    """
    num = inputs.num
    n, d = num.nrows(), num.ncols()
    if n == 0:
        return False
    first = [num[0, t] for t in range(d)]
    return any(first[t] != 0 and all(num[j, t] == first[t] for j in range(1, n)) for t in range(d))


def model_class(inputs) -> dict:
    """The widest ``"model"`` a refutation (case trees, hinted steps, span) supports on these inputs: networks with
    hidden biases when a column of the inputs is one non-zero constant (``V_i . x + b_i = (V_i + (b_i / kappa) e_t)
    . x`` there, so a network with biases is one without), else without; never an output bias.

    >>> from exactrelu.exact import QMatrix
    >>> model_class(QMatrix.from_rows([[1, 1], [2, 1]])), model_class(QMatrix.from_rows([[1, 1], [2, 0]]))
    ({'biases': True, 'output_bias': False}, {'biases': False, 'output_bias': False})
    """
    return dict(HIDDEN_BIASES if has_constant_column(inputs) else NO_BIASES)


def phrase(model: dict, k: int, degree: int = 1) -> str:
    """'no 2-unit ReLU network without hidden biases and without output bias': the class, in the checker's words."""
    line = verdict(model, k, degree, 0, "", "")
    return line[: line.index(" reproduces the labels")]


def model_of(cert: dict) -> dict | None:
    """The class a ``not-realizable`` certificate states (None for other claims, or an old certificate without it)."""
    if not isinstance(cert, dict) or cert.get("claim") != "not-realizable":
        return None
    model = cert.get("model")
    return dict(model) if isinstance(model, dict) else None
