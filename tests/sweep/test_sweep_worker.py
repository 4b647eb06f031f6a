"""One task -> one row: the independent checker decides 'certified'; every other outcome is a row, never a raise."""

import copy

import pytest

from exactrelu.errors import NotRealizable
from exactrelu.sweep import REQUIRED, TASKS, Outcome, get_task, task
from exactrelu.sweep.tasks import planted_instance
from exactrelu.sweep.worker import STATUSES, run_task


def payload(name, seed=0, keep=False, **given):
    t = get_task(name)
    return {"id": "t", "task": name, "module": t.module, "params": t.fill(given, "test"), "seed": seed,
            "keep_certificate": keep}


@pytest.fixture
def tampering_task():
    """A task whose certificate was altered after recovery (the checker must catch it)."""
    def make(edit):
        @task("test-tampered", params={"d": REQUIRED, "k": REQUIRED, "n": REQUIRED}, options={})
        def tampered(p, seed):
            out = TASKS["recover"].run(TASKS["recover"].fill(p, "test"), seed)
            out.certificate = copy.deepcopy(out.certificate)
            edit(out.certificate)
            return out
        return tampered
    yield make
    TASKS.pop("test-tampered", None)


@pytest.mark.parametrize("edit", [
    lambda c: c["U"][0].__setitem__(0, c["U"][0][0] + "1"),  # "3" -> "31", "1/2" -> "1/21": another value
    lambda c: c["V"][1].__setitem__(0, "1/3"),
    lambda c: c.__setitem__("instance_sha256", "0" * 64),
    lambda c: c.__setitem__("claim", "realises"),
    lambda c: c["V"].pop(),
])
def test_a_tampered_certificate_makes_the_row_failed(tampering_task, edit):
    tampering_task(edit)
    row = run_task(payload("test-tampered", seed=2, keep=True, d=4, k=2, n=60))
    assert row["status"] == "failed" and row["reason"].startswith("the independent checker rejected the certificate")
    assert row["certificate"]["claim"] in ("realizes", "realises")  # kept: the evidence of the failure
    assert "independent_check" in row["timings"]


def test_recover_row_is_certified_by_the_checker():
    row = run_task(payload("recover", seed=1, d=4, k=2, n=80))
    assert row["status"] == "certified" and row["outcome"] == "realizes"
    assert row["checker"].startswith("realizes: 80 samples x 2 outputs")
    assert row["metrics"]["matches_planted"] is True and row["metrics"]["parameter_error"] == "0"
    assert {"generate", "proposal", "independent_check"} <= set(row["timings"]) and row["seconds"] > 0
    assert "certificate" not in row and row["status"] in STATUSES


def test_refused_and_failed_rows_carry_their_reason():
    row = run_task(payload("recover", seed=0, d=10, k=3, n=10))  # too few samples for the exact step
    assert row["status"] == "refused" and row["reason"].startswith(("AssumptionViolated", "ProposalFailed"))
    try:
        @task("test-raises", params={"n": REQUIRED}, options={})
        def raises(p, seed):
            if p["n"] == 1:
                raise NotRealizable("labels\n  are noisy")
            if p["n"] == 2:
                raise ZeroDivisionError("x" * 1000)
            if p["n"] == 3:
                return Outcome("nothing", reason="the task had nothing to certify")
            return Outcome("realizes", certificate={"claim": "realizes"}, instance=None)

        one = run_task(payload("test-raises", n=1))
        assert (one["status"], one["reason"]) == ("refused", "NotRealizable: labels are noisy")
        two = run_task(payload("test-raises", n=2))
        assert two["status"] == "failed" and two["reason"].startswith("ZeroDivisionError: xxx")
        assert len(two["reason"]) == 500 and two["reason"].endswith("...")
        three = run_task(payload("test-raises", n=3))
        assert (three["status"], three["reason"]) == ("refused", "the task had nothing to certify")
        four = run_task(payload("test-raises", n=4))
        assert four["status"] == "failed" and four["reason"].startswith("the certificate could not be checked")
    finally:
        TASKS.pop("test-raises", None)


def test_solve_rows_by_either_route():
    fast = run_task(payload("solve", seed=0, d=3, k=2, n=30))
    slow = run_task(payload("solve", seed=0, d=3, k=2, n=30, try_recovery=False))
    assert (fast["status"], fast["method"]) == ("certified", "row-span-recovery")
    assert (slow["status"], slow["method"]) == ("certified", "enumeration") and slow["metrics"]["patterns"] >= 2


def test_decide_rows_certify_both_answers():
    row = run_task(payload("decide", seed=0, d=2, k=2, n=12))
    assert (row["status"], row["outcome"], row["method"]) == ("certified", "realizable", "lazy")
    given = run_task(payload("decide", seed=0, d=2, k=2, n=12, output_weights="given", engine="tree"))
    assert (given["status"], given["outcome"], given["method"]) == ("certified", "realizable", "tree")
    sat = run_task(payload("hardness-random", seed=0, vars=8, density=2.1))
    assert sat["outcome"] == "realizable" and sat["metrics"]["decoded_satisfies"] is True
    unsat = run_task(payload("hardness-random", seed=0, vars=8, density=3.0, output_weights="unknown"))
    assert (unsat["status"], unsat["outcome"]) == ("certified", "not-realizable")
    assert unsat["checker"].startswith("not-realizable") and unsat["metrics"]["clauses"] == 24
    cnf = run_task(payload("hardness-random", seed=1, vars=6, clauses=12, formula="cnf", planted_formula=True))
    assert cnf["outcome"] == "realizable" and cnf["metrics"]["decoded_satisfies"] is True


def test_decide_time_limit_is_a_refusal():
    row = run_task(payload("hardness-random", seed=0, vars=60, density=3.0, time_limit=0.001))
    assert row["status"] == "refused" and row["reason"].startswith("TimeLimitExceeded")


def test_fit_rows_carry_a_checked_residual_certificate():
    noisy = run_task(payload("fit", seed=1, d=5, k=2, n=300, noise_scale=0.01, method="tensor"))
    assert (noisy["status"], noisy["outcome"], noisy["method"]) == ("certified", "residual", "tensor")
    assert noisy["checker"].startswith("residual: 300 samples x 2 outputs, squared error")
    m = noisy["metrics"]
    assert 0 < m["clean_relative_error"] < m["relative_error"] < 0.1 and m["realizable"] is False
    exact = run_task(payload("fit", seed=1, d=5, k=2, n=300, noise_scale=0.0, method="tensor"))
    assert exact["status"] == "certified" and exact["metrics"]["realizable"] is True
    assert exact["metrics"]["relative_error"] == 0.0


def test_a_tampered_residual_is_rejected():
    @task("test-tampered-fit", params={"n": REQUIRED}, options={})
    def tampered(p, seed):
        t = TASKS["fit"]
        out = t.run(t.fill({"d": 4, "k": 2, "n": p["n"], "noise_scale": 0.01, "method": "tensor"}, "test"), seed)
        out.certificate = dict(out.certificate, squared_error="1/3")
        return out

    try:
        row = run_task(payload("test-tampered-fit", seed=0, n=200))
        assert row["status"] == "failed" and "rejected the certificate" in row["reason"]
    finally:
        TASKS.pop("test-tampered-fit", None)


def test_recover_learns_planted_biases_and_refuses_noisy_labels():
    biased = run_task(payload("recover", seed=1, d=5, k=2, n=400, bias=1, learn_bias=True))
    assert biased["status"] == "certified" and biased["metrics"]["matches_planted"] is True
    assert biased["metrics"]["route"] == "rowspan"
    noisy = run_task(payload("recover", seed=1, d=5, k=2, n=200, noise="rademacher", noise_scale=0.01))
    assert noisy["status"] == "refused" and noisy["reason"].startswith(("NotRealizable", "ProposalFailed"))


def test_sparse_corruption_rows():
    row = run_task(payload("recover", seed=1, d=5, k=2, m=4, n=300, corrupt=0.05, sparse_noise=True))
    assert (row["status"], row["outcome"], row["metrics"]["route"]) == ("certified", "realizes-except", "sparse-corruption")
    assert row["metrics"]["excepted"] == 60 and row["metrics"]["except_is_corrupted"] is True
    assert "all 1,200 entries (300 samples x 4 outputs) except" in row["checker"]
    plain = run_task(payload("recover", seed=1, d=5, k=2, m=4, n=300, corrupt=0.05))  # without --sparse-noise:
    assert (plain["status"], plain["outcome"]) == ("certified", "not-realizable")  # a proved "no", checked
    assert "rank(labels) >= 4 > k = 2" in plain["checker"] and plain["metrics"]["rank"] >= 4  # a (k+2)-minor: output bias excluded too


def test_solve_refutations_are_certified_rows():
    row = run_task(payload("solve", seed=0, d=3, k=2, m=3, n=30, corrupt=0.1))
    assert (row["status"], row["outcome"], row["method"]) == ("certified", "not-realizable", "enumeration")
    assert "rank(labels) >= 3 > k = 2" in row["checker"]
    noisy = run_task(payload("recover", seed=0, d=3, k=2, m=2, n=60, noise="gaussian", noise_scale=0.01))
    assert noisy["status"] == "refused" and noisy["outcome"] == ""  # no proof of the "no": refused, nothing claimed


def test_biased_planted_instances():
    t = get_task("recover")
    inst = planted_instance(t.fill({"d": 3, "k": 2, "n": 20, "bias": 2}, "test"), 1)
    assert inst.planted.has_bias and all(abs(b) <= 2 and (4 * b).denominator == 1 for b in inst.planted.b_fractions())
    assert not planted_instance(t.fill({"d": 3, "k": 2, "n": 20, "bias": 0}, "test"), 1).planted.has_bias
    assert "bias" not in t.fill({"d": 3, "k": 2, "n": 20}, "test")  # row ids of specs without biases stay as they were


def test_planted_instance_follows_the_parameters():
    inst = planted_instance(get_task("recover").fill({"d": 3, "k": 2, "n": 20, "activation": "power:2",
                                                      "input_bits": 4}, "test"), 5)
    assert (inst.n, inst.d, inst.m, str(inst.activation)) == (20, 3, 2, "power:2")
    assert all(x.denominator <= 16 for row in inst.inputs.to_fractions() for x in row)


def test_a_dead_or_zombie_main_process_counts_as_gone():
    import os
    import subprocess
    import sys
    import time

    from exactrelu.sweep.worker import _alive

    assert _alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    end = time.monotonic() + 30
    while _alive(child.pid) and time.monotonic() < end:  # exited but not yet collected: a zombie
        time.sleep(0.01)
    assert not _alive(child.pid) and child.poll() == 0
    assert not _alive(child.pid)  # collected: no such process
