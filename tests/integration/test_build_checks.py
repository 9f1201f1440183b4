"""`vwheel build` checks every wheel as `install` would before publishing it: a hostile in-tree
backend that names its wheel `liar-1.0` but writes another name or version into METADATA, or a
RECORD whose hash or listing is wrong, publishes nothing. With `--sdist`, the sdist is published
only with the wheels built from it.
"""
import tarfile
import zipfile

import pytest

PY = "/usr/bin/python3"

PYPROJECT = """\
[build-system]
requires = []
build-backend = "liar_backend"
backend-path = ["_backend"]

[project]
name = "liar"
version = "1.0"
"""

# MODE: honest (the control), name, version, hash, size, unlisted, bad-sdist.
BACKEND = """\
import base64, hashlib, io, os, tarfile, zipfile

MODE = {mode!r}

def _hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    di = "liar-1.0.dist-info"
    name, version = ("evilpkg", "9.9") if MODE == "name" else ("liar", "9.9" if MODE == "version" else "1.0")
    files = {{
        "liar/__init__.py": b"X = 1\\n",
        di + "/METADATA": ("Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n" % (name, version)).encode(),
        di + "/WHEEL": b"Wheel-Version: 1.0\\nGenerator: liar\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    }}
    rows = []
    for path, data in files.items():
        digest, size = _hash(data), len(data)
        if path == "liar/__init__.py" and MODE == "hash":
            digest = _hash(b"something else")
        if path == "liar/__init__.py" and MODE == "size":
            size += 1
        rows.append("%s,%s,%d\\n" % (path, digest, size))
    if MODE == "unlisted":
        files["liar/extra.py"] = b"Y = 2\\n"
    fn = "liar-1.0-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, fn), "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
        z.writestr(di + "/RECORD", "".join(rows) + di + "/RECORD,,\\n")
    return fn

def build_sdist(sdist_directory, config_settings=None):
    fn = "liar-1.0.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, fn), "w:gz") as t:
        if MODE != "bad-sdist":
            t.add("pyproject.toml", "liar-1.0/pyproject.toml")
        t.add("_backend/liar_backend.py", "liar-1.0/_backend/liar_backend.py")
    return fn
"""


def write_project(root, mode):
    (root / "_backend").mkdir(parents=True)
    (root / "_backend" / "liar_backend.py").write_text(BACKEND.format(mode=mode))
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


def build(vwheel, tmp_path, mode, *args):
    project = write_project(tmp_path / "proj", mode)
    dist = tmp_path / "dist"
    return vwheel("build", project, "-o", dist, "--no-isolation", "--python", PY, *args), dist


def test_an_honest_wheel_of_the_same_backend_is_published(vwheel, tmp_path):
    r, dist = build(vwheel, tmp_path, "honest")
    assert r.rc == 0, r.err
    assert sorted(p.name for p in dist.iterdir()) == ["liar-1.0-py3-none-any.whl"]
    r, dist = build(vwheel, tmp_path / "with-sdist", "honest", "--sdist")
    assert r.rc == 0, r.err
    assert sorted(p.name for p in dist.iterdir()) == ["liar-1.0-py3-none-any.whl", "liar-1.0.tar.gz"]


@pytest.mark.parametrize("mode,message", [
    ("name", "`liar-1.0.dist-info/METADATA`: Name `evilpkg` does not match the file name's `liar`"),
    ("version", "`liar-1.0.dist-info/METADATA` says `Version: 9.9`, not the file name's 1.0; refused"),
    ("hash", "member `liar/__init__.py`: hash sha256="),
    ("size", "member `liar/__init__.py`: size 6 but RECORD says 7"),
    ("unlisted", "member `liar/extra.py` is not listed in RECORD"),
])
def test_a_wheel_that_install_would_refuse_is_not_published(vwheel, tmp_path, mode, message):
    r, dist = build(vwheel, tmp_path, mode)
    assert r.rc == 1, r.err
    lines = [line for line in r.err.splitlines() if line.startswith("vwheel: error: ")]
    assert len(lines) == 1, r.err
    assert lines[0].startswith("vwheel: error: the plain wheel: liar-1.0-py3-none-any.whl: "), r.err
    assert message in lines[0], r.err
    assert r.err.rstrip().endswith("vwheel: 1 of 1 builds failed: (plain wheel)"), r.err
    assert r.out == ""
    assert not dist.exists(), "nothing published, not even the output folder this run created"


def test_an_sdist_whose_wheel_is_refused_is_not_published(vwheel, tmp_path):
    # The output folder exists beforehand: it must be left as it was.
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "older-0.1.tar.gz").write_bytes(b"kept")
    r, dist = build(vwheel, tmp_path, "hash", "--sdist")
    assert r.rc == 1, r.err
    assert "vwheel: error: the plain wheel: liar-1.0-py3-none-any.whl: member `liar/__init__.py`: hash" in r.err, r.err
    assert "vwheel: error: the sdist: not published, since 1 of the 1 wheel builds from it failed" in r.err, r.err
    assert sorted(p.name for p in dist.iterdir()) == ["older-0.1.tar.gz"]


def test_an_sdist_that_cannot_be_built_from_is_not_published(vwheel, tmp_path):
    r, dist = build(vwheel, tmp_path, "bad-sdist", "--sdist")
    assert r.rc == 1, r.err
    assert "an sdist holds one folder with a pyproject.toml or a setup.py, this one does not" in r.err, r.err
    assert not dist.exists()


def test_the_sdist_is_the_one_the_backend_wrote(vwheel, tmp_path):
    r, dist = build(vwheel, tmp_path, "honest", "--sdist")
    assert r.rc == 0, r.err
    assert r.out.splitlines()[0] == str(dist / "liar-1.0.tar.gz")
    with tarfile.open(dist / "liar-1.0.tar.gz") as t:
        assert sorted(t.getnames()) == ["liar-1.0/_backend/liar_backend.py", "liar-1.0/pyproject.toml"]
    with zipfile.ZipFile(dist / "liar-1.0-py3-none-any.whl") as z:
        assert z.read("liar/__init__.py") == b"X = 1\n"
