"""`vwheel index serve`: the real binary serving a folder of wheels (indexed on start and after
each upload) or a built SITE, talked to by a real pip, curl, twine and raw sockets."""
import base64
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from served import raw, raw_status, serve, wait_closed  # noqa: F401 (serve: a fixture)
from wheelfactory import make_wheel

PYTHON = Path("/usr/bin/python3")
TWINE = Path("/usr/bin/twine")
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
SCHEMA = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
TOKEN = "pypi-test-token-0123456789"


def variant_doc(label, level):
    return {"$schema": SCHEMA, "default-priorities": {"namespace": ["x86_64"]},
            "variants": {label: {"x86_64": {"level": [level]}}}}


def curl(url, *headers, method=None):
    args = ["curl", "-sS", "-D", "-", "-o", "-"]
    if method == "HEAD":
        args += ["-I"]
    for h in headers:
        args += ["-H", h]
    out = subprocess.run(args + [url], capture_output=True, check=True, timeout=30).stdout.decode()
    head, _, body = out.partition("\r\n\r\n")
    status = int(head.split()[1])
    fields = {}
    for line in head.split("\r\n")[1:]:
        k, _, v = line.partition(":")
        fields[k.strip().lower()] = v.strip()
    return status, fields, body


def snapshot(*dirs):
    """Every file below `dirs`: size, mtime and content hash."""
    out = {}
    for d in dirs:
        for p in sorted(Path(d).rglob("*")):
            if p.is_file():
                st = p.stat()
                out[str(p)] = (st.st_size, st.st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            else:
                out[str(p)] = "dir"
    return out


def pip_install(tmp_path, base, target, *packages):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "pip-home"), "PIP_CONFIG_FILE": os.devnull,
           "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LANG": "C.UTF-8"}
    return subprocess.run([str(PYTHON), "-m", "pip", "install", "--no-cache-dir", "--index-url", base + "/simple/",
                           "--target", str(target), *packages], capture_output=True, text=True, env=env, timeout=300)


def http_errors(r):
    """The `HTTPError: ...` lines of twine's output, colours and padding removed."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", r.stdout + r.stderr)
    return [line[line.index("HTTPError: "):].rstrip() for line in text.splitlines() if "HTTPError: " in line]


def twine_upload(tmp_path, base, password, *files):
    env = dict(os.environ, HOME=str(tmp_path / "twine-home"), TWINE_NON_INTERACTIVE="1")
    env.pop("TWINE_USERNAME", None)
    env.pop("TWINE_PASSWORD", None)
    return subprocess.run([str(TWINE), "upload", "--disable-progress-bar", "--repository-url", base + "/",
                           "-u", "__token__", "-p", password, *map(str, files)],
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def wheels(tmp_path):
    d = tmp_path / "wheels"
    d.mkdir()
    make_wheel(d, "mixed_pkg-1.0-py3-none-any.whl", {"mixed_pkg/__init__.py": b"KIND = 'plain'\n"})
    make_wheel(d, "mixed_pkg-1.0-py3-none-any-v3.whl", {"mixed_pkg/__init__.py": b"KIND = 'variant'\n"},
               variant_json=variant_doc("v3", "v3"))
    make_wheel(d, "onlyvariant-2.0-py3-none-any-v3.whl", variant_json=variant_doc("v3", "v3"))
    return d


# ---- start, stop, the one line ----

@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_prints_one_line_and_stops_cleanly(serve, wheels, sig):
    s = serve("--wheels", wheels)
    assert s.line == f"Serving {wheels / '.vwheel-site'} on http://127.0.0.1:{s.port}/simple/\n"
    assert curl(s.base + "/simple/")[0] == 200
    start = time.time()
    assert s.stop(sig) == 0
    assert time.time() - start < 10
    assert s.proc.stdout.read() == ""  # nothing after the one line
    log = s.log.read_text()
    assert '"GET /simple/ HTTP/1.1" 200' in log, log


def test_refuses_bad_arguments(vwheel, wheels, tmp_path):
    r = vwheel("index", "serve", "--port", "0", str(tmp_path / "missing"))
    assert r.rc != 0 and "missing" in r.err
    r = vwheel("index", "serve", "--port", "0")
    assert r.rc != 0
    r = vwheel("index", "serve", "--port", "0", "--upload-token", "x", str(tmp_path))
    assert r.rc != 0
    r = vwheel("index", "serve", "--port", "0", "--wheels", str(wheels), "--max-upload-size", "lots")
    assert r.rc != 0 and "--max-upload-size" in r.err


# ---- pip and curl against a folder of wheels ----

def test_pip_installs_the_non_variant_wheel(serve, wheels, tmp_path):
    if not PYTHON.exists():
        pytest.skip(f"{PYTHON} not found")
    s = serve("--wheels", wheels)
    target = tmp_path / "target"
    r = pip_install(tmp_path, s.base, target, "mixed-pkg")
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(p.name for p in target.glob("*.dist-info")) == ["mixed_pkg-1.0.dist-info"]
    assert not (target / "mixed_pkg-1.0.dist-info/variant.json").exists()
    assert (target / "mixed_pkg/__init__.py").read_text() == "KIND = 'plain'\n"
    log = s.log.read_text()
    assert '"GET /simple/mixed-pkg/ HTTP/1.1" 200' in log, log
    assert "GET /files/mixed-pkg/mixed_pkg-1.0-py3-none-any.whl HTTP/1.1" in log, log
    assert "-v3.whl HTTP" not in log


def test_pip_finds_nothing_when_only_variant_wheels_exist(serve, wheels, tmp_path):
    if not PYTHON.exists():
        pytest.skip(f"{PYTHON} not found")
    s = serve("--wheels", wheels)
    target = tmp_path / "target2"
    r = pip_install(tmp_path, s.base, target, "onlyvariant")
    assert r.returncode != 0
    assert "No matching distribution found for onlyvariant" in r.stdout + r.stderr, r.stdout + r.stderr
    assert not target.exists() or not list(target.glob("*.dist-info"))


def test_curl_gets_pep691_json_and_html(serve, wheels):
    s = serve("--wheels", wheels)
    status, headers, body = curl(s.base + "/simple/mixed-pkg/", f"Accept: {JSON_TYPE}")
    assert status == 200
    assert headers["content-type"] == JSON_TYPE
    assert headers["vary"] == "Accept"
    assert headers["etag"].startswith('"')
    page = json.loads(body)
    assert page["meta"]["api-version"].startswith("1.")
    assert page["name"] == "mixed-pkg"
    names = {f["filename"] for f in page["files"]}
    assert {"mixed_pkg-1.0-py3-none-any.whl", "mixed_pkg-1.0-py3-none-any-v3.whl"} <= names
    for f in page["files"]:
        assert set(f) >= {"filename", "url", "hashes"}
    status, headers, body = curl(s.base + "/simple/", "Accept: application/vnd.pypi.simple.latest+json")
    assert headers["content-type"] == JSON_TYPE
    assert {p["name"] for p in json.loads(body)["projects"]} == {"mixed-pkg", "onlyvariant"}

    status, headers, body = curl(s.base + "/simple/mixed-pkg/")
    assert status == 200 and headers["content-type"].startswith("text/html") and "mixed_pkg-1.0-variants.json" in body
    status, headers, _ = curl(s.base + "/simple/mixed-pkg/", "Accept: application/vnd.pypi.simple.v1+html")
    assert headers["content-type"] == "application/vnd.pypi.simple.v1+html"
    assert curl(s.base + "/simple/mixed-pkg/", "Accept: image/png")[0] == 406
    status, headers, _ = curl(s.base + "/simple/mixed-pkg")
    assert status == 301 and headers["location"] == "/simple/mixed-pkg/"
    status, headers, _ = curl(s.base + "/simple/Mixed_Pkg/")
    assert status == 301 and headers["location"] == "/simple/mixed-pkg/"

    # The variants file, metadata, validators and ranges.
    status, headers, body = curl(s.base + "/files/mixed-pkg/mixed_pkg-1.0-variants.json")
    assert status == 200 and headers["content-type"] == "application/json" and "v3" in json.loads(body)["variants"]
    wheel_url = s.base + "/files/mixed-pkg/mixed_pkg-1.0-py3-none-any.whl"
    data = (wheels / "mixed_pkg-1.0-py3-none-any.whl").read_bytes()
    status, headers, _ = curl(wheel_url, method="HEAD")
    assert status == 200 and int(headers["content-length"]) == len(data)
    assert headers["content-type"] == "application/octet-stream" and headers["accept-ranges"] == "bytes"
    assert curl(wheel_url, f"If-None-Match: {headers['etag']}")[0] == 304
    out = subprocess.run(["curl", "-sS", "-r", "10-19", wheel_url], capture_output=True, check=True).stdout
    assert out == data[10:20]
    status, headers, _ = curl(wheel_url, "Range: bytes=100000000-")
    assert status == 416 and headers["content-range"] == f"bytes */{len(data)}"
    status, _, body = curl(s.base + "/files/mixed-pkg/mixed_pkg-1.0-py3-none-any.whl.metadata")
    assert status == 200 and body.startswith("Metadata-Version: 2.1\n")
    assert curl(s.base + "/.vwheel/state.json")[0] == 404


# ---- uploads with twine ----

def test_twine_upload_appears_in_the_index(serve, wheels, tmp_path):
    if not TWINE.exists():
        pytest.skip(f"{TWINE} not found")
    s = serve("--wheels", wheels, "--upload-token", TOKEN)
    dist = tmp_path / "dist"
    dist.mkdir()
    plain = make_wheel(dist, "newpkg-0.1-py3-none-any.whl")
    r = twine_upload(tmp_path, s.base, TOKEN, plain)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (wheels / plain.name).read_bytes() == plain.read_bytes()
    status, _, body = curl(s.base + "/simple/newpkg/", f"Accept: {JSON_TYPE}")
    assert status == 200 and [f["filename"] for f in json.loads(body)["files"]] == [plain.name]
    assert plain.name in curl(s.base + "/simple/newpkg/")[2]
    assert "newpkg" in curl(s.base + "/simple/")[2]

    # A variant wheel of the same version: the regenerated variants file lists it.
    variant = make_wheel(dist, "newpkg-0.1-py3-none-any-v4.whl", variant_json=variant_doc("v4", "v4"))
    r = twine_upload(tmp_path, s.base, TOKEN, variant)
    assert r.returncode == 0, r.stdout + r.stderr
    status, _, body = curl(s.base + "/files/newpkg/newpkg-0.1-variants.json")
    assert status == 200, body
    assert json.loads(body)["variants"]["v4"] == {"x86_64": {"level": ["v4"]}}
    assert "newpkg-0.1-variants.json" in curl(s.base + "/simple/newpkg/")[2]
    another = make_wheel(dist, "newpkg-0.1-cp312-none-any-v3.whl", variant_json=variant_doc("v3", "v3"))
    r = twine_upload(tmp_path, s.base, TOKEN, another)
    assert r.returncode == 0, r.stdout + r.stderr
    assert set(json.loads(curl(s.base + "/files/newpkg/newpkg-0.1-variants.json")[2])["variants"]) == {"v3", "v4"}

    # The same file again: refused, nothing changes.
    before = snapshot(wheels)
    r = twine_upload(tmp_path, s.base, TOKEN, plain)
    assert r.returncode != 0
    assert http_errors(r) == [f"HTTPError: 409 Conflict from {s.base}/"], r.stdout + r.stderr
    assert snapshot(wheels) == before


def test_twine_upload_of_a_conflicting_variant_changes_nothing(serve, wheels, tmp_path):
    if not TWINE.exists():
        pytest.skip(f"{TWINE} not found")
    s = serve("--wheels", wheels, "--upload-token", TOKEN)
    dist = tmp_path / "dist"
    dist.mkdir()
    # Label v3 already means x86_64 :: level :: v3 for mixed_pkg 1.0.
    conflict = make_wheel(dist, "mixed_pkg-1.0-cp312-none-any-v3.whl", variant_json=variant_doc("v3", "v4"))
    before = snapshot(wheels)
    r = twine_upload(tmp_path, s.base, TOKEN, conflict)
    assert r.returncode != 0
    assert http_errors(r) == [f"HTTPError: 400 Bad Request from {s.base}/"], r.stdout + r.stderr
    assert snapshot(wheels) == before


def test_twine_with_a_wrong_token_changes_nothing(serve, wheels, tmp_path):
    if not TWINE.exists():
        pytest.skip(f"{TWINE} not found")
    s = serve("--wheels", wheels, "--upload-token", TOKEN)
    dist = tmp_path / "dist"
    dist.mkdir()
    plain = make_wheel(dist, "newpkg-0.1-py3-none-any.whl")
    before = snapshot(wheels)
    r = twine_upload(tmp_path, s.base, "not-the-token", plain)
    assert r.returncode != 0
    assert http_errors(r) == [f"HTTPError: 403 Forbidden from {s.base}/"], r.stdout + r.stderr
    assert snapshot(wheels) == before
    assert curl(s.base + "/simple/newpkg/")[0] == 404


def test_uploads_are_off_without_a_token(serve, wheels, tmp_path):
    s = serve("--wheels", wheels)
    body = b"--b--\r\n"
    response = raw(s.port, b"POST /legacy/ HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                           b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    assert raw_status(response) == 405


# ---- hostile requests ----

def test_hostile_requests_get_4xx_and_change_nothing(serve, wheels, tmp_path):
    s = serve("--wheels", wheels, "--upload-token", TOKEN)
    site = wheels / ".vwheel-site"
    before = snapshot(wheels)
    auth = b"Authorization: Basic " + base64.b64encode(f"__token__:{TOKEN}".encode()) + b"\r\n"

    def get(target, extra=b""):
        return raw(s.port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n" + extra + b"Connection: close\r\n\r\n")

    for target in (b"/simple/../../etc/passwd", b"/%2e%2e%2f%2e%2e%2fetc/passwd", b"/simple/%2e%2e/%2e%2e/etc/passwd",
                   b"/files/..%2f..%2f..%2fetc%2fpasswd", b"/.vwheel/state.json", b"/%2Evwheel-site/",
                   b"/files/mixed-pkg/..\\..\\..\\etc\\passwd", b"/simple/%00/", b"../etc/passwd"):
        response = get(target)
        assert raw_status(response) is not None and 400 <= raw_status(response) < 500, (target, response[:300])
        assert b"root:" not in response

    assert 400 <= raw_status(get(b"/simple/", b"X-Big: " + b"a" * 100_000 + b"\r\n")) < 500
    assert 400 <= raw_status(get(b"/" + b"a" * 100_000)) < 500
    many = b"".join(b"X-%d: v\r\n" % i for i in range(1000))
    assert 400 <= raw_status(get(b"/simple/", many)) < 500

    def post(body, content_type=b"multipart/form-data; boundary=XX", extra=auth):
        return raw(s.port, b"POST /legacy/ HTTP/1.1\r\nHost: x\r\n" + extra + b"Content-Type: " + content_type +
                   b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)

    part = (b'--XX\r\nContent-Disposition: form-data; name=":action"\r\n\r\nfile_upload\r\n'
            b'--XX\r\nContent-Disposition: form-data; name="content"; filename="evil-1.0-py3-none-any.whl"\r\n\r\n')
    for body in (b"not multipart at all", part + b"PK\x03\x04 truncated, no closing boundary",
                 b"--XX\r\nbroken headers\r\n\r\n--XX--\r\n", part.replace(b"evil-1.0", b"../../evil-1.0") + b"x\r\n--XX--\r\n"):
        response = post(body)
        assert raw_status(response) == 400, (body, response[:300])
    assert raw_status(post(b"x", content_type=b"multipart/form-data")) == 400
    assert raw_status(post(b"--XX--\r\n", extra=b"")) == 401
    assert raw_status(post(b"--XX--\r\n", extra=b"Authorization: Bearer wrong\r\n")) == 403
    # Declared larger than the limit: refused before the body is read.
    response = raw(s.port, b"POST / HTTP/1.1\r\nHost: x\r\n" + auth +
                   b"Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: 99999999999\r\n"
                   b"Connection: close\r\n\r\n--XX\r\n")
    assert raw_status(response) == 413

    assert snapshot(wheels) == before
    assert not (tmp_path / "evil-1.0-py3-none-any.whl").exists()
    assert not list(Path("/").glob("evil-1.0*"))
    # Still serving.
    assert curl(s.base + "/simple/mixed-pkg/")[0] == 200
    assert s.stop() == 0
    assert site.is_dir()


def test_max_upload_size_is_enforced(serve, wheels, tmp_path):
    if not TWINE.exists():
        pytest.skip(f"{TWINE} not found")
    s = serve("--wheels", wheels, "--upload-token", TOKEN, "--max-upload-size", "1K")
    dist = tmp_path / "dist"
    dist.mkdir()
    big = make_wheel(dist, "bigpkg-1.0-py3-none-any.whl", {"bigpkg/data.bin": os.urandom(4096)})
    before = snapshot(wheels)
    r = twine_upload(tmp_path, s.base, TOKEN, big)
    assert r.returncode != 0
    assert http_errors(r) == [f"HTTPError: 413 Request Entity Too Large from {s.base}/"], r.stdout + r.stderr
    assert snapshot(wheels) == before


# ---- a built SITE ----

def test_pip_installs_from_a_site_of_html_pages_only(vwheel, serve, tmp_path):
    """A site another tool built may have index.html pages alone: pip asks for JSON first and must
    get the HTML, not a 404."""
    if not PYTHON.exists():
        pytest.skip(f"{PYTHON} not found")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, "plain-1.0-py3-none-any.whl", {"plain/__init__.py": b"KIND = 'plain'\n"})
    site = tmp_path / "site"
    assert vwheel("index", "build", wheels, "-o", site, "--quiet").rc == 0
    pages = list((site / "simple").rglob("index.json"))
    assert pages
    for page in pages:
        page.unlink()
    s = serve(site)
    target = tmp_path / "target"
    r = pip_install(tmp_path, s.base, target, "plain")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "plain/__init__.py").read_text() == "KIND = 'plain'\n"
    assert '"GET /simple/plain/ HTTP/1.1" 200' in s.log.read_text()
    status, _, body = curl(s.base + "/simple/plain/", f"Accept: {JSON_TYPE}")
    # The whole body: the status and the types this page has (HTML only), none it does not have.
    assert (status, body) == (406, "406 Not Acceptable: this page is served as text/html and "
                                   "application/vnd.pypi.simple.v1+html\n"), (status, body)


def test_serves_a_site(serve, tmp_path):
    site = tmp_path / "site"
    (site / "simple/pkg").mkdir(parents=True)
    (site / "files/pkg").mkdir(parents=True)
    (site / "simple/index.html").write_text("<!DOCTYPE html><a href='pkg/'>pkg</a>\n")
    (site / "simple/index.json").write_text(json.dumps({"meta": {"api-version": "1.1"}, "projects": [{"name": "pkg"}]}))
    (site / "simple/pkg/index.html").write_text("<!DOCTYPE html>pkg\n")
    (site / "simple/pkg/index.json").write_text(json.dumps({"meta": {"api-version": "1.1"}, "name": "pkg", "files": []}))
    (site / "files/pkg/pkg-1.0-py3-none-any.whl").write_bytes(b"x" * 5000)
    os.symlink("/etc/passwd", site / "files/pkg/passwd")
    s = serve(site)
    assert s.line == f"Serving {site} on http://127.0.0.1:{s.port}/simple/\n"
    status, headers, body = curl(s.base + "/simple/pkg/", f"Accept: {JSON_TYPE}")
    assert status == 200 and headers["content-type"] == JSON_TYPE and json.loads(body)["name"] == "pkg"
    assert curl(s.base + "/simple/pkg/")[2] == "<!DOCTYPE html>pkg\n"
    status, headers, body = curl(s.base + "/files/pkg/pkg-1.0-py3-none-any.whl", "Range: bytes=-100")
    assert status == 206 and len(body) == 100 and headers["content-range"] == "bytes 4900-4999/5000"
    status, _, body = curl(s.base + "/files/pkg/passwd")
    assert status == 404 and "root:" not in body
    body = b"--b--\r\n"
    response = raw(s.port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                           b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    assert raw_status(response) == 405


def test_a_stalled_upload_body_gets_408_and_leaves_nothing(serve, wheels, tmp_path):
    s = serve("--wheels", wheels, "--upload-token", TOKEN, "--body-timeout", "1")
    before = snapshot(wheels)
    part = (b"--b\r\nContent-Disposition: form-data; name=\"content\"; filename=\"late-1.0-py3-none-any.whl\"\r\n\r\n"
            b"PK\x03\x04")
    with socket.create_connection(("127.0.0.1", s.port), timeout=30) as c:
        c.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN.encode() +
                  b"\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n" + part)
        answer = wait_closed(c, 30)  # the rest of the body never comes
    assert raw_status(answer) == 408, answer
    assert answer.endswith(b"408 the upload stalled for more than 1000 ms\n"), answer
    assert snapshot(wheels) == before
