"""`vwheel build`: a PEP 517 frontend run against Debian's real setuptools (and hatchling), and
against broken backends (one that raises, one that hangs, one that returns another project's wheel).
"""
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

PY = "/usr/bin/python3"  # Debian's interpreter: python3-setuptools, python3-wheel (scripts/bootstrap)

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "{backend}"
{backend_path}
[project]
name = "demo-build"
version = "1.0"

[tool.setuptools]
packages = ["demo_build"]

[variant.default-priorities]
namespace = ["x86_64"]

[variant.providers.x86_64]
requires = ["provider-variant-x86-64 >=0.0.1"]
plugin-api = "provider_variant_x86_64.plugin:X8664Plugin"

[variant.variants.null]

[variant.variants.v1]
x86_64.level = ["v1"]

[variant.variants.v3]
x86_64.level = ["v3"]
"""

# A backend that wraps setuptools' and misbehaves for one variant label (BAD_LABEL), as BAD_MODE says.
BROKEN_BACKEND = """\
import base64, hashlib, json, os, sys, time, zipfile
from setuptools import build_meta as _sb
from setuptools.build_meta import get_requires_for_build_wheel

BAD_LABEL = {label!r}
BAD_MODE = {mode!r}

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if (config_settings or {{}}).get("variant-label") == BAD_LABEL:
        for i in range(40):
            print(f"compiling step {{i}}")
        if BAD_MODE == "raise":
            print("error: the compiler exploded", file=sys.stderr)
            raise RuntimeError("backend failure for " + BAD_LABEL)
        if BAD_MODE == "hang":
            sys.stdout.flush()
            time.sleep(600)
        if BAD_MODE in ("other-project", "other-version"):
            name = "other_pkg-1.0" if BAD_MODE == "other-project" else "demo_build-9.9"
            fn = name + "-py3-none-any.whl"
            with zipfile.ZipFile(os.path.join(wheel_directory, fn), "w") as z:
                z.writestr(name + ".dist-info/METADATA", "Metadata-Version: 2.1\\n")
            return fn
        if BAD_MODE in ("aware", "aware-wrong"):
            # A variant-aware backend: it writes variant.json itself (right or wrong).
            fn = _sb.build_wheel(wheel_directory, config_settings, metadata_directory)
            level = "v4" if BAD_MODE == "aware-wrong" else BAD_LABEL
            vj = {{"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
                  "default-priorities": {{"namespace": ["x86_64"]}},
                  "providers": {{"x86_64": {{"requires": ["provider-variant-x86-64 >=0.0.1"],
                                             "plugin-api": "provider_variant_x86_64.plugin:X8664Plugin"}}}},
                  "variants": {{BAD_LABEL: {{"x86_64": {{"level": [level]}}}}}}}}
            out = fn[:-4] + "-" + BAD_LABEL + ".whl"
            data = json.dumps(vj).encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            with zipfile.ZipFile(os.path.join(wheel_directory, fn)) as zin:
                with zipfile.ZipFile(os.path.join(wheel_directory, out), "w") as zout:
                    for item in zin.infolist():
                        content = zin.read(item)
                        if item.filename.endswith(".dist-info/RECORD"):
                            path = item.filename[:-6] + "variant.json"
                            zout.writestr(path, data)
                            # Listed in RECORD, as vwheel checks every wheel as install would.
                            content += ("%s,sha256=%s,%d\\n" % (path, digest, len(data))).encode()
                        zout.writestr(item, content)
            os.remove(os.path.join(wheel_directory, fn))
            return out
    return _sb.build_wheel(wheel_directory, config_settings, metadata_directory)
"""


def write_project(root, backend="setuptools.build_meta", broken=None):
    root.mkdir(parents=True, exist_ok=True)
    backend_path = ""
    if broken:
        backend, backend_path = "broken_backend", 'backend-path = ["_backend"]\n'
        (root / "_backend").mkdir()
        (root / "_backend" / "broken_backend.py").write_text(BROKEN_BACKEND.format(label=broken[0], mode=broken[1]))
    (root / "pyproject.toml").write_text(PYPROJECT.format(backend=backend, backend_path=backend_path))
    (root / "demo_build").mkdir()
    (root / "demo_build" / "__init__.py").write_text("VALUE = 42\n")
    return root


def members(path, skip=("variant.json", "RECORD")):
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist() if n.rsplit("/", 1)[-1] not in skip}


def variant_json(path):
    with zipfile.ZipFile(path) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/variant.json")]
        return json.loads(z.read(name))


def direct_build(project, tmp_path):
    """The wheel setuptools' backend makes when called directly (the reference)."""
    src = tmp_path / "direct-src"
    shutil.copytree(project, src)
    out = tmp_path / "direct-out"
    out.mkdir()
    r = subprocess.run([PY, "-c", "import sys, setuptools.build_meta as b; print(b.build_wheel(sys.argv[1]))", str(out)],
                       cwd=src, capture_output=True, text=True, check=True)
    return out / r.stdout.strip().splitlines()[-1]


def no_leftovers(dist):
    assert not [p for p in dist.iterdir() if p.name.startswith(".vwheel-build-")], list(dist.iterdir())


def test_setuptools_builds_null_and_two_labels_equal_to_the_plain_build(vwheel, tmp_path):
    project = write_project(tmp_path / "proj")
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", PY, "-j", "2")
    assert r.rc == 0, r.err
    names = sorted(p.name for p in dist.iterdir())
    assert names == ["demo_build-1.0-py3-none-any-null.whl", "demo_build-1.0-py3-none-any-v1.whl",
                     "demo_build-1.0-py3-none-any-v3.whl", "demo_build-1.0-variants.json"], names
    assert r.out.splitlines() == [str(dist / n) for n in names], r.out
    reference = members(direct_build(project, tmp_path))
    assert "demo_build/__init__.py" in reference
    for label, level in (("null", None), ("v1", "v1"), ("v3", "v3")):
        wheel = dist / f"demo_build-1.0-py3-none-any-{label}.whl"
        vj = variant_json(wheel)
        assert vj["variants"] == {label: {"x86_64": {"level": [level]}} if level else {}}, vj
        assert vj["default-priorities"]["namespace"] == ["x86_64"]
        assert vj["providers"]["x86_64"]["plugin-api"] == "provider_variant_x86_64.plugin:X8664Plugin"
        assert members(wheel) == reference, label
    index = json.loads((dist / "demo_build-1.0-variants.json").read_text())
    assert sorted(index["variants"]) == ["null", "v1", "v3"]
    no_leftovers(dist)
    assert not (project / "build").exists() and not list(project.glob("*.egg-info")), "the source tree is untouched"

    # The installer picks the best of them for a target profile.
    venv = tmp_path / "venv"
    assert vwheel("venv", venv, "--python", PY).rc == 0
    py = venv / "bin" / "python"
    for levels, expected in ((["v2", "v1"], "v1"), (["v4", "v3", "v2", "v1"], "v3"), ([], "null")):
        profile = tmp_path / f"target-{expected}.json"
        profile.write_text(json.dumps(
            {"properties": {"x86_64": [{"name": "level", "values": levels, "multi_value": False}]} if levels else {}}))
        r = vwheel("install", "demo-build", "--find-links", dist, "--no-index", "--python", py, "--target", profile,
                   "--force-reinstall")
        assert r.rc == 0, r.err
        assert f"demo_build-1.0-py3-none-any-{expected}.whl" in r.out, r.out


def test_nothing_requested_builds_the_plain_wheel(vwheel, tmp_path):
    project = write_project(tmp_path / "proj")
    r = vwheel("build", project, "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    dist = project / "dist"
    assert sorted(p.name for p in dist.iterdir()) == ["demo_build-1.0-py3-none-any.whl"]
    assert members(dist / "demo_build-1.0-py3-none-any.whl") == members(direct_build(project, tmp_path))


def test_one_label_and_the_null_variant(vwheel, tmp_path):
    project = write_project(tmp_path / "proj")
    dist = tmp_path / "dist"
    # --variant and -C take one value each, so SRC may come after them.
    r = vwheel("build", "--variant", "v3", "-C", "x=1", "--null", project, "-o", dist, "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    assert sorted(p.name for p in dist.iterdir()) == ["demo_build-1.0-py3-none-any-null.whl",
                                                      "demo_build-1.0-py3-none-any-v3.whl",
                                                      "demo_build-1.0-variants.json"]


def test_properties_on_the_command_line_without_a_variants_table(vwheel, tmp_path):
    project = write_project(tmp_path / "proj")
    text = (project / "pyproject.toml").read_text()
    (project / "pyproject.toml").write_text(text[: text.index("[variant.variants.null]")])
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--variant", "fast", "-p", "x86_64 :: level :: v2", "--no-isolation",
               "--python", PY)
    assert r.rc == 0, r.err
    vj = variant_json(dist / "demo_build-1.0-py3-none-any-fast.whl")
    assert vj["variants"] == {"fast": {"x86_64": {"level": ["v2"]}}}


@pytest.mark.parametrize("args,message", [
    (["--variant", "v9"], "vwheel: error: --variant `v9`: no such label in [variant.variants] (known: `null`, `v1`, `v3`)"),
    (["--all-variants", "--variant", "v1"], "vwheel: error: --all-variants cannot be combined with --variant"),
    (["-C", "oops"], "vwheel: error: -C `oops`: expected KEY=VALUE"),
])
def test_bad_selections(vwheel, tmp_path, args, message):
    project = write_project(tmp_path / "proj")
    r = vwheel("build", project, "-o", tmp_path / "dist", *args, "--no-isolation", "--python", PY)
    assert r.rc == 1 and r.err.strip() == message, r.err
    assert not (tmp_path / "dist").exists(), "nothing is created"


def test_missing_build_requirements_are_named(vwheel, tmp_path):
    project = write_project(tmp_path / "proj")
    text = (project / "pyproject.toml").read_text()
    (project / "pyproject.toml").write_text(text.replace('"wheel"]', '"wheel", "no-such-build-dep>=1", "setuptools>=999"]'))
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--no-isolation", "--python", PY)
    assert r.rc == 1
    assert ("vwheel: error: the plain wheel: build requirements missing from the interpreter's environment "
            "(--no-isolation): `no-such-build-dep>=1` (not installed), `setuptools>=999` (installed: ") in r.err, r.err
    assert not dist.exists(), "the output folder this run created is gone again"


def debian_wheels(directory):
    """setuptools' wheel as Debian ships it (python3-setuptools-whl) and a wheel of Debian's `wheel`
    package (python3-wheel ships no .whl): what an isolated setuptools build needs."""
    import base64
    import hashlib
    directory.mkdir()
    shutil.copy(next(Path("/usr/share/python-wheels").glob("setuptools-*.whl")), directory)
    src = Path("/usr/lib/python3/dist-packages/wheel")
    info = "wheel-0.38.4.dist-info"
    record = []
    with zipfile.ZipFile(directory / "wheel-0.38.4-py3-none-any.whl", "w") as z:
        def add(name, data):
            z.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        for f in sorted(src.rglob("*.py")):
            add("wheel/" + f.relative_to(src).as_posix(), f.read_bytes())
        add(info + "/METADATA", b"Metadata-Version: 2.1\nName: wheel\nVersion: 0.38.4\n")
        add(info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        add(info + "/entry_points.txt", b"[distutils.commands]\nbdist_wheel = wheel.bdist_wheel:bdist_wheel\n")
        z.writestr(info + "/RECORD", "\n".join(record + [info + "/RECORD,,"]) + "\n")
    return directory


def test_isolated_build_installs_the_requirements_from_find_links(vwheel, tmp_path):
    project = write_project(tmp_path / "proj")
    links = debian_wheels(tmp_path / "links")
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--all-variants", "--python", PY, "-f", links, "--no-index", "-j", "2")
    assert r.rc == 0, r.err
    assert sorted(p.name for p in dist.iterdir()) == ["demo_build-1.0-py3-none-any-null.whl",
                                                      "demo_build-1.0-py3-none-any-v1.whl",
                                                      "demo_build-1.0-py3-none-any-v3.whl",
                                                      "demo_build-1.0-variants.json"]
    reference = members(direct_build(project, tmp_path))
    for label in ("null", "v1", "v3"):
        assert members(dist / f"demo_build-1.0-py3-none-any-{label}.whl") == reference, label
    no_leftovers(dist)


def test_isolated_build_names_what_it_cannot_install(vwheel, tmp_path):
    project = write_project(tmp_path / "proj")
    links = debian_wheels(tmp_path / "links")
    (links / "wheel-0.38.4-py3-none-any.whl").unlink()
    text = (project / "pyproject.toml").read_text()
    (project / "pyproject.toml").write_text(text.replace('"wheel"]', ']'))
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--variant", "v1", "--python", PY, "-f", links, "--no-index")
    assert r.rc == 1, r.err
    # setuptools came from --find-links; `wheel`, which its get_requires_for_build_wheel adds, did not.
    assert ("vwheel: error: variant `v1`: installing the build requirements (get_requires_for_build_wheel): "
            "cannot resolve: no versions of `wheel` found") in r.err, r.err
    assert r.err.rstrip().endswith("vwheel: 1 of 1 builds failed: v1"), r.err
    assert not dist.exists(), "the output folder this run created is gone again"


def test_a_raising_backend_fails_its_variant_only(vwheel, tmp_path):
    project = write_project(tmp_path / "proj", broken=("v3", "raise"))
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", PY, "-j", "2")
    assert r.rc == 1, r.err
    assert "vwheel: error: variant `v3`: the backend's build_wheel failed (exit status 1)" in r.err, r.err
    assert "error: the compiler exploded" in r.err and "RuntimeError: backend failure for v3" in r.err
    assert "compiling step 39" in r.err and "compiling step 0\n" not in r.err, "only the last lines are shown"
    assert r.err.rstrip().endswith("vwheel: 1 of 3 builds failed: v3"), r.err
    assert sorted(p.name for p in dist.iterdir()) == ["demo_build-1.0-py3-none-any-null.whl",
                                                      "demo_build-1.0-py3-none-any-v1.whl",
                                                      "demo_build-1.0-variants.json"]
    no_leftovers(dist)


def test_a_hanging_backend_is_stopped_at_the_timeout(vwheel, tmp_path):
    project = write_project(tmp_path / "proj", broken=("v1", "hang"))
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--variant", "v1", "--variant", "v3", "--no-isolation", "--python", PY,
               "--timeout", "3")
    assert r.rc == 1, r.err
    assert "vwheel: error: variant `v1`: the backend's build_wheel did not finish within 3 s (--timeout); stopped" in r.err
    assert "compiling step 39" in r.err
    assert sorted(p.name for p in dist.iterdir()) == ["demo_build-1.0-py3-none-any-v3.whl",
                                                      "demo_build-1.0-variants.json"]
    no_leftovers(dist)


@pytest.mark.parametrize("mode,message", [
    ("other-project", "variant `v1`: the backend returned `other_pkg-1.0-py3-none-any.whl`, a wheel of `other_pkg`, "
                      "not of this project `demo-build`; refused"),
    ("other-version", "variant `v1`: the backend returned `demo_build-9.9-py3-none-any.whl`, version 9.9, not this "
                      "project's 1.0; refused"),
])
def test_a_wheel_of_another_project_or_version_is_refused(vwheel, tmp_path, mode, message):
    project = write_project(tmp_path / "proj", broken=("v1", mode))
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--variant", "v1", "--null", "--no-isolation", "--python", PY)
    assert r.rc == 1, r.err
    assert "vwheel: error: " + message in r.err, r.err
    assert sorted(p.name for p in dist.iterdir()) == ["demo_build-1.0-py3-none-any-null.whl",
                                                      "demo_build-1.0-variants.json"]


def test_hatchling_builds_the_variants_too(vwheel, tmp_path):
    project = write_project(tmp_path / "proj")
    text = (project / "pyproject.toml").read_text()
    text = text.replace('requires = ["setuptools>=61", "wheel"]', 'requires = ["hatchling"]')
    text = text.replace('build-backend = "setuptools.build_meta"', 'build-backend = "hatchling.build"')
    text = text.replace('[tool.setuptools]\npackages = ["demo_build"]', '[tool.hatch.build.targets.wheel]\npackages = ["demo_build"]')
    (project / "pyproject.toml").write_text(text)
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", PY, "-j", "3")
    assert r.rc == 0, r.err
    # hatchling 1.12 tags a project without requires-python py2.py3.
    assert sorted(p.name for p in dist.iterdir()) == ["demo_build-1.0-py2.py3-none-any-null.whl",
                                                      "demo_build-1.0-py2.py3-none-any-v1.whl",
                                                      "demo_build-1.0-py2.py3-none-any-v3.whl",
                                                      "demo_build-1.0-variants.json"]
    src = tmp_path / "direct-src"
    shutil.copytree(project, src)
    out = tmp_path / "direct-out"
    out.mkdir()
    ref = subprocess.run([PY, "-c", "import sys, hatchling.build as b; print(b.build_wheel(sys.argv[1]))", str(out)],
                         cwd=src, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    reference = members(out / ref)
    assert "demo_build/__init__.py" in reference
    for label in ("null", "v1", "v3"):
        wheel = dist / f"demo_build-1.0-py2.py3-none-any-{label}.whl"
        assert list(variant_json(wheel)["variants"]) == [label]
        assert members(wheel) == reference, label


def test_a_variant_aware_backend_writes_its_own_variant_json(vwheel, tmp_path):
    project = write_project(tmp_path / "proj", broken=("v3", "aware"))
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    wheel = dist / "demo_build-1.0-py3-none-any-v3.whl"
    assert variant_json(wheel)["variants"] == {"v3": {"x86_64": {"level": ["v3"]}}}
    with zipfile.ZipFile(wheel) as z:
        assert z.read("demo_build-1.0.dist-info/variant.json").startswith(b'{"$schema"'), "the backend's own file is kept"
    assert sorted(json.loads((dist / "demo_build-1.0-variants.json").read_text())["variants"]) == ["null", "v1", "v3"]


def test_a_backend_variant_json_with_other_properties_is_refused(vwheel, tmp_path):
    project = write_project(tmp_path / "proj", broken=("v3", "aware-wrong"))
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--variant", "v3", "--no-isolation", "--python", PY)
    assert r.rc == 1, r.err
    assert ("vwheel: error: variant `v3`: the wheel's variant.json does not give it the properties "
            "[x86_64 :: level :: v3]; refused") in r.err, r.err
    assert not dist.exists(), "the output folder this run created is gone again"


def test_sdist_then_wheels_from_it_and_wheels_from_a_given_sdist(vwheel, tmp_path):
    project = write_project(tmp_path / "proj")
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--sdist", "--variant", "v1", "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    (sdist,) = dist.glob("*.tar.gz")
    assert sdist.name == "demo-build-1.0.tar.gz"  # setuptools 66's sdist name
    assert sorted(p.name for p in dist.iterdir()) == [sdist.name, "demo_build-1.0-py3-none-any-v1.whl",
                                                      "demo_build-1.0-variants.json"]
    assert r.out.splitlines()[0] == str(sdist)
    no_leftovers(dist)
    # From the sdist alone: the wheels go next to it.
    r = vwheel("build", sdist, "--null", "--variant", "v3", "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    assert sorted(p.name for p in dist.iterdir()) == [sdist.name, "demo_build-1.0-py3-none-any-null.whl",
                                                      "demo_build-1.0-py3-none-any-v1.whl",
                                                      "demo_build-1.0-py3-none-any-v3.whl",
                                                      "demo_build-1.0-variants.json"]
    assert members(dist / "demo_build-1.0-py3-none-any-v3.whl") == members(direct_build(project, tmp_path))
    index = json.loads((dist / "demo_build-1.0-variants.json").read_text())
    assert sorted(index["variants"]) == ["null", "v1", "v3"]


def test_bad_sdists_are_refused(vwheel, tmp_path):
    not_gzip = tmp_path / "demo-1.0.tar.gz"
    not_gzip.write_bytes(b"x")
    r = vwheel("build", not_gzip, "--no-isolation", "--python", PY)
    assert r.rc == 1 and r.err.startswith(f"vwheel: error: {not_gzip}: cannot unpack the sdist: "), r.err
    import io
    import tarfile
    evil = tmp_path / "evil-1.0.tar.gz"
    with tarfile.open(evil, "w:gz") as t:
        data = b"boom"
        info = tarfile.TarInfo("../escaped.txt")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    r = vwheel("build", evil, "--no-isolation", "--python", PY)
    assert r.rc == 1, r.err
    assert "cannot unpack the sdist: refused: the archive member '../escaped.txt' is not a plain file or folder" in r.err
    assert not (tmp_path / "escaped.txt").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".vwheel-build-")]
    r = vwheel("build", tmp_path / "x.zip", "--no-isolation", "--python", PY)
    assert r.rc == 1 and "not a directory (give the source tree of the project, or its sdist)" in r.err, r.err


def test_the_example_project_builds_and_installs_per_profile(vwheel, tmp_path, examples):
    dist = tmp_path / "dist"
    r = vwheel("build", examples / "build-demo", "-o", dist, "--all-variants", "--no-isolation", "--python", PY,
               "-j", "3")
    assert r.rc == 0, r.err
    assert sorted(p.name for p in dist.iterdir()) == ["vdemo-1.0-py3-none-any-null.whl",
                                                      "vdemo-1.0-py3-none-any-x86_64_v1.whl",
                                                      "vdemo-1.0-py3-none-any-x86_64_v3.whl",
                                                      "vdemo-1.0-variants.json"]
    assert not list((examples / "build-demo").glob("src/*.egg-info")), "the example's tree stays clean"
    venv = tmp_path / "venv"
    assert vwheel("venv", venv, "--python", PY).rc == 0
    py = venv / "bin" / "python"
    for profile, build, cflags in (("x86_64-v3.json", "x86_64_v3", "-O2 -march=x86-64-v3"), ("no-gpu.json", "null", "")):
        r = vwheel("install", "vdemo", "--find-links", dist, "--no-index", "--python", py,
                   "--target", examples / "profiles" / profile, "--force-reinstall")
        assert r.rc == 0, r.err
        out = subprocess.run([str(py), "-c", "import vdemo; print(repr((vdemo.BUILD, vdemo.CFLAGS)))"],
                             capture_output=True, text=True, check=True).stdout.strip()
        assert out == repr((build, cflags)), (profile, out)
