"""The index is not trusted over the wheel (issue 16, item 6): after download, and for a cached
wheel when it is used, the wheel's own `variant.json` must give its label the properties the
index's `*-variants.json` gave it, and its METADATA must agree with the PEP 658 `.metadata` the
resolution used. A hostile index is made by building an honest one with `vwheel index build`
and then swapping a wheel under it (fixing up the hashes the index lists, as an attacker who
controls the index would)."""
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from served import clean_env, start_serve

sys.path.insert(0, str(Path(__file__).parent))
from test_index_build import make_dist, sha256  # noqa: E402

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
V1 = {"x1": {"x86_64": {"level": ["v1"]}}}
V3_AS_X1 = {"x1": {"x86_64": {"level": ["v3"]}}}
WHEEL = "vpkg-1.0-py3-none-any-x1.whl"


def v2_profile(tmp_path):
    profile = json.loads((ROOT / "examples" / "profiles" / "x86_64-v3.json").read_text())
    profile["properties"]["x86_64"][0]["values"] = ["v2", "v1"]
    path = tmp_path / "x86_64-v2.json"
    path.write_text(json.dumps(profile))
    return path


def swap_wheel(site, project, filename, replacement):
    """Puts `replacement` where the index serves `filename`, and rewrites every hash and size the
    index lists for it."""
    served = site / "files" / project / filename
    old_sha, old_size = sha256(served), served.stat().st_size
    shutil.copyfile(replacement, served)
    new_sha, new_size = sha256(served), served.stat().st_size
    for page in (site / "simple" / project).iterdir():
        text = page.read_text()
        text = text.replace(old_sha, new_sha).replace(f'"size": {old_size}', f'"size": {new_size}')
        page.write_text(text)


@pytest.fixture
def site(vwheel, tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_dist(wheels, WHEEL, variant=V1, metadata_extra="Requires-Dist: dep\n")
    make_dist(wheels, "dep-1.0-py3-none-any.whl")
    out = tmp_path / "site"
    r = vwheel("index", "build", wheels, "-o", out)
    assert r.rc == 0, r.err
    return out


def run_install(vwheel, tmp_path, site):
    served = start_serve(tmp_path, site)
    try:
        venv = tmp_path / "venv"
        r = vwheel("venv", venv, "--python", PY)
        assert r.rc == 0, r.err
        python = venv / "bin" / "python"
        r = vwheel("install", "vpkg", "--index-url", served.index_url, "--python", python,
                   "--target", v2_profile(tmp_path), env=clean_env(tmp_path))
        return r, served.base, venv
    finally:
        served.stop()


def installed(venv):
    return sorted(p.name for p in venv.glob("lib/python*/site-packages/*.dist-info"))


def test_honest_index_installs(vwheel, tmp_path, site):
    r, _, venv = run_install(vwheel, tmp_path, site)
    assert r.rc == 0, r.err
    assert installed(venv) == ["dep-1.0.dist-info", "vpkg-1.0.dist-info"]


def test_wheel_of_another_variant_than_the_index_says_is_refused(vwheel, tmp_path, site):
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    make_dist(hostile, WHEEL, variant=V3_AS_X1, metadata_extra="Requires-Dist: dep\n")
    swap_wheel(site, "vpkg", WHEEL, hostile / WHEEL)
    r, url, venv = run_install(vwheel, tmp_path, site)
    assert r.rc == 1, (r.rc, r.err)
    lines = r.err.strip().splitlines()
    line = next(l for l in lines if "variant.json" in l)
    assert WHEEL in line and url in line and "x86_64 :: level :: v3" in line and "x86_64 :: level :: v1" in line, line
    assert "vpkg-1.0-variants.json" in line, line
    assert installed(venv) == []


@pytest.mark.parametrize("extra", ["Requires-Dist: dep\nRequires-Dist: evil\n", "Requires-Dist: dep\n"])
def test_metadata_that_differs_from_the_index_is_refused(vwheel, tmp_path, site, extra):
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    if "evil" in extra:
        made = make_dist(hostile, WHEEL, variant=V1, metadata_extra=extra)
        what = "Requires-Dist only in the wheel: [evil]"
    else:
        # Same file name, another version inside.
        made = make_dist(hostile, "vpkg-2.0-py3-none-any-x1.whl", variant=V1, metadata_extra=extra)
        made = made.rename(hostile / WHEEL)
        what = "Version `2.0` in the wheel, `1.0` there"
    swap_wheel(site, "vpkg", WHEEL, made)
    r, url, venv = run_install(vwheel, tmp_path, site)
    assert r.rc == 1, (r.rc, r.err)
    line = next(l for l in r.err.strip().splitlines() if "METADATA" in l)
    assert WHEEL in line and url in line and ".metadata" in line and what in line, line
    assert installed(venv) == []


def test_cached_wheel_is_checked_when_used(vwheel, tmp_path, site):
    """A wheel already in the cache under the index's digest is checked again at the time it is used."""
    r, _, venv = run_install(vwheel, tmp_path, site)
    assert r.rc == 0, r.err
    # The index now lies about the label's properties (the variants.json and its listed hash).
    vj = site / "files" / "vpkg" / "vpkg-1.0-variants.json"
    old = sha256(vj)
    doc = json.loads(vj.read_text())
    doc["variants"]["x1"] = {"x86_64": {"level": ["v2"]}}
    vj.write_text(json.dumps(doc, indent=4, sort_keys=True))
    for page in (site / "simple" / "vpkg").iterdir():
        page.write_text(page.read_text().replace(old, sha256(vj)))
    shutil.rmtree(venv)
    r, _, venv = run_install(vwheel, tmp_path, site)
    assert r.rc == 1, (r.rc, r.err)
    assert "x86_64 :: level :: v2" in r.err and "x86_64 :: level :: v1" in r.err, r.err
    assert installed(venv) == []
