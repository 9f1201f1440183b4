"""`vwheel cache dir|info|clean|prune`: what the cache holds (space on disk, what is also linked
from environments), leftovers of interrupted runs pruned without touching what later runs reuse,
everything vwheel made cleaned (and nothing else), and the lock that makes a clean wait for the
runs using the cache, and runs wait for a clean."""
import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from faultserver import FaultServer

sys.path.insert(0, str(Path(__file__).parent))
from wheelfactory import make_wheel  # noqa: E402

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
WHEEL = "cached-1.0-py3-none-any.whl"


def new_venv(tmp_path, name):
    d = tmp_path / name
    subprocess.run([PY, "-m", "venv", "--without-pip", str(d)], check=True)
    return d


def module(venv):
    return (next((venv / "lib").glob("python3*/site-packages")) / "cached" / "__init__.py").read_text()


@pytest.fixture
def installed(vwheel, tmp_path):
    """A cache filled by one install from a find-links page without hashes: (server, cache, install)."""
    links = tmp_path / "links"
    links.mkdir()
    make_wheel(links, WHEEL, {"cached/__init__.py": b"VALUE = 'cached'\n" + b"# padding\n" * 2000})
    (links / "index.html").write_text(f'<a href="{WHEEL}">{WHEEL}</a>\n')
    cache = tmp_path / "vwcache"
    with FaultServer(links) as server:
        def install(venv, *extra):
            return vwheel("install", "-q", "--no-index", "--find-links", server.base + "/", "--cache-dir", cache,
                          "--python", venv / "bin" / "python", "cached", *extra)

        r = install(new_venv(tmp_path, "first"))
        assert r.rc == 0, r.err
        yield server, cache, install


def info(vwheel, cache):
    r = vwheel("cache", "info", "--cache-dir", cache, "--json")
    assert r.rc == 0, r.err
    doc = r.json()
    return doc, {a["name"]: a for a in doc["areas"]}


def holes_supported(directory):
    probe = directory / ".probe"
    with open(probe, "wb") as f:
        f.truncate(1 << 20)
        f.seek((1 << 20) - 1)
        f.write(b"x")
    fd = os.open(probe, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_HOLE) < (1 << 20)
    finally:
        os.close(fd)
        probe.unlink()


def test_dir_names_the_cache(vwheel, tmp_path):
    r = vwheel("cache", "dir")
    assert r.rc == 0 and r.out.strip() == str(tmp_path / "cache" / "vwheel"), (r.out, r.err)
    r = vwheel("cache", "dir", "--cache-dir", tmp_path / "elsewhere")
    assert r.out.strip() == str(tmp_path / "elsewhere")


def test_info_prune_and_clean(vwheel, tmp_path, installed):
    server, cache, install = installed
    doc, areas = info(vwheel, cache)
    assert doc["cache"] == str(cache)
    assert areas["unpacked"]["files"] > 0 and areas["unpacked"]["bytes"] > 0
    # The installed module is hard-linked from the unpacked tree: that space stays after a clean.
    assert areas["unpacked"]["shared_bytes"] > 0
    assert list((cache / "archives").glob(f"url-*/{WHEEL}.origin.json"))
    assert doc["prunable"]["files"] == 0
    assert doc["total"]["bytes"] >= sum(a["bytes"] for a in areas.values()) - 1
    text = vwheel("cache", "info", "--cache-dir", cache)
    assert text.rc == 0 and "unpacked" in text.out and "also linked from environments" in text.out, text.out

    # What interrupted runs leave behind, and what no run can use.
    sha = "ab" * 32
    leftovers = [cache / "archives" / sha / "other-1.0-py3-none-any.whl.part",
                 cache / "unpacked" / ".tmp-killed" / "0",
                 cache / "metadata" / ".0123.tmp-killed",  # write_file_atomic's, killed
                 next((cache / "unpacked").glob("[0-9a-f]*")) / ".wheel-skeleton-killed",
                 cache / "tmp" / "scratch-123" / "piece",
                 cache / ".trash-killedclean-http" / "page",
                 cache / "archives" / "url-gone" / "gone-1.0-py3-none-any.whl.origin.json"]
    for p in leftovers:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"x" * 5000)
    leftovers[-1].write_text(json.dumps({"url": "http://example.invalid/gone-1.0-py3-none-any.whl",
                                         "sha256": "cd" * 32, "size": 5, "etag": '"e"', "last_modified": ""}))
    if holes_supported(cache / "archives"):
        holed = cache / "archives" / ("ef" * 32) / "holed-1.0-py3-none-any.whl"
        holed.parent.mkdir()
        with open(holed, "wb") as f:
            f.truncate(1 << 20)
            f.seek((1 << 20) - 1)
            f.write(b"x")
        leftovers.append(holed)
    mine = cache / "mine" / "keep.txt"  # not vwheel's: never removed
    mine.parent.mkdir()
    mine.write_text("mine\n")

    doc, areas = info(vwheel, cache)
    assert doc["prunable"]["files"] == len(leftovers), doc
    assert areas["mine"]["what"] == "not made by vwheel"
    r = vwheel("cache", "prune", "--cache-dir", cache)
    assert r.rc == 0, r.err
    assert r.out.startswith("removed ") and f"({len(leftovers)} files) from {cache}" in r.out, r.out
    assert not any(p.exists() for p in leftovers), [p for p in leftovers if p.exists()]
    assert not (cache / "archives" / sha).exists()
    assert info(vwheel, cache)[0]["prunable"]["files"] == 0
    assert mine.exists()

    # What prune kept still serves: a warm install needs no download.
    gets = len([h for h in server.hits(f"*/{WHEEL}") if h[2] is None])
    second = new_venv(tmp_path, "second")
    r = install(second)
    assert r.rc == 0, r.err
    assert len([h for h in server.hits(f"*/{WHEEL}") if h[2] is None]) == gets, server.requests
    assert "VALUE = 'cached'" in module(second)

    # Clean: everything vwheel made goes; the environments keep their files; `mine` stays.
    r = vwheel("cache", "clean", "--cache-dir", cache)
    assert r.rc == 0, r.err
    assert r.out.startswith("removed ") and str(cache) in r.out, r.out
    assert sorted(p.name for p in cache.iterdir()) == [".lock", "mine"]
    assert "VALUE = 'cached'" in module(second)
    third = new_venv(tmp_path, "third")
    r = install(third)
    assert r.rc == 0, r.err
    assert len([h for h in server.hits(f"*/{WHEEL}") if h[2] is None]) == gets + 1, server.requests


def test_clean_waits_for_runs_using_the_cache_and_runs_wait_for_a_clean(vwheel_bin, tmp_path, installed):
    _, cache, _ = installed
    env = dict(os.environ, HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    with open(cache / ".lock", "rb") as held:
        fcntl.flock(held, fcntl.LOCK_SH)  # a run using the cache
        clean = subprocess.Popen([str(vwheel_bin), "cache", "clean", "--cache-dir", str(cache)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        assert clean.poll() is None, clean.communicate()
        assert (cache / "unpacked").exists()
        fcntl.flock(held, fcntl.LOCK_UN)
        out, err = clean.communicate(timeout=60)
        assert clean.returncode == 0, err
        assert "waiting for the vwheel runs using" in err, err
        assert not (cache / "unpacked").exists()

        fcntl.flock(held, fcntl.LOCK_EX)  # a clean in progress
        venv = new_venv(tmp_path, "waiting")
        links = tmp_path / "links"
        run = subprocess.Popen([str(vwheel_bin), "install", "-q", "--no-index", "--find-links", str(links),
                                "--cache-dir", str(cache), "--python", str(venv / "bin" / "python"), "cached"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        assert run.poll() is None, run.communicate()
        fcntl.flock(held, fcntl.LOCK_UN)
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
        assert "waiting for `vwheel cache clean` or `prune` to finish" in err, err
        assert "VALUE = 'cached'" in module(venv)


def test_a_cache_dir_that_is_a_file_is_one_line(vwheel, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    for sub in ("info", "clean", "prune"):
        r = vwheel("cache", sub, "--cache-dir", f)
        assert r.rc != 0, (sub, r.out)
        assert len(r.err.strip().splitlines()) == 1 and str(f) in r.err and "not a directory" in r.err, r.err
    assert f.read_text() == "x"


def test_clean_of_named_projects_removes_only_theirs(vwheel, tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    other = "Other_Pkg-2.0-py3-none-any.whl"
    make_wheel(links, WHEEL, {"cached/__init__.py": b"VALUE = 'cached'\n"})
    make_wheel(links, other, {"other_pkg/__init__.py": b"VALUE = 'other'\n"})
    (links / "index.html").write_text("".join(f'<a href="{w}">{w}</a>\n' for w in (WHEEL, other)))
    cache = tmp_path / "vwcache"
    with FaultServer(links) as server:
        def install(venv, project):
            r = vwheel("install", "-q", "--no-index", "--find-links", server.base + "/", "--cache-dir", cache,
                       "--python", venv / "bin" / "python", project)
            assert r.rc == 0, r.err

        def gets(wheel):
            return len([h for h in server.hits(f"*/{wheel}") if h[2] is None])

        install(new_venv(tmp_path, "first"), "cached")
        install(new_venv(tmp_path, "second"), "other-pkg")
        assert len(list((cache / "unpacked").iterdir())) == 2
        assert gets(WHEEL) == 1 and gets(other) == 1

        r = vwheel("cache", "clean", "--cache-dir", cache, "other.pkg", "nothing-here", "OTHER-pkg")
        assert r.rc == 0, r.err
        lines = r.out.splitlines()
        assert len(lines) == 2, r.out
        assert lines[0].startswith("other.pkg: removed ") and lines[0].endswith(f" from {cache}"), r.out
        assert lines[1] == f"nothing-here: nothing cached in {cache}", r.out
        assert len(list((cache / "unpacked").iterdir())) == 1
        assert not list((cache / "archives").glob(f"url-*/{other}.origin.json"))
        assert list((cache / "archives").glob(f"url-*/{WHEEL}.origin.json"))
        assert not [p for p in cache.iterdir() if p.name.startswith(".trash-")]

        # The project kept still installs from the cache; the one cleaned is downloaded again.
        third = new_venv(tmp_path, "third")
        install(third, "cached")
        assert gets(WHEEL) == 1 and "VALUE = 'cached'" in module(third)
        install(new_venv(tmp_path, "fourth"), "other-pkg")
        assert gets(other) == 2

        before = sorted(str(p) for p in cache.rglob("*"))
        r = vwheel("cache", "clean", "--cache-dir", cache, "cached", "bad name!")
        assert r.rc != 0 and r.out == "", (r.out, r.err)
        assert len(r.err.strip().splitlines()) == 1 and "bad name!: not a valid project name" in r.err, r.err
        assert sorted(str(p) for p in cache.rglob("*")) == before
