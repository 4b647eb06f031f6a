"""The checker pauses the cyclic garbage collector while it checks, and always restores it."""

from __future__ import annotations

import gc

import pytest

from exactrelu.certificates import checker
from exactrelu.certificates.claims.realizes import realizes_certificate
from exactrelu.certificates.trusted import realizes as trusted_realizes
from exactrelu.certificates.trusted import schedule
from exactrelu.instances import planted
from exactrelu.instances.checker_view import checker_instance


@pytest.fixture
def restore_collector():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("workers", [1, 2])
def test_the_collector_is_paused_during_a_check_and_left_as_it_was(monkeypatch, restore_collector, enabled, workers):
    inst = planted(d=3, k=2, m=2, n=50, seed=2)
    cert = realizes_certificate(inst, inst.planted)
    seen = []
    real = trusted_realizes.part_of_rows

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(trusted_realizes, "part_of_rows", spy)
    monkeypatch.setattr(schedule, "part_of_rows", spy)
    (gc.enable if enabled else gc.disable)()
    verdict = checker.check_parallel(cert, checker_instance(inst), workers) if workers > 1 else \
        checker.check(cert, checker_instance(inst))
    assert verdict.startswith("realizes: 50 samples")
    assert gc.isenabled() is enabled
    if workers == 1:  # (a forked worker's calls are not seen here)
        assert seen and not any(seen)


def test_a_refuted_check_restores_the_collector(restore_collector):
    inst = planted(d=3, k=2, m=2, n=50, seed=2)
    cert = realizes_certificate(inst, inst.planted)
    cert["U"] = [["2" if e == "0" else "0" for e in row] for row in cert["U"]]
    gc.enable()
    with pytest.raises(checker.CheckFailed):
        checker.check(cert, checker_instance(inst))
    assert gc.isenabled()
