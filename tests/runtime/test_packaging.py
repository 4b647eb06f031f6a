"""The packaging metadata (issue 22, item 7): the python-sat pin does not reach beyond what was tested."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

requirements = pytest.importorskip("packaging.requirements")

from packaging.version import Version  # noqa: E402

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())


def _requirement(name: str):
    deps = [requirements.Requirement(d) for d in PYPROJECT["project"]["dependencies"]]
    return next(r for r in deps if r.name == name)


def test_python_sat_pin_takes_its_dev_releases_from_the_fixed_one_but_not_a_next_major():
    spec = _requirement("python-sat").specifier
    assert not spec.contains("1.9.dev15", prereleases=True)  # truncated DRUP proofs before dev16
    assert spec.contains("1.9.dev16", prereleases=True) and spec.contains("1.9.dev24", prereleases=True)
    assert not spec.contains("2.0.dev1", prereleases=True) and not spec.contains("2.0", prereleases=True)


def test_no_other_requirement_names_a_pre_release():
    """A pre-release in a specifier lets pip take pre-releases of that package: only python-sat, which has no
    other kind, may name one."""
    for d in PYPROJECT["project"]["dependencies"]:
        r = requirements.Requirement(d)
        if r.name != "python-sat":
            assert not any(Version(s.version).is_prerelease for s in r.specifier), d
