"""The cache keeps one copy of a downloaded wheel (issue 17): its unpacked files, hard-linked into
environments, and a skeleton of the archive (the .dist-info and the central directory, the rest a
hole) to plan the next install from; the download itself goes once the wheel is installed, unless
`--keep-archives`. A warm install then needs no network, and a cached file edited through a hard
link makes the wheel download again rather than spread."""
import hashlib
import random
import os
import zipfile
from pathlib import Path

import pytest

from faultserver import FaultServer
from served import clean_env
from test_install_arriving import WHEEL, assert_installed, index, new_venv, site_packages  # noqa: F401 (a fixture)
from test_install_large import b64

MIB = 1 << 20


def wheel_bytes(tmp_path):
    """The bytes of the wheel the `index` fixture (test_install_arriving's) serves."""
    return (tmp_path / "wheels" / WHEEL).read_bytes()


def install(vwheel, tmp_path, base, venv, *extra):
    """Installs `arrive` from the index at `base` (a FaultServer's, or the URL of one that has
    stopped, with --offline: the pages come from the HTTP cache)."""
    if not isinstance(base, str):
        base = base.base
    return vwheel("install", "--no-deps", "--index-url", base + "/simple/", "--cache-dir", tmp_path / "vwcache", "--python",
                  venv / "bin" / "python", "--timeout", "20", "arrive", *extra, env=clean_env(tmp_path))


def downloads(server):
    """Full GETs of the wheel (not the Range request for its last bytes)."""
    return [r for r in server.hits(f"*/{WHEEL}") if not (r[2] and r[2].startswith("bytes=-"))]


def cached_wheels(tmp_path):
    return sorted(p.name for p in (tmp_path / "vwcache").glob("archives/*/*") if p.is_file())


def entry(tmp_path, data):
    return tmp_path / "vwcache" / "unpacked" / hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("ranges", [True, False], ids=["while-downloading", "after-download"])
def test_one_copy_is_cached_and_a_warm_install_needs_no_network(vwheel, tmp_path, index, ranges):
    site, files = index
    data = wheel_bytes(tmp_path)
    with FaultServer(site, ranges=ranges) as server:
        r = install(vwheel, tmp_path, server, new_venv(tmp_path, "a"))
        assert r.rc == 0, r.err
        assert len(downloads(server)) == 1, server.requests
        assert cached_wheels(tmp_path) == []  # the download went once its tree was cached
        # Planned from the skeleton, linked from the tree: the wheel is not asked for again...
        r = install(vwheel, tmp_path, server, new_venv(tmp_path, "b"))
        assert r.rc == 0 and "from cache" in r.out, (r.out, r.err)
        assert len(downloads(server)) == 1, server.requests
        base = server.base
    assert_installed(tmp_path / "a", files)
    assert_installed(tmp_path / "b", files)
    # ... nor is anything, once the server has gone.
    r = install(vwheel, tmp_path, base, new_venv(tmp_path, "c"), "--offline")
    assert r.rc == 0 and "from cache" in r.out, (r.out, r.err)
    assert_installed(tmp_path / "c", files)
    skeleton = entry(tmp_path, data) / "wheel-skeleton"
    st = skeleton.stat()
    assert st.st_size == len(data)
    assert st.st_blocks * 512 < MIB, st  # a hole where the 24 MiB of members were
    with zipfile.ZipFile(skeleton) as z:
        assert z.read("arrive-1.0.dist-info/METADATA") == files["arrive-1.0.dist-info/METADATA"]
        assert len(z.namelist()) == len(files) + 1


def test_keep_archives_keeps_the_download_and_a_later_run_drops_it(vwheel, tmp_path, index):
    site, files = index
    data = wheel_bytes(tmp_path)
    with FaultServer(site) as server:
        r = install(vwheel, tmp_path, server, new_venv(tmp_path, "a"), "--keep-archives")
        assert r.rc == 0, r.err
        assert cached_wheels(tmp_path) == [WHEEL]
        (kept,) = (tmp_path / "vwcache").glob(f"archives/*/{WHEEL}")
        assert kept.read_bytes() == data
        # A run without the flag (or an older cache, which has no skeletons) converts the entry.
        r = install(vwheel, tmp_path, server, new_venv(tmp_path, "b"))
        assert r.rc == 0 and "from cache" in r.out, (r.out, r.err)
        assert len(downloads(server)) == 1, server.requests
        base = server.base
    assert cached_wheels(tmp_path) == []
    assert (entry(tmp_path, data) / "wheel-skeleton").is_file()
    r = install(vwheel, tmp_path, base, new_venv(tmp_path, "c"), "--offline")
    assert r.rc == 0 and "from cache" in r.out, (r.out, r.err)
    assert_installed(tmp_path / "c", files)


def test_a_cached_file_edited_through_a_hard_link_makes_the_wheel_download_again(vwheel, tmp_path, index):
    site, files = index
    data = wheel_bytes(tmp_path)
    with FaultServer(site) as server:
        a = new_venv(tmp_path, "a")
        r = install(vwheel, tmp_path, server, a, "--link-mode", "hardlink")
        assert r.rc == 0, r.err
        edited = site_packages(a) / "arrive" / "m001.bin"
        assert edited.stat().st_nlink >= 2  # shared with the cache
        with open(edited, "r+b") as out:  # in place, as an editor that does not replace the file
            out.write(b"EDITED")
        # Offline, the entry cannot stand in for the archive any more: one line, nothing installed.
        b = new_venv(tmp_path, "b")
        r = install(vwheel, tmp_path, server, b, "--offline")
        assert r.rc != 0 and len(r.err.strip().splitlines()) == 1 and WHEEL in r.err, r.err
        assert not (site_packages(b) / "arrive").exists()
        # Online, it downloads again, and the new venv (and the cache) get the original bytes.
        r = install(vwheel, tmp_path, server, b, "--link-mode", "hardlink")
        assert r.rc == 0 and "from cache" not in r.out, (r.out, r.err)
        assert len(downloads(server)) == 2, server.requests
        base = server.base
    assert_installed(b, files)
    c = new_venv(tmp_path, "c")
    r = install(vwheel, tmp_path, base, c, "--offline")
    assert r.rc == 0 and "from cache" in r.out, (r.out, r.err)
    assert_installed(c, files)


def test_a_damaged_skeleton_makes_the_wheel_download_again(vwheel, tmp_path, index):
    site, files = index
    data = wheel_bytes(tmp_path)
    with FaultServer(site) as server:
        r = install(vwheel, tmp_path, server, new_venv(tmp_path, "a"))
        assert r.rc == 0, r.err
        skeleton = entry(tmp_path, data) / "wheel-skeleton"
        os.truncate(skeleton, 1000)
        b = new_venv(tmp_path, "b")
        r = install(vwheel, tmp_path, server, b)
        assert r.rc == 0 and "from cache" not in r.out, (r.out, r.err)
        assert len(downloads(server)) == 2, server.requests
        assert_installed(b, files)
        # A byte flipped in METADATA (its CRC-32 no longer matches): the same.
        raw = bytearray(skeleton.read_bytes())
        at = raw.index(b"Name: arrive")
        raw[at] ^= 0x20
        skeleton.write_bytes(bytes(raw))
        r = install(vwheel, tmp_path, server, new_venv(tmp_path, "c"))
        assert r.rc == 0 and "from cache" not in r.out, (r.out, r.err)
        assert len(downloads(server)) == 3, server.requests
    assert_installed(tmp_path / "c", files)
    assert skeleton.stat().st_size == len(data)


@pytest.mark.parametrize("ranges", [True, False], ids=["while-downloading", "after-download"])
def test_no_cache_downloads_to_a_folder_of_its_own_and_leaves_nothing(vwheel, tmp_path, index, ranges):
    # As pip's --no-cache-dir: the download goes to $TMPDIR, never to the cache, and is gone after.
    site, files = index
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    venv = new_venv(tmp_path, "a")
    with FaultServer(site, ranges=ranges) as server:
        r = vwheel("install", "--no-deps", "--no-cache", "--index-url", server.base + "/simple/", "--cache-dir",
                   tmp_path / "vwcache", "--python", venv / "bin" / "python", "arrive",
                   env={**clean_env(tmp_path), "TMPDIR": str(tmp)})
        assert r.rc == 0, r.err
        assert len(downloads(server)) == 1, server.requests
    assert_installed(venv, files)
    cache = tmp_path / "vwcache"
    assert not cache.exists() or not [p for p in cache.rglob("*") if p.is_file()], list(cache.rglob("*"))
    assert list(tmp.iterdir()) == []


def big_wheel(directory, name, requires=(), members=40, seed=0):
    """A wheel of about 20 MiB (above the 16 MiB from which a download is unpacked while it
    arrives) of incompressible members, the .dist-info last. Returns {path: bytes}."""
    rng = random.Random(seed)
    files = {f"{name}/__init__.py": b"VALUE = 1\n"}
    for i in range(members):
        files[f"{name}/lib{i:03d}.so"] = rng.randbytes(MIB // 2)
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n" + "".join(f"Requires-Dist: {r}\n" for r in requires)
    files[f"{name}-1.0.dist-info/METADATA"] = meta.encode()
    files[f"{name}-1.0.dist-info/WHEEL"] = b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n"
    record = "".join(f"{n},sha256={b64(hashlib.sha256(d).digest())},{len(d)}\n" for n, d in files.items())
    record += f"{name}-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(Path(directory) / f"{name}-1.0-py3-none-any.whl", "w") as zf:
        for i, (path, data) in enumerate(files.items()):
            zf.writestr(path, data, compress_type=zipfile.ZIP_STORED if i % 2 else zipfile.ZIP_DEFLATED)
        zf.writestr(f"{name}-1.0.dist-info/RECORD", record)
    return files


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_several_large_wheels_arriving_at_once(vwheel, tmp_path, jobs):
    # torch's shape: a large wheel requiring other large ones, all downloading together, each
    # unpacked while it arrives by a pool of `jobs` workers shared by all of them.
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    libs = [f"nvlib{c}" for c in "abc"]
    files = {}
    for i, name in enumerate(libs):
        files.update(big_wheel(wheels, name, seed=i + 1))
    files.update(big_wheel(wheels, "top", requires=libs, seed=9))
    r = vwheel("index", "build", wheels, "-o", tmp_path / "site", "--quiet")
    assert r.rc == 0, r.err
    venv = new_venv(tmp_path, "a")
    with FaultServer(tmp_path / "site") as server:
        r = vwheel("install", "--index-url", server.base + "/simple/", "--cache-dir", tmp_path / "vwcache",
                   "--python", venv / "bin" / "python", "--jobs", jobs, "top", env=clean_env(tmp_path))
        assert r.rc == 0, r.err
        tails = [q for q in server.requests if q[2] and q[2].startswith("bytes=-")]
        assert len(tails) == 4, server.requests  # every one was unpacked while it arrived
    sp = site_packages(venv)
    for path, data in files.items():
        assert (sp / path).read_bytes() == data, path
    assert cached_wheels(tmp_path) == []
    assert len(list((tmp_path / "vwcache").glob("unpacked/*/wheel-skeleton"))) == 4
