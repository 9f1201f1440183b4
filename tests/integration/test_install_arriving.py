"""A large wheel from an HTTP index is unpacked while it downloads (issue 17): its last bytes (the
central directory and the .dist-info) are fetched with a Range request first, and each member is
unpacked once its bytes have arrived. These tests prove the overlap without timing it (the server
holds the second half of the file until the test has seen members staged), and that every way
the overlap can go wrong (no range support, a tail that differs, a download dropped, corrupted or
failed, a bad member) ends as the same install would without it. Timings are in bench/."""
import ctypes
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
import zipfile
from pathlib import Path

import pytest

from faultserver import FaultServer
from test_install_large import b64, corrupt_the_middle, run_measured

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
MIB = 1 << 20
# Tagged for this platform, as the large wheels are: an index without sizes (HTML) has the end of
# those fetched first, not of wheels for any platform (pure Python, rarely large).
PLATFORM = sysconfig.get_platform().replace("-", "_").replace(".", "_")
WHEEL = f"arrive-1.0-py3-none-{PLATFORM}.whl"


def make_wheel(directory, members=48, size=MIB // 2, filename=WHEEL):
    """A 24 MiB wheel of incompressible stored and deflated members (above the 16 MiB the overlap
    starts at), the .dist-info last as wheel builders write it. Returns {name: bytes}."""
    tag = filename.removesuffix(".whl").split("-", 2)[2]
    rng = random.Random(17)
    files = {"arrive/__init__.py": b"VALUE = 1\n"}
    for i in range(members):
        files[f"arrive/m{i:03d}.bin"] = rng.randbytes(size)
    files["arrive-1.0.dist-info/METADATA"] = b"Metadata-Version: 2.1\nName: arrive\nVersion: 1.0\n"
    files["arrive-1.0.dist-info/WHEEL"] = f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: {tag}\n".encode()
    record = "".join(f"{n},sha256={b64(hashlib.sha256(d).digest())},{len(d)}\n" for n, d in files.items())
    record += "arrive-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(Path(directory) / filename, "w") as zf:
        for i, (name, data) in enumerate(files.items()):
            zf.writestr(name, data, compress_type=zipfile.ZIP_STORED if i % 2 else zipfile.ZIP_DEFLATED)
        zf.writestr("arrive-1.0.dist-info/RECORD", record)
    return files


@pytest.fixture
def index(vwheel, tmp_path):
    return build_index(vwheel, tmp_path)


def build_index(vwheel, tmp_path, corrupt=None, **wheel):
    """An index of make_wheel(**wheel), with `corrupt`'s deflate data damaged first (the index's
    hash is then of the damaged file). Returns (site, {name: bytes})."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    files = make_wheel(wheels, **wheel)
    if corrupt:
        corrupt_the_middle(wheels / WHEEL, corrupt)
    r = vwheel("index", "build", wheels, "-o", tmp_path / "site", "--quiet")
    assert r.rc == 0, r.err
    return tmp_path / "site", files


def new_venv(tmp_path, name="venv"):
    d = tmp_path / name
    subprocess.run([PY, "-m", "venv", "--without-pip", str(d)], check=True)
    return d


def site_packages(venv):
    return next((venv / "lib").glob("python3*/site-packages"))


def install(vwheel_bin, tmp_path, server, venv, cache=None, extra_env=None):
    args = ["install", "-q", "--no-deps", "--index-url", server.base + "/simple/", "--cache-dir",
            cache or tmp_path / "vwcache", "--python", venv / "bin" / "python", "--timeout", "20", "arrive"]
    return run_measured(vwheel_bin, args, tmp_path, extra_env=extra_env)


def assert_installed(venv, files):
    sp = site_packages(venv)
    for name, data in files.items():
        assert (sp / name).read_bytes() == data, name
    assert (sp / "arrive-1.0.dist-info" / "RECORD").is_file()


def tree(venv):
    return sorted(str(p.relative_to(venv)) for p in venv.rglob("*") if ".vwheel.lock" not in p.name)


def tail_requests(server):
    return [r for r in server.hits(f"*/{WHEEL}") if r[2] and r[2].startswith("bytes=-")]


def install_paused_halfway(vwheel_bin, tmp_path, server, venv, cache, look, extra_env=None):
    """Installs while the download (not the tail request) waits halfway until `look()` returns
    something, or 30 s have passed. Returns (rc, err, what look() returned)."""
    pause = server.fault(f"*/{WHEEL}", "pause", times=1, delay=60, full_only=True)
    seen = []

    def watch():
        pause.arrived.wait(60)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not seen:
            found = look()
            if found:
                seen.append(found)
            time.sleep(0.02)
        pause.release()

    watcher = threading.Thread(target=watch)
    watcher.start()
    rc, err, _ = install(vwheel_bin, tmp_path, server, venv, cache, extra_env)
    watcher.join()
    return rc, err, seen[0] if seen else None


def install_overlapping(vwheel_bin, tmp_path, server, venv):
    """Installs with the download paused halfway, released as soon as a member from its first half
    is staged; asserts that the install succeeded and that the member came before the download's end."""
    rc, err, staged = install_paused_halfway(
        vwheel_bin, tmp_path, server, venv, None,
        lambda: [p.name for p in site_packages(venv).glob(".vwheel-tmp-*/**/m000.bin")])
    assert rc == 0, err
    assert staged == ["m000.bin"], "no member was unpacked before the download finished"


def start_paused(vwheel_bin, tmp_path, server, venv, cache, member, extra_env=None):
    """Starts an install whose download waits halfway, and returns (process, pause) once `member`
    is staged. The caller releases the pause."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8",
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config"), **(extra_env or {})}
    pause = server.fault(f"*/{WHEEL}", "pause", times=1, delay=60, full_only=True)
    args = ["install", "-q", "--no-deps", "--index-url", server.base + "/simple/", "--cache-dir", cache,
            "--python", venv / "bin" / "python", "arrive"]
    proc = subprocess.Popen([str(vwheel_bin), *map(str, args)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert pause.arrived.wait(60), "the download never reached the pause"
        deadline = time.monotonic() + 60
        while not list(site_packages(venv).glob(f".vwheel-tmp-*/**/{member}")):
            assert proc.poll() is None and time.monotonic() < deadline, "no member was staged"
            time.sleep(0.02)
    except BaseException:
        pause.release()
        proc.kill()
        proc.communicate()
        raise
    return proc, pause


def test_members_are_unpacked_while_the_rest_downloads(vwheel_bin, tmp_path, index):
    site, files = index
    venv = new_venv(tmp_path)
    with FaultServer(site) as server:
        install_overlapping(vwheel_bin, tmp_path, server, venv)
        assert len(tail_requests(server)) == 1, server.requests
    assert_installed(venv, files)
    assert not list(site_packages(venv).glob(".vwheel-tmp-*"))


@pytest.mark.parametrize("sizes", [True, False], ids=["index-with-sizes", "index-without-sizes"])
def test_a_large_central_directory_and_dist_info_are_fetched_in_steps(vwheel, vwheel_bin, tmp_path, sizes):
    """A wheel of 5,000 members: its central directory and .dist-info (about 0.7 MB, as a torch
    wheel's 2 MB) outgrow the first 256 KiB fetched from its end (64 KiB when the index gives no
    size, whose answer then tells it). The tail grows by what the central directory says it lacks,
    the rest of the directory then the .dist-info, and by nothing more; the members are still
    unpacked while the rest downloads."""
    site, files = build_index(vwheel, tmp_path, members=5000, size=4096)
    if not sizes:
        html_only(site)
    first = (256 if sizes else 64) * 1024
    wheel = tmp_path / "wheels" / WHEEL
    size = wheel.stat().st_size
    with zipfile.ZipFile(wheel) as zf:
        directory = zf.start_dir
        metadata = zf.getinfo("arrive-1.0.dist-info/METADATA").header_offset
    assert size - directory > first and size >= 16 * MIB
    venv = new_venv(tmp_path)
    with FaultServer(site) as server:
        install_overlapping(vwheel_bin, tmp_path, server, venv)
        ranges = [r[2] for r in server.hits(f"*/{WHEEL}") if r[2]]
        assert ranges == [f"bytes=-{first}", f"bytes={directory}-{size - first - 1}",
                          f"bytes={metadata}-{directory - 1}"], server.requests
        assert len([r for r in server.hits(f"*/{WHEEL}") if not r[2]]) == 1, server.requests
    assert_installed(venv, files)
    assert not list(site_packages(venv).glob(".vwheel-tmp-*"))


def html_only(site):
    """The index as pages without sizes (HTML, as PyTorch's index serves): its JSON pages removed."""
    pages = list((site / "simple").rglob("index.json"))
    assert pages
    for page in pages:
        page.unlink()


def test_a_wheel_whose_index_gives_no_size_is_unpacked_while_it_arrives(vwheel_bin, tmp_path, index):
    """An HTML index gives no sizes: a shorter first request for the wheel's end tells its size
    (Content-Range), and the wheel, large enough, is unpacked while the rest downloads."""
    site, files = index
    html_only(site)
    assert (tmp_path / "wheels" / WHEEL).stat().st_size >= 16 * MIB
    venv = new_venv(tmp_path)
    with FaultServer(site) as server:
        install_overlapping(vwheel_bin, tmp_path, server, venv)
        ranges = [r[2] for r in server.hits(f"*/{WHEEL}") if r[2]]
        assert ranges == [f"bytes=-{64 * 1024}"], server.requests  # holds this wheel's directory and .dist-info
        assert len([r for r in server.hits(f"*/{WHEEL}") if not r[2]]) == 1, server.requests
    assert_installed(venv, files)
    assert not list(site_packages(venv).glob(".vwheel-tmp-*"))


def test_a_small_wheel_whose_index_gives_no_size_is_installed_the_ordinary_way(vwheel, vwheel_bin, tmp_path):
    """Below the size the overlap starts at, the answer to the first request for its end is all
    the wheel costs more: it is downloaded once, and installed."""
    site, files = build_index(vwheel, tmp_path, members=4, size=1024)
    html_only(site)
    venv = new_venv(tmp_path)
    with FaultServer(site) as server:
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv)
        assert rc == 0, err
        assert [r[2] for r in server.hits(f"*/{WHEEL}") if r[2]] == [f"bytes=-{64 * 1024}"], server.requests
        assert len([r for r in server.hits(f"*/{WHEEL}") if not r[2]]) == 1, server.requests
    assert_installed(venv, files)


def test_a_wheel_for_any_platform_whose_index_gives_no_size_costs_no_request_more(vwheel, vwheel_bin, tmp_path):
    """Pure Python (`-any.whl`) and no size: downloaded the ordinary way, without asking for its end
    first (an install of many small wheels from an HTML index would pay a request for each)."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    pure = "arrive-1.0-py3-none-any.whl"
    files = make_wheel(wheels, filename=pure)
    assert vwheel("index", "build", wheels, "-o", tmp_path / "site", "--quiet").rc == 0
    html_only(tmp_path / "site")
    venv = new_venv(tmp_path)
    with FaultServer(tmp_path / "site") as server:
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv)
        assert rc == 0, err
        assert [r[2] for r in server.hits(f"*/{pure}")] == [None], server.requests
    assert_installed(venv, files)


@pytest.mark.parametrize("mode", ["404", "corrupt"])
def test_a_tail_whose_growth_fails_gets_the_ordinary_install(vwheel, vwheel_bin, tmp_path, mode):
    """The request for the rest of a large central directory refused (404) or answered with wrong
    bytes: the wheel is downloaded and unpacked the ordinary way, and installed right."""
    site, files = build_index(vwheel, tmp_path, members=5000, size=4096)
    venv = new_venv(tmp_path)
    with FaultServer(site) as server:
        bad = server.fault(f"*/{WHEEL}", mode, times=1, offset_only=True)
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv)
        assert rc == 0, err
        assert bad.hits == 1 and len(tail_requests(server)) == 1, server.requests
        assert len([r for r in server.hits(f"*/{WHEEL}") if not r[2]]) == 1, server.requests
    assert_installed(venv, files)
    assert not list(site_packages(venv).glob(".vwheel-tmp-*"))


def test_a_server_without_ranges_gets_the_ordinary_install(vwheel_bin, tmp_path, index):
    site, files = index
    venv = new_venv(tmp_path)
    with FaultServer(site, ranges=False) as server:
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv)
        assert rc == 0, err
        # The tail request was answered with 200 and abandoned before its body: one full download.
        full = [r for r in server.hits(f"*/{WHEEL}") if r[3] == 200]
        assert len(full) == 2, server.requests
    assert_installed(venv, files)


def test_a_tail_that_differs_from_the_file_is_not_trusted(vwheel_bin, tmp_path, index):
    site, files = index
    venv = new_venv(tmp_path)
    with FaultServer(site) as server:
        # The range answer's second half is flipped; the download itself is right.
        bad = server.fault(f"*/{WHEEL}", "corrupt", times=1)
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv)
        assert rc == 0, err
        assert bad.hits == 1 and len(tail_requests(server)) == 1, server.requests
    assert_installed(venv, files)


@pytest.mark.parametrize("mode", ["drop", "corrupt"])
def test_a_download_resumed_or_restarted_midway(vwheel_bin, tmp_path, index, mode):
    # drop: the download resumes from where it stopped (the growing file goes on); corrupt: the
    # hash mismatch starts it again from nothing (what was unpacked from the old file is redone).
    site, files = index
    venv = new_venv(tmp_path)
    with FaultServer(site) as server:
        fault = server.fault(f"*/{WHEEL}", mode, times=1, full_only=True)
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv)
        assert rc == 0, err
        assert fault.hits == 1
        assert len(tail_requests(server)) == 1, server.requests  # the overlap was tried
    assert_installed(venv, files)


def test_a_download_that_fails_leaves_no_trace(vwheel_bin, tmp_path, index):
    site, _ = index
    venv = new_venv(tmp_path)
    before = tree(venv)
    cache = tmp_path / "vwcache"
    with FaultServer(site) as server:
        server.fault(f"*/{WHEEL}", "404", full_only=True)
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv, cache)
        assert len(tail_requests(server)) == 1, server.requests  # the overlap was tried
    assert rc != 0
    assert len(err.strip().splitlines()) == 1 and WHEEL in err and "404" in err, err
    assert tree(venv) == before
    left = [p.relative_to(cache) for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert not [p for p in left if p.parts[0] in ("unpacked", "archives")], left


def test_a_bad_member_fails_as_without_the_overlap(vwheel, vwheel_bin, tmp_path):
    # The index's hash is of the corrupt file: the download verifies, the member does not.
    site, _ = build_index(vwheel, tmp_path, corrupt="arrive/m010.bin")
    assert_fails_naming(vwheel_bin, tmp_path, site, "arrive/m010.bin")


def assert_fails_naming(vwheel_bin, tmp_path, site, member):
    """Installing from `site` fails with one line naming `member`, and leaves no trace."""
    venv = new_venv(tmp_path)
    before = tree(venv)
    cache = tmp_path / "vwcache"
    with FaultServer(site) as server:
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv, cache)
        assert len(tail_requests(server)) == 1, server.requests
    assert rc == 1, err
    assert len(err.strip().splitlines()) == 1 and WHEEL in err and member in err, err
    assert tree(venv) == before
    left = [p.relative_to(cache) for p in cache.rglob("*") if p.is_file()]
    assert not [p for p in left if p.parts[0] in ("unpacked", "archives")], left


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_members_wait_for_their_bytes(vwheel_bin, tmp_path, index, sig, code):
    # The unpacking waits for bytes the server holds back: a signal then stops it, the staging
    # goes, and the environment and the cache are as before.
    site, files = index
    venv = new_venv(tmp_path)
    before = tree(venv)
    cache = tmp_path / "vwcache"
    with FaultServer(site) as server:
        proc, pause = start_paused(vwheel_bin, tmp_path, server, venv, cache, "m000.bin")
        try:
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=60)
        finally:
            pause.release()
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == code, err
    assert err.strip().splitlines() == ["vwheel: interrupted; nothing was changed"], err
    assert tree(venv) == before
    left = [p.relative_to(cache) for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert not [p for p in left if p.parts[0] in ("unpacked", "archives")], left


def test_without_a_cache(vwheel_bin, tmp_path, index):
    site, files = index
    venv = new_venv(tmp_path)
    with FaultServer(site) as server:
        args = ["install", "-q", "--no-deps", "--no-cache", "--index-url", server.base + "/simple/",
                "--python", venv / "bin" / "python", "arrive"]
        rc, err, _ = run_measured(vwheel_bin, args, tmp_path)
        assert rc == 0, err
        assert len(tail_requests(server)) == 1, server.requests
    assert_installed(venv, files)


# Members of 1.5 MiB: above the 1 MiB from which an unpacked member is punched out of the download.
PUNCHED = 3 * MIB // 2


def part_file(cache):
    parts = list((cache / "archives").glob(f"*/{WHEEL}.part"))
    return parts[0] if parts else None


def test_large_members_are_punched_out_of_the_download_as_they_are_unpacked(vwheel, vwheel_bin, tmp_path):
    site, files = build_index(vwheel, tmp_path, members=16, size=PUNCHED)
    venv = new_venv(tmp_path)
    cache = tmp_path / "vwcache"

    def punched():
        # While the download waits halfway: the part file holds fewer blocks than bytes once the
        # first members are unpacked (their pages went back to the kernel).
        part = part_file(cache)
        st = part.stat() if part is not None else None
        return st and st.st_size > 4 * PUNCHED and st.st_blocks * 512 <= st.st_size - 2 * PUNCHED

    with FaultServer(site) as server:
        # Every byte written (VWHEEL_HOLD_MIB=0): bytes held in memory are never written, so there
        # is nothing to punch. (With the default budget this test passed only because the paused
        # download hit the stall timeout, and the attempt's end wrote what was held.)
        rc, err, seen = install_paused_halfway(vwheel_bin, tmp_path, server, venv, cache, punched,
                                               {"VWHEEL_HOLD_MIB": "0"})
        assert rc == 0, err
        assert seen, "no member was punched out of the download before it finished"
        base = server.base
    assert_installed(venv, files)
    # The download goes; the unpacked tree and its skeleton stay, and a warm install uses them.
    assert not list((cache / "archives").glob("*/*.whl*"))
    assert list((cache / "unpacked").glob("*/wheel-skeleton"))
    other = new_venv(tmp_path, "other")
    rc, err, _ = run_measured(vwheel_bin, ["install", "-q", "--no-deps", "--offline", "--index-url", base + "/simple/",
                                           "--cache-dir", cache, "--python", other / "bin" / "python", "arrive"],
                              tmp_path)
    assert rc == 0, err
    assert_installed(other, files)


def test_a_bad_member_after_punched_ones_leaves_no_trace(vwheel, vwheel_bin, tmp_path):
    # The members before the corrupt one were punched out of the download: it cannot be judged
    # again, so the arriving run's error stands, and the download leaves the cache.
    site, _ = build_index(vwheel, tmp_path, corrupt="arrive/m013.bin", members=16, size=PUNCHED)
    assert_fails_naming(vwheel_bin, tmp_path, site, "arrive/m013.bin")


def test_kept_archives_are_never_punched(vwheel, vwheel_bin, tmp_path):
    site, files = build_index(vwheel, tmp_path, members=16, size=PUNCHED)
    venv = new_venv(tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(site) as server:
        args = ["install", "-q", "--no-deps", "--keep-archives", "--index-url", server.base + "/simple/",
                "--cache-dir", cache, "--python", venv / "bin" / "python", "arrive"]
        rc, err, _ = run_measured(vwheel_bin, args, tmp_path)
        assert rc == 0, err
        assert len(tail_requests(server)) == 1, server.requests
    assert_installed(venv, files)
    kept = list((cache / "archives").glob(f"*/{WHEEL}"))
    assert len(kept) == 1
    assert kept[0].read_bytes() == (tmp_path / "wheels" / WHEEL).read_bytes()


def test_a_download_started_again_after_members_were_punched_out(vwheel, vwheel_bin, tmp_path):
    # The first download's bytes are corrupted on the way: members unpacked from it were punched
    # out of that part file, the hash mismatch starts the download again in a new one, and the
    # wheel is judged on the new, complete file.
    site, files = build_index(vwheel, tmp_path, members=16, size=PUNCHED)
    venv = new_venv(tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(site) as server:
        fault = server.fault(f"*/{WHEEL}", "corrupt", times=1, full_only=True)
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv, cache)
        assert rc == 0, err
        assert fault.hits == 1
        assert len(tail_requests(server)) == 1, server.requests
    assert_installed(venv, files)
    assert not list((cache / "archives").glob("*/*.whl*"))


def punch_hole(path, offset, length):
    """Gives back [offset, offset + length) of the file, as punch_out does; skips the test where the
    file system cannot."""
    fd = os.open(path, os.O_WRONLY)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        punch = 0x01 | 0x02  # FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE
        if libc.fallocate(fd, punch, ctypes.c_long(offset), ctypes.c_long(length)) != 0:
            pytest.skip(f"the file system of {path} cannot punch holes")
    finally:
        os.close(fd)


def test_a_cached_download_with_holes_is_downloaded_again(vwheel, vwheel_bin, tmp_path):
    # What a run killed after members were punched out of its download (and before it removed
    # the download) leaves in the archive cache: that file is not the verified wheel. Offline,
    # the error says so; online, it is downloaded again.
    site, files = build_index(vwheel, tmp_path, members=16, size=PUNCHED)
    cache = tmp_path / "vwcache"
    with FaultServer(site) as server:
        args = ["install", "-q", "--no-deps", "--keep-archives", "--index-url", server.base + "/simple/",
                "--cache-dir", cache]
        rc, err, _ = run_measured(vwheel_bin, args + ["--python", new_venv(tmp_path) / "bin" / "python", "arrive"],
                                  tmp_path)
        assert rc == 0, err
        (kept,) = list((cache / "archives").glob(f"*/{WHEEL}"))
        shutil.rmtree(cache / "unpacked")
        punch_hole(kept, MIB, 2 * MIB)
        before = len(server.hits(f"*/{WHEEL}"))
        # Offline, it cannot be installed: the error says why, in one line, and nothing is installed.
        offline = new_venv(tmp_path, "offline")
        untouched = tree(offline)
        rc, err, _ = run_measured(vwheel_bin, args + ["--offline", "--python", offline / "bin" / "python", "arrive"],
                                  tmp_path)
        assert rc == 1, err
        assert len(err.strip().splitlines()) == 1 and str(kept) in err and "holes" in err and "--offline" in err, err
        assert tree(offline) == untouched
        assert len(server.hits(f"*/{WHEEL}")) == before
        venv = new_venv(tmp_path, "again")
        rc, err, _ = run_measured(vwheel_bin, args + ["--python", venv / "bin" / "python", "arrive"], tmp_path)
        assert rc == 0, err
        assert len(server.hits(f"*/{WHEEL}")) > before, "the damaged download was trusted"
    assert_installed(venv, files)
    assert kept.read_bytes() == (tmp_path / "wheels" / WHEEL).read_bytes()


# The download held in memory until its members are unpacked (zip::Archive::read_once, default
# budget 128 MiB: every test above) and with the budget (VWHEEL_HOLD_MIB) too small for the
# members in flight, so that the writer also writes what a waiting reader needs, or what no reader
# gives back in time: the same tree either way. 0 holds nothing.
@pytest.mark.parametrize("budget", ["0", "1"])
def test_a_download_held_in_memory_within_any_budget(vwheel, vwheel_bin, tmp_path, budget):
    site, files = build_index(vwheel, tmp_path, members=24, size=PUNCHED)
    venv = new_venv(tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(site) as server:
        rc, err, seen = install_paused_halfway(
            vwheel_bin, tmp_path, server, venv, cache,
            lambda: list(site_packages(venv).glob(".vwheel-tmp-*/**/m002.bin")), {"VWHEEL_HOLD_MIB": budget})
        assert rc == 0, err
        assert seen, "no member was unpacked while the download waited"
    assert_installed(venv, files)
    assert not list((cache / "archives").glob("*/*.whl*"))


def has_holes(path):
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return size > 0 and os.lseek(f.fileno(), 0, os.SEEK_HOLE) < size


def test_a_run_killed_while_holding_the_download_leaves_a_part_file_that_is_not_resumed(vwheel, vwheel_bin, tmp_path):
    # kill -9 once members were unpacked from memory: the part file lacks their bytes (holes,
    # never written), and has later ones (a budget of 1 MiB: the writer wrote what a waiting
    # reader needed). The next run must not resume it (its hash would come out wrong after a
    # second full transfer) but start it afresh, and install the same tree.
    site, files = build_index(vwheel, tmp_path, members=24, size=PUNCHED)
    venv = new_venv(tmp_path)
    cache = tmp_path / "vwcache"
    with FaultServer(site) as server:
        proc, pause = start_paused(vwheel_bin, tmp_path, server, venv, cache, "m002.bin", {"VWHEEL_HOLD_MIB": "1"})
        try:
            proc.kill()
            proc.communicate(timeout=60)
        finally:
            pause.release()
        part = part_file(cache)
        assert part is not None, "the killed run left no part file"
        assert part.stat().st_size > 2 * MIB, part.stat()
        # Which bytes arrived before the unpacking asked to hold them is a race: where none of
        # the held ones left a hole, one is made where the first members were.
        if not has_holes(part):
            punch_hole(part, 0, MIB)
        assert has_holes(part)
        server.requests.clear()
        rc, err, _ = install(vwheel_bin, tmp_path, server, venv, cache)
        assert rc == 0, err
        resumed = [r for r in server.hits(f"*/{WHEEL}") if r[2] and not r[2].startswith("bytes=-")]
        assert not resumed, server.requests
    assert_installed(venv, files)
    assert not list((cache / "archives").glob("*/*.whl*"))
    assert not list(site_packages(venv).glob(".vwheel-tmp-*")), "the killed run's staging was not cleaned up"
