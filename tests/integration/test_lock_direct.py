"""`vwheel lock` of local projects, archives and direct references (issue 53): each becomes the
PEP 751 entry of its kind (`directory`, editable `directory`, `vcs` at the resolved commit,
`archive` with its size and sha256), its dependencies resolved from the indexes (here a
--find-links folder) as for any package; `vwheel sync` of the lock into a fresh venv installs
them, with PEP 610's direct_url.json. A universal lock takes the project's requirements as they
are in every environment; one whose requirements' markers differ between environments needs
--target."""
import json
import platform
import subprocess
import tomllib
from pathlib import Path

import pytest

import pep751_reader as reader
from conftest import ROOT
from example_site import make_venv
from test_sync_entry_kinds import BACKEND, direct_url, git, http_dir, make_sdist, sha256, values, write_project  # noqa: F401
from wheelfactory import make_wheel

# The tiny backend, with [project].dependencies as Requires-Dist.
DEPS_BACKEND = BACKEND.replace(
    'f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n".encode()',
    '(f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n" + "".join('
    'f"Requires-Dist: {d}\\n" for d in project.get("dependencies", []))).encode()')


def project(root: Path, name: str, version: str, value: str, deps=()) -> Path:
    write_project(root, name, version, value)
    text = (root / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(text + "dependencies = [" + ", ".join(f'"{d}"' for d in deps) + "]\n")
    (root / "tinyback.py").write_text(DEPS_BACKEND)
    return root


@pytest.fixture
def setup(tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    make_wheel(links, "dep_a-1.0-py3-none-any.whl", {"dep_a.py": b"VALUE = 'a'\n"})
    profile = json.loads((ROOT / "examples" / "profiles" / "x86_64-v3.json").read_text())
    major, minor, _ = platform.python_version_tuple()
    profile["environment"]["python_version"] = f"{major}.{minor}"
    profile["environment"]["python_full_version"] = platform.python_version()
    profile["tags"] = ["py3-none-any"]
    target = tmp_path / "here.json"
    target.write_text(json.dumps(profile))
    lock_dir = tmp_path / "lock"
    lock_dir.mkdir()
    return {"links": links, "target": target, "lock": lock_dir / "pylock.toml"}


def lock_and_sync(vwheel, tmp_path, setup, *args):
    r = vwheel("lock", *args, "--no-index", "--find-links", setup["links"], "--target", setup["target"],
               "-o", setup["lock"])
    assert r.rc == 0, (r.out, r.err)
    doc = tomllib.loads(setup["lock"].read_text())
    packages = {p["name"]: p for p in doc["packages"]}
    assert set(packages) >= {"dep-a"}
    venv = make_venv(vwheel, tmp_path / "venv")
    r = vwheel("sync", setup["lock"], "--python", venv, "--target", setup["target"])
    assert r.rc == 0, (r.out, r.err)
    assert values(venv, ["dep_a"]) == {"dep_a": "a"}
    return packages, venv


def dependencies(package):
    return [d["name"] for d in package.get("dependencies", [])]


def test_directory(vwheel, tmp_path, setup):
    proj = project(tmp_path / "proj", "d-proj", "1.0", "dir", ["dep-a"])
    packages, venv = lock_and_sync(vwheel, tmp_path, setup, str(proj))
    entry = packages["d-proj"]
    assert reader.source_of(entry) == ("directory", {"path": "../proj"})
    assert "wheels" not in entry and "index" not in entry
    assert dependencies(entry) == ["dep-a"]
    assert values(venv, ["d_proj"]) == {"d_proj": "dir"}
    assert direct_url(venv, "d_proj") == {"url": proj.as_uri(), "dir_info": {}}


def test_editable_directory(vwheel, tmp_path, setup):
    proj = project(tmp_path / "proj", "e-proj", "1.0", "editable", ["dep-a"])
    packages, venv = lock_and_sync(vwheel, tmp_path, setup, "-e", str(proj))
    assert reader.source_of(packages["e-proj"]) == ("directory", {"path": "../proj", "editable": True})
    assert dependencies(packages["e-proj"]) == ["dep-a"]
    (proj / "e_proj.py").write_text("VALUE = 'edited'\n")  # editable: the tree itself is imported
    assert values(venv, ["e_proj"]) == {"e_proj": "edited"}
    assert direct_url(venv, "e_proj") == {"url": proj.as_uri(), "dir_info": {"editable": True}}


def test_git_reference_at_a_tag(vwheel, tmp_path, setup):
    repo = tmp_path / "repo"
    project(repo / "sub", "g-proj", "1.0", "tagged", ["dep-a"])
    git("init", "-q", "-b", "main", cwd=repo)
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "one", cwd=repo)
    git("tag", "v1", cwd=repo)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    (repo / "sub" / "g_proj.py").write_text("VALUE = 'later'\n")
    git("commit", "-q", "-am", "two", cwd=repo)
    url = f"git+{repo.as_uri()}@v1#subdirectory=sub"
    packages, venv = lock_and_sync(vwheel, tmp_path, setup, f"g-proj @ {url}")
    assert reader.source_of(packages["g-proj"]) == ("vcs", {
        "type": "git", "url": repo.as_uri(), "requested-revision": "v1", "commit-id": commit, "subdirectory": "sub"})
    assert dependencies(packages["g-proj"]) == ["dep-a"]
    assert values(venv, ["g_proj"]) == {"g_proj": "tagged"}
    assert direct_url(venv, "g_proj") == {
        "url": repo.as_uri(), "subdirectory": "sub",
        "vcs_info": {"vcs": "git", "requested_revision": "v1", "commit_id": commit}}


def test_sdist_by_file_url(vwheel, tmp_path, setup):
    src = tmp_path / "sdists"
    sdist = make_sdist(src, "s-proj", "2.0", "sdist")
    # make_sdist's PKG-INFO and project have no dependencies: give the project one.
    packages, venv = lock_and_sync(vwheel, tmp_path, setup, f"s-proj @ {sdist.as_uri()}#sha256={sha256(sdist)}",
                                   "dep-a")
    assert reader.source_of(packages["s-proj"]) == ("archive", {
        "path": "../sdists/" + sdist.name, "size": sdist.stat().st_size, "hashes": {"sha256": sha256(sdist)}})
    assert packages["s-proj"]["version"] == "2.0"
    assert values(venv, ["s_proj"]) == {"s_proj": "sdist"}
    assert direct_url(venv, "s_proj")["archive_info"]["hashes"] == {"sha256": sha256(sdist)}


def test_sdist_by_http_url(vwheel, tmp_path, setup, http_dir):
    served, base = http_dir
    sdist = make_sdist(served, "h-proj", "3.0", "http")
    url = f"{base}/{sdist.name}"
    packages, venv = lock_and_sync(vwheel, tmp_path, setup, f"h-proj @ {url}#sha256={sha256(sdist)}", "dep-a")
    # (No size: the download is not kept; PEP 751 makes it optional.)
    assert reader.source_of(packages["h-proj"]) == ("archive", {"url": url, "hashes": {"sha256": sha256(sdist)}})
    assert values(venv, ["h_proj"]) == {"h_proj": "http"}
    assert direct_url(venv, "h_proj")["url"] == url


def test_universal_lock_of_a_directory(vwheel, tmp_path, setup):
    proj = project(tmp_path / "proj", "u-proj", "1.0", "universal", ["dep-a"])
    r = vwheel("lock", str(proj), "--no-index", "--find-links", setup["links"], "-o", setup["lock"])
    assert r.rc == 0, (r.out, r.err)
    packages = {p["name"]: p for p in tomllib.loads(setup["lock"].read_text())["packages"]}
    assert reader.source_of(packages["u-proj"]) == ("directory", {"path": "../proj"})
    assert dependencies(packages["u-proj"]) == ["dep-a"]
    venv = make_venv(vwheel, tmp_path / "venv")
    r = vwheel("sync", setup["lock"], "--python", venv)
    assert r.rc == 0, (r.out, r.err)
    assert values(venv, ["u_proj", "dep_a"]) == {"u_proj": "universal", "dep_a": "a"}


def test_universal_lock_refuses_requirements_that_differ_by_environment(vwheel, tmp_path, setup):
    proj = project(tmp_path / "proj", "m-proj", "1.0", "m", ['dep-a; sys_platform == \\"win32\\"'])
    r = vwheel("lock", str(proj), "--no-index", "--find-links", setup["links"], "-o", setup["lock"])
    assert r.rc == 1 and "give --target" in r.err, (r.out, r.err)
    assert not setup["lock"].exists()
