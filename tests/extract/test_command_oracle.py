"""Oracle commands that hang, stream, announce huge sizes, lie, or are interrupted (issue 34): the time limit holds
within 10%, lines are bounded, sizes refused before any work, Ctrl-C exits 130 with one line and stops the oracle
quietly, and an oracle that is not a one-hidden-layer ReLU network is refused with a reason."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from fractions import Fraction

import pytest

from exactrelu.cli import main
from exactrelu.errors import AssumptionViolated, InvalidInput
from exactrelu.extract import CallableOracle, CommandOracle, extract

HEADER = "import json, sys, time\nprint(json.dumps({'d': %d, 'm': 1}), flush=True)\n"
ANSWER = ("for line in sys.stdin:\n    %s\n"
          "    print(json.dumps([str(sum(int(v.split('/')[0]) for v in json.loads(line)))]), flush=True)\n")
ORACLES = {
    "silent": "import time\ntime.sleep(60)\n",
    "hangs": HEADER % 3 + "time.sleep(60)\n",
    "deaf": HEADER % 3000 + "time.sleep(60)\n",  # never reads: the first queries (100 kB) fill its input pipe
    "dribbles": HEADER % 3 + "sys.stdin.readline()\nwhile True:\n    sys.stdout.write('1'); sys.stdout.flush()\n"
                "    time.sleep(0.01)\n",
    "floods": HEADER % 3 + "sys.stdin.readline()\nwhile True:\n    sys.stdout.write('1' * 65536); sys.stdout.flush()\n",
    "huge": "import json, time\nprint(json.dumps({'d': 10**8, 'm': 1}), flush=True)\ntime.sleep(60)\n",
    "floats": HEADER % 2 + "for line in sys.stdin:\n    print('[0.5]', flush=True)\n",
    "chatty": HEADER % 2 + "for line in sys.stdin:\n    print('[\"1\"]\\n[\"2\"]', flush=True)\n",
    "slow": ("import os\nopen(os.environ['PIDFILE'], 'w').write(str(os.getpid()))\n" + HEADER % 2
             + ANSWER % "time.sleep(0.05)"),
}


@pytest.fixture
def oracle_cmd(tmp_path):
    def make(name: str) -> str:
        path = tmp_path / f"{name}.py"
        path.write_text(ORACLES[name])
        return f"{sys.executable} {path}"
    return make


@pytest.mark.parametrize("name", ["silent", "hangs", "deaf", "dribbles"])
def test_the_time_limit_holds_within_ten_percent(oracle_cmd, tmp_path, capsys, name):
    start = time.monotonic()  # the command line's own cost (parsing, a refused file), measured alike
    assert main(["extract", "--oracle", str(tmp_path / "missing.json"), "-o", str(tmp_path / "o.json")]) == 2
    baseline = time.monotonic() - start
    capsys.readouterr()
    start = time.monotonic()
    assert main(["extract", "--oracle-cmd", oracle_cmd(name), "--time-limit", "2", "-o", str(tmp_path / "o.json")]) == 3
    elapsed = time.monotonic() - start
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the time limit of 2 s passed" in err[0] and "nothing is claimed" in err[0]
    # within 10% of the limit, beyond the command line's own cost, with 0.3 s for a loaded machine's scheduling
    assert 2 <= elapsed < 2.2 + baseline + 0.3, (elapsed, baseline)


def test_without_a_time_limit_a_silent_oracle_times_out(oracle_cmd):
    with pytest.raises(AssumptionViolated, match="gave no answer for its header within 0.3 s"):
        CommandOracle(oracle_cmd("silent"), answer_timeout=0.3)


@pytest.mark.parametrize("name, match", [
    ("floods", "a line of over 8,672 bytes for queries 1 to 3, more than its numbers can need"),
    ("huge", "announces d = 100000000, m = 1: an extraction sends it at least .* refused before any query"),
])
def test_hostile_oracles_are_refused_at_once_exit_2(oracle_cmd, tmp_path, capsys, name, match):
    start = time.monotonic()
    assert main(["extract", "--oracle-cmd", oracle_cmd(name), "-o", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(match, err[0]), err
    assert time.monotonic() - start < 5


def test_a_huge_header_line_is_refused(tmp_path):
    script = tmp_path / "long.py"
    script.write_text("import sys\nsys.stdout.write('{' * 5000)\nsys.stdout.flush()\nimport time\ntime.sleep(60)\n")
    with pytest.raises(InvalidInput, match="over 4,096 bytes for its header"):
        CommandOracle(f"{sys.executable} {script}")


@pytest.mark.parametrize("name, match", [
    ("floats", "answered the float 0.5"),
    ("chatty", "wrote more lines than it was asked for"),
])
def test_lying_command_oracles_are_refused(oracle_cmd, name, match):
    oracle = CommandOracle(oracle_cmd(name))
    try:
        with pytest.raises(AssumptionViolated, match=match):
            extract(oracle)
    finally:
        oracle.close()
    assert oracle.proc.poll() is not None


def relu(t):
    return max(t, 0)


@pytest.mark.parametrize("f, match", [
    (lambda x: [relu(relu(x[0]) + relu(x[1]) - 1)], "differs from the oracle at a fresh query"),  # two hidden layers
    (lambda x: [max(x[0], x[1], 1 - x[0])], "differs from the oracle at a fresh query"),  # max of 3 planes: depth 2
    (lambda x: [Fraction(int(x[0] + x[1] > 0))], "jump .* not a continuous function"),  # a step
    (lambda x: [relu(x[0]) * relu(x[1])], "not affine far out"),  # a kink that is not a ReLU's: a product
])
def test_oracles_not_of_the_assumed_form_are_refused_with_a_reason(f, match):
    with pytest.raises(AssumptionViolated, match=match):
        extract(CallableOracle(f, d=2))


def test_ctrl_c_exits_130_with_one_line_and_stops_the_oracle(oracle_cmd, tmp_path):
    """SIGINT to the command's process group (what a terminal sends): the oracle, in a session of its own, never
    sees it (no traceback of its own), and is stopped when the command exits."""
    pidfile = tmp_path / "pid"
    cli = "import sys; from exactrelu.cli import main; sys.exit(main())"
    proc = subprocess.Popen([sys.executable, "-c", cli, "extract", "--oracle-cmd", oracle_cmd("slow"),
                             "-o", str(tmp_path / "o.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PIDFILE": str(pidfile)}, start_new_session=True, text=True)
    deadline = time.monotonic() + 60
    while not pidfile.exists() or not pidfile.read_text():
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    time.sleep(0.5)  # some queries answered
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["exactrelu: interrupted"], err
    oracle = int(pidfile.read_text())
    for _ in range(40):
        try:
            os.kill(oracle, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the oracle process still runs after the command exited")



def test_a_network_file_deeper_than_one_hidden_layer_is_refused_with_a_reason():
    """A depth-3 network is an oracle like any other (evaluated point by point): refused, never extracted."""
    from exactrelu.extract import NetworkOracle
    from exactrelu.network import Network

    deep = Network.from_layers([([[1, 0], [0, 1], [1, -1]], [0, 0, -1]), ([[1, 1, -1], [2, -1, 1]], [-1, 0]),
                                ([[1, -2]], [0])])
    with pytest.raises(AssumptionViolated, match="differs from the oracle at a fresh query"):
        extract(NetworkOracle(deep))
