"""`vwheel install -e PATH`: PEP 660 editable installs built with Debian's real setuptools and
hatchling (`--no-build-isolation`), recorded as `dir_info.editable` in `direct_url.json` (pip lists
the project's location), removed by `vwheel uninstall`; a backend without `build_editable` is a
one-line error.
"""
import json
import subprocess
from pathlib import Path

import pytest

# Venvs that see Debian's setuptools and hatchling (python3-setuptools, python3-hatchling: the
# build requirements of --no-build-isolation), and their site-packages.
from test_install_sources import PY, make_venv, site

SETUPTOOLS = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "demo-ed"
version = "0.1"
"""

# Debian's hatchling lacks `editables` (its import-hook mode); `dev-mode-dirs` is hatchling's
# plain .pth mode, which needs nothing else.
HATCHLING = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "demo-ed"
version = "0.1"

[tool.hatch.build.targets.wheel]
packages = ["src/demo_ed"]
dev-mode-dirs = ["src"]
"""

# A PEP 517 backend with build_wheel only: no PEP 660 hooks.
WHEEL_ONLY_BACKEND = """\
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise RuntimeError("build_wheel must not be called for -e")
"""


def make_project(root: Path, pyproject: str) -> Path:
    (root / "src" / "demo_ed").mkdir(parents=True)
    (root / "pyproject.toml").write_text(pyproject)
    (root / "src" / "demo_ed" / "__init__.py").write_text("VALUE = 1\n")
    return root


def value(python: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), "-c", "import demo_ed; print(demo_ed.VALUE)"], capture_output=True, text=True)


@pytest.mark.parametrize("backend", ["setuptools", "hatchling"])
def test_editable_install_follows_the_source_and_uninstalls(vwheel, tmp_path, backend):
    project = make_project(tmp_path / "proj", SETUPTOOLS if backend == "setuptools" else HATCHLING)
    python = make_venv(tmp_path / "venv")
    before = set(p.name for p in site(python).iterdir())
    r = vwheel("install", "--python", python, "--no-build-isolation", "-e", "./proj", cwd=tmp_path)
    assert r.rc == 0, r.err
    assert "installed demo-ed 0.1" in r.out
    assert value(python).stdout.strip() == "1"
    # The venv imports the tree itself: an edit shows without reinstalling.
    (project / "src" / "demo_ed" / "__init__.py").write_text("VALUE = 2\n")
    assert value(python).stdout.strip() == "2"
    info = next(site(python).glob("demo_ed-0.1.dist-info"))
    assert json.loads((info / "direct_url.json").read_text()) == {"url": project.as_uri(),
                                                                 "dir_info": {"editable": True}}
    # The editable wheel's hook into the tree (a .pth, setuptools' finder module) is in RECORD.
    added = set(p.name for p in site(python).iterdir()) - before
    hooks = {n for n in added if n.endswith(".pth") or n.startswith("__editable__")}
    assert hooks, added
    record = (info / "RECORD").read_text()
    for hook in hooks:
        assert f"\n{hook}," in "\n" + record, (hook, record)
    # pip reads it as its own editable install.
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    entry = next(d for d in json.loads(listed.stdout) if d["name"] == "demo-ed")
    assert entry["editable_project_location"] == str(project)
    listed = vwheel("list", "--python", python, "--json").json()
    assert next(d for d in listed if d["name"] == "demo-ed")["direct_url"]["dir_info"] == {"editable": True}

    r = vwheel("uninstall", "--python", python, "demo-ed")
    assert r.rc == 0, r.err
    assert set(p.name for p in site(python).iterdir()) - before == set(), "the .pth/finder are removed"
    gone = value(python)
    assert gone.returncode != 0 and "No module named 'demo_ed'" in gone.stderr


def test_backend_without_build_editable_is_one_line_and_installs_nothing(vwheel, tmp_path):
    project = tmp_path / "proj"
    (project / "backend").mkdir(parents=True)
    (project / "backend" / "wheel_only.py").write_text(WHEEL_ONLY_BACKEND)
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "wheel_only"\nbackend-path = ["backend"]\n\n'
        '[project]\nname = "demo-ed"\nversion = "0.1"\n')
    python = make_venv(tmp_path / "venv")
    before = sorted(p.name for p in site(python).iterdir())
    r = vwheel("install", "--python", python, "--no-build-isolation", "--editable", project)
    assert r.rc == 1, (r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert "`wheel_only`" in lines[0] and "build_editable" in lines[0] and "PEP 660" in lines[0], lines[0]
    assert sorted(p.name for p in site(python).iterdir()) == before


def test_editable_line_in_a_requirements_file_is_relative_to_it(vwheel, tmp_path):
    project = make_project(tmp_path / "reqs" / "proj", SETUPTOOLS)
    reqs = tmp_path / "reqs" / "requirements.txt"
    reqs.write_text("# the project itself\n-e ./proj\n")
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", "-r", reqs)
    assert r.rc == 0, r.err
    assert value(python).stdout.strip() == "1"
    info = next(site(python).glob("demo_ed-0.1.dist-info"))
    assert json.loads((info / "direct_url.json").read_text()) == {"url": project.as_uri(),
                                                                 "dir_info": {"editable": True}}


def test_editable_url_is_refused(vwheel, tmp_path):
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "-e", "demo @ https://example.invalid/demo.tar.gz")
    assert r.rc == 2, (r.out, r.err)
    assert "local project directory" in r.err
