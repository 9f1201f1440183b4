"""Wheels whose index gives no sha256 (a `--find-links` page such as a web server's directory
listing, or an index without hashes) are not downloaded again on every run: vwheel remembers what
the server said of each download (ETag, Last-Modified) and the sha256 it had, asks with a HEAD
request whether the file is still the same, and installs the cached copy when it is. A file
changed on the server is downloaded again; offline, the cached copy is used as it is."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from faultserver import FaultServer

sys.path.insert(0, str(Path(__file__).parent))
from wheelfactory import make_wheel  # noqa: E402

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
WHEEL = "hashless-1.0-py3-none-any.whl"


def new_venv(tmp_path, name):
    d = tmp_path / name
    subprocess.run([PY, "-m", "venv", "--without-pip", str(d)], check=True)
    return d


def installed_name(venv):
    """The installed module: which upload of the wheel it came from."""
    init = next((venv / "lib").glob("python3*/site-packages")) / "hashless" / "__init__.py"
    return init.read_text()


def links_dir(tmp_path):
    """A directory served as a find-links page: an index.html of plain links, without hashes."""
    links = tmp_path / "links"
    links.mkdir()
    make_wheel(links, WHEEL, {"hashless/__init__.py": b"NAME = 'the first upload'\n"})
    (links / "index.html").write_text(f'<html><body><a href="{WHEEL}">{WHEEL}</a></body></html>\n')
    return links


def replace_wheel(links, module_text):
    """Another wheel under the same name (new bytes, a later mtime), as a re-upload leaves it."""
    path = links / WHEEL
    old = path.stat()
    make_wheel(links, WHEEL, {"hashless/__init__.py": module_text.encode()})
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns + 5_000_000_000))


def wheel_gets(server):
    """Downloads of the whole wheel (the resolver's requests for its last bytes, to read METADATA, aside)."""
    return len([r for r in server.hits(f"*/{WHEEL}", method="GET") if r[2] is None])


def hashless_index(vwheel, tmp_path):
    """A simple index that lists no sha256 or size for its wheel (but serves its PEP 658 METADATA):
    `vwheel index build`'s, with those taken out. Returns (the directory served, where the wheel is)."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, WHEEL, {"hashless/__init__.py": b"NAME = 'the first upload'\n"})
    site = tmp_path / "site"
    r = vwheel("index", "build", wheels, "-o", site, "-q")
    assert r.rc == 0, r.err
    page = site / "simple" / "hashless"
    html = (page / "index.html").read_text()
    (page / "index.html").write_text(re.sub(r"#sha256=[0-9a-f]{64}", "", html))
    doc = json.loads((page / "index.json").read_text())
    for f in doc["files"]:
        f["hashes"] = {}
        f.pop("size", None)
    (page / "index.json").write_text(json.dumps(doc))
    return site, site / "files" / "hashless"


@pytest.mark.parametrize("source,keep", [("find-links", False), ("index", False), ("index", True)],
                         ids=["find-links", "index", "index-keep-archives"])
def test_a_wheel_without_sha256_is_asked_about_not_downloaded_again(vwheel, tmp_path, source, keep):
    if source == "find-links":
        served = wheels = links_dir(tmp_path)
    else:
        served, wheels = hashless_index(vwheel, tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(served) as server:
        where = (["--no-index", "--find-links", server.base + "/"] if source == "find-links"
                 else ["--index-url", server.base + "/simple/"])

        def install(venv, *extra):
            return vwheel("install", "-q", *where, "--cache-dir", cache, "--python", venv / "bin" / "python",
                          "hashless", *(["--keep-archives"] if keep else []), *extra)

        first = new_venv(tmp_path, "first")
        r = install(first)
        assert r.rc == 0, r.err
        assert wheel_gets(server) == 1
        assert installed_name(first) == "NAME = 'the first upload'\n"
        (record,) = list((cache / "archives").glob(f"url-*/{WHEEL}.origin.json"))

        # The same file on the server: one HEAD request, no download, the same files installed.
        second = new_venv(tmp_path, "second")
        r = install(second)
        assert r.rc == 0, r.err
        assert wheel_gets(server) == 1, server.requests
        assert len(server.hits(f"*/{WHEEL}", method="HEAD")) == 1, server.requests
        assert installed_name(second) == installed_name(first)

        # Another file under the same name: downloaded again, and the new one is installed.
        replace_wheel(wheels, "NAME = 'the second upload'\n")
        third = new_venv(tmp_path, "third")
        r = install(third)
        assert r.rc == 0, r.err
        assert wheel_gets(server) == 2, server.requests
        assert installed_name(third) == "NAME = 'the second upload'\n"

        # A damaged record is only a download again.
        record.write_text("{not json")
        fourth = new_venv(tmp_path, "fourth")
        r = install(fourth)
        assert r.rc == 0, r.err
        assert wheel_gets(server) == 3, server.requests
        assert installed_name(fourth) == "NAME = 'the second upload'\n"
        heads = len(server.hits(f"*/{WHEEL}", method="HEAD"))

        if source == "index":
            # Offline, the cached copy is installed as it is, with no request at all. (A find-links
            # page's wheels have no PEP 658 METADATA: resolving them reads their last bytes with a
            # Range request, which offline cannot make.)
            offline = new_venv(tmp_path, "offline")
            r = install(offline, "--offline")
            assert r.rc == 0, r.err
            assert installed_name(offline) == "NAME = 'the second upload'\n"
            assert wheel_gets(server) == 3 and len(server.hits(f"*/{WHEEL}", method="HEAD")) == heads


def test_a_server_without_validators_means_a_download_every_time(vwheel, tmp_path):
    # Nothing to ask the server with: no record is kept, and the wheel is downloaded each run.
    links = links_dir(tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(links, validators=False) as server:
        for n in range(2):
            venv = new_venv(tmp_path, f"v{n}")
            r = vwheel("install", "-q", "--no-index", "--find-links", server.base + "/", "--cache-dir", cache,
                       "--python", venv / "bin" / "python", "hashless")
            assert r.rc == 0, r.err
            assert wheel_gets(server) == n + 1, server.requests
    assert not list((cache / "archives").glob("url-*/*.origin.json"))
