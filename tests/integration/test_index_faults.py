"""`vwheel install` from the example index through faultserver.py (dropped connections, 500s,
truncated bodies, wrong bytes, slow answers, a held wheel): what the installer reports, its retries,
a cache never poisoned, warm and offline installs asking nothing, wheels unpacked while others
download, and interrupted installs that change nothing."""
import hashlib
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import _bin
from example_site import CUDA, PY, assert_installed, example, install, listed, make_venv, tree, wheel_file
from example_site import venv  # noqa: F401 (a fixture)
from faultserver import FaultServer
from served import clean_env, start_serve


# ---- downloads through the fault server ----

@pytest.fixture
def faulty(example_index):
    with FaultServer(example_index / "site") as s:
        yield s


CU128_PATH = "/files/torch/" + wheel_file("torch", "cu128")


def fault_install(vwheel, server, python, cache, *extra):
    return vwheel("install", "torch", "--index-url", server.base + "/simple/", "--python", python,
                  "--target", CUDA, "--cache-dir", cache, "--retries", "2", "--timeout", "2", *extra)


def bad_copies(example_index, wheel):
    """Bytes a faulty server sent for `wheel` that must never be cached: halves and corrupted copies."""
    data = (example_index / "wheels" / wheel).read_bytes()
    half = len(data) // 2
    return data, {data[:half], data[:half] + bytes(b ^ 0xFF for b in data[half:])}


def check_cache(cache, example_index, finished=True):
    """The cache holds no bad file: no truncated or corrupted copy of any wheel anywhere; a file named
    like an index wheel holds exactly that wheel; a whole wheel stored under a path naming a wheel's
    sha256 (64 hex digits) has that sha256; no `*.part` next to cached wheels (none at all once an
    install has finished)."""
    wheels = {p.name: p.read_bytes() for p in (example_index / "wheels").glob("*.whl")}
    hashes = {hashlib.sha256(d).hexdigest() for d in wheels.values()}
    bad = set()
    for name in wheels:
        bad |= bad_copies(example_index, name)[1]
    if not Path(cache).exists():
        return
    wheel_dirs = set()
    for p in Path(cache).rglob("*"):
        if not p.is_file() or p.is_symlink():
            continue
        data = p.read_bytes()
        assert data not in bad, f"{p}: a truncated or corrupted download was cached"
        if p.name in wheels:
            assert data == wheels[p.name], f"{p}: not the index's {p.name}"
            wheel_dirs.add(p.parent)
        if data[:4] == b"PK\x03\x04":
            digest = hashlib.sha256(data).hexdigest()
            for part in p.parts:
                if part in hashes:
                    assert digest == part, f"{p}: stored under sha256 {part} but its sha256 is {digest}"
        if finished:
            assert not p.name.endswith(".part"), f"{p}: a partial download left after a finished install"
    for d in wheel_dirs:
        assert not list(d.glob("*.part")), f"partial downloads left in {d}"


FAULT_SEEN = {
    "drop": "Recv failure: Connection reset by peer",
    "500": "HTTP 500 Internal Server Error",
    "503": "HTTP 503 Service Unavailable",
    "truncate": "transfer closed with 801 bytes remaining to read",
    "slow": "stalled: nothing received for 2 s",
    "stall": "stalled: nothing received for 2 s",
}


@pytest.mark.parametrize("mode", sorted(FAULT_SEEN) + ["corrupt"])
def test_each_fault_reaches_the_installer(vwheel, faulty, venv, tmp_path, example_index, mode):
    """Without retries, each fault of the fault server is what the installer reports (so the retry
    tests below retry real faults); a corrupted copy fails its hash check and is fetched again
    (even with --retries 0: the hash check's own second fetch)."""
    f = faulty.fault(CU128_PATH, mode, times=1, delay=6)
    before = tree(venv)
    r = vwheel("install", "torch", "--index-url", faulty.base + "/simple/", "--python", venv,
               "--target", CUDA, "--cache-dir", tmp_path / "dlcache", "--retries", "0", "--timeout", "2")
    assert f.hits == 1
    if mode == "corrupt":
        assert r.rc == 0, (r.out, r.err)
        assert len(faulty.hits(CU128_PATH)) == 2, faulty.requests
        assert listed(vwheel, venv)["torch"]["variant"] == "cu128"
    else:
        assert r.rc == 1, (r.out, r.err)
        assert r.err.splitlines()[-1] == (f"vwheel: error: {faulty.base}{CU128_PATH}: {FAULT_SEEN[mode]} "
                                          "(gave up after 1 attempt)"), r.err
        assert len(faulty.hits(CU128_PATH)) == 1, faulty.requests
        assert tree(venv) == before
    check_cache(tmp_path / "dlcache", example_index, finished=mode == "corrupt")


@pytest.mark.parametrize("mode", ["drop", "500", "503", "truncate", "corrupt", "slow", "stall"])
def test_retries_then_success(vwheel, faulty, venv, tmp_path, example_index, mode):
    cache = tmp_path / "dlcache"
    f = faulty.fault(CU128_PATH, mode, times=1 if mode in ("slow", "stall", "corrupt") else 2, delay=6)
    r = fault_install(vwheel, faulty, venv, cache)
    assert r.rc == 0, (r.out, r.err)
    assert f.hits == f.times
    assert len(faulty.hits(CU128_PATH)) >= f.times + 1
    assert listed(vwheel, venv)["torch"]["variant"] == "cu128"
    check_cache(cache, example_index)


@pytest.mark.parametrize("path,must", [("/simple/torch/", True), ("/simple/sympy/", True),
                                        ("/files/torch/torch-2.13.0-variants.json", False),
                                        ("/files/torch/" + wheel_file("torch", "cu128") + ".metadata", False)])
def test_retries_on_pages_and_dependencies(vwheel, faulty, venv, tmp_path, example_index, path, must):
    f = faulty.fault(path, "500", times=2)
    dep = faulty.fault("*/" + wheel_file("numpy", "null"), "drop", times=1)
    r = fault_install(vwheel, faulty, venv, tmp_path / "dlcache")
    assert r.rc == 0, (r.out, r.err)
    assert dep.hits == 1
    if must:
        assert f.hits == 2
    assert_installed(vwheel, venv, example.EXPECTED["cuda12.8-sm90"])
    check_cache(tmp_path / "dlcache", example_index)


@pytest.mark.parametrize("mode", ["drop", "500", "truncate", "corrupt", "slow"])
def test_persistent_failure_changes_nothing(vwheel, faulty, venv, tmp_path, example_index, mode):
    # Something installed already, so "unchanged" is not just "empty".
    assert vwheel("install", "--find-links", example_index / "wheels", "filelock==3.12.0", "--python", venv).rc == 0
    before_list = vwheel("list", "--json", "--python", venv).out
    before = tree(venv)
    cache = tmp_path / "dlcache"
    faulty.fault(CU128_PATH, mode, times=None, delay=30)
    start = time.monotonic()
    r = fault_install(vwheel, faulty, venv, cache)
    assert r.rc == 1, (r.out, r.err)
    # Without a terminal, each finished download is a plain "Downloaded ..." line; the error is
    # one line, the last.
    lines = r.err.splitlines()
    assert lines and lines[-1].startswith("vwheel: error: "), r.err
    assert all(l.startswith("Downloaded ") for l in lines[:-1]), r.err
    assert wheel_file("torch", "cu128") in r.err or CU128_PATH in r.err, r.err
    assert "installed " not in r.out
    assert time.monotonic() - start < 60
    assert len(faulty.hits(CU128_PATH)) >= 2, faulty.requests  # retried
    assert vwheel("list", "--json", "--python", venv).out == before_list
    assert tree(venv) == before
    check_cache(cache, example_index, finished=False)
    # The cache is not poisoned: without the fault the same command succeeds.
    faulty.clear()
    r = fault_install(vwheel, faulty, venv, cache)
    assert r.rc == 0, r.err
    assert listed(vwheel, venv)["torch"]["variant"] == "cu128"
    check_cache(cache, example_index)


def test_persistent_page_failure(vwheel, faulty, venv, tmp_path):
    before = tree(venv)
    faulty.fault("/simple/sympy/", "500")
    r = fault_install(vwheel, faulty, venv, tmp_path / "dlcache")
    assert r.rc == 1, (r.out, r.err)
    assert r.err.startswith("vwheel: error: ") and r.err.count("\n") == 1 and "sympy" in r.err, r.err
    assert tree(venv) == before


def test_warm_cache_and_offline(vwheel, faulty, venv, tmp_path, example_index):
    cache = tmp_path / "dlcache"
    assert fault_install(vwheel, faulty, venv, cache).rc == 0
    check_cache(cache, example_index)
    venv2 = make_venv(vwheel, tmp_path / "venv2")
    faulty.clear()
    # Every wheel is cached: a second install downloads no wheel again.
    r = fault_install(vwheel, faulty, venv2, cache)
    assert r.rc == 0, r.err
    assert not [q for q in faulty.requests if q[1].endswith(".whl")], faulty.requests
    assert listed(vwheel, venv2).keys() == listed(vwheel, venv).keys()
    # --offline: no request at all.
    venv3 = make_venv(vwheel, tmp_path / "venv3")
    faulty.clear()
    r = fault_install(vwheel, faulty, venv3, cache, "--offline")
    assert r.rc == 0, r.err
    assert faulty.requests == []
    assert listed(vwheel, venv3)["torch"]["variant"] == "cu128"


# ---- caching and overlapping downloads with unpacking ----

def served_requests(served, settle=0.3):
    """The request lines `vwheel index serve --verbose` logged so far."""
    time.sleep(settle)  # the server logs after answering
    return [l for l in served.log.read_text().splitlines() if '"GET ' in l or '"HEAD ' in l]


def test_warm_install_asks_nothing_and_loads_no_libcurl(vwheel, index, tmp_path):
    # `vwheel index serve` lets clients reuse pages for 600 s and wheels/metadata for good; a warm
    # run then needs no request, so it never loads libcurl (LD_DEBUG=files lists what ld.so loads).
    trace = {"LD_DEBUG": "files"}
    r = install(vwheel, index, make_venv(vwheel, tmp_path / "v1"), "torch", "--target", CUDA, env=trace)
    assert r.rc == 0, r.err
    assert "libcurl.so.4" in r.err  # the check below can see it
    before = served_requests(index)
    r = install(vwheel, index, make_venv(vwheel, tmp_path / "v2"), "torch", "--target", CUDA, env=trace)
    assert r.rc == 0, r.err
    assert "libcurl" not in r.err
    assert served_requests(index) == before
    assert_installed(vwheel, tmp_path / "v2" / "bin" / "python", example.EXPECTED["cuda12.8-sm90"])
    # --refresh asks for every page again (answered 304: nothing changed).
    r = install(vwheel, index, make_venv(vwheel, tmp_path / "v3"), "torch", "--target", CUDA, "--refresh")
    assert r.rc == 0, r.err
    asked = served_requests(index)[len(before):]
    assert any('"GET /simple/torch/ ' in l and '" 304 ' in l for l in asked), asked
    assert not any(".whl " in l for l in asked), asked  # wheels and metadata stay cached by hash


def test_without_libcurl_the_first_request_says_so(vwheel, index, tmp_path):
    # A libcurl.so.4 that ld.so finds first (LD_LIBRARY_PATH) but cannot load stands for a machine
    # without libcurl4. Loading it early (install and lock start the load while they query the
    # interpreter) reports nothing by itself: the first request fails with the one line it always did.
    fake = tmp_path / "fakelib"
    fake.mkdir()
    (fake / "libcurl.so.4").write_bytes(b"not a shared library\n")
    env = {"LD_LIBRARY_PATH": str(fake)}
    venv = make_venv(vwheel, tmp_path / "venv")
    expected = re.compile(r"vwheel: error: cannot load libcurl\.so\.4 \(.*libcurl\.so\.4: .+\): install the libcurl4 package")
    r = install(vwheel, index, venv, "torch", "--target", CUDA, env=env)
    assert r.rc != 0
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert expected.fullmatch(r.err.strip()), r.err
    assert listed(vwheel, venv) == {}
    lock = tmp_path / "pylock.toml"
    r = vwheel("lock", "torch", "--index-url", index.index_url, "--python", PY, "-o", lock, env=env)
    assert r.rc != 0
    assert expected.fullmatch(r.err.strip()), r.err
    assert not lock.exists()
    # sync starts the load too when the lock's wheels are not downloaded yet.
    r = vwheel("lock", "torch", "--index-url", index.index_url, "--python", PY, "-o", lock)
    assert r.rc == 0, r.err
    # (sync's first request reads a wheel's METADATA, to tell the lock's nv-lib entries apart: the
    # error names the lock it was reading)
    r = vwheel("sync", lock, "--python", venv, "--target", CUDA, env=env)
    assert r.rc != 0
    assert re.fullmatch(r"vwheel: error: .*pylock\.toml: cannot load libcurl\.so\.4 \(.*libcurl\.so\.4: .+\): "
                        r"install the libcurl4 package", r.err.strip()), r.err
    assert listed(vwheel, venv) == {}


def test_index_serve_cache_control(example_index, tmp_path):
    import http.client

    def headers(served, path):
        c = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        try:
            c.request("GET", path)
            resp = c.getresponse()
            resp.read()
            return resp.status, resp.getheader("Cache-Control")
        finally:
            c.close()

    wheel = "/files/torch/" + wheel_file("torch", "cu128")
    variants_json = f"/files/torch/torch-{example.VERSIONS['torch']}-variants.json"
    served = start_serve(tmp_path, example_index / "site")
    try:
        assert headers(served, "/simple/") == (200, "max-age=600, public")
        assert headers(served, "/simple/torch/") == (200, "max-age=600, public")
        assert headers(served, variants_json) == (200, "max-age=600, public")
        assert headers(served, wheel) == (200, "max-age=31536000, immutable, public")
        assert headers(served, wheel + ".metadata") == (200, "max-age=31536000, immutable, public")
    finally:
        served.stop()
    served = start_serve(tmp_path, "--max-age", "0", example_index / "site", log_name="serve-0.log")
    try:
        assert headers(served, "/simple/torch/") == (200, "no-cache")
        assert headers(served, wheel) == (200, "max-age=31536000, immutable, public")
    finally:
        served.stop()


def test_wheels_are_unpacked_while_others_download(vwheel, faulty, venv, tmp_path):
    # The server holds torch's wheel until the test lets it go: meanwhile every other wheel,
    # already downloaded, must be checked and unpacked into the staging directory, and nothing may
    # be moved into place before torch is in. No time window: the test waits for the staging, looks,
    # then releases torch.
    hold = faulty.fault(CU128_PATH, "hold", times=1, delay=120)
    site = next(Path(venv).parents[1].glob("lib/python3*/site-packages"))
    others = {f"{example.dist_name(p)}-{example.VERSIONS[p]}.dist-info"
              for p in example.EXPECTED["cuda12.8-sm90"]["installed"] if p != "torch"}
    proc = subprocess.Popen([str(_bin()), "install", "torch", "--index-url", faulty.base + "/simple/", "--python",
                             str(venv), "--target", str(CUDA), "--cache-dir", str(tmp_path / "dlcache"), "--timeout", "150"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(tmp_path))

    def listing(pattern):
        try:
            return {p.name for p in site.glob(pattern)}
        except FileNotFoundError:  # a staging directory went away while listed
            return set()

    try:
        assert hold.arrived.wait(60), "torch's wheel was never requested"
        deadline = time.monotonic() + 60  # a guard against a hang, not a measurement
        staged = set()
        while not others <= staged and proc.poll() is None and time.monotonic() < deadline:
            staged = {n for n in listing(".vwheel-tmp-*/*-purelib/*") if n.endswith(".dist-info")}
            time.sleep(0.02)
        # torch is still held here, whatever the machine's speed.
        assert proc.poll() is None, "the installer finished without torch's wheel"
        assert others <= staged, (others - staged, staged)
        assert not any(n.startswith("torch") for n in staged), staged
        assert not listing("numpy*") | listing("nvidia_cudnn_cu12*") | listing("*.dist-info"), "moved into place early"
    finally:
        hold.release()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert listed(vwheel, venv)["torch"]["variant"] == "cu128"
    assert not list(site.glob(".vwheel-tmp-*"))


def test_extra_index_404_and_index_priority(vwheel, index, example_index, tmp_path):
    # Index A holds only torch's null-variant and non-variant wheels; the example index (B, given
    # with --extra-index-url) holds everything. A answers 404 for the other projects, which then
    # come from B; torch's variants come from A alone (the first source with compatible variants),
    # never merged with B's cu128, even for a CUDA machine.
    import shutil
    wheels = tmp_path / "a-wheels"
    wheels.mkdir()
    for label in ("null", None):
        shutil.copy(example_index / "wheels" / wheel_file("torch", label), wheels)
    r = vwheel("index", "build", wheels, "-o", tmp_path / "a-site", "--quiet")
    assert r.rc == 0, r.err
    venv = make_venv(vwheel, tmp_path / "venv")
    with FaultServer(tmp_path / "a-site") as a:
        r = vwheel("install", "torch", "--index-url", a.base + "/simple/", "--extra-index-url", index.index_url,
                   "--target", CUDA, "--python", venv, "--explain")
        assert r.rc == 0, r.err
        assert ("GET", "/simple/filelock/", None, 404) in a.requests, a.requests
    got = listed(vwheel, venv)
    assert got["torch"]["variant"] == "null", got["torch"]
    assert set(example.EXPECTED["cuda12.8-sm90"]["installed"]) - {"nvidia-cudnn-cu12", "nvidia-cublas-cu12"} <= set(got)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_interrupted_install_changes_nothing_and_leaves_no_staging(vwheel, faulty, venv, tmp_path, sig):
    # Interrupted while torch still downloads and the others are staged: nothing is in place.
    # SIGINT: the run stops its download and removes its staging itself (exit 130). SIGKILL (no
    # chance to clean up): the next run, holding the environment lock, removes the staging.
    faulty.fault(CU128_PATH, "slow", times=1, delay=30)
    site = next(Path(venv).parents[1].glob("lib/python3*/site-packages"))
    before = tree(venv)
    proc = subprocess.Popen([str(_bin()), "install", "torch", "--index-url", faulty.base + "/simple/", "--python",
                             str(venv), "--target", str(CUDA), "--cache-dir", str(tmp_path / "dlcache"), "--timeout", "60"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=clean_env(tmp_path))
    deadline = time.monotonic() + 25
    while time.monotonic() < deadline and not list(site.glob(".vwheel-tmp-*/*-purelib/numpy")):
        time.sleep(0.05)
    if not list(site.glob(".vwheel-tmp-*/*-purelib/numpy")):
        # Interrupting now would test nothing about staging: the run never reached it.
        proc.kill()
        proc.wait()
        pytest.fail("the install staged nothing within 25 s (numpy never appeared in a .vwheel-tmp-* staging dir)")
    proc.send_signal(sig)
    rc = proc.wait(timeout=20)
    left = list(site.glob(".vwheel-tmp-*"))
    if sig == signal.SIGINT:
        assert rc == 130, rc
        assert not left, left
        assert tree(venv) == before
    else:
        assert left, "the killed run left no staging directory (the test interrupted too late?)"
        assert {k: v for k, v in tree(venv).items() if ".vwheel-tmp-" not in k} == before
    faulty.clear()
    r = fault_install(vwheel, faulty, venv, tmp_path / "dlcache")
    assert r.rc == 0, r.err
    assert not list(site.glob(".vwheel-tmp-*"))
    assert listed(vwheel, venv)["torch"]["variant"] == "cu128"
