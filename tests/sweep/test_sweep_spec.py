"""Sweep specs: expansion into tasks, and every malformed spec refused with one line naming the key."""

import pytest

from exactrelu.cli import main
from exactrelu.errors import InvalidInput
from exactrelu.sweep import REQUIRED, TASKS, Outcome, get_task, load_spec, parse_spec, task
from exactrelu.sweep.params import MAX_TASKS, PARAMS
from exactrelu.sweep.spec import task_id

HEAD = '[sweep]\ntask = "recover"\nseeds = 2\n'
GOOD = HEAD + "[grid]\nd = 4\nk = 2\nn = [50, 100]\n"


def test_expansion_order_defaults_and_ids():
    spec = parse_spec(HEAD + '[grid]\nsize = [{d = 4, k = 2}, {d = 6, k = 3, m = 4}]\nn = [50, 100]\n'
                             '[options]\ninit = "gradient"\n')
    tasks = spec.tasks()
    assert len(tasks) == 8
    assert [(t.params["d"], t.params["n"], t.seed) for t in tasks[:4]] == [(4, 50, 0), (4, 50, 1), (4, 100, 0), (4, 100, 1)]
    assert tasks[0].params["m"] == 2 and tasks[-1].params["m"] == 4  # m defaults to k
    assert {t.params["init"] for t in tasks} == {"gradient"}
    assert len({t.id for t in tasks}) == 8
    assert tasks[0].id == task_id("recover", tasks[0].params, 0)
    # the id depends on the parameters and the seed, not on the position in the grid
    again = parse_spec(HEAD.replace("seeds = 2", "seeds = [1]") + "[grid]\nd = 4\nk = 2\nn = 50\ninit = 'gradient'\n")
    assert again.tasks()[0].id == tasks[1].id


def test_options_can_vary_in_the_grid_and_values_are_canonical():
    spec = parse_spec(HEAD + '[grid]\nd = 4\nk = 2\nn = 60\ninit = ["search", "gradient"]\nactivation = "Power2"\n')
    assert [t.params["init"] for t in spec.tasks()] == ["search", "search", "gradient", "gradient"]
    assert spec.tasks()[0].params["activation"] == "power:2"
    assert spec.varying() == ["init"]


def test_seeds_list_and_other_tasks():
    spec = parse_spec('[sweep]\ntask = "hardness-random"\nseeds = [3, 9]\n[grid]\nvars = 6\ndensity = [1.5, 2.5]\n')
    assert [(t.params["density"], t.seed) for t in spec.tasks()] == [(1.5, 3), (1.5, 9), (2.5, 3), (2.5, 9)]
    assert "clauses" not in spec.tasks()[0].params


def test_load_spec_reads_files(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(GOOD)
    assert len(load_spec(p).tasks()) == 4
    with pytest.raises(InvalidInput, match="cannot read spec"):
        load_spec(tmp_path / "missing.toml")
    big = tmp_path / "big.toml"
    big.write_text("#" * 1_000_001)
    with pytest.raises(InvalidInput, match="at most 1000000 bytes"):
        load_spec(big)


BAD = [
    ("[sweep\n", "not valid TOML"),
    (GOOD + "[extra]\na = 1\n", "unknown table or key 'extra'"),
    ("sweep = 3\n", "'sweep' must be a table"),
    ("[grid]\nd = 4\n", "missing table [sweep]"),
    (HEAD + "colour = 'red'\n", "[sweep] colour: unknown key"),
    ('[sweep]\nseeds = 2\n', "[sweep] task: missing"),
    ('[sweep]\ntask = "recover"\n', "[sweep] seeds: missing"),
    ('[sweep]\ntask = 3\nseeds = 2\n', "[sweep] task: expected a task name"),
    ('[sweep]\ntask = "train"\nseeds = 2\n', "[sweep] task: unknown task 'train'"),
    (GOOD.replace("seeds = 2", "seeds = 2\nname = 7"), "[sweep] name: expected a string"),
    (GOOD.replace("seeds = 2", "seeds = 2\ncertificates = 'yes'"), "[sweep] certificates: expected true or false"),
    (GOOD.replace("seeds = 2", "seeds = 0"), "[sweep] seeds (a count of seeds, or a list of"),
    (GOOD.replace("seeds = 2", "seeds = true"), "[sweep] seeds (a count of seeds, or a list of seeds) must be an"),
    (GOOD.replace("seeds = 2", f"seeds = {MAX_TASKS + 1}"), "[sweep] seeds (a count of"),
    (GOOD.replace("seeds = 2", "seeds = [1, 1]"), "[sweep] seeds: expected distinct seeds"),
    (GOOD.replace("seeds = 2", "seeds = []"), "[sweep] seeds: expected distinct seeds"),
    (GOOD.replace("seeds = 2", "seeds = [-1]"), "[sweep] seeds (each seed) must be an integer from 0 to"),
    (GOOD + "[options]\nroute2 = 'rowspan'\n", "[options] route2: unknown option of task 'recover'"),
    (GOOD + "[options]\ninit = ['auto']\n", "[options] init: expected one value"),
    (GOOD + "[options]\ninit = 'magic'\n", "[options] init: expected one of"),
    (GOOD + "[options]\n", None),  # an empty [options] table is fine
    (HEAD + "[grid]\nd = 4\nk = 2\nn = []\n", "[grid] n: empty list"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = [0]\n", "[grid] n must be an integer from 1 to"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = [50, 50]\n", "[grid] n: a value appears twice"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 5.5\n", "[grid] n must be an integer"),
    (HEAD + "[grid]\nd = 4\nk = 2\nsamples = 50\n", "[grid] samples: unknown parameter of task 'recover'"),
    (HEAD + "[grid]\nd = 4\nk = 2\n", "needs a value for 'n'"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\n[options]\nd = 3\n", "[options] d: unknown option"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\ninit = 'auto'\n[options]\ninit = 'auto'\n", "[grid] init: 'init' is given twice"),
    (HEAD + "[grid]\nsize = [{d = 4, k = 2}, {d = 5}]\nn = 50\n", "needs a value for 'k'"),
    (HEAD + "[grid]\nsize = [{d = 4, k = 2}]\nd = 5\nn = 50\n", "[grid] d: 'd' is given twice"),
    (HEAD + "[grid]\nsize = [{d = [4], k = 2}]\nn = 50\n", "[grid] size[0].d: expected one value"),
    (HEAD + "[grid]\nsize = [{d = 4, q = 2}]\nn = 50\n", "[grid] size[0].q: unknown parameter"),
    (HEAD + "[grid]\nsize = [{}, {}]\nn = 50\n", "[grid] size[0]: empty table"),
    (HEAD + "[grid]\nsize = [{d = 4, k = 2}, {d = 4, k = 2}]\nn = 50\n", "[grid] size: a value appears twice"),
    (HEAD + "[grid.size]\nd = 4\n", "[grid] size: unknown parameter"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\nactivation = 'tanh'\n", "[grid] activation: expected 'relu' or 'power:C'"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\nactivation = 3\n", "[grid] activation: expected 'relu' or 'power:C'"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\nactivation = 'power:40'\n", "[grid] activation: expected a degree of at most 16"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\ninputs = 'cauchy'\n", "[grid] inputs: expected one of"),
    (HEAD + "[grid]\nd = 10000\nk = 2\nm = 10000\nn = 100000000\n",  # 2 x 10^12 entries: more than any machine has
     "the task's instance (100000000 x (10000 + 10000) = 2,000,000,000,000 entries) needs about"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = " + str(list(range(1, 301))) + "\ninit = ['auto', 'search', 'gradient', 'tensor', 'ica']\n"
     "weight_bound = " + str(list(range(1, 101))) + "\n", f"more than the limit {MAX_TASKS}"),
    ('[sweep]\ntask = "hardness-random"\nseeds = 1\n[grid]\nvars = 6\n', "give one of clauses or density"),
    ('[sweep]\ntask = "hardness-random"\nseeds = 1\n[grid]\nvars = 6\nclauses = 9\ndensity = 2.0\n',
     "give one of clauses or density"),
    ('[sweep]\ntask = "hardness-random"\nseeds = 1\n[grid]\nvars = 6\ndensity = -1\n', "[grid] density must be a"),
    ('[sweep]\ntask = "decide"\nseeds = 1\n[grid]\nd = 2\nk = 2\nn = 8\nm = 2\n',
     "output_weights = 'unknown' needs m = 1"),
    ('[sweep]\ntask = "solve"\nseeds = 1\n[grid]\nd = 2\nk = 2\nn = 8\ntry_recovery = 1\n',
     "[grid] try_recovery: expected true or false"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\nnoise = 'gaussian'\n", "give both noise (the kind) and noise_scale"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\nnoise_scale = 0.1\n", "give both noise (the kind) and noise_scale"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\nnoise = 'pink'\nnoise_scale = 0.1\n", "[grid] noise: expected one of"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\nroute = 'magic'\n", "[grid] route: expected one of 'auto'"),
    (HEAD + "[grid]\nd = 4\nk = 2\nn = 50\ncorrupt = 1.5\n", "[grid] corrupt must be a finite number >= 0 and <= 1"),
    ('[sweep]\ntask = "fit"\nseeds = 1\n[grid]\nd = 2\nk = 2\nn = 8\n', "needs a value for 'noise_scale'"),
    ('[sweep]\ntask = "fit"\nseeds = 1\n[grid]\nd = 2\nk = 2\nn = 8\nnoise_scale = 0.1\n[options]\nmethod = "exact"\n',
     "[options] method: expected one of 'auto'"),
    ('[sweep]\ntask = "decide"\nseeds = 1\n[grid]\nd = 2\nk = 2\nn = 8\n[options]\nmethod = "tensor"\n',
     "[options] method: expected one of 'auto', 'exact'"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_malformed_specs_are_refused(text, message):
    if message is None:
        assert parse_spec(text).tasks()
        return
    with pytest.raises(InvalidInput) as info:
        parse_spec(text, source="s.toml")
    assert message in str(info.value) and str(info.value).startswith("s.toml: ")
    assert "\n" not in str(info.value)


def test_cli_refuses_a_malformed_spec_with_one_line_exit_2(tmp_path, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text(HEAD + "[grid]\nd = 4\nk = 2\nn = -5\n")
    code = main(["sweep", str(spec), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "bad.toml: [grid] n must be an integer" in err
    assert not (tmp_path / "out").exists()  # nothing was started


def test_registry_refuses_unknown_parameters_and_tasks():
    with pytest.raises(ValueError, match="not in exactrelu.sweep.params.PARAMS"):
        task("t", params={"colour": REQUIRED}, options={})
    with pytest.raises(InvalidInput, match="unknown task 'nope'"):
        get_task("nope")


def test_a_new_task_is_one_function():
    @task("test-square", params={"n": REQUIRED}, options={}, doc="n squared, nothing to certify")
    def square(p, seed):
        return Outcome("square", reason="nothing to certify", metrics={"square": p["n"] ** 2})

    try:
        spec = parse_spec('[sweep]\ntask = "test-square"\nseeds = 1\n[grid]\nn = [2, 3]\n')
        assert [TASKS["test-square"].run(t.params, t.seed).metrics["square"] for t in spec.tasks()] == [4, 9]
        assert TASKS["test-square"].module == __name__
    finally:
        del TASKS["test-square"]


def test_every_task_parameter_has_a_check():
    get_task("recover")
    for t in TASKS.values():
        assert all(t.param(key) is not None for key in t.keys()), t.name
        assert set(t.keys()) <= set(PARAMS) | set(t.checks), t.name


def test_benchmark_specs_parse():
    from pathlib import Path

    specs = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "specs").glob("*.toml"))
    assert len(specs) >= 5
    for path in specs:
        assert load_spec(path).tasks(), path.name
