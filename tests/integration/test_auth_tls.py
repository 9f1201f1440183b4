"""Private indexes (issue 54): credentials from the URL, a .netrc file ($NETRC), a keyring
(`--keyring-provider subprocess`, a `keyring` executable on PATH) and VWHEEL_INDEX_<NAME>_* for
`--index NAME=URL`; TLS with a private CA (--cert, $SSL_CERT_FILE), a client certificate
(--client-cert) and the messages of TLS failures (expired, unknown CA, another name); a forward
proxy (--proxy, $http_proxy, $no_proxy).

Real components on 127.0.0.1 only: a `vwheel index build` site served by nginx with `auth_basic`
(an htpasswd made with `openssl passwd`) over http and https (a CA and certificates made with
`openssl` here), and tinyproxy as the forward proxy. After each run that had the password, every
file vwheel wrote (the lock, the whole cache, the report, the environment) and its output are
searched for it."""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from private_index import OPENSSL, Pki, files_containing  # noqa: E402
from wheelfactory import make_wheel  # noqa: E402

NGINX = Path("/usr/sbin/nginx")
TINYPROXY = shutil.which("tinyproxy") or "/usr/bin/tinyproxy"
PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
USER, PASSWORD = "alice", "pw-7Qx9sEcReT"
WHEEL = "authpkg-1.0-py3-none-any.whl"

pytestmark = pytest.mark.skipif(not NGINX.exists() or OPENSSL is None,
                                reason="needs nginx (nginx-light) and openssl")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


NGINX_CONF = """\
{user}
worker_processes 1;
error_log stderr;
pid {tmp}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    access_log {tmp}/access.log;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    types {{ text/html html; application/octet-stream whl; }}
{servers}
}}
"""

SERVER = """\
    server {{
        listen 127.0.0.1:{port}{ssl};
        root {site};
        auth_basic "private index";
        auth_basic_user_file {htpasswd};
{extra}
    }}
"""


PORTS = ("http", "https", "expired", "wrong_name", "client", "files", "redirect", "absolute", "files_tls",
         "expired_redirect")


class Site:
    """nginx serving the site on several ports: `http` (plain), `https` (a certificate for
    127.0.0.1 from the CA), `expired`, `wrong_name`, `client` (requires a client certificate);
    `files` (no authentication, its log naming the Authorization header each request had),
    `redirect` (as `http`, its /files/ redirected to `files`), `absolute` (`absolute_site`, whose
    pages link the files on `files`)."""

    def __init__(self, tmp, site, absolute_site, pki, ports):
        ngx = tmp / "nginx"
        ngx.mkdir()
        htpasswd = ngx / "htpasswd"
        hashed = subprocess.run([OPENSSL, "passwd", "-apr1", PASSWORD], capture_output=True, text=True,
                                check=True).stdout.strip()
        htpasswd.write_text(f"{USER}:{hashed}\n")
        good = pki.issue("server", "IP:127.0.0.1,DNS:localhost")
        expired = pki.issue("expired", "IP:127.0.0.1", dates=("-startdate", "20200101000000Z",
                                                              "-enddate", "20200201000000Z"))
        wrong = pki.issue("wrong", "DNS:wrong.example")
        self.ports = ports

        def tls(cert, more=""):
            return f"        ssl_certificate {cert[0]};\n        ssl_certificate_key {cert[1]};\n{more}"

        servers = [
            SERVER.format(port=self.ports["http"], ssl="", site=site, htpasswd=htpasswd, extra=""),
            SERVER.format(port=self.ports["https"], ssl=" ssl", site=site, htpasswd=htpasswd, extra=tls(good)),
            SERVER.format(port=self.ports["expired"], ssl=" ssl", site=site, htpasswd=htpasswd, extra=tls(expired)),
            SERVER.format(port=self.ports["wrong_name"], ssl=" ssl", site=site, htpasswd=htpasswd, extra=tls(wrong)),
            SERVER.format(port=self.ports["client"], ssl=" ssl", site=site, htpasswd=htpasswd,
                          extra=tls(good, f"        ssl_verify_client on;\n        ssl_client_certificate {pki.ca};\n")),
            f"""    log_format authorization '$request auth=[$http_authorization]';
    server {{
        listen 127.0.0.1:{ports["files"]};
        root {site};
        access_log {ngx}/files.log authorization;
    }}
""",
            SERVER.format(port=self.ports["redirect"], ssl="", site=site, htpasswd=htpasswd,
                          extra=f"        location /files/ {{ return 302 http://127.0.0.1:{ports['files']}$request_uri; }}"),
            SERVER.format(port=self.ports["absolute"], ssl="", site=absolute_site, htpasswd=htpasswd, extra=""),
            f"""    server {{
        listen 127.0.0.1:{ports["files_tls"]} ssl;
        root {site};
{tls(wrong)}
    }}
""",
            SERVER.format(port=self.ports["expired_redirect"], ssl=" ssl", site=site, htpasswd=htpasswd,
                          extra=tls(expired, f"        location /files/ {{ return 302 "
                                             f"https://127.0.0.1:{ports['files_tls']}$request_uri; }}\n")),
        ]
        self.files_log = ngx / "files.log"
        user = "user root;" if os.geteuid() == 0 else ""
        (ngx / "nginx.conf").write_text(NGINX_CONF.format(user=user, tmp=ngx, servers="".join(servers)))
        self.access_log = ngx / "access.log"
        self.proc = subprocess.Popen([str(NGINX), "-e", "stderr", "-p", str(ngx), "-c", str(ngx / "nginx.conf"),
                                      "-g", "daemon off;"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while True:
            try:
                urllib.request.urlopen(self.url("http", auth=False), timeout=1).read()
            except urllib.error.HTTPError as e:
                if e.code == 401:
                    break
            except OSError:
                pass
            if self.proc.poll() is not None or time.time() > deadline:
                self.proc.kill()
                _, err = self.proc.communicate()
                pytest.fail(f"nginx did not start: {err.decode()}")
            time.sleep(0.05)

    def url(self, kind="http", auth=False, user_only=False, path="simple/"):
        scheme = "https" if kind in ("https", "expired", "wrong_name", "client", "expired_redirect") else "http"
        userinfo = f"{USER}:{PASSWORD}@" if auth else f"{USER}@" if user_only else ""
        return f"{scheme}://{userinfo}127.0.0.1:{self.ports[kind]}/{path}"

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture
def pki(tmp_path):
    return Pki(tmp_path / "pki")


@pytest.fixture
def site(vwheel, tmp_path, pki):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, WHEEL, {"authpkg/__init__.py": b"VALUE = 'private'\n"})
    root = tmp_path / "site"
    r = vwheel("index", "build", wheels, "-o", root)
    assert r.rc == 0, r.err
    ports = {k: free_port() for k in PORTS}
    absolute = tmp_path / "absolute-site"
    r = vwheel("index", "build", wheels, "-o", absolute, "--base-url", f"http://127.0.0.1:{ports['files']}")
    assert r.rc == 0, r.err
    s = Site(tmp_path, root, absolute, pki, ports)
    yield s
    s.stop()


@pytest.fixture
def venv(vwheel, tmp_path):
    r = vwheel("venv", tmp_path / "venv", "--python", PY)
    assert r.rc == 0, r.err
    return tmp_path / "venv" / "bin" / "python"


def files_with_password(*roots):
    return files_containing(PASSWORD, *roots)


def installed(tmp_path):
    init = next((tmp_path / "venv" / "lib").glob("python3*/site-packages")) / "authpkg" / "__init__.py"
    return init.read_text()


def assert_installed_and_nothing_at_rest(r, tmp_path, *written):
    assert r.rc == 0, r.out + r.err
    assert installed(tmp_path) == "VALUE = 'private'\n"
    assert PASSWORD not in r.out + r.err
    assert files_with_password(tmp_path / "venv", tmp_path / "cache", tmp_path / "home" / ".cache", *written) == []


def install(vwheel, venv, tmp_path, *args, env=None):
    return vwheel("install", "authpkg", "--python", venv, "--cache-dir", tmp_path / "cache", "--retries", "0",
                  *args, env=env)


# ---- credentials ----

def test_credentials_from_the_url(vwheel, site, venv, tmp_path):
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(auth=True))
    assert_installed_and_nothing_at_rest(r, tmp_path)


def test_credentials_from_netrc(vwheel, site, venv, tmp_path):
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine other.example login bob password nope\n"
                     f"machine 127.0.0.1\n  login {USER}\n  password \"{PASSWORD}\"\n")
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(), env={"NETRC": str(netrc)})
    assert_installed_and_nothing_at_rest(r, tmp_path)


def test_credentials_from_home_netrc(vwheel, site, venv, tmp_path):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".netrc").write_text(f"default login {USER} password {PASSWORD}\n")
    r = install(vwheel, venv, tmp_path, "--index-url", site.url())
    assert r.rc == 0, r.err
    assert PASSWORD not in r.out + r.err


def fake_keyring(tmp_path):
    """A `keyring` executable that answers `get URL alice` with the password and records its argv."""
    bin_dir = tmp_path / "keyring-bin"
    bin_dir.mkdir()
    calls = tmp_path / "keyring-calls"
    script = bin_dir / "keyring"
    script.write_text(f"""#!{PY}
import sys
with open({str(calls)!r}, "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
if sys.argv[1:2] == ["get"] and sys.argv[3:] == [{USER!r}]:
    print({PASSWORD!r})
    sys.exit(0)
sys.exit(1)
""")
    script.chmod(0o755)
    return bin_dir, calls


def test_credentials_from_a_keyring_subprocess(vwheel, site, venv, tmp_path):
    bin_dir, calls = fake_keyring(tmp_path)
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    # Never by default: the keyring is not run, and the index answers 401.
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(user_only=True), env=env)
    assert r.rc != 0 and "401 Unauthorized" in r.err and "keyring: disabled" in r.err, r.err
    assert not calls.exists()
    # Without a keyring on PATH, the 401 says so.
    (tmp_path / "empty-bin").mkdir()
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(user_only=True), "--keyring-provider", "subprocess",
                env={"PATH": str(tmp_path / "empty-bin")})
    assert r.rc != 0 and "keyring: subprocess, but no `keyring` on PATH" in r.err, r.err
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(user_only=True), "--keyring-provider", "subprocess",
                env=env)
    assert_installed_and_nothing_at_rest(r, tmp_path)
    # Asked once, for the index URL (without userinfo) and the URL's username.
    assert calls.read_text() == f"get {site.url()} {USER}\n"


def test_credentials_from_the_environment_of_a_named_index(vwheel, site, venv, tmp_path):
    env = {"VWHEEL_INDEX_MY_PRIVATE_USERNAME": USER, "VWHEEL_INDEX_MY_PRIVATE_PASSWORD": PASSWORD}
    r = install(vwheel, venv, tmp_path, "--index", f"my-private={site.url()}", env=env)
    assert_installed_and_nothing_at_rest(r, tmp_path)


@pytest.mark.parametrize("kind", ["redirect", "absolute"])
@pytest.mark.parametrize("source", ["url", "netrc"])
def test_credentials_stay_on_the_indexs_origin(vwheel, site, venv, tmp_path, kind, source):
    """The index's pages need the credentials; its files are on another port of the same host,
    reached by a redirect or linked there: they are fetched without them."""
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine 127.0.0.1 login {USER} password {PASSWORD}\n")
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(kind, auth=source == "url"),
                env={"NETRC": str(netrc)} if source == "netrc" else None)
    assert_installed_and_nothing_at_rest(r, tmp_path)
    deadline = time.time() + 10  # nginx logs a request once its answer is sent
    while "authpkg-1.0-py3-none-any.whl " not in site.files_log.read_text() and time.time() < deadline:
        time.sleep(0.05)
    requests = site.files_log.read_text().splitlines()
    assert any("authpkg-1.0-py3-none-any.whl " in line for line in requests), requests
    assert all(line.endswith("auth=[-]") for line in requests), requests  # nginx logs none as `-`
    # (The log would show them: a request with a header.)
    probe = urllib.request.Request(f"http://127.0.0.1:{site.ports['files']}/files/", headers={"Authorization": "Basic x"})
    try:
        urllib.request.urlopen(probe, timeout=5).read()
    except urllib.error.HTTPError:
        pass
    deadline = time.time() + 10  # nginx logs a request once its answer is sent
    while not site.files_log.read_text().rstrip().endswith("auth=[Basic x]") and time.time() < deadline:
        time.sleep(0.05)
    assert site.files_log.read_text().rstrip().endswith("auth=[Basic x]")


def test_lock_then_sync_and_export_from_the_authenticated_index(vwheel, site, venv, tmp_path):
    env = {"VWHEEL_INDEX_PRIVATE_USERNAME": USER, "VWHEEL_INDEX_PRIVATE_PASSWORD": PASSWORD}
    lock = tmp_path / "pylock.toml"
    r = vwheel("lock", "authpkg", "--index", f"private={site.url()}", "--cache-dir", tmp_path / "cache", "-o", lock,
               env=env)
    assert r.rc == 0, r.err
    assert PASSWORD not in r.out + r.err
    assert f"url = \"http://127.0.0.1:{site.ports['http']}/" in lock.read_text()
    # The lock's urls carry nothing: without the index's credentials, sync gets a 401 that says
    # where credentials were looked for.
    r = vwheel("sync", lock, "--python", venv, "--cache-dir", tmp_path / "sync-cache", "--retries", "0",
               "--index-url", site.url())
    assert r.rc != 0
    assert "401 Unauthorized from http://127.0.0.1" in r.err, r.err
    assert "credentials looked for in: the URL, ~/.netrc, keyring: disabled" in r.err, r.err
    report = tmp_path / "report.json"
    r = vwheel("sync", lock, "--python", venv, "--cache-dir", tmp_path / "sync-cache", "--index",
               f"private={site.url()}", "--report", report, env=env)
    assert_installed_and_nothing_at_rest(r, tmp_path, lock, report, tmp_path / "sync-cache")
    out = tmp_path / "requirements.txt"
    r = vwheel("export", lock, "--python", venv, "--index", f"private={site.url()}", "-o", out, env=env)
    assert r.rc == 0, r.err
    assert "authpkg==1.0" in out.read_text()
    assert files_with_password(out) == []


@pytest.mark.parametrize("value", ["http://127.0.0.1:9/simple/", "=http://127.0.0.1:9/simple/", "a b=http://x/"])
def test_index_needs_a_name(vwheel, tmp_path, value):
    r = vwheel("install", "authpkg", "--index", value, "--cache-dir", tmp_path / "cache")
    assert r.rc == 2, r.err
    assert "expected NAME=URL" in r.err, r.err


def test_401_names_where_credentials_were_looked_for(vwheel, site, venv, tmp_path):
    r = install(vwheel, venv, tmp_path, "--index", f"private={site.url()}")
    assert r.rc != 0
    lines = [line for line in r.err.splitlines() if "401" in line]
    assert len(lines) == 1, r.err
    assert (f"401 Unauthorized from {site.url()}authpkg/ (credentials looked for in: the URL, ~/.netrc, "
            "keyring: disabled, VWHEEL_INDEX_PRIVATE_USERNAME)") in lines[0], r.err
    # A wrong password: the same message, the password it had redacted.
    r = install(vwheel, venv, tmp_path, "--index-url", site.url().replace("://", "://alice:wrong-pw@"))
    assert r.rc != 0 and "401 Unauthorized from http://alice:****@127.0.0.1" in r.err, r.err
    assert "wrong-pw" not in r.err


# A backend in the project's tree that needs `authpkg` (only on the private index) to build.
IN_TREE_BACKEND = """\
import base64, hashlib, zipfile

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    import authpkg  # installed into the build environment from the private index
    name = "needsauth-1.0-py3-none-any.whl"
    files = {
        "needsauth.py": f"VALUE = {authpkg.VALUE!r}\\n".encode(),
        "needsauth-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\\nName: needsauth\\nVersion: 1.0\\n",
        "needsauth-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    }
    record = ""
    with zipfile.ZipFile(f"{wheel_directory}/{name}", "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record += f"{path},sha256={digest},{len(data)}\\n"
        z.writestr("needsauth-1.0.dist-info/RECORD", record + "needsauth-1.0.dist-info/RECORD,,\\n")
    return name
"""


def test_build_requirements_from_the_authenticated_https_index(vwheel, site, tmp_path, pki):
    """`vwheel build` takes the same credential and TLS options as install for its build environment."""
    project = tmp_path / "needsauth"
    project.mkdir()
    (project / "pyproject.toml").write_text('[build-system]\nrequires = ["authpkg"]\n'
                                            'build-backend = "in_tree"\nbackend-path = ["."]\n')
    (project / "in_tree.py").write_text(IN_TREE_BACKEND)
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine 127.0.0.1 login {USER} password {PASSWORD}\n")
    out = tmp_path / "dist"
    r = vwheel("build", project, "-o", out, "--python", PY, "--index-url", site.url("https"), "--cert", pki.ca,
               "--cache-dir", tmp_path / "cache", env={"NETRC": str(netrc)})
    assert r.rc == 0, r.out + r.err
    import zipfile
    with zipfile.ZipFile(out / "needsauth-1.0-py3-none-any.whl") as z:
        assert z.read("needsauth.py") == b"VALUE = 'private'\n"
    assert PASSWORD not in r.out + r.err
    assert files_with_password(tmp_path / "cache", out, project) == []
    # Without the CA the build environment cannot be made, and the error says why.
    r = vwheel("build", project, "-o", tmp_path / "dist2", "--python", PY, "--index-url", site.url("https"),
               "--cache-dir", tmp_path / "cache2", env={"NETRC": str(netrc)})
    assert r.rc != 0
    assert "127.0.0.1" in r.err and "certificate" in r.err, r.err
    assert PASSWORD not in r.out + r.err


# ---- TLS ----

def test_https_with_a_private_ca(vwheel, site, venv, tmp_path, pki):
    url = site.url("https", auth=True)
    r = install(vwheel, venv, tmp_path, "--index-url", url, "--cert", pki.ca)
    assert_installed_and_nothing_at_rest(r, tmp_path)


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_CERT"])
def test_the_ca_bundle_from_the_environment(vwheel, site, venv, tmp_path, pki, variable):
    r = install(vwheel, venv, tmp_path, "--index-url", site.url("https", auth=True), env={variable: str(pki.ca)})
    assert r.rc == 0, r.err


def test_cert_comes_before_the_environment(vwheel, site, venv, tmp_path, pki):
    bogus = tmp_path / "other-ca.pem"
    shutil.copy(pki.dir / "wrong.pem", bogus)  # a certificate, not the CA
    r = install(vwheel, venv, tmp_path, "--index-url", site.url("https", auth=True), "--cert", pki.ca,
                env={"SSL_CERT_FILE": str(bogus)})
    assert r.rc == 0, r.err
    r = install(vwheel, venv, tmp_path, "--index-url", site.url("https", auth=True),
                env={"SSL_CERT_FILE": str(bogus), "REQUESTS_CA_BUNDLE": str(pki.ca)})
    assert r.rc != 0, r.err


@pytest.mark.parametrize("kind,cert,reason", [
    ("https", False, "is signed by an unknown CA"),
    ("expired", True, "has expired"),
    ("wrong_name", True, "is for another name"),
])
def test_tls_failures_name_the_host_and_the_reason(vwheel, site, venv, tmp_path, pki, kind, cert, reason):
    args = ["--cert", pki.ca] if cert else []
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(kind, auth=True), *args)
    assert r.rc != 0
    lines = [line for line in r.err.splitlines() if "TLS error" in line]
    assert len(lines) == 1, r.err
    assert f"TLS error with 127.0.0.1:{site.ports[kind]}: its certificate {reason}" in lines[0], r.err
    assert PASSWORD not in r.out + r.err


def test_trusted_host_skips_verification(vwheel, site, venv, tmp_path):
    port = site.ports["expired"]
    r = install(vwheel, venv, tmp_path, "--index-url", site.url("expired", auth=True), "--trusted-host",
                f"127.0.0.1:{port}")
    assert_installed_and_nothing_at_rest(r, tmp_path)


def test_trusted_host_does_not_extend_to_where_it_redirects(vwheel, site, venv, tmp_path):
    """The trusted host's files are redirected to another https host (a certificate for another
    name): refused unless that one is trusted too."""
    trusted = f"127.0.0.1:{site.ports['expired_redirect']}"
    target = f"127.0.0.1:{site.ports['files_tls']}"
    r = install(vwheel, venv, tmp_path, "--index-url", site.url("expired_redirect", auth=True), "--trusted-host",
                trusted)
    assert r.rc != 0
    assert (f"redirected to https://{target}/files/authpkg/authpkg-1.0-py3-none-any.whl, whose certificate "
            f"was not verified (--trusted-host {trusted} only): give --trusted-host {target} too") in r.err, r.err
    assert PASSWORD not in r.out + r.err
    r = install(vwheel, venv, tmp_path, "--index-url", site.url("expired_redirect", auth=True), "--trusted-host",
                trusted, "--trusted-host", target)
    assert_installed_and_nothing_at_rest(r, tmp_path)


def test_client_certificate(vwheel, site, venv, tmp_path, pki):
    cert, key = pki.issue("client", "DNS:client.example", client=True)
    both = tmp_path / "client-with-key.pem"
    both.write_bytes(cert.read_bytes() + key.read_bytes())
    url = site.url("client", auth=True)
    r = install(vwheel, venv, tmp_path, "--index-url", url, "--cert", pki.ca)
    assert r.rc != 0, r.err  # nginx answers 400 (no required SSL certificate was sent)
    r = install(vwheel, venv, tmp_path, "--index-url", url, "--cert", pki.ca, "--client-cert", both)
    assert_installed_and_nothing_at_rest(r, tmp_path)


# ---- a forward proxy ----

@pytest.fixture
def proxy(tmp_path):
    if not Path(TINYPROXY).exists():
        pytest.skip("tinyproxy is not installed (apt-get install tinyproxy)")
    d = tmp_path / "tinyproxy"
    d.mkdir()
    port = free_port()
    log = d / "tinyproxy.log"
    user = "User root\nGroup root\n" if os.geteuid() == 0 else ""
    (d / "tinyproxy.conf").write_text(f"""{user}Port {port}
Listen 127.0.0.1
Timeout 60
LogFile "{log}"
LogLevel Info
MaxClients 16
Allow 127.0.0.1
""")
    proc = subprocess.Popen([TINYPROXY, "-d", "-c", str(d / "tinyproxy.conf")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.time() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                _, err = proc.communicate()
                pytest.fail(f"tinyproxy did not start: {err.decode()}")
            time.sleep(0.05)
    yield {"url": f"http://127.0.0.1:{port}", "log": log}
    proc.terminate()
    proc.wait(timeout=10)


def proxied(log, port):
    """The requests for 127.0.0.1:`port` the proxy's log names."""
    text = log.read_text() if log.exists() else ""
    return [line for line in text.splitlines() if f"127.0.0.1:{port}/" in line and "Request" in line]


def test_proxy_option(vwheel, site, venv, tmp_path, proxy):
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(auth=True), "--proxy", proxy["url"])
    assert_installed_and_nothing_at_rest(r, tmp_path)
    assert any("/simple/authpkg/" in line for line in proxied(proxy["log"], site.ports["http"])), \
        proxy["log"].read_text()


def test_http_proxy_variable_and_no_proxy(vwheel, site, venv, tmp_path, proxy):
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(auth=True), "--refresh",
                env={"http_proxy": proxy["url"]})
    assert r.rc == 0, r.err
    seen = proxied(proxy["log"], site.ports["http"])
    assert any("/simple/authpkg/" in line for line in seen), proxy["log"].read_text()
    r = install(vwheel, venv, tmp_path, "--index-url", site.url(auth=True), "--refresh", "--force-reinstall",
                env={"http_proxy": proxy["url"], "no_proxy": "127.0.0.1"})
    assert r.rc == 0, r.err
    assert proxied(proxy["log"], site.ports["http"]) == seen


def test_https_through_the_proxy(vwheel, site, venv, tmp_path, pki, proxy):
    r = install(vwheel, venv, tmp_path, "--index-url", site.url("https", auth=True), "--cert", pki.ca,
                env={"https_proxy": proxy["url"]})
    assert_installed_and_nothing_at_rest(r, tmp_path)
    text = proxy["log"].read_text()
    assert f"CONNECT 127.0.0.1:{site.ports['https']}" in text, text
