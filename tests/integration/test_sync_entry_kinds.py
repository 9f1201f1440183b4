"""`vwheel sync` and `vwheel export` of a hand-written PEP 751 lock with one entry of each kind: a
wheel, an sdist by URL (a local HTTP server) and by path, an archive that is a wheel and one that
is an sdist, a directory, an editable directory, and a git commit. Each is installed and
importable, with PEP 610's direct_url.json where PEP 751 says the package comes from a direct URL
reference (archive, directory, vcs; not an sdist, which comes from an index). A wrong hash or size
is refused with one line naming the entry, before anything is installed.

The projects are built by a tiny in-tree PEP 517 backend (no build requirements: nothing to fetch
for the isolated build environment)."""
import functools
import hashlib
import http.server
import io
import json
import re
import subprocess
import tarfile
import threading
import tomllib
from pathlib import Path

import pytest

import pep751_reader as reader
from example_site import make_venv
from test_lock_forks import installed
from test_lock_sync import dump_toml
from test_verify_download import v2_profile
from wheelfactory import make_wheel

# build_wheel and build_editable (PEP 660: a .pth naming the source tree) of `{module}.py`.
BACKEND = '''\
import base64, hashlib, os, tomllib, zipfile

def _b64(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

def _wheel(wheel_directory, files):
    with open("pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    name, version = project["name"], project["version"]
    norm = name.replace("-", "_")
    info = f"{norm}-{version}.dist-info"
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: tiny\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = "".join(f"{p},sha256={_b64(d)},{len(d)}\\n" for p, d in files.items()) + f"{info}/RECORD,,\\n"
    files[f"{info}/RECORD"] = record.encode()
    wheel = f"{norm}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as z:
        for p, d in files.items():
            z.writestr(p, d)
    return wheel

def _module():
    with open("pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["name"].replace("-", "_")

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open(f"{_module()}.py", "rb") as f:
        return _wheel(wheel_directory, {f"{_module()}.py": f.read()})

def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, {f"_{_module()}_editable.pth": (os.getcwd() + "\\n").encode()})
'''


def write_project(root: Path, name: str, version: str, value: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "tinyback"\nbackend-path = ["."]\n\n'
        f'[project]\nname = "{name}"\nversion = "{version}"\n')
    (root / "tinyback.py").write_text(BACKEND)
    (root / f"{name.replace('-', '_')}.py").write_text(f"VALUE = {value!r}\n")
    return root


def make_sdist(directory: Path, name: str, version: str, value: str) -> Path:
    """`{name}-{version}.tar.gz` with one top folder, as PEP 625 names it, written with tarfile."""
    norm = name.replace("-", "_")
    src = write_project(directory / f"src-{norm}", name, version, value)
    path = directory / f"{norm}-{version}.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for f in sorted(src.iterdir()):
            tar.add(f, arcname=f"{norm}-{version}/{f.name}")
        info = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
        member = tarfile.TarInfo(f"{norm}-{version}/PKG-INFO")
        member.size = len(info)
        tar.addfile(member, io.BytesIO(info))
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def file_entry(file: Path, **where) -> dict:
    return {**where, "size": file.stat().st_size, "hashes": {"sha256": sha256(file)}}


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


REQUESTS = {}  # served folder -> the GET paths asked of it


def http_dir_requests(root: Path) -> list:
    return REQUESTS[str(root)]


@pytest.fixture
def http_dir(tmp_path):
    """A folder served over HTTP on 127.0.0.1 (Python's http.server, in a thread)."""
    root = tmp_path / "served"
    root.mkdir()
    requests = REQUESTS.setdefault(str(root), [])

    class Recorded(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            requests.append(self.path)
            super().do_GET()

    handler = functools.partial(Recorded, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def kinds(tmp_path, http_dir):
    """A lock at `tmp_path/lock/pylock.toml` with one entry of each kind, and what each is."""
    served, base = http_dir
    lock_dir = tmp_path / "lock"
    files = lock_dir / "files"
    files.mkdir(parents=True)
    wheel = make_wheel(files, "k_wheel-1.0-py3-none-any.whl", {"k_wheel.py": b"VALUE = 'wheel'\n"})
    # Its only wheel fits no machine: the sdist is built (PEP 751).
    url_sdist = make_sdist(served, "k-url-sdist", "1.0", "url-sdist")
    by_path = make_sdist(files, "k-path-sdist", "2.0", "path-sdist")
    archive_wheel = make_wheel(served, "k_archive_wheel-3.0-py3-none-any.whl", {"k_archive_wheel.py": b"VALUE = 'aw'\n"})
    archive_sdist = make_sdist(files, "k-archive-sdist", "4.0", "archive-sdist")
    directory = write_project(tmp_path / "dir", "k-dir", "5.0", "dir")
    editable = write_project(tmp_path / "editable", "k-editable", "6.0", "editable")
    repo = write_project(tmp_path / "repo", "k-vcs", "7.0", "vcs-old")
    git("init", "-q", "-b", "main", cwd=repo)
    git("add", ".", cwd=repo)
    git("commit", "-q", "-m", "one", cwd=repo)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    # A later commit on the branch: the lock's commit-id is what is installed, not the branch head.
    (repo / "k_vcs.py").write_text("VALUE = 'vcs-new'\n")
    git("commit", "-q", "-am", "two", cwd=repo)
    packages = [
        {"name": "k-wheel", "version": "1.0", "wheels": [file_entry(wheel, name=wheel.name, path="files/" + wheel.name)]},
        {"name": "k-url-sdist", "version": "1.0",
         "sdist": file_entry(url_sdist, name=url_sdist.name, url=f"{base}/{url_sdist.name}"),
         "wheels": [{"name": "k_url_sdist-1.0-cp27-cp27m-win32.whl", "url": f"{base}/k_url_sdist-1.0-cp27-cp27m-win32.whl",
                     "hashes": {"sha256": "0" * 64}}]},
        {"name": "k-path-sdist", "version": "2.0", "sdist": file_entry(by_path, path="files/" + by_path.name)},
        {"name": "k-archive-wheel", "version": "3.0", "archive": file_entry(archive_wheel, url=f"{base}/{archive_wheel.name}")},
        {"name": "k-archive-sdist", "version": "4.0", "archive": file_entry(archive_sdist, path="files/" + archive_sdist.name)},
        {"name": "k-dir", "directory": {"path": "../dir"}},
        {"name": "k-editable", "version": "6.0", "directory": {"path": str(editable), "editable": True}},
        {"name": "k-vcs", "vcs": {"type": "git", "path": "../repo", "requested-revision": "main", "commit-id": commit}},
    ]
    path = lock_dir / "pylock.toml"
    path.write_text(dump_toml({"lock-version": "1.0", "created-by": "hand", "packages": packages}))
    return {"lock": path, "packages": packages, "base": base, "url_sdist": url_sdist, "by_path": by_path,
            "archive_wheel": archive_wheel, "archive_sdist": archive_sdist, "dir": directory, "editable": editable,
            "repo": repo, "commit": commit}


def values(python: Path, modules) -> dict:
    code = "import importlib, json, sys; print(json.dumps({m: importlib.import_module(m).VALUE for m in sys.argv[1:]}))"
    r = subprocess.run([str(python), "-c", code, *modules], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def direct_url(python: Path, dist: str):
    info = next(python.parent.parent.glob(f"lib/python3*/site-packages/{dist}-*.dist-info"))
    path = info / "direct_url.json"
    return json.loads(path.read_text()) if path.exists() else None


def archive_info(path: Path) -> dict:
    return {"hashes": {"sha256": sha256(path)}, "hash": f"sha256={sha256(path)}"}


def test_every_kind_is_installed_with_its_origin(vwheel, tmp_path, kinds):
    venv = make_venv(vwheel, tmp_path / "venv")
    r = vwheel("sync", kinds["lock"], "--python", venv)
    assert r.rc == 0, (r.out, r.err)
    assert installed(vwheel, venv) == {
        "k-wheel": ("1.0", ""), "k-url-sdist": ("1.0", ""), "k-path-sdist": ("2.0", ""), "k-archive-wheel": ("3.0", ""),
        "k-archive-sdist": ("4.0", ""), "k-dir": ("5.0", ""), "k-editable": ("6.0", ""), "k-vcs": ("7.0", "")}
    assert values(venv, ["k_wheel", "k_url_sdist", "k_path_sdist", "k_archive_wheel", "k_archive_sdist", "k_dir",
                         "k_editable", "k_vcs"]) == {
        "k_wheel": "wheel", "k_url_sdist": "url-sdist", "k_path_sdist": "path-sdist", "k_archive_wheel": "aw",
        "k_archive_sdist": "archive-sdist", "k_dir": "dir", "k_editable": "editable", "k_vcs": "vcs-old"}
    # A wheel or an sdist of the lock comes from an index: no direct URL.
    for dist in ("k_wheel", "k_url_sdist", "k_path_sdist"):
        assert direct_url(venv, dist) is None, dist
    assert direct_url(venv, "k_archive_wheel") == {
        "url": f"{kinds['base']}/{kinds['archive_wheel'].name}", "archive_info": archive_info(kinds["archive_wheel"])}
    assert direct_url(venv, "k_archive_sdist") == {
        "url": kinds["archive_sdist"].as_uri(), "archive_info": archive_info(kinds["archive_sdist"])}
    assert direct_url(venv, "k_dir") == {"url": kinds["dir"].as_uri(), "dir_info": {}}
    assert direct_url(venv, "k_editable") == {"url": kinds["editable"].as_uri(), "dir_info": {"editable": True}}
    assert direct_url(venv, "k_vcs") == {
        "url": kinds["repo"].as_uri(), "vcs_info": {"vcs": "git", "requested_revision": "main", "commit_id": kinds["commit"]}}
    # Editable: a change in the tree is seen without a new install.
    (kinds["editable"] / "k_editable.py").write_text("VALUE = 'changed'\n")
    assert values(venv, ["k_editable"]) == {"k_editable": "changed"}
    # Again: what is installed at the locked version stays; nothing fails.
    r = vwheel("sync", kinds["lock"], "--python", venv)
    assert r.rc == 0, (r.out, r.err)


def rewrite(kinds, index, **changes):
    packages = json.loads(json.dumps(kinds["packages"]))
    for key, value in changes.items():
        target = packages[index]
        *path, last = key.split("__")
        for p in path:
            target = target[p]
        target[last] = value
    kinds["lock"].write_text(dump_toml({"lock-version": "1.0", "created-by": "hand", "packages": packages}))


@pytest.mark.parametrize("index,kind,field", [
    (2, "sdist", "sdist"), (1, "sdist", "sdist"), (3, "archive", "archive"), (4, "archive", "archive")])
def test_a_wrong_hash_or_size_is_refused_naming_the_entry(vwheel, tmp_path, kinds, index, kind, field):
    venv = make_venv(vwheel, tmp_path / "venv")
    name = kinds["packages"][index]["name"]
    version = kinds["packages"][index]["version"]
    for change, says in (({f"{field}__hashes": {"sha256": "f" * 64}}, "has sha256 "),
                         ({f"{field}__size": kinds["packages"][index][field]["size"] + 1}, " bytes, not ")):
        rewrite(kinds, index, **change)
        r = vwheel("sync", kinds["lock"], "--python", venv)
        assert r.rc == 1, (r.out, r.err)
        lines = r.err.strip().splitlines()
        assert len(lines) == 1, r.err
        assert f"pylock.toml packages[{index}].{kind} ({name} {version}): " in lines[0], lines[0]
        assert says in lines[0] and "as the lock says" in lines[0], lines[0]
        assert installed(vwheel, venv) == {}, "nothing installed"


def test_a_vcs_commit_that_is_not_there_is_refused(vwheel, tmp_path, kinds):
    venv = make_venv(vwheel, tmp_path / "venv")
    rewrite(kinds, 7, **{"vcs__commit-id": "1" * 40})
    r = vwheel("sync", kinds["lock"], "--python", venv)
    assert r.rc == 1, (r.out, r.err)
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert "pylock.toml packages[7].vcs (k-vcs)`: no branch, tag or commit `" + "1" * 40 in r.err, r.err
    assert installed(vwheel, venv) == {}
    # A subdirectory must be within the checkout.
    rewrite(kinds, 7, vcs__subdirectory="../dir")
    r = vwheel("sync", kinds["lock"], "--python", venv)
    assert r.rc == 1, (r.out, r.err)
    assert r.err.strip().endswith("pylock.toml packages[7].vcs (k-vcs): the commit has no subdirectory `../dir`"), r.err
    # PEP 751 wants a commit hash; anything else (an option of git's, a branch) is refused unread.
    rewrite(kinds, 7, **{"vcs__commit-id": "--orphan=x"})
    r = vwheel("sync", kinds["lock"], "--python", venv)
    assert r.rc == 1, (r.out, r.err)
    assert r.err.strip().endswith(
        "pylock.toml packages[7].vcs (k-vcs): commit-id `--orphan=x` is not a git commit hash (40 or 64 hex digits)"), r.err
    assert installed(vwheel, venv) == {}


def test_export_writes_each_kind_as_pip_reads_it(vwheel, kinds):
    r = vwheel("export", kinds["lock"])
    assert r.rc == 0, (r.out, r.err)
    lines = [line.strip() for line in r.out.splitlines()]
    assert "k-url-sdist==1.0 \\" in lines and f"--hash=sha256:{sha256(kinds['url_sdist'])}" in lines, r.out
    assert f"k-archive-wheel @ {kinds['base']}/{kinds['archive_wheel'].name} \\" in lines, r.out
    assert f"k-archive-sdist @ {kinds['archive_sdist'].as_uri()} \\" in lines, r.out
    assert f"k-dir @ {kinds['dir'].as_uri()}" in lines, r.out
    assert f"-e {kinds['editable']}" in lines, r.out
    assert f"k-vcs @ git+{kinds['repo'].as_uri()}@{kinds['commit']}" in lines, r.out


def test_dry_run_names_each_source_and_builds_nothing(vwheel, tmp_path, kinds):
    venv = make_venv(vwheel, tmp_path / "venv")
    report = tmp_path / "report.json"
    r = vwheel("sync", kinds["lock"], "--python", venv, "--dry-run", "--report", report)
    assert r.rc == 0, (r.out, r.err)
    urls = {p["name"]: p["url"] for p in json.loads(report.read_text())["install"]}
    assert urls["k-url-sdist"] == f"{kinds['base']}/{kinds['url_sdist'].name}"
    assert urls["k-path-sdist"] == str(kinds["by_path"])
    assert urls["k-dir"] == str(kinds["dir"]) and urls["k-vcs"] == str(kinds["repo"])
    assert "k_url_sdist-1.0.tar.gz" in r.out and "no listed wheel fits: the sdist, built" in r.out, r.out
    assert f"k-dir: {kinds['dir']} (the directory, built)" in r.out, r.out
    assert "the directory, built editable" in r.out and "the vcs commit, built" in r.out, r.out
    assert installed(vwheel, venv) == {}


# ---- `vwheel lock` writes the sdist beside the wheels ----

def lock_entry(lock: Path, name: str) -> dict:
    doc = tomllib.loads(lock.read_text())
    return next(p for p in doc["packages"] if p["name"] == name)


@pytest.mark.parametrize("targeted", [False, True])
def test_lock_writes_the_sdist_of_a_find_links_directory(vwheel, tmp_path, targeted):
    """Universal, and for a target profile (each is its own resolution)."""
    links = tmp_path / "links"
    links.mkdir()
    make_wheel(links, "lk-1.0-py3-none-any.whl", {"lk.py": b"VALUE = 'wheel'\n"})
    sdist = make_sdist(links, "lk", "1.0", "sdist")
    make_sdist(links, "lk", "0.9", "old")  # another version's: not in the lock
    lock = tmp_path / "pylock.toml"
    target = ["--target", v2_profile(tmp_path)] if targeted else []
    r = vwheel("lock", "lk", "--no-index", "-f", links, "-o", lock, *target)
    assert r.rc == 0, (r.out, r.err)
    kind, table = reader.source_of(lock_entry(lock, "lk"))
    assert kind == "sdist"
    assert table == {"name": "lk-1.0.tar.gz", "path": str(sdist), "size": sdist.stat().st_size,
                     "hashes": {"sha256": sha256(sdist)}}
    assert [w["name"] for w in lock_entry(lock, "lk")["wheels"]] == ["lk-1.0-py3-none-any.whl"]
    # An installer that follows PEP 751 takes the wheel where it fits, and else the sdist (in the
    # target's environment, for a lock made for one).
    env = {"python_version": "3.12", "python_full_version": "3.12.1", "sys_platform": "linux"}
    for marker in tomllib.loads(lock.read_text()).get("environments", [])[:1]:
        env = dict(re.findall(r'(\w+) == "([^"]*)"', marker))
        env["python_full_version"] = env["python_version"] + ".0"
    assert reader.install_set(lock, env, ["py3-none-any"]) == {"lk": ("1.0", "lk-1.0-py3-none-any.whl")}
    assert reader.install_set(lock, env, ["cp27-cp27m-win32"]) == {"lk": ("1.0", "lk-1.0.tar.gz")}
    if targeted:
        return  # the profile's Python is not this machine's
    # vwheel sync reads it back and installs the wheel.
    venv = make_venv(vwheel, tmp_path / "venv")
    r = vwheel("sync", lock, "--python", venv)
    assert r.rc == 0, (r.out, r.err)
    assert values(venv, ["lk"]) == {"lk": "wheel"}


@pytest.mark.parametrize("page_hashes", [True, False])
def test_lock_writes_the_sdist_of_an_http_page(vwheel, tmp_path, http_dir, page_hashes):
    """A page with `#sha256=` gives the sdist's hash: it is not downloaded. A page without one (a
    web server's listing) has the sdist downloaded and hashed, as wheels are."""
    served, base = http_dir
    links = served / "links"
    links.mkdir()
    wheel = make_wheel(links, "hk-2.0-py3-none-any.whl", {"hk.py": b"VALUE = 'wheel'\n"})
    sdist = make_sdist(links, "hk", "2.0", "sdist")
    for f in links.glob("src-*"):
        subprocess.run(["rm", "-r", str(f)], check=True)
    if page_hashes:
        (links / "index.html").write_text("<html><body>" + "".join(
            f'<a href="{f.name}#sha256={sha256(f)}">{f.name}</a>' for f in (wheel, sdist)) + "</body></html>")
    lock = tmp_path / "pylock.toml"
    r = vwheel("lock", "hk", "--no-index", "-f", f"{base}/links/", "-o", lock, "--cache-dir", tmp_path / "cache")
    assert r.rc == 0, (r.out, r.err)
    kind, table = reader.source_of(lock_entry(lock, "hk"))
    assert kind == "sdist"
    assert table["name"] == "hk-2.0.tar.gz" and table["url"] == f"{base}/links/hk-2.0.tar.gz"
    assert table["hashes"] == {"sha256": sha256(sdist)}
    if not page_hashes:
        assert table["size"] == sdist.stat().st_size  # known once downloaded
    env = {"python_version": "3.12", "python_full_version": "3.12.1", "sys_platform": "linux"}
    assert reader.install_set(lock, env, ["cp27-cp27m-win32"]) == {"hk": ("2.0", "hk-2.0.tar.gz")}
    downloaded = [p for p in http_dir_requests(served) if p.endswith(".tar.gz")]
    assert downloaded == ([] if page_hashes else ["/links/hk-2.0.tar.gz"])


def test_no_build_isolation_builds_with_the_environments_setuptools(vwheel, tmp_path):
    """Debian's setuptools (a venv with the system site-packages) builds a directory entry; the
    isolated build would have to fetch it from an index."""
    project = tmp_path / "st"
    (project / "st_pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "st-pkg"\nversion = "0.3"\n')
    (project / "st_pkg" / "__init__.py").write_text("VALUE = 'setuptools'\n")
    lock = tmp_path / "pylock.toml"
    lock.write_text(dump_toml({"lock-version": "1.0", "created-by": "hand",
                               "packages": [{"name": "st-pkg", "directory": {"path": "st"}}]}))
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    r = vwheel("sync", lock, "--python", python, "--no-build-isolation")
    assert r.rc == 0, (r.out, r.err)
    assert values(python, ["st_pkg"]) == {"st_pkg": "setuptools"}
    assert direct_url(python, "st_pkg") == {"url": project.as_uri(), "dir_info": {}}


def test_an_archive_of_a_tree_is_built_from_its_subdirectory(vwheel, tmp_path):
    """A repository's tarball (one top folder) with the project in `python/`: PEP 751's
    `subdirectory` is within the tree, and direct_url.json says so."""
    project = write_project(tmp_path / "src" / "mono-main" / "python", "k-mono", "8.0", "mono")
    (tmp_path / "src" / "mono-main" / "README").write_text("not the project\n")
    archive = tmp_path / "mono-main.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(project.parent, arcname="mono-main")
    lock = tmp_path / "pylock.toml"

    def sync(subdirectory):
        lock.write_text(dump_toml({"lock-version": "1.0", "created-by": "hand", "packages": [
            {"name": "k-mono", "version": "8.0",
             "archive": {**file_entry(archive, path=archive.name), "subdirectory": subdirectory}}]}))
        return vwheel("sync", lock, "--python", venv)

    venv = make_venv(vwheel, tmp_path / "venv")
    r = sync("nowhere")
    assert r.rc == 1, (r.out, r.err)
    assert r.err.strip().endswith("pylock.toml packages[0].archive (k-mono 8.0): the archive has no subdirectory "
                                  "`nowhere`"), r.err
    r = sync("../..")
    assert r.rc == 1 and "the archive has no subdirectory `../..`" in r.err, (r.out, r.err)
    assert installed(vwheel, venv) == {}
    r = sync("python")
    assert r.rc == 0, (r.out, r.err)
    assert values(venv, ["k_mono"]) == {"k_mono": "mono"}
    assert direct_url(venv, "k_mono") == {"url": archive.as_uri(), "archive_info": archive_info(archive),
                                          "subdirectory": "python"}


def test_sha384_and_sha512_listed_beside_the_sha256_are_checked(vwheel, tmp_path, kinds):
    # Index 3 is the archive that is a wheel, served over HTTP; its sha256 stays right.
    data = kinds["archive_wheel"].read_bytes()
    good = dict(kinds["packages"][3]["archive"]["hashes"], sha384=hashlib.sha384(data).hexdigest(),
                sha512=hashlib.sha512(data).hexdigest())
    rewrite(kinds, 3, archive__hashes=good)
    venv = make_venv(vwheel, tmp_path / "venv")
    r = vwheel("sync", kinds["lock"], "--python", venv)
    assert r.rc == 0, r.err
    assert "k-archive-wheel" in installed(vwheel, venv)
    for algorithm in ("sha384", "sha512"):
        rewrite(kinds, 3, archive__hashes=dict(good, **{algorithm: "0" * len(good[algorithm])}))
        venv = make_venv(vwheel, tmp_path / f"venv-{algorithm}")
        r = vwheel("sync", kinds["lock"], "--python", venv)
        assert r.rc == 1, (r.out, r.err)
        lines = r.err.strip().splitlines()
        assert len(lines) == 1, r.err
        assert f"pylock.toml packages[3].archive (k-archive-wheel 3.0): " in lines[0], lines[0]
        assert f"has {algorithm} {good[algorithm]}, not {'0' * len(good[algorithm])} as the lock says" in lines[0]
        assert installed(vwheel, venv) == {}, "nothing installed"
