"""Every example in README.md and docs/*.md runs as written (the docs are tests).

For each Markdown file (README.md, then every ``docs/*.md``, found when the tests are collected, so
a new page is tested as soon as it exists), the code blocks run in document order in one fresh
temporary folder:

* ````python```` blocks share one namespace per file. A block whose first line starts with ``>>>``
  is a doctest (its printed results are compared, with ``...`` matching anything); any other
  block is executed, and its assertions are its checks.
* ````console```` blocks: lines starting with ``$ `` are commands. Lines after a command, up to
  the next ``$``, are its expected output: stdout then stderr, or either alone (so progress lines on
  stderr may be left out); ``...`` matches anything; blank-insensitive. ````bash````, ````sh```` and ````shell```` blocks: every line is a command, no output.
* A command is ``exactrelu ...`` (run in-process through :func:`exactrelu.cli.main`) or
  ``python ...`` / ``python3 ...`` (run with this interpreter). It must exit 0 unless its trailing
  comment says ``exit N`` (for example ``# no network: exit 1``). Anything else (``pip``, pipes,
  ``&&``) cannot run here.
* A block whose info string names a file, ```` ```toml file=phase.toml ````, is not run: its text is
  written to that file (in the page's folder), for the commands after it.
* Opt-out: the line ``<!-- docs-test: skip REASON -->`` directly before a block (blank lines
  allowed between) skips it; the reason is required and shown in the test report. Use it only for
  what cannot run in CI (installing packages, long benchmarks), never to hide a broken example.
  ``<!-- docs-test: requires MODULE -->`` (an optional extra such as torch) runs the block where MODULE
  is importable and skips it, with that reason, where it is not.

````json```` and unlabeled blocks are formats and listings, not examples, and are not run.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN = {"python": "python", "console": "console", "bash": "shell", "sh": "shell", "shell": "shell"}
SKIP = re.compile(r"^<!--\s*docs-test:\s*skip\b(.*?)-->\s*$")
REQUIRES = re.compile(r"^<!--\s*docs-test:\s*requires\s+([A-Za-z_][\w.]*)\s*-->\s*$")
EXIT = re.compile(r"\bexits? (\d+)\b")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass
class Block:
    lang: str
    line: int  # 1-based line of the opening fence
    text: str
    skip: str | None  # the reason, when the block is opted out
    file: str | None = None  # the block's text is this file's content


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file, with their language and opt-out marker."""
    out, lines = [], path.read_text(encoding="utf-8").splitlines()
    i, marker = 0, None
    while i < len(lines):
        line = lines[i]
        m = SKIP.match(line.strip())
        needs = REQUIRES.match(line.strip())
        if m:
            marker = m.group(1).strip()
            if not marker:
                raise AssertionError(f"{path.name}:{i + 1}: a docs-test skip marker needs a reason")
        elif needs:  # an optional package (torch): the block runs where it is installed, and is skipped elsewhere
            marker = None if _importable(needs.group(1)) else f"needs {needs.group(1)}, not installed here"
        elif line.startswith("```"):
            words = line[3:].split()
            lang, start, body = (words[0].lower() if words else ""), i, []
            named = [w[5:] for w in words[1:] if w.startswith("file=")]
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out.append(Block(lang, start + 1, "\n".join(body) + "\n", marker, named[0] if named else None))
            marker = None
        elif line.strip():
            marker = None  # a marker applies to the next block only, with nothing but blank lines between
        i += 1
    return out


def _importable(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """(command line, expected output lines) of a console or shell block; continuation lines joined."""
    out: list[tuple[str, list[str]]] = []
    pending = ""
    for raw in block.text.splitlines():
        if block.lang == "console" and not raw.startswith("$ ") and not pending:
            if out:
                out[-1][1].append(raw)
            elif raw.strip():
                raise AssertionError(f"line {block.line}: console output before any '$ ' command: {raw!r}")
            continue
        text = raw[2:] if raw.startswith("$ ") and not pending else raw
        if block.lang == "shell" and not pending and (not text.strip() or text.lstrip().startswith("#")):
            continue
        if text.rstrip().endswith("\\"):
            pending += text.rstrip()[:-1] + " "
            continue
        out.append((pending + text, []))
        pending = ""
    return out


def run_command(line: str, where: str) -> tuple[int, str]:
    """Run one documented command; (exit code, stdout + stderr). See :func:`run_command_streams`."""
    code, out, err = run_command_streams(line, where)
    return code, out + err


def run_command_streams(line: str, where: str) -> tuple[int, str, str]:
    comment = line.split(" #", 1)[1] if " #" in line else ""
    m = EXIT.search(comment)
    expected = int(m.group(1)) if m else 0
    argv = shlex.split(line, comments=True)
    if any(tok in ("|", "||", "&&", ";", ">", ">>", "<") for tok in argv):
        raise AssertionError(f"{where}: `{line}` uses shell syntax that the docs test cannot run; write one command")
    if argv[0] == "exactrelu":
        from exactrelu.cli import main

        buf_out, buf_err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(buf_out), contextlib.redirect_stderr(buf_err):
            try:
                code = main(argv[1:])
            except SystemExit as exc:  # argparse usage errors and --help
                code = exc.code if isinstance(exc.code, int) else 1
        out, err = buf_out.getvalue(), buf_err.getvalue()
    elif argv[0] in ("python", "python3"):
        proc = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True, timeout=600)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    else:
        raise AssertionError(f"{where}: `{line}` cannot run in the docs test (only exactrelu and python commands); "
                             "mark the block <!-- docs-test: skip REASON --> if it cannot run in CI")
    if code != expected:
        raise AssertionError(f"{where}: `{line}` exited {code}, the docs say {expected}\n{out}{err}")
    return code, out, err


def run_python(block: Block, namespace: dict, where: str) -> None:
    if block.text.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(block.text, namespace, where, where, block.line)
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        report = io.StringIO()
        runner.run(test, out=report.write, clear_globs=False)
        if runner.failures:
            raise AssertionError(f"{where}: doctest failed\n{report.getvalue()}")
        return
    exec(compile(block.text, where, "exec"), namespace)  # noqa: S102 - the docs' own examples


def run_page(page: Path) -> list[str]:
    """Run every example of ``page`` in order, in the current folder; return the blocks opted out."""
    name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    skipped = []
    for block in blocks(page):
        where = f"{name}:{block.line}"
        if block.file is not None and block.skip is None:
            target = Path(block.file)
            if target.is_absolute() or ".." in target.parts:
                raise AssertionError(f"{where}: file={block.file} must be a relative path inside the page's folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
            continue
        kind = RUN.get(block.lang)
        if kind is None:
            continue
        if block.skip is not None:
            skipped.append(f"{where} ({block.skip})")
            continue
        if kind == "python":
            run_python(block, namespace, where)
            continue
        for line, expected in commands(Block(kind if kind == "shell" else "console", block.line, block.text, None)):
            _, out, err = run_command_streams(line, where)
            want = "\n".join(expected).strip()
            checker = doctest.OutputChecker()
            # what a terminal shows: stdout and stderr; progress lines on stderr may be left out of the docs
            if want and not any(checker.check_output(want + "\n", got, FLAGS) for got in (out + err, out, err)):
                raise AssertionError(f"{where}: `{line}` printed\n{out}{err}\nwhere the docs show\n{want}")
    return skipped


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_examples_run_as_written(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    skipped = run_page(page)
    if skipped:
        print("not run (docs-test: skip): " + "; ".join(skipped))


# -- the harness itself ------------------------------------------------------------------------------

def test_the_harness_parses_markers_commands_and_outputs(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("<!-- docs-test: skip needs a GPU -->\n\n```bash\nnvidia-smi\n```\n"
                    "```console\n$ exactrelu generate -d 2 -k 1 -m 1 -n 5 \\\n  -o i.json  # exit 0\nwrote i.json...\n"
                    "$ exactrelu check nothing.json  # unreadable: exit 2\n```\n"
                    "```json\n{\"not\": \"run\"}\n```\n```python\n>>> 1 + 1\n2\n```\n", encoding="utf-8")
    got = blocks(page)
    assert [(b.lang, b.skip) for b in got] == [("bash", "needs a GPU"), ("console", None), ("json", None),
                                               ("python", None)]
    cmds = commands(got[1])
    assert cmds[0] == ("exactrelu generate -d 2 -k 1 -m 1 -n 5    -o i.json  # exit 0", ["wrote i.json..."])
    assert cmds[1][0].endswith("# unreadable: exit 2")
    (tmp_path / "opt.md").write_text("<!-- docs-test: requires no_such_module_here -->\n```python\nimport x\n```\n"
                                     "<!-- docs-test: requires json -->\n```python\nimport json\n```\n", encoding="utf-8")
    assert [b.skip for b in blocks(tmp_path / "opt.md")] == ["needs no_such_module_here, not installed here", None]
    (tmp_path / "bad.md").write_text("<!-- docs-test: skip -->\n```bash\nls\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="needs a reason"):
        blocks(tmp_path / "bad.md")


def test_the_harness_checks_exit_codes_and_refuses_what_it_cannot_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_command("exactrelu check nothing.json  # exit 2", "t")[0] == 2
    with pytest.raises(AssertionError, match="exited 2, the docs say 0"):
        run_command("exactrelu check nothing.json", "t")
    with pytest.raises(AssertionError, match="only exactrelu and python commands"):
        run_command("pip install exactrelu", "t")
    with pytest.raises(AssertionError, match="shell syntax"):
        run_command("exactrelu --version | head", "t")
    assert run_command('python -c "print(6 * 7)"', "t") == (0, "42\n")
    with pytest.raises(AssertionError, match="doctest failed"):
        run_python(Block("python", 1, ">>> 1 + 1\n3\n", None), {}, "t")


def test_the_harness_compares_outputs_and_shares_the_python_namespace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "good.md"
    page.write_text("```python\nx = 6\n```\n```python\n>>> x * 7\n42\n```\n"
                    "```console\n$ exactrelu check none.json  # exit 2\nexactrelu: error: ...none.json...\n```\n"
                    "<!-- docs-test: skip shown only -->\n```bash\npip install nothing\n```\n", encoding="utf-8")
    assert run_page(page) == ["good.md:13 (shown only)"]
    page.write_text("```console\n$ exactrelu check none.json  # exit 2\nVALID: everything\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="where the docs show\nVALID: everything"):
        run_page(page)
    page.write_text("```python\nassert 1 + 1 == 3\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError):
        run_page(page)
    page.write_text("```toml file=sub/x.toml\n[a]\nb = 1\n```\n```python\nassert open('sub/x.toml').read() == "
                    "'[a]\\nb = 1\\n'\n```\n", encoding="utf-8")
    assert run_page(page) == [] and (tmp_path / "sub" / "x.toml").exists()
    page.write_text("```toml file=../escape.toml\nx = 1\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="relative path inside"):
        run_page(page)
