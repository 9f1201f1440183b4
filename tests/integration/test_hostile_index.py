"""Smaller hostile-index cases of issue 16 (item 8): a server that drips a byte at a time meets an
overall deadline, and a remote page may not link local `file:` URLs."""
import sys
from pathlib import Path

import pytest

from faultserver import FaultServer
from served import clean_env

sys.path.insert(0, str(Path(__file__).parent))
from test_index_build import make_dist  # noqa: E402

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


@pytest.fixture
def site(vwheel, tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_dist(wheels, "plain-1.0-py3-none-any.whl")
    out = tmp_path / "site"
    r = vwheel("index", "build", wheels, "-o", out)
    assert r.rc == 0, r.err
    return out


@pytest.fixture
def venv(vwheel, tmp_path):
    r = vwheel("venv", tmp_path / "venv", "--python", PY)
    assert r.rc == 0, r.err
    return tmp_path / "venv"


def installed(venv):
    return sorted(p.name for p in venv.glob("lib/python*/site-packages/*.dist-info"))


def test_a_dripping_download_fails_at_the_deadline(vwheel, tmp_path, site, venv):
    """One byte a second never trips the stall check (--timeout 3); the average-rate deadline does."""
    with FaultServer(site) as server:
        server.fault("*/plain-1.0-py3-none-any.whl", "drip", delay=1.0)
        r = vwheel("install", "plain", "--index-url", server.base + "/simple/", "--python", venv / "bin" / "python",
                   "--timeout", "3", "--retries", "0", env=clean_env(tmp_path))
    assert r.rc != 0, r.err
    assert "too slow" in r.err and "plain-1.0-py3-none-any.whl" in r.err, r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert installed(venv) == []


@pytest.mark.parametrize("page", ["index.html", "index.json"])
def test_a_remote_page_linking_a_local_file_is_refused(vwheel, tmp_path, venv, page):
    local = tmp_path / "local"
    local.mkdir()
    wheel = make_dist(local, "evil-1.0-py3-none-any.whl")
    site = tmp_path / "hostile"
    (site / "simple" / "evil").mkdir(parents=True)
    url = wheel.as_uri()
    if page == "index.html":
        body = f'<html><body><a href="{url}">evil-1.0-py3-none-any.whl</a></body></html>\n'
    else:
        body = ('{"meta": {"api-version": "1.1"}, "name": "evil", "files": [{"filename": "evil-1.0-py3-none-any.whl", '
                f'"url": "{url}", "hashes": {{}}}}]}}\n')
    (site / "simple" / "evil" / page).write_text(body)
    with FaultServer(site) as server:
        r = vwheel("install", "evil", "--index-url", server.base + "/simple/", "--python", venv / "bin" / "python",
                   env=clean_env(tmp_path))
        page_url = server.base + "/simple/evil/"
    assert r.rc == 1, (r.rc, r.err)
    line = r.err.strip()
    assert len(line.splitlines()) == 1 and page_url in line and url in line and "local file" in line, line
    assert installed(venv) == []


def test_index_build_removes_temporaries_a_killed_build_left(vwheel, tmp_path, site):
    """`.NAME.tmp-PID-N` files are what a build writes before its renames; a kill leaves them."""
    stale = [site / "simple" / ".index.json.tmp-4242-0", site / "simple" / "plain" / ".index.html.tmp-4242-3",
             site / "files" / "plain" / ".plain-1.0-py3-none-any.whl.tmp-4242-1"]
    for p in stale:
        p.write_bytes(b"half written")
    keep = site / "files" / "plain" / ".tmp-not-ours"
    keep.write_bytes(b"someone else's")
    r = vwheel("index", "build", tmp_path / "wheels", "-o", site)
    assert r.rc == 0, r.err
    assert [p for p in stale if p.exists()] == []
    assert keep.read_bytes() == b"someone else's"
