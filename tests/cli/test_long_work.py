"""Long work says so up front (issue 22, item 6) and every long command honors --time-limit (issue 23,
item 4): the estimate is one stderr line before the work, a size that cannot finish is refused with it
(exit 2, one line) unless --force, and a limit far below the work ends in exit 1 ("nothing is claimed").
Wall-clock bounds here are generous (a shared machine); the unlimited runs take minutes to years."""

from __future__ import annotations

import json
import time

import pytest

from exactrelu.cli import main
from exactrelu.instances import planted, write_instance
from exactrelu.limits import DEFAULTS


def run(capsys, *args):
    t0 = time.monotonic()
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err, time.monotonic() - t0


def _basis(tmp_path, k, n, seed=0):
    import random

    rnd = random.Random(seed)
    path = tmp_path / f"b{k}x{n}.json"
    path.write_text(json.dumps([[rnd.randint(-9, 9) for _ in range(n)] for _ in range(k)]))
    return path


def test_patterns_12_by_60_is_refused_at_once_with_its_estimate(tmp_path, capsys):
    """Issue 22: `patterns --basis` 12 x 60 showed its first line after 40 s (1000 of 342700125300 lines)."""
    b = _basis(tmp_path, 12, 60)
    code, out, err, seconds = run(capsys, "patterns", "--basis", b)
    assert code == 2 and out == "" and seconds < 10
    assert err.count("\n") == 1 and "C(60, 11) = 3.427e+11 candidate lines" in err and "--force" in err
    # 2 s: the loop's own deadline (which says what it found) must come before the command's backstop, 0.2 s later;
    # with 0.3 s, at load 8 the imports alone outlasted both and only the backstop's line came (no count in it)
    code, out, err, seconds = run(capsys, "patterns", "--basis", b, "--force", "--time-limit", 2)
    assert code == 3 and "TimeLimitExceeded" in err and "sign patterns found" in err and seconds < 30
    assert err.startswith("exactrelu patterns: work: C(60, 11)")


def test_patterns_small_says_its_work_and_runs(tmp_path, capsys):
    code, out, err, _ = run(capsys, "patterns", "--basis", _basis(tmp_path, 3, 12))
    assert code == 0 and "sign patterns:" in out and "work:" not in err  # a moment's work says nothing up front


def test_demo_says_its_search_and_stops_at_the_limit(capsys):
    """Issue 22: `demo -d 5 -k 30 -m 30 -n 3000` printed nothing for over 120 s (~2e9 search tries expected)."""
    code, out, err, seconds = run(capsys, "demo", "-d", 5, "-k", 30, "-m", 30, "-n", 3000, "--time-limit", 0.5)
    assert code == 3 and "TimeLimitExceeded" in err and "nothing is claimed" in err
    assert "expecting ~2.14e+09 tries" in err and "days here" in err
    assert seconds < 30


def test_recover_with_a_hopeless_search_is_refused(tmp_path, capsys):
    path = tmp_path / "i.json"
    write_instance(planted(d=5, k=30, m=30, n=3000, seed=0), path)
    code, out, err, seconds = run(capsys, "recover", path, "-k", 30, "--init", "search")
    assert code == 2 and "expecting ~2.14e+09 tries" in err and "refused" in err and seconds < 10
    code, _, err, _ = run(capsys, "recover", path, "-k", 30, "--init", "search", "--force", "--time-limit", 0.3)
    assert code == 3 and "search:" in err and "subsets tried" in err


def test_solve_says_its_enumeration_and_stops_at_the_limit(tmp_path, capsys):
    """Issue 23: `solve g.json -k 5 --time-limit 30` (d=20, k=5, biased labels) ran on at 150 s, silent."""
    path = tmp_path / "g.json"
    write_instance(planted(d=20, k=5, m=5, n=1500, seed=0, bias=1.0), path)
    code, out, err, seconds = run(capsys, "solve", path, "-k", 5, "--time-limit", 1, "--enumerate-only")
    assert code == 3 and "TimeLimitExceeded" in err and "extreme rays (upper bound theorem)" in err
    assert seconds < 30


@pytest.fixture
def big_instances():
    """Instances of the sizes of the issues: limited only by the memory they need (issue 34), nothing to raise."""
    yield


def test_fit_at_n_2e5_stops_at_half_a_second(tmp_path, capsys, big_instances):
    """Issue 23: `fit --time-limit 0.5` at n = 2e5 stopped after 13.6-32.5 s (once 263 s)."""
    path = tmp_path / "big.npz"
    write_instance(planted(d=10, k=4, m=4, n=200_000, seed=1, input_bits=20), path)
    for method in ("gradient", "hermite", "tensor"):
        code, out, err, seconds = run(capsys, "fit", path, "-k", 4, "--bias", "--method", method, "--time-limit", 0.5,
                                      "-o", tmp_path / "w.json")
        assert code == 3 and "TimeLimitExceeded" in err and "exactrelu fit: work: 200000 samples" in err, method
        assert seconds < 15, (method, seconds)


def test_the_estimate_limit_is_documented_and_raisable(monkeypatch, tmp_path, capsys):
    from exactrelu import limits

    assert DEFAULTS["estimate"] == 86_400
    monkeypatch.setitem(limits._limits, "estimate", 10**30)
    code, _, err, _ = run(capsys, "patterns", "--basis", _basis(tmp_path, 12, 60), "--time-limit", 0.2)
    assert code == 3 and "TimeLimitExceeded" in err  # not refused: the limit was raised


@pytest.mark.parametrize("done,total,seconds,expect", [(500, 2000, 2.0, "250/s, ETA 6 s"), (10, None, 1.0, "10/s"),
                                                        (0, 10, 1.0, "0/s")])
def test_rate_and_eta(done, total, seconds, expect):
    from exactrelu.progress import rate_eta

    assert rate_eta(done, total, seconds) == expect


def test_duration_reads_well():
    from exactrelu.progress import duration

    assert [duration(s) for s in (5, 600, 10_000, 10 * 86400, 3e9, 3e13)] == [
        "5 s", "10 min", "2.8 h", "10.0 days", "95 years", "9.5e+05 years"]
