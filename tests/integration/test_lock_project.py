"""`vwheel lock` in a project directory (issue 52, point 4): with no requirements it locks the
pyproject.toml's [project] (dependencies, every extra, every PEP 735 group with include-group),
records the lock's extras, dependency-groups and default-groups, the project itself as a
`directory` entry, and `[tool.vwheel] project-inputs`, a digest of exactly what the lock depends
on: formatting and comments do not change it, a dependency does."""
import sys
import tomllib

import pytest

from conftest import ROOT
from example_site import PY, venv  # noqa: F401 (a fixture)

sys.path.insert(0, str(ROOT / "examples"))
import make_example_index as example  # noqa: E402

WHEELS = {"base": [], "fast-json": [], "click-ish": ["base"], "ruff-ish": [], "pytest-ish": ["base"],
          "other": []}

PYPROJECT = """\
[project]
name = "My_App"
version = "0.3"
requires-python = ">=3.9"
dependencies = ["base>=1"]

[project.optional-dependencies]
fast = ["fast-json"]
CLI = ["click-ish", "my-app[fast]"]

[dependency-groups]
dev = ["ruff-ish"]
test = ["pytest-ish", {include-group = "dev"}]
"""


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    out = tmp_path_factory.mktemp("project-links")
    for project, requires in WHEELS.items():
        example.plain_wheel(out, project, "1.0", requires, "non-variant")
    return out


def lock(vwheel, project, links):
    r = vwheel("lock", "-q", "--no-index", "--find-links", links, "--python", PY, cwd=project)
    assert r.rc == 0, r.err
    return (project / "pylock.toml").read_text()


def test_lock_of_a_project(vwheel, tmp_path, links):
    project = tmp_path / "app"
    project.mkdir()
    (project / "pyproject.toml").write_text(PYPROJECT)
    doc = tomllib.loads(lock(vwheel, project, links))
    assert doc["extras"] == ["cli", "fast"]
    assert doc["dependency-groups"] == ["dev", "test"]
    assert doc["default-groups"] == ["default"]
    names = {p["name"]: p for p in doc["packages"]}
    # Everything the dependencies, extras and groups need; nothing else.
    assert set(names) == {"my-app", "base", "fast-json", "click-ish", "ruff-ish", "pytest-ish"}
    me = names["my-app"]
    assert me["directory"] == {"path": "."}
    assert me["version"] == "0.3"
    assert me["marker"] == '"default" in dependency_groups'
    assert "wheels" not in me
    inputs = doc["tool"]["vwheel"]["project-inputs"]
    assert inputs.startswith("sha256:") and len(inputs) == 7 + 64
    assert names["fast-json"]["marker"] == '"cli" in extras or "fast" in extras'
    assert names["ruff-ish"]["marker"] == '"dev" in dependency_groups or "test" in dependency_groups'
    # base: the project's dependency, and what click-ish (extra cli) and pytest-ish (group test) need
    assert names["base"]["marker"] == '"cli" in extras or "default" in dependency_groups or "test" in dependency_groups'


def test_project_inputs_follow_the_inputs_not_the_formatting(vwheel, tmp_path, links):
    project = tmp_path / "app"
    project.mkdir()
    pyproject = project / "pyproject.toml"
    pyproject.write_text(PYPROJECT)
    first = tomllib.loads(lock(vwheel, project, links))["tool"]["vwheel"]["project-inputs"]
    # Comments, spacing, key order, requirement order and other keys are not inputs of the lock.
    pyproject.write_text("# the app\n" + PYPROJECT.replace('dependencies = ["base>=1"]',
                                                            'description = "an app"\ndependencies = [ "base >= 1" ]  # ok')
                         .replace('test = ["pytest-ish", {include-group = "dev"}]',
                                  'test = [\n  {include-group = "Dev"},\n  "pytest-ish",\n]'))
    assert tomllib.loads(lock(vwheel, project, links))["tool"]["vwheel"]["project-inputs"] == first
    # A dependency is.
    pyproject.write_text(PYPROJECT.replace('dependencies = ["base>=1"]', 'dependencies = ["base>=1", "other"]'))
    doc = tomllib.loads(lock(vwheel, project, links))
    assert doc["tool"]["vwheel"]["project-inputs"] != first
    assert "other" in {p["name"] for p in doc["packages"]}


def installed(venv):
    site = next((venv.parents[1] / "lib").glob("python3*/site-packages"))
    return {d.name.split("-")[0].lower().replace("_", "-") for d in site.glob("*.dist-info")} - {"pip", "setuptools"}


def test_sync_installs_what_extras_and_groups_ask_and_locked_follows_the_project(vwheel, venv, tmp_path, links):
    project = tmp_path / "app"
    project.mkdir()
    pyproject = project / "pyproject.toml"
    pyproject.write_text(PYPROJECT)
    lock(vwheel, project, links)
    lockfile = project / "pylock.toml"
    # name -> what `vwheel sync` installs (the project itself, a directory entry, is not built)
    for flags, expected in [
        ((), {"base"}),
        (("--extra", "cli"), {"base", "click-ish", "fast-json"}),
        (("--group", "test"), {"base", "pytest-ish", "ruff-ish"}),
        (("--only-group", "dev"), {"ruff-ish"}),
        (("--all-extras", "--no-default-groups"), {"base", "click-ish", "fast-json"}),  # click-ish needs base
    ]:
        r = vwheel("sync", lockfile, "--python", venv, "--locked", *flags)
        assert r.rc == 0, (flags, r.err)
        # The project's own entry is in the default group: said to be left out only where it applies.
        default = "--only-group" not in flags and "--no-default-groups" not in flags
        assert ("my-app" in r.err and "directory" in r.err) == default, (flags, r.err)
        assert installed(venv) == expected, flags
    # A reformatted pyproject.toml is still the lock's project; a new dependency is not.
    pyproject.write_text("# comment\n" + PYPROJECT)
    assert vwheel("sync", lockfile, "--python", venv, "--locked", "--dry-run").rc == 0
    pyproject.write_text(PYPROJECT.replace('dependencies = ["base>=1"]', 'dependencies = ["base>=1", "other"]'))
    r = vwheel("sync", lockfile, "--python", venv, "--locked")
    assert r.rc == 1, r.err
    assert r.err.strip().count("\n") == 0 and "pyproject.toml changed since" in r.err and "run vwheel lock" in r.err
    assert installed(venv) == {"base", "click-ish", "fast-json"}  # nothing changed
    r = vwheel("export", lockfile, "--python", venv, "--locked")
    assert r.rc == 1 and "pyproject.toml changed since" in r.err, r.err
    # Without --locked, the lock is what it is.
    assert vwheel("sync", lockfile, "--python", venv).rc == 0
    assert installed(venv) == {"base"}


def test_lock_written_elsewhere_points_back_at_the_project(vwheel, tmp_path, links):
    project = tmp_path / "app"
    project.mkdir()
    (project / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "locks").mkdir()
    r = vwheel("lock", "-q", "--no-index", "--find-links", links, "--python", PY, "-o", tmp_path / "locks" / "x.toml",
               cwd=project)
    assert r.rc == 0, r.err
    doc = tomllib.loads((tmp_path / "locks" / "x.toml").read_text())
    assert {p["name"]: p for p in doc["packages"]}["my-app"]["directory"] == {"path": "../app"}


@pytest.mark.parametrize("text,message", [
    (PYPROJECT.replace("{include-group = \"dev\"}", "{include-group = \"lint\"}"),
     "pyproject.toml: dependency-groups.test[1]: include-group `lint` names no group of dependency-groups"),
    (PYPROJECT + "default = [\"x\"]\n", "pyproject.toml: dependency-groups.default: the group name `default` is reserved"),
    (PYPROJECT.replace(">=3.9", ">=three"), "pyproject.toml: project.requires-python: `>=three` is not a PEP 440"),
])
def test_bad_project_is_one_line_input_error(vwheel, tmp_path, links, text, message):
    (tmp_path / "pyproject.toml").write_text(text)
    r = vwheel("lock", "--no-index", "--find-links", links, "--python", PY, cwd=tmp_path)
    assert r.rc == 1, r.err
    assert r.err.strip().count("\n") == 0, r.err
    assert message in r.err
    assert not (tmp_path / "pylock.toml").exists()


def test_pyproject_without_project_table_is_not_a_project(vwheel, tmp_path, links):
    (tmp_path / "pyproject.toml").write_text("[build-system]\nrequires = [\"setuptools\"]\n")
    r = vwheel("lock", "--no-index", "--find-links", links, "--python", PY, cwd=tmp_path)
    assert r.rc == 2, r.err
    assert "nothing to lock" in r.err
