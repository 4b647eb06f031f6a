"""Checking one certificate in ranges of samples: in worker processes (--workers), range by range (--range and
check_range / combine), streaming block by block, and on a Dask cluster. Each way gives the verdict of the whole
check, valid or not, and refuses ranges that do not tile the samples or belong to another certificate."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from exactrelu import parallel
from exactrelu.certificates import checker
from exactrelu.certificates.claims.realizes import realizes_certificate, realizes_except_certificate, residual_certificate
from exactrelu.certificates.envelope import write_certificate
from exactrelu.certificates.trusted import schedule
from exactrelu.errors import CertificateInvalid
from exactrelu.instances import checker_view, planted
from exactrelu.instances.checker_view import checker_instance
from exactrelu.instances.files import write_instance


@pytest.fixture(scope="module")
def inst():
    return planted(d=4, k=3, m=2, n=57, seed=3, bias=1.0)


def _certs(inst):
    return {"realizes": realizes_certificate(inst, inst.planted),
            "realizes-except": realizes_except_certificate(inst, inst.planted, []),
            "residual": residual_certificate(inst, inst.planted)}


def _tampered_label(inst, j, r):
    data = checker_instance(inst)
    data["labels"] = [list(row) for row in data["labels"]]
    data["labels"][j][r] = str(Fraction(data["labels"][j][r]) + Fraction(1, 3))
    return data


def _whole(cert, data):
    """The verdict (or the error) of the plain check on the parsed instance."""
    parsed = {**data, "parsed": checker.parsed_instance(data["inputs"], data["labels"])}
    try:
        return "VALID", checker.check(cert, parsed)
    except checker.CheckFailed as exc:
        return "INVALID", str(exc)


def _ways(cert, data, monkeypatch):
    """The same check by workers, by streaming blocks of 5 rows, and by ranges combined."""
    monkeypatch.setattr(schedule, "BLOCK", 5)
    out = {}
    for name, run in {
        "workers": lambda: checker.check_parallel(cert, dict(data), 3),
        "streaming": lambda: checker.check(cert, dict(data)),
        "ranges": lambda: checker.combine_rows(cert, [checker.check_rows(cert, data, a, b)
                                                      for a, b in checker.cuts(len(data["inputs"]), 4)]),
    }.items():
        try:
            out[name] = ("VALID", run())
        except checker.CheckFailed as exc:
            out[name] = ("INVALID", str(exc))
    return out


@pytest.mark.parametrize("claim", ["realizes", "realizes-except", "residual"])
def test_every_way_gives_the_whole_verdict(inst, claim, monkeypatch):
    cert = _certs(inst)[claim]
    data = checker_instance(inst)
    expected = _whole(cert, data)
    assert expected[0] == "VALID"
    assert set(_ways(cert, data, monkeypatch).values()) == {expected}


@pytest.mark.parametrize("where", [0, 30, 56])
def test_a_wrong_label_in_any_range_is_found_by_every_way(inst, where, monkeypatch):
    cert = _certs(inst)["realizes"]
    data = _tampered_label(inst, where, 1)
    cert["instance_sha256"] = checker.parsed_instance(data["inputs"], data["labels"])[2]  # bound to the tampered data
    expected = _whole(cert, data)
    assert expected == ("INVALID", f"sample {where}, output 1: the network's value differs from the label")
    assert set(_ways(cert, data, monkeypatch).values()) == {expected}


def test_a_changed_instance_is_refused_by_its_hash_first(inst, monkeypatch):
    cert = _certs(inst)["realizes"]
    data = _tampered_label(inst, 40, 0)  # the certificate still has the hash of the original
    expected = ("INVALID", "instance_sha256 does not match the instance")
    assert _whole(cert, data) == expected
    assert set(_ways(cert, data, monkeypatch).values()) == {expected}


def test_residual_parts_add_up_exactly(inst):
    data = _tampered_label(inst, 10, 0)
    cert = residual_certificate(inst, inst.planted)
    cert["instance_sha256"] = checker.parsed_instance(data["inputs"], data["labels"])[2]
    cert["squared_error"], cert["max_abs_error"] = "1/9", "1/3"
    parts = [checker.check_range(cert, data, a, b) for a, b in [(30, 57), (0, 11), (11, 30)]]
    assert sorted(str(p["squared_error"]) for p in parts) == ["0", "0", "1/9"]  # exact Fractions in the parts
    assert checker.combine(cert, parts).startswith("residual: 57 samples x 2 outputs, squared error 0.111111")
    wrong = dict(cert, squared_error="1/8")
    with pytest.raises(checker.CheckFailed, match="squared_error is 1/8"):
        checker.combine(wrong, [checker.check_range(wrong, data, 0, 57)])


def test_ranges_must_tile_the_samples_and_belong_to_the_certificate(inst):
    certs = _certs(inst)
    cert, data = certs["realizes"], checker_instance(inst)
    part = lambda a, b, c=cert: checker.check_range(c, data, a, b)  # noqa: E731
    assert "57 samples" in checker.combine(cert, [part(0, 20), part(20, 57)])
    for parts in ([part(0, 20)], [part(0, 20), part(21, 57)], [part(0, 30), part(20, 57)],
                  [part(0, 20), part(0, 20), part(20, 57)]):
        with pytest.raises(checker.CheckFailed, match="do not tile"):
            checker.combine(cert, parts)
    other = realizes_certificate(inst, inst.planted, seed=123)  # the same claim, another certificate
    with pytest.raises(checker.CheckFailed, match="not all about this certificate"):
        checker.combine(cert, [part(0, 20), part(20, 57, other)])
    for bad in [(0, 0), (-1, 5), (50, 58), (5, 2)]:
        with pytest.raises(checker.UnreadableInput, match="is not one of samples"):
            part(*bad)
    with pytest.raises(checker.CheckFailed, match="checked whole"):
        checker.check_range({"format": checker.FORMAT, "version": 1, "claim": "lp-feasible"}, data, 0, 1)


def test_a_malformed_row_is_unreadable_in_every_way(inst, monkeypatch):
    cert = _certs(inst)["realizes"]
    data = checker_instance(inst)
    data["inputs"] = [list(row) for row in data["inputs"]]
    data["inputs"][33][2] = "1/0"
    monkeypatch.setattr(schedule, "BLOCK", 5)
    for run in (lambda: checker.check_parallel(cert, dict(data), 2), lambda: checker.check(cert, dict(data))):
        with pytest.raises(checker.UnreadableInput, match="1/0"):
            run()


@pytest.fixture(scope="module")
def files(inst, tmp_path_factory):
    folder = tmp_path_factory.mktemp("ranges")
    cert, path = folder / "cert.json", folder / "inst.json"
    write_certificate(_certs(inst)["realizes"], cert)
    write_instance(inst, path)
    return str(cert), str(path)


def _cli(*args):
    proc = subprocess.run([sys.executable, "-m", "exactrelu.certificates.checker", *args], capture_output=True,
                          text=True, timeout=120)
    return proc.returncode, proc.stdout.strip(), proc.stderr.strip()


def test_checker_command_line_workers_and_range(files):
    cert, path = files
    code, out, _ = _cli(cert, path, "--workers", "2")
    assert code == 0 and out.startswith("VALID: realizes: 57 samples")
    code, out, _ = _cli(cert, path, "--range", "10:20")
    assert code == 0 and out.startswith("VALID-RANGE: ")
    verdict = json.loads(out[len("VALID-RANGE: "):])
    assert verdict["samples"] == [10, 20] and verdict["n"] == 57 and verdict["claim"] == "realizes"
    for bad in (["--workers", "0"], ["--workers", "x"], ["--range", "3"], ["--range", "5:99"], ["--frob"]):
        code, _, err = _cli(cert, path, *bad)
        assert code == 2 and err.startswith("error: ") and len(err.splitlines()) == 1


def test_dask_cluster_checks_one_certificate_range_by_range(files):
    distributed = pytest.importorskip("dask.distributed")
    from exactrelu.sweep.check_ranges import check_in_ranges

    cert, path = files
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        verdict = check_in_ranges(cert, path, pieces=5, scheduler=cluster.scheduler_address)
        assert verdict == checker.check_files(cert, path)
        bad = json.loads(open(cert).read())
        bad["U"][0][0] = str(Fraction(bad["U"][0][0]) + 1)
        write_certificate(bad, cert + ".bad.json")
        with pytest.raises(CertificateInvalid, match="differs from the label"):
            check_in_ranges(cert + ".bad.json", path, pieces=5, scheduler=cluster.scheduler_address)


def test_realizes_except_across_ranges(inst, monkeypatch):
    data = _tampered_label(inst, 10, 0)
    data["labels"][40][1] = str(Fraction(data["labels"][40][1]) - 2)
    digest = checker.parsed_instance(data["inputs"], data["labels"])[2]
    for listed, expected in (([[10, 0], [40, 1]], "VALID"), ([[10, 0]], "INVALID"), ([[10, 0], [40, 0], [40, 1]], "INVALID")):
        cert = dict(realizes_except_certificate(inst, inst.planted, listed), instance_sha256=digest)
        whole = _whole(cert, data)
        assert whole[0] == expected
        assert set(_ways(cert, data, monkeypatch).values()) == {whole}


def test_large_instances_are_hashed_and_checked_from_blocks_of_text(monkeypatch):
    from exactrelu.certificates import envelope
    from exactrelu.errors import CertificateInvalid as Invalid
    from exactrelu.instances import Instance

    small = planted(d=3, k=2, m=2, n=300, seed=4)
    cert = realizes_certificate(small, small.planted)
    monkeypatch.setattr(checker_view, "STREAM_ENTRIES", 10)
    for inst in (planted(d=3, k=2, m=2, n=300, seed=4), Instance.from_arrays(small.float_inputs(), small.labels)):
        assert checker_view.streamed(inst)
        # float64 inputs reach the checker as floats (it makes their text itself, as from an .npz)
        assert isinstance(checker_view.checker_instance(inst)["inputs"], checker_view.FloatRows)
        assert isinstance(checker_view.checker_instance(inst)["labels"], checker_view.StringRows)
        assert envelope.instance_sha256(inst) == cert["instance_sha256"]
        assert envelope.verify(cert, inst) == checker.check(cert, checker_instance(small))
    wrong = dict(cert, U=[[str(Fraction(u) * 2) for u in row] for row in cert["U"]])
    with pytest.raises(Invalid, match="differs from the label"):
        envelope.verify(wrong, planted(d=3, k=2, m=2, n=300, seed=4))


def test_streamed_rational_inputs_reach_the_checker_as_text(monkeypatch):
    from exactrelu.certificates import envelope
    from exactrelu.errors import CertificateInvalid as Invalid
    from exactrelu.exact import QMatrix
    from exactrelu.instances import Instance

    X = QMatrix.from_rows([[Fraction(j, 3), Fraction(-1, 7 + j), 1] for j in range(40)])
    small = planted(d=3, k=2, m=2, n=40, seed=4)
    cert = realizes_certificate(Instance.from_arrays(X, small.planted.evaluate_exact(X)), small.planted)
    inst = Instance.from_arrays(X, small.planted.evaluate_exact(X))  # no text cached yet
    monkeypatch.setattr(checker_view, "STREAM_ENTRIES", 10)
    assert checker_view.streamed(inst) and inst.inputs.float_source is None
    assert isinstance(checker_view.checker_instance(inst)["inputs"], checker_view.StringRows)
    assert envelope.verify(cert, inst).startswith("realizes: 40 samples")
    wrong = dict(cert, V=[[str(Fraction(v) + 1) for v in row] for row in cert["V"]])
    with pytest.raises(Invalid):
        envelope.verify(wrong, inst)


def test_float_rows_give_the_checker_the_text_and_hash_of_the_strings():
    import numpy as np

    from exactrelu.certificates.trusted.instance import instance_sha256 as trusted_sha
    from exactrelu.exact import QMatrix

    A = np.array([[0.0, -0.0, 5e-324, -2.0**-1022], [1e308, -3.0, 0.1, 2.0**60]])
    Y = [["1"], ["-1/2"]]
    floats = checker_view.FloatRows(A)
    assert floats[0:2] == A.tolist() and floats[-1] == A[1].tolist()
    with pytest.raises(ValueError):
        floats[::2]
    assert trusted_sha(floats, Y) == trusted_sha(checker_view.StringRows(QMatrix.from_numpy(A)), Y)


def test_rows_combined_out_of_order_are_refused(inst):
    cert, data = _certs(inst)["realizes"], checker_instance(inst)
    results = [checker.check_rows(cert, data, a, b) for a, b in checker.cuts(57, 3)]
    assert checker.combine_rows(cert, iter(results)).startswith("realizes: 57 samples")
    with pytest.raises(checker.CheckFailed):
        checker.combine_rows(cert, results[::-1])


def test_streamed_float_labels_reach_the_checker_as_floats(monkeypatch):
    import numpy as np

    from exactrelu.certificates import envelope
    from exactrelu.certificates.claims.realizes import residual_certificate
    from exactrelu.instances import Instance

    small = planted(d=3, k=2, m=2, n=200, seed=4)
    X = small.float_inputs()
    Y = small.float_labels() + np.random.default_rng(0).standard_normal((200, 2)) * 0.01
    Y[0, 0], Y[1, 1], Y[2, 0] = 0.0, -0.0, 2.0**-1074  # a zero, a negative zero, a subnormal label
    cert = residual_certificate(Instance.from_arrays(X, Y), small.planted)
    expected = checker.check(cert, checker_instance(Instance.from_arrays(X, Y)))  # text, cached
    monkeypatch.setattr(checker_view, "STREAM_ENTRIES", 10)
    inst = Instance.from_arrays(X, Y)
    data = checker_view.checker_instance(inst)
    assert isinstance(data["inputs"], checker_view.FloatRows) and isinstance(data["labels"], checker_view.FloatRows)
    assert envelope.verify(cert, inst) == expected
    Y[3, 1] += 2.0**-40  # one label moved: the stated residual no longer holds
    with pytest.raises(CertificateInvalid):
        envelope.verify(cert, Instance.from_arrays(X, Y))


def test_an_instance_checked_on_workers_gets_its_rows_made_there_its_floats_as_floats_even_with_text_cached(monkeypatch):
    from exactrelu.certificates import envelope

    monkeypatch.setattr(parallel, "PARALLEL_CHECK_ENTRIES", 10)  # "large": checked on workers, text not kept
    inst = planted(d=3, k=2, m=2, n=60, seed=4)
    data = checker_view.checker_instance(inst)  # no hash made yet (say, made ahead in a child): rows made lazily
    assert isinstance(data["inputs"], checker_view.FloatRows) and isinstance(data["labels"], checker_view.StringRows)
    cert = realizes_certificate(inst, inst.planted)  # hashes here: the text is cached now; reused for exact rows,
    data = checker_view.checker_instance(inst)  # while float64 rows are read faster as floats than as text
    assert isinstance(data["inputs"], checker_view.FloatRows) and data["labels"] is inst.label_strings()
    assert envelope.verify(cert, planted(d=3, k=2, m=2, n=60, seed=4)) == checker.check(cert, data)
