"""A server without Range support (200 and the whole file to a range request), serving a wheel too
large to read into memory (over 64 MiB) from a page that offers no PEP 658 metadata: the resolver
cannot read the wheel's METADATA with range requests, so it downloads the wheel, to where the
install (or the lock's hashing) looks for its downloads, and reads METADATA from the file. The
wheel crosses the network once, whether it is then installed, or locked and synced."""
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from faultserver import FaultServer

sys.path.insert(0, str(Path(__file__).parent))
from wheelfactory import make_wheel  # noqa: E402

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
WHEEL = "bigwheel-1.0-py3-none-any.whl"


def new_venv(tmp_path, name):
    d = tmp_path / name
    subprocess.run([PY, "-m", "venv", "--without-pip", str(d)], check=True)
    return d


@pytest.fixture(scope="module")
def big_wheel(tmp_path_factory):
    """The wheel (stored, so that the file is as large as its 65 MiB member) and that member's bytes."""
    d = tmp_path_factory.mktemp("bigwheel")
    blob = os.urandom(65 << 20)
    make_wheel(d, WHEEL, {"bigwheel/__init__.py": b"VALUE = 1\n", "bigwheel/blob.bin": blob},
               compression=zipfile.ZIP_STORED)
    return d / WHEEL, hashlib.sha256(blob).hexdigest()


def links(tmp_path, big_wheel, with_sha256):
    """A find-links directory with an index.html linking the wheel (with a #sha256= fragment or not)."""
    path, _ = big_wheel
    d = tmp_path / "links"
    d.mkdir()
    os.link(path, d / WHEEL)
    fragment = "#sha256=" + hashlib.sha256(path.read_bytes()).hexdigest() if with_sha256 else ""
    (d / "index.html").write_text(f'<html><body><a href="{WHEEL}{fragment}">{WHEEL}</a></body></html>\n')
    return d


def full_gets(server):
    """Downloads of the whole wheel: GETs without a Range header (those with one were cut off
    after the headers, the server answering them with the whole file)."""
    return len([r for r in server.hits(f"*/{WHEEL}") if r[2] is None])


def blob_sha(venv):
    blob = next((venv / "lib").glob("python3*/site-packages")) / "bigwheel" / "blob.bin"
    return hashlib.sha256(blob.read_bytes()).hexdigest()


@pytest.mark.parametrize("with_sha256", [False, True], ids=["hashless", "sha256"])
def test_a_large_wheel_is_downloaded_once_to_be_read_and_installed(vwheel, tmp_path, big_wheel, with_sha256):
    cache = tmp_path / "vwcache"
    with FaultServer(links(tmp_path, big_wheel, with_sha256), ranges=False) as server:
        def install(venv):
            return vwheel("install", "-q", "--no-index", "--find-links", server.base + "/", "--cache-dir", cache,
                          "--python", venv / "bin" / "python", "bigwheel")

        first = new_venv(tmp_path, "first")
        r = install(first)
        assert r.rc == 0, r.err
        assert blob_sha(first) == big_wheel[1]
        assert full_gets(server) == 1, server.requests
        # The next run reads the METADATA it kept, and installs from the cache: no download.
        second = new_venv(tmp_path, "second")
        r = install(second)
        assert r.rc == 0, r.err
        assert blob_sha(second) == big_wheel[1]
        assert full_gets(server) == 1, server.requests
    # Nothing is left in the cache's scratch directory.
    assert not [p for p in cache.glob("tmp/**/*") if p.is_file()]


def test_a_large_wheel_without_sha256_is_downloaded_once_to_be_read_locked_and_synced(vwheel, tmp_path, big_wheel):
    cache = tmp_path / "vwcache"
    wheel_sha = hashlib.sha256(big_wheel[0].read_bytes()).hexdigest()
    with FaultServer(links(tmp_path, big_wheel, False), ranges=False) as server:
        r = vwheel("lock", "--no-index", "--find-links", server.base + "/", "--cache-dir", cache, "--python", PY,
                   "-o", tmp_path / "pylock.toml", "bigwheel")
        assert r.rc == 0, r.err
        assert wheel_sha in (tmp_path / "pylock.toml").read_text()
        assert full_gets(server) == 1, server.requests
        # The sync of the lock installs that download.
        venv = new_venv(tmp_path, "synced")
        r = vwheel("sync", tmp_path / "pylock.toml", "--python", venv / "bin" / "python", "--cache-dir", cache, "-q")
        assert r.rc == 0, r.err
        assert blob_sha(venv) == big_wheel[1]
        assert full_gets(server) == 1, server.requests


def test_a_large_wheel_that_fails_to_download_is_an_error_naming_it(vwheel, tmp_path, big_wheel):
    cache = tmp_path / "vwcache"
    with FaultServer(links(tmp_path, big_wheel, False), ranges=False) as server:
        server.fault(f"*/{WHEEL}", "404", full_only=True)  # the range request is answered
        venv = new_venv(tmp_path, "venv")
        r = vwheel("install", "-q", "--no-index", "--find-links", server.base + "/", "--cache-dir", cache,
                   "--python", venv / "bin" / "python", "bigwheel")
        assert r.rc != 0
        assert WHEEL in r.err and "404" in r.err, r.err
        assert not list(cache.rglob("*.part")), "a partial download was left in the cache"
        assert not list((venv / "lib").glob("python3*/site-packages/bigwheel"))


def small_links(tmp_path, sha256s):
    """An app requiring three 2 MiB libraries (taken whole into memory when read together), on a
    find-links page; `sha256s(name, digest)` gives each link's #sha256= fragment ("" for none)."""
    d = tmp_path / "small"
    d.mkdir()
    names = [f"lib{i}" for i in range(3)]
    for n in names:
        make_wheel(d, f"{n}-1.0-py3-none-any.whl", {f"{n}/__init__.py": b"", f"{n}/blob.bin": os.urandom(2 << 20)},
                   compression=zipfile.ZIP_STORED)
    make_wheel(d, "app-1.0-py3-none-any.whl", {"app/__init__.py": b""}, requires=names)
    links = []
    for w in sorted(d.glob("*.whl")):
        links.append(f'<a href="{w.name}{sha256s(w.name, hashlib.sha256(w.read_bytes()).hexdigest())}">{w.name}</a>')
    (d / "index.html").write_text("<html><body>" + "".join(links) + "</body></html>\n")
    return d


@pytest.mark.parametrize("with_sha256", [False, True], ids=["hashless", "sha256"])
def test_wheels_read_whole_are_installed_from_what_was_read(vwheel, tmp_path, with_sha256):
    served = small_links(tmp_path, lambda name, digest: "#sha256=" + digest if with_sha256 else "")
    with FaultServer(served, ranges=False) as server:
        venv = new_venv(tmp_path, "venv")
        r = vwheel("install", "-q", "--no-index", "--find-links", server.base + "/", "--cache-dir", tmp_path / "c",
                   "--python", venv / "bin" / "python", "app")
        assert r.rc == 0, r.err
        for i in range(3):
            # One request each, answered whole: read for METADATA, then installed from the cache.
            hits = server.hits(f"*/lib{i}-1.0-py3-none-any.whl")
            assert len(hits) == 1 and hits[0][2] is not None, server.requests
            site = next((venv / "lib").glob("python3*/site-packages"))
            assert (site / f"lib{i}" / "blob.bin").stat().st_size == 2 << 20


def test_a_wheel_read_whole_that_does_not_match_its_sha256_is_refused(vwheel, tmp_path):
    served = small_links(tmp_path, lambda name, digest: "#sha256=" + ("0" * 64 if name.startswith("lib1") else digest))
    cache = tmp_path / "c"
    with FaultServer(served, ranges=False) as server:
        venv = new_venv(tmp_path, "venv")
        r = vwheel("install", "-q", "--no-index", "--find-links", server.base + "/", "--cache-dir", cache,
                   "--python", venv / "bin" / "python", "app")
        assert r.rc != 0
        assert "lib1-1.0-py3-none-any.whl" in r.err and "0" * 64 in r.err, r.err
        assert not list((venv / "lib").glob("python3*/site-packages/lib*"))
        assert not list(cache.glob("archives/" + "0" * 64 + "/*")), "a wheel was kept under a digest it does not have"


def test_a_wheel_read_whole_whose_size_the_index_misstates_is_refused(vwheel, tmp_path):
    # An index page (vwheel index build's, without its PEP 658 files) that gives the wheel's
    # sha256 right and its size wrong: the file is checked against both, as a download is.
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, "small-1.0-py3-none-any.whl", {"small/__init__.py": b"VALUE = 1\n"})
    site = tmp_path / "site"
    r = vwheel("index", "build", wheels, "-o", site, "-q")
    assert r.rc == 0, r.err
    page = site / "simple" / "small"
    (page / "index.html").unlink()
    doc = json.loads((page / "index.json").read_text())
    for f in doc["files"]:
        f.pop("core-metadata", None)
        f.pop("dist-info-metadata", None)
        f["size"] += 1
    (page / "index.json").write_text(json.dumps(doc))
    cache = tmp_path / "c"
    with FaultServer(site, ranges=False) as server:
        venv = new_venv(tmp_path, "venv")
        r = vwheel("install", "-q", "--index-url", server.base + "/simple/", "--cache-dir", cache,
                   "--python", venv / "bin" / "python", "small")
        assert r.rc != 0
        assert "small-1.0-py3-none-any.whl" in r.err and "expected size" in r.err, r.err
        assert not list((venv / "lib").glob("python3*/site-packages/small"))
        assert not list(cache.glob("archives/*/small-1.0-py3-none-any.whl"))
