"""JSON laid out for reading and written fast: the outer levels one item per line, the rest compact. Standard library.

Certificates (:func:`exactrelu.certificates.envelope.write_certificate`) and the reduction's fast decision
(:mod:`exactrelu.decide.search.source`) write with :func:`dump_layout`; this module imports nothing else, so that a
command writing a certificate does not pay for numpy or FLINT.
"""

from __future__ import annotations

import json

__all__ = ["LAYOUT_DEPTH", "dump_layout"]

#: containers nested at most this deep are laid out one item per line (as ``indent=1``); deeper ones are one line
LAYOUT_DEPTH = 4


def dump_layout(obj, fh, depth: int = LAYOUT_DEPTH, pad: str = "") -> None:
    """Write ``obj`` as JSON to ``fh``, streaming: the outer ``depth`` levels one item per line, the rest compact.

    ``json.dump(indent=1)`` runs the pure-Python encoder over every number (0.45 s of a 2 MB refutation
    certificate's write at N = 200, profiled); here each inner item is one call of the C encoder and the text
    goes to the file as it is made; a list of flat lists at the last level laid out (a refutation's ``lrat`` steps) is
    one call of the C encoder, its items put on their lines after. The result is the same JSON value (``json.loads``
    reads it back equal).

    >>> import io
    >>> buf = io.StringIO()
    >>> dump_layout({"claim": "x", "lrat": [[1, 0, 2], [0, 1]]}, buf, depth=2); print(buf.getvalue())
    {
     "claim": "x",
     "lrat": [
      [1, 0, 2],
      [0, 1]
     ]
    }
    """
    if depth <= 0 or not isinstance(obj, (dict, list)) or not obj or (
            isinstance(obj, dict) and not all(isinstance(key, str) for key in obj)):
        fh.write(json.dumps(obj))
        return
    inner = pad + " "
    sep = "\n" + inner
    if depth == 1 and isinstance(obj, list) and set(map(type, obj)) == {list}:  # lists written compact, one a line
        text = json.dumps(obj)
        if text.count("[") == len(obj) + 1:  # no "[" inside any item: "], [" is only ever between two items
            fh.write("[" + sep + text[1:-1].replace("], [", "]," + sep + "[") + "\n" + pad + "]")
            return
    if isinstance(obj, dict):
        fh.write("{")
        for number, (key, value) in enumerate(obj.items()):
            fh.write(("," if number else "") + sep + json.dumps(key) + ": ")
            dump_layout(value, fh, depth - 1, inner)
        fh.write("\n" + pad + "}")
    else:
        fh.write("[")
        for number, value in enumerate(obj):
            fh.write(("," if number else "") + sep)
            dump_layout(value, fh, depth - 1, inner)
        fh.write("\n" + pad + "]")
