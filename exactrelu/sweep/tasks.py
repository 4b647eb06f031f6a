"""The built-in sweep tasks: recover, fit, solve, decide, hardness-random.

Each is one function of the grid point ``p`` and the seed, registered with
:func:`~exactrelu.sweep.registry.task`; it builds its instance from plain values and returns an
:class:`~exactrelu.sweep.registry.Outcome` whose certificate the worker then checks independently.

>>> from exactrelu.sweep.registry import TASKS
>>> t = TASKS["recover"]
>>> out = t.run(t.fill({"d": 4, "k": 2, "n": 60}, "example"), 1)
>>> out.outcome, out.certificate["claim"], out.metrics["matches_planted"]
('realizes', 'realizes', True)
"""

from __future__ import annotations

import time

from ..errors import InvalidInput, NotRealizable
from .params import Param
from .registry import REQUIRED, TASKS, Outcome, Same, Task, task

__all__ = ["planted_instance", "get_task"]

#: Parameters of a planted instance (exactrelu.instances.planted) and their defaults.
PLANTED = {"d": REQUIRED, "k": REQUIRED, "m": Same("k"), "n": REQUIRED, "activation": "relu", "inputs": "gaussian",
           "weights": "integer", "weight_bound": 3, "input_bits": None, "bias": None, "noise": None,
           "noise_scale": None, "corrupt": None, "output_bias": None}


def planted_instance(p: dict, seed: int):
    """The planted instance of grid point ``p`` (the keys of :data:`PLANTED`) for ``seed``."""
    from ..instances import planted
    from ..network import Activation

    noise = (p["noise"], p["noise_scale"]) if "noise" in p else None
    inst = planted(d=p["d"], k=p["k"], m=p["m"], n=p["n"], activation=Activation.parse(p["activation"]), seed=seed,
                   inputs=p["inputs"], weights=p["weights"], weight_bound=p["weight_bound"],
                   input_bits=p.get("input_bits"), bias=p.get("bias") or None, noise=noise,
                   output_bias=p.get("output_bias") or None)
    if p.get("corrupt"):
        from ..instances.corruption import corrupt

        inst = corrupt(inst, p["corrupt"], seed=seed)  # as exactrelu generate --corrupt P --seed SEED
    return inst


def _generated(p: dict, seed: int):
    t0 = time.perf_counter()
    inst = planted_instance(p, seed)
    return inst, time.perf_counter() - t0


def _proved_no(exc, inst, method: str, timings: dict) -> Outcome:
    """A "no" that carries a ``not-realizable`` certificate is an answer (the worker checks it); one without is
    a refusal, as any other :class:`~exactrelu.errors.ExactReluError`."""
    if exc.certificate is None:
        raise exc
    return Outcome("not-realizable", exc.certificate, inst, method=method, timings=timings,
                   metrics={"rank": exc.evidence.get("rank", exc.evidence.get("rank_lower_bound"))})


def _planted_metrics(network, inst) -> dict:
    """How the certified network compares with the planted one (exactly, in canonical form)."""
    if inst.planted is None or network.k != inst.planted.k:
        return {}
    return {"matches_planted": bool(network.equivalent(inst.planted)),
            "parameter_error": str(network.parameter_error(inst.planted))}


@task("recover", params=PLANTED, options={"init": "auto", "route": "auto", "learn_bias": False, "sparse_noise": False},
      doc="exact recovery (exactrelu.recover.front_door.recover) of a planted network")
def recover_task(p: dict, seed: int) -> Outcome:
    from ..recover.front_door import recover

    inst, t_gen = _generated(p, seed)
    t0 = time.perf_counter()
    try:
        res = recover(inst, k=p["k"], init=p["init"], route=p["route"], bias=p["learn_bias"],
                      sparse_noise=p["sparse_noise"], random_state=seed, check=False)
    except NotRealizable as exc:
        return _proved_no(exc, inst, "recover", {"generate": t_gen, "recover": time.perf_counter() - t0})
    metrics = {"route": res.route, "rank": res.rank, "tries": res.tries, **_planted_metrics(res.network, inst)}
    if "except" in res.certificate:  # realizes-except: the entries it names against those corrupted
        metrics["excepted"] = len(res.certificate["except"])
        if "corrupted" in inst.meta:
            metrics["except_is_corrupted"] = ([tuple(e) for e in res.certificate["except"]]
                                              == [tuple(e) for e in inst.meta["corrupted"]])
    return Outcome(res.certificate["claim"], res.certificate, inst, method=res.proposer,
                   timings={"generate": t_gen, **res.timings}, metrics=metrics)


_FIT_METHOD = Param(lambda v, where: _fit_method(v, where), "fit: the start method (exactrelu.fit.METHODS, or auto)")


def _fit_method(v, where):
    from ..fit import method_names

    if v not in method_names():
        raise InvalidInput(f"{where}: expected one of {', '.join(map(repr, method_names()))}, got {v!r}")
    return v


@task("fit", params={**PLANTED, "noise": "gaussian", "noise_scale": REQUIRED},
      options={"method": "auto", "learn_bias": False, "refine": None}, error="relative_error",
      checks={"method": _FIT_METHOD},
      doc="an approximate fit (exactrelu.fit.fit) of noisy planted labels, with its exact residual certificate")
def fit_task(p: dict, seed: int) -> Outcome:
    import numpy as np

    from ..fit import fit

    inst, t_gen = _generated(p, seed)
    res = fit(inst, p["k"], bias=p["learn_bias"], method=p["method"], random_state=seed, refine=p.get("refine"),
              check=False)
    r = res.residual
    metrics = {"relative_error": r.relative(), "max_abs_error": float(r.max_abs_error), "realizable": res.realizable}
    if inst.clean_labels is not None:  # how far the fit is from the noiseless labels (float: a figure, not a claim)
        clean = inst.clean_labels.to_float()
        metrics["clean_relative_error"] = float(np.linalg.norm(res.network.predict(inst.float_inputs()) - clean)
                                                / max(np.linalg.norm(clean), 1e-300))
    return Outcome("residual", res.certificate, inst, method=res.method,
                   timings={"generate": t_gen, **res.timings}, metrics=metrics)


@task("solve", params={**PLANTED, "inputs": "integer"}, options={"try_recovery": True},
      doc="the worst-case solver (exactrelu.decide.enumeration.worstcase.solve) on a planted instance")
def solve_task(p: dict, seed: int) -> Outcome:
    from ..decide.enumeration.worstcase import solve_decision

    inst, t_gen = _generated(p, seed)
    t0 = time.perf_counter()
    res = solve_decision(inst, p["k"], keep_certificates=False, try_recovery=p["try_recovery"])
    timings = {"generate": t_gen, "solve": time.perf_counter() - t0}
    if not res.realizable:
        return Outcome("not-realizable", res.certificate, inst, method="enumeration", timings=timings,
                       metrics={"rank": res.evidence["rank"]})
    route = "row-span-recovery" if res.evidence["route"] == "row-span-recovery" else "enumeration"
    patterns = res.evidence["patterns"]
    metrics = {"rank": res.evidence["rank"], "patterns": sum(1 for r in patterns if r.kind != "row-span-recovery"),
               **_planted_metrics(res.network, inst)}
    return Outcome("realizes", res.certificate, inst, method=route, timings=timings, metrics=metrics)


_DECIDE = {"engine": "auto", "method": "auto", "time_limit": None, "max_nodes": None}


def _decide(inst, U, k, p, t_gen) -> Outcome:
    from ..decide.search.pattern_search import decide

    t0 = time.perf_counter()
    res = decide(inst, U=U, k=k, method=p["method"], engine=p["engine"], max_nodes=p.get("max_nodes"),
                 time_limit=p.get("time_limit"))
    st = res.evidence
    engine = st.get("engine") or ("lazy" if p["engine"] == "auto" else p["engine"])
    metrics = {key: st[key] for key in ("rounds", "lemmas", "lps", "nodes", "cases") if key in st}
    timings = {"generate": t_gen, "decide": time.perf_counter() - t0 - st.get("check_seconds", 0.0),
               "decide_check": st.get("check_seconds", 0.0)}
    out = Outcome(res.status, res.certificate, inst, method=engine, timings=timings,
                  metrics=metrics)
    return out, res


def _one_output(p: dict, where: str) -> None:
    if p["output_weights"] == "unknown" and p["m"] != 1:
        raise InvalidInput(f"{where}: output_weights = 'unknown' needs m = 1, got m = {p['m']}")


@task("decide", params={**PLANTED, "m": 1, "inputs": "integer"}, options={"output_weights": "unknown", **_DECIDE},
      rate="realizable", check=_one_output,
      doc="the exact decision procedure (exactrelu.decide.search.pattern_search) on a planted instance")
def decide_task(p: dict, seed: int) -> Outcome:
    inst, t_gen = _generated(p, seed)
    U = inst.planted.U.to_strings() if p["output_weights"] == "given" else None
    return _decide(inst, U, p["k"], p, t_gen)[0]


def _clause_count(p: dict, where: str) -> None:
    if ("clauses" in p) == ("density" in p):
        raise InvalidInput(f"{where}: give one of clauses or density")


@task("hardness-random", params={"vars": REQUIRED, "clauses": None, "density": None, "formula": "nae",
                                 "planted_formula": False},
      options={"output_weights": "given", **_DECIDE}, size="vars", rate_x="density", rate="realizable",
      check=_clause_count, doc="a random formula reduced to a k = 2 ReLU instance (exactrelu.hardness), decided exactly")
def hardness_random_task(p: dict, seed: int) -> Outcome:
    from ..hardness import random_kcnf, random_nae3, reduction_for

    t0 = time.perf_counter()
    clauses = p["clauses"] if "clauses" in p else round(p["density"] * p["vars"])
    make = random_nae3 if p["formula"] == "nae" else random_kcnf
    formula = make(p["vars"], clauses, seed=seed, planted=p["planted_formula"])
    chain = reduction_for(formula)
    inst, data = chain.apply(formula)
    U = [["1", "1"]] if p["output_weights"] == "given" else None
    out, res = _decide(inst, U, 2, p, time.perf_counter() - t0)
    out.metrics.update({"clauses": clauses, "n": inst.n, "d": inst.d})
    if res.network is not None:  # a realizing network decodes to a satisfying assignment: check it exactly
        out.metrics["decoded_satisfies"] = bool(formula.satisfied_by(chain.invert(res.network, data)))
    return out


def get_task(name: str, module: str | None = None) -> Task:
    """The registered task ``name``: a built-in one of this module (registered when it is imported), or one that
    ``module`` registers when it is imported (a user's own tasks)."""
    if module is not None:
        import importlib

        importlib.import_module(module)
    if name not in TASKS:
        raise InvalidInput(f"unknown task {name!r}; choose from {', '.join(sorted(TASKS))}")
    return TASKS[name]
