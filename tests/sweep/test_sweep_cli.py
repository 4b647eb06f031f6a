"""`exactrelu sweep`: arguments, summary line, exit codes."""

import pytest

from exactrelu.cli import main

SPEC = '[sweep]\ntask = "recover"\nseeds = 2\n[grid]\nd = 3\nk = 2\nn = [8, 40]\n'


def test_sweep_summary_and_exit_codes(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "-o", str(tmp_path / "out"), "--workers", "1"]) == 0
    cap = capsys.readouterr()
    assert "sweep recover: 4 rows written (" in cap.out and "4 tasks in the spec" in cap.out
    assert "serial (in this process)" in cap.out
    assert "sweep: 4/4 rows" in cap.err  # the progress line
    assert main(["sweep", str(spec), "-o", str(tmp_path / "out")]) == 2
    assert "already holds 4 rows; add --resume" in capsys.readouterr().err
    assert main(["sweep", str(spec), "-o", str(tmp_path / "out"), "--resume", "-q"]) == 0
    cap = capsys.readouterr()
    assert "0 rows written" in cap.out and "4 already there" in cap.out and cap.err == ""


def test_sweep_usage_errors(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec)]) == 2
    assert "give the output directory" in capsys.readouterr().err
    assert main(["sweep", str(spec), "extra", "-o", str(tmp_path / "o")]) == 2
    assert "unexpected argument 'extra'" in capsys.readouterr().err
    assert main(["sweep", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "o")]) == 2
    assert "cannot read spec" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(spec), "-o", str(tmp_path / "o"), "--workers", "0"])
    assert exc.value.code == 2 and "argument --workers: must be a positive integer" in capsys.readouterr().err
