"""`vwheel index build`: a static simple index (PEP 503/691/658/714/592/700 + PEP 825's
`*-variants.json`) built from real wheels, then served by a real nginx with docs/index-and-server.md's
content-negotiation configuration and installed from with a real pip."""
import hashlib
import io
import json
import os
import shutil
import socket
import subprocess
import tarfile
import time
import urllib.parse
import urllib.request
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from wheelfactory import record_hash

NGINX = Path("/usr/sbin/nginx")
PYTHON = Path("/usr/bin/python3")
SCHEMA = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
JSON_TYPE = "application/vnd.pypi.simple.v1+json"


def make_dist(directory, filename, *, metadata_extra="", variant=None, module=None):
    """A wheel whose METADATA matches its file name, plus `metadata_extra` header lines; `variant`
    (label -> {namespace: {feature: [values]}}) adds a PEP 825 variant.json."""
    parts = filename[:-4].split("-")
    name, version = parts[0], parts[1]
    dist_info = f"{name}-{version}.dist-info"
    module = module or name.lower()
    members = [
        (f"{module}/__init__.py", f"NAME = {filename!r}\n".encode()),
        (f"{dist_info}/METADATA",
         f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata_extra}\nA test package.\n".encode()),
        (f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    if variant is not None:
        doc = {"$schema": SCHEMA, "default-priorities": {"namespace": sorted({ns for p in variant.values() for ns in p})},
               "variants": variant}
        members.append((f"{dist_info}/variant.json", json.dumps(doc, indent=4, sort_keys=True).encode()))
    path = Path(directory) / filename
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        lines = []
        for mpath, data in members:
            zf.writestr(mpath, data)
            lines.append(f"{mpath},{record_hash(data)},{len(data)}\n")
        lines.append(f"{dist_info}/RECORD,,\n")
        zf.writestr(f"{dist_info}/RECORD", "".join(lines))
    return path


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class Anchors(HTMLParser):
    def __init__(self):
        super().__init__()
        self.anchors = []
        self._current = None

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._current = dict(attrs)
            self._current["text"] = ""

    def handle_data(self, data):
        if self._current is not None:
            self._current["text"] += data

    def handle_endtag(self, tag):
        if tag == "a" and self._current is not None:
            self.anchors.append(self._current)
            self._current = None


def anchors(html):
    p = Anchors()
    p.feed(html)
    return {a["text"]: a for a in p.anchors}


@pytest.fixture
def wheels(tmp_path):
    d = tmp_path / "wheels"
    d.mkdir()
    v3 = {"v3": {"x86_64": {"level": ["v3"]}}}
    v4 = {"v4": {"x86_64": {"level": ["v4"]}}}
    make_dist(d, "Mixed_Pkg-1.0-py3-none-any.whl", metadata_extra="Requires-Python: >=3.8\n")
    make_dist(d, "Mixed_Pkg-1.0-py3-none-any-v3.whl", metadata_extra="Requires-Python: >=3.8\n", variant=v3)
    make_dist(d, "Mixed_Pkg-1.0-py3-none-any-v4.whl", metadata_extra="Requires-Python: >=3.8\n", variant=v4)
    make_dist(d, "Mixed_Pkg-0.9-py3-none-any.whl")
    make_dist(d, "onlyvariant-2.0-py3-none-any-v3.whl", variant=v3)
    return d


def build(vwheel, wheels, site, *args):
    r = vwheel("index", "build", wheels, "-o", site, "-j", "2", *args)
    assert r.rc == 0, r.err
    return r


def test_build_writes_pep503_691_658_and_825_files(vwheel, wheels, tmp_path):
    site = tmp_path / "site"
    r = build(vwheel, wheels, site)
    assert "2 project(s), 5 file(s), 2 variants.json" in r.err, r.err

    root = json.loads((site / "simple/index.json").read_text())
    assert root["meta"]["api-version"] == "1.1"
    assert [p["name"] for p in root["projects"]] == ["mixed-pkg", "onlyvariant"]
    root_html = (site / "simple/index.html").read_text()
    assert root_html.startswith("<!DOCTYPE html>")
    assert anchors(root_html)["mixed-pkg"]["href"] == "mixed-pkg/"

    page = json.loads((site / "simple/mixed-pkg/index.json").read_text())
    assert page["name"] == "mixed-pkg"
    assert page["versions"] == ["0.9", "1.0"]
    files = {f["filename"]: f for f in page["files"]}
    assert list(files) == [  # version, then file name
        "Mixed_Pkg-0.9-py3-none-any.whl",
        "Mixed_Pkg-1.0-py3-none-any-v3.whl",
        "Mixed_Pkg-1.0-py3-none-any-v4.whl",
        "Mixed_Pkg-1.0-py3-none-any.whl",
        "Mixed_Pkg-1.0-variants.json",
    ]
    html = (site / "simple/mixed-pkg/index.html").read_text()
    assert '<meta name="pypi:repository-version" content="1.1">' in html
    links = anchors(html)
    assert list(links) == list(files)
    for name, f in files.items():
        served = site / "files/mixed-pkg" / name
        assert f["url"] == f"../../files/mixed-pkg/{name}"
        assert f["hashes"]["sha256"] == sha256(served)
        assert f["size"] == served.stat().st_size
        assert links[name]["href"] == f"{f['url']}#sha256={f['hashes']['sha256']}"
        if name.endswith(".whl"):
            assert served.samefile(wheels / name)  # a hard link
            meta = Path(str(served) + ".metadata")
            with zipfile.ZipFile(served) as zf:
                assert meta.read_bytes() == zf.read("Mixed_Pkg-" + name.split("-")[1] + ".dist-info/METADATA")
            # PEP 714: the old name only in HTML (Debian 12's pip 23.0.1 crashes on it in JSON).
            assert f["core-metadata"] == {"sha256": sha256(meta)} and "dist-info-metadata" not in f
            assert links[name]["data-core-metadata"] == links[name]["data-dist-info-metadata"] == f"sha256={sha256(meta)}"
            assert f["yanked"] is False and "upload-time" in f
    # PEP 825: the `*-variants.json` entry carries nothing but file name, URL, hash and size.
    for name in ("Mixed_Pkg-1.0-variants.json",):
        assert sorted(files[name]) == ["filename", "hashes", "size", "url"], files[name]
        assert sorted(links[name]) == ["href", "text"], links[name]
    assert files["Mixed_Pkg-1.0-py3-none-any.whl"]["requires-python"] == ">=3.8"
    assert links["Mixed_Pkg-1.0-py3-none-any.whl"]["data-requires-python"] == ">=3.8"
    assert 'data-requires-python="&gt;=3.8"' in html
    assert "requires-python" not in files["Mixed_Pkg-0.9-py3-none-any.whl"]

    # The variants file is exactly what generate-index-json writes for the same wheels.
    ref = tmp_path / "ref"
    ref.mkdir()
    g = vwheel("generate-index-json", wheels, "-o", ref, "-q")
    assert g.rc == 0, g.err
    for name in ("Mixed_Pkg-1.0-variants.json", "onlyvariant-2.0-variants.json"):
        project = "mixed-pkg" if name.startswith("Mixed") else "onlyvariant"
        assert (site / "files" / project / name).read_bytes() == (ref / name).read_bytes()
    assert sorted(json.loads((site / "files/mixed-pkg/Mixed_Pkg-1.0-variants.json").read_text())["variants"]) == ["v3", "v4"]

    leftovers = [p for p in site.rglob("*") if ".tmp-" in p.name]
    assert leftovers == []


def test_incremental_rebuild_and_removal(vwheel, wheels, tmp_path):
    site = tmp_path / "site"
    build(vwheel, wheels, site)
    state = (site / ".vwheel/state.json").read_bytes()
    r = build(vwheel, wheels, site)
    assert "hashed 0, placed 0 (0 copied), wrote 0 variants.json and 0 project page(s), removed 0" in r.err, r.err
    assert (site / ".vwheel/state.json").read_bytes() == state

    os.utime(wheels / "onlyvariant-2.0-py3-none-any-v3.whl", (1_700_000_000, 1_700_000_000))
    r = build(vwheel, wheels, site)
    assert "hashed 1," in r.err and "and 1 project page(s)," in r.err, r.err

    (wheels / "Mixed_Pkg-1.0-py3-none-any-v4.whl").unlink()
    (wheels / "onlyvariant-2.0-py3-none-any-v3.whl").unlink()
    r = build(vwheel, wheels, site)
    assert "wrote 1 variants.json and 1 project page(s) and the project list, removed 3 file(s)" in r.err, r.err
    assert not (site / "files/mixed-pkg/Mixed_Pkg-1.0-py3-none-any-v4.whl").exists()
    assert not (site / "files/mixed-pkg/Mixed_Pkg-1.0-py3-none-any-v4.whl.metadata").exists()
    assert not (site / "simple/onlyvariant").exists() and not (site / "files/onlyvariant").exists()
    variants = json.loads((site / "files/mixed-pkg/Mixed_Pkg-1.0-variants.json").read_text())
    assert sorted(variants["variants"]) == ["v3"]
    assert [p["name"] for p in json.loads((site / "simple/index.json").read_text())["projects"]] == ["mixed-pkg"]


def tree(site):
    return {str(p.relative_to(site)): (p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else None)
            for p in sorted(site.rglob("*"))}


def test_broken_wheel_is_an_error_that_changes_nothing(vwheel, wheels, tmp_path):
    site = tmp_path / "site"
    build(vwheel, wheels, site)
    before = tree(site)
    make_dist(wheels, "newpkg-1.0-py3-none-any.whl")
    (wheels / "broken-1.0-py3-none-any.whl").write_bytes(b"PK\x03\x04 truncated")
    r = vwheel("index", "build", wheels, "-o", site)
    assert r.rc == 1
    assert "broken-1.0-py3-none-any.whl" in r.err and "nothing in the site was changed" in r.err, r.err
    assert tree(site) == before

    r = build(vwheel, wheels, site, "--skip-invalid")
    assert "warning: " in r.err and "broken-1.0-py3-none-any.whl" in r.err and "(skipped)" in r.err
    assert (site / "simple/newpkg/index.json").exists()
    assert not (site / "simple/broken").exists()


def test_yanked_and_base_url(vwheel, wheels, tmp_path):
    site = tmp_path / "site"
    yanked = tmp_path / "yanked.txt"
    yanked.write_text("# yanked\nMixed_Pkg-0.9-py3-none-any.whl\nmixed.pkg==1.0: broken <build>\nghost==1.0\n")
    r = build(vwheel, wheels, site, "--yanked", yanked, "--base-url", "https://example.org/pypi/")
    assert "`ghost==1.0` matches no file" in r.err
    page = json.loads((site / "simple/mixed-pkg/index.json").read_text())
    files = {f["filename"]: f for f in page["files"]}
    assert files["Mixed_Pkg-0.9-py3-none-any.whl"]["yanked"] is True
    assert files["Mixed_Pkg-1.0-py3-none-any.whl"]["yanked"] == "broken <build>"
    # The whole version is yanked, but PEP 825 forbids `yanked` on its `*-variants.json` entry.
    assert "yanked" not in files["Mixed_Pkg-1.0-variants.json"]
    assert files["Mixed_Pkg-1.0-py3-none-any.whl"]["url"] == \
        "https://example.org/pypi/files/mixed-pkg/Mixed_Pkg-1.0-py3-none-any.whl"
    links = anchors((site / "simple/mixed-pkg/index.html").read_text())
    assert links["Mixed_Pkg-0.9-py3-none-any.whl"]["data-yanked"] in ("", None)
    assert links["Mixed_Pkg-1.0-py3-none-any.whl"]["data-yanked"] == "broken <build>"
    assert "data-yanked" not in links["Mixed_Pkg-1.0-variants.json"]
    assert anchors((site / "simple/index.html").read_text())["mixed-pkg"]["href"] == \
        "https://example.org/pypi/simple/mixed-pkg/"

    yanked.write_text("bad==not-a-version!\n")
    r = vwheel("index", "build", wheels, "-o", site, "--yanked", yanked)
    assert r.rc == 1 and "yanked.txt:1" in r.err, r.err


# ---- served by nginx, installed from by pip ----

NGINX_CONF = """\
user root;
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
{body}
}}
"""


def documented_nginx_config():
    """The nginx configuration of docs/index-and-server.md (the part inside `http {}`)."""
    section = (Path(__file__).resolve().parents[2] / "docs" / "index-and-server.md").read_text()
    start = section.index("```nginx\n") + len("```nginx\n")
    return section[start:section.index("```", start)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(vwheel, wheels, tmp_path):
    if not NGINX.exists():
        pytest.skip(f"{NGINX} is not installed (apt-get install nginx-light)")
    site = tmp_path / "site"
    build(vwheel, wheels, site)
    ngx = tmp_path / "nginx"
    ngx.mkdir()
    port, html_port = free_port(), free_port()
    body = documented_nginx_config().replace("listen 80;", f"listen 127.0.0.1:{port};").replace("/srv/pypi", str(site))
    assert f"root {site};" in body, "the documented configuration serves `root /srv/pypi;` on `listen 80;`"
    # And SITE as any static file server without content negotiation serves it: HTML only.
    body += f"""
    server {{
        listen 127.0.0.1:{html_port};
        root {site};
    }}
"""
    (ngx / "nginx.conf").write_text(NGINX_CONF.format(tmp=ngx, body=body))
    proc = subprocess.Popen([str(NGINX), "-e", "stderr", "-p", str(ngx), "-c", str(ngx / "nginx.conf"),
                             "-g", "daemon off;"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 10
    while True:
        try:
            urllib.request.urlopen(base + "/simple/", timeout=1).read()
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                out, err = proc.communicate()
                pytest.fail(f"nginx did not start: {err.decode()}")
            time.sleep(0.05)
    yield {"base": base, "html_base": f"http://127.0.0.1:{html_port}", "site": site,
           "access_log": ngx / "access.log", "tmp": tmp_path}
    proc.terminate()
    proc.wait(timeout=10)


def curl(url, *headers):
    args = ["curl", "-sS", "-D", "-", "-o", "-"]
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


def test_nginx_negotiates_json_and_html(served):
    base = served["base"]
    status, headers, body = curl(f"{base}/simple/mixed-pkg/", f"Accept: {JSON_TYPE}")
    assert status == 200
    assert headers["content-type"] == JSON_TYPE
    page = json.loads(body)
    assert page["meta"]["api-version"] == "1.1" and page["name"] == "mixed-pkg"
    assert "accept" in headers.get("vary", "").lower()
    # What pip sends, and the `latest` alias of PEP 691.
    pip_accept = f"Accept: {JSON_TYPE}, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01"
    assert curl(f"{base}/simple/mixed-pkg/", pip_accept)[1]["content-type"] == JSON_TYPE
    assert curl(f"{base}/simple/mixed-pkg/", "Accept: application/vnd.pypi.simple.latest+json")[1]["content-type"] == JSON_TYPE
    status, headers, body = curl(f"{base}/simple/", f"Accept: {JSON_TYPE}")
    assert headers["content-type"] == JSON_TYPE and json.loads(body)["projects"][0]["name"] == "mixed-pkg"

    for accept in ((), ("Accept: text/html",), ("Accept: application/vnd.pypi.simple.v1+html",)):
        status, headers, body = curl(f"{base}/simple/mixed-pkg/", *accept)
        assert status == 200
        assert headers["content-type"].startswith("text/html")
        assert body.startswith("<!DOCTYPE html>") and "Mixed_Pkg-1.0-variants.json" in body

    # Files, metadata and the variants file are served as written; the state is not served.
    status, _, body = curl(f"{base}/files/mixed-pkg/Mixed_Pkg-1.0-py3-none-any.whl.metadata")
    assert status == 200 and body.startswith("Metadata-Version: 2.1\nName: Mixed_Pkg\n")
    status, headers, body = curl(f"{base}/files/mixed-pkg/Mixed_Pkg-1.0-variants.json")
    assert status == 200 and headers["content-type"] == "application/json" and "v4" in json.loads(body)["variants"]
    assert curl(f"{base}/.vwheel/state.json")[0] == 404


def pip_install(served, *args, python=PYTHON, base=None):
    tmp = served["tmp"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp / "pip-home"), "PIP_CONFIG_FILE": os.devnull,
           "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LANG": "C.UTF-8"}
    return subprocess.run([str(python), "-m", "pip", "install", "--no-cache-dir", "--index-url",
                           (base or served["base"]) + "/simple/", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def pip_version(python):
    r = subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "PIP_CONFIG_FILE": os.devnull}, timeout=60)
    if r.returncode != 0:
        return None
    return tuple(int(x) for x in r.stdout.split()[1].split(".")[:2])


def require_system_pip():
    if not PYTHON.exists() or pip_version(PYTHON) is None:
        pytest.skip(f"no pip for {PYTHON} (apt-get install python3-pip)")


def test_pip_installs_the_non_variant_wheel(served):
    require_system_pip()
    target = served["tmp"] / "target"
    r = pip_install(served, "--target", str(target), "mixed-pkg")
    assert r.returncode == 0, r.stdout + r.stderr
    dist_infos = sorted(p.name for p in target.glob("*.dist-info"))
    assert dist_infos == ["Mixed_Pkg-1.0.dist-info"]
    assert not (target / "Mixed_Pkg-1.0.dist-info/variant.json").exists()
    assert (target / "mixed_pkg/__init__.py").read_text() == "NAME = 'Mixed_Pkg-1.0-py3-none-any.whl'\n"
    log = served["access_log"].read_text()
    assert "GET /simple/mixed-pkg/ " in log  # negotiated: pip asks for JSON first
    assert "GET /files/mixed-pkg/Mixed_Pkg-1.0-py3-none-any.whl " in log
    assert "-v3.whl" not in log and "-v4.whl" not in log and "variants.json" not in log


def pip_requests(served, seen):
    """The paths pip asked for, past the first `seen` lines of the access log."""
    log = served["access_log"].read_text().splitlines()[seen:]
    return [line.split('"')[1].split()[1] for line in log if "pip/" in line]


def log_lines(served):
    log = served["access_log"]
    return len(log.read_text().splitlines()) if log.exists() else 0


def check_pep658(served, python, base, target):
    # Asked for by the name METADATA spells: pip 23.0.1's metadata-only path compares the names
    # without normalizing them ("inconsistent Name: expected 'mixed-pkg', but metadata has
    # 'Mixed_Pkg'"), a pip bug fixed in 23.1.
    seen = log_lines(served)
    r = pip_install(served, "--target", str(target), "Mixed_Pkg", python=python, base=base)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "Mixed_Pkg-1.0.dist-info").is_dir()
    # pip fetched the metadata file and checked it against the advertised sha256 before it
    # downloaded the wheel.
    requests = pip_requests(served, seen)
    metadata = "/files/mixed-pkg/Mixed_Pkg-1.0-py3-none-any.whl.metadata"
    wheel = "/files/mixed-pkg/Mixed_Pkg-1.0-py3-none-any.whl"
    assert metadata in requests, requests
    assert wheel in requests and requests.index(metadata) < requests.index(wheel), requests


def test_pip_uses_pep658_metadata_from_html(served):
    """Every pip since 22.3 reads `data-dist-info-metadata` from HTML pages."""
    require_system_pip()
    check_pep658(served, PYTHON, served["html_base"], served["tmp"] / "target-html")


def test_json_pages_carry_pep714_core_metadata_that_pip_reads(served):
    """PEP 714: a JSON page advertises `core-metadata` (never the older `dist-info-metadata`, on
    which Debian 12's pip 23.0.1 crashes) with the sha256 of the `.metadata` file beside the wheel,
    which is the wheel's own METADATA. pip >= 23.2 reads it: where one is installed, pip must fetch
    the metadata before the wheel, as with HTML pages. Older pips (Debian 12 has 23.0.1 only, and
    nothing newer can be installed offline) ignore it and must install from the JSON page all the
    same."""
    req = urllib.request.Request(served["base"] + "/simple/mixed-pkg/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    page = json.loads(urllib.request.urlopen(req, timeout=10).read())
    entry = next(f for f in page["files"] if f["filename"] == "Mixed_Pkg-1.0-py3-none-any.whl")
    assert "dist-info-metadata" not in entry and "data-dist-info-metadata" not in entry, entry
    digest = entry["core-metadata"]["sha256"]
    wheel_url = urllib.parse.urljoin(served["base"] + "/simple/mixed-pkg/", entry["url"].split("#")[0])
    metadata = urllib.request.urlopen(wheel_url + ".metadata", timeout=10).read()
    assert hashlib.sha256(metadata).hexdigest() == digest
    wheel = zipfile.ZipFile(io.BytesIO(urllib.request.urlopen(wheel_url, timeout=10).read()))
    assert wheel.read("Mixed_Pkg-1.0.dist-info/METADATA") == metadata

    require_system_pip()
    candidates = [str(PYTHON)]
    for name in ("python3", "python3.13", "python3.12", "python3.11", "python3.10"):
        found = shutil.which(name)
        if found and os.path.realpath(found) not in [os.path.realpath(c) for c in candidates]:
            candidates.append(found)
    for i, python in enumerate(candidates):
        version = pip_version(python)
        target = served["tmp"] / f"target-json-{i}"
        if version is None:
            continue
        if version >= (23, 2):
            check_pep658(served, python, served["base"], target)
        else:
            seen = log_lines(served)
            r = pip_install(served, "--target", str(target), "mixed-pkg", python=python)
            assert r.returncode == 0, (python, version, r.stdout + r.stderr)
            assert (target / "mixed_pkg/__init__.py").read_text() == "NAME = 'Mixed_Pkg-1.0-py3-none-any.whl'\n"
            # The page, then the wheel: nothing on it that such a pip takes for metadata to fetch.
            assert pip_requests(served, seen) == ["/simple/mixed-pkg/",
                                                  "/files/mixed-pkg/Mixed_Pkg-1.0-py3-none-any.whl"], version


def test_pip_finds_nothing_when_only_variant_wheels_exist(served):
    require_system_pip()
    r = pip_install(served, "--target", str(served["tmp"] / "target2"), "onlyvariant")
    assert r.returncode != 0
    assert "No matching distribution found for onlyvariant" in r.stdout + r.stderr, r.stdout + r.stderr
    assert not list((served["tmp"] / "target2").glob("*.dist-info"))


def test_warns_about_versions_with_only_variant_wheels(vwheel, wheels, tmp_path):
    # onlyvariant 2.0 has one variant wheel and nothing else: pip & co. would find nothing for it.
    # mixed-pkg 1.0 has a non-variant wheel beside its variants, 0.9 none: no warning for either.
    site = tmp_path / "site"
    r = build(vwheel, wheels, site, "-q")
    assert [line for line in r.err.splitlines() if line.startswith("vwheel: warning: ")] == [
        "vwheel: warning: onlyvariant: installers without variant support will find nothing for 2.0 (it has only "
        "variant wheels; add a non-variant wheel or an sdist)"
    ], r.err
    # An sdist (or a non-variant wheel) of that version is enough; other versions are judged alone.
    with tarfile.open(wheels / "onlyvariant-2.0.tar.gz", "w:gz") as tf:
        info = tarfile.TarInfo("onlyvariant-2.0/PKG-INFO")
        body = b"Metadata-Version: 2.1\nName: onlyvariant\nVersion: 2.0\n"
        info.size = len(body)
        tf.addfile(info, io.BytesIO(body))
    make_dist(wheels, "onlyvariant-3.0-py3-none-any-v3.whl", variant={"v3": {"x86_64": {"level": ["v3"]}}})
    make_dist(wheels, "onlyvariant-3.0-py3-none-any-v4.whl", variant={"v4": {"x86_64": {"level": ["v4"]}}})
    r = build(vwheel, wheels, site, "-q")
    assert [line for line in r.err.splitlines() if line.startswith("vwheel: warning: ")] == [
        "vwheel: warning: onlyvariant: installers without variant support will find nothing for 3.0 (it has only "
        "variant wheels; add a non-variant wheel or an sdist)"
    ], r.err
