"""Wheels whose index gives no sha256 (a `--find-links` page such as a web server's directory
listing, or an index without hashes) are not downloaded again on every run: vwheel remembers what
the server said of each download (ETag, Last-Modified) and the sha256 it had, asks with a HEAD
request whether the file is still the same, and installs the cached copy when it is. A file
changed on the server is downloaded again; offline, the cached copy is used as it is."""
import hashlib
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


def range_gets(server):
    """The resolver's Range requests for the wheel's last bytes and its METADATA."""
    return len([r for r in server.hits(f"*/{WHEEL}", method="GET") if r[2] is not None])


def built_index(vwheel, tmp_path, html_pattern, json_fields):
    """`vwheel index build`'s index of the wheel, with `html_pattern` taken out of its HTML page and,
    in each file of its JSON page, the fields of `json_fields` set to their value there (None:
    taken out). Returns (the directory served, where the wheel is)."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, WHEEL, {"hashless/__init__.py": b"NAME = 'the first upload'\n"})
    site = tmp_path / "site"
    r = vwheel("index", "build", wheels, "-o", site, "-q")
    assert r.rc == 0, r.err
    page = site / "simple" / "hashless"
    html = (page / "index.html").read_text()
    (page / "index.html").write_text(re.sub(html_pattern, "", html))
    doc = json.loads((page / "index.json").read_text())
    for f in doc["files"]:
        for field, value in json_fields.items():
            f.pop(field, None)
            if value is not None:
                f[field] = value
    (page / "index.json").write_text(json.dumps(doc))
    return site, site / "files" / "hashless"


def hashless_index(vwheel, tmp_path):
    """A simple index that lists no sha256 or size for its wheel (but serves its PEP 658 METADATA)."""
    return built_index(vwheel, tmp_path, r"#sha256=[0-9a-f]{64}", {"hashes": {}, "size": None})


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

        # The same file on the server: one HEAD request, no download, the same files installed. (A
        # find-links page's wheel has no PEP 658 METADATA: the first run read it with Range
        # requests and kept it; the one HEAD tells both the resolver and the download it is current.)
        ranges = range_gets(server)
        assert (ranges > 0) == (source == "find-links")
        second = new_venv(tmp_path, "second")
        r = install(second)
        assert r.rc == 0, r.err
        assert wheel_gets(server) == 1, server.requests
        assert len(server.hits(f"*/{WHEEL}", method="HEAD")) == 1, server.requests
        assert range_gets(server) == ranges, server.requests
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

        # Offline, the cached copy is installed as it is, with no request at all (a find-links
        # page's wheel resolved with the METADATA kept from the last read).
        requests = len(server.requests)
        offline = new_venv(tmp_path, "offline")
        r = install(offline, "--offline")
        assert r.rc == 0, r.err
        assert installed_name(offline) == "NAME = 'the second upload'\n"
        assert len(server.requests) == requests, server.requests[requests:]
        assert len(server.hits(f"*/{WHEEL}", method="HEAD")) == heads


def install_from_links(vwheel, server, cache, venv):
    """`vwheel install hashless` into `venv` from the server's find-links page; it must succeed."""
    r = vwheel("install", "-q", "--no-index", "--find-links", server.base + "/", "--cache-dir", cache,
               "--python", venv / "bin" / "python", "hashless")
    assert r.rc == 0, r.err


def test_a_server_without_validators_means_a_download_every_time(vwheel, tmp_path):
    # Nothing to ask the server with: no record is kept, and the wheel is downloaded each run.
    links = links_dir(tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(links, validators=False) as server:
        for n in range(2):
            install_from_links(vwheel, server, cache, new_venv(tmp_path, f"v{n}"))
            assert wheel_gets(server) == n + 1, server.requests
    assert not list((cache / "archives").glob("url-*/*.origin.json"))


def test_an_index_without_metadata_files_is_read_by_range_once(vwheel, tmp_path):
    # An index that lists sha256 digests but serves no PEP 658 `.metadata`: the first resolution
    # reads the wheel's METADATA with Range requests and keeps it by the wheel's digest (a file
    # with that digest never changes), so later runs ask nothing about the wheel, online or off.
    site, _ = built_index(vwheel, tmp_path, r' data-(dist-info|core)-metadata="[^"]*"',
                          {"core-metadata": None, "dist-info-metadata": None})
    for m in site.glob("files/**/*.metadata"):
        m.unlink()
    cache = tmp_path / "vwcache"
    with FaultServer(site) as server:
        def install(venv, *extra):
            return vwheel("install", "-q", "--index-url", server.base + "/simple/", "--cache-dir", cache,
                          "--python", venv / "bin" / "python", "hashless", *extra)

        r = install(new_venv(tmp_path, "first"))
        assert r.rc == 0, r.err
        ranges = range_gets(server)
        assert ranges > 0, server.requests
        assert not server.hits("*.metadata"), server.requests
        second = new_venv(tmp_path, "second")
        r = install(second)
        assert r.rc == 0, r.err
        assert range_gets(server) == ranges, server.requests
        assert not server.hits(f"*/{WHEEL}", method="HEAD"), server.requests
        assert installed_name(second) == "NAME = 'the first upload'\n"
        requests = len(server.requests)
        offline = new_venv(tmp_path, "offline")
        r = install(offline, "--offline")
        assert r.rc == 0, r.err
        assert installed_name(offline) == "NAME = 'the first upload'\n"
        assert len(server.requests) == requests, server.requests[requests:]

        # What was kept disagrees with the wheel (as when a server answered the Range requests from
        # another file): the install fails in one line and forgets it, and the next run reads it again.
        (kept,) = list(cache.glob("wheel-members/*/METADATA"))
        text = kept.read_bytes()
        kept.write_bytes(text.replace(b"\nName: ", b"\nRequires-Python: >=3\nName: ", 1))
        r = install(new_venv(tmp_path, "disagrees"))
        assert r.rc != 0 and len(r.err.strip().splitlines()) == 1 and "Requires-Python" in r.err, r.err
        assert not kept.exists()
        again = new_venv(tmp_path, "again")
        r = install(again)
        assert r.rc == 0, r.err
        assert installed_name(again) == "NAME = 'the first upload'\n"
        assert range_gets(server) > ranges and kept.read_bytes() == text


def test_a_server_refusing_head_is_asked_with_a_get_of_one_byte(vwheel, tmp_path):
    # Some object stores and proxies answer HEAD with 405 (S3's URLs signed for GET with 403): the
    # second install asks with a GET of the wheel's first byte instead, and downloads nothing.
    links = links_dir(tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(links, head=False) as server:
        for n in range(2):
            venv = new_venv(tmp_path, f"v{n}")
            install_from_links(vwheel, server, cache, venv)
            assert installed_name(venv) == "NAME = 'the first upload'\n"
            assert wheel_gets(server) == 1, server.requests
        assert [h[3] for h in server.hits(f"*/{WHEEL}", method="HEAD")] == [405]
        assert [h for h in server.hits(f"*/{WHEEL}", method="GET") if h[2] == "bytes=0-0"], server.requests


def lock_sha256(lock):
    """The sha256 and size the lock gives the wheel."""
    text = lock.read_text()
    sha = re.search(r'hashes = \{ *sha256 = "([0-9a-f]{64})" *\}', text)
    size = re.search(r"size = (\d+)", text)
    assert sha and size, text
    return sha.group(1), int(size.group(1))


@pytest.mark.parametrize("source", ["find-links", "index"])
def test_a_lock_hashes_the_wheels_its_index_gives_no_sha256_for(vwheel, tmp_path, source):
    # PEP 751 wants a hash for every wheel: as `pip lock` does, vwheel downloads the wheel and
    # hashes it; the download is recorded (ETag, Last-Modified) and kept under its sha256, so that
    # the next lock asks with one HEAD request and the sync of the lock downloads nothing.
    if source == "find-links":
        served = wheels = links_dir(tmp_path)
    else:
        served, wheels = hashless_index(vwheel, tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(served) as server:
        where = (["--no-index", "--find-links", server.base + "/"] if source == "find-links"
                 else ["--index-url", server.base + "/simple/"])

        def lock(out, *extra):
            return vwheel("lock", "-q", *where, "--cache-dir", cache, "--python", PY, "-o", out, "hashless", *extra)

        first = tmp_path / "first.toml"
        r = lock(first)
        assert r.rc == 0, r.err
        assert wheel_gets(server) == 1, server.requests
        data = (wheels / WHEEL).read_bytes()
        assert lock_sha256(first) == (hashlib.sha256(data).hexdigest(), len(data))

        # Again: one HEAD, nothing downloaded, the same lock.
        second = tmp_path / "second.toml"
        r = lock(second)
        assert r.rc == 0, r.err
        assert wheel_gets(server) == 1, server.requests
        assert len(server.hits(f"*/{WHEEL}", method="HEAD")) == 1, server.requests
        assert second.read_text() == first.read_text()

        # The sync of the lock installs the download the lock kept.
        venv = new_venv(tmp_path, "synced")
        r = vwheel("sync", first, "--python", venv / "bin" / "python", "--cache-dir", cache, "-q")
        assert r.rc == 0, r.err
        assert installed_name(venv) == "NAME = 'the first upload'\n"
        assert wheel_gets(server) == 1, server.requests

        # A re-upload under the same name: downloaded again, its own sha256 in the lock.
        replace_wheel(wheels, "NAME = 'the second upload'\n")
        third = tmp_path / "third.toml"
        r = lock(third)
        assert r.rc == 0, r.err
        assert wheel_gets(server) == 2, server.requests
        data = (wheels / WHEEL).read_bytes()
        assert lock_sha256(third) == (hashlib.sha256(data).hexdigest(), len(data))

        # Offline: what was recorded serves; without a record, one line says why there is no lock.
        requests = len(server.requests)
        r = lock(tmp_path / "offline.toml", "--offline")
        assert r.rc == 0, r.err
        assert lock_sha256(tmp_path / "offline.toml") == lock_sha256(third)
        for record in (cache / "archives").glob("url-*/*.origin.json"):
            record.unlink()
        r = lock(tmp_path / "none.toml", "--offline")
        assert r.rc != 0
        assert len(r.err.strip().splitlines()) == 1, r.err
        assert WHEEL in r.err and "sha256" in r.err and "--offline" in r.err, r.err
        assert not (tmp_path / "none.toml").exists()
        assert len(server.requests) == requests, server.requests[requests:]


def test_a_lock_that_cannot_download_a_wheel_to_hash_it_fails_in_one_line(vwheel, tmp_path):
    links = links_dir(tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(links) as server:
        server.fault(f"*/{WHEEL}", "404", full_only=True)
        out = tmp_path / "pylock.toml"
        r = vwheel("lock", "-q", "--no-index", "--find-links", server.base + "/", "--cache-dir", cache,
                   "--python", PY, "-o", out, "hashless")
        assert r.rc != 0
        assert len(r.err.strip().splitlines()) == 1, r.err
        assert WHEEL in r.err and "404" in r.err and "sha256" in r.err, r.err
        assert not out.exists()
        assert not list(cache.rglob("*.part")) and not list(cache.rglob("*.origin.json"))
