"""Credentials in URLs (`--index-url http://alice:s3cret@host/simple/`, a lock's `url`): used for
every request to that host, never written to disk (the lock, the HTTP cache) and never shown (an
error shows `alice:****@`, as pip does). The index is a small site from `vwheel index build`
served by a web server that answers 401 to any request without the right Basic credentials."""
import base64
import functools
import http.server
import os
import re
import socket
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from wheelfactory import make_wheel  # noqa: E402

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
USER, PASSWORD = "alice", "s3cret"
WHEEL = "secretpkg-1.0-py3-none-any.whl"


class _AuthHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site only to requests with USER:PASSWORD (Basic); records who asked without."""

    expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()

    def _authorized(self):
        if self.headers.get("Authorization") == self.expected:
            return True
        self.server.refused.append(self.path)
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="test"')
        self.send_header("Content-Length", "0")
        self.end_headers()
        return False

    def do_GET(self):  # noqa: N802 (http.server's naming)
        if self._authorized():
            super().do_GET()

    def do_HEAD(self):  # noqa: N802
        if self._authorized():
            super().do_HEAD()

    def log_message(self, *args):
        pass


class AuthServer:
    def __init__(self, root):
        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(_AuthHandler, directory=str(root)))
        self.httpd.refused = []
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path="simple/", auth=True):
        userinfo = f"{USER}:{PASSWORD}@" if auth else ""
        return f"http://{userinfo}127.0.0.1:{self.port}/{path}"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(vwheel, tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, WHEEL, {"secretpkg/__init__.py": b"VALUE = 'secret'\n"})
    site = tmp_path / "site"
    r = vwheel("index", "build", wheels, "-o", site)
    assert r.rc == 0, r.err
    s = AuthServer(site)
    yield s
    s.stop()


@pytest.fixture
def venv(vwheel, tmp_path):
    r = vwheel("venv", tmp_path / "venv", "--python", PY)
    assert r.rc == 0, r.err
    return tmp_path / "venv" / "bin" / "python"


def files_with_password(root):
    """Every file under `root` whose bytes hold the password."""
    found = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            if not path.is_symlink() and PASSWORD.encode() in path.read_bytes():
                found.append(path)
    return found


def installed_value(tmp_path):
    init = next((tmp_path / "venv" / "lib").glob("python3*/site-packages")) / "secretpkg" / "__init__.py"
    return init.read_text()


def assert_redacted(r):
    """The run failed, and its output names the URL with `****`, never the password."""
    assert r.rc != 0, r.out + r.err
    assert PASSWORD not in r.out + r.err
    assert f"{USER}:****@127.0.0.1" in r.err, r.err


def test_lock_and_cache_hold_no_password_and_install_still_authenticates(vwheel, server, venv, tmp_path):
    cache = tmp_path / "cache-dir"
    lock = tmp_path / "pylock.toml"
    r = vwheel("lock", "secretpkg", "--index-url", server.url(), "--cache-dir", cache, "-o", lock)
    assert r.rc == 0, r.err
    assert PASSWORD not in r.out + r.err
    text = lock.read_text()
    assert f"url = \"http://127.0.0.1:{server.port}/" in text, text
    assert f"index = \"http://127.0.0.1:{server.port}/simple/\"" in text, text
    assert files_with_password(tmp_path / "cache-dir") == []
    assert files_with_password(tmp_path / "cache") == []  # XDG_CACHE_HOME, not used
    # Every request (pages, the wheel's metadata, the wheel) was sent with the credentials.
    assert server.httpd.refused == []

    report = tmp_path / "report.json"
    r = vwheel("install", "secretpkg", "--index-url", server.url(), "--cache-dir", cache, "--python", venv,
               "--report", report, "--explain")
    assert r.rc == 0, r.err
    assert installed_value(tmp_path) == "VALUE = 'secret'\n"
    assert PASSWORD not in r.out + r.err
    assert PASSWORD not in report.read_text()
    assert files_with_password(cache) == []
    assert files_with_password(tmp_path / "venv") == []
    assert server.httpd.refused == []


def closed_port():
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_index_errors_do_not_show_the_password(vwheel, venv):
    closed = closed_port()
    r = vwheel("install", "secretpkg", "--index-url", f"http://{USER}:{PASSWORD}@127.0.0.1:{closed}/simple/",
               "--python", venv, "--retries", "0")
    assert_redacted(r)


@pytest.fixture
def locked(vwheel, server, tmp_path):
    """A lock of secretpkg whose wheel `url` holds USER:PASSWORD (as a hand-written lock may)."""
    lock = tmp_path / "pylock.toml"
    r = vwheel("lock", "secretpkg", "--index-url", server.url(), "-o", lock)
    assert r.rc == 0, r.err
    # (A build that wrote the credentials into the lock: the same lock as one that did not.)
    text = lock.read_text().replace(f"{USER}:{PASSWORD}@", "")
    plain = f"url = \"http://127.0.0.1:{server.port}/"
    assert plain in text, text
    return lock, text.replace(plain, f"url = \"http://{USER}:{PASSWORD}@127.0.0.1:{server.port}/")


def test_sync_with_credentials_in_the_lock_url(vwheel, server, venv, locked, tmp_path):
    lock, text = locked
    lock.write_text(text)
    r = vwheel("sync", lock, "--python", venv, "--cache-dir", tmp_path / "sync-cache")
    assert r.rc == 0, r.err
    assert installed_value(tmp_path) == "VALUE = 'secret'\n"
    assert PASSWORD not in r.out + r.err
    assert files_with_password(tmp_path / "sync-cache") == []
    assert files_with_password(tmp_path / "venv") == []
    assert server.httpd.refused == []


@pytest.mark.parametrize("fault", ["404", "hash", "refused"])
def test_sync_errors_do_not_show_the_password(vwheel, server, venv, locked, tmp_path, fault):
    lock, text = locked
    if fault == "404":
        text = text.replace(f"@127.0.0.1:{server.port}/", f"@127.0.0.1:{server.port}/gone/")
    elif fault == "hash":
        text = re.sub(r'sha256 = "[0-9a-f]{64}"', 'sha256 = "' + "0" * 64 + '"', text)
    else:
        text = text.replace(f"@127.0.0.1:{server.port}/", f"@127.0.0.1:{closed_port()}/")
    assert text != locked[1]
    lock.write_text(text)
    r = vwheel("sync", lock, "--python", venv, "--cache-dir", tmp_path / "sync-cache", "--retries", "0")
    assert_redacted(r)
