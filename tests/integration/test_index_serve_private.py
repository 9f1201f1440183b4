"""`vwheel index serve` for a team (issue 54): `--read-auth` (an htpasswd file of bcrypt and
SHA-crypt entries, made by `htpasswd -B` and `openssl passwd -5`) and HTTPS (`--tls-cert`,
`--tls-key`, a CA and certificate made with `openssl` here). Talked to by curl, `vwheel install`
(--cert, credentials from .netrc) and pip (credentials in the URL, --cert); afterwards every file
under the test's folder (the server's log and index, vwheel's cache and environment) and vwheel's
output are searched for the password."""
import base64
import os
import shutil
import socket
import ssl
import subprocess
from pathlib import Path

import pytest

from private_index import Pki, files_containing
from served import clean_env, serve, wait_closed  # noqa: F401 (serve: a fixture)
from wheelfactory import make_wheel

PYTHON = Path("/usr/bin/python3")
HTPASSWD = shutil.which("htpasswd") or "/usr/bin/htpasswd"
USER, PASSWORD = "alice", "pw-Tm4x!team"
OTHER, OTHER_PASSWORD = "bob", "bob-Sha5-pw"


def hashed_line(user, password, kind):
    if kind == "bcrypt":
        out = subprocess.run([HTPASSWD, "-B", "-b", "-n", user, password], capture_output=True, text=True,
                             check=True).stdout
        return out.strip()
    out = subprocess.run(["openssl", "passwd", kind, password], capture_output=True, text=True, check=True).stdout
    return f"{user}:{out.strip()}"


@pytest.fixture
def private(tmp_path, serve):
    """The server of a folder with authpkg, for alice (bcrypt) and bob (SHA-256 crypt), over HTTPS."""
    return start_private(tmp_path, serve)


def start_private(tmp_path, serve, *args):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, "authpkg-1.0-py3-none-any.whl", {"authpkg/__init__.py": b"VALUE = 'private'\n"})
    users = tmp_path / "users.htpasswd"
    users.write_text(f"# readers\n{hashed_line(USER, PASSWORD, 'bcrypt')}\n\n{hashed_line(OTHER, OTHER_PASSWORD, '-5')}\n")
    pki = Pki(tmp_path / "pki")
    cert, key = pki.issue("server", "IP:127.0.0.1")
    served = serve("--wheels", wheels, "--read-auth", users, "--tls-cert", cert, "--tls-key", key, *args)
    served.ca = pki.ca
    return served


def curl(served, path, *args):
    """(status, headers and body) of a GET with curl trusting the test CA."""
    r = subprocess.run(["curl", "-sS", "--cacert", str(served.ca), "-D", "-", *args, served.base + path],
                       capture_output=True, text=True, errors="replace", timeout=30)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split()[1]), r.stdout


def test_every_read_needs_the_credentials_of_a_listed_user(private):
    assert private.base.startswith("https://")
    for path in ("/simple/", "/simple/authpkg/", "/", "/files/authpkg/authpkg-1.0-py3-none-any.whl",
                 "/files/authpkg/authpkg-1.0-py3-none-any.whl.metadata"):
        status, text = curl(private, path)
        assert status == 401, (path, text)
        assert 'WWW-Authenticate: Basic realm="vwheel"' in text
        assert USER not in text and OTHER not in text
        status, text = curl(private, path, "-u", f"{USER}:wrong")
        assert status == 401, (path, text)
        # A user that does not exist gets the same answer.
        status, other = curl(private, path, "-u", f"mallory:{PASSWORD}")
        assert status == 401 and other.split("\n\n", 1)[1] == text.split("\n\n", 1)[1]
    status, text = curl(private, "/simple/authpkg/", "-u", f"{USER}:{PASSWORD}")
    assert status == 200 and "authpkg-1.0-py3-none-any.whl" in text
    status, _ = curl(private, "/simple/authpkg/", "-u", f"{OTHER}:{OTHER_PASSWORD}")
    assert status == 200
    # Again with the same credentials (answered from the cache of verified ones).
    status, _ = curl(private, "/files/authpkg/authpkg-1.0-py3-none-any.whl", "-u", f"{USER}:{PASSWORD}")
    assert status == 200
    status, _ = curl(private, "/files/authpkg/authpkg-1.0-py3-none-any.whl", "-u", f"{USER}:{PASSWORD}x")
    assert status == 401
    log = private.log.read_text()
    assert '"GET /simple/authpkg/ HTTP/1.1" 200' in log and " user=alice" in log and " user=bob" in log
    assert PASSWORD not in log and OTHER_PASSWORD not in log
    # Plain HTTP on the HTTPS port gets no page.
    r = subprocess.run(["curl", "-sS", "-u", f"{USER}:{PASSWORD}", f"http://127.0.0.1:{private.port}/simple/"],
                       capture_output=True, text=True, timeout=30)
    assert "authpkg" not in r.stdout


def test_https_keeps_the_per_address_caps_and_deadlines(tmp_path, serve):
    served = start_private(tmp_path, serve, "--threads", "4", "--max-connections-per-ip", "1",
                           "--max-waiting-per-ip", "0", "--header-timeout", "3", "--keep-alive-timeout", "60")
    context = ssl.create_default_context(cafile=str(served.ca))

    def connect():
        return context.wrap_socket(socket.create_connection(("127.0.0.1", served.port), timeout=30),
                                   server_hostname="127.0.0.1")

    def closed(sock):
        """What arrives until the server closes the connection (failing after 30 s)."""
        out = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except (ssl.SSLEOFError, ConnectionResetError):
                return out
            if not chunk:
                return out
            out += chunk

    a = connect()
    a.sendall(b"GET /simple/ HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = a.recv(65536)
    # A failed authentication is a request of an admitted connection: `a` keeps this address's one slot.
    assert answer.startswith(b"HTTP/1.1 401"), answer
    a.sendall(b"GET /simple/ HTTP/1.1\r\nHost: x\r\n")  # headers never finished
    with pytest.raises(OSError):  # ssl.SSLError is an OSError: over the cap, closed before the handshake
        connect().sendall(b"GET /simple/ HTTP/1.1\r\nHost: x\r\n\r\n")
    # The header deadline ends `a`; a connection that never starts its handshake is cut off the same way.
    assert b"HTTP/1.1 200" not in closed(a)
    with socket.create_connection(("127.0.0.1", served.port), timeout=30) as silent:
        assert wait_closed(silent, 30) == b""
    c = connect()
    auth = base64.b64encode(f"{USER}:{PASSWORD}".encode())
    c.sendall(b"GET /simple/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Basic " + auth + b"\r\n\r\n")
    assert closed(c).startswith(b"HTTP/1.1 200")


def test_vwheel_install_with_cert_and_netrc(vwheel, private, tmp_path):
    r = vwheel("venv", tmp_path / "venv", "--python", PYTHON)
    assert r.rc == 0, r.err
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine 127.0.0.1\n  login {USER}\n  password {PASSWORD}\n")
    r = vwheel("install", "authpkg", "--python", tmp_path / "venv" / "bin" / "python", "--cache-dir",
               tmp_path / "cache", "--retries", "0", "--index-url", private.index_url, "--cert", private.ca,
               env={"NETRC": str(netrc)})
    assert r.rc == 0, r.out + r.err
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    assert (site / "authpkg" / "__init__.py").read_text() == "VALUE = 'private'\n"
    assert PASSWORD not in r.out + r.err
    assert private.stop() == 0
    assert files_containing(PASSWORD, tmp_path) == [netrc]
    assert " user=alice" in private.log.read_text()


def test_pip_install_with_credentials_in_the_url(private, tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "pip-home"), "PIP_CONFIG_FILE": os.devnull,
           "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LANG": "C.UTF-8"}
    url = f"https://{USER}:{PASSWORD}@127.0.0.1:{private.port}/simple"
    r = subprocess.run([str(PYTHON), "-m", "pip", "install", "--no-cache-dir", "--index-url", url, "--cert",
                        str(private.ca), "--target", str(tmp_path / "target"), "authpkg"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "target" / "authpkg" / "__init__.py").read_text() == "VALUE = 'private'\n"
    assert private.stop() == 0
    assert files_containing(PASSWORD, tmp_path) == []


def test_an_upload_still_needs_the_upload_token(tmp_path, serve):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    users = tmp_path / "users"
    users.write_text(hashed_line(USER, PASSWORD, "-6") + "\n")
    token = "upload-token-123"
    served = serve("--wheels", wheels, "--read-auth", users, env=clean_env(tmp_path, VWHEEL_UPLOAD_TOKEN=token))
    wheel = make_wheel(tmp_path, "up-1.0-py3-none-any.whl")

    def upload(user, password):
        r = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-u", f"{user}:{password}",
                            "-F", ":action=file_upload", "-F", "protocol_version=1", "-F", f"content=@{wheel}",
                            served.base + "/"], capture_output=True, text=True, timeout=60)
        return int(r.stdout)

    # A reader's credentials are not an upload token.
    assert upload(USER, PASSWORD) == 403
    assert upload("__token__", token) == 200
    auth = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    r = subprocess.run(["curl", "-sS", "-H", f"Authorization: Basic {auth}", served.index_url + "up/"],
                       capture_output=True, text=True, timeout=30)
    assert "up-1.0-py3-none-any.whl" in r.stdout


@pytest.mark.parametrize("line, expected", [
    ("carol:$apr1$abcd$NLw/IRgjEiY5X5tz3PKbx/", "user `carol`: an Apache MD5 (`$apr1$`) hash"),
    ("carol:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", "user `carol`: a SHA-1 (`{SHA}`) hash"),
    ("carol:plain-secret", "user `carol`: plain text"),
])
def test_an_unsupported_hash_is_refused_at_start(vwheel, tmp_path, line, expected):
    site = tmp_path / "wheels"
    site.mkdir()
    users = tmp_path / "users"
    users.write_text(f"# readers\n{hashed_line(USER, PASSWORD, '-6')}\n{line}\n")
    r = vwheel("index", "serve", "--wheels", site, "--port", "0", "--read-auth", users)
    assert r.rc == 1, r.out + r.err
    assert r.err.count("\n") == 1, r.err
    assert f"{users}:3: {expected}" in r.err and "htpasswd -B" in r.err
    assert line.split(":", 1)[1] not in r.err


def test_read_auth_over_plain_http_beyond_loopback_is_warned_about(vwheel, tmp_path):
    users = tmp_path / "users"
    users.write_text(hashed_line(USER, PASSWORD, "-6") + "\n")
    # The folder is missing: the server stops after its warnings, before it listens.
    r = vwheel("index", "serve", "--wheels", tmp_path / "missing", "--host", "0.0.0.0", "--port", "0",
               "--read-auth", users)
    assert r.rc == 1
    assert "warning: --read-auth without --tls-cert on 0.0.0.0: passwords cross the network in clear text" in r.err
    r = vwheel("index", "serve", "--wheels", tmp_path / "missing", "--port", "0", "--read-auth", users)
    assert r.rc == 1 and "warning" not in r.err, r.err


def test_tls_file_errors_name_the_file(vwheel, tmp_path):
    site = tmp_path / "wheels"
    site.mkdir()
    pki = Pki(tmp_path / "pki")
    cert, key = pki.issue("server", "IP:127.0.0.1")
    _, other_key = pki.issue("other", "IP:127.0.0.1")
    missing = tmp_path / "missing.pem"

    def serve_with(*args):
        return vwheel("index", "serve", "--wheels", site, "--port", "0", *args)

    for args, expected in [
        (("--tls-cert", missing, "--tls-key", key), f"{missing}: "),
        (("--tls-cert", cert, "--tls-key", missing), f"{missing}: "),
        (("--tls-cert", key, "--tls-key", key), f"{key}: not a PEM certificate"),
        (("--tls-cert", cert, "--tls-key", cert), f"{cert}: not an unencrypted PEM private key"),
        (("--tls-cert", cert, "--tls-key", other_key), f"{other_key}: the key does not belong to the certificate {cert}"),
    ]:
        r = serve_with(*args)
        assert r.rc == 1, (args, r.out + r.err)
        assert r.err.count("\n") == 1 and expected in r.err, (args, r.err)
    r = serve_with("--tls-cert", cert)
    assert r.rc == 2 and "--tls-key" in r.err, r.err
