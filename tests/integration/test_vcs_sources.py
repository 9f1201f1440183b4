"""`vwheel install` of git references (`name @ git+file://...@REV#subdirectory=`), compared with what
pip writes for the same reference; .zip sdists; setup.py-only projects; sources in -r files; and the
dependencies of local sources, resolved from --find-links together with them.
"""
import json
import subprocess
from pathlib import Path

import pytest

from test_install_sources import PY, direct_url, make_venv, site

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "gitdemo"
version = "{version}"

[tool.setuptools]
packages = ["gitdemo"]
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def commit_version(repo: Path, version: str) -> str:
    """Writes the project (in `sub/`) at `version`, commits it, and returns the commit."""
    (repo / "sub" / "gitdemo").mkdir(parents=True, exist_ok=True)
    (repo / "sub" / "pyproject.toml").write_text(PYPROJECT.format(version=version))
    (repo / "sub" / "gitdemo" / "__init__.py").write_text(f"VERSION = {version!r}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", version)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path):
    """main: 1.0 (tagged v1), then 2.0; branch `old` at 1.0."""
    r = tmp_path / "repo"
    r.mkdir()
    subprocess.run([*GIT, "init", "-q", str(r)], check=True)
    first = commit_version(r, "1.0")
    git(r, "tag", "v1")
    git(r, "branch", "old")
    second = commit_version(r, "2.0")
    return r, first, second


def installed_version(python: Path) -> str:
    return subprocess.run([str(python), "-c", "import gitdemo; print(gitdemo.VERSION)"], capture_output=True,
                          text=True).stdout.strip()


def vcs_install(vwheel, tmp_path, name, reference):
    python = make_venv(tmp_path / name)
    r = vwheel("install", "--python", python, "--no-build-isolation", reference)
    assert r.rc == 0, r.err
    return python


def test_git_tag_commit_branch_and_head(vwheel, repo, tmp_path):
    r, first, second = repo
    url = r.as_uri()
    python = vcs_install(vwheel, tmp_path, "tag", f"gitdemo @ git+{url}@v1#subdirectory=sub")
    assert installed_version(python) == "1.0"
    assert direct_url(python, "gitdemo") == {
        "url": url, "subdirectory": "sub", "vcs_info": {"vcs": "git", "requested_revision": "v1", "commit_id": first}}
    python = vcs_install(vwheel, tmp_path, "commit", f"gitdemo @ git+{url}@{first}#subdirectory=sub")
    assert direct_url(python, "gitdemo")["vcs_info"] == {"vcs": "git", "requested_revision": first, "commit_id": first}
    python = vcs_install(vwheel, tmp_path, "branch", f"gitdemo @ git+{url}@old#subdirectory=sub")
    assert installed_version(python) == "1.0"
    python = vcs_install(vwheel, tmp_path, "head", f"git+{url}#subdirectory=sub")
    assert installed_version(python) == "2.0"
    assert direct_url(python, "gitdemo")["vcs_info"] == {"vcs": "git", "commit_id": second}
    # One bare clone in the cache, by the URL.
    assert len([p for p in (tmp_path / "cache" / "vwheel" / "git").iterdir() if p.is_dir()]) == 1
    # vwheel's views: list --json has the document, show the reference as pip freeze writes it.
    listed = vwheel("list", "--python", python, "--json").json()
    assert next(d for d in listed if d["name"] == "gitdemo")["direct_url"]["vcs_info"]["commit_id"] == second
    shown = vwheel("show", "--python", python, "gitdemo")
    assert f"Direct-URL: git+{url}@{second}#subdirectory=sub" in shown.out


def test_a_branch_moved_on_is_fetched_again(vwheel, repo, tmp_path):
    r, _, _ = repo
    vcs_install(vwheel, tmp_path, "before", f"git+{r.as_uri()}@main#subdirectory=sub")
    third = commit_version(r, "3.0")
    python = vcs_install(vwheel, tmp_path, "after", f"git+{r.as_uri()}@main#subdirectory=sub")
    assert installed_version(python) == "3.0"
    assert direct_url(python, "gitdemo")["vcs_info"]["commit_id"] == third


def test_vcs_info_is_what_pip_writes(vwheel, repo, tmp_path):
    r, _, _ = repo
    # pip 23 takes the bare form (its packaging refuses `name @ git+file:`).
    reference = f"git+{r.as_uri()}@v1#subdirectory=sub"
    pip_python = make_venv(tmp_path / "pip")
    done = subprocess.run([str(pip_python), "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                           reference], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    python = vcs_install(vwheel, tmp_path, "vwheel", reference)
    assert direct_url(python, "gitdemo") == direct_url(pip_python, "gitdemo")
    # And pip reads vwheel's as its own.
    freeze = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    pip_freeze = subprocess.run([str(pip_python), "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    assert [l for l in freeze.splitlines() if l.startswith("gitdemo")] == \
        [l for l in pip_freeze.splitlines() if l.startswith("gitdemo")]


def test_a_bad_revision_is_one_line_naming_the_reference(vwheel, repo, tmp_path):
    r, _, _ = repo
    python = make_venv(tmp_path / "venv")
    reference = f"gitdemo @ git+{r.as_uri()}@no-such-tag#subdirectory=sub"
    done = vwheel("install", "--python", python, "--no-build-isolation", reference)
    assert done.rc == 1
    lines = done.err.strip().splitlines()
    assert len(lines) == 1, done.err
    assert reference in lines[0] and "no-such-tag" in lines[0] and "(git: fatal:" in lines[0], lines[0]
    assert not list(site(python).glob("gitdemo*"))


def test_git_runs_no_hooks(vwheel, repo, tmp_path):
    r, _, _ = repo
    # A hooks path from the configuration (here the user's) would run post-checkout in the work tree.
    marker = tmp_path / "hook-ran"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "post-checkout").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (hooks / "post-checkout").chmod(0o755)
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / ".gitconfig").write_text(f"[core]\n\thooksPath = {hooks}\n")
    vcs_install(vwheel, tmp_path, "venv", f"git+{r.as_uri()}@v1#subdirectory=sub")
    assert not marker.exists(), "git ran a hook"


# ---- the dependencies of local sources, resolved with them ----

def make_dependent_project(root: Path, name="needs-deps", dependencies=("depa>=1",)) -> Path:
    module = name.replace("-", "_")
    (root / module).mkdir(parents=True)
    (root / module / "__init__.py").write_text("VALUE = 1\n")
    deps = ", ".join(f'"{d}"' for d in dependencies)
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{name}"\nversion = "0.1"\ndependencies = [{deps}]\n'
        f'[tool.setuptools]\npackages = ["{module}"]\n')
    return root


@pytest.fixture
def links(tmp_path):
    from wheelfactory import make_wheel
    d = tmp_path / "links"
    d.mkdir()
    make_wheel(d, "depa-1.0-py3-none-any.whl")
    make_wheel(d, "depa-2.0-py3-none-any.whl", requires=["depb"])
    make_wheel(d, "depb-1.0-py3-none-any.whl")
    make_wheel(d, "other-1.0-py3-none-any.whl")
    return d


def installed(python: Path) -> dict:
    out = {}
    for info in site(python).glob("*.dist-info"):
        name, version = info.name[:-len(".dist-info")].split("-")[:2]
        out[name.lower()] = version
    return out


def test_a_projects_dependencies_come_from_find_links_in_the_same_install(vwheel, links, tmp_path):
    proj = make_dependent_project(tmp_path / "proj")
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", "--no-index", "--find-links", links, "./proj")
    assert r.rc == 0, r.err
    have = installed(python)
    assert (have["needs_deps"], have["depa"], have["depb"]) == ("0.1", "2.0", "1.0"), have
    assert direct_url(python, "needs_deps") == {"url": proj.as_uri(), "dir_info": {}}
    assert f"needs-deps 0.1: needs_deps-0.1-py3-none-any.whl (from {proj.as_uri()})" in r.out + r.err
    # The dependencies are installed as from an index: no direct_url.json, not REQUESTED.
    depa = next(site(python).glob("depa-2.0.dist-info"))
    assert not (depa / "direct_url.json").exists() and not (depa / "REQUESTED").exists()


def test_a_project_and_an_index_requirement_together(vwheel, links, tmp_path):
    make_dependent_project(tmp_path / "proj")
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", "--no-index", "--find-links", links, "./proj",
               "other", "depa<2")
    assert r.rc == 0, r.err
    have = installed(python)
    assert (have["needs_deps"], have["depa"], have["other"]) == ("0.1", "1.0", "1.0"), have
    assert "depb" not in have, "depa 1.0 needs no depb"


def test_a_missing_dependency_names_the_project_and_installs_nothing(vwheel, links, tmp_path):
    make_dependent_project(tmp_path / "proj", dependencies=("nowhere>=1",))
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", "--no-index", "--find-links", links, "./proj")
    assert r.rc == 1
    assert "nowhere" in r.err and "needs-deps" in r.err, r.err
    assert "needs_deps" not in installed(python)


def test_no_deps_installs_the_project_alone(vwheel, links, tmp_path):
    make_dependent_project(tmp_path / "proj")
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", "--no-deps", "--no-index", "--find-links", links,
               "./proj")
    assert r.rc == 0, r.err
    have = installed(python)
    assert "needs_deps" in have and "depa" not in have, have


def test_a_git_reference_with_dependencies_in_a_requirements_file(vwheel, links, repo, tmp_path):
    r, first, _ = repo
    proj = make_dependent_project(tmp_path / "edit", name="edit-me", dependencies=("other",))
    reqs = tmp_path / "reqs.txt"
    reqs.write_text(f"-e ./edit\ngitdemo @ git+{r.as_uri()}@v1#subdirectory=sub\ndepa==1.0\n")
    python = make_venv(tmp_path / "venv")
    done = vwheel("install", "--python", python, "--no-build-isolation", "--no-index", "--find-links", links,
                  "-r", reqs)
    assert done.rc == 0, done.err
    have = installed(python)
    assert (have["gitdemo"], have["edit_me"], have["other"], have["depa"]) == ("1.0", "0.1", "1.0", "1.0"), have
    assert direct_url(python, "gitdemo")["vcs_info"]["commit_id"] == first
    assert direct_url(python, "edit_me") == {"url": proj.as_uri(), "dir_info": {"editable": True}}


# ---- .zip sdists and setup.py-only projects ----

SETUP_PY = """\
from setuptools import setup
setup(name="legacy-demo", version="0.3", packages=["legacy_demo"])
"""


def make_setup_py_project(root: Path) -> Path:
    (root / "legacy_demo").mkdir(parents=True)
    (root / "legacy_demo" / "__init__.py").write_text("VALUE = 3\n")
    (root / "setup.py").write_text(SETUP_PY)
    return root


def test_a_setup_py_only_project_is_built_with_the_legacy_backend(vwheel, tmp_path):
    proj = make_setup_py_project(tmp_path / "legacy")
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", "./legacy")
    assert r.rc == 0, r.err
    assert installed(python)["legacy_demo"] == "0.3"
    assert direct_url(python, "legacy_demo") == {"url": proj.as_uri(), "dir_info": {}}


def test_an_isolated_setup_py_build_asks_for_setuptools_and_wheel(vwheel, links, tmp_path):
    # No build requirements to be had: the error names the fallback's (PEP 517, as pip's).
    make_setup_py_project(tmp_path / "legacy")
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "./legacy")
    assert r.rc != 0
    assert "installing the build requirements" in r.err and ("`wheel`" in r.err or "`setuptools`" in r.err), r.err


def test_a_zip_sdist_local_and_by_url(vwheel, tmp_path):
    import shutil
    import zipfile
    proj = make_setup_py_project(tmp_path / "legacy-demo-0.3")
    archive = tmp_path / "legacy-demo-0.3.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in proj.rglob("*"):
            z.write(f, f.relative_to(tmp_path).as_posix())
    shutil.rmtree(proj)
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", str(archive))
    assert r.rc == 0, r.err
    assert installed(python)["legacy_demo"] == "0.3"
    digest = __import__("hashlib").sha256(archive.read_bytes()).hexdigest()
    assert direct_url(python, "legacy_demo") == {
        "url": archive.as_uri(), "archive_info": {"hashes": {"sha256": digest}, "hash": f"sha256={digest}"}}
    # By URL, with its sha256.
    server = subprocess.Popen([PY, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory",
                               str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = server.stdout.readline().split("port ")[1].split(" ")[0]
        url = f"http://127.0.0.1:{port}/{archive.name}"
        python = make_venv(tmp_path / "venv2")
        r = vwheel("install", "--python", python, "--no-build-isolation", f"legacy-demo @ {url}#sha256={digest}")
        assert r.rc == 0, r.err
        assert direct_url(python, "legacy_demo")["url"] == url
    finally:
        server.terminate()
        server.wait()


def test_a_name_at_url_constraint_is_where_a_required_project_comes_from(vwheel, links, tmp_path):
    from wheelfactory import make_wheel
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    wheel = make_wheel(elsewhere, "other-7.0-py3-none-any.whl")
    unused = make_wheel(elsewhere, "unused-1.0-py3-none-any.whl")
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(f"other @ {wheel.as_uri()}\nunused @ {unused.as_uri()}\n")
    make_dependent_project(tmp_path / "proj", dependencies=("other",))
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", "--no-index", "--find-links", links,
               "-c", constraints, "./proj")
    assert r.rc == 0, r.err
    have = installed(python)
    assert have["other"] == "7.0", have  # not find-links' 1.0
    assert "unused" not in have, "a constraint alone installs nothing"
    assert direct_url(python, "other")["url"] == wheel.as_uri()
    # Unnamed constraints are refused, as pip refuses them.
    constraints.write_text(f"{wheel}\n")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "-c", constraints, "depa")
    assert r.rc != 0 and "must name its project" in r.err, r.err
