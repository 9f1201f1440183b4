"""Small checks that each close a gap: `vwheel sync` checks every file against the `size` its lock
gives (PEP 751), wherever the file comes from."""
import functools
import hashlib
import re
import http.server
import threading

import pytest

from conftest import ROOT
from example_site import make_venv, tree
from wheelfactory import make_wheel

NO_GPU = ROOT / "examples" / "profiles" / "no-gpu.json"  # Linux, Python 3.12


@pytest.fixture
def wheel(tmp_path):
    d = tmp_path / "wheels"
    d.mkdir()
    return make_wheel(d, "app-1.0-py3-none-any.whl")


@pytest.fixture
def venv(vwheel, tmp_path):
    return make_venv(vwheel, tmp_path / "venv")


@pytest.fixture
def http_dir(wheel):
    """The wheel's folder served over HTTP on 127.0.0.1 (no index: the lock names the file's URL)."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(wheel.parent))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def write_lock(tmp_path, wheel, where, size):
    data = wheel.read_bytes()
    path = tmp_path / "pylock.toml"
    path.write_text('lock-version = "1.0"\ncreated-by = "hand"\n\n[[packages]]\nname = "app"\nversion = "1.0"\n'
                    f'wheels = [{{ name = "{wheel.name}", {where}, size = {size}, '
                    f'hashes = {{ sha256 = "{hashlib.sha256(data).hexdigest()}" }} }}]\n')
    return path


def location(kind, wheel, http_dir):
    return {"path": f'path = "{wheel}"',
            "file": f'url = "file://{wheel}"',
            "http": f'url = "{http_dir}/{wheel.name}"'}[kind]


def assert_names(line, lock, claimed, actual):
    """The refusal names the lock entry, the size the lock gives and the size of the file."""
    assert f"{lock} packages[0].wheels[0]: " in line, line
    assert re.search(rf"\b{claimed}\b", line) and re.search(rf"\b{actual}\b", line), line


@pytest.mark.parametrize("kind", ["path", "file", "http"])
def test_sync_refuses_a_file_of_another_size_than_the_lock_gives(vwheel, wheel, venv, tmp_path, http_dir, kind):
    actual = wheel.stat().st_size
    lock = write_lock(tmp_path, wheel, location(kind, wheel, http_dir), actual + 1)
    before = tree(venv)
    r = vwheel("sync", lock, "--python", venv, "--target", NO_GPU)
    assert r.rc == 1, (r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert_names(lines[0], lock, actual + 1, actual)
    assert tree(venv) == before


@pytest.mark.parametrize("kind", ["file", "http"])
def test_a_cached_download_is_checked_against_the_size_too(vwheel, wheel, venv, tmp_path, http_dir, kind):
    """The first sync downloads the file into the cache (by its sha256); the second, from a lock
    with the same hash but another size, must not take the cached copy unchecked."""
    actual = wheel.stat().st_size
    where = location(kind, wheel, http_dir)
    first = make_venv(vwheel, tmp_path / "first")
    r = vwheel("sync", write_lock(tmp_path, wheel, where, actual), "--python", first, "--target", NO_GPU)
    assert r.rc == 0, r.err
    before = tree(venv)
    lock = write_lock(tmp_path, wheel, where, actual - 1)
    r = vwheel("sync", lock, "--python", venv, "--target", NO_GPU)
    assert r.rc == 1, (r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert_names(lines[0], lock, actual - 1, actual)
    assert tree(venv) == before


def test_install_no_deps_from_an_index_warns_of_what_it_breaks(vwheel, tmp_path):
    """`vwheel install REQ --no-deps` installs what breaks a kept distribution's requirement, as the
    wheel-file form does, and says so in the same words."""
    import sys
    sys.path.insert(0, str(ROOT / "examples"))
    import make_example_index as example
    links = tmp_path / "links"
    links.mkdir()
    example.plain_wheel(links, "a", "1.0", ["b<2"], "non-variant")
    for version in ("1.0", "2.0"):
        example.plain_wheel(links, "b", version, [], "non-variant")
    venv = make_venv(vwheel, tmp_path / "venv")
    src = ["--no-index", "--find-links", links, "--python", venv]
    r = vwheel("install", "a", *src)
    assert r.rc == 0, r.err
    r = vwheel("install", "b==2.0", "--no-deps", *src)
    assert r.rc == 0, r.err
    assert ("vwheel: warning: a 1.0 requires b<2, but this run would install b 2.0; installing it anyway "
            "(--no-deps)") in r.err, r.err
