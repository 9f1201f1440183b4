"""`vwheel install` of what names one distribution's files: a project directory, an sdist, a wheel,
and `name @ file://` / `#sha256=` direct references, built with Debian's real setuptools (or an
in-tree backend), installed with PEP 610 `direct_url.json` that pip reads as its own.
"""
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

PY = "/usr/bin/python3"  # Debian's interpreter: python3-setuptools, python3-wheel (scripts/bootstrap)

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "demo-src"
version = "0.1"
"""

# A complete PEP 517 backend without requirements: a wheel of `{module}.py` and the metadata.
TINY_BACKEND = '''\
import base64, hashlib, os, tomllib, zipfile

def _b64(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open("pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    name, version = project["name"], project["version"]
    norm = name.replace("-", "_")
    info = f"{norm}-{version}.dist-info"
    with open(f"{norm}.py", "rb") as f:
        files = {f"{norm}.py": f.read()}
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: tiny\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = "".join(f"{p},sha256={_b64(d)},{len(d)}\\n" for p, d in files.items()) + f"{info}/RECORD,,\\n"
    files[f"{info}/RECORD"] = record.encode()
    wheel = f"{norm}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as z:
        for p, d in files.items():
            z.writestr(p, d)
    return wheel
'''

FAILING_BACKEND = """\
import sys

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    for i in range(30):
        print(f"compiling step {i}")
    print("error: the compiler exploded", file=sys.stderr)
    raise RuntimeError("backend failure")
"""


def make_project(root: Path) -> Path:
    (root / "src" / "demo_src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "src" / "demo_src" / "__init__.py").write_text("VALUE = 42\n")
    return root


def make_venv(path: Path) -> Path:
    # Debian's setuptools and wheel are the build requirements of --no-build-isolation.
    subprocess.run([PY, "-m", "venv", "--system-site-packages", str(path)], check=True)
    return path / "bin" / "python"


def site(python: Path) -> Path:
    return next(python.parent.parent.glob("lib/python3*/site-packages"))


def direct_url(python: Path, dist: str) -> dict:
    info = next(site(python).glob(f"{dist}-*.dist-info"))
    record = (info / "RECORD").read_text()
    assert f"{info.name}/direct_url.json," in record, "direct_url.json is listed in RECORD"
    return json.loads((info / "direct_url.json").read_text())


def imports(python: Path) -> str:
    return subprocess.run([str(python), "-c", "import demo_src; print(demo_src.VALUE)"], capture_output=True,
                          text=True).stdout.strip()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "proj")


@pytest.fixture
def sdist(vwheel, project, tmp_path):
    dist = tmp_path / "dist"
    r = vwheel("build", "--sdist", project, "-o", dist, "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    return next(dist.glob("*.tar.gz")), next(dist.glob("demo_src-0.1-*.whl"))


def test_project_directory_is_built_and_recorded_as_dir_info(vwheel, project, tmp_path):
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", "./proj")
    assert r.rc == 0, r.err
    assert "installed demo-src 0.1" in r.out
    assert imports(python) == "42"
    assert direct_url(python, "demo_src") == {"url": project.as_uri(), "dir_info": {}}
    # pip reads it as its own: freeze names the directory, list has no error.
    freeze = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True, text=True)
    assert f"demo-src @ {project.as_uri()}" in freeze.stdout.splitlines()
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    entry = next(d for d in json.loads(listed.stdout) if d["name"] == "demo-src")
    assert "editable_project_location" not in entry, "a built directory is not an editable install"
    # vwheel's own views show it.
    listed = vwheel("list", "--python", python, "--json").json()
    assert next(d for d in listed if d["name"] == "demo-src")["direct_url"] == {"url": project.as_uri(), "dir_info": {}}
    assert next(d for d in listed if d["name"] == "setuptools")["direct_url"] is None
    shown = vwheel("show", "--python", python, "demo-src")
    assert f"Direct-URL: {project.as_uri()}" in shown.out


def test_name_at_file_url_of_a_directory(vwheel, project, tmp_path):
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", f"demo-src @ {project.as_uri()}")
    assert r.rc == 0, r.err
    assert direct_url(python, "demo_src") == {"url": project.as_uri(), "dir_info": {}}


def test_sdist_file_and_its_file_url_are_recorded_with_the_sdist_hash(vwheel, sdist, tmp_path):
    archive, _ = sdist
    expected = {"url": archive.as_uri(),
                "archive_info": {"hashes": {"sha256": sha256(archive)}, "hash": f"sha256={sha256(archive)}"}}
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", archive)
    assert r.rc == 0, r.err
    assert imports(python) == "42"
    assert direct_url(python, "demo_src") == expected
    python2 = make_venv(tmp_path / "venv2")
    r = vwheel("install", "--python", python2, "--no-build-isolation", f"demo-src @ {archive.as_uri()}")
    assert r.rc == 0, r.err
    assert direct_url(python2, "demo_src") == expected
    freeze = subprocess.run([str(python2), "-m", "pip", "freeze"], capture_output=True, text=True)
    assert f"demo-src @ {archive.as_uri()}#sha256={sha256(archive)}" in freeze.stdout.splitlines()
    # pip's own reading of the file is ours.
    inspected = subprocess.run([str(python2), "-m", "pip", "inspect"], capture_output=True, text=True)
    assert inspected.returncode == 0, inspected.stderr
    entry = next(d for d in json.loads(inspected.stdout)["installed"] if d["metadata"]["name"] == "demo-src")
    assert entry["direct_url"] == expected


def test_requirements_file_lines_are_relative_to_the_file(vwheel, project, tmp_path):
    (tmp_path / "reqs").mkdir()
    reqs = tmp_path / "reqs" / "requirements.txt"
    reqs.write_text("# the project next door\n../proj  # built\n")
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", "-r", reqs)
    assert r.rc == 0, r.err
    assert direct_url(python, "demo_src")["url"] == project.as_uri()


def test_wheel_file_url_with_sha256_is_checked(vwheel, sdist, tmp_path):
    _, wheel = sdist
    python = make_venv(tmp_path / "venv")
    bad = "0" * 64
    r = vwheel("install", "--python", python, f"demo-src @ {wheel.as_uri()}#sha256={bad}")
    assert r.rc == 1
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert bad in r.err and sha256(wheel) in r.err
    assert not list(site(python).glob("demo_src*")), "nothing installed"
    r = vwheel("install", "--python", python, f"demo-src @ {wheel.as_uri()}#sha256={sha256(wheel)}")
    assert r.rc == 0, r.err
    assert direct_url(python, "demo_src") == {
        "url": wheel.as_uri(), "archive_info": {"hashes": {"sha256": sha256(wheel)}, "hash": f"sha256={sha256(wheel)}"}}


def test_a_name_that_is_not_the_distribution_is_refused(vwheel, project, tmp_path):
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", f"other @ {project.as_uri()}")
    assert r.rc == 1
    assert r.err.strip().splitlines() == [r.err.strip()]
    assert "`demo_src`, not `other`" in r.err or "`demo-src`, not `other`" in r.err, r.err
    assert not list(site(python).glob("demo_src*"))


def test_failing_backend_is_one_line_and_installs_nothing(vwheel, tmp_path):
    proj = tmp_path / "broken"
    proj.mkdir()
    (proj / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "failing"\nbackend-path = ["."]\n\n'
        '[project]\nname = "broken"\nversion = "1.0"\n')
    (proj / "failing.py").write_text(FAILING_BACKEND)
    python = make_venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-build-isolation", proj)
    assert r.rc == 1
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert "broken" in lines[0] and "RuntimeError: backend failure" in lines[0], r.err
    assert not list(site(python).glob("broken*"))


def test_isolated_build_takes_its_backend_from_find_links(vwheel, tmp_path):
    # The backend as a wheel in a --find-links folder, built by itself (backend-path).
    backend = tmp_path / "tiny-backend"
    backend.mkdir()
    (backend / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "tiny_backend"\nbackend-path = ["."]\n\n'
        '[project]\nname = "tiny-backend"\nversion = "1.0"\n')
    (backend / "tiny_backend.py").write_text(TINY_BACKEND)
    links = tmp_path / "links"
    r = vwheel("build", backend, "-o", links, "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    proj = tmp_path / "uses-tiny"
    proj.mkdir()
    (proj / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["tiny-backend"]\nbuild-backend = "tiny_backend"\n\n'
        '[project]\nname = "uses-tiny"\nversion = "2.0"\n')
    (proj / "uses_tiny.py").write_text("ANSWER = 7\n")
    # A plain venv: the backend is in no environment but the isolated one.
    subprocess.run([PY, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    python = tmp_path / "venv" / "bin" / "python"
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, proj)
    assert r.rc == 0, r.err
    out = subprocess.run([str(python), "-c", "import uses_tiny; print(uses_tiny.ANSWER)"], capture_output=True, text=True)
    assert out.stdout.strip() == "7"
    assert direct_url(python, "uses_tiny") == {"url": proj.as_uri(), "dir_info": {}}
    assert not list(site(python).glob("tiny_backend*")), "the build requirement stays in the build environment"


def test_http_url_with_credentials_and_sha256(vwheel, sdist, tmp_path):
    _, wheel = sdist
    # -u: the server's "Serving HTTP on ... port N" line must reach the pipe now, not when a block fills
    # (without PYTHONUNBUFFERED in the environment, readline() waited forever).
    server = subprocess.Popen([PY, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory",
                               str(wheel.parent)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = server.stdout.readline().split("port ")[1].split(" ")[0]
        python = make_venv(tmp_path / "venv")
        url = f"http://127.0.0.1:{port}/{wheel.name}"
        secret = url.replace("http://", "http://alice:s3cret@")
        r = vwheel("install", "--python", python, f"demo-src @ {secret}#sha256={'1' * 64}")
        assert r.rc == 1 and len(r.err.strip().splitlines()) == 1, r.err
        assert "s3cret" not in r.err
        assert not list(site(python).glob("demo_src*")), "nothing installed"
        r = vwheel("install", "--python", python, f"demo-src @ {secret}#sha256={sha256(wheel)}")
        assert r.rc == 0, r.err
        assert direct_url(python, "demo_src") == {
            "url": url, "archive_info": {"hashes": {"sha256": sha256(wheel)}, "hash": f"sha256={sha256(wheel)}"}}
    finally:
        server.terminate()
        server.wait()
