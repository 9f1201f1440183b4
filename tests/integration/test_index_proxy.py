"""`vwheel index serve --upstream URL`: the example index (examples/make_example_index.py) served by one
`vwheel index serve`, passed through a second one as a caching proxy; installs through it (vwheel with
variants, and pip), then with the upstream stopped; a corrupted upstream file is refused; nodes asking for
the same file at once cause one download from the upstream."""
import json
import re
import shutil
import subprocess
import threading
import urllib.error
import urllib.request

from example_site import CUDA, PY, assert_installed, example, make_venv, wheel_file
from served import start_serve


def proxy_of(tmp_path, upstream_url, *args, log_name="proxy.log"):
    return start_serve(tmp_path, "--upstream", upstream_url, "--cache-dir", tmp_path / "proxy-cache", *args,
                       log_name=log_name)


def get(url, accept=None):
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=30) as r:
        return r.status, r.read()


def file_requests(log, name=None):
    return [p for p in re.findall(r'"GET (/files/\S+) ', log.read_text()) if name is None or p.endswith("/" + name)]


def pip_install(tmp_path, index_url, target, *packages):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "pip-home"), "PIP_CONFIG_FILE": "/dev/null",
           "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LANG": "C.UTF-8"}
    return subprocess.run([PY, "-m", "pip", "install", "--no-cache-dir", "--index-url", index_url,
                           "--target", str(target), *packages], capture_output=True, text=True, env=env, timeout=300)


def test_install_through_the_proxy_also_when_the_upstream_is_down(vwheel, example_index, tmp_path):
    upstream = start_serve(tmp_path, example_index / "site", log_name="upstream.log")
    # Credentials in the upstream URL (this upstream ignores them) stay between the proxy and the upstream.
    with_credentials = upstream.index_url.replace("http://", "http://alice:s3cret@")
    # --upstream-ttl 0: every page request asks the upstream (a revalidation).
    proxy = proxy_of(tmp_path, with_credentials, "--upstream-ttl", "0")
    try:
        assert "s3cret" not in proxy.line
        status, body = get(proxy.index_url + "torch/", "application/vnd.pypi.simple.v1+json")
        page = json.loads(body)
        assert status == 200 and page["name"] == "torch"
        urls = [f["url"] for f in page["files"]]
        assert all(u.startswith("/files/torch/") for u in urls), urls
        assert wheel_file("torch", "cu128") in [f["filename"] for f in page["files"]]
        html = get(proxy.index_url + "torch/", "text/html")[1].decode()
        for text in (body.decode(), html):
            assert f":{upstream.port}" not in text and "s3cret" not in text and "alice" not in text

        python = make_venv(vwheel, tmp_path / "venv1")
        r = vwheel("install", "torch", "--index-url", proxy.index_url, "--python", python, "--target", CUDA)
        assert r.rc == 0, (r.out, r.err)
        assert_installed(vwheel, python, example.EXPECTED["cuda12.8-sm90"])
        # pip (no variants) gets the plain wheels through it too.
        r = pip_install(tmp_path, proxy.index_url, tmp_path / "pip-target", "torch")
        assert r.returncode == 0, r.stdout + r.stderr
        assert "BUILD = 'non-variant'" in (tmp_path / "pip-target" / "torch" / "__init__.py").read_text()
        fetched = file_requests(upstream.log)
        assert len(fetched) == len(set(fetched)), "a file was fetched from the upstream twice"
    finally:
        upstream.stop()

    try:
        # The upstream is gone: a fresh node (empty vwheel cache) installs from what the proxy kept.
        python = make_venv(vwheel, tmp_path / "venv2")
        r = vwheel("install", "torch", "--index-url", proxy.index_url, "--python", python, "--target", CUDA,
                   env={"XDG_CACHE_HOME": str(tmp_path / "cache2")})
        assert r.rc == 0, (r.out, r.err)
        assert_installed(vwheel, python, example.EXPECTED["cuda12.8-sm90"])
        # A page the proxy never fetched cannot be made up.
        try:
            get(proxy.index_url + "never-asked-for/")
            raise AssertionError("a page never fetched was served")
        except urllib.error.HTTPError as e:
            assert e.code == 502
            body = e.read().decode()
            assert "never-asked-for" in body and "alice" not in body and str(upstream.port) not in body, body
    finally:
        proxy.stop()
    log = proxy.log.read_text()
    assert re.search(r"upstream unreachable \(.*\); serving the page of torch fetched before", log), log
    assert "s3cret" not in log

    # A proxy started again while the upstream is down serves the pages of its HTTP cache.
    proxy = proxy_of(tmp_path, with_credentials, log_name="proxy2.log")
    try:
        python = make_venv(vwheel, tmp_path / "venv3")
        r = vwheel("install", "torch", "--index-url", proxy.index_url, "--python", python, "--target", CUDA,
                   env={"XDG_CACHE_HOME": str(tmp_path / "cache3")})
        assert r.rc == 0, (r.out, r.err)
        assert_installed(vwheel, python, example.EXPECTED["cuda12.8-sm90"])
    finally:
        proxy.stop()
    log = proxy.log.read_text()
    assert re.search(r"upstream unreachable \(.*\); serving the cached page of torch", log), log
    assert "s3cret" not in log
    for path in (tmp_path / "proxy-cache").rglob("*"):
        if path.is_file():
            assert b"s3cret" not in path.read_bytes(), path


def test_a_corrupted_upstream_file_is_refused(vwheel, example_index, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(example_index / "site", site)
    name = wheel_file("mpmath")
    bad = next(site.rglob(name))
    data = bytearray(bad.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, another sha256
    bad.write_bytes(bytes(data))
    upstream = start_serve(tmp_path, site, log_name="upstream.log")
    proxy = proxy_of(tmp_path, upstream.index_url)
    try:
        page = json.loads(get(proxy.index_url + "mpmath/", "application/vnd.pypi.simple.v1+json")[1])
        url = next(f["url"] for f in page["files"] if f["filename"] == name)
        try:
            get(proxy.base + url)
            raise AssertionError("the corrupted file was served")
        except urllib.error.HTTPError as e:
            assert e.code == 502
            assert name in e.read().decode()
        assert not list((tmp_path / "proxy-cache").rglob(name))
        python = make_venv(vwheel, tmp_path / "venv")
        r = vwheel("install", "mpmath==1.3.0", "--index-url", proxy.index_url, "--python", python)
        assert r.rc != 0 and name in r.err, (r.out, r.err)
    finally:
        proxy.stop()
        upstream.stop()
    assert re.search(rf"{re.escape(name)}: not kept: .*sha256", proxy.log.read_text())


def at_once(count, fn):
    results = []
    threads = [threading.Thread(target=lambda: results.append(fn())) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_nodes_asking_for_one_file_at_once_cause_one_download(example_index, tmp_path):
    upstream = start_serve(tmp_path, example_index / "site", log_name="upstream.log")
    proxy = proxy_of(tmp_path, upstream.index_url)
    try:
        pages = at_once(6, lambda: get(proxy.index_url + "torch/", "application/vnd.pypi.simple.v1+json")[1])
        assert len(pages) == 6 and len(set(pages)) == 1
        assert re.findall(r'"GET (/simple/\S+) ', upstream.log.read_text()) == ["/simple/torch/"]
        page = json.loads(pages[0])
        entry = next(f for f in page["files"] if f["filename"] == wheel_file("torch", "cu128"))
        bodies = at_once(6, lambda: get(proxy.base + entry["url"])[1])
        assert len(bodies) == 6 and len(set(bodies)) == 1
        assert file_requests(upstream.log, entry["filename"]) == [f"/files/torch/{entry['filename']}"]
        # Kept by its sha256.
        assert (tmp_path / "proxy-cache" / "files" / entry["hashes"]["sha256"] / entry["filename"]).read_bytes() == bodies[0]
    finally:
        proxy.stop()
        upstream.stop()


def test_an_authenticated_upstream_behind_a_proxy_with_its_own_users(vwheel, example_index, tmp_path):
    """Both ends need credentials: the upstream wants the proxy's (alice, from the --upstream URL), the
    proxy (--read-auth) wants each node's own (bob, from the node's .netrc). Neither password reaches
    the other side, a page, the proxy's cache or a log."""
    from private_index import files_containing

    def htpasswd(path, user, password):
        hashed = subprocess.run(["openssl", "passwd", "-5", password], capture_output=True, text=True,
                                check=True).stdout.strip()
        path.write_text(f"{user}:{hashed}\n")
        return path

    upstream_pw, node_pw = "up-Secret-41", "node-Secret-73"
    upstream = start_serve(tmp_path, example_index / "site", "--read-auth",
                           htpasswd(tmp_path / "upstream.htpasswd", "alice", upstream_pw), log_name="upstream.log")
    proxy = proxy_of(tmp_path, upstream.index_url.replace("http://", f"http://alice:{upstream_pw}@"),
                     "--read-auth", htpasswd(tmp_path / "proxy.htpasswd", "bob", node_pw))
    try:
        # Without the node's credentials: 401 from the proxy, whatever the proxy may reach.
        try:
            get(proxy.index_url + "torch/")
            raise AssertionError("the proxy served a page without credentials")
        except urllib.error.HTTPError as e:
            assert e.code == 401
        netrc = tmp_path / "node.netrc"
        netrc.write_text(f"machine 127.0.0.1 login bob password {node_pw}\n")
        python = make_venv(vwheel, tmp_path / "venv")
        r = vwheel("install", "torch", "--index-url", proxy.index_url, "--python", python, "--target", CUDA,
                   env={"NETRC": str(netrc), "XDG_CACHE_HOME": str(tmp_path / "node-cache")})
        assert r.rc == 0, (r.out, r.err)
        assert_installed(vwheel, python, example.EXPECTED["cuda12.8-sm90"])
        assert "user=alice" in upstream.log.read_text()  # the proxy logged in to the upstream
        for secret in (upstream_pw, node_pw):
            assert secret not in r.out + r.err
            assert files_containing(secret, tmp_path / "proxy-cache", tmp_path / "node-cache", tmp_path / "venv") == []
        assert upstream_pw not in proxy.log.read_text() and node_pw not in proxy.log.read_text()
        assert node_pw not in upstream.log.read_text()
    finally:
        upstream.stop()
        proxy.stop()
