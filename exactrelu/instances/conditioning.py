"""Planted instances whose first layer V is ill-conditioned by a parameter (the paper's Lemma 16 setting).

Bakshi, Jayaram and Woodruff show that exact recovery needs at least linearly many samples in the
condition number kappa(V): with nearly parallel units, the samples separating two of them (one active,
the other not) become rare. :func:`ill_conditioned` draws the rows V_i = u + g_i / kappa around one unit
direction u (g_i standard Gaussian), rounded to multiples of 2**-24 (exact dyadics): the units are nearly
parallel *and of one orientation*, the hard case of the lemma (anti-parallel units are easy to tell
apart), and kappa(V) grows linearly with the parameter (recompute it from ``planted.V``). benchmarks/
bench_routes.py (part ``kappa``) measures the samples each kappa needs.

>>> import numpy as np
>>> inst = ill_conditioned(d=4, k=3, m=3, n=100, kappa=50.0, seed=0)
>>> bool(np.linalg.cond(inst.planted.V.to_float()) > 20), inst.planted.evaluate_exact(inst.inputs) == inst.labels
(True, True)
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidInput
from ..validation import check_number, check_seed
from ..exact.linalg import rank_mod_p
from ..exact.matrix import QMatrix
from . import Instance, planted
from ..network import RELU, Activation, Network

__all__ = ["ill_conditioned"]


def ill_conditioned(d: int, k: int, m: int, n: int, *, kappa: float, seed=0, bias=None,
                    activation: Activation = RELU) -> Instance:
    """Gaussian inputs, V (k x d, k <= d) of nearly parallel rows (kappa(V) linear in ``kappa``), integer U of rank k.

    Raises InvalidInput when k > d (V of full row rank is the setting of the lemma) or kappa < 1.
    """
    check_number(kappa, "kappa", minimum=1)
    if k > d:
        raise InvalidInput(f"an ill-conditioned V of full row rank needs k <= d, got k = {k} > d = {d}")
    base = planted(d, k, m, n, seed=seed, bias=bias, activation=activation)  # inputs, U, b as usual
    seed = check_seed(seed)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(None if seed is None else [seed, 7])
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    for _ in range(100):
        V = np.round((u + rng.standard_normal((k, d)) / kappa) * 2**24) / 2**24
        if rank_mod_p(QMatrix.from_numpy(V).num) == k:
            break
    net = Network(base.planted.U, QMatrix.from_numpy(V, name="V"), activation, base.planted.b, base.planted.c)
    Y = net.evaluate_exact(base.inputs)
    meta = dict(base.meta, generator="exactrelu.instances.conditioning.ill_conditioned", kappa=float(kappa))
    return Instance(base.inputs, Y, activation, net, base.inputs_float, None, meta)
