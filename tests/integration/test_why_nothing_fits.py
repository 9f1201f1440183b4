"""Issue 53, item 4: when a project has files but none can be installed, the error says why for
its newest versions (one line each, the first already in the summary): only a source
distribution, a Requires-Python that excludes the target's Python, only yanked files (with the
index's reason; a pin with == still installs them), no wheel for the target's tags (the files'
tags and the target's best), variant wheels none of which fits. A project without any files
keeps `no versions of X found`. Checked on a --find-links directory and on served PEP 503 (HTML)
and PEP 691 (JSON) pages (`data-requires-python` / `requires-python`, `data-yanked` / `yanked`)."""
import hashlib
import html
import io
import json
import tarfile

import pytest

from faultserver import FaultServer
from wheelfactory import make_wheel

# The target: Python 3.11.4 on x86_64 Linux, with fixed tags and no variant properties.
TARGET = {
    "properties": {},
    "detect": False,
    "environment": {"python_version": "3.11", "python_full_version": "3.11.4", "sys_platform": "linux",
                    "platform_machine": "x86_64", "os_name": "posix", "platform_system": "Linux",
                    "implementation_name": "cpython", "platform_python_implementation": "CPython"},
    "tags": ["cp311-cp311-manylinux_2_36_x86_64", "cp311-abi3-manylinux_2_36_x86_64", "py3-none-any"],
}
SDIST = "only a source distribution (vwheel installs wheels from indexes)"
TAGS = ("no wheel for the target's tags: the wheels are cp312-cp312-win_amd64, cp312-cp312-macosx_11_0_arm64; "
        "the target's best tag is cp311-cp311-manylinux_2_36_x86_64")


@pytest.fixture
def target(tmp_path):
    p = tmp_path / "target.json"
    p.write_text(json.dumps(TARGET))
    return p


def sdist(directory, filename):
    path = directory / filename
    with tarfile.open(path, "w:gz") as tar:
        data = b"Metadata-Version: 2.1\nName: x\nVersion: 1.0\n"
        info = tarfile.TarInfo(filename[:-len(".tar.gz")] + "/PKG-INFO")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


def install(vwheel, target, source, *reqs):
    return vwheel("install", *reqs, *source, "--target", target, "--dry-run")


def error_lines(r):
    assert r.rc == 1, (r.out, r.err)
    return r.err.rstrip("\n").split("\n")


def test_find_links_directory(vwheel, tmp_path, target):
    links = tmp_path / "links"
    links.mkdir()
    sdist(links, "onlysrc-1.0.tar.gz")
    sdist(links, "onlysrc-0.9.tar.gz")
    make_wheel(links, "wintags-2.0-cp312-cp312-win_amd64.whl")
    make_wheel(links, "wintags-2.0-cp312-cp312-macosx_11_0_arm64.whl")
    source = ("--find-links", links)

    assert error_lines(install(vwheel, target, source, "onlysrc")) == [
        f"vwheel: error: cannot resolve: no usable version of `onlysrc` (required by root): `onlysrc` 1.0, 0.9: {SDIST}",
        "  root requires `onlysrc` but no version of `onlysrc` can be used",
        f"  `onlysrc` 1.0, 0.9: {SDIST}",
        "  `onlysrc`: available none; tried none",
    ]
    assert error_lines(install(vwheel, target, source, "wintags")) == [
        f"vwheel: error: cannot resolve: no usable version of `wintags` (required by root): `wintags` 2.0: {TAGS}",
        "  root requires `wintags` but no version of `wintags` can be used",
        f"  `wintags` 2.0: {TAGS}",
        "  `wintags`: available none; tried none",
    ]
    # A project without any files keeps its message.
    assert error_lines(install(vwheel, target, source, "ghost")) == [
        "vwheel: error: cannot resolve: no versions of `ghost` found (required by root)",
        "  root requires `ghost` but no versions of `ghost` exist",
        "  `ghost`: available none; tried none",
    ]


def test_dependency_names_its_reason_in_the_summary(vwheel, tmp_path, target):
    links = tmp_path / "links"
    links.mkdir()
    make_wheel(links, "app-1.0-py3-none-any.whl", requires=["onlysrc>=1"])
    sdist(links, "onlysrc-1.0.tar.gz")
    lines = error_lines(install(vwheel, target, ("--find-links", links), "app"))
    assert lines[0] == (f"vwheel: error: cannot resolve: no usable version of `onlysrc` (required by app==1.0): "
                        f"`onlysrc` 1.0: {SDIST}"), lines
    assert f"  `onlysrc` 1.0: {SDIST}" in lines, lines


def test_variant_wheels_none_compatible(vwheel, tmp_path, target):
    src, links = tmp_path / "src", tmp_path / "links"
    src.mkdir()
    links.mkdir()
    plain = make_wheel(src, "vonly-1.0-py3-none-any.whl")
    r = vwheel("make-variant", plain, "-o", links, "--label", "v3", "-p", "x86_64 :: level :: v3")
    assert r.rc == 0, r.err
    assert error_lines(install(vwheel, target, ("--find-links", links), "vonly")) == [
        "vwheel: error: cannot resolve: no usable version of `vonly` (required by root): "
        "`vonly` 1.0: no compatible variant and no non-variant wheel",
        "  root requires `vonly` but no version of `vonly` can be used",
        "  `vonly` 1.0: no compatible variant and no non-variant wheel",
        "  `vonly`: available none; tried none",
    ]


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


# name -> [(filename, requires-python, yanked)]; yanked: None, True or a reason.
PROJECTS = {
    "onlysrc": [("onlysrc-1.0.tar.gz", None, None)],
    "newpy": [("newpy-2.0-py3-none-any.whl", ">=3.12", None), ("newpy-2.0.tar.gz", ">=3.12", None),
              ("newpy-1.0-py3-none-any.whl", None, None)],
    "yanked": [("yanked-1.0-py3-none-any.whl", None, "broken <build>"), ("yanked-0.9-py3-none-any.whl", None, True)],
    "wintags": [("wintags-2.0-cp312-cp312-win_amd64.whl", None, None),
                ("wintags-2.0-cp312-cp312-macosx_11_0_arm64.whl", None, None)],
}


def write_site(site, kind):
    files = site / "files"
    files.mkdir(parents=True)
    for name, entries in PROJECTS.items():
        paths = [sdist(files, f) if f.endswith(".tar.gz") else make_wheel(files, f) for f, _, _ in entries]
        page = site / "simple" / name
        page.mkdir(parents=True)
        if kind == "html":
            links = []
            for path, (_, rp, yanked) in zip(paths, entries):
                attrs = ""
                if rp:
                    attrs += f' data-requires-python="{html.escape(rp)}"'
                if yanked:
                    attrs += f' data-yanked="{html.escape(yanked if isinstance(yanked, str) else "")}"'
                links.append(f'<a href="../../files/{path.name}#sha256={sha256(path)}"{attrs}>{path.name}</a><br/>')
            (page / "index.html").write_text("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n")
        else:
            out = []
            for path, (_, rp, yanked) in zip(paths, entries):
                e = {"filename": path.name, "url": f"../../files/{path.name}", "hashes": {"sha256": sha256(path)}}
                if rp:
                    e["requires-python"] = rp
                if yanked:
                    e["yanked"] = yanked
                out.append(e)
            (page / "index.json").write_text(json.dumps({"meta": {"api-version": "1.1"}, "name": name, "files": out}))


@pytest.mark.parametrize("kind", ["html", "json"])
def test_served_index(vwheel, tmp_path, target, kind):
    site = tmp_path / "site"
    write_site(site, kind)
    with FaultServer(site) as server:
        source = ("--index-url", server.base + "/simple/")
        results = {req: install(vwheel, target, source, req)
                   for req in ("onlysrc", "newpy>=2", "newpy", "yanked", "yanked==1.0", "wintags")}
    assert error_lines(results["onlysrc"])[0] == (
        f"vwheel: error: cannot resolve: no usable version of `onlysrc` (required by root): `onlysrc` 1.0: {SDIST}")
    # Requires-Python from the index (the wheel's own METADATA says nothing): 1.0 is usable, so the
    # requirement that only 2.0 meets names 2.0's reason; without it, 1.0 is chosen.
    py = "`newpy` 2.0: Requires-Python >=3.12 excludes Python 3.11.4 (the target's)"
    lines = error_lines(results["newpy>=2"])
    assert lines[0] == f"vwheel: error: cannot resolve: no version of `newpy` satisfies `newpy>=2` (from root); {py}"
    assert lines[-2:] == [f"  {py}", "  `newpy`: available 1.0; tried none"], lines
    assert results["newpy"].rc == 0 and "newpy 1.0" in results["newpy"].out, results["newpy"].err
    # Yanked: the newest file's reason; a pin with == installs it anyway (pip's rule).
    yanked = "; a yanked version is installed only when pinned with =="
    assert error_lines(results["yanked"]) == [
        "vwheel: error: cannot resolve: no usable version of `yanked` (required by root): "
        f"`yanked` 1.0: yanked (broken <build>){yanked}",
        "  root requires `yanked` but no version of `yanked` can be used",
        f"  `yanked` 1.0: yanked (broken <build>){yanked}",
        f"  `yanked` 0.9: yanked{yanked}",
        "  `yanked`: available none; tried none",
    ]
    assert results["yanked==1.0"].rc == 0 and "yanked 1.0" in results["yanked==1.0"].out, results["yanked==1.0"].err
    assert error_lines(results["wintags"])[0] == (
        f"vwheel: error: cannot resolve: no usable version of `wintags` (required by root): `wintags` 2.0: {TAGS}")
