"""What ``init=`` accepts, turned into float proposal rows for the exact routes.

A proposal is only a float array of rows ``[V_i b_i]`` (with ``bias=True``) or ``V_i``: the routes
use it to choose small exact systems, never to decide. ``init`` may be

* a proposer name (:data:`exactrelu.propose.PROPOSERS`: ``"auto"``, ``"search"``, ``"gradient"``, ...);
  proposers that do not model biases are fitted on the inputs augmented by a constant 1, so that
  their rows are ``[V_i b_i]``; an estimator whose ``bias`` parameter exists is given ``bias=True``
  and fitted on the inputs as they are; with an output bias, one whose ``offset`` parameter exists
  (search, gradient, auto) is given ``offset=True``;
* an estimator (scikit-learn style) exposing ``V_`` (k x d) and optionally ``b_`` (k) once fitted;
  it is fitted on the inputs as they are unless it already has ``V_`` (a ``V_`` with d + 1 columns
  is read as ``[V b]``);
* a PyTorch ``nn.Module`` (Linear -> ReLU -> Linear) or its state dict, whose first layer is used;
* a :class:`~exactrelu.network.Network`, or the path of a weights file
  (:func:`exactrelu.io.weights.read_weights`: ``exactrelu.weights`` JSON, a certificate, ``.npz``
  with U, V (b), a PyTorch state dict), whose V and b are used;
* an array (or tensor) of rows: (rows x d), or (rows x (d + 1)) read as ``[V b]`` when ``bias=True``.

Missing biases are taken as 0; a biased proposal without ``bias=True`` is refused (InvalidInput).

>>> import numpy as np
>>> req = RecoveryRequest(k=2, bias=True, init=np.ones((2, 3)))
>>> V, est, name = run_proposer(req, None, np.ones((5, 4)), np.ones((5, 1)), 4)
>>> V.shape, name
((2, 4), 'weights')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InvalidInput
from ..exact.codecs.float64 import tensor_array
from ..network import RELU, Network
from ..propose import PROPOSERS, make_proposer, proposal_array
from ..propose.selfcheck import quiet
from .request import RecoveryRequest

__all__ = ["run_proposer", "proposal_rows", "read_init", "InitFile"]


def _looks_like_file(text: str) -> bool:
    import os

    return text not in PROPOSERS and (os.path.sep in text or "." in text or os.path.exists(text))


@dataclass(frozen=True)
class InitFile:
    """A weights file given as ``init=``, read at the front door (:func:`read_init`): its path and its network."""

    path: str
    network: Network


def read_init(init: Any, k: int) -> Any:
    """``init`` as the routes take it: a weights file is read at the front door, before any work.

    Parameters
    ----------
    init : what ``recover(init=...)`` accepts (module doc); a string that names a file (it has a path separator or
        a dot, or exists, and is no proposer's name) is read with :func:`exactrelu.io.weights.read_weights`.
    k : the number of hidden units the file's network must have.

    Returns
    -------
    An :class:`InitFile` (the path and the network read) for a file; anything else as given.

    Raises
    ------
    InvalidInput : the file is missing or malformed, or its network has another number of hidden units.

    >>> read_init("auto", 2)
    'auto'
    >>> read_init("missing-weights.json", 2)
    Traceback (most recent call last):
    exactrelu.errors.InvalidInput: no such weights file: missing-weights.json
    """
    if isinstance(init, str) and _looks_like_file(init):
        from ..io.weights import read_weights

        net = read_weights(init)
        if net.k != k:
            raise InvalidInput(f"{init}: the weights have {net.k} hidden units, but k = {k}")
        return InitFile(init, net)
    return init


def proposal_rows(V, b, D: int, bias: bool, what: str = "the proposal") -> np.ndarray:
    """Validated float rows (rows x D): ``[V b]`` when ``bias`` (b None -> 0), else V (b must be zero)."""
    V = np.asarray(V, dtype=np.float64)
    if bias and V.ndim == 2 and V.shape[1] == D - 1:
        col = np.zeros(V.shape[0]) if b is None else np.asarray(b, dtype=np.float64).reshape(-1)
        if col.shape != (V.shape[0],):
            raise InvalidInput(f"{what}: b has {col.size} entries but V has {V.shape[0]} rows")
        V = np.hstack([V, col[:, None]])
    elif b is not None and np.any(np.asarray(b, dtype=np.float64) != 0):
        if not bias:
            raise InvalidInput(f"{what} has non-zero hidden biases b; pass bias=True (--bias) to recover a biased network")
        raise InvalidInput(f"{what}: V has {V.shape[1] if V.ndim == 2 else '?'} columns; with b it needs d = {D - 1}")
    return proposal_array(V, D)


def run_proposer(req: RecoveryRequest, act, Xf: np.ndarray, Yf: np.ndarray, D: int) -> tuple[np.ndarray, Any, str]:
    """(rows x D float proposal, the fitted estimator or None, its name) for ``req.init`` (see the module doc).

    ``Xf`` are the float inputs the route works on: augmented by a constant last column when ``req.bias``.
    """
    init, k, random_state, bias, progress = req.init, req.k, req.random_state, req.bias, req.progress
    act = act or RELU
    if isinstance(init, Network):
        return _from_network(init, D, bias, "the init network"), None, "network"
    if isinstance(init, Mapping) or (callable(getattr(init, "state_dict", None)) and not hasattr(init, "fit")):
        from ..io.weights import as_network  # a PyTorch nn.Module or a state dict

        net = as_network(init)
        if net.k != k:
            raise InvalidInput(f"the init module has {net.k} hidden units, but k = {k}")
        return _from_network(net, D, bias, "the init module"), None, "module"
    init = tensor_array(init)  # a tensor of rows: its values
    if isinstance(init, (np.ndarray, list, tuple)):
        return proposal_rows(init, None, D, bias), None, "weights"
    init = read_init(init, k)  # a weights file: read at the front door already (recover), else here
    if isinstance(init, InitFile):
        return _from_network(init.network, D, bias, init.path), None, "weights file"
    est = make_proposer(init, k, activation=act, random_state=random_state)
    own = bias and hasattr(est, "bias")  # a proposer that models biases itself sees the inputs as they are
    if own and isinstance(init, str) and not est.bias:
        est.bias = True
    if req.output_bias and isinstance(init, str) and hasattr(est, "offset"):
        est.offset = True  # the labels may carry an output bias: the proposer's span holds the constant vector
    if progress is not None and hasattr(est, "progress") and getattr(est, "progress", None) is None:
        est.progress = progress
    if not hasattr(est, "V_"):
        X = Xf[:, :-1] if own or (bias and not isinstance(init, str)) else Xf
        with quiet():  # the exact phase judges the proposal
            est.fit(X, Yf)
    name = init if isinstance(init, str) else type(est).__name__
    if getattr(est, "chosen_", None):  # auto: say what it chose
        name = f"{name}:{est.chosen_}"
    return proposal_rows(est.V_, getattr(est, "b_", None), D, bias, f"proposal {name}"), est, name


def _from_network(net: Network, D: int, bias: bool, what: str) -> np.ndarray:
    b = net.b.to_float()[:, 0] if net.has_bias else None
    return proposal_rows(net.V.to_float(), b, D, bias, what)
